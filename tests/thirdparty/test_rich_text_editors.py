"""Real rich-text editors from npm (TinyMCE, CKEditor 4), which edit inside an iframe:
their document is one textbox that fill, type, press, click and get_text work on, and
the editor's own API sees what was typed (it got real input events)."""

from __future__ import annotations

import pytest

from tabwarden.snapshot import Snapshot

# Each editor: its page (tests/thirdparty/pages) and how its API reads the content back.
EDITORS = {
    "tinymce": ("/pages/tinymce.html", "tinymce.activeEditor.getContent()"),
    "ckeditor4": ("/pages/ckeditor4.html", "CKEDITOR.instances.message.getData()"),
}
FOCUSED = {
    "tinymce": "tinymce.activeEditor.hasFocus()",
    "ckeditor4": "CKEDITOR.instances.message.focusManager.hasFocus",
}


def _ref(snapshot: Snapshot, role: str, name: str) -> str:
    for node in snapshot.root.walk():
        if node.role == role and node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no {role} named {name!r} in:\n{snapshot.text}")


@pytest.fixture(params=sorted(EDITORS))
async def editor(request, browser, thirdparty):
    """A tab with the editor loaded and ready; yields (tab, kind)."""
    path, _ = EDITORS[request.param]
    tab = await browser.new_tab(thirdparty.url(path))
    ready = await tab.evaluate("window.editorReady.then(() => true)", timeout_ms=30_000)
    assert ready.value is True
    yield tab, request.param
    if not tab.closed:
        await tab.close()


async def _content(tab, kind: str) -> str:
    """The editor's content as its own API reports it (HTML, whitespace squashed)."""
    result = await tab.evaluate(EDITORS[kind][1])
    return "".join(str(result.value).split("\n"))


async def test_the_editor_frame_is_a_textbox_named_by_the_editor(editor):
    tab, _ = editor
    snap = await tab.snapshot()
    frame = next(n for n in snap.root.walk() if n.role == "iframe")
    box = next(n for n in frame.walk() if n.role == "textbox")
    assert box.name == "Message body" and box.ref
    assert box.value == "Dear team, Draft text"
    assert '- textbox "Message body" [ref=' in snap.text
    # The full view shows the document's paragraphs under it, each with a ref.
    full = await tab.snapshot(full=True)
    box = next(n for n in full.root.walk() if n.role == "textbox" and n.name == "Message body")
    assert [(n.role, n.name) for n in box.children] == [
        ("paragraph", "Dear team,"),
        ("paragraph", "Draft text"),
    ]
    assert all(n.ref for n in box.children)


async def test_fill_replaces_the_content_and_the_editor_sees_it(editor):
    tab, kind = editor
    box = _ref(await tab.snapshot(), "textbox", "Message body")
    receipt = await tab.fill(box, "Hello world")
    assert receipt.detail == 'set to "Hello world"'
    assert await tab.get_text(box) == "Hello world"
    assert await _content(tab, kind) == "<p>Hello world</p>"
    receipt = await tab.fill(box, "line one\nline two")
    assert receipt.detail == 'set to "line one\\nline two"'  # the same text, laid out
    assert await _content(tab, kind) == "<p>line one</p><p>line two</p>"
    assert (await tab.get_text(box)).split() == ["line", "one", "line", "two"]
    assert await tab.wait(ref=box, timeout_ms=5_000)


async def test_type_appends_and_press_edits_at_the_caret(editor):
    tab, kind = editor
    box = _ref(await tab.snapshot(), "textbox", "Message body")
    subject = _ref(await tab.snapshot(), "textbox", "Subject")
    await tab.type("Re: plans", ref=subject)  # the focus is elsewhere
    await tab.type(" Regards", ref=box)  # at the end of the editor
    assert await _content(tab, kind) == "<p>Dear team,</p><p>Draft text Regards</p>"
    await tab.press("Enter", ref=box)
    await tab.type("Ann")
    await tab.press("Backspace", ref=box)  # the caret stays where typing left it
    assert await _content(tab, kind) == "<p>Dear team,</p><p>Draft text Regards</p><p>An</p>"
    value = await tab.evaluate("document.getElementById('subject').value")
    assert value.value == "Re: plans"


async def test_typing_into_a_paragraph_of_the_editor(editor):
    tab, kind = editor
    full = await tab.snapshot(full=True)
    first = _ref(full, "paragraph", "Dear team,")
    await tab.type(" hello", ref=first)
    await tab.press("Enter", ref=_ref(full, "paragraph", "Draft text"))
    await tab.type("PS")
    assert await _content(tab, kind) == "<p>Dear team, hello</p><p>Draft text</p><p>PS</p>"
    await tab.fill(first, "Hi all,")  # fill on a paragraph replaces what it holds
    assert await _content(tab, kind) == "<p>Hi all,</p><p>Draft text</p><p>PS</p>"


async def test_click_puts_the_focus_in_the_editor(editor):
    tab, kind = editor
    snap = await tab.snapshot()
    await tab.click(_ref(snap, "textbox", "Subject"))
    assert (await tab.evaluate(FOCUSED[kind])).value is False
    await tab.click(_ref(snap, "textbox", "Message body"))
    assert (await tab.evaluate(FOCUSED[kind])).value is True
    await tab.press("Control+End")
    await tab.type(" (sent)")
    assert await _content(tab, kind) == "<p>Dear team,</p><p>Draft text (sent)</p>"
