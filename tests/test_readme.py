"""Every code block of README.md runs as written: a reader can paste it and it works.

Python blocks run as scripts, shell blocks line by line (``tabwarden`` commands, each
with a deadline), JSON, TOML and YAML blocks must parse (the YAML as a configuration),
and ``text`` blocks are sample output (a sample snapshot must be what its page gives).
A few shell lines cannot run as they stand (they
install packages or run until stopped): ``NOT_RUN`` names them and says why, and
``test_long_running_command_answers`` starts each server among them and talks to it.

What a reader would see differently is substituted, and only that: ``.venv/bin/`` is
this interpreter's folder; the demo site, your own Chrome and the MCP HTTP server get
free ports instead of 8000, 9222 and 8931 (other tests may hold those), and that Chrome
a throwaway profile, headless when there is no display and without the sandbox as root.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest
import yaml

from tabwarden.budget import Budget
from tabwarden.config import Config

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BIN = Path(sys.executable).parent
"""Where this interpreter's ``tabwarden`` script is: the README's ``.venv/bin/``."""

SHELL = frozenset({"sh", "bash", "shell"})
DATA = frozenset({"json", "toml", "yaml"})
LANGUAGES = SHELL | DATA | {"python", "text"}
SETUP_COMMANDS = ("bash scripts/demo.sh", "bash scripts/test.sh")
"""The set-up commands, the first two shell lines of the README."""

DEMO_PORT, CHROME_PORT, MCP_PORT = "8000", "9222", "8931"
"""The ports the README names, replaced by free ones here."""

# Shell lines (by how they begin, the longest match wins) that are not run as they
# stand, and why. Anything else in a shell block must be a `tabwarden` command.
NOT_RUN: dict[str, str] = {
    # Both install packages (pip, apt-get, npm), and test.sh runs the whole suite, this
    # file in it. test_setup_commands_come_first checks their syntax; test_cli_and_demo.py
    # runs `tabwarden demo`, which demo.sh ends in.
    "bash scripts/": "set-up script",
    # Runs until Ctrl-C: started and fetched by test_long_running_command_answers, and
    # serving the shell blocks (the demo_site fixture).
    ".venv/bin/tabwarden demo --serve": "server",
    # The reader's own browser, open until closed: started (and /json/version fetched) by
    # test_long_running_command_answers, and driven by the attach examples (own_chrome).
    "chromium --remote-debugging-port": "server",
    # Run until stopped: test_long_running_command_answers starts each and opens an MCP
    # session with it (over HTTP, or over stdin and stdout).
    ".venv/bin/tabwarden mcp --http": "server",
    ".venv/bin/tabwarden mcp": "server",
    # The MCP client set-up ("Use it from your MCP client"): the reader's own shell and
    # clients. tests/surfaces/test_readme_mcp_configs.py parses each of these command
    # lines with the real CLI, serves HTTP with a token and checks the clients' headers.
    "export TABWARDEN_MCP_TOKEN=": "the reader's shell variable",
    "/path/to/tabwarden/.venv/bin/tabwarden mcp": "server, at the reader's install path",
    "claude mcp add": "needs Claude Code",
}

LINE_TIMEOUT_S = 120.0
SCRIPT_TIMEOUT_S = 180.0
START_TIMEOUT_S = 60.0
MCP_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "readme", "version": "0"},
    },
}


@dataclass(frozen=True)
class CodeBlock:
    language: str
    code: str
    line: int
    """The line of the opening fence (1-based), to find the block in the README."""

    @property
    def id(self) -> str:
        return f"{self.language}-line{self.line}"

    def commands(self) -> list[str]:
        """The shell lines that do something (not blank, not comments)."""
        stripped = (line.strip() for line in self.code.splitlines())
        return [line for line in stripped if line and not line.startswith("#")]


def code_blocks(markdown: str) -> list[CodeBlock]:
    blocks: list[CodeBlock] = []
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        opening = re.match(r"^```(\S*)\s*$", lines[index])
        if opening is None:
            index += 1
            continue
        end = lines.index("```", index + 1)  # a fence left open fails collection loudly
        body = "\n".join(lines[index + 1 : end]) + "\n"
        blocks.append(CodeBlock(opening[1], body, index + 1))
        index = end + 1
    return blocks


BLOCKS = code_blocks(README.read_text(encoding="utf-8"))


def not_run_reason(command: str) -> str | None:
    matches = [prefix for prefix in NOT_RUN if command.startswith(prefix)]
    return NOT_RUN[max(matches, key=len)] if matches else None


def shell_commands() -> list[str]:
    return [c for block in BLOCKS if block.language in SHELL for c in block.commands()]


# ---- the places and processes the examples run with -----------------------------------


@dataclass
class Place:
    """A fresh workspace, data and runtime folder: what a new user starts with."""

    work: Path
    env: dict[str, str]

    def run(
        self, command: str, timeout_s: float = LINE_TIMEOUT_S
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", command],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )

    def start(self, command: str, *, stdin: bool = False) -> subprocess.Popen[str]:
        return subprocess.Popen(
            ["bash", "-c", f"exec {command}"],
            cwd=self.work,
            env=self.env,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def stop_daemons(self) -> None:
        self.run(f"{BIN}/tabwarden daemon stop --all")


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    # Unix socket paths are short (108 bytes): the runtime folder and TMPDIR get a short one.
    short = Path(tempfile.mkdtemp(prefix="twreadme-"))
    root = tmp_path_factory.mktemp("readme")
    (short / "tmp").mkdir()
    (root / "work").mkdir()
    env = {
        **os.environ,
        "TABWARDEN_RUNTIME_DIR": str(short / "rt"),
        "TABWARDEN_DATA_DIR": str(root / "data"),
        "TMPDIR": str(short / "tmp"),
        "PYTHONUNBUFFERED": "1",
    }
    # The suite's own settings (a shared workspace…) are not a new user's.
    for name in ("TABWARDEN_DAEMON_IDLE_S", "TABWARDEN_CONFIG", "TABWARDEN_BROWSER__WORKSPACE"):
        env.pop(name, None)
    here = Place(root / "work", env)
    try:
        yield here
    finally:
        here.stop_daemons()
        shutil.rmtree(short, ignore_errors=True)


def as_run_here(command: str, *, demo: str = "", chrome: str = "", mcp: str = "") -> str:
    """The README's command with this machine's paths and ports (see the docstring)."""
    command = command.replace(".venv/bin/", f"{BIN}/")
    if demo:
        command = command.replace(f"127.0.0.1:{DEMO_PORT}", demo)
    if chrome:
        command = command.replace(f"127.0.0.1:{CHROME_PORT}", f"127.0.0.1:{chrome}")
    if mcp:
        command = command.replace(f"--port {MCP_PORT}", f"--port {mcp}")
    return command


def free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


class LineReader:
    """The lines a process prints, read on a thread so that waiting has a deadline."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put("")  # end of output

    def until(self, pattern: str, budget: Budget) -> re.Match[str]:
        while not budget.expired:
            try:
                line = self.lines.get(timeout=budget.remaining())
            except queue.Empty:
                break
            if not line:
                break
            self.seen.append(line)
            if found := re.search(pattern, line):
                return found
        raise AssertionError(f"no {pattern!r} in what it printed: {''.join(self.seen)!r}")


def stop(process: subprocess.Popen[str], how: int = signal.SIGTERM) -> int:
    if process.poll() is None:
        process.send_signal(how)
    try:
        return process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait(timeout=20)


def fetch(url: str, budget: Budget, data: bytes | None = None) -> tuple[int, str]:
    """The status and body of ``url``, retried until a server answers or the budget ends."""
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    while True:
        request = urllib.request.Request(url, data=data, headers=headers if data else {})
        try:
            with urllib.request.urlopen(request, timeout=max(1.0, budget.remaining())) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
        except OSError:
            if budget.expired:
                raise
        threading.Event().wait(0.1)  # nothing listens yet: look again shortly


# ---- the long-running commands, started as the README writes them ----------------------


def readme_command(prefix: str) -> str:
    found = [c for c in shell_commands() if c.startswith(prefix)]
    assert found, f"README.md has no `{prefix}` line any more"
    return found[0]


@contextlib.contextmanager
def demo_site_from(command: str, place: Place) -> Iterator[str]:
    """``tabwarden demo --serve``: yields the ``host:port`` it printed, after fetching it;
    then stops it with Ctrl-C, as a reader does, and expects a clean exit."""
    command = as_run_here(command).replace(f"--port {DEMO_PORT}", "--port 0")
    server = place.start(command)
    assert server.stdout is not None
    output = LineReader(server.stdout)
    try:
        url = output.until(r"http://127\.0\.0\.1:\d+/", Budget(START_TIMEOUT_S))[0]
        status, body = fetch(url + "contact.html", Budget(START_TIMEOUT_S))
        assert status == 200 and "Contact us" in body, (status, body)
        yield url.removeprefix("http://").rstrip("/")
    finally:
        code = stop(server, signal.SIGINT)
    assert code == 0, f"exit status {code} after Ctrl-C: {''.join(output.seen)}"
    output.until(r"^stopped", Budget(10))


@contextlib.contextmanager
def chrome_from(command: str, place: Place, profile: Path) -> Iterator[str]:
    """The reader's own Chrome: yields the port its CDP endpoint answers on."""
    command = re.sub(r"--user-data-dir=\S+", f"--user-data-dir={profile}", command)
    # Port 0: Chromium picks a free one and writes it into DevToolsActivePort.
    command = command.replace(f"--remote-debugging-port={CHROME_PORT}", "--remote-debugging-port=0")
    command = command.replace("chromium ", f"{shlex.quote(chromium())} ", 1)
    if not os.environ.get("DISPLAY"):
        command += " --headless=new"
    if os.geteuid() == 0:
        command += " --no-sandbox"  # Chromium refuses to run as root with its sandbox
    browser = place.start(command)
    try:
        port = wait_for_port_file(profile / "DevToolsActivePort", browser, Budget(START_TIMEOUT_S))
        status, body = fetch(f"http://127.0.0.1:{port}/json/version", Budget(START_TIMEOUT_S))
        assert status == 200 and "Browser" in json.loads(body), body
        yield port
    finally:
        stop(browser)


def chromium() -> str:
    """The README's ``chromium``: the browser tabwarden itself would launch here."""
    from tabwarden.backends.executable import find_browser

    return find_browser(None)


def wait_for_port_file(path: Path, process: subprocess.Popen[str], budget: Budget) -> str:
    while not budget.expired:
        if process.poll() is not None:
            raise AssertionError(f"the browser exited with status {process.returncode}")
        with contextlib.suppress(OSError):
            first = path.read_text().splitlines()[:1]
            if first and first[0].isdigit():
                return first[0]
        threading.Event().wait(0.1)  # Chromium has not written it yet: look again shortly
    raise AssertionError(f"{path} was not written within {START_TIMEOUT_S:.0f} s")


@pytest.fixture(scope="module")
def demo_site(place: Place) -> Iterator[str]:
    with demo_site_from(readme_command(".venv/bin/tabwarden demo --serve"), place) as address:
        yield address


@pytest.fixture(scope="module")
def own_chrome(place: Place, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    profile = tmp_path_factory.mktemp("own-chrome")
    with chrome_from(readme_command("chromium --remote-debugging-port"), place, profile) as port:
        yield port


def ports_for(code: str, request: pytest.FixtureRequest) -> dict[str, str]:
    """The servers a block names, started (once per module) as the README says."""
    ports: dict[str, str] = {}
    if f"127.0.0.1:{DEMO_PORT}" in code:
        ports["demo"] = request.getfixturevalue("demo_site")
    if f"127.0.0.1:{CHROME_PORT}" in code:
        ports["chrome"] = request.getfixturevalue("own_chrome")
    return ports


# ---- the tests ----------------------------------------------------------------------


def test_every_block_is_of_a_language_this_file_checks():
    unknown = [block.id for block in BLOCKS if block.language not in LANGUAGES]
    assert not unknown, f"blocks without a known language ({sorted(LANGUAGES)}): {unknown}"


def test_setup_commands_come_first():
    assert tuple(shell_commands()[:2]) == SETUP_COMMANDS
    for command in SETUP_COMMANDS:
        script = ROOT / command.split()[-1]
        checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
    assert "tabwarden demo" in (ROOT / "scripts/demo.sh").read_text()


def test_every_shell_line_is_run_or_said_why_not():
    strays = [
        command
        for command in shell_commands()
        if not_run_reason(command) is None and not command.startswith(".venv/bin/tabwarden ")
    ]
    assert not strays, f"not tabwarden commands: run them here or add them to NOT_RUN: {strays}"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.language in DATA], ids=lambda b: b.id)
def test_data_block_parses(block: CodeBlock):
    if block.language == "json":
        json.loads(block.code)
    elif block.language == "toml":
        tomllib.loads(block.code)
    else:
        Config.model_validate(yaml.safe_load(block.code))  # a configuration, every key known


@pytest.mark.browser
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.language == "python"], ids=lambda b: b.id)
def test_python_block_runs(block: CodeBlock, place: Place, request: pytest.FixtureRequest):
    code = block.code
    if chrome := ports_for(code, request).get("chrome"):
        code = code.replace(f"127.0.0.1:{CHROME_PORT}", f"127.0.0.1:{chrome}")
    script = place.work / f"readme_{block.id}.py"
    script.write_text(code, encoding="utf-8")
    done = place.run(f"{shlex.quote(sys.executable)} {script.name}", SCRIPT_TIMEOUT_S)
    assert done.returncode == 0, f"README.md {block.id} failed:\n{done.stdout}{done.stderr}"
    assert "Traceback" not in done.stderr, done.stderr


def runnable(block: CodeBlock) -> list[str]:
    return [c for c in block.commands() if not_run_reason(c) is None]


@pytest.mark.browser
@pytest.mark.parametrize(
    "block", [b for b in BLOCKS if b.language in SHELL and runnable(b)], ids=lambda b: b.id
)
def test_shell_block_runs(block: CodeBlock, place: Place, request: pytest.FixtureRequest):
    ports = ports_for(block.code, request)
    # Each block starts with no browser running, as in a new terminal: its refs are the
    # ones the README shows.
    place.stop_daemons()
    try:
        for command in runnable(block):
            done = place.run(as_run_here(command, **ports))
            assert done.returncode == 0, (
                f"README.md {block.id}: `{command}` exited with {done.returncode}:\n"
                f"{done.stdout}{done.stderr}"
            )
    finally:
        place.stop_daemons()


@pytest.mark.browser
@pytest.mark.parametrize("command", [c for c in shell_commands() if not_run_reason(c) == "server"])
def test_long_running_command_answers(command: str, place: Place, tmp_path: Path):
    if command.startswith(".venv/bin/tabwarden demo --serve"):
        with demo_site_from(command, place):
            return
    if command.startswith("chromium "):
        with chrome_from(command, place, tmp_path / "profile"):
            return
    if command.startswith(".venv/bin/tabwarden mcp --http"):
        port = free_port()
        server = place.start(as_run_here(command, mcp=port))
        try:
            status, body = fetch(
                f"http://127.0.0.1:{port}/mcp",
                Budget(START_TIMEOUT_S),
                json.dumps(MCP_INIT).encode(),
            )
        finally:
            stop(server)
        assert status == 200 and '"protocolVersion"' in body, (status, body)
        return
    if command.startswith(".venv/bin/tabwarden mcp"):
        server = place.start(as_run_here(command), stdin=True)
        assert server.stdin is not None and server.stdout is not None
        try:
            output = LineReader(server.stdout)
            server.stdin.write(json.dumps(MCP_INIT) + "\n")
            server.stdin.flush()
            output.until(r'"protocolVersion"', Budget(START_TIMEOUT_S))
        finally:
            server.stdin.close()
            stop(server)
        return
    pytest.fail(f"NOT_RUN says `{command}` is a server, but no test here starts it")


@pytest.mark.browser
@pytest.mark.parametrize(
    "block",
    [b for b in BLOCKS if b.language == "text" and b.code.startswith("# tab ")],
    ids=lambda b: b.id,
)
def test_sample_snapshot_is_what_the_page_gives(
    block: CodeBlock, place: Place, request: pytest.FixtureRequest
):
    url = re.search(r"http://\S+", block.code)
    assert url, f"README.md {block.id}: a sample snapshot names its page's URL"
    ports = ports_for(block.code, request)
    place.stop_daemons()  # a new session: refs numbered from e1, as for a reader
    try:
        navigated = place.run(as_run_here(f".venv/bin/tabwarden navigate {url[0]}", **ports))
        assert navigated.returncode == 0, navigated.stdout + navigated.stderr
        snapshot = place.run(as_run_here(".venv/bin/tabwarden snapshot", **ports))
    finally:
        place.stop_daemons()
    shown = as_run_here(block.code, **ports).splitlines()
    missing = [line for line in shown if line not in snapshot.stdout.splitlines()]
    assert not missing, f"README.md {block.id}: not in the snapshot:\n{snapshot.stdout}"
