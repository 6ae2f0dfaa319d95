"""Where a person finds the workbench: the MCP server says where once on stderr, the
daemon serves one for its session (``tabwarden workbench`` starts it and prints or opens
the page), and ``tabwarden workbench --list`` finds every running one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from tabwarden.surfaces import workbench_directory

MODULE = (sys.executable, "-m", "tabwarden")
_RUN_S = 60


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    short = Path(tempfile.mkdtemp(prefix="twwb-"))  # socket paths are short
    variables = {
        **os.environ,
        "TABWARDEN_RUNTIME_DIR": str(short / "rt"),
        "TABWARDEN_DATA_DIR": str(tmp_path / "data"),
        "TMPDIR": str(tmp_path),
    }
    variables.pop("DISPLAY", None)
    variables.pop("WAYLAND_DISPLAY", None)
    try:
        yield variables
    finally:
        subprocess.run([*MODULE, "daemon", "stop", "--all"], env=variables, timeout=_RUN_S)
        shutil.rmtree(short, ignore_errors=True)


def _sessions(url: str) -> httpx.Response:
    base, _, token = url.partition("/?token=")
    return httpx.get(f"{base}/api/sessions?token={token}", timeout=10)


def test_the_mcp_server_says_where_its_workbench_is_once(env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        [*MODULE, "mcp"], env=env, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None and proc.stdin is not None
    try:
        line = proc.stderr.readline()
        assert line.startswith("tabwarden workbench: http://127.0.0.1:"), line
        url = line.split(": ", 1)[1].strip()
        assert _sessions(url).json() == {"sessions": []}
        listed = subprocess.run(
            [*MODULE, "workbench", "--list", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=_RUN_S,
        )
        (entry,) = json.loads(listed.stdout)
        assert entry["url"] == url and entry["kind"] == "mcp" and entry["pid"] == proc.pid
        proc.stdin.close()  # the client leaves: the server ends
        assert proc.wait(timeout=_RUN_S) == 0
        assert "tabwarden workbench" not in proc.stderr.read()  # said once
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert workbench_directory.listed(Path(env["TABWARDEN_RUNTIME_DIR"])) == []
    with pytest.raises(httpx.ConnectError):
        _sessions(url)


def test_without_the_workbench_nothing_is_said_or_served(env: dict[str, str]) -> None:
    done = subprocess.run(
        [*MODULE, "mcp", "--no-workbench"],
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=_RUN_S,
    )
    assert done.returncode == 0 and "workbench" not in done.stderr


def test_tabwarden_workbench_starts_the_daemon_and_prints_the_page(env: dict[str, str]) -> None:
    done = subprocess.run(
        [*MODULE, "workbench", "--session", "wb", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=_RUN_S,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["opened"] is False  # no display here: printed, not opened
    assert answer["url"].startswith("http://127.0.0.1:") and "?token=" in answer["url"]
    assert _sessions(answer["url"]).status_code == 200
    again = subprocess.run(
        [*MODULE, "workbench", "--session", "wb"],
        env=env,
        capture_output=True,
        text=True,
        timeout=_RUN_S,
    )
    assert answer["url"] in again.stdout and "open that address" in again.stdout
    status = subprocess.run(
        [*MODULE, "daemon", "status", "--session", "wb", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=_RUN_S,
    )
    assert json.loads(status.stdout)["workbench"] == answer["url"]
    subprocess.run([*MODULE, "daemon", "stop", "--session", "wb"], env=env, timeout=_RUN_S)
    assert workbench_directory.listed(Path(env["TABWARDEN_RUNTIME_DIR"])) == []


def test_the_list_says_when_none_runs(env: dict[str, str]) -> None:
    done = subprocess.run(
        [*MODULE, "workbench", "--list"], env=env, capture_output=True, text=True, timeout=_RUN_S
    )
    assert done.returncode == 0 and "no workbench is running" in done.stdout


def test_another_host_is_an_explicit_flag_and_keeps_the_token(env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        [*MODULE, "mcp", "--workbench-host", "0.0.0.0"],
        env=env,
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None and proc.stdin is not None
    try:
        line = proc.stderr.readline()
        assert line.startswith("tabwarden workbench: http://0.0.0.0:"), line
        port = line.split(":")[3].split("/")[0]
        token = line.split("?token=")[1].strip()
        refused = httpx.get(f"http://127.0.0.1:{port}/api/sessions", timeout=10)
        assert refused.status_code == 401
        assert _sessions(f"http://127.0.0.1:{port}/?token={token}").status_code == 200
        proc.stdin.close()
        assert proc.wait(timeout=_RUN_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
