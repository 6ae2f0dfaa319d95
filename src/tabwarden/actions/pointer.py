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
from typing import TYPE_CHECKING, Any, Literal

from ..activity import note_pointer
from ..budget import Budget
from ..cdp.protocol import Event
from ..cdp.session import CDPSession
from ..errors import CDPError, DeadlineExceeded, InvalidArgument, NotActionable
from ..snapshot.walker import world
from .keyboard import MODIFIER_BITS
from .resolve import Element, call_on, resolve_with

if TYPE_CHECKING:
    from ..page import Page

__all__ = [
    "BUTTONS",
    "Point",
    "actionable_point",
    "check_click",
    "click",
    "drag",
    "frame_offset",
    "hover",
    "locate",
    "modifier_bits",
    "modifier_names",
    "visible",
    "wheel",
]

BUTTONS = {"left": 1, "right": 2, "middle": 4}
_STABLE_TRIES = 20

_NEXT_FRAME = """function() {
  return new Promise(r => requestAnimationFrame(() => r(true)));
}"""
# A page that renders no frames (a background tab) cannot be animating on screen:
# past this, the stability check compares positions without waiting for frames.
_FRAMES_WAIT_S = 0.15

_CONTAINS_JS = """function contains(holder, other) {
  let node = other;
  while (node) {
    if (node === holder) return true;
    node = node.parentNode || (node instanceof ShadowRoot ? node.host : null);
  }
  return false;
}"""
_DESCRIBE_JS = """function describe(node) {
  const el = node.nodeType === 1 ? node : node.parentElement;
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
_OUT_OF_VIEW_JS = """function outOfView(el) {
  // Not wholly inside the viewport, or clipped by a scrolling ancestor.
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return true;
  let node = el.parentElement || (el.parentNode instanceof ShadowRoot ? el.parentNode.host : null);
  while (node && node !== document.documentElement && node !== document.body) {
    const style = getComputedStyle(node);
    if (style.overflowX !== 'visible' || style.overflowY !== 'visible') {
      const box = node.getBoundingClientRect();
      if (r.top < box.top || r.left < box.left || r.bottom > box.bottom || r.right > box.right) {
        return true;
      }
    }
    node = node.parentElement
      || (node.parentNode instanceof ShadowRoot ? node.parentNode.host : null);
  }
  return false;
}"""
_HIT_TEST_JS = """function hitTest(el) {
  // Where the pointer goes in this document (the centre of the first box at least a
  // pixel wide and high, as DOM.getContentQuads gives them) and what is topmost there.
  let point = null;
  for (const r of el.getClientRects()) {
    if (r.width >= 1 && r.height >= 1) {
      point = [r.left + r.width / 2, r.top + r.height / 2];
      break;
    }
  }
  if (!point) return {point};
  if (point[0] < 0 || point[1] < 0 || point[0] >= innerWidth || point[1] >= innerHeight) {
    return {point, offscreen: true};
  }
  const root = el.getRootNode();
  const hit = (root.elementFromPoint ? root : document).elementFromPoint(point[0], point[1]);
  return {point, cover: !hit || contains(el, hit) || contains(hit, el) ? '' : describe(hit)};
}"""
_HELPERS_JS = "\n".join((_OUT_OF_VIEW_JS, _HIT_TEST_JS, _CONTAINS_JS, _DESCRIBE_JS))
_COVER_OF = (
    "function(hit) { return contains(this, hit) || contains(hit, this) ? '' : describe(hit); "
    + _CONTAINS_JS
    + "\n"
    + _DESCRIBE_JS
    + " }"
)
"""On the element, with what a hit test found: "" when that is the element, inside it,
or a wrapper (a label) that forwards the click; else how to name the cover."""
_COVER_AT = (
    "function(x, y) { const hit = document.elementFromPoint(x, y);"
    " return !hit || hit === this ? '' : describe(hit); " + _DESCRIBE_JS + " }"
)
"""On a frame's <iframe>: what the page's hit test finds over it at a viewport point, ""
when it is the frame (DOM.getNodeForLocation reports a pseudo-element there even when
its pointer-events are none, as TinyMCE's focus ring over its editor frame is)."""
_HIT_TEST = "function() { return hitTest(this); " + _HELPERS_JS + " }"

_STATE = (
    """function(scroll, withHitTest) {
  // Scrolled here rather than by DOM.scrollIntoViewIfNeeded: one round trip less (this
  // runs in tabwarden's world, so the page cannot have replaced the method). At once,
  // whatever the page's scroll-behavior: a smooth scroll would still be under way
  // when the pointer goes down.
  if (scroll && outOfView(this)) {
    this.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  }
  const style = getComputedStyle(this);
  const visible = this.checkVisibility
    ? this.checkVisibility({visibilityProperty: true})
    : style.visibility !== 'hidden' && style.display !== 'none';
  const disabled = this.disabled === true
    || this.getAttribute('aria-disabled') === 'true'
    || !!(this.closest && this.closest('fieldset[disabled]') && this.tagName !== 'LEGEND');
  // Stable without waiting for frames: where snapshots have seen it since at least a
  // frame ago (in document coordinates), it still is.
  let stable = false;
  const walker = globalThis.__tabwardenWalker;
  const seen = walker && walker.rects && walker.rects.get(this);
  if (seen && performance.now() - seen[4] >= 16) {
    const r = this.getBoundingClientRect();
    stable = r.left + scrollX === seen[0] && r.top + scrollY === seen[1]
      && r.width === seen[2] && r.height === seen[3];
  }
  // The document's scroll: DOM.getNodeForLocation takes document coordinates.
  const state = {visible, disabled, stable, scroll: [scrollX, scrollY]};
  return withHitTest && visible && stable ? Object.assign(state, hitTest(this)) : state;
"""
    + _HELPERS_JS
    + "\n}"
)


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float


def modifier_bits(modifiers: list[str] | tuple[str, ...] | None) -> int:
    bits = 0
    for name in modifier_names(modifiers):
        bits |= MODIFIER_BITS[name]
    return bits


def modifier_names(modifiers: list[str] | tuple[str, ...] | None) -> list[str]:
    """The modifier keys named (``ctrl``, ``cmd``… allowed) as Alt, Control, Meta, Shift."""
    names = []
    for name in modifiers or ():
        canonical = {"ctrl": "Control", "cmd": "Meta", "command": "Meta", "option": "Alt"}.get(
            name.lower(), name.capitalize() if name.islower() else name
        )
        if canonical not in MODIFIER_BITS:
            raise InvalidArgument(
                f"{name!r} is not a modifier key", hint="use Alt, Control, Meta or Shift"
            )
        names.append(canonical)
    return names


def check_click(button: str, click_count: int) -> None:
    """``InvalidArgument`` for a button or a click count a click does not take."""
    if button not in BUTTONS:
        raise InvalidArgument(
            f"button={button!r} is not a mouse button", hint="left, right, middle"
        )
    if not 1 <= click_count <= 3:
        raise InvalidArgument(f"click_count={click_count} is out of range", hint="use 1, 2 or 3")


@dataclass(frozen=True, slots=True)
class _Look:
    """An element's state (after scrolling it into view) and its centre, read together:
    a session answers in order, so the centre is where the state's scroll left it."""

    state: dict[str, Any] | None
    """visible, disabled, stable, the document's scroll; for a stable element in
    tabwarden's world also ``point``, ``cover`` and ``offscreen``, hit-tested in its
    own document."""
    center: Point | None = None
    """Its centre from DOM.getContentQuads (where the pointer goes), unless the
    state's point is that already (an element of the top-level document)."""


async def _look(
    session: CDPSession,
    object_id: str,
    budget: Budget,
    *,
    in_world: bool,
    top_document: bool,
) -> _Look:
    state_call = call_on(session, object_id, _STATE, budget, in_world, in_world)
    if in_world and top_document:
        return _Look(await state_call)
    state, center = await asyncio.gather(state_call, _quad_center(session, object_id, budget))
    return _Look(state, center)


async def locate(
    tab: Page,
    target: str,
    budget: Budget,
    *,
    need_enabled: bool = True,
    need_topmost: bool = True,
) -> tuple[Element, Point]:
    """The element a ref or selector names, and where to put the pointer for it (see
    ``actionable_point``), its checks read with the same round trip that finds it."""

    async def probe(session: CDPSession, object_id: str, frame_id: str) -> _Look:
        return await _look(
            session, object_id, budget, in_world=True, top_document=frame_id == tab.target_id
        )

    element, look = await resolve_with(tab, target, budget, probe)
    point = await actionable_point(
        tab, element, budget, need_enabled=need_enabled, need_topmost=need_topmost, look=look
    )
    return element, point


async def actionable_point(
    tab: Page,
    element: Element,
    budget: Budget,
    *,
    need_enabled: bool = True,
    need_topmost: bool = True,
    look: _Look | None = None,
) -> Point:
    """Where to put the pointer for ``element``, in top-viewport CSS pixels, once it is
    scrolled into view, visible, enabled, not moving, and the topmost thing there.
    ``need_topmost=False``: covered is fine (to look at it, not to act on it).
    ``look``: its state and centre, when they were read already (by ``locate``)."""
    session = element.session
    # In tabwarden's world the page's script cannot have replaced what the checks use
    # (scrollIntoView, elementFromPoint); an element found by selector is in the page's.
    in_world = element.context_id is not None
    top_document = element.frame_id == tab.target_id
    if look is None:
        if not in_world:
            try:
                await session.send(
                    "DOM.scrollIntoViewIfNeeded",
                    {"backendNodeId": element.backend_node_id},
                    budget=budget,
                )
            except CDPError:
                raise _hidden(element) from None
        look = await _look(
            session, element.object_id, budget, in_world=in_world, top_document=top_document
        )
    state = look.state
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
        hit = state  # hit-tested with the state (stable elements are in tabwarden's world)
        center = look.center
    else:
        center = await _stable_center(element, budget)
        if in_world:
            hit = await call_on(session, element.object_id, _HIT_TEST, budget)
        else:
            scroll_x, scroll_y = state.get("scroll") or (0, 0)
            hit = await _hit_test(element, center, (scroll_x, scroll_y), budget)
    if hit.get("offscreen"):
        raise _offscreen(element)
    if in_world and top_document:
        center = Point(*hit["point"]) if hit.get("point") else None
    if center is None:
        raise _hidden(element)
    cover = hit.get("cover")
    if cover and need_topmost:
        raise _covered(element, cover, center)
    dx, dy = await frame_offset(tab, element.frame_id, budget)
    point = Point(center.x + dx, center.y + dy)
    if need_topmost and not top_document:
        cover = await _cover_over_frame(tab, element, point, budget)
        if cover:
            raise _covered(element, cover, point, frame=True)
    return point


async def _cover_over_frame(tab: Page, element: Element, point: Point, budget: Budget) -> str:
    """What of the top-level document lies over the frame holding ``element`` at
    ``point`` (top-viewport coordinates), or "" when the frame is what is there."""
    registry = tab.frames
    chain: list[str] = []  # the element's frame and its ancestors below the top
    frame = registry.get(element.frame_id)
    while frame is not None and frame.parent_id:
        chain.append(frame.frame_id)
        frame = registry.get(frame.parent_id)
    if not chain:
        return ""
    main = registry.main_session
    metrics, owner = await asyncio.gather(
        main.send("Page.getLayoutMetrics", budget=budget),
        main.send("DOM.getFrameOwner", {"frameId": chain[-1]}, budget=budget),
    )
    viewport = metrics["cssLayoutViewport"]
    try:
        hit = await main.send(
            "DOM.getNodeForLocation",
            {
                "x": round(point.x + viewport["pageX"]),
                "y": round(point.y + viewport["pageY"]),
                "ignorePointerEventsNone": True,
            },
            budget=budget,
        )
    except CDPError as exc:
        if "No node found" in str(exc):
            raise _offscreen(element) from None
        return ""
    if hit.get("frameId") in chain:  # into the frame (same process): checked inside it
        return ""
    if hit.get("frameId") != tab.target_id:
        return "another frame"
    if hit.get("backendNodeId") == owner.get("backendNodeId"):
        return ""  # the <iframe> itself (its content runs in another process)
    resolved = await main.send(
        "DOM.resolveNode",
        {
            "backendNodeId": owner["backendNodeId"],
            "executionContextId": await world(registry, tab.target_id, budget),
            "objectGroup": element.object_group,
        },
        budget=budget,
    )
    description: str = await call_on(
        main, resolved["object"]["objectId"], _COVER_AT, budget, point.x, point.y
    )
    return description


async def visible(element: Element, budget: Budget) -> bool:
    """Rendered and not hidden by CSS (it may still be scrolled out of view)."""
    state = await call_on(element.session, element.object_id, _STATE, budget, False)
    return bool(state and state.get("visible"))


async def click(
    tab: Page,
    point: Point,
    budget: Budget,
    *,
    button: str = "left",
    click_count: int = 1,
    modifiers: int = 0,
) -> None:
    check_click(button, click_count)
    # Sent at once, answered in order: the renderer dispatches the move (which would
    # otherwise wait for the next frame) before the press that follows it.
    events = [_mouse(tab, "mouseMoved", point, budget, modifiers=modifiers)]
    for count in range(1, click_count + 1):
        common = {"button": button, "clickCount": count, "modifiers": modifiers}
        events.append(_mouse(tab, "mousePressed", point, budget, buttons=BUTTONS[button], **common))
        events.append(_mouse(tab, "mouseReleased", point, budget, buttons=0, **common))
    await _in_order(events)


async def hover(tab: Page, point: Point, budget: Budget) -> None:
    await _mouse(tab, "mouseMoved", point, budget)


async def wheel(tab: Page, point: Point, delta_x: float, delta_y: float, budget: Budget) -> None:
    await _mouse(tab, "mouseWheel", point, budget, deltaX=delta_x, deltaY=delta_y)


async def drag(tab: Page, start: Point, end: Point, budget: Budget) -> bool:
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


_MARKS: dict[str, Literal["move", "press", "wheel"]] = {
    "mouseMoved": "move",
    "mousePressed": "press",
    "mouseWheel": "wheel",
}


async def _mouse(tab: Page, kind: str, point: Point, budget: Budget, **params: Any) -> None:
    mark = _MARKS.get(kind)
    if mark is not None:
        note_pointer(mark, point.x, point.y)
    await tab.frames.main_session.send(
        "Input.dispatchMouseEvent",
        {"type": kind, "x": point.x, "y": point.y, **params},
        budget=budget,
    )


async def _quad_center(session: CDPSession, object_id: str, budget: Budget) -> Point | None:
    try:
        reply = await session.send("DOM.getContentQuads", {"objectId": object_id}, budget=budget)
    except CDPError:
        return None
    for quad in reply.get("quads", []):
        xs, ys = quad[0::2], quad[1::2]
        if max(xs) - min(xs) >= 1 and max(ys) - min(ys) >= 1:
            return Point(sum(xs) / 4, sum(ys) / 4)
    return None


async def _stable_center(element: Element, budget: Budget) -> Point:
    """The centre once positions a frame apart agree (the element is not moving)."""
    previous = await _quad_center(element.session, element.object_id, budget)
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
        current = await _quad_center(element.session, element.object_id, budget)
        if current == previous:
            return current
        previous = current
    raise NotActionable(
        f"{element.label} keeps moving (animated)",
        ref=element.ref or "",
        reason="unstable",
        hint="wait for the animation to end, then retry",
    )


async def _hit_test(
    element: Element, point: Point, scroll: tuple[float, float], budget: Budget
) -> dict[str, Any]:
    """Over CDP, for an element of the page's own world (found by selector): what is
    topmost at ``point`` (viewport coordinates; ``scroll`` is the document's), as the
    page's hit test reports it (``cover`` empty when it is the element or inside it)."""
    session = element.session
    try:
        hit = await session.send(
            "DOM.getNodeForLocation",
            {
                # Document coordinates (viewport ones miss on a scrolled page).
                "x": round(point.x + scroll[0]),
                "y": round(point.y + scroll[1]),
                "ignorePointerEventsNone": True,
            },
            budget=budget,
        )
    except CDPError as exc:
        if "No node found" in str(exc):  # what Chromium says outside the viewport
            return {"offscreen": True}
        return {}  # nothing there to hit-test against: let the click decide
    if hit.get("backendNodeId") == element.backend_node_id:
        return {}
    resolved = await session.send(
        "DOM.resolveNode",
        {"backendNodeId": hit["backendNodeId"], "objectGroup": element.object_group},
        budget=budget,
    )
    other = {"objectId": resolved["object"]["objectId"]}
    return {"cover": await call_on(session, element.object_id, _COVER_OF, budget, other)}


async def frame_offset(tab: Page, frame_id: str, budget: Budget) -> tuple[float, float]:
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


def _covered(element: Element, cover: str, at: Point, *, frame: bool = False) -> NotActionable:
    """``frame``: the cover lies over the frame that holds the element."""
    what = "the frame" if frame else "it"
    return NotActionable(
        f"{element.label}{' is in a frame that' if frame else ''} is covered by {cover} "
        f"at ({at.x:.0f}, {at.y:.0f})",
        ref=element.ref or "",
        reason="covered",
        hint=f"close or dismiss what covers {what} first (e.g. the dialog's close or accept "
        "button), or wait for it to go away; take a snapshot to see it",
    )


def _offscreen(element: Element) -> NotActionable:
    return NotActionable(
        f"{element.label} stays outside the viewport after scrolling",
        ref=element.ref or "",
        reason="offscreen",
        hint="it may sit in a part of the page that does not scroll (position: fixed, "
        "overflow: hidden); take a snapshot and act on what reveals it",
    )


def _hidden(element: Element) -> NotActionable:
    return NotActionable(
        f"{element.label} is not visible (hidden, collapsed or zero-size)",
        ref=element.ref or "",
        reason="hidden",
        hint="take a snapshot: open or expand what holds it, or scroll to it, then retry",
    )
