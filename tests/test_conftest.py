"""The ``browser`` mark: ``pytest -m "not browser"`` runs the browser-free tests alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tabwarden
from tabwarden.errors import BrowserLaunchError
from tests.conftest import REFUSED_BROWSER, REFUSED_FIREFOX

ROOT = Path(__file__).parent.parent

# (test id, needs a browser): through the browser fixture, through a fixture that
# uses it, by an explicit mark, and none.
KNOWN = {
    "tests/test_tab_navigation.py::test_back_with_no_history_says_so": True,
    "tests/test_tab_navigation.py::test_navigate_reports_url_title_status_and_tab": True,
    "tests/test_manager.py::test_two_sessions_do_not_share_cookies": True,
    "tests/test_manager.py::test_bad_and_unknown_names_say_what_to_do": False,
    "tests/test_budget.py::test_fresh_budget_has_its_full_time_left": False,
}


def test_not_browser_deselects_browser_tests_and_keeps_the_rest() -> None:
    files = sorted({test_id.split("::")[0] for test_id in KNOWN})
    pytest_args = ["-p", "no:cacheprovider", "-q", "--collect-only", "-m", "not browser"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *pytest_args, *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    collected = set(done.stdout.splitlines())
    for test_id, needs_browser in KNOWN.items():
        assert (test_id in collected) is not needs_browser, test_id
    assert "deselected" in done.stdout


async def test_a_test_not_marked_browser_cannot_start_chromium() -> None:
    assert shutil.which("chromium") == str(REFUSED_BROWSER)
    with pytest.raises(BrowserLaunchError) as caught:
        await tabwarden.launch(isolated=True)
    assert "not marked 'browser'" in str(caught.value)


async def test_a_test_not_marked_browser_cannot_start_firefox() -> None:
    assert shutil.which("firefox-esr") == str(REFUSED_FIREFOX)
    with pytest.raises(BrowserLaunchError) as caught:
        await tabwarden.launch(isolated=True, engine="firefox")
    assert "not marked 'browser'" in str(caught.value)


@pytest.mark.browser
def test_a_browser_test_finds_the_real_chromium() -> None:
    assert os.environ.get("TABWARDEN_CHROME") != str(REFUSED_BROWSER)
    assert shutil.which("chromium") != str(REFUSED_BROWSER)
