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


def test_cli_without_a_browser_says_how_to_install_one():
    done = _cli("version", env={"TABWARDEN_CHROME": "/nonexistent/chrome"})
    assert done.returncode == 1
    assert done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr
    assert "/nonexistent/chrome" in done.stderr
