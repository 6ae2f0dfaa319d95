"""Mouse input on a Firefox tab with ``input.performActions``: clicks with any button,
several clicks in a row and modifier keys held, drags, and wheel scrolls.

A click's modifiers are a key input source acting in the same ticks as the pointer:
the keys go down first, stay down while the pointer moves and clicks, and come up
last, so the page sees ``shiftKey``/``ctrlKey``/… on the pointer's events.

Drags: Firefox starts an HTML5 drag from synthesized pointer input (``dragstart``,
``dragenter``) but never drops it, so an element the page made draggable is dragged
with drag events dispatched in the page (one ``DataTransfer`` carried from
``dragstart`` to ``drop``, as a real drag carries it); anything else gets the real
pointer down, moves and up that pointer-driven drag code listens to.
"""

from __future__ import annotations

from typing import Any

from ..actions.forms import SCROLL_POSITION_JS
from ..actions.pointer import check_click, modifier_names
from ..actions.scrolling import check_direction, scroll_delta
from ..budget import Budget
from ..errors import InvalidArgument
from .calling import InputPage, call_on

__all__ = ["click_element", "drag_element", "scroll_wheel"]

JSONObject = dict[str, Any]

_MOUSE = "tabwarden-mouse"
_KEYBOARD = "tabwarden-keyboard"
_BUTTONS = {"left": 0, "middle": 1, "right": 2}
"""Button names → WebDriver's button numbers."""
_MODIFIER_KEYS = {"Shift": "\ue008", "Control": "\ue009", "Alt": "\ue00a", "Meta": "\ue03d"}
_SETTLE_S = 1.0
"""How long a wheel scroll may take to land (it lands a frame later)."""
_POLL_S = 0.02

_DRAGGABLE = """function() {
  // An HTML5 drag source: what a real press and move here would start dragging.
  for (let el = this; el && el.nodeType === 1; el = el.parentElement) {
    if (el.getAttribute('draggable') === 'true') return true;
    if (el.getAttribute('draggable') === 'false') return false;
  }
  return false;
}"""
_HTML5_DRAG = """function(target) {
  // One drag from this element to target, as the browser sends it: the same
  // DataTransfer from dragstart to drop; the drop only when dragover was cancelled.
  const data = new DataTransfer();
  const at = (el) => {
    const r = el.getBoundingClientRect();
    return {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2};
  };
  const fire = (el, type, point) => el.dispatchEvent(new DragEvent(type, Object.assign(
    {bubbles: true, cancelable: type !== 'dragleave' && type !== 'dragend', composed: true,
     dataTransfer: data}, point)));
  const from = at(this), to = at(target);
  if (!fire(this, 'dragstart', from)) return 'cancelled';
  fire(this, 'drag', from);
  fire(target, 'dragenter', to);
  const accepted = !fire(target, 'dragover', to);
  if (accepted) fire(target, 'drop', to);
  else fire(target, 'dragleave', to);
  data.dropEffect = accepted ? (data.effectAllowed === 'copy' ? 'copy' : 'move') : 'none';
  fire(this, 'dragend', to);
  return accepted ? 'dropped' : 'refused';
}"""
_VIEWPORT = "[innerWidth, innerHeight]"
_PAGE_POSITION = f"({SCROLL_POSITION_JS}).apply(document)"


def _move(element: JSONObject) -> JSONObject:
    return {
        "type": "pointerMove",
        "x": 0,
        "y": 0,
        "origin": {"type": "element", "element": element},
    }


def _mouse(actions: list[JSONObject]) -> JSONObject:
    return {
        "type": "pointer",
        "id": _MOUSE,
        "parameters": {"pointerType": "mouse"},
        "actions": actions,
    }


async def click_element(
    page: InputPage,
    ref: str,
    budget: Budget,
    *,
    button: str = "left",
    click_count: int = 1,
    modifiers: list[str] | None = None,
) -> tuple[str, str]:
    """Click the element ``ref`` names at its centre: ``button``, ``click_count`` times
    (2: a double click), ``modifiers`` held. Returns (its label, the receipt's detail)."""
    check_click(button, click_count)
    keys = [_MODIFIER_KEYS[name] for name in modifier_names(modifiers)]
    context, element = await page.element(ref, budget)
    number = _BUTTONS[button]
    pointer = [_move(element)]
    for _ in range(click_count):
        pointer += [
            {"type": "pointerDown", "button": number},
            {"type": "pointerUp", "button": number},
        ]
    actions = [_mouse(pointer)]
    if keys:
        # One tick per action across sources: keys down, then the pointer, then keys up.
        held = [{"type": "pause"}] * len(pointer)
        actions = [
            {
                "type": "key",
                "id": _KEYBOARD,
                "actions": [{"type": "keyDown", "value": k} for k in keys]
                + held
                + [{"type": "keyUp", "value": k} for k in reversed(keys)],
            },
            _mouse([{"type": "pause"}] * len(keys) + pointer),
        ]
    await page.perform(context, actions, budget)
    return page.label(ref), "" if click_count == 1 else f"{click_count} clicks"


async def drag_element(
    page: InputPage, start_ref: str, end_ref: str, budget: Budget
) -> tuple[str, str]:
    """Drag the element ``start_ref`` names onto the one ``end_ref`` names. Returns
    (both labels, "HTML5 drag and drop" when the source was an HTML5 drag source)."""
    context, source = await page.element(start_ref, budget)
    target_context, target = await page.element(end_ref, budget)
    label = f"{page.label(start_ref)} → {page.label(end_ref)}"
    if target_context == context and await call_on(page, context, source, _DRAGGABLE, budget):
        await call_on(page, context, source, _HTML5_DRAG, budget, target)
        return label, "HTML5 drag and drop"
    # Pointer-driven drag code: press, move in steps (a first move starts the drag in
    # most libraries), release over the target.
    steps: list[JSONObject] = [
        _move(source),
        {"type": "pointerDown", "button": 0},
        {**_move(source), "x": 5, "y": 5},
        {**_move(target), "duration": 100},
        _move(target),
        {"type": "pointerUp", "button": 0},
    ]
    if target_context != context:
        raise InvalidArgument(
            f"{label}: the two elements are in different frames",
            hint="drag within one document",
        )
    await page.perform(context, [_mouse(steps)], budget)
    return label, ""


async def scroll_wheel(
    page: InputPage,
    ref: str | None,
    direction: str | None,
    amount: float | None,
    budget: Budget,
) -> tuple[str | None, str]:
    """Scroll the page (``ref`` None) or an element by ``amount`` CSS px (default most of
    a screen) with the mouse wheel; ``direction=None`` with a ref scrolls it into view.
    Returns the label of what scrolled and where it got to (as on Chromium)."""
    check_direction(direction)
    if ref is None:
        if direction is None:
            raise InvalidArgument("direction=None needs a ref to scroll into view")
        context = page.context
        width, height = await page.evaluate_in(context, _VIEWPORT, budget)
        size = (float(width), float(height))
        origin: Any = "viewport"
        at = (int(width / 2), int(height / 2))
        label = None
        element: JSONObject | None = None
    else:
        # Resolving a ref scrolls it into view (centred).
        context, element = await page.element(ref, budget)
        label = page.label(ref)
        if direction is None:
            return label, "scrolled into view"
        size = (400.0, 400.0)
        origin = {"type": "element", "element": element}
        at = (0, 0)

    async def position() -> dict[str, Any]:
        if element is None:
            found: dict[str, Any] = await page.evaluate_in(context, _PAGE_POSITION, budget)
            return found
        return dict(await call_on(page, context, element, SCROLL_POSITION_JS, budget))

    before = await position()
    dx, dy = scroll_delta(direction, amount, size)
    wheel = {
        "type": "scroll",
        "x": at[0],
        "y": at[1],
        "deltaX": int(dx),
        "deltaY": int(dy),
        "origin": origin,
    }
    await page.perform(
        context, [{"type": "wheel", "id": "tabwarden-wheel", "actions": [wheel]}], budget
    )
    now = before
    wait = budget.child(_SETTLE_S)
    while now == before and not wait.expired:  # wheel scrolling lands a frame later
        await wait.sleep(_POLL_S)
        now = await position()
    moved = "" if now != before else " (it did not move: already at the end?)"
    return label, f"scrolled {direction} to x={now['x']:.0f}, y={now['y']:.0f}{moved}"
