"""The Selenium Grid backend against a real Selenium Grid 4 (standalone, two Chrome slots)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio

import tabwarden
from tabwarden.backends.cloud.matrix import GRID
from tabwarden.backends.grid import GridOptions, SeleniumGrid, grid_backend, grid_capabilities
from tabwarden.backends.grid_http import GridFull, GridUnreachable
from tabwarden.backends.grid_sessions import ledger
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import ConfigError, TabClosed
from tabwarden.session import BrowserSession
from tests.conftest import browser_processes
from tests.grid_server import GridMissing, GridServer

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GridServer]:
    """One Grid for the module; stopped with everything it started at the end."""
    try:
        server = GridServer(tmp_path_factory.mktemp("grid")).start()
    except GridMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    yield server
    server.stop()
    assert server.descendants() == [], "the Grid left processes behind"
    assert browser_processes(server.temp) == [], "a Chromium of the Grid is left"


def _config(grid: GridServer, **grid_keys: object) -> Config:
    config = Config()
    config.browser.grid.url = grid.url
    for key, value in grid_keys.items():
        setattr(config.browser.grid, key, value)
    return config


def _session(config: Config, name: str) -> BrowserSession:
    return BrowserSession(grid_backend(config, name), name=name, config=config)


async def _until(check: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    """Poll ``check`` (off the event loop) until true, or fail saying ``what``."""
    budget = Budget(seconds)
    while not await asyncio.to_thread(check):
        if budget.expired:
            raise AssertionError(f"{what}: still not so after {seconds:.0f} s")
        await budget.sleep(0.05)


def _ref(snapshot, name: str) -> str:
    for node in snapshot.root.walk():
        if node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no node named {name!r} in:\n{snapshot.text}")


def test_capabilities_ask_for_a_quiet_chrome_and_take_the_configured_ones_on_top():
    config = Config()
    config.browser.grid.url = "http://grid:4444/"
    config.browser.window_width, config.browser.window_height = 1024, 600
    config.browser.grid.capabilities = {
        "platformName": "linux",
        "goog:chromeOptions": {"args": ["--lang=de"], "binary": "/opt/chromium"},
    }
    backend = grid_backend(config, "mine")
    assert backend.url == "http://grid:4444" and backend.viewport == (1024, 600)
    caps = grid_capabilities(backend.options)
    assert caps["browserName"] == "chrome" and caps["webSocketUrl"] is True
    assert caps["platformName"] == "linux" and caps["se:name"] == "tabwarden mine"
    assert caps["unhandledPromptBehavior"] == "ignore"  # dialogs are the agent's to answer
    options = caps["goog:chromeOptions"]
    assert options["binary"] == "/opt/chromium"
    assert options["args"][:8] == [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1024,600",
    ]
    assert options["args"][-1] == "--lang=de"
    headed = grid_capabilities(GridOptions(url="http://grid:4444", headless=False))
    assert "--headless=new" not in headed["goog:chromeOptions"]["args"]
    with pytest.raises(ConfigError, match=r"browser\.grid\.url is not set"):
        grid_backend(Config())


@pytest_asyncio.fixture(loop_scope="module")
async def pair(grid: GridServer) -> AsyncIterator[list[BrowserSession]]:
    """Two agent sessions on the Grid, started in parallel: its two slots."""
    config = _config(grid)
    sessions = [_session(config, "grid-a"), _session(config, "grid-b")]
    try:
        await asyncio.gather(*(s.start(timeout_ms=60_000) for s in sessions))
        yield sessions
    finally:
        await asyncio.gather(*(s.close() for s in sessions))
        await _until(lambda: grid.sessions() == [], "the Grid's sessions were deleted")


async def _drive(session: BrowserSession, url: str, clicks: int) -> dict:
    tab = await session.new_tab(url)
    snapshot = await tab.snapshot()
    for _ in range(clicks):
        await tab.click(_ref(snapshot, "Count"))
    value = await tab.evaluate("document.getElementById('counter').dataset.n")
    return {"value": value.value, "title": tab.title, "snapshot": snapshot.text}


async def test_two_agent_sessions_drive_pages_in_parallel_on_the_grid(grid, pair, server):
    a, b = pair
    assert isinstance(a.backend, SeleniumGrid) and isinstance(b.backend, SeleniumGrid)
    # Each session drives its own Grid browser over the Grid's CDP proxy.
    for session in pair:
        assert session.backend.session_id in grid.sessions()
        assert session.endpoint is not None
        assert session.endpoint.ws_url == (
            f"ws://127.0.0.1:{grid.port}/session/{session.backend.session_id}/se/cdp"
        )
    first, second = await asyncio.gather(
        _drive(a, server.url("/actions.html"), 1), _drive(b, server.url("/actions.html"), 3)
    )
    assert (first["value"], second["value"]) == ("1", "3")  # separate browsers
    assert first["title"] == "Actions" and "Count" in first["snapshot"]
    # Only pages are tabs: the driver's own targets (its BiDi mapper) stay out of them.
    for session in pair:
        tabs = await session.tabs()
        assert [t.url for t in tabs] == [server.url("/actions.html")]


async def test_dialogs_wait_for_the_agent_and_are_not_answered_by_the_driver(pair, server):
    session = pair[0]
    tab = await session.new_tab(server.url("/dialogs.html"))
    await tab.click(_ref(await tab.snapshot(), "Prompt"))
    pending = session.state(tab).pending_dialogs
    assert [d.type for d in pending] == ["prompt"]  # left open for the agent
    await tab.dialog("accept", prompt_text="grid")
    assert (await tab.evaluate("document.title")).value == "prompt=grid"


async def test_popups_become_tabs_set_up_like_any_other(pair, server):
    session = pair[1]
    page = await session.new_tab(server.url("/popups.html"))
    await page.click(_ref(await page.snapshot(), "open second in a new tab"))
    budget = Budget(20)
    while len(await session.tabs()) < 2:
        budget.check("waiting for the popup")
        await budget.sleep(0.05)
    popup = next(t for t in await session.tabs() if t is not page)
    assert popup.opener is page
    snapshot = await popup.snapshot()
    assert snapshot.url == server.url("/second.html")
    assert (await popup.evaluate("location.pathname")).value == "/second.html"


async def test_the_grid_row_of_the_backend_matrix_holds_on_a_real_grid(pair, server, other_origin):
    session = pair[0]
    tab = await session.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    budget = Budget(20)
    while len(tab.frames.frames()) < 3:
        budget.check(f"waiting for 3 frames (have {len(tab.frames.frames())})")
        await budget.sleep(0.05)
    children = [f for f in tab.frames.frames() if f.parent_id]
    assert GRID.frame_tree == (len(children) == 2)
    cross = [f for f in children if f.is_oopif]
    assert len(cross) == 1  # the Grid's Chrome isolates sites as a local one does
    result = await tab.evaluate("location.search", frame_id=cross[0].frame_id)
    assert GRID.oopif_evaluate == (result.value == "?name=cross")
    await tab.navigate(server.url("/dialogs.html"))
    receipt = await tab.click(_ref(await tab.snapshot(), "Confirm"))
    assert GRID.dialog_detect == (receipt.dialog is not None)
    assert GRID.dialog_bridge == (receipt.dialog.source == "bridge")
    await tab.dialog("accept")
    title = await tab.evaluate("document.title")
    assert GRID.dialog_respond == (title.value == "confirm=true")
    # No page to watch from the Grid, nothing kept between sessions, and a lost browser
    # is replaced (test_a_browser_lost_on_the_node_is_replaced_by_a_new_grid_session).
    assert not GRID.live_view and not GRID.profile_persistence
    assert GRID.ends_on_disconnect == session.backend.owns_browser
    await tab.close()


async def test_a_third_session_fails_clearly_when_the_grid_is_full(grid, pair):
    third = _session(_config(grid), "grid-c")
    created = grid.created()
    started = time.monotonic()
    with pytest.raises(GridFull) as failed:
        await third.start(timeout_ms=2_000)
    assert time.monotonic() - started < 10  # its own budget, not the Grid's queue's 15 s
    assert "the Grid has no free slot: 2 sessions in use" in str(failed.value)
    assert "--max-sessions" in failed.value.hint
    await third.close()
    assert ledger.held(grid.url) == 2  # the pair's; the failed start gave its place back

    # The request given up on still waits in the Grid's queue: closing one of the pair
    # gives it the slot, and the session the Grid creates for it is deleted at once.
    assert grid.queued() == 1
    await pair[0].close()
    await _until(lambda: grid.created() == created + 1, "the Grid served the late request")
    await _until(
        lambda: grid.sessions() == [pair[1].backend.session_id] and grid.queued() == 0,
        "the late session was deleted; only the pair's other session is left",
    )


async def test_a_third_session_waits_for_a_slot_and_gets_the_one_freed(grid, pair):
    third = _session(_config(grid), "grid-c")
    waiting = asyncio.create_task(third.start(timeout_ms=60_000))
    try:
        await _until(lambda: grid.queued() == 1, "the third request is queued")
        assert not waiting.done()
        closed_id = pair[0].backend.session_id
        await pair[0].close()
        await waiting
        assert third.backend.session_id not in (None, closed_id)
        tab = await third.new_tab()
        assert (await tab.evaluate("1 + 2")).value == 3
    finally:
        waiting.cancel()
        await third.close()
    await _until(
        lambda: grid.sessions() == [pair[1].backend.session_id],
        "only the pair's other session is left",
    )


async def test_closing_deletes_the_webdriver_session_and_its_browser(grid):
    session = _session(_config(grid), "grid-close")
    await session.start(timeout_ms=60_000)
    backend = session.backend
    assert isinstance(backend, SeleniumGrid)
    session_id = backend.session_id
    browser_pid = backend.capabilities["goog:processID"]
    assert psutil.pid_exists(browser_pid)
    assert grid.sessions() == [session_id]
    assert ledger.held(grid.url) == 1
    started = time.monotonic()
    await session.close()
    # No Browser.close and a wait for the socket to close: the Grid's proxy keeps it
    # open (that would stall 10 s); the delete quits the browser.
    assert time.monotonic() - started < 5
    assert ledger.held(grid.url) == 0
    # Deleted by close, not later: the Grid no longer knows it ...
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(f"{grid.url}/session/{session_id}/url", timeout=5)
    assert gone.value.code == 404
    # ... and its status shows the slot free (it updates a moment after the delete).
    await _until(lambda: grid.sessions() == [], "the Grid's status shows the slot free")
    await _until(lambda: not _running(browser_pid), "the session's Chromium exited")


async def test_launch_with_backend_grid_drives_a_browser_of_the_configured_grid(grid, server):
    async with tabwarden.launch(backend="grid", config=_config(grid)) as session:
        assert isinstance(session.backend, SeleniumGrid)
        assert grid.sessions() == [session.backend.session_id]
        tab = await session.new_tab(server.url("/index.html"))
        assert tab.title == "Test home"
    await _until(lambda: grid.sessions() == [], "the Grid's status shows the slot free")


async def test_a_start_that_fails_after_the_grid_made_the_session_deletes_it(grid, tmp_path):
    config = _config(grid)
    config.browser.storage_state = tmp_path / "missing-state.json"  # fails the set-up
    session = _session(config, "grid-failing")
    created = grid.created()
    with pytest.raises(ConfigError, match="storage_state"):
        await session.start(timeout_ms=60_000)
    assert grid.created() == created + 1  # the Grid made it: the failure came after
    assert ledger.held(grid.url) == 0
    await _until(lambda: grid.sessions() == [], "the failed start's session was deleted")
    await session.close()


async def test_the_client_side_limit_fails_at_once_without_asking_the_grid(grid):
    config = _config(grid, max_sessions=1)
    first = _session(config, "grid-limit-1")
    second = _session(config, "grid-limit-2")
    await first.start(timeout_ms=60_000)
    try:
        started = time.monotonic()
        with pytest.raises(GridFull) as busy:
            await second.start(timeout_ms=30_000)
        assert time.monotonic() - started < 1
        assert "this process is busy with the Grid" in str(busy.value)
        assert "browser.grid.max_sessions" in busy.value.hint
        assert len(grid.sessions()) == 1 and grid.queued() == 0
    finally:
        await second.close()
        await first.close()
    await _until(lambda: grid.sessions() == [], "the Grid's slots are free")


async def test_a_browser_lost_on_the_node_is_replaced_by_a_new_grid_session(grid, server):
    session = _session(_config(grid), "grid-lost")
    try:
        tab = await session.new_tab(server.url("/actions.html"))
        backend = session.backend
        old_id = backend.session_id
        psutil.Process(backend.capabilities["goog:processID"]).kill()
        # The Grid's CDP proxy keeps the socket open; the Grid's WebDriver side tells.
        await _until(lambda: backend.exit_status() is not None, "the Grid says it is gone")
        assert session.connected  # the socket alone would never have told
        tab = await session.new_tab(server.url("/actions.html"))
        assert tab.title == "Actions"
        assert backend.session_id not in (None, old_id)
        assert session.last_relaunch is not None
        assert "went away on its Grid node" in session.last_relaunch.loss.reason
        await _until(lambda: old_id not in grid.sessions(), "the lost session was deleted")
    finally:
        await session.close()
    await _until(lambda: grid.sessions() == [], "the Grid's slots are free")


@pytest.mark.parametrize("ending", ["returns", "SIGTERM"])
def test_a_process_that_ends_without_closing_deletes_its_grid_session(grid, ending):
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal
        from tabwarden.backends.grid import grid_backend
        from tabwarden.config import Config
        from tabwarden.session import BrowserSession

        async def main():
            config = Config()
            config.browser.grid.url = {grid.url!r}
            session = BrowserSession(grid_backend(config, "exiting"), config=config)
            await session.start(timeout_ms=60_000)
            print(session.backend.session_id, flush=True)
            if {ending!r} == "SIGTERM":
                os.kill(os.getpid(), signal.SIGTERM)
                await asyncio.sleep(30)  # the signal ends the process first

        asyncio.run(main())  # ends with the session still open
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=90
    )
    assert done.returncode == (0 if ending == "returns" else -15), done.stderr
    session_id = done.stdout.strip().splitlines()[-1]
    # Deleted as the process ended: the Grid forgets it (a node still quitting the
    # browser answers 500 for a moment on a loaded machine, then 404).
    assert _forgotten(grid.url, session_id), "the Grid still knows the session"


async def test_a_grid_that_goes_away_drops_the_session_and_says_so_on_the_next_call(
    tmp_path, server
):
    own = GridServer(tmp_path, max_sessions=1).start()
    try:
        config = Config()
        config.browser.grid.url = own.url
        session = _session(config, "grid-going")
        tab = await session.new_tab(server.url("/actions.html"))
        own.stop()  # the Grid and its browsers end: the socket through it closes
        await _until(lambda: not session.connected, "the connection dropped")
        with pytest.raises(TabClosed):
            await tab.snapshot()
        with pytest.raises(GridUnreachable) as gone:
            await session.new_tab()  # a new browser is asked of the Grid: none there
        assert f"no Selenium Grid at {own.url}: connection refused" in str(gone.value)
        assert ledger.held(own.url) == 0
        await session.close()
    finally:
        own.stop()


async def test_no_grid_at_the_url_says_so_and_how_to_start_one(closed_port):
    config = Config()
    config.browser.grid.url = f"http://127.0.0.1:{closed_port}"
    session = _session(config, "grid-gone")
    started = time.monotonic()
    with pytest.raises(GridUnreachable) as gone:
        await session.start(timeout_ms=10_000)
    assert time.monotonic() - started < 5
    assert f"no Selenium Grid at http://127.0.0.1:{closed_port}" in str(gone.value)
    assert "connection refused" in str(gone.value)
    assert "start it with" in gone.value.hint
    assert ledger.held(config.browser.grid.url) == 0
    await session.close()


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _forgotten(grid_url: str, session_id: str, seconds: float = 15.0) -> bool:
    """The Grid answers 404 for the session within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(f"{grid_url}/session/{session_id}/url", timeout=5)
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)  # polling the Grid, with a deadline
