"""Launching the user's browser for attach --launch: their Chrome first, tabwarden's own
profile folder (never theirs), remote debugging on, and nothing left when it fails."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tabwarden.backends.user_browser import (
    USER_BROWSER_NAMES,
    LaunchedBrowser,
    UserBrowserOptions,
    attach_profile_dir,
    find_user_browser,
    launch_user_browser,
    user_browser_command,
)
from tabwarden.budget import Budget
from tabwarden.errors import BrowserLaunchError, BrowserNotFound, ConfigError, DeadlineExceeded
from tests.conftest import browser_processes
from tests.debug_browser import CHROMIUM, chromium_test_flags, kill_browser


def executable(folder: Path, name: str, body: str = "exit 0") -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def launched() -> Iterator[list[LaunchedBrowser]]:
    """Browsers a test launched: killed at its end."""
    browsers: list[LaunchedBrowser] = []
    yield browsers
    for browser in browsers:
        kill_browser(browser.pid, browser.profile_dir)


def test_the_command_line_uses_tabwarden_s_profile_and_remote_debugging(tmp_path: Path) -> None:
    own = attach_profile_dir(tmp_path)
    assert own == tmp_path / "attach-profile"
    command = user_browser_command("/opt/chrome", UserBrowserOptions(own))
    assert command[0] == "/opt/chrome" and command[-1] == "about:blank"
    assert [a for a in command if "user-data-dir" in a] == [f"--user-data-dir={own}"]
    assert "--remote-debugging-port=0" in command
    assert not any(a.startswith("--headless") for a in command), "headed by default"
    assert "--no-sandbox" not in command
    quiet = user_browser_command(
        "/opt/chrome", UserBrowserOptions(own, headless=True, port=9333), as_root=True
    )
    assert {"--headless=new", "--no-sandbox", "--remote-debugging-port=9333"} <= set(quiet)


def test_the_user_s_chrome_is_looked_for_first(tmp_path: Path) -> None:
    assert USER_BROWSER_NAMES[:2] == ("google-chrome", "google-chrome-stable")
    for name in ("chromium", "microsoft-edge", "google-chrome-stable"):
        executable(tmp_path, name)
    assert find_user_browser(path=str(tmp_path)) == str(tmp_path / "google-chrome-stable")
    assert find_user_browser("chromium", path=str(tmp_path)) == str(tmp_path / "chromium")
    with pytest.raises(BrowserNotFound) as caught:
        find_user_browser(path=str(tmp_path / "empty"))
    assert "browser.attach.executable" in caught.value.hint
    with pytest.raises(BrowserNotFound):
        find_user_browser(str(tmp_path / "absent"), path=str(tmp_path))


async def test_profile_switches_in_the_args_are_refused(tmp_path: Path) -> None:
    home = Path.home() / ".config/google-chrome"
    options = UserBrowserOptions(tmp_path / "own", args=(f"--user-data-dir={home}",))
    with pytest.raises(ConfigError) as caught:
        await launch_user_browser(options, Budget(5))
    assert "its own folder" in caught.value.message


async def test_a_window_needs_a_display(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    options = UserBrowserOptions(tmp_path / "own", executable=str(executable(tmp_path, "b")))
    with pytest.raises(BrowserLaunchError) as caught:
        await launch_user_browser(options, Budget(5))
    assert "browser.attach.headless" in caught.value.hint


async def test_a_browser_that_exits_at_once_fails_the_launch(tmp_path: Path) -> None:
    quits = executable(tmp_path, "quits", "echo 'no such profile' >&2; exit 21")
    options = UserBrowserOptions(tmp_path / "own", executable=str(quits), headless=True)
    with pytest.raises(BrowserLaunchError) as caught:
        await launch_user_browser(options, Budget(10))
    assert "exited with code 21" in caught.value.message
    assert "no such profile" in caught.value.message


async def test_a_launch_that_runs_out_of_time_leaves_nothing_running(tmp_path: Path) -> None:
    own = tmp_path / "own"
    hangs = executable(
        tmp_path, "hangs", f"exec {sys.executable} -c 'import time; time.sleep(300)' \"$@\""
    )
    options = UserBrowserOptions(own, executable=str(hangs), headless=True)
    with pytest.raises(DeadlineExceeded):
        await launch_user_browser(options, Budget(1))
    assert browser_processes(f"--user-data-dir={own}") == []


@pytest.mark.browser
async def test_chromium_is_launched_on_the_attach_profile(
    tmp_path: Path, launched: list[LaunchedBrowser]
) -> None:
    own = attach_profile_dir(tmp_path)
    options = UserBrowserOptions(
        own, executable=CHROMIUM, headless=True, args=chromium_test_flags()
    )
    browser = await launch_user_browser(options, Budget(30))
    launched.append(browser)
    assert browser.port > 0 and browser.cdp_url == f"http://127.0.0.1:{browser.port}"
    main = [
        p
        for p in browser_processes(f"--user-data-dir={own}")
        if not any(a.startswith("--type=") for a in p.cmdline())
    ]
    assert [p.pid for p in main] == [browser.pid]
    args = main[0].cmdline()
    assert [a for a in args if "user-data-dir" in a] == [f"--user-data-dir={own}"]
    assert "--remote-debugging-port=0" in args
    assert os.getpgid(browser.pid) == browser.pid, "its own process group, not ours"
    await browser.kill()
    assert browser.process.poll() is not None
    assert browser_processes(f"--user-data-dir={own}") == []
