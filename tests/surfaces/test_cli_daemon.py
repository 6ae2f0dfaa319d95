"""The tool commands of the CLI, run as separate processes over one daemon per session.

Each test gets its own runtime folder (sockets, locks, logs), data folder (profiles) and
TMPDIR (the browsers' run folders), so whatever it starts can be found and must be gone
at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from tabwarden.budget import Budget
from tests.conftest import browser_processes
from tests.local_server import LocalServer

CLI_TIMEOUT_S = 90
MODULE = (sys.executable, "-m", "tabwarden")


@dataclass
class Cli:
    env: dict[str, str]
    cwd: Path
    runtime: Path
    tmp: Path

    def __call__(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*MODULE, *args],
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT_S,
            cwd=self.cwd,
            env={**self.env, **(env or {})},
        )

    def ok(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = self(*args, env=env)
        assert done.returncode == 0, f"{args}: {done.returncode}\n{done.stdout}\n{done.stderr}"
        assert not done.stderr.strip() or "Traceback" not in done.stderr
        return done.stdout

    def json(self, *args: str) -> Any:
        return json.loads(self.ok(*args, "--json"))

    def status(self, session: str = "default") -> dict[str, Any]:
        status = self.json("daemon", "status", "--session", session)
        assert isinstance(status, dict)
        return status

    def log(self, session: str = "default") -> str:
        path = self.runtime / f"{session}.log"
        return path.read_text(errors="replace") if path.exists() else "(no log)"


@pytest.fixture
def cli(tmp_path: Path) -> Iterator[Cli]:
    # Unix socket paths are short (108 bytes), Chromium's own among them: pytest's
    # tmp_path can be too deep for TMPDIR and the runtime folder.
    short = Path(tempfile.mkdtemp(prefix="twcli-"))
    runtime, work, tmp = short / "rt", tmp_path / "work", short / "tmp"
    work.mkdir()
    tmp.mkdir()
    env = {
        **os.environ,
        "TABWARDEN_RUNTIME_DIR": str(runtime),
        "TABWARDEN_DATA_DIR": str(tmp_path / "data"),
        "TMPDIR": str(tmp),
    }
    env.pop("TABWARDEN_DAEMON_IDLE_S", None)
    runner = Cli(env, work, runtime, tmp)
    try:
        yield runner
    finally:
        runner("daemon", "stop", "--all")
        _assert_no_browsers_left(tmp, tmp_path / "data")
        shutil.rmtree(short, ignore_errors=True)


def _assert_no_browsers_left(*markers: Path, pids: tuple[int, ...] = ()) -> None:
    """Waited for until a deadline: browsers (and daemons) take a moment to go."""
    budget = Budget(20)

    def left() -> list[psutil.Process]:
        found = [p for m in markers for p in browser_processes(m)]
        for pid in pids:
            with contextlib.suppress(psutil.NoSuchProcess):
                found.append(psutil.Process(pid))
        return [p for p in found if _alive(p)]

    while (procs := left()) and not budget.expired:
        # Zombies count as gone; wait in short slices so one reaped late is seen as such.
        psutil.wait_procs(procs, timeout=min(0.5, budget.remaining()))
    procs = left()
    assert not procs, f"left behind: {[p.cmdline()[:2] for p in procs]}"


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _pid_alive(pid: int) -> bool:
    try:
        return _alive(psutil.Process(pid))
    except psutil.NoSuchProcess:
        return False


def _ref(snapshot: str, role: str, name: str) -> str:
    found = re.search(rf'- {role} "{re.escape(name)}" \[ref=(e\d+)\]', snapshot)
    assert found, snapshot
    return found.group(1)


@pytest.mark.browser
def test_commands_share_one_browser_across_invocations(cli: Cli, server: LocalServer) -> None:
    url = server.url("/receipts.html")
    out = cli.ok("navigate", url)
    assert "200" in out and url in out

    first = cli.status()
    assert first["running"] and first["session"] == "default"
    assert first["browser_pid"] and first["tabs"] == 1
    assert oct(cli.runtime.stat().st_mode & 0o777) == oct(0o700)
    assert oct((cli.runtime / "default.sock").stat().st_mode & 0o777) == oct(0o600)

    # The protocol itself: JSON lines, answered in completion order with the request's id.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
        raw.settimeout(30)
        raw.connect(str(cli.runtime / "default.sock"))
        raw.sendall(b'not json\n{"op": "status", "id": 7}\n{"tool": "browser_nope", "id": 8}\n')
        data = b""
        while data.count(b"\n") < 3:
            chunk = raw.recv(65536)
            assert chunk, data
            data += chunk
    replies = [json.loads(line) for line in data.splitlines()]
    by_id = {r.get("id"): r for r in replies}
    assert by_id[7]["ok"] and by_id[7]["result"]["pid"] == first["pid"]
    assert by_id[8]["error"]["type"] == "InvalidArgument" and by_id[8]["error"]["hint"]
    assert by_id[None]["ok"] is False and by_id[None]["error"]["type"] == "InvalidArgument"

    snapshot = cli.ok("snapshot")
    change = _ref(snapshot, "button", "Change page")
    clicked = cli.ok("click", change)
    assert "Added" in clicked, clicked

    # The page state (the click's effect) is still there for the next invocation.
    assert "Renamed" in cli.ok("get-text")
    as_json = cli.json("get-text")
    assert "Added" in as_json["text"] and as_json["untrusted"] is True

    # Screenshots land in the workspace's screenshots folder, and the reply says where.
    workspace = Path(cli.env.get("TABWARDEN_BROWSER__WORKSPACE") or cli.cwd)
    shots = (workspace / "tabwarden-output" / "screenshots").resolve()
    printed = cli.ok("screenshot", "--path", "shot.png")
    assert (shots / "shot.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), printed
    assert f"saved to {shots / 'shot.png'} (" in printed
    assert "# " not in printed  # the size line is for models
    default_shot = cli.json("screenshot")["image_files"][0]
    assert Path(default_shot).parent == shots
    assert Path(default_shot).read_bytes().startswith(b"\x89PNG")
    outside = cli.tmp / "outside.png"  # not under the workspace
    refused = cli("screenshot", "--out", str(outside))
    assert refused.returncode == 2 and "outside the workspace" in refused.stderr
    assert not outside.exists()

    # Same daemon, same browser, same tab at the same URL.
    again = cli.status()
    assert (again["pid"], again["browser_pid"]) == (first["pid"], first["browser_pid"])
    tabs = cli.json("tabs")["tabs"]
    assert [t["url"] for t in tabs] == [url]

    # Exit codes: 2 bad arguments (here or in the daemon), 3 tool error, 4 timeout.
    bad = cli("snapshot", "--max-chars", "5")
    assert bad.returncode == 2, bad.stderr
    assert bad.stderr.startswith("error: ") and "--max-chars" in bad.stderr
    missing = cli("click")
    assert missing.returncode == 2 and "REF" in missing.stderr
    not_json = cli("act-batch", "[{")
    assert not_json.returncode == 2 and "STEPS" in not_json.stderr
    rejected = cli("act-batch", "[]")  # valid JSON, refused by the daemon's tool
    assert rejected.returncode == 2 and "steps" in rejected.stderr, rejected.stderr

    unknown = cli("click", "e999")
    assert unknown.returncode == 3, unknown.stderr
    assert unknown.stderr.startswith("error: ") and "e999" in unknown.stderr
    assert "Traceback" not in unknown.stderr

    slow = cli("wait", "--text", "never", "--timeout-ms", "300")
    assert slow.returncode == 4, slow.stderr
    assert slow.stderr.startswith("error: ") and "Traceback" not in slow.stderr

    assert cli.status()["pid"] == first["pid"]  # the errors did not cost the daemon

    stopped = cli.ok("daemon", "stop")
    assert "stopped" in stopped
    assert not (cli.runtime / "default.sock").exists()
    assert cli.status()["running"] is False
    _assert_no_browsers_left(
        cli.tmp, Path(first["profile_dir"]), pids=(first["pid"], first["browser_pid"])
    )
    assert not list(cli.tmp.glob("tabwarden-run-*")), "the run folder was left behind"


@pytest.mark.browser
def test_idle_daemon_exits_by_itself_and_closes_its_browser(cli: Cli, server: LocalServer) -> None:
    # Nothing here asks the daemon anything after the tool call: a status request could
    # race its exit. Its pid is in its lock file; what it did is in its log.
    data = Path(cli.env["TABWARDEN_DATA_DIR"])

    # Auto-started with the idle timeout from the environment, on a throwaway profile.
    env = {"TABWARDEN_DAEMON_IDLE_S": "2", "TABWARDEN_BROWSER__ISOLATED": "true"}
    cli.ok("navigate", server.url("/index.html"), "--session", "idle", env=env)
    pid = int((cli.runtime / "idle.lock").read_text())
    _assert_no_browsers_left(cli.tmp, pids=(pid,))  # zombies count as gone
    log = cli.log("idle")
    assert f"(pid {pid}) listening on" in log and "idle timeout 2.0 s" in log, log
    assert "stopping: idle for" in log and "Traceback" not in log, log
    assert not (cli.runtime / "idle.sock").exists()
    assert not list(cli.tmp.glob("tabwarden-run-*")), "the temporary profile was left behind"

    # Started by hand with --idle-timeout; a tool command uses it rather than starting one.
    process = subprocess.Popen(
        # Idle for 4 s: the command below starts a Python of its own before it calls.
        [*MODULE, "daemon", "run", "--session", "manual", "--idle-timeout", "4"],
        cwd=cli.cwd,
        env=cli.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        listening = Budget(30)
        while not (cli.runtime / "manual.sock").exists():  # let it listen before we call
            listening.check("waiting for the hand-started daemon to listen")
            time.sleep(0.02)  # a poll interval, bounded by the deadline above
        cli.ok("navigate", server.url("/second.html"), "--session", "manual")
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    log = process.stderr.read() if process.stderr else ""
    assert "idle timeout 4.0 s" in log and "stopping: idle for" in log, log
    assert "connected to" in log, "the tool command started a daemon of its own"
    assert not (cli.runtime / "manual.log").exists(), "the tool command started a daemon"
    _assert_no_browsers_left(cli.tmp, data)


@pytest.mark.browser
def test_sessions_have_their_own_daemons_and_stale_sockets_are_replaced(
    cli: Cli, server: LocalServer
) -> None:
    # A socket file nothing listens on, as a killed daemon leaves behind.
    cli.runtime.mkdir(mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(cli.runtime / "b.sock"))
    stale.close()

    cli.ok("navigate", server.url("/receipts.html"), "--session", "a")
    cli.ok("navigate", server.url("/second.html"), "--session", "b")
    a, b = cli.status("a"), cli.status("b")
    assert a["pid"] != b["pid"] and a["browser_pid"] != b["browser_pid"]
    assert a["profile_dir"] != b["profile_dir"]
    assert "Alert me" in cli.ok("get-text", "--session", "a")
    assert "Alert me" not in cli.ok("get-text", "--session", "b")

    everyone = cli.json("daemon", "status")
    assert sorted(s["session"] for s in everyone) == ["a", "b"]
    human = cli.ok("daemon", "status")
    assert "a: pid" in human and "b: pid" in human

    cli.ok("daemon", "stop", "--all")
    assert cli.json("daemon", "status") == []
    _assert_no_browsers_left(cli.tmp, pids=(a["pid"], b["pid"], a["browser_pid"], b["browser_pid"]))


def test_daemon_commands_never_start_a_daemon(cli: Cli) -> None:
    assert cli.status("nobody") == {"running": False, "session": "nobody"}
    assert "no daemon runs" in cli.ok("daemon", "stop", "--session", "nobody")
    assert "no daemon is running" in cli.ok("daemon", "status")
    assert not (cli.runtime / "nobody.sock").exists()
    bad = cli("daemon", "status", "--session", "no/such")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")


def test_schema_and_help_need_no_browser(cli: Cli) -> None:
    tools = json.loads(cli.ok("schema", "--format", "openai"))
    assert tools and all(t["type"] == "function" for t in tools)
    names = {t["function"]["name"] for t in tools}
    assert "browser_navigate" in names and "browser_evaluate" not in names  # core only
    every = json.loads(cli.ok("schema", "--format", "anthropic", "--tools", "all"))
    assert {"browser_evaluate", "browser_upload_file"} <= {t["name"] for t in every}
    assert all("input_schema" in t for t in every)
    bad = cli("schema", "--tools", "nonsense")
    assert bad.returncode == 2 and "nonsense" in bad.stderr

    mcp_help = cli.ok("mcp", "--help")
    for flag in ("--http", "--shared-session", "--cdp-endpoint", "--viewport-size"):
        assert flag in mcp_help
    top = cli.ok("--help")
    assert "Exit codes" in top and "navigate" in top and "get-text" in top
    usage = cli("navigate", "--no-such-flag")
    assert usage.returncode == 2 and usage.stderr.startswith("error: ")
    assert not cli.runtime.exists() or not list(cli.runtime.glob("*.sock"))


@pytest.mark.browser
def test_hints_name_the_commands_to_run(cli: Cli, server: LocalServer) -> None:
    """A busy page and an open dialog on the command line: every hint is a command to
    run (in the session in use), never a Python method."""
    work = ("--session", "work")
    cli.ok("navigate", server.url("/busy.html"), *work)
    cli.ok("click", _ref(cli.ok("snapshot", *work), "button", "Spin forever"), *work)
    busy = cli("get-text", "--timeout-ms", "800", *work)
    assert busy.returncode == 4, busy.stderr
    assert "did not answer" in busy.stderr
    assert "tabwarden terminate-script --tab-id t1 --session work" in busy.stderr
    assert "tabwarden close-tab --tab-id t1 --session work" in busy.stderr
    assert "tab.terminate_script" not in busy.stderr
    # The command it names works.
    assert "stopped the script" in cli.ok("terminate-script", "--tab-id", "t1", *work)
    assert "Click me" in cli.ok("get-text", *work)

    cli.ok("navigate", server.url("/dialogs.html"), *work)
    snapshot = cli.ok("snapshot", *work)
    receipt = cli.ok("click", _ref(snapshot, "button", "Prompt"), *work)
    answer = "tabwarden dialog accept|dismiss --prompt-text '…' --dialog-id d-1 --session work"
    assert answer in receipt, receipt
    blocked = cli("get-text", *work)
    assert blocked.returncode == 3 and f"answer it first: {answer}" in blocked.stderr
    assert "dismissed d-1" in cli.ok("dialog", "dismiss", "--dialog-id", "d-1", *work)


@pytest.mark.browser
def test_a_daemon_that_ended_says_so_once_to_the_next_command(
    cli: Cli, server: LocalServer
) -> None:
    short = {"TABWARDEN_DAEMON_IDLE_S": "2", "TABWARDEN_BROWSER__ISOLATED": "true"}
    # One command only: on a loaded machine a second one may come after the 2 s.
    cli.ok("navigate", server.url("/receipts.html"), "--session", "gone", env=short)
    pid = int((cli.runtime / "gone.lock").read_text())
    _assert_no_browsers_left(cli.tmp, pids=(pid,))

    record_path = cli.runtime / "gone.ended"
    assert oct(record_path.stat().st_mode & 0o777) == oct(0o600)
    record = json.loads(record_path.read_text())
    assert record["reason"] == "idle" and record["session"] == "gone" and record["pid"] == pid
    # Until the next daemon starts, the status says how the last one ended, and reading it
    # leaves the record for that daemon.
    status = cli.status("gone")
    assert status["running"] is False and status["ended"]["reason"] == "idle"
    assert "after 2 s without a command" in status["ended"]["says"]
    assert "gone: not running; its last daemon ended at " in cli.ok("daemon", "status")
    assert record_path.exists()

    # The next command runs in a new daemon and browser, and is told: here it needed the
    # old page (a ref), so it fails, saying why.
    longer = {**short, "TABWARDEN_DAEMON_IDLE_S": "60"}
    told = cli("click", "e1", "--session", "gone", env=longer)
    assert told.returncode == 3, told.stderr
    assert "the previous daemon of session gone ended at" in told.stderr
    assert "after 2 s without a command" in told.stderr and "refs are gone" in told.stderr
    assert not record_path.exists()
    # Once: the command after it hears nothing of it.
    again = cli.ok("navigate", server.url("/index.html"), "--session", "gone", env=longer)
    assert "previous daemon" not in again

    # A daemon stopped on purpose leaves its record too; the next command's result says it.
    cli.ok("daemon", "stop", "--session", "gone")
    assert json.loads(record_path.read_text())["reason"] == "stopped"
    human = cli.ok("daemon", "status", "--session", "gone")
    assert human.startswith("gone: not running; its last daemon ended at ")
    assert "asked to stop" in human
    result = cli.json("navigate", server.url("/index.html"), "--session", "gone")
    assert "asked to stop" in result["notice"] and result["text"].startswith("# the previous")


@pytest.mark.browser
def test_daemons_past_the_limit_are_refused_naming_the_running_ones(
    cli: Cli, server: LocalServer
) -> None:
    limit = {"TABWARDEN_BROWSER__MAX_DAEMONS": "2"}
    started = [
        subprocess.Popen(
            [*MODULE, "daemon", "run", "--session", name, "--idle-timeout", "120"],
            cwd=cli.cwd,
            env={**cli.env, **limit},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name in ("a", "b")
    ]
    try:
        listening = Budget(30)
        while not all((cli.runtime / f"{n}.sock").exists() for n in ("a", "b")):
            listening.check("waiting for the daemons to listen")
            time.sleep(0.02)  # a poll interval, bounded by the deadline above
        refused = cli("navigate", server.url("/index.html"), "--session", "c", env=limit)
        assert refused.returncode == 3, refused.stderr
        said = refused.stderr
        assert "2 daemons running" in said and "browser.max_daemons = 2" in said
        assert ": a, b" in said and "tabwarden daemon stop --session a" in said
        assert not (cli.runtime / "c.sock").exists() and not (cli.runtime / "c.refused").exists()
        assert [s["session"] for s in cli.json("daemon", "status")] == ["a", "b"]

        cli.ok("daemon", "stop", "--session", "a")
        assert "200" in cli.ok("navigate", server.url("/index.html"), "--session", "c", env=limit)
        assert sorted(s["session"] for s in cli.json("daemon", "status")) == ["b", "c"]
    finally:
        cli("daemon", "stop", "--all")
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_daemons_starting_at_once_never_pass_the_limit_nor_refuse_each_other(cli: Cli) -> None:
    # Daemons started by hand start no browser until a tool call: browser-free.
    limit = {**cli.env, "TABWARDEN_BROWSER__MAX_DAEMONS": "1"}
    started = {
        name: subprocess.Popen(
            [*MODULE, "daemon", "run", "--session", name, "--idle-timeout", "120"],
            cwd=cli.cwd,
            env=limit,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("x", "y")
    }
    try:
        budget = Budget(60)
        while all(p.poll() is None for p in started.values()):
            budget.check("waiting for one of the two daemons to be refused")
            time.sleep(0.02)  # a poll interval, bounded by the deadline above
        refused = next(name for name, p in started.items() if p.poll() is not None)
        admitted = "y" if refused == "x" else "x"
        assert started[refused].returncode == 3
        error = started[refused].stderr.read() if started[refused].stderr else ""
        assert "1 daemon running" in error and f": {admitted}" in error, error
        assert started[admitted].poll() is None
        assert [s["session"] for s in cli.json("daemon", "status")] == [admitted]
    finally:
        cli("daemon", "stop", "--all")
        for process in started.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
