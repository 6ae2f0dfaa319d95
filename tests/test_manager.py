"""SessionManager: named, isolated sessions; idle cleanup; attach by endpoint."""

from __future__ import annotations

import asyncio

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import (
    ConsentRequired,
    EndpointError,
    InvalidArgument,
    SessionClosed,
    SessionError,
    SessionLimitReached,
    SessionNotFound,
)
from tests.conftest import browser_processes


def _config(**browser: object) -> Config:
    config = Config()
    config.browser.isolated = True
    for key, value in browser.items():
        setattr(config.browser, key, value)
    return config


@pytest.mark.browser
async def test_two_sessions_do_not_share_cookies(server):
    async with tabwarden.SessionManager(_config()) as manager:
        alice = await manager.get_or_create("alice")
        bob = await manager.get_or_create("bob")
        await alice.open(server.url("/set-cookie?name=who&value=alice"))
        assert (await alice.open(server.url("/cookies"))).title == "who=alice"
        assert (await bob.open(server.url("/cookies"))).title == "no cookies"
        assert alice.endpoint.pid != bob.endpoint.pid
        assert sorted(manager.names()) == ["alice", "bob"]


@pytest.mark.browser
async def test_get_or_create_is_idempotent_even_when_concurrent():
    async with tabwarden.SessionManager(_config()) as manager:
        first, second = await asyncio.gather(
            manager.get_or_create("task"), manager.get_or_create("task")
        )
        assert first is second
        assert manager.get("task") is first
        assert manager.names() == ["task"]


async def test_bad_and_unknown_names_say_what_to_do():
    async with tabwarden.SessionManager(_config()) as manager:
        with pytest.raises(InvalidArgument) as bad:
            await manager.get_or_create("no spaces please")
        assert "letters" in bad.value.hint
        with pytest.raises(SessionNotFound):
            manager.get("nobody")
        with pytest.raises(SessionNotFound):
            await manager.close("nobody")


@pytest.mark.browser
async def test_idle_sessions_are_closed_by_the_reaper():
    async with tabwarden.SessionManager(_config(inactivity_timeout_s=0.4)) as manager:
        session = await manager.get_or_create("idle")
        profile = session.backend.profile_dir
        budget = Budget(10)
        while not session.closed:
            budget.check("waiting for the reaper")
            await budget.sleep(0.05)
        assert manager.reaped == ["idle"]
        record = manager.reaped_session("idle")
        assert record is not None and record.session() is session
        assert record.timeout_s == 0.4 and record.idle_s >= 0.4
        assert "idle was closed after" in record.describe()
        assert manager.names() == []
        with pytest.raises(SessionClosed):
            await session.new_tab()
        assert not browser_processes(profile)
        assert not profile.exists()
        # A later call simply creates the session again.
        again = await manager.get_or_create("idle")
        assert again is not session and not again.closed


@pytest.mark.browser
async def test_a_busy_session_is_not_reaped(server):
    async with tabwarden.SessionManager(_config(inactivity_timeout_s=3600)) as manager:
        session = await manager.get_or_create("busy")
        tab = await session.current_tab()
        loading = asyncio.ensure_future(tab.navigate(server.url("/slow?ms=800")))
        budget = Budget(5)
        while not session.busy:
            budget.check("waiting for the call to start")
            await budget.sleep(0.01)
        session.last_used -= 7200  # idle on paper, but a call is running
        assert await manager.reap_idle() == []
        await loading
        session.last_used -= 7200
        assert await manager.reap_idle() == ["busy"]


@pytest.mark.browser
async def test_close_all_leaves_no_browser_behind():
    manager = tabwarden.SessionManager(_config())
    sessions = [await manager.get_or_create(n) for n in ("a", "b")]
    profiles = [s.backend.profile_dir for s in sessions]
    await manager.close_all()
    assert all(s.closed for s in sessions)
    budget = Budget(10)
    while any(browser_processes(p) for p in profiles):
        budget.check("waiting for browsers to exit")
        await budget.sleep(0.05)
    assert not any(p.exists() for p in profiles)
    with pytest.raises(SessionClosed):
        await manager.get_or_create("c")


@pytest.mark.browser
async def test_attach_by_http_endpoint_sees_tabs_and_leaves_the_browser_running(server):
    async with tabwarden.launch(isolated=True) as owner:
        own_tab = await owner.new_tab(server.url("/index.html"))
        port = owner.endpoint.ws_url.split(":")[2].split("/")[0]
        async with tabwarden.SessionManager(_config()) as manager:
            guest = await manager.get_or_create(
                "guest", cdp_url=f"http://127.0.0.1:{port}", consent=True
            )
            assert "Chrome/" in guest.endpoint.product
            titles = [t.title for t in await guest.tabs()]
            assert "Test home" in titles
            opened = await guest.new_tab(server.url("/second.html"))
            assert opened.title == "Second page"
            assert len(await owner.tabs()) == 2
        # The guest closed only its own tab; the owner's browser and tab live on.
        budget = Budget(5)
        while len(await owner.tabs()) != 1:
            budget.check("waiting for the guest's tab to close")
            await budget.sleep(0.02)
        assert (await own_tab.reload()).title == "Test home"


@pytest.mark.browser
async def test_attach_by_ws_url_and_consent_hook(server):
    async with tabwarden.launch(isolated=True) as owner:
        asked = []

        def refuse(request: tabwarden.AttachRequest) -> bool:
            asked.append(request)
            return False

        with pytest.raises(ConsentRequired):
            await tabwarden.attach(owner.endpoint.ws_url, consent=refuse)
        assert asked and asked[0].is_loopback and asked[0].ws_url == owner.endpoint.ws_url

        async def allow(request: tabwarden.AttachRequest) -> bool:
            return True

        async with tabwarden.attach(owner.endpoint.ws_url, consent=allow) as guest:
            assert guest.connected
            tab = await guest.new_tab(server.url("/second.html"))
            assert tab.title == "Second page"


async def test_attach_errors_say_how_to_fix_the_url(closed_port):
    with pytest.raises(InvalidArgument) as bad:
        await tabwarden.attach("localhost:9222")
    assert "http://host:port" in bad.value.hint
    with pytest.raises(EndpointError) as unreachable:
        await tabwarden.attach(f"http://127.0.0.1:{closed_port}", timeout_ms=3000)
    assert "--remote-debugging-port" in unreachable.value.hint


@pytest.mark.browser
async def test_a_different_endpoint_for_the_same_task_starts_fresh(server):
    async with (
        tabwarden.launch(isolated=True) as first_browser,
        tabwarden.launch(isolated=True) as second_browser,
        tabwarden.SessionManager(_config()) as manager,
    ):
        old = await manager.get_or_create(
            "task", cdp_url=first_browser.endpoint.ws_url, consent=True
        )
        same = await manager.get_or_create(
            "task", cdp_url=first_browser.endpoint.ws_url, consent=True
        )
        assert same is old
        await old.new_tab(server.url("/index.html"))
        new = await manager.get_or_create(
            "task", cdp_url=second_browser.endpoint.ws_url, consent=True
        )
        assert new is not old and old.closed and not new.closed
        assert manager.get("task") is new
        assert new.supervisor is not old.supervisor
        # The old browser lives on (it was only attached to); the tab the old session
        # opened there was closed with it.
        assert [t.title for t in await first_browser.tabs()] == [""]


# ---- browser.max_sessions, browser-free: sessions that are forever starting ----------------


class _StartingBackend:
    """A browser that is forever starting: its session counts as taken until cancelled."""

    name = "starting"
    owns_browser = True
    needs_dialog_bridge = False
    viewport = None

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.closed = False

    async def start(self, budget: Budget) -> object:
        self.started.set()
        await asyncio.Event().wait()
        raise AssertionError("never reached")

    async def reconnect(self, budget: Budget) -> object:
        raise AssertionError("never reconnected")

    async def close(self) -> None:
        self.closed = True

    def exit_status(self) -> str | None:
        return None


def _manager(limit: int) -> tuple[tabwarden.SessionManager, dict[str, _StartingBackend]]:
    config = Config()
    config.browser.max_sessions = limit
    config.browser.inactivity_timeout_s = 0
    backends: dict[str, _StartingBackend] = {}

    def factory(name: str, _config: Config) -> _StartingBackend:
        backends[name] = _StartingBackend()
        return backends[name]

    return tabwarden.SessionManager(config, backend_factory=factory), backends  # type: ignore[arg-type]


async def _starting(
    manager: tabwarden.SessionManager, backends: dict[str, _StartingBackend], name: str
) -> asyncio.Task[object]:
    task = asyncio.create_task(manager.get_or_create(name))
    budget = Budget(10)
    while name not in backends or not backends[name].started.is_set():
        budget.check(f"waiting for session {name} to start")
        await budget.sleep(0.01)
    return task


async def _cancel(task: asyncio.Task[object]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_one_session_past_the_limit_fails_at_once_saying_why() -> None:
    manager, backends = _manager(2)
    async with manager:
        first = await _starting(manager, backends, "a")
        second = await _starting(manager, backends, "b")
        with pytest.raises(SessionLimitReached) as refused:
            await asyncio.wait_for(manager.get_or_create("c"), 5)
        assert isinstance(refused.value, SessionError)
        assert (refused.value.open_count, refused.value.limit) == (2, 2)
        assert "2 sessions open" in refused.value.message
        assert "browser.max_sessions = 2" in refused.value.message
        assert "retry later" in refused.value.hint
        assert "raise browser.max_sessions" in refused.value.hint
        assert "c" not in backends  # refused before any browser was asked for

        # A slot that frees (its start given up) is taken by the next one.
        await _cancel(first)
        assert backends["a"].closed
        third = await _starting(manager, backends, "c")
        with pytest.raises(SessionLimitReached):
            await asyncio.wait_for(manager.get_or_create("d"), 5)
        await _cancel(second)
        await _cancel(third)


async def test_zero_means_no_limit() -> None:
    manager, backends = _manager(0)
    async with manager:
        tasks = [await _starting(manager, backends, name) for name in ("a", "b", "c", "d")]
        for task in tasks:
            await _cancel(task)


def test_the_default_limit_is_sixteen() -> None:
    assert Config().browser.max_sessions == 16
    assert Config().browser.max_daemons == 16
