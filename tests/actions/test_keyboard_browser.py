"""End to end: keyboard params from tabwarden.actions.keyboard sent to a real Chromium."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest_asyncio

from tabwarden.actions.keyboard import chord_events, text_events
from tabwarden.budget import Budget

# Two inputs and a textarea; every key event and input the page sees is logged.
PAGE = """<!doctype html>
<title>keyboard</title>
<input id="first"><input id="second"><textarea id="area"></textarea>
<script>
window.seen = [];
for (const type of ["keydown", "keyup"]) {
  document.addEventListener(type, (e) => seen.push({
    type, key: e.key, code: e.code, location: e.location,
    ctrl: e.ctrlKey, shift: e.shiftKey, alt: e.altKey, meta: e.metaKey,
  }), true);
}
document.addEventListener("input", (e) => seen.push(
  {type: "input", inputType: e.inputType, data: e.data}), true);
</script>
"""


@pytest_asyncio.fixture
async def tab(browser) -> AsyncIterator[Any]:
    """A fresh tab on the keyboard page, with #first focused."""
    page = await browser.new_tab("data:text/html," + quote(PAGE))
    await _eval(page, "document.getElementById('first').focus()")
    assert await _eval(page, "document.activeElement.id") == "first"
    try:
        yield page
    finally:
        await page.close()


async def _eval(tab, expression: str) -> Any:
    reply = await tab.cdp("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    assert "exceptionDetails" not in reply, reply
    return reply["result"].get("value")


async def _send(tab, events: list[dict[str, Any]]) -> None:
    # The one place that knows the insertText marker of text_events.
    for params in events:
        if "insertText" in params:
            await tab.cdp("Input.insertText", {"text": params["insertText"]})
        else:
            await tab.cdp("Input.dispatchKeyEvent", params)


async def _eventually(tab, expression: str, expected: Any, seconds: float = 5) -> Any:
    """Poll ``expression`` until it equals ``expected`` or the deadline passes; return it."""
    budget = Budget(seconds)
    while True:
        value = await _eval(tab, expression)
        if value == expected or budget.expired:
            return value
        await budget.sleep(0.02)


async def test_typing_text_produces_the_value(tab):
    await _send(tab, text_events("Hello, World! 123"))
    assert await _eventually(tab, "first.value", "Hello, World! 123") == "Hello, World! 123"
    inputs = await _eval(tab, "seen.filter(e => e.type === 'input').map(e => e.data).join('')")
    assert inputs == "Hello, World! 123"  # one input event per character, in order


async def test_control_a_then_backspace_clears_the_field(tab):
    await _send(tab, text_events("some text"))
    await _send(tab, chord_events("Control+A"))
    assert await _eventually(tab, "[first.selectionStart, first.selectionEnd]", [0, 9]) == [0, 9]
    await _send(tab, chord_events("Backspace"))
    assert await _eventually(tab, "first.value", "") == ""


async def test_backspace_deletes_exactly_one_character(tab):
    # The keyDown carries a deleteBackward command: it must replace Chromium's
    # default handling of Backspace, not run in addition to it.
    await _send(tab, text_events("abc"))
    await _send(tab, chord_events("Backspace"))
    assert await _eventually(tab, "first.value", "ab") == "ab"


async def test_shift_tab_moves_focus_backwards(tab):
    await _eval(tab, "second.focus()")
    await _send(tab, chord_events("Shift+Tab"))
    assert await _eventually(tab, "document.activeElement.id", "first") == "first"
    await _send(tab, chord_events("Tab"))
    assert await _eventually(tab, "document.activeElement.id", "second") == "second"


async def test_characters_off_the_layout_arrive_via_insert_text(tab):
    await _send(tab, text_events("aé中"))
    assert await _eventually(tab, "first.value", "aé中") == "aé中"
    # "a" came as key events, the others only as inputs (no keydown for them).
    keys = await _eval(tab, "seen.filter(e => e.type === 'keydown').map(e => e.key)")
    assert keys == ["a"]
    inputs = await _eval(tab, "seen.filter(e => e.type === 'input').map(e => e.data)")
    assert inputs == ["a", "é", "中"]


async def test_newline_in_text_is_enter_and_breaks_a_textarea_line(tab):
    await _eval(tab, "area.focus()")
    await _send(tab, text_events("one\ntwo"))
    assert await _eventually(tab, "area.value", "one\ntwo") == "one\ntwo"


async def test_control_shift_arrowleft_reaches_the_page_with_key_code_and_flags(tab):
    await _send(tab, text_events("hello world"))
    await _eval(tab, "seen.length = 0")
    await _send(tab, chord_events("Control+Shift+ArrowLeft"))
    expected = [
        ["keydown", "Control", "ControlLeft", 1, True, False],
        ["keydown", "Shift", "ShiftLeft", 1, True, True],
        ["keydown", "ArrowLeft", "ArrowLeft", 0, True, True],
        ["keyup", "ArrowLeft", "ArrowLeft", 0, True, True],
        ["keyup", "Shift", "ShiftLeft", 1, True, False],
        ["keyup", "Control", "ControlLeft", 1, False, False],
    ]
    seen = await _eventually(
        tab,
        "seen.filter(e => e.type !== 'input')"
        ".map(e => [e.type, e.key, e.code, e.location, e.ctrl, e.shift])",
        expected,
    )
    assert seen == expected
    assert await _eval(tab, "seen.every(e => !e.alt && !e.meta)")
    # Control+Shift+ArrowLeft selects the word before the caret.
    selected = "first.value.slice(first.selectionStart, first.selectionEnd)"
    assert await _eventually(tab, selected, "world") == "world"
