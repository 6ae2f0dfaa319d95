"""The command line and the bundled demo: the main job a newcomer runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tabwarden.demo.agent import run_demo
from tabwarden.demo.server import DemoSite


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tabwarden", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_demo_site_serves_pages_and_status_routes():
    with DemoSite() as site:
        home = site.url()
        with urllib.request.urlopen(home) as response:
            assert response.status == 200
            assert b"<title>" in response.read()
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(site.url("status/418"))
        assert caught.value.code == 418
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(home, timeout=2)  # stopped: nothing listens any more


@pytest.mark.browser
async def test_scripted_demo_session_passes_every_step():
    lines: list[str] = []
    assert await run_demo(out=lines.append) == 0
    text = "\n".join(lines)
    for expected in (
        "404 Not Found",
        "alert open",
        '- button "Send" [ref=',
        "→ /thanks.html",
        "opened by t1",
        "browser process gone",
        "ok:",
    ):
        assert expected in text, text


@pytest.mark.browser
def test_cli_demo_command_exits_zero_and_narrates():
    done = _cli("demo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^ok: \d+ steps in", done.stdout, re.MULTILINE), done.stdout


@pytest.mark.browser
def test_cli_version_and_doctor_report_the_browser():
    version = _cli("version")
    assert version.returncode == 0 and "browser" in version.stdout
    doctor = _cli("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "all checks passed" in doctor.stdout


def test_cli_doctor_says_where_outputs_and_profiles_go(tmp_path):
    env = {
        "TABWARDEN_DATA_DIR": str(tmp_path / "data"),
        "TABWARDEN_RUNTIME_DIR": str(tmp_path / "rt"),
    }
    # No browser here (the stand-in refuses to start): the places are printed all the same.
    # The workspace is the current folder, as for a user (the suite sets one for all tests).
    doctor = subprocess.run(
        [sys.executable, "-m", "tabwarden", "doctor"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={k: v for k, v in {**os.environ, **env}.items() if k != "TABWARDEN_BROWSER__WORKSPACE"},
    )
    places = dict(
        line.split(None, 1)
        for line in doctor.stdout.split("where files go\n", 1)[1].splitlines()[:5]
    )
    assert places["workspace"] == str(tmp_path.resolve())
    assert places["outputs"].startswith(f"{tmp_path.resolve() / 'tabwarden-output'}  (")
    assert places["profile"].startswith(str(tmp_path / "data" / "profiles"))
    assert places["daemons"].startswith(f"{tmp_path / 'rt'}  (")


def test_cli_demo_serve_port_rules(tmp_path):
    alone = _cli("demo", "--port", "8000")
    assert alone.returncode == 2
    assert "--port is for --serve" in alone.stderr
    with DemoSite() as site:  # its port is taken
        taken = _cli("demo", "--serve", "--port", site.base_url.rstrip("/").rsplit(":", 1)[1])
    assert taken.returncode == 1
    assert "cannot serve the demo site" in taken.stderr and "choose another --port" in taken.stderr


def test_cli_without_a_browser_says_how_to_install_one():
    done = _cli("version", env={"TABWARDEN_CHROME": "/nonexistent/chrome"})
    assert done.returncode == 1
    assert done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr
    assert "/nonexistent/chrome" in done.stderr
