"""Pointer actions with actionability: scroll into view, visible, enabled, stable, hit.

Coordinates: ``DOM.getContentQuads`` gives a frame's quads in its local root's
viewport; an element inside an OOPIF is moved into the top viewport by the
content box of each OOPIF's <iframe> owner. Mouse events go to the top-level
page session, which routes them into frames like a real pointer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..budget import Budget
from ..cdp.protocol import Event
from ..errors import CDPError, DeadlineExceeded, InvalidArgument, NotActionable
from .keyboard import MODIFIER_BITS
from .resolve import Element, call_on

if TYPE_CHECKING:
    from ..tab import Tab

__all__ = [
    "Point",
    "actionable_point",
    "click",
    "drag",
    "frame_offset",
    "hover",
    "modifier_bits",
    "visible",
    "wheel",
]

_BUTTONS = {"left": 1, "right": 2, "middle": 4}
_STABLE_TRIES = 20

_STATE = """function(scroll) {
  // Scrolled here rather than by DOM.scrollIntoViewIfNeeded: one round trip less (this
  // runs in tabwarden's world, so the page cannot have replaced the method).
  if (scroll && this.scrollIntoViewIfNeeded) this.scrollIntoViewIfNeeded(true);
  const style = getComputedStyle(this);
  const visible = this.checkVisibility
    ? this.checkVisibility({visibilityProperty: true})
    : style.visibility !== 'hidden' && style.display !== 'none';
  const disabled = this.disabled === true
    || this.getAttribute('aria-disabled') === 'true'
    || !!(this.closest && this.closest('fieldset[disabled]') && this.tagName !== 'LEGEND');
  // Stable without waiting for frames: where the last snapshot saw it (at least a frame
  // ago, in document coordinates), it still is.
  let stable = false;
  const walker = globalThis.__tabwardenWalker;
  const seen = walker && walker.rects && walker.rects.get(this);
  if (seen && performance.now() - seen[4] >= 16) {
    const r = this.getBoundingClientRect();
    stable = r.left + scrollX === seen[0] && r.top + scrollY === seen[1]
      && r.width === seen[2] && r.height === seen[3];
  }
  return {visible, disabled, stable};
}"""

_NEXT_FRAME = """function() {
  return new Promise(r => requestAnimationFrame(() => r(true)));
}"""
# A page that renders no frames (a background tab) cannot be animating on screen:
# past this, the stability check compares positions without waiting for frames.
_FRAMES_WAIT_S = 0.15

_CONTAINS = """function(other) {
  let node = other;
  while (node) {
    if (node === this) return true;
    node = node.parentNode || (node instanceof ShadowRoot ? node.host : null);
  }
  return false;
}"""

_DESCRIBE = """function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return '';
  const holder = el.closest('dialog,[role=dialog],[role=alertdialog],[aria-modal=true]') || el;
  const name = holder.getAttribute('aria-label')
    || (holder.innerText || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
  const role = holder.getAttribute('role') || (holder.tagName === 'DIALOG' ? 'dialog' : '');
  let css = holder.tagName.toLowerCase();
  if (holder.id) css += '#' + holder.id;
  else if (holder.classList.length) css += '.' + [...holder.classList].slice(0, 2).join('.');
  if (!role && !name) return css;
  return (role ? role + ' ' : '') + (name ? JSON.stringify(name) + ' ' : '') + '(' + css + ')';
}"""


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float


def modifier_bits(modifiers: list[str] | tuple[str, ...] | None) -> int:
    bits = 0
    for name in modifiers or ():
        canonical = {"ctrl": "Control", "cmd": "Meta", "command": "Meta", "option": "Alt"}.get(
            name.lower(), name.capitalize() if name.islower() else name
        )
        if canonical not in MODIFIER_BITS:
            raise InvalidArgument(
                f"{name!r} is not a modifier key", hint="use Alt, Control, Meta or Shift"
            )
        bits |= MODIFIER_BITS[canonical]
    return bits


async def actionable_point(
    tab: Tab, element: Element, budget: Budget, *, need_enabled: bool = True
) -> Point:
    """Where to put the pointer for ``element``, in top-viewport CSS pixels, once it is
    scrolled into view, visible, enabled, not moving, and the topmost thing there."""
    session = element.session
    if element.context_id is None:  # an element found by selector, in the page's world
        try:
            await session.send(
                "DOM.scrollIntoViewIfNeeded",
                {"backendNodeId": element.backend_node_id},
                budget=budget,
            )
        except CDPError:
            raise _hidden(element) from None
    state = await call_on(
        session, element.object_id, _STATE, budget, element.context_id is not None
    )
    if not state or not state.get("visible"):
        raise _hidden(element)
    if need_enabled and state.get("disabled"):
        raise NotActionable(
            f"{element.label} is disabled",
            ref=element.ref or "",
            reason="disabled",
            hint="it may need other fields filled first; wait for it to be enabled, then retry",
        )
    if state.get("stable"):
        center = await _quad_center(element, budget)
        if center is None:
            raise _hidden(element)
        local = center
    else:
        local = await _stable_center(element, budget)
    hit = await _hit_test(element, local, budget)
    if hit is not None:
        raise NotActionable(
            f"{element.label} is covered by {hit} at ({local.x:.0f}, {local.y:.0f})",
            ref=element.ref or "",
            reason="covered",
            hint="close or dismiss what covers it first (e.g. the dialog's close or accept "
            "button), or wait for it to go away; take a snapshot to see it",
        )
    dx, dy = await frame_offset(tab, element.frame_id, budget)
    return Point(local.x + dx, local.y + dy)


async def visible(element: Element, budget: Budget) -> bool:
    """Rendered and not hidden by CSS (it may still be scrolled out of view)."""
    state = await call_on(element.session, element.object_id, _STATE, budget, False)
    return bool(state and state.get("visible"))


async def click(
    tab: Tab,
    point: Point,
    budget: Budget,
    *,
    button: str = "left",
    click_count: int = 1,
    modifiers: int = 0,
) -> None:
    if button not in _BUTTONS:
        raise InvalidArgument(
            f"button={button!r} is not a mouse button", hint="left, right, middle"
        )
    if not 1 <= click_count <= 3:
        raise InvalidArgument(f"click_count={click_count} is out of range", hint="use 1, 2 or 3")
    # Sent at once, answered in order: the renderer dispatches the move (which would
    # otherwise wait for the next frame) before the press that follows it.
    events = [_mouse(tab, "mouseMoved", point, budget, modifiers=modifiers)]
    for count in range(1, click_count + 1):
        common = {"button": button, "clickCount": count, "modifiers": modifiers}
        events.append(
            _mouse(tab, "mousePressed", point, budget, buttons=_BUTTONS[button], **common)
        )
        events.append(_mouse(tab, "mouseReleased", point, budget, buttons=0, **common))
    await _in_order(events)


async def hover(tab: Tab, point: Point, budget: Budget) -> None:
    await _mouse(tab, "mouseMoved", point, budget)


async def wheel(tab: Tab, point: Point, delta_x: float, delta_y: float, budget: Budget) -> None:
    await _mouse(tab, "mouseWheel", point, budget, deltaX=delta_x, deltaY=delta_y)


async def drag(tab: Tab, start: Point, end: Point, budget: Budget) -> bool:
    """Drag with real mouse events; HTML5 drag-and-drop is carried through
    ``Input.setInterceptDrags`` + ``Input.dispatchDragEvent``. Returns True when the
    page started an HTML5 drag."""
    main = tab.frames.main_session
    await main.send("Input.setInterceptDrags", {"enabled": True}, budget=budget)
    try:
        with main.event_queue(["Input.dragIntercepted"]) as intercepted:
            await _mouse(tab, "mouseMoved", start, budget)
            await _mouse(tab, "mousePressed", start, budget, button="left", buttons=1, clickCount=1)
            middle = Point((start.x + end.x) / 2, (start.y + end.y) / 2)
            await _mouse(tab, "mouseMoved", middle, budget, button="left", buttons=1)
            await _mouse(tab, "mouseMoved", end, budget, button="left", buttons=1)
            data = await _drag_data(intercepted, budget)
            if data is not None:
                for kind in ("dragEnter", "dragOver", "drop"):
                    await main.send(
                        "Input.dispatchDragEvent",
                        {"type": kind, "x": end.x, "y": end.y, "data": data},
                        budget=budget,
                    )
            await _mouse(tab, "mouseReleased", end, budget, button="left", buttons=0, clickCount=1)
            return data is not None
    finally:
        await main.send("Input.setInterceptDrags", {"enabled": False}, budget=budget)


# ---- private ------------------------------------------------------------------------


async def _drag_data(intercepted: Any, budget: Budget) -> dict[str, Any] | None:
    """The drag data if the page started an HTML5 drag (it is reported at once)."""
    try:
        event: Event = await intercepted.get(budget.child(0.25), what="waiting for a drag")
    except DeadlineExceeded:
        return None
    data: dict[str, Any] = event.params["data"]
    return data


async def _in_order(sends: list[Coroutine[Any, Any, None]]) -> None:
    """Run the sends concurrently (each is written to the socket in this order) and
    raise the first failure, after all have finished."""
    results = await asyncio.gather(*sends, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


async def _mouse(tab: Tab, kind: str, point: Point, budget: Budget, **params: Any) -> None:
    await tab.frames.main_session.send(
        "Input.dispatchMouseEvent",
        {"type": kind, "x": point.x, "y": point.y, **params},
        budget=budget,
    )


async def _quad_center(element: Element, budget: Budget) -> Point | None:
    try:
        reply = await element.session.send(
            "DOM.getContentQuads", {"backendNodeId": element.backend_node_id}, budget=budget
        )
    except CDPError:
        return None
    for quad in reply.get("quads", []):
        xs, ys = quad[0::2], quad[1::2]
        if max(xs) - min(xs) >= 1 and max(ys) - min(ys) >= 1:
            return Point(sum(xs) / 4, sum(ys) / 4)
    return None


async def _stable_center(element: Element, budget: Budget) -> Point:
    """The centre once positions a frame apart agree (the element is not moving)."""
    previous = await _quad_center(element, budget)
    for _ in range(_STABLE_TRIES):
        if previous is None:
            raise _hidden(element)
        with contextlib.suppress(DeadlineExceeded):
            await call_on(
                element.session,
                element.object_id,
                _NEXT_FRAME,
                budget.child(_FRAMES_WAIT_S),
                await_promise=True,
            )
        current = await _quad_center(element, budget)
        if current == previous:
            return current
        previous = current
    raise NotActionable(
        f"{element.label} keeps moving (animated)",
        ref=element.ref or "",
        reason="unstable",
        hint="wait for the animation to end, then retry",
    )


async def _hit_test(element: Element, point: Point, budget: Budget) -> str | None:
    """None when the element (or something inside it) is topmost at ``point``; else what is."""
    session = element.session
    try:
        hit = await session.send(
            "DOM.getNodeForLocation",
            {"x": round(point.x), "y": round(point.y), "ignorePointerEventsNone": True},
            budget=budget,
        )
    except CDPError:
        return None  # nothing there to hit-test against: let the click decide
    if hit.get("backendNodeId") == element.backend_node_id:
        return None
    params: dict[str, Any] = {
        "backendNodeId": hit["backendNodeId"],
        "objectGroup": element.object_group,
    }
    if element.context_id is not None:
        params["executionContextId"] = element.context_id
    resolved = await session.send("DOM.resolveNode", params, budget=budget)
    other = resolved["object"]["objectId"]
    if await call_on(session, element.object_id, _CONTAINS, budget, {"objectId": other}):
        return None
    if await call_on(session, other, _CONTAINS, budget, {"objectId": element.object_id}):
        return None  # a label or wrapper that forwards the click
    description: str = await call_on(session, other, _DESCRIBE, budget) or "another element"
    return description


async def frame_offset(tab: Tab, frame_id: str, budget: Budget) -> tuple[float, float]:
    """How far the local root viewport of ``frame_id`` sits from the top viewport."""
    registry = tab.frames
    dx = dy = 0.0
    frame = registry.get(frame_id)
    while frame is not None and frame.parent_id:
        if frame.is_oopif:
            parent = registry.session_for(frame.parent_id)
            owner = await parent.send(
                "DOM.getFrameOwner", {"frameId": frame.frame_id}, budget=budget
            )
            box = await parent.send(
                "DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]}, budget=budget
            )
            content = box["model"]["content"]
            dx += content[0]
            dy += content[1]
        frame = registry.get(frame.parent_id)
    return dx, dy


def _hidden(element: Element) -> NotActionable:
    return NotActionable(
        f"{element.label} is not visible (hidden, collapsed or zero-size)",
        ref=element.ref or "",
        reason="hidden",
        hint="take a snapshot: open or expand what holds it, or scroll to it, then retry",
    )
