"""Scrolling a page or an element with the mouse wheel, or an element into view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..budget import Budget
from ..errors import InvalidArgument
from . import forms, pointer
from .resolve import resolve

if TYPE_CHECKING:
    from ..page import Page

__all__ = ["DIRECTIONS", "check_direction", "scroll", "scroll_delta"]

DIRECTIONS = (None, "up", "down", "left", "right")
_SETTLE_S = 1.0
"""How long a wheel scroll may take to land (it lands a frame later)."""
_POLL_S = 0.02


def check_direction(direction: str | None) -> None:
    if direction not in DIRECTIONS:
        raise InvalidArgument(
            f"direction={direction!r} is not a direction", hint="up, down, left or right"
        )


async def scroll(
    page: Page, ref: str | None, direction: str | None, amount: float | None, budget: Budget
) -> tuple[str | None, str]:
    """Scroll the page (``ref`` None) or an element by ``amount`` CSS px (default most of
    a screen); ``direction=None`` with a ref scrolls it into view. Returns the label of
    what scrolled and where it got to."""
    if ref is None:
        session = page.frames.main_session
        reply = await session.send("Runtime.evaluate", {"expression": "document"}, budget=budget)
        object_id, label = reply["result"]["objectId"], None
        metrics = await session.send("Page.getLayoutMetrics", budget=budget)
        viewport = metrics["cssLayoutViewport"]
        point = pointer.Point(viewport["clientWidth"] / 2, viewport["clientHeight"] / 2)
        size = (viewport["clientWidth"], viewport["clientHeight"])
    else:
        element = await resolve(page, ref, budget)
        session, object_id, label = element.session, element.object_id, element.label
        # Into view only: what lies over it does not matter; a wheel goes to the top.
        point = await pointer.actionable_point(
            page, element, budget, need_enabled=False, need_topmost=direction is not None
        )
        if direction is None:
            return label, "scrolled into view"
        size = (400.0, 400.0)
    if direction is None:
        raise InvalidArgument("direction=None needs a ref to scroll into view")
    before = await forms.scroll_position(session, object_id, budget)
    dx, dy = scroll_delta(direction, amount, size)
    await pointer.wheel(page, point, dx, dy, budget)
    position = before
    wait = budget.child(_SETTLE_S)
    while position == before and not wait.expired:  # wheel scrolling lands a frame later
        await wait.sleep(_POLL_S)
        position = await forms.scroll_position(session, object_id, budget)
    moved = "" if position != before else " (it did not move: already at the end?)"
    return label, f"scrolled {direction} to x={position['x']:.0f}, y={position['y']:.0f}{moved}"


def scroll_delta(
    direction: str, amount: float | None, size: tuple[float, float]
) -> tuple[float, float]:
    """How far (x, y, CSS px) a scroll goes: ``amount``, else most of ``size`` (the
    viewport's or the element's width and height) in ``direction``."""
    step = (
        amount
        if amount is not None
        else 0.8 * (size[1] if direction in ("up", "down") else size[0])
    )
    return {"up": (0, -step), "down": (0, step), "left": (-step, 0), "right": (step, 0)}[direction]
