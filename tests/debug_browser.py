"""A Chromium started as a user starts theirs for attaching: with remote debugging on a
port, on a profile folder of its own; and the flags the tests' browsers run with."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

from tabwarden.backends.local import LocalOptions, chromium_args
from tabwarden.backends.reaper import kill_process_group, remove_tree, singleton_dir

CHROMIUM = "/usr/bin/chromium"
START_S = 30.0


def chromium_test_flags() -> list[str]:
    """The switches the tests' own launches use (quiet, headless, no sandbox), without
    the port and profile each browser gets."""
    args = chromium_args(LocalOptions(headless=True), Path("/unused"), as_root=True)
    skipped = ("--remote-debugging-port", "--user-data-dir", "--headless", "about:blank")
    kept = [a for a in args if not a.startswith(skipped) and a != "--no-sandbox"]
    return ["--headless=new", "--no-sandbox", *kept]


@dataclass
class DebugBrowser:
    process: subprocess.Popen[bytes]
    profile: Path
    port: int

    @property
    def cdp_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.contextmanager
def debug_browser(profile: Path, port: int = 0) -> Iterator[DebugBrowser]:
    """Chromium with ``--remote-debugging-port`` (0: one it picks), killed at the end."""
    profile.mkdir(parents=True, exist_ok=True)
    command = [
        CHROMIUM,
        f"--remote-debugging-port={port}",
        f"--user-data-dir={profile}",
        *chromium_test_flags(),
        "about:blank",
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + START_S
        while (port_found := _active_port(profile)) is None:
            assert process.poll() is None, f"chromium exited with {process.returncode}"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.02)  # polling a file the browser writes, with a deadline
        yield DebugBrowser(process, profile, port_found)
    finally:
        kill_browser(process.pid, profile)


def _active_port(profile: Path) -> int | None:
    """The port the browser wrote into its profile, once it listens."""
    try:
        first = (profile / "DevToolsActivePort").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    return int(first) if first.strip().isdigit() else None


def kill_browser(pid: int, profile: Path) -> None:
    """Kill a browser's process group and wait for it; remove its socket folder."""
    socket_dir = singleton_dir(profile)
    kill_process_group(pid)
    with contextlib.suppress(psutil.NoSuchProcess):
        psutil.Process(pid).wait(timeout=10)
    if socket_dir is not None:
        remove_tree(socket_dir)
