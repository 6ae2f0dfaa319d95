"""Context mode (``browser.isolation: context``): the sessions of a process share one
Chromium, each in a browser context of its own, and see and change nothing of each
other's; the browser lives as long as its last session, and a crash relaunches it once
for all of them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote

import psutil
import pytest

import tabwarden
from tabwarden.backends.reaper import reaper
from tabwarden.backends.shared_browser import shared_browsers
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import InvalidArgument, TabwardenError
from tabwarden.manager import SessionManager
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tests.conftest import browser_processes

pytestmark = pytest.mark.browser


@contextlib.asynccontextmanager
async def _sessions(
    tmp_path: Path, *names: str, **options: object
) -> AsyncIterator[list[tabwarden.BrowserSession]]:
    """Context sessions, each with a workspace of its own; all closed at the end."""
    sessions: list[tabwarden.BrowserSession] = []
    try:
        for name in names:
            workspace = tmp_path / name
            workspace.mkdir(parents=True)
            start = tabwarden.launch(isolation="context", name=name, workspace=workspace, **options)
            sessions.append(await start)
        yield sessions
    finally:
        for session in sessions:
            await session.close()


def _pid(session: tabwarden.BrowserSession) -> int:
    assert session.endpoint is not None and session.endpoint.pid is not None
    return session.endpoint.pid


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def _until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    budget = Budget(15)
    while not check():
        budget.check(what)
        await budget.sleep(0.02)


async def _value(tab: tabwarden.Tab, expression: str) -> object:
    return (await tab.evaluate(expression)).value


async def test_two_sessions_share_one_browser_process(tmp_path):
    before = shared_browsers.launches
    async with _sessions(tmp_path, "a", "b") as (a, b):
        assert _pid(a) == _pid(b)
        assert shared_browsers.launches == before + 1
        # The reaper ends it at exit like any launched browser.
        assert _pid(a) in {tracked.pid for tracked in reaper.tracked()}
        assert a.backend.browser_context_id != b.backend.browser_context_id
        assert a.profile_kind == "throwaway"
        # One browser: the shared one's process tree is all there is.
        assert len([p for p in shared_browsers.running() if p.pid == _pid(a)]) == 1


async def test_cookies_and_local_storage_are_apart(tmp_path, server):
    async with _sessions(tmp_path, "a", "b") as (a, b):
        tab_a = await a.new_tab(server.url("/index.html"))
        tab_b = await b.new_tab(server.url("/index.html"))
        await tab_a.storage("set", "cookies", name="who", value="a")
        await tab_a.storage("set", "local", name="note", value="from a")
        await _value(tab_a, "document.cookie = 'script=a; path=/'")
        cookies_b = await tab_b.storage("get", "cookies")
        assert cookies_b.items == ()
        assert await _value(tab_b, "document.cookie") == ""
        assert await _value(tab_b, "localStorage.getItem('note')") is None
        # Reloaded, b's page still sends no cookie of a's.
        await tab_b.reload()
        assert await _value(tab_b, "document.cookie") == ""
        names_a = {item["name"] for item in (await tab_a.storage("get", "cookies")).items}
        assert names_a == {"who", "script"}
        assert await _value(tab_a, "localStorage.getItem('note')") == "from a"
        # Clearing every cookie of one session leaves the other's.
        await tab_b.storage("set", "cookies", name="who", value="b")
        await tab_a.storage("clear", "cookies", all=True)
        assert [i["value"] for i in (await tab_b.storage("get", "cookies")).items] == ["b"]
        assert (await tab_a.storage("get", "cookies")).items == ()


async def test_a_permission_granted_in_one_session_is_not_in_the_other(tmp_path, server):
    query = "navigator.permissions.query({name: 'geolocation'}).then(r => r.state)"
    async with _sessions(tmp_path, "a", "b") as (a, b):
        tab_a = await a.new_tab(server.url("/index.html"))
        tab_b = await b.new_tab(server.url("/index.html"))
        await a.emulate(latitude=48.85, longitude=2.35)  # grants geolocation
        assert await _value(tab_a, query) == "granted"
        assert await _value(tab_b, query) == "prompt"
        # Configured grants are the session's own too, and a reset in one (the end of an
        # emulated place) leaves the other's.
        async with (
            _sessions(tmp_path / "granted", "c", grant_permissions=["geolocation"]) as (c,),
        ):
            assert _pid(c) == _pid(a)
            tab_c = await c.new_tab(server.url("/index.html"))
            assert await _value(tab_c, query) == "granted"
            assert await _value(tab_b, query) == "prompt"
            await a.emulate(reset=True)
            assert await _value(tab_a, query) == "prompt"
            assert await _value(tab_c, query) == "granted"


async def test_downloads_land_in_each_sessions_own_folder(tmp_path, server):
    async with _sessions(tmp_path, "a", "b") as (a, b):
        for session in (a, b):
            tab = await session.new_tab(server.url("/files_downloads.html"))
            await tab.click("#notes")
            listing = await session.downloads(wait=True, timeout_ms=15_000)
            assert not listing.still_running, listing.text()
        for session, name in ((a, "a"), (b, "b")):
            (download,) = session.known_downloads()
            folder = tmp_path / name / "tabwarden-output" / "downloads"
            assert download.state == "completed", download.describe()
            assert download.path is not None and download.path.parent == folder
            assert download.path.read_bytes() == b"notes for notes.txt\n" * 20
            assert [p.name for p in folder.iterdir()] == [download.path.name]


async def test_tab_lists_are_apart_and_a_popup_lands_in_its_openers_session(tmp_path, server):
    async with _sessions(tmp_path, "a", "b") as (a, b):
        page = await a.new_tab(server.url("/popups.html"))
        other = await b.new_tab(server.url("/second.html"))
        await page.cdp(
            "Runtime.evaluate",
            {"expression": "document.getElementById('open').click()", "userGesture": True},
        )
        await _until(
            lambda: [t.url for t in a.known_tabs()][1:] == [server.url("/index.html")],
            "the popup loaded in its opener's session",
        )
        tabs_a = await a.tabs()
        assert [t.url for t in tabs_a] == [server.url("/popups.html"), server.url("/index.html")]
        assert tabs_a[1].opener is page
        tabs_b = await b.tabs()
        assert [t.id for t in tabs_b] == [other.id]
        assert other.target_id not in {t.target_id for t in tabs_a}
        # The popup is set up as a's tab (its snapshot works), and b cannot reach it.
        assert "Test home" in (await tabs_a[1].snapshot()).text
        with pytest.raises(TabwardenError):
            b.get_tab(tabs_a[1].target_id)


async def test_closing_one_session_leaves_the_other_and_the_last_ends_the_browser(tmp_path, server):
    async with _sessions(tmp_path, "a", "b") as (a, b):
        pid = _pid(a)
        (shared,) = [s for s in shared_browsers.running() if s.pid == pid]
        profile = shared.local.profile_dir
        assert profile is not None and profile.is_dir()
        await a.new_tab(server.url("/index.html"))
        await a.close()
        assert _alive(pid)
        tab = await b.new_tab(server.url("/second.html"))
        assert "Second page" in (await tab.snapshot()).text
        await b.close()
        assert not _alive(pid)
        assert not profile.exists() and not profile.parent.exists()
        assert shared not in shared_browsers.running()


async def test_a_killed_browser_fails_each_sessions_next_call_then_relaunches_once(
    tmp_path, server
):
    async with _sessions(tmp_path, "a", "b") as (a, b):
        tab_a = await a.new_tab(server.url("/index.html"))
        tab_b = await b.new_tab(server.url("/second.html"))
        pid = _pid(a)
        (old,) = [s for s in shared_browsers.running() if s.pid == pid]
        old_profile = old.local.profile_dir
        launches = shared_browsers.launches
        os.killpg(pid, signal.SIGKILL)
        await _until(
            lambda: not (a.connected or b.connected) and a.backend.exit_status() is not None,
            "both sessions noticing the browser is gone",
        )
        assert "was killed by SIGKILL" in (b.backend.exit_status() or "")
        for tab in (tab_a, tab_b):
            with pytest.raises(TabwardenError) as lost:
                await tab.snapshot()
            message = str(lost.value)
            assert "the browser went away" in message and "relaunches it" in message, message
        # Both sessions' next calls at once: one relaunch serves them both.
        new_a, new_b = await asyncio.gather(
            a.new_tab(server.url("/index.html")), b.new_tab(server.url("/second.html"))
        )
        assert shared_browsers.launches == launches + 1
        assert _pid(a) == _pid(b) != pid
        assert a.backend.browser_context_id != b.backend.browser_context_id
        assert "Test home" in (await new_a.snapshot()).text
        assert "Second page" in (await new_b.snapshot()).text
        for session in (a, b):
            relaunch = session.last_relaunch
            assert relaunch is not None and "SIGKILL" in relaunch.loss.reason
        assert old_profile is not None and not old_profile.exists()
        assert [t.id for t in await a.tabs()] == [new_a.id]


async def test_the_session_manager_runs_context_sessions(tmp_path, server):
    config = Config()
    config.browser.isolation = "context"
    config.browser.workspace = tmp_path
    manager = SessionManager(config)
    try:
        pids = set()
        for name in ("one", "two", "three"):
            context = ToolContext(manager, name)
            await call_tool(context, "browser_navigate", {"url": server.url("/index.html")})
            pids.add(_pid(manager.get(name)))
        assert len(pids) == 1
        (pid,) = pids
    finally:
        await manager.close_all()
    assert not _alive(pid)


async def test_each_session_judges_and_records_only_its_own_pages(tmp_path, server, other_origin):
    target = other_origin.url("/index.html")
    async with _sessions(tmp_path, "a", "b", blocked_origins=["localhost"]) as (a, b):
        assert _pid(a) == _pid(b)
        quiet = await b.new_tab(server.url("/second.html"))
        tab = await a.new_tab(server.url("/policy_links.html?to=" + quote(target)))
        receipt = await tab.click("#popup")
        (popup,) = receipt.new_tabs
        assert receipt.policy_blocks == [
            f"popup {popup} blocked by policy: {target} (deny list entry localhost)"
        ]
        assert "Test home" not in (await a.get_tab(popup).snapshot()).text
        urls_b = {d.url for d in b.policy_decisions()}
        assert urls_b == {server.url("/second.html")}, b.policy_decisions()
        assert [t.id for t in await b.tabs()] == [quiet.id]


async def test_a_document_is_paused_browser_wide_once_however_many_sessions_share(tmp_path, server):
    # Each session's own browser-wide interceptor would pause every document of every
    # session, one after the other: a page load would cost a round trip per session.
    async with _sessions(tmp_path, "a", "b", "c") as sessions:
        paused: list[str] = []
        for session in sessions:
            session.connection.subscribe(
                "Fetch.requestPaused",
                lambda event: paused.append(event.params["request"]["url"]),
                None,
            )
        tab = await sessions[0].new_tab(server.url("/second.html"))
        await tab.navigate(server.url("/index.html"))
        assert "Test home" in (await tab.snapshot()).text
        assert paused == []


async def test_a_link_opened_in_a_new_tab_is_judged_before_it_loads(tmp_path, server, other_origin):
    # Chromium creates the tab with the URL and loads it before any session attaches:
    # only the shared browser's own gate sees that load.
    target = other_origin.url("/index.html")
    async with _sessions(tmp_path, "a", "b", blocked_origins=["localhost"]) as (a, _):
        tab = await a.new_tab(server.url("/policy_links.html?to=" + quote(target)))
        before = {t.id for t in await a.tabs()}
        await tab.click("#link", modifiers=["Control"])
        opened = None
        budget = Budget(15)
        while opened is None:
            budget.check("the new tab")
            opened = next((t for t in await a.tabs() if t.id not in before), None)
            await budget.sleep(0.05)
        text = (await opened.snapshot()).text
        assert "Test home" not in text
        assert (await _value(opened, "document.title")) != "Test home"


_CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {root!r})
    import tabwarden
    from tabwarden.backends.shared_browser import shared_browsers

    async def main():
        first = await tabwarden.launch(isolation="context", name="one")
        await tabwarden.launch(isolation="context", name="two")
        (shared,) = shared_browsers.running()
        print(first.endpoint.pid, shared.local.profile_dir, flush=True)
        if sys.argv[1] == "raise":
            raise RuntimeError("the agent crashed")
        await asyncio.sleep(60)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("how", ["raise", "sigterm"])
async def test_no_orphan_shared_browser_or_profile_when_python_dies(how, tmp_path):
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(root=str(Path(__file__).resolve().parents[2] / "src")))
    child = subprocess.Popen(
        [sys.executable, str(script), how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = await asyncio.wait_for(asyncio.to_thread(child.stdout.readline), 30)
        assert line, child.stderr.read()
        pid_text, profile_text = line.split()
        profile = Path(profile_text)
        if how == "sigterm":
            assert _alive(int(pid_text)) and profile.is_dir()
            child.send_signal(signal.SIGTERM)
        await asyncio.wait_for(asyncio.to_thread(child.wait), 30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    await _until(lambda: not browser_processes(profile), "the shared browser ending")
    assert not profile.parent.exists(), "the shared browser's profile was left behind"


async def test_raw_cdp_and_traces_stay_inside_the_sessions_context(tmp_path, server):
    async with _sessions(tmp_path, "a", "b") as (a, b):
        tab_a = await a.new_tab(server.url("/index.html"))
        tab_b = await b.new_tab(server.url("/index.html"))
        await tab_b.storage("set", "cookies", name="who", value="b")
        reply = await a.cdp("Storage.getCookies")
        assert reply["cookies"] == []
        targets = await a.cdp("Target.getTargets")
        assert [t["targetId"] for t in targets["targetInfos"]] == [tab_a.target_id]
        for method, params, said in (
            ("Browser.close", None, "end the browser every context session shares"),
            ("Target.closeTarget", {"targetId": tab_b.target_id}, "not one of this session"),
            ("Target.disposeBrowserContext", {"browserContextId": "x"}, "the sessions' own"),
            (
                "Storage.getCookies",
                {"browserContextId": b.backend.browser_context_id},
                "another session's context",
            ),
        ):
            with pytest.raises(InvalidArgument, match=said):
                await a.cdp(method, params)
            with pytest.raises(InvalidArgument, match=said):
                await tab_a.cdp(method, params)
        with pytest.raises(InvalidArgument, match="records the whole browser"):
            await a.trace_start()
        assert "Test home" in (await tab_b.snapshot()).text
        assert [t.id for t in await b.tabs()] == [tab_b.id]


def test_the_sync_api_runs_context_sessions(tmp_path, server):
    from tabwarden import sync

    with (
        sync.launch(isolation="context", name="s1", workspace=tmp_path) as one,
        sync.launch(isolation="context", name="s2", workspace=tmp_path) as two,
    ):
        pid = one.endpoint.pid
        assert pid is not None and two.endpoint.pid == pid
        tab = one.new_tab(server.url("/index.html"))
        assert "Test home" in tab.snapshot().text
        assert two.tab_infos() == []
    assert not _alive(pid)


async def test_a_sessions_pages_are_set_up_before_they_run_while_others_let_them_go(
    tmp_path, server
):
    """Every session's connection auto-attaches every page of the browser; the others
    resume and drop it at once, and that must not start it before its own session set
    it up (its init script runs first, popups included)."""
    script = tmp_path / "init.js"
    script.write_text("window.initScriptRan = true;\n")
    page = server.url("/start_init_script.html")
    async with (
        _sessions(tmp_path / "plain", "a", "c") as (a, c),
        _sessions(tmp_path / "scripted", "b", init_scripts=[script]) as (b,),
    ):
        assert _pid(a) == _pid(b) == _pid(c)
        plain = await a.new_tab(page)
        assert (await plain.evaluate("window.pageSawInit")).value is False
        for _ in range(3):
            tab = await b.new_tab(page)
            assert (await tab.evaluate("window.pageSawInit")).value is True
            await tab.evaluate(f"window.open({page!r}, '_blank'); 1")
            budget = Budget(15)
            while not (popups := [t for t in await b.tabs() if t.opener is tab]):
                budget.check("waiting for the popup")
                await budget.sleep(0.02)
            await popups[0].wait(load_state="load")
            assert (await popups[0].evaluate("window.pageSawInit")).value is True
        assert [t.id for t in await a.tabs()] == [plain.id]
        assert await c.tabs() == []


async def test_sessions_started_at_once_share_one_launch(tmp_path):
    before = shared_browsers.launches
    starts = [
        tabwarden.launch(isolation="context", name=f"s{i}", workspace=tmp_path) for i in range(4)
    ]
    sessions = await asyncio.gather(*(start for start in starts))
    try:
        assert shared_browsers.launches == before + 1
        (pid,) = {_pid(s) for s in sessions}
        assert len({s.backend.browser_context_id for s in sessions}) == 4
    finally:
        await asyncio.gather(*(s.close() for s in sessions))
    assert not _alive(pid)


async def test_a_storage_state_saved_in_one_session_loads_into_another(tmp_path, server):
    # One workspace, so the file one session saves is the other's to load.
    workspace = tmp_path / "shared-workspace"
    workspace.mkdir()
    start_a = tabwarden.launch(isolation="context", name="a", workspace=workspace)
    start_b = tabwarden.launch(isolation="context", name="b", workspace=workspace)
    async with start_a as a, start_b as b:
        tab_a = await a.new_tab(server.url("/index.html"))
        await tab_a.storage("set", "cookies", name="who", value="a")
        await tab_a.storage("set", "local", name="note", value="from a")
        saved = await a.save_storage_state("a.json")
        assert saved.file is not None
        loaded = await b.load_storage_state(saved.file)
        assert loaded.notes == (), loaded.notes
        tab_b = await b.new_tab(server.url("/index.html"))
        assert await _value(tab_b, "document.cookie") == "who=a"
        assert await _value(tab_b, "localStorage.getItem('note')") == "from a"
        assert [t.id for t in await b.tabs()] == [tab_b.id]  # the loading tab is gone
        await tab_b.storage("set", "cookies", name="who", value="b")
        assert await _value(tab_a, "document.cookie") == "who=a"
