"""The sync API is typed: mypy --strict rejects wrong calls and wrong uses of results."""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

from mypy import api as mypy_api

ROOT = Path(__file__).resolve().parents[1]

CORRECT = """
from __future__ import annotations

import tabwarden
import tabwarden.sync


def use(url: str) -> str:
    with tabwarden.sync.launch(isolated=True, timeout_ms=5_000) as browser:
        tab = browser.new_tab(url, wait_until="domcontentloaded")
        tab.click("e1", click_count=2, modifiers=["Shift"])
        result: tabwarden.NavigationResult = tab.navigate(url)
        status: int | None = result.status
        tabs: list[tabwarden.sync.Tab] = browser.tabs()
        opener = tab.opener
        if opener is not None:
            opener.close()
        snapshot: tabwarden.Snapshot = tab.snapshot(max_chars=4_000)
        same: bool = browser.active_tab == tabs[0] and browser.get_tab(tab.id) == tab
        print(status, snapshot, same, browser.name, browser.closed)
        return tab.title


def use_firefox(url: str) -> str:
    with tabwarden.sync.launch(engine="firefox", isolated=True) as firefox:
        page: tabwarden.sync.FirefoxPage = firefox.new_tab(url)
        tabs: list[tabwarden.sync.FirefoxPage] = firefox.tabs
        clicked: str = page.click("e1").text
        value: object = page.evaluate("1 + 1").value
        print(tabs, clicked, value, firefox.take_relaunch_notice())
        return page.title


def manage(config: tabwarden.Config) -> list[str]:
    with tabwarden.sync.SessionManager(config) as manager:
        session: tabwarden.sync.BrowserSession = manager.get_or_create("one", isolated=True)
        session.open("http://127.0.0.1/")
        return manager.names()
"""

# Each wrong line names the mypy error codes it must get.
WRONG = """
from __future__ import annotations

import tabwarden
import tabwarden.sync


def misuse(browser: tabwarden.sync.BrowserSession) -> None:
    tab = browser.new_tab("http://127.0.0.1/")
    tab.click(123, bogus=True)  # expect: arg-type call-arg
    title: int = tab.title  # expect: assignment
    async_tab: tabwarden.Tab = browser.current_tab()  # expect: assignment
    browser.tabs()[0].navigate(url=1)  # expect: arg-type
    tab.snapshot().nodes_count  # expect: attr-defined
    browser.tab_count  # expect: attr-defined
    tabwarden.sync.launch("http://127.0.0.1/")  # expect: call-overload
    chromium: tabwarden.sync.BrowserSession
    chromium = tabwarden.sync.launch(engine="firefox")  # expect: assignment
    tabwarden.sync.launch(engine="firefox", device="iPhone 15")  # expect: call-overload
    with tabwarden.sync.SessionManager(config=1) as manager:  # expect: arg-type
        manager.get_or_create(timeout_ms="soon").new_tab()  # expect: arg-type
"""


def test_mypy_strict_reports_wrong_uses_of_the_sync_api_and_passes_right_ones(tmp_path):
    (tmp_path / "correct_use.py").write_text(CORRECT, encoding="utf-8")
    (tmp_path / "wrong_use.py").write_text(WRONG, encoding="utf-8")
    stdout, stderr, _ = mypy_api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(_cache_dir()),
            "--show-error-codes",
            "--no-pretty",
            str(tmp_path / "correct_use.py"),
            str(tmp_path / "wrong_use.py"),
        ]
    )
    assert not stderr, stderr
    reported: dict[tuple[str, int], set[str]] = {}
    for file, line, code in re.findall(
        r"^.*?(\w+)\.py:(\d+): error: .*\[([\w-]+)\]$", stdout, re.M
    ):
        reported.setdefault((file, int(line)), set()).add(code)
    expected = {
        ("wrong_use", number): set(codes.split())
        for number, text in enumerate(WRONG.splitlines(), start=1)
        for codes in re.findall(r"# expect: (.*)$", text)
    }
    assert reported == expected, stdout


def _cache_dir() -> Path:
    """mypy's cache for this checkout, kept between runs (the first run takes a while)."""
    key = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"tabwarden-mypy-cache-{key}"
