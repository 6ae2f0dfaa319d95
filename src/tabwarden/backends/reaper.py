"""No orphans: every browser process, temporary folder and cloud browser tabwarden creates
is undone.

Undone on close, at interpreter exit (atexit), on SIGTERM/SIGHUP (cloud browsers are
released there by exit actions: blocking calls with a short timeout), and, when the
Python process is killed outright, by the kernel (``PR_SET_PDEATHSIG`` on the
browser) plus a sweep of stale run folders at the next launch. What is not a local
process (a remote browser session) is undone by an exit hook (``add_exit_hook``),
run on the same exit paths.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

__all__ = [
    "RUN_DIR_PREFIX",
    "TrackedBrowser",
    "group_alive",
    "kill_process_group",
    "make_run_dir",
    "pid_alive",
    "reaper",
    "remove_singleton_dir",
    "remove_tree",
    "singleton_dir",
    "sweep_stale_run_dirs",
]

logger = logging.getLogger("tabwarden.backends")

RUN_DIR_PREFIX = "tabwarden-run-"
_OWNER_FILE = "owner.json"


@dataclass(eq=False)
class TrackedBrowser:
    """A launched browser process group and the folders to remove once it is dead."""

    pid: int
    folders: list[Path] = field(default_factory=list)


class Reaper:
    """Process-wide registry of what must be undone at exit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tracked: list[TrackedBrowser] = []
        self._exit_actions: list[Callable[[], None]] = []
        self._atexit_installed = False
        self._signals_installed = False

    def track(self, browser: TrackedBrowser) -> None:
        with self._lock:
            self._tracked.append(browser)
            self._install_atexit()
        self.install_signal_handlers()

    def add_exit_action(self, action: Callable[[], None]) -> None:
        """Run ``action`` at exit unless removed first (a cloud browser's release). It must
        be quick and bounded; what it raises is logged."""
        with self._lock:
            self._exit_actions.append(action)
            self._install_atexit()
        self.install_signal_handlers()

    def remove_exit_action(self, action: Callable[[], None]) -> None:
        with self._lock:
            if action in self._exit_actions:
                self._exit_actions.remove(action)

    def _install_atexit(self) -> None:
        if not self._atexit_installed:
            atexit.register(self.reap_all)
            self._atexit_installed = True

    def untrack(self, browser: TrackedBrowser) -> None:
        with self._lock:
            if browser in self._tracked:
                self._tracked.remove(browser)

    def tracked(self) -> list[TrackedBrowser]:
        with self._lock:
            return list(self._tracked)

    def reap_all(self) -> None:
        """Kill every tracked browser and remove its folders (synchronous, for exit paths)."""
        with self._lock:
            tracked, self._tracked = self._tracked, []
            actions, self._exit_actions = self._exit_actions, []
        for action in actions:
            try:
                action()
            except Exception:
                logger.warning("an exit action failed", exc_info=True)
        for browser in tracked:
            kill_process_group(browser.pid)
            for folder in browser.folders:
                remove_tree(folder)

    def install_signal_handlers(self) -> None:
        """Clean up on SIGTERM/SIGHUP, then die of the signal as before.

        Only where the handler is still the default (never replaces an
        application's own) and only from the main thread (Python's rule).
        """
        if self._signals_installed or threading.current_thread() is not threading.main_thread():
            return
        self._signals_installed = True
        for signum in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(signum) is signal.SIG_DFL:
                signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.reap_all()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


reaper = Reaper()


def kill_process_group(pid: int) -> None:
    """SIGKILL a browser's whole process group (it was started as a group leader)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs. A killed browser's helpers (zygote,
    renderers) die a moment after its main process; zombies aside (they hold nothing)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc")
    if not proc.is_dir():
        return True  # no way to tell a zombie here: the group is taken as alive
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (command) state ppid pgrp …": the command may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[0] != "Z" and fields[2] == str(pgid):
            return True
    return False


def singleton_dir(profile: Path) -> Path | None:
    """Chromium keeps its one-instance socket in a folder of its own in the temporary
    directory, linked from the profile (``SingletonSocket``), and removes it only at the
    very end of a clean exit: a browser killed during its shutdown leaves it. The
    folder a live browser's profile links to, or None."""
    try:
        folder = Path(os.readlink(profile / "SingletonSocket")).parent
    except OSError:
        return None
    # Only Chromium's own folder, directly in the temporary directory.
    temp = Path(tempfile.gettempdir()).resolve()
    if folder.name.startswith("org.chromium.") and folder.parent.resolve() == temp:
        return folder
    return None


def remove_singleton_dir(run_dir: Path) -> None:
    """Remove the socket folder of the throwaway profile in ``run_dir`` (its browser is
    dead)."""
    folder = singleton_dir(run_dir / "profile")
    if folder is not None:
        remove_tree(folder)


def remove_tree(path: Path, *, attempts: int = 3) -> bool:
    """Remove a folder; a browser child may still write for a moment, so retry."""
    for _ in range(attempts):
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            return True
    logger.warning("could not remove %s", path)
    return False


def make_run_dir() -> Path:
    """A fresh temporary folder for one launch, stamped with its owner's pid."""
    path = Path(tempfile.mkdtemp(prefix=f"{RUN_DIR_PREFIX}{os.getpid()}-"))
    (path / _OWNER_FILE).write_text(json.dumps({"pid": os.getpid()}))
    return path


def sweep_stale_run_dirs(
    root: Path | None = None, *, is_alive: Callable[[int], bool] | None = None
) -> list[Path]:
    """Remove run folders whose owning process is gone (it was killed before cleanup)."""
    root = root or Path(tempfile.gettempdir())
    alive = is_alive or pid_alive
    removed: list[Path] = []
    for path in root.glob(f"{RUN_DIR_PREFIX}*"):
        owner = _owner_pid(path)
        if owner is None or owner == os.getpid() or alive(owner):
            continue
        remove_singleton_dir(path)
        if remove_tree(path):
            removed.append(path)
    return removed


def _owner_pid(path: Path) -> int | None:
    try:
        data = json.loads((path / _OWNER_FILE).read_text())
        pid = data.get("pid")
        return pid if isinstance(pid, int) else None
    except (OSError, ValueError, AttributeError):
        return None


def pid_alive(pid: int) -> bool:
    """True while a process with this pid exists (a zombie counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
