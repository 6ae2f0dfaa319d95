"""Paging a snapshot: one walk of the page (a capture), its later pages read from it."""

from __future__ import annotations

import re

import pytest

from tabwarden.budget import Budget
from tabwarden.errors import InvalidArgument
from tabwarden.snapshot import Snapshot
from tests.cdp_log import recorded_commands

CHANGED = "# the page has changed since this capture (taken "


@pytest.fixture
async def tab(browser):
    tab = await browser.new_tab()
    yield tab
    if not tab.closed:
        await tab.close()


def _walks(commands) -> int:
    """Walker runs among recorded CDP commands (each frame's walk is one call)."""
    return sum(
        1
        for c in commands
        if c.method == "Runtime.callFunctionOn"
        and ".snapshot(options" in c.params.get("functionDeclaration", "")
    )


def _body(snapshot: Snapshot) -> list[str]:
    return [line for line in snapshot.text.splitlines() if not line.startswith("#")]


def _header(snapshot: Snapshot) -> list[str]:
    lines = snapshot.text.splitlines()
    return lines[: lines.index(_body(snapshot)[0])]


async def _read_all(tab, **params) -> list[Snapshot]:
    pages = [await tab.snapshot(**params)]
    while pages[-1].page.next_cursor is not None:
        pages.append(await tab.snapshot(cursor=pages[-1].page.next_cursor, **params))
    return pages


async def _until(predicate, what: str, seconds: float = 10) -> None:
    budget = Budget(seconds)
    while not predicate():
        budget.check(what)
        await budget.sleep(0.01)


async def test_reading_every_page_walks_the_page_once_and_the_pages_agree(tab, server):
    await tab.navigate(server.url("/big.html"))
    for params in ({}, {"full": True}, {"find": "number 1"}):
        with recorded_commands() as commands:
            pages = await _read_all(tab, max_chars=2_000, **params)
        assert len(pages) >= 3, params
        assert _walks(commands) == 1, params
        first = pages[0]
        assert {page.capture for page in pages} == {first.capture}
        # Cut from one capture: together the pages are its lines, in order, each once.
        selected = [line for line in first.lines if "number 1" in line or not params.get("find")]
        assert [line for page in pages for line in _body(page)] == selected, params
        assert all(page.page.chars <= 2_000 for page in pages)
        # Every page has the capture's header; a later one says the page did not change.
        assert first.changed is None
        for page in pages[1:]:
            assert _header(page) == _header(first) and page.changed is False
            assert "changed" not in "\n".join(_header(page))
            assert page.lines is first.lines
    assert "# 111 lines match 'number 1'" in _header(pages[0])
    # A scope pages the same way: the subtree's lines, from one walk.
    await tab.navigate(server.url("/paging.html"))
    table = next(n.ref for n in (await tab.snapshot(full=True)).root.walk() if n.role == "table")
    with recorded_commands() as commands:
        pages = await _read_all(tab, max_chars=2_000, scope=table)
    assert len(pages) >= 3 and _walks(commands) == 1
    assert f"# scope {table}" in _header(pages[-1])
    assert [line for page in pages for line in _body(page)] == pages[0].lines
    assert len(pages[0].lines) == 400  # a link per row


async def test_a_change_on_the_page_between_pages_is_reported_on_the_next_page(tab, server):
    await tab.navigate(server.url("/paging.html"))
    snap = await tab.snapshot()
    note = next(n.ref for n in snap.root.walk() if n.role == "textbox")
    changes = {
        "the DOM": "document.querySelector('a').textContent = 'renamed'",
        "a shadow root": "document.getElementById('host').shadowRoot.firstChild.title = 'x'",
        "typing": None,  # a value typed in changes no attribute
    }
    for what, expression in changes.items():
        first = await tab.snapshot(max_chars=2_000)
        second = await tab.snapshot(max_chars=2_000, cursor=first.page.next_cursor)
        assert second.changed is False and CHANGED not in second.text, what
        if expression is None:
            await tab.fill(note, f"typed {what}")
        else:
            await tab.cdp("Runtime.evaluate", {"expression": expression})
        third = await tab.snapshot(max_chars=2_000, cursor=second.page.next_cursor)
        assert third.changed is True, what
        assert CHANGED in third.text and "take a new snapshot for the current page" in third.text
        # Still the capture's lines: the pages of one snapshot agree with each other.
        start = third.page.start
        assert _body(third) == first.lines[start : start + len(_body(third))]
        assert third.to_dict()["changed_since_capture"] is True
    # A new snapshot reads the page as it is now; its next page finds nothing changed.
    fresh = await tab.snapshot(max_chars=2_000)
    assert "renamed" in fresh.text
    later = await tab.snapshot(max_chars=2_000, cursor=fresh.page.next_cursor)
    assert later.changed is False


async def test_cursor_zero_takes_a_new_snapshot(tab, server):
    await tab.navigate(server.url("/big.html"))
    first = await tab.snapshot(max_chars=2_000)
    for cursor in (0, "0"):
        with recorded_commands() as commands:
            again = await tab.snapshot(max_chars=2_000, cursor=cursor)
        assert _walks(commands) == 1
        assert again.capture != first.capture and again.page.start == 0
        assert again.page.next_cursor == f"{again.capture}:{first.page.next_cursor.split(':')[1]}"
    # A capture can be read again from its start without a walk.
    with recorded_commands() as commands:
        reread = await tab.snapshot(max_chars=2_000, cursor=f"{first.capture}:0")
    assert _walks(commands) == 0 and _body(reread) == _body(first)


async def test_cursors_that_name_no_capture_fail_with_guidance(browser, tab, server):
    await tab.navigate(server.url("/big.html"))

    async def fails(cursor: str, **params) -> InvalidArgument:
        with pytest.raises(InvalidArgument) as caught:
            await tab.snapshot(max_chars=2_000, cursor=cursor, **params)
        return caught.value

    error = await fails("s999999:0")
    assert f"tab {tab.id} has no snapshot s999999" in error.message
    assert "cursor=0" in error.hint
    # A cursor continues the view it was given for: full, scope and find stay the same.
    full = await tab.snapshot(full=True, max_chars=2_000)
    error = await fails(full.page.next_cursor)
    assert "continues a snapshot taken with full=True, not full=False" in error.message
    assert "pass full=True with this cursor" in error.hint
    error = await fails(full.page.next_cursor, full=True, find="number")
    assert "not full=True, find='number'" in error.message
    error = await fails(f"{full.capture}:{len(full.lines) + 1}", full=True)
    assert "past the end" in error.message
    assert (await tab.snapshot(full=True, cursor=full.page.next_cursor)).changed is False
    # Another tab's cursor means nothing here.
    other = await browser.new_tab(server.url("/big.html"))
    try:
        theirs = await other.snapshot(max_chars=2_000)
        error = await fails(theirs.page.next_cursor)
        assert f"tab {tab.id} has no snapshot {theirs.capture}" in error.message
    finally:
        await other.close()
    # A tab keeps its last few captures that have pages left to read.
    kept = [await tab.snapshot(max_chars=2_000) for _ in range(3)]
    error = await fails(full.page.next_cursor, full=True)
    assert f"snapshot {full.capture} was let go for newer ones" in error.message
    assert "cursor=0" in error.hint
    # A snapshot that fits in one page keeps nothing: it evicts no capture being read.
    assert (await tab.snapshot(max_chars=100_000)).page.next_cursor is None
    assert (await tab.snapshot(cursor=kept[0].page.next_cursor, max_chars=2_000)).changed is False
    # A page of a document the tab has left is refused.
    await tab.navigate(server.url("/paging.html"))
    error = await fails(kept[-1].page.next_cursor)
    assert f"has left the page of snapshot {kept[-1].capture}" in error.message
    assert "cursor=0" in error.hint
    await tab.close()
    assert len(tab.page.reader.captures) == 0  # released with the tab


async def test_what_went_wrong_is_told_once_on_the_capturing_page(tab, server):
    # The header's "since last snapshot" line is the capture's: later pages repeat the
    # capture's header and do not use up what happened after it.
    await tab.navigate(server.url("/big.html"))

    async def console_error(text: str) -> None:
        before = len((await tab.console(level="error")).entries)
        await tab.cdp("Runtime.evaluate", {"expression": f"console.error({text!r})"})
        budget = Budget(10)
        while len((await tab.console(level="error")).entries) <= before:
            budget.check(f"waiting for the console error {text!r}")
            await budget.sleep(0.01)

    await tab.snapshot()  # marks what came before as told
    await console_error("before")
    first = await tab.snapshot(max_chars=2_000)
    summary = "# console: 1 error since last snapshot"
    assert summary in _header(first)
    await console_error("after")
    second = await tab.snapshot(max_chars=2_000, cursor=first.page.next_cursor)
    assert _header(second) == _header(first)  # the capture's, not a new count
    fresh = await tab.snapshot(max_chars=2_000)
    assert summary in _header(fresh)  # the error after the capture, told now


async def test_a_page_read_while_a_dialog_is_open_says_so_at_once(tab, server):
    await tab.navigate(server.url("/big.html"))
    first = await tab.snapshot(max_chars=2_000)
    await tab.cdp("Runtime.evaluate", {"expression": "setTimeout(() => alert('between pages'), 0)"})
    await _until(lambda: tab.pending_dialog is not None, "waiting for the alert")
    second = await tab.snapshot(max_chars=2_000, cursor=first.page.next_cursor, timeout_ms=5_000)
    assert second.changed is None
    assert re.search(r"# dialog open: .*between pages.* — answer it with", second.text)
    assert "# could not tell whether the page changed since this capture" in second.text
    assert _body(second)[0] == first.lines[second.page.start]
    await tab.dialog("accept")
