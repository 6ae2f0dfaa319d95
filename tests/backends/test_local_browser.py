"""The local backend with a real Chromium: launch, profiles, crashes and no orphans."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import tabwarden
from tabwarden.backends.local import LocalChromium, LocalOptions, chromium_args
from tabwarden.backends.reaper import RUN_DIR_PREFIX, sweep_stale_run_dirs
from tabwarden.budget import Budget
from tabwarden.errors import (
    BrowserCrashed,
    BrowserLaunchError,
    BrowserNotFound,
    ProfileInUse,
    TabClosed,
)
from tests.conftest import browser_processes

ROOT = Path(__file__).resolve().parents[2]


async def _gone(marker: str | Path, seconds: float = 10.0) -> bool:
    """Poll until no process mentions ``marker`` (or the deadline passes)."""
    budget = Budget(seconds)
    while browser_processes(marker):
        if budget.expired:
            return False
        await budget.sleep(0.05)
    return True


def test_launch_flags_keep_chromium_off_the_network_and_pick_a_free_port(tmp_path):
    args = chromium_args(LocalOptions(), tmp_path, as_root=True)
    for flag in (
        "--remote-debugging-port=0",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-sandbox",
        "--headless",
        f"--user-data-dir={tmp_path}",
    ):
        assert flag in args
    assert "--no-sandbox" not in chromium_args(LocalOptions(), tmp_path, as_root=False)
    assert "--headless" not in chromium_args(LocalOptions(headless=False), tmp_path, as_root=False)


@pytest.mark.browser
async def test_isolated_launch_serves_cdp_and_leaves_nothing_after_close():
    backend = LocalChromium(LocalOptions(isolated=True))
    session = tabwarden.BrowserSession(backend)
    await session.start()
    profile = backend.profile_dir
    assert profile is not None and profile.is_dir()
    assert session.endpoint is not None and session.endpoint.ws_url.startswith("ws://127.0.0.1:")
    assert "Chrome/" in session.product
    assert browser_processes(profile)
    socket_dir = _singleton_dir(profile)
    assert socket_dir.is_dir()
    await session.close()
    assert await _gone(profile)
    assert not profile.exists()
    assert not profile.parent.exists()  # the run folder too
    # Chromium's own one-instance folder in the temporary directory: a killed browser
    # does not remove it, so tabwarden does.
    assert not socket_dir.exists()


def _singleton_dir(profile: Path) -> Path:
    """The folder Chromium links from the profile for its one-instance socket."""
    return Path(os.readlink(profile / "SingletonSocket")).parent


@pytest.mark.browser
async def test_parallel_launches_get_distinct_ports():
    sessions = await asyncio.gather(*(tabwarden.launch(isolated=True) for _ in range(3)))
    try:
        urls = {s.endpoint.ws_url.rsplit(":", 1)[1].split("/")[0] for s in sessions}
        assert len(urls) == 3
        tabs = await asyncio.gather(*(s.new_tab() for s in sessions))
        assert all(t.url == "about:blank" for t in tabs)
    finally:
        await asyncio.gather(*(s.close() for s in sessions))


@pytest.mark.browser
async def test_workspace_profile_keeps_cookies_across_launches(server, tmp_path):
    async with tabwarden.launch(workspace=tmp_path) as first:
        await first.new_tab(server.url("/set-cookie?name=kept&value=yes"))
        profile = first.backend.profile_dir
    assert profile is not None and profile.is_dir()  # persistent: still there
    async with tabwarden.launch(workspace=tmp_path) as second:
        tab = await second.new_tab(server.url("/cookies"))
        assert tab.title == "kept=yes"
        assert second.backend.profile_dir == profile


@pytest.mark.browser
async def test_a_profile_in_use_is_refused_with_guidance(tmp_path):
    async with tabwarden.launch(workspace=tmp_path, name="shared"):
        with pytest.raises(ProfileInUse) as caught:
            await tabwarden.launch(workspace=tmp_path, name="shared")
    assert "isolated=True" in caught.value.hint


async def test_missing_executable_is_reported_with_install_hint(monkeypatch):
    monkeypatch.delenv("TABWARDEN_CHROME", raising=False)  # it outranks the argument
    with pytest.raises(BrowserNotFound) as caught:
        await tabwarden.launch(isolated=True, executable="/nonexistent/chromium")
    assert "/nonexistent/chromium" in str(caught.value)


async def test_a_browser_that_dies_at_start_shows_its_output(tmp_path, monkeypatch):
    monkeypatch.delenv("TABWARDEN_CHROME", raising=False)  # it outranks the argument
    fake = tmp_path / "fake-chrome"
    fake.write_text("#!/bin/sh\necho 'boom: cannot start' >&2\nexit 3\n")
    fake.chmod(0o755)
    before = set(Path("/tmp").glob(f"{RUN_DIR_PREFIX}{os.getpid()}-*"))
    with pytest.raises(BrowserLaunchError) as caught:
        await tabwarden.launch(isolated=True, executable=str(fake))
    assert "boom: cannot start" in str(caught.value)
    assert "code 3" in str(caught.value)
    assert set(Path("/tmp").glob(f"{RUN_DIR_PREFIX}{os.getpid()}-*")) == before


async def test_headed_without_a_display_is_refused(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(BrowserLaunchError) as caught:
        await tabwarden.launch(isolated=True, headless=False)
    assert "display" in str(caught.value)


@pytest.mark.browser
async def test_browser_killed_mid_call_fails_fast_and_next_call_relaunches(server):
    async with tabwarden.launch(isolated=True) as session:
        tab = await session.new_tab(server.url("/index.html"))
        old_pid = session.endpoint.pid
        loading = asyncio.ensure_future(
            tab.navigate(server.url("/slow?ms=10000"), timeout_ms=20000)
        )
        while not loading.done() and tab.url.endswith("index.html") and not session.busy:
            await asyncio.sleep(0.01)
        started = time.monotonic()
        os.killpg(old_pid, signal.SIGKILL)
        with pytest.raises(BrowserCrashed) as caught:
            await loading
        assert time.monotonic() - started < 2.0
        assert "SIGKILL" in str(caught.value) or "went away" in str(caught.value)
        assert "relaunch" in caught.value.hint
        with pytest.raises(TabClosed):
            await tab.navigate(server.url("/index.html"))
        fresh = await session.new_tab(server.url("/second.html"))
        assert fresh.title == "Second page"
        assert session.endpoint.pid != old_pid
        assert session.launches == 2
        assert fresh.id != tab.id  # a dead tab's id never names another page


_CHILD = textwrap.dedent(
    """
    import asyncio, os, sys, time
    sys.path.insert(0, {root!r})
    import tabwarden

    async def main():
        session = await tabwarden.launch(isolated=True)
        print(session.endpoint.pid, session.backend.profile_dir, flush=True)
        mode = sys.argv[1]
        if mode == "raise":
            raise RuntimeError("the agent crashed")
        await asyncio.sleep(60)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("how", ["raise", "sigterm", "sigkill"])
@pytest.mark.browser
async def test_no_orphan_browser_or_profile_when_python_dies(how, tmp_path):
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(root=str(ROOT / "src")))
    child = subprocess.Popen(
        [sys.executable, str(script), "raise" if how == "raise" else "wait"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = await asyncio.wait_for(asyncio.to_thread(child.stdout.readline), 30)
        _pid, profile_text = line.split()
        profile = Path(profile_text)
        socket_dir = None
        if how != "raise":  # a raising child may already have cleaned up
            assert profile.is_dir()
            socket_dir = _singleton_dir(profile)
        if how == "sigterm":
            child.send_signal(signal.SIGTERM)
        elif how == "sigkill":
            child.send_signal(signal.SIGKILL)
        await asyncio.wait_for(asyncio.to_thread(child.wait), 30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert await _gone(profile), "the browser outlived the Python process"
    if how == "sigkill":
        # Nothing in the dead process could clean up: the next launch's sweep does
        # (here, or a launch in a parallel test worker that swept it first).
        sweep_stale_run_dirs()
    assert not profile.parent.exists(), "the temporary profile was left behind"
    assert socket_dir is None or not socket_dir.exists(), "Chromium's socket folder was left"
