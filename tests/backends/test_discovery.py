"""Finding browsers that run with remote debugging: by port, by DevToolsActivePort file,
quickly, and never stuck on a port that does not answer."""

from __future__ import annotations

import json
import socket
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabwarden.backends.discovery import (
    DEFAULT_PORTS,
    FoundBrowser,
    discover_browsers,
    known_profile_dirs,
    read_active_port,
)
from tests.debug_browser import DebugBrowser, debug_browser


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DebugBrowser]:
    with debug_browser(tmp_path_factory.mktemp("debug") / "profile") as browser:
        yield browser


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield int(listener.getsockname()[1])


def version(browser: DebugBrowser) -> dict[str, str]:
    with urllib.request.urlopen(f"{browser.cdp_url}/json/version", timeout=10) as reply:
        info: dict[str, str] = json.load(reply)
    return info


@pytest.mark.browser
async def test_a_browser_on_a_configured_port_is_found(running: DebugBrowser) -> None:
    (found,) = await discover_browsers([running.port])
    info = version(running)
    assert found.product == info["Browser"] and "Chrome/" in found.product
    assert found.ws_url == info["webSocketDebuggerUrl"]
    assert found.port == running.port and found.cdp_url == running.cdp_url
    assert found.where == (f"port {running.port}",)
    assert found.describe() == f"{info['Browser']} on port {running.port} (port {running.port})"


@pytest.mark.browser
async def test_a_devtools_active_port_file_in_a_folder_names_it(
    running: DebugBrowser, tmp_path: Path, closed_port: int
) -> None:
    folder = tmp_path / "Chrome profile"
    folder.mkdir()
    (folder / "DevToolsActivePort").write_text((running.profile / "DevToolsActivePort").read_text())
    (found,) = await discover_browsers([closed_port], [folder, tmp_path / "absent"])
    assert found.port == running.port and found.ws_url == version(running)["webSocketDebuggerUrl"]
    assert found.where == (f"DevToolsActivePort in {folder}",)
    assert found.profile_dirs == (folder,)
    # Found both ways, it is one browser.
    (both,) = await discover_browsers([running.port], [folder])
    assert both.where == (f"port {running.port}", f"DevToolsActivePort in {folder}")


@pytest.mark.browser
async def test_a_file_of_an_earlier_browser_on_the_same_port_is_not_it(
    running: DebugBrowser, tmp_path: Path
) -> None:
    (tmp_path / "DevToolsActivePort").write_text(
        f"{running.port}\n/devtools/browser/an-earlier-one\n"
    )
    assert await discover_browsers([], [tmp_path]) == []


async def test_a_stale_file_or_a_closed_port_finds_nothing(
    tmp_path: Path, closed_port: int
) -> None:
    (tmp_path / "DevToolsActivePort").write_text(f"{closed_port}\n/devtools/browser/gone\n")
    assert read_active_port(tmp_path) == (closed_port, "/devtools/browser/gone")
    assert await discover_browsers([closed_port], [tmp_path]) == []
    (tmp_path / "DevToolsActivePort").write_text("not a port\n")
    assert read_active_port(tmp_path) is None
    assert await discover_browsers([], []) == []


async def test_a_port_that_accepts_but_never_answers_does_not_hang(
    silent_port: int, closed_port: int
) -> None:
    started = time.monotonic()
    found = await discover_browsers([silent_port, closed_port, silent_port], timeout_s=0.5)
    took = time.monotonic() - started
    assert found == []
    assert took < 3.0, f"discovery took {took:.1f} s for a budget of 0.5 s"


@pytest.mark.browser
async def test_a_silent_port_does_not_hide_a_browser(
    running: DebugBrowser, silent_port: int
) -> None:
    started = time.monotonic()
    found = await discover_browsers([silent_port, running.port], timeout_s=1.0)
    assert [b.port for b in found] == [running.port]
    assert time.monotonic() - started < 5.0


def test_the_usual_profile_folders_of_each_system(tmp_path: Path) -> None:
    linux = known_profile_dirs("linux", home=tmp_path, env={})
    assert tmp_path / ".config/google-chrome" in linux
    assert tmp_path / ".config/chromium" in linux
    assert tmp_path / ".config/microsoft-edge" in linux
    assert tmp_path / ".config/google-chrome-beta" in linux
    xdg = known_profile_dirs("linux", home=tmp_path, env={"XDG_CONFIG_HOME": "/x"})
    assert Path("/x/google-chrome-unstable") in xdg
    mac = known_profile_dirs("darwin", home=tmp_path, env={})
    support = tmp_path / "Library/Application Support"
    assert support / "Google/Chrome" in mac and support / "Google/Chrome Canary" in mac
    assert support / "Microsoft Edge" in mac and support / "Chromium" in mac
    windows = known_profile_dirs("win32", home=tmp_path, env={"LOCALAPPDATA": "C:/L"})
    assert Path("C:/L/Google/Chrome/User Data") in windows
    assert Path("C:/L/Google/Chrome SxS/User Data") in windows
    assert Path("C:/L/Microsoft/Edge/User Data") in windows
    assert DEFAULT_PORTS[0] == 9222 and set(DEFAULT_PORTS) == {9222, 9223, 9224, 9229}


def test_a_found_browser_describes_itself() -> None:
    found = FoundBrowser("Chrome/137", "ws://127.0.0.1:9333/devtools/browser/x", 9333, ("a", "b"))
    assert found.cdp_url == "http://127.0.0.1:9333"
    assert found.describe() == "Chrome/137 on port 9333 (a; b)"
