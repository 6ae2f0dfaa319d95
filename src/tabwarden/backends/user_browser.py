"""Launching the user's own browser for them to attach to: ``attach --launch``.

Unlike the local backend's Chromium, this browser is the user's: their installed Chrome
(or Edge, or Chromium), headed unless asked otherwise, with remote debugging on, and left
running when the session closes. It never runs on the user's everyday profile: its
profile is a folder of tabwarden's own (``<data dir>/attach-profile``), kept between
launches so what the user signs into there stays. Chrome 136 and later ignore
``--remote-debugging-port`` on the default profile anyway.

A launch that fails on the way (the browser exits, never opens its port, or the attach
that follows fails) leaves nothing running: :meth:`LaunchedBrowser.kill`.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..budget import Budget
from ..errors import BrowserLaunchError, ConfigError, DeadlineExceeded
from .discovery import read_active_port
from .executable import find_browser
from .local import has_display, profile_switches, until_group_gone
from .profiles import claim_profile, data_root
from .reaper import kill_process_group, remove_tree, singleton_dir

__all__ = [
    "USER_BROWSER_NAMES",
    "LaunchedBrowser",
    "UserBrowserOptions",
    "attach_profile_dir",
    "find_user_browser",
    "launch_user_browser",
    "user_browser_command",
]

USER_BROWSER_NAMES = (
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "microsoft-edge",
    "msedge",
    "chromium",
    "chromium-browser",
)
"""Looked for on PATH, in this order: the user's Chrome first."""

_INSTALLED = {
    "darwin": (
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
        "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
        "/Applications/Chromium.app/Contents/MacOS/Chromium",
    ),
    "win32": (
        "{ProgramFiles}/Google/Chrome/Application/chrome.exe",
        "{ProgramFiles(x86)}/Google/Chrome/Application/chrome.exe",
        "{LOCALAPPDATA}/Google/Chrome/Application/chrome.exe",
        "{ProgramFiles(x86)}/Microsoft/Edge/Application/msedge.exe",
        "{ProgramFiles}/Microsoft/Edge/Application/msedge.exe",
    ),
}
"""Where installers put a browser that is not on PATH."""

_POLL_S = 0.02
_EXIT_WAIT_S = 5.0
_LOG_TAIL_BYTES = 2000
# A fresh profile starts quietly; nothing else is changed in the user's browser.
_FIRST_RUN_FLAGS = ("--no-first-run", "--no-default-browser-check")


@dataclass(frozen=True)
class UserBrowserOptions:
    """What ``attach --launch`` starts (``browser.attach``)."""

    profile_dir: Path
    executable: str | None = None
    headless: bool = False
    port: int = 0
    """The DevTools port; 0: a free one the browser picks (it writes it down)."""
    args: Sequence[str] = field(default_factory=tuple)


@dataclass
class LaunchedBrowser:
    """A browser tabwarden launched for the user; it outlives the session."""

    process: subprocess.Popen[bytes]
    command: list[str]
    profile_dir: Path
    port: int

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def cdp_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def kill(self) -> None:
        """End it and everything it started (the launch failed on the way)."""
        await _kill(self.process, self.profile_dir)


def attach_profile_dir(data_dir: Path | None = None) -> Path:
    """The profile folder of the browser ``attach --launch`` starts."""
    return data_root(data_dir) / "attach-profile"


def find_user_browser(configured: str | None = None, *, path: str | None = None) -> str:
    """The user's browser: ``configured`` (``browser.attach.executable``), else the first
    of :data:`USER_BROWSER_NAMES` on PATH, else where its installer put it."""
    env = dict(os.environ)
    platform = "win32" if sys.platform.startswith("win") else sys.platform
    places = [Path(p.format_map(_Missing(env))) for p in _INSTALLED.get(platform, ())]
    return find_browser(
        configured,
        path=path,
        names=USER_BROWSER_NAMES,
        setting="browser.attach.executable",
        env_var=None,
        places=[p for p in places if "{" not in str(p)],
    )


def user_browser_command(
    executable: str, options: UserBrowserOptions, *, as_root: bool = False
) -> list[str]:
    """The command line: remote debugging on, tabwarden's profile folder, nothing else
    changed unless the configuration asks (headless, ``browser.attach.args``)."""
    command = [
        executable,
        f"--remote-debugging-port={options.port}",
        f"--user-data-dir={options.profile_dir}",
        *_FIRST_RUN_FLAGS,
    ]
    if options.headless:
        command.append("--headless=new")
    if as_root:
        command.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    command += [*options.args, "about:blank"]
    return command


async def launch_user_browser(options: UserBrowserOptions, budget: Budget) -> LaunchedBrowser:
    """Start the user's browser on tabwarden's attach profile and wait for its DevTools
    port. Whatever goes wrong on the way, nothing is left running."""
    switches = profile_switches(options.args)
    if switches:
        raise ConfigError(
            f"browser.attach.args choose a profile ({', '.join(switches)}); the browser "
            f"tabwarden launches always uses its own folder, {options.profile_dir}",
            hint="remove the switch; to drive a browser on another profile, start it "
            "yourself with --remote-debugging-port and attach to it",
        )
    executable = find_user_browser(options.executable)
    if not options.headless and not has_display():
        raise BrowserLaunchError(
            "a browser window needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set",
            hint="run where a display is, or set browser.attach.headless: true",
        )
    profile = options.profile_dir
    claim_profile(profile)  # ProfileInUse: the window of an earlier launch still runs
    with contextlib.suppress(FileNotFoundError):
        (profile / "DevToolsActivePort").unlink()  # an earlier run's port
    command = user_browser_command(executable, options, as_root=_is_root())
    log_path = profile.parent / "attach-browser.log"
    process = _spawn(command, log_path)
    try:
        port = await _wait_for_port(process, profile, log_path, budget)
    except BaseException:
        await _kill(process, profile)
        raise
    return LaunchedBrowser(process, command, profile, port)


def _spawn(command: list[str], log_path: Path) -> subprocess.Popen[bytes]:
    with open(log_path, "wb") as log:
        try:
            return subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                # Its own session: a Ctrl-C in the terminal, or the daemon's exit, leaves it.
                start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            raise BrowserLaunchError(f"cannot start {command[0]}: {exc.strerror}") from exc


async def _wait_for_port(
    process: subprocess.Popen[bytes], profile: Path, log_path: Path, budget: Budget
) -> int:
    while True:
        code = process.poll()
        if code is not None:
            raise BrowserLaunchError(
                f"the browser exited with code {code} before it opened its DevTools "
                f"port{_tail(log_path)}",
                hint="a browser already running on this profile takes the launch over and "
                "exits: close it and retry, or check the output",
            )
        found = read_active_port(profile)
        if found is not None:
            return found[0]
        if budget.expired:
            raise DeadlineExceeded(
                f"the browser did not open its DevTools port within "
                f"{budget.timeout_s * 1000:.0f} ms{_tail(log_path)}",
                hint="retry with a larger timeout_ms (timeouts.launch_ms)",
            )
        await budget.sleep(_POLL_S)


async def _kill(process: subprocess.Popen[bytes], profile: Path) -> None:
    socket_dir = singleton_dir(profile)
    kill_process_group(process.pid)
    wait = Budget(_EXIT_WAIT_S)
    while process.poll() is None and not wait.expired:
        await wait.sleep(_POLL_S)
    await until_group_gone(process.pid, wait.remaining())
    if socket_dir is not None:
        remove_tree(socket_dir)  # a killed Chromium leaves its one-instance socket folder
    with contextlib.suppress(FileNotFoundError):
        (profile / "DevToolsActivePort").unlink()


def _tail(log_path: Path) -> str:
    try:
        with open(log_path, "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - _LOG_TAIL_BYTES))
            text = log.read().decode(errors="replace").strip()
    except OSError:
        return ""
    return f"; its output ends with:\n{text}" if text else " (it printed nothing)"


class _Missing(dict[str, str]):
    """Formats a path with environment variables, leaving unknown ones as ``{NAME}``."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
