"""browser_attach and tabwarden.attach() with no URL: the browser running here, with the
user's consent as for a URL; or, when asked, one launched for the user."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

import tabwarden
from tabwarden.backends.external import AttachRequest
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import ConsentRequired, EndpointError
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tests.conftest import browser_processes
from tests.debug_browser import CHROMIUM, DebugBrowser, chromium_test_flags, debug_browser
from tests.local_server import LocalServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def user_chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DebugBrowser]:
    """The user's browser, started with remote debugging."""
    with debug_browser(tmp_path_factory.mktemp("user") / "profile") as browser:
        yield browser


def configured(tmp_path: Path, ports: list[int], folders: list[Path] | None = None) -> Config:
    attach = {
        "ports": ports,
        "profile_dirs": folders or [],
        "executable": CHROMIUM,
        "headless": True,
        "args": chromium_test_flags(),
        "profile_dir": tmp_path / "attach-profile",
    }
    return Config.model_validate({"browser": {"isolated": True, "attach": attach}})


@pytest.fixture
def launched(tmp_path: Path) -> Iterator[Path]:
    """The attach profile of a test that launches: its browser is killed at the end."""
    profile = tmp_path / "attach-profile"
    yield profile
    procs = browser_processes(f"--user-data-dir={profile}")
    for proc in procs:
        # Killing the browser ends its helpers too: one listed may be gone already.
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    psutil.wait_procs(procs, timeout=10)


async def test_the_tool_attaches_to_the_browser_found_with_consent(
    user_chrome: DebugBrowser, server: LocalServer, tmp_path: Path
) -> None:
    async with tabwarden.SessionManager(configured(tmp_path, [user_chrome.port])) as manager:
        ctx = ToolContext(manager, "agent")
        with pytest.raises(ConsentRequired) as caught:
            await call_tool(ctx, "browser_attach", {})
        assert "needs the user's consent" in caught.value.message
        assert f"at {user_chrome.cdp_url} (on this machine)" in caught.value.message
        assert f"profile: {user_chrome.profile}" in caught.value.message
        assert manager.names() == [], "nothing was attached"

        result = await call_tool(ctx, "browser_attach", {"consent": True})
        assert result.text.startswith("attached to Chrome/")
        assert "found Chrome/" in result.text and f"port {user_chrome.port}" in result.text
        assert result.data["cdp_url"] == user_chrome.cdp_url and "launched" not in result.data
        navigated = await call_tool(ctx, "browser_navigate", {"url": server.url("/index.html")})
        assert "Test home" in navigated.text
        await ctx.close()
    assert user_chrome.process.poll() is None, "the user's browser keeps running"


async def test_a_person_at_the_workbench_is_asked_as_for_a_url(
    user_chrome: DebugBrowser, tmp_path: Path
) -> None:
    asked: list[AttachRequest] = []

    async def person(request: AttachRequest, budget: Budget) -> bool | None:
        asked.append(request)
        return len(asked) > 1  # refuses first, then allows

    async with tabwarden.SessionManager(configured(tmp_path, [user_chrome.port])) as manager:
        manager.ask_person = person
        ctx = ToolContext(manager, "agent")
        with pytest.raises(ConsentRequired) as caught:
            await call_tool(ctx, "browser_attach", {})
        assert "person at the workbench refused" in caught.value.message
        result = await call_tool(ctx, "browser_attach", {})
        assert result.data["cdp_url"] == user_chrome.cdp_url
        assert [r.cdp_url for r in asked] == [user_chrome.cdp_url] * 2
        await ctx.close()


async def test_several_or_none_found_are_errors_that_say_what_next(
    user_chrome: DebugBrowser, tmp_path: Path, closed_port: int
) -> None:
    with debug_browser(tmp_path / "second") as second:
        config = configured(tmp_path, [user_chrome.port, closed_port], [second.profile])
        async with tabwarden.SessionManager(config) as manager:
            ctx = ToolContext(manager, "agent")
            with pytest.raises(EndpointError) as caught:
                await call_tool(ctx, "browser_attach", {"consent": True})
            message = caught.value.message
            assert "2 browsers with remote debugging" in message
            assert f"port {user_chrome.port}" in message and f"port {second.port}" in message
            assert f'"cdp_url": "{user_chrome.cdp_url}"' in caught.value.hint
            assert f'"port": {user_chrome.port}' in caught.value.hint
            picked = await call_tool(ctx, "browser_attach", {"port": second.port, "consent": True})
            assert picked.data["cdp_url"] == second.cdp_url
            await ctx.close()
    async with tabwarden.SessionManager(configured(tmp_path, [closed_port])) as manager:
        ctx = ToolContext(manager, "agent")
        with pytest.raises(EndpointError) as caught:
            await call_tool(ctx, "browser_attach", {"consent": True})
        assert "no browser with remote debugging found" in caught.value.message
        assert "--remote-debugging-port=9222" in caught.value.hint
        assert '"launch": true' in caught.value.hint


async def test_the_tool_launches_the_user_s_browser_when_asked(
    tmp_path: Path, server: LocalServer, closed_port: int, launched: Path
) -> None:
    config = configured(tmp_path, [closed_port])
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "agent")
        result = await call_tool(ctx, "browser_attach", {"launch": True})  # asked: consent
        assert result.data["launched"] is True
        assert result.data["profile"] == str(launched)
        assert "stays open" in result.text
        pid = result.data["pid"]
        args = psutil.Process(pid).cmdline()
        assert [a for a in args if "user-data-dir" in a] == [f"--user-data-dir={launched}"]
        assert any(a.startswith("--remote-debugging-port=") for a in args)
        navigated = await call_tool(ctx, "browser_navigate", {"url": server.url("/index.html")})
        assert "Test home" in navigated.text
        await ctx.close()
    assert psutil.Process(pid).is_running(), "the launched browser stays open"
    # Asked again, the browser on tabwarden's profile is attached to, not launched again.
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "agent")
        again = await call_tool(ctx, "browser_attach", {"launch": True})
        assert "launched" not in again.data and again.data["cdp_url"] == result.data["cdp_url"]
        await ctx.close()


async def test_the_api_attaches_without_a_url(
    user_chrome: DebugBrowser, server: LocalServer, tmp_path: Path
) -> None:
    config = configured(tmp_path, [user_chrome.port])
    with pytest.raises(ConsentRequired):
        await tabwarden.attach(config=config)
    async with tabwarden.attach(config=config, consent=True) as browser:
        tab = await browser.new_tab(server.url("/index.html"))
        assert tab.title == "Test home"
        await tab.close()
    assert user_chrome.process.poll() is None


async def test_the_api_launches_when_asked(
    tmp_path: Path, closed_port: int, server: LocalServer, launched: Path
) -> None:
    start = tabwarden.attach(config=configured(tmp_path, [closed_port]), launch=True)
    async with start as browser:
        tab = await browser.new_tab(server.url("/index.html"))
        assert tab.title == "Test home"
    main = [
        p
        for p in browser_processes(f"--user-data-dir={launched}")
        if not any(a.startswith("--type=") for a in p.cmdline())
    ]
    assert len(main) == 1, "it stays open after the session closed"


async def test_a_launch_whose_attach_fails_leaves_nothing(
    tmp_path: Path, closed_port: int, launched: Path
) -> None:
    config = configured(tmp_path, [closed_port])
    with pytest.raises(tabwarden.TabwardenError):  # out of time while launching
        await tabwarden.attach(config=config, launch=True, timeout_ms=1)
    assert browser_processes(f"--user-data-dir={launched}") == []
    # Launched, then the session's start fails: a storage state that cannot be read.
    config.browser.storage_state = tmp_path / "absent-state.json"
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "agent")
        with pytest.raises(tabwarden.TabwardenError) as caught:
            await call_tool(ctx, "browser_attach", {"launch": True})
        assert "absent-state.json" in str(caught.value)
    assert browser_processes(f"--user-data-dir={launched}") == []
    with pytest.raises(tabwarden.TabwardenError):
        await tabwarden.attach(config=config, launch=True)
    assert browser_processes(f"--user-data-dir={launched}") == []
