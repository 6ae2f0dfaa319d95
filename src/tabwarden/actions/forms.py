"""Keyboard and form actions: fill, type, press, select, check, text, scroll."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..budget import Budget
from ..calls import Arg, call
from ..cdp.session import CDPSession
from ..errors import ActionError, CDPTimeout, DeadlineExceeded, InvalidArgument, NotActionable
from .evaluate import is_busy
from .keyboard import character_events, chord_events, parse_chord
from .resolve import Element, call_on

if TYPE_CHECKING:
    from ..page import Page

__all__ = [
    "CHECKED_JS",
    "SCROLL_POSITION_JS",
    "SELECT_JS",
    "ChosenOption",
    "check_state",
    "checkable_state",
    "chosen_options",
    "fill",
    "focus",
    "not_changed",
    "option_values",
    "page_text",
    "press",
    "scroll_position",
    "select_options",
    "type_text",
]

_EDIT_KIND = """function() {
  if (this.isContentEditable) return 'contenteditable';
  const tag = this.tagName;
  if (tag !== 'INPUT' && tag !== 'TEXTAREA') return 'not-editable:' + tag.toLowerCase();
  if (this.disabled) return 'disabled';
  if (this.readOnly) return 'readonly';
  if (tag === 'TEXTAREA') return 'text';
  const type = (this.type || 'text').toLowerCase();
  if (['checkbox', 'radio', 'file', 'submit', 'button', 'reset', 'image', 'hidden'].includes(type))
    return 'not-editable:input type=' + type;
  if (['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range'].includes(type))
    return 'set-value';
  return type === 'password' ? 'password' : 'text';
}"""

_EDITING_HOST_JS = """function editingHost(el) {
  // What takes the keyboard focus for editable content: the outermost contenteditable
  // around it, or the body of a document in designMode (a rich-text editor's frame).
  if (!el.isContentEditable) return null;
  const doc = el.ownerDocument;
  if (doc.designMode === 'on') return doc.body;
  let host = el;
  while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement;
  return host === doc.documentElement ? doc.body : host;
}"""
_SELECT_JS = """function select(el, collapse) {
  // The selection over what el holds (or, collapsed, the caret at its end).
  const range = el.ownerDocument.createRange();
  range.selectNodeContents(el);
  if (collapse) range.collapse(false);
  const selection = el.ownerDocument.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}"""
_EDITING_HELPERS_JS = "\n".join((_EDITING_HOST_JS, _SELECT_JS))

_SELECT_ALL = (
    """function() {
  const host = editingHost(this);
  if (host) {
    host.focus();
    select(this, false);
  } else {
    this.focus();
    this.select();
  }
"""
    + _EDITING_HELPERS_JS
    + "\n}"
)

_SET_VALUE = """function(value) {
  const proto = Object.getPrototypeOf(this);
  const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
  setter.call(this, value);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return this.value;
}"""

_CHANGED = """function() {
  if (!this.isContentEditable) this.dispatchEvent(new Event('change', {bubbles: true}));
  return this.isContentEditable ? this.innerText : this.value;
}"""

_FOCUS = (
    """function() {
  const host = editingHost(this);
  if (!host) {
    this.focus();
    return document.activeElement === this;
  }
  // Editable content (a paragraph of a rich-text editor, the editor itself): its host
  // takes the focus. Keys go to the caret where the host has the focus and the caret
  // lies in this element; anywhere else, the caret goes to this element's end.
  const doc = this.ownerDocument;
  const selection = doc.getSelection();
  const atCaret = doc.hasFocus() && doc.activeElement === host && selection.rangeCount > 0
    && this.contains(selection.focusNode);
  host.focus();
  if (!atCaret) select(this, true);
  return doc.activeElement === host;
"""
    + _EDITING_HELPERS_JS
    + "\n}"
)

SELECT_JS = """function(values) {
  if (this.tagName !== 'SELECT') return {error: 'not-select'};
  if (this.disabled) return {error: 'disabled'};
  const options = [...this.options];
  const chosen = [], missing = [], byValue = new Set();
  for (const wanted of values) {
    let option = options.find(o => o.value === wanted);
    if (option) byValue.add(option);
    option = option
      || options.find(o => o.label.trim() === wanted.trim() || o.text.trim() === wanted.trim());
    if (option) chosen.push(option); else missing.push(wanted);
  }
  if (missing.length)
    return {missing, available: options.slice(0, 50).map(o => o.label || o.value)};
  if (!this.multiple && chosen.length > 1) return {error: 'single'};
  for (const option of options) option.selected = chosen.includes(option);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: chosen.map(o => ({
    label: o.label.trim(), value: o.value, byValue: byValue.has(o)}))};
}"""

CHECKED_JS = """function() {
  if (this.tagName === 'INPUT' && ['checkbox', 'radio'].includes(this.type))
    return this.indeterminate ? 'mixed' : this.checked;
  const aria = this.getAttribute('aria-checked');
  if (aria === 'true' || aria === 'false') return aria === 'true';
  if (aria === 'mixed') return 'mixed';
  return null;
}"""

_TEXT = """function(limit) {
  const el = this.nodeType === 9 ? this.body : this;
  const text = (el && (el.innerText ?? el.textContent)) || '';
  return {text: text.slice(0, limit), total: text.length};
}"""

SCROLL_POSITION_JS = """function() {
  if (this.nodeType === 9 || this === document.scrollingElement || this === document.body)
    return {x: scrollX, y: scrollY, maxX: document.documentElement.scrollWidth - innerWidth,
            maxY: document.documentElement.scrollHeight - innerHeight};
  return {x: this.scrollLeft, y: this.scrollTop, maxX: this.scrollWidth - this.clientWidth,
          maxY: this.scrollHeight - this.clientHeight};
}"""


async def focus(element: Element, budget: Budget) -> None:
    if not await call_on(element.session, element.object_id, _FOCUS, budget):
        raise NotActionable(
            f"{element.label} cannot take the keyboard focus",
            ref=element.ref or "",
            reason="not-focusable",
            hint="type into a textbox, textarea or contenteditable element instead",
        )


async def fill(tab: Page, element: Element, value: str, budget: Budget) -> tuple[str, bool]:
    """Clear the field and set ``value`` with real input events.

    Returns the value the field now holds and whether it is a password field
    (whose value must never be shown).
    """
    if not isinstance(value, str):
        raise InvalidArgument(f"value must be text, got {type(value).__name__}")
    kind = await call_on(element.session, element.object_id, _EDIT_KIND, budget)
    if kind in ("disabled", "readonly"):
        raise NotActionable(
            f"{element.label} is {kind}",
            ref=element.ref or "",
            reason=kind,
            hint="it cannot be edited now; check the snapshot for why",
        )
    if isinstance(kind, str) and kind.startswith("not-editable"):
        what = kind.split(":", 1)[1]
        raise NotActionable(
            f"{element.label} is not a text field ({what})",
            ref=element.ref or "",
            reason="not-editable",
            hint=_not_editable_hint(what),
        )
    if kind == "set-value":
        result: str = await call_on(element.session, element.object_id, _SET_VALUE, budget, value)
        return result, False
    await call_on(element.session, element.object_id, _SELECT_ALL, budget)
    main = tab.frames.main_session
    if value:
        await main.send("Input.insertText", {"text": value}, budget=budget)
    else:
        await _send_keys(main, chord_events(parse_chord("Delete")), budget)
    final: str = await call_on(element.session, element.object_id, _CHANGED, budget)
    if kind == "contenteditable" and final.split() == value.split():
        # Rendered text spaces paragraphs by blank lines and keeps trailing spaces as
        # no-break ones: the same words are the value that was asked for.
        final = value
    return final, kind == "password"


_STILL_ANSWERS_S = 1.0
"""How long a page that was typed into may take to answer before it counts as busy."""


async def type_text(
    tab: Page, text: str, budget: Budget, *, delay_ms: float = 0, ref: str | None = None
) -> None:
    """Type into whatever has focus (``ref``, when the caller focused one), key by key
    (real key events). Running out of time while the page still answers means the text
    was too long to type in time: the error says how much was typed and offers fill."""
    if delay_ms < 0 or delay_ms > 5000:
        raise InvalidArgument(f"delay_ms={delay_ms} is out of range", hint="use 0 to 5000")
    main = tab.frames.main_session
    typed = 0
    paced = False
    try:
        for end, events in character_events(text):
            if paced:
                await budget.sleep(delay_ms / 1000)  # the caller asked for a typing pace
            try:
                await _send_key(main, events[0], budget)
            except CDPTimeout:
                typed = end  # sent: the page types it once it gets to it
                raise
            typed = end  # its first event (keyDown, insertText) puts it in
            for event in events[1:]:
                await _send_key(main, event, budget)
            paced = bool(delay_ms) and events[-1].get("type") == "keyUp"
    except DeadlineExceeded:
        # The page answered every key so far; if it answers now too (given the time to
        # finish the key in flight), typing itself took the time, not a script.
        if not typed or await is_busy(main, _STILL_ANSWERS_S):
            raise  # the page does not answer: it is busy, whatever the text
        raise _typing_ran_out(tab, text, typed, budget, ref) from None


async def _send_key(session: CDPSession, event: dict[str, Any], budget: Budget) -> None:
    """One event of :func:`character_events`: a key event, or text the layout lacks."""
    if "insertText" in event:
        await session.send("Input.insertText", {"text": event["insertText"]}, budget=budget)
    else:
        await session.send("Input.dispatchKeyEvent", event, budget=budget)


def _typing_ran_out(
    tab: Page, text: str, typed: int, budget: Budget, ref: str | None
) -> DeadlineExceeded:
    fill = call("fill", on_tab=tab.id, ref=ref or "…", value="…")
    return DeadlineExceeded(
        f"typing ran out of time: {typed:,} of {len(text):,} characters were typed in "
        f"{budget.timeout_s * 1000:.0f} ms, and the page answers: the text is long for "
        "typing, which sends each character as key events of its own",
        hint=f"the rest was not typed. {fill} puts a whole text in at once; or type the "
        f"rest with a larger {Arg('timeout_ms')}",
    )


async def press(tab: Page, key: str, budget: Budget) -> None:
    await _send_keys(tab.frames.main_session, chord_events(parse_chord(key)), budget)


@dataclass(frozen=True, slots=True)
class ChosenOption:
    """An option a select call chose."""

    label: str
    """What the page shows for it."""
    value: str
    by_value: bool
    """The call named it by its value (else by its label)."""

    def describe(self) -> str:
        """Its label, quoted; with the value the call gave when the label differs."""
        shown = _quoted(self.label) if self.label else "(no label)"
        if self.by_value and self.value != self.label:
            return f"{shown} (value {_quoted(self.value)})"
        return shown


async def select_options(element: Element, values: list[str], budget: Budget) -> list[ChosenOption]:
    values = option_values(values)
    result = await call_on(element.session, element.object_id, SELECT_JS, budget, values)
    return chosen_options(element.label, element.ref or "", values, result)


def option_values(values: list[str] | str) -> list[str]:
    """The values a select call names (one text alone is a list of one)."""
    if isinstance(values, str):
        values = [values]
    if not values or not all(isinstance(v, str) for v in values):
        raise InvalidArgument(
            "values must be a non-empty list of option values or labels",
            hint='e.g. values=["green"] or values=["Red", "Blue"] for a multiple select',
        )
    return values


def chosen_options(
    label: str, ref: str, values: list[str], result: dict[str, Any]
) -> list[ChosenOption]:
    """The options ``SELECT_JS`` chose on the element ``label`` names, or the error it
    reported (any engine runs the same script)."""
    if result.get("error") == "not-select":
        raise NotActionable(
            f"{label} is not a <select>",
            ref=ref,
            reason="not-select",
            hint="for a custom list, click it open and click the option's ref",
        )
    if result.get("error") == "disabled":
        raise NotActionable(f"{label} is disabled", ref=ref, reason="disabled")
    if result.get("error") == "single":
        raise InvalidArgument(
            f"{label} takes one option, {len(values)} were given", hint="pass one value"
        )
    if "missing" in result:
        raise InvalidArgument(
            f"{label} has no option {', '.join(map(repr, result['missing']))}",
            hint="choose from: " + ", ".join(map(repr, result["available"])),
        )
    return [ChosenOption(o["label"], o["value"], o["byValue"]) for o in result["selected"]]


def _quoted(text: str, limit: int = 80) -> str:
    return json.dumps(text if len(text) <= limit else text[: limit - 1] + "…", ensure_ascii=False)


async def check_state(element: Element, budget: Budget) -> bool | str:
    state = await call_on(element.session, element.object_id, CHECKED_JS, budget)
    return checkable_state(element.label, element.ref or "", state)


def checkable_state(label: str, ref: str, state: object) -> bool | str:
    """What ``CHECKED_JS`` read: checked (True/False) or "mixed"; ``NotActionable`` for
    an element that is no checkbox, radio or switch."""
    if not isinstance(state, (bool, str)):
        raise NotActionable(
            f"{label} is not a checkbox, radio or switch",
            ref=ref,
            reason="not-checkable",
            hint="click it instead",
        )
    return state


async def page_text(
    session: CDPSession, object_id: str, budget: Budget, max_chars: int
) -> tuple[str, int]:
    result = await call_on(session, object_id, _TEXT, budget, max_chars)
    return str(result["text"]), int(result["total"])


async def scroll_position(session: CDPSession, object_id: str, budget: Budget) -> dict[str, Any]:
    position: dict[str, Any] = await call_on(session, object_id, SCROLL_POSITION_JS, budget)
    return position


async def _send_keys(session: CDPSession, events: list[dict[str, Any]], budget: Budget) -> None:
    for event in events:
        await session.send("Input.dispatchKeyEvent", event, budget=budget)


def _not_editable_hint(what: str) -> str:
    if "checkbox" in what or "radio" in what:
        return "use check (or click) for checkboxes and radios"
    if "file" in what:
        return "use upload_file for file inputs"
    if what == "select":
        return "use select for <select> elements"
    return "fill takes an input, a textarea or a contenteditable element; click or type instead"


def unchanged(element: Element, desired: bool) -> ActionError:
    return not_changed(element.label, desired)


def not_changed(label: str, desired: bool) -> ActionError:
    """A click on a checkbox left it as it was."""
    word = "check" if desired else "uncheck"
    return ActionError(
        f"clicking {label} did not {word} it",
        hint="the page may handle it differently: take a snapshot and look for the real control",
    )
