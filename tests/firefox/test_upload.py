"""Uploads on Firefox beyond the conformance suite: the chooser a click opens is taken
from ``input.fileDialogOpened`` each time (its subscription ends with each call)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.firefox import FirefoxPage, FirefoxSession

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
async def firefox() -> AsyncIterator[FirefoxSession]:
    async with tabwarden.launch(isolated=True, engine="firefox") as session:
        yield session


async def _ref(tab: FirefoxPage, pattern: str) -> str:
    text = (await tab.snapshot()).text
    found = re.search(pattern + r".*?\[ref=(e\d+)\]", text)
    assert found, text
    return found.group(1)


async def _title_becomes(tab: FirefoxPage, title: str) -> None:
    budget = Budget(10)
    while (await tab.evaluate("document.title")).value != title:
        assert not budget.expired, f"the title never became {title!r}"
        await budget.sleep(0.05)


async def test_a_chooser_is_answered_each_time_it_opens(firefox, server, tmp_path):
    tab = firefox.active_tab
    await tab.navigate(server.url("/engines_input.html"))
    choose = await _ref(tab, 'button "Choose files"')
    for name in ("first.txt", "second.txt"):
        path = tmp_path / name
        path.write_text(name)
        receipt = await tab.upload_file(choose, [str(path)])
        assert receipt.detail.startswith(f"attached {name} through the file chooser"), receipt
        await _title_becomes(tab, f"chose {name}")
