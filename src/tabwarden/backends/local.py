"""The local backend: launch Chromium on this machine and own its whole life."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..budget import Budget
from ..errors import BrowserLaunchError, ConfigError, ConsentRequired, DeadlineExceeded
from .base import Endpoint
from .executable import find_browser
from .profiles import claim_profile, workspace_profile_dir
from .reaper import (
    TrackedBrowser,
    group_alive,
    kill_process_group,
    make_run_dir,
    reaper,
    remove_tree,
    singleton_dir,
    sweep_stale_run_dirs,
)

__all__ = [
    "LocalChromium",
    "LocalOptions",
    "chromium_args",
    "has_display",
    "profile_switches",
    "until_group_gone",
]

_POLL_S = 0.01
_GRACEFUL_EXIT_S = 5.0
_LOG_TAIL_BYTES = 2000

# The machine may have no internet: these keep Chromium from calling home, and
# the rest make a fresh profile start quietly and predictably.
_QUIET_FLAGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    # DeferRendererTasksAfterInput holds the page's timers back until the next frame
    # after input: every action's receipt waits for the timers its input queued, so it
    # would wait for a frame too (up to 16 ms).
    "--disable-features=Translate,MediaRouter,OptimizationHints,AcceptCHFrame,"
    "DeferRendererTasksAfterInput",
    "--disable-back-forward-cache",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--metrics-recording-only",
    "--no-service-autorun",
    "--password-store=basic",
    "--use-mock-keychain",
    # Cross-origin iframes get their own target (OOPIF) on every platform.
    "--site-per-process",
)


@dataclass
class LocalOptions:
    executable: str | None = None
    headless: bool = True
    isolated: bool = False
    workspace: Path | None = None
    data_dir: Path | None = None
    session_name: str = "default"
    extra_args: Sequence[str] = field(default_factory=tuple)
    window_size: tuple[int, int] = (1280, 720)
    """The viewport pages get (CSS px), whatever their window's size (the backend's
    ``viewport``); the window is launched as large, and the browser draws its own parts
    (headless ones too) inside it."""
    proxy_server: str | None = None
    """Chromium's ``--proxy-server`` (``browser.proxy_server``)."""
    proxy_bypass: Sequence[str] = field(default_factory=tuple)
    """Hosts reached without the proxy: ``--proxy-bypass-list`` (``browser.proxy_bypass``)."""
    user_agent: str | None = None
    """The browser's own User-Agent: ``--user-agent`` (``browser.user_agent``)."""
    allow_foreign_profile: bool = False
    """The user consented to a profile of their choosing in ``extra_args``
    (``--user-data-dir``, ``--profile-directory``): ``safety.allow_attach``."""


_PROFILE_SWITCH = re.compile(r"^--?(user-data-dir|profile-directory)(=|$)", re.IGNORECASE)


def profile_switches(args: Sequence[str]) -> list[str]:
    """The switches in ``args`` that pick a profile other than tabwarden's own."""
    return [arg for arg in args if _PROFILE_SWITCH.match(arg)]


def _user_data_dir(args: Sequence[str]) -> Path | None:
    """The folder a ``--user-data-dir=`` switch names (the last one, as in Chromium)."""
    chosen = None
    for arg in profile_switches(args):
        name, _, value = arg.partition("=")
        if name.lstrip("-").lower() == "user-data-dir" and value:
            chosen = Path(value).expanduser()
    return chosen


def chromium_args(options: LocalOptions, profile: Path, *, as_root: bool) -> list[str]:
    """The command-line switches tabwarden launches Chromium with."""
    width, height = options.window_size
    args = [
        "--remote-debugging-port=0",  # the browser picks a free port: no races
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
        *_QUIET_FLAGS,
    ]
    if options.headless:
        args += ["--headless", "--disable-gpu", "--hide-scrollbars", "--mute-audio"]
    if as_root:
        args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    if options.proxy_server:
        args.append(f"--proxy-server={options.proxy_server}")
        if options.proxy_bypass:
            args.append(f"--proxy-bypass-list={';'.join(options.proxy_bypass)}")
    if options.user_agent:
        args.append(f"--user-agent={options.user_agent}")
    # The profile folder is ``profile`` (a consented --user-data-dir was resolved into it).
    args += [arg for arg in options.extra_args if not _is_user_data_dir(arg)]
    args.append("about:blank")
    return args


def _is_user_data_dir(arg: str) -> bool:
    match = _PROFILE_SWITCH.match(arg)
    return match is not None and match.group(1).lower() == "user-data-dir"


class LocalChromium:
    """Launches Chromium with a workspace or throwaway profile; ``close()`` leaves nothing."""

    name = "local"
    engine = "chromium"
    owns_browser = True
    browser_context_id: str | None = None
    """The browser is the session's whole: its default context."""
    needs_dialog_bridge = False

    def __init__(self, options: LocalOptions | None = None) -> None:
        self.options = options or LocalOptions()
        self.viewport: tuple[int, int] | None = self.options.window_size
        self._process: subprocess.Popen[bytes] | None = None
        self._tracked: TrackedBrowser | None = None
        self._run_dir: Path | None = None
        self._socket_dir: Path | None = None
        """Chromium's one-instance socket folder in the temporary directory."""
        self.profile_dir: Path | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def exit_status(self) -> str | None:
        if self._process is None:
            return None
        code = self._process.poll()
        if code is None:
            return None
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"was killed by {signal.Signals(-code).name}"
        return f"exited with code {code}"

    def _require_display(self) -> None:
        """A headed browser needs a display server to open its window on."""
        if not self.options.headless and not has_display():
            raise BrowserLaunchError(
                "a headed browser needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set",
                hint="launch headless, or run under a display server (e.g. xvfb-run)",
            )

    async def start(self, budget: Budget) -> Endpoint:
        if self._process is not None:
            await self.close()
        self._check_profile_switches()
        sweep_stale_run_dirs()
        executable = find_browser(self.options.executable)
        self._require_display()
        run_dir = make_run_dir()
        self._run_dir = run_dir
        try:
            profile = self._prepare_profile(run_dir)
            command = [executable, *chromium_args(self.options, profile, as_root=_is_root())]
            self._spawn(command, run_dir)
            port, path = await self._wait_for_devtools(profile / "DevToolsActivePort", budget)
            # Known while the browser lives: it unlinks it early in its shutdown.
            self._socket_dir = singleton_dir(profile)
            if self._socket_dir is not None and self._tracked is not None:
                self._tracked.folders.append(self._socket_dir)
        except BaseException:
            await self.close()
            raise
        assert self._process is not None
        return Endpoint(ws_url=f"ws://127.0.0.1:{port}{path}", pid=self._process.pid)

    async def reconnect(self, budget: Budget) -> Endpoint:
        """A launched browser is not reconnected: a dropped socket to our own child means
        it is gone, and the session relaunches it."""
        raise BrowserLaunchError("a launched browser is relaunched, not reconnected")

    async def close(self) -> None:
        """End the browser and its process group; remove the run folder (and a throwaway
        profile). A persistent profile gets a graceful shutdown first so it is saved."""
        process, tracked, run_dir = self._process, self._tracked, self._run_dir
        socket_dir = self._socket_dir
        self._process = self._tracked = self._run_dir = self._socket_dir = None
        if process is not None:
            if process.poll() is None and not self.options.isolated:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
                await _wait_exit(process, _GRACEFUL_EXIT_S)
            kill_process_group(process.pid)
            await _wait_exit(process, _GRACEFUL_EXIT_S)
            await until_group_gone(process.pid, _GRACEFUL_EXIT_S)
        if run_dir is not None:
            remove_tree(run_dir)
        if socket_dir is not None:
            remove_tree(socket_dir)
        if tracked is not None:
            reaper.untrack(tracked)

    # ---- private -------------------------------------------------------------------

    def _check_profile_switches(self) -> None:
        """The workspace profile never silently becomes someone's real browser profile."""
        switches = profile_switches(self.options.extra_args)
        if not switches:
            return
        if not self.options.allow_foreign_profile:
            raise ConsentRequired(
                f"browser.extra_args choose another profile than tabwarden's own "
                f"({', '.join(switches)}); it may be the user's own browser profile, with "
                "their cookies and signed-in sessions",
                hint="remove the switch (each workspace has its own profile; "
                "browser.data_dir moves them), or, once the user agrees, set "
                "safety.allow_attach: true (or --allow-attach)",
            )
        if self.options.isolated and _user_data_dir(self.options.extra_args) is not None:
            raise ConfigError(
                "an isolated (throwaway) profile and --user-data-dir in browser.extra_args "
                "contradict each other",
                hint="drop isolated, or drop the --user-data-dir switch",
            )

    def _prepare_profile(self, run_dir: Path) -> Path:
        chosen = _user_data_dir(self.options.extra_args)
        if chosen is not None:  # consented to (_check_profile_switches)
            profile = chosen
            claim_profile(profile)
        elif self.options.isolated:
            profile = run_dir / "profile"
            profile.mkdir()
        else:
            profile = workspace_profile_dir(
                self.options.workspace, self.options.session_name, self.options.data_dir
            )
            claim_profile(profile)
        self.profile_dir = profile
        with contextlib.suppress(FileNotFoundError):
            (profile / "DevToolsActivePort").unlink()  # a previous run's port
        return profile

    def _spawn(self, command: list[str], run_dir: Path) -> None:
        prefix, preexec = _die_with_parent()
        with open(run_dir / "browser.log", "wb") as log:
            try:
                self._process = subprocess.Popen(
                    [*prefix, *command],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,  # one process group to kill, whatever it forks
                    preexec_fn=preexec,
                    close_fds=True,
                )
            except OSError as exc:
                raise BrowserLaunchError(f"cannot start {command[0]}: {exc.strerror}") from exc
        self._tracked = TrackedBrowser(self._process.pid, [run_dir])
        reaper.track(self._tracked)

    async def _wait_for_devtools(self, port_file: Path, budget: Budget) -> tuple[int, str]:
        assert self._process is not None
        while True:
            code = self._process.poll()
            if code is not None:
                raise BrowserLaunchError(
                    f"the browser {self.exit_status()} before it opened its DevTools port"
                    + self._output_note()
                )
            with contextlib.suppress(FileNotFoundError, ValueError):
                lines = port_file.read_text().splitlines()
                if len(lines) >= 2 and lines[0].strip().isdigit():
                    return int(lines[0]), lines[1].strip()
            if budget.expired:
                raise DeadlineExceeded(
                    f"the browser did not open its DevTools port within "
                    f"{budget.timeout_s * 1000:.0f} ms" + self._output_note(),
                    hint="retry with a larger timeouts.launch_ms, or check the browser output",
                )
            await budget.sleep(_POLL_S)

    def _output_note(self) -> str:
        tail = self._log_tail()
        return f"; its output ends with:\n{tail}" if tail else " (it printed nothing)"

    def _log_tail(self) -> str:
        if self._run_dir is None:
            return ""
        try:
            with open(self._run_dir / "browser.log", "rb") as log:
                log.seek(0, os.SEEK_END)
                log.seek(max(0, log.tell() - _LOG_TAIL_BYTES))
                return log.read().decode(errors="replace").strip()
        except OSError:
            return ""


async def until_group_gone(pgid: int, timeout_s: float) -> bool:
    """Until no process of a killed browser's group runs (its helpers die a moment after
    it), within ``timeout_s``: a close returns with nothing of the browser left."""
    budget = Budget(timeout_s)
    while group_alive(pgid):
        if budget.expired:
            return False
        await budget.sleep(_POLL_S)
    return True


async def _wait_exit(process: subprocess.Popen[bytes], timeout_s: float) -> bool:
    budget = Budget(timeout_s)
    while process.poll() is None:
        if budget.expired:
            return False
        await budget.sleep(_POLL_S)
    return True


def _die_with_parent() -> tuple[list[str], Callable[[], None] | None]:
    """Have the kernel SIGKILL the browser if this process dies without cleaning up.

    ``setpriv --pdeathsig`` sets it without Python code in the forked child;
    ``preexec_fn`` is the fallback where setpriv is missing. The signal fires
    when the *thread* that launched the browser ends, so launches happen on the
    event loop's thread, which lives as long as the browser.
    """
    if not sys.platform.startswith("linux"):
        return [], None
    setpriv = shutil.which("setpriv")
    if setpriv:
        return [setpriv, "--pdeathsig", "KILL", "--"], None
    return [], _set_pdeathsig


def _set_pdeathsig() -> None:
    pr_set_pdeathsig = 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def has_display() -> bool:
    """A browser window can be shown (Linux and the BSDs need an X or Wayland display)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
