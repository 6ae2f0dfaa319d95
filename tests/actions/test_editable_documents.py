"""Editable documents and editable content: a frame in designMode, a contenteditable body
on another origin (an OOPIF), and the paragraphs inside a contenteditable element."""

from __future__ import annotations

import time

import pytest

from tabwarden.snapshot import Snapshot

_EVENTS = "function() { return window.__events; }"


def _node(snapshot: Snapshot, role: str, name: str):
    for node in snapshot.root.walk():
        if node.role == role and node.name == name and node.ref:
            return node
    raise AssertionError(f"no {role} named {name!r} in:\n{snapshot.text}")


def _ref(snapshot: Snapshot, role: str, name: str) -> str:
    return str(_node(snapshot, role, name).ref)


def _lines(text: str) -> list[str]:
    """Text's lines without the blank ones rendered text puts between paragraphs."""
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture
async def page(browser, server, other_origin):
    tab = await browser.new_tab(server.url(f"/editable_frames.html?child={other_origin.base}"))
    yield tab
    if not tab.closed:
        await tab.close()


async def _snapshot_with_frames(tab, *, full: bool = False) -> Snapshot:
    """A snapshot once the cross-origin frame's document is in it (it loads on its own)."""
    deadline = time.monotonic() + 10
    while True:
        snap = await tab.snapshot(full=full)
        if any(n.role == "textbox" and n.name == "Comment" for n in snap.root.walk()):
            return snap
        assert time.monotonic() < deadline, snap.text


async def test_editable_documents_are_textboxes_named_by_their_frames(page):
    snap = await _snapshot_with_frames(page)
    lines = snap.text.splitlines()
    notes = next(i for i, line in enumerate(lines) if line.startswith('- iframe "Notes" '))
    assert lines[notes + 1].startswith('  - textbox "Notes" [ref=')
    assert lines[notes + 1].endswith(": first note second note")
    comment = _node(snap, "textbox", "Comment")  # its body cannot see its <iframe>'s title
    assert comment.value == "first comment second comment" and comment.bounds is not None
    assert _node(snap, "iframe", "Comment").children[0].children == [comment]
    # Nothing has the focus yet: a body is its document's active element all the same.
    assert not any(n.focused for n in snap.root.walk() if n.role == "textbox")
    full = await _snapshot_with_frames(page, full=True)
    for box, paragraphs in (
        ("Notes", ["first note", "second note"]),
        ("Comment", ["first comment", "second comment"]),
        ("Draft", ["first draft", "second draft"]),
    ):
        children = _node(full, "textbox", box).children
        assert [n.name for n in children] == paragraphs and all(n.ref for n in children)


async def test_a_design_mode_frame_takes_fill_type_press_and_click(page):
    snap = await _snapshot_with_frames(page)
    notes = _ref(snap, "textbox", "Notes")
    receipt = await page.fill(notes, "Buy milk")
    assert receipt.detail == 'set to "Buy milk"'
    await page.type(" and eggs", ref=notes)
    await page.press("Enter", ref=notes)
    await page.type("Call Bob")
    await page.press("Backspace")
    assert _lines(await page.get_text(notes)) == ["Buy milk and eggs", "Call Bo"]
    events = (await page.evaluate(function=_EVENTS)).value
    assert "design insertText" in events and "design insertParagraph" in events
    assert "design deleteContentBackward" in events
    await page.click(_ref(snap, "textbox", "Subject"))
    assert not _node(await page.snapshot(), "textbox", "Notes").focused
    await page.click(notes)
    assert _node(await page.snapshot(), "textbox", "Notes").focused
    assert await page.wait(ref=notes, timeout_ms=5_000)


async def test_a_contenteditable_body_on_another_origin(page):
    snap = await _snapshot_with_frames(page)
    comment = _ref(snap, "textbox", "Comment")
    await page.fill(comment, "Looks good")
    await page.type(" to me", ref=comment)
    await page.press("Shift+ArrowLeft", ref=comment)
    await page.press("Backspace")
    assert await page.get_text(comment) == "Looks good to m"
    assert _node(await page.snapshot(), "textbox", "Comment").value == "Looks good to m"
    events = (await page.evaluate(function=_EVENTS, ref=comment)).value
    assert events[:2] == ["insertText", "insertText"] and "deleteContentBackward" in events
    await page.click(_ref(snap, "textbox", "Subject"))
    await page.click(comment)
    await page.type("!")
    assert (await page.get_text(comment)).endswith("!")


async def test_typing_into_a_paragraph_inside_editable_content(page):
    full = await _snapshot_with_frames(page, full=True)
    # In a contenteditable element of the page, in a designMode frame, in an OOPIF body:
    # the caret goes to the end of the paragraph, wherever the focus was.
    for first, second in (
        ("first draft", "second draft"),
        ("first note", "second note"),
        ("first comment", "second comment"),
    ):
        await page.type("!", ref=_ref(full, "paragraph", first))
        await page.press("Backspace", ref=_ref(full, "paragraph", second))
        await page.type("?")
    for box, lines in (
        ("Draft", ["first draft!", "second draf?"]),
        ("Notes", ["first note!", "second not?"]),
        ("Comment", ["first comment!", "second commen?"]),
    ):
        assert _lines(await page.get_text(_ref(full, "textbox", box))) == lines


async def test_typing_into_the_editor_keeps_a_caret_it_holds(page):
    snap = await _snapshot_with_frames(page)
    for name in ("Draft", "Notes", "Comment"):
        box = _ref(snap, "textbox", name)
        await page.fill(box, "world")
        await page.press("Home")
        await page.type("hello ", ref=box)  # the focus is there: at the caret
        assert (await page.get_text(box)).strip() == "hello world"
        await page.click(_ref(snap, "textbox", "Subject"))
        await page.type(".", ref=box)  # the focus was elsewhere: at the end
        assert (await page.get_text(box)).strip() == "hello world."
