"""Waiting on a Firefox tab: the same conditions, checks and replies as on Chromium
(actions/waiting.py) — text appearing or going in any frame, a ref visible or hidden,
a load state, a time — polled with the call's deadline.

``networkidle`` is ``load`` and then no request of the tab in flight for 500 ms, read
from the tab's network log (BiDi has no network-idle event).
"""

from __future__ import annotations

import contextlib

from ..actions.waiting import FIND_TEXT_JS, READY_STATES, pause, poll, wait_goal
from ..budget import Budget
from ..errors import BiDiError, InvalidArgument, ScriptError, StaleRefError
from ..textmatch import TextPattern
from .calling import InputPage, call_on
from .network_log import NETWORK_IDLE_S
from .values import local_value, remote_value

__all__ = ["wait_for"]

_VISIBLE = """function() {
  return this.checkVisibility
    ? this.checkVisibility({visibilityProperty: true})
    : getComputedStyle(this).visibility !== 'hidden' && this.getClientRects().length > 0;
}"""
_READY = {**READY_STATES, "networkidle": READY_STATES["load"]}


async def wait_for(
    page: InputPage,
    budget: Budget,
    *,
    text: str | None = None,
    text_gone: str | None = None,
    exact: bool = False,
    ref: str | None = None,
    state: str = "visible",
    load_state: str | None = None,
    time_ms: float | None = None,
) -> str:
    """Poll until the one condition given holds; what was waited for, and when."""
    goal = wait_goal(
        budget,
        text=text,
        text_gone=text_gone,
        exact=exact,
        ref=ref,
        state=state,
        load_state=load_state,
        time_ms=time_ms,
    )
    if time_ms is not None:
        return await pause(budget, time_ms)

    async def holds() -> bool:
        if goal.pattern is not None:
            found = await _text_shown(page, goal.pattern, budget)
            return found if text is not None else not found
        if ref is not None:
            shown = await _visible(page, ref, budget)
            return shown if state == "visible" else not shown
        assert load_state is not None
        ready = await page.evaluate_in(page.context, "document.readyState", budget)
        if load_state == "networkidle" and ready in _READY[load_state]:
            return page.network_quiet_s() >= NETWORK_IDLE_S
        return ready in _READY[load_state]

    return await poll(budget, goal, holds)


async def _visible(page: InputPage, ref: str, budget: Budget) -> bool:
    """Whether the element ``ref`` names is shown; a removed one counts as hidden."""
    try:
        context, element = await page.element(ref, budget)
    except StaleRefError:
        return False
    return bool(await call_on(page, context, element, _VISIBLE, budget))


async def _text_shown(page: InputPage, pattern: TextPattern, budget: Budget) -> bool:
    """Whether any frame of the tab shows the text (read in tabwarden's sandbox)."""
    for context in [page.context, *page.frames]:
        value: object = None
        # A frame that went away (or has no document yet) shows nothing.
        with contextlib.suppress(BiDiError, ScriptError):
            value = remote_value(
                await page.call_in(context, FIND_TEXT_JS, [local_value(pattern.spec())], budget)
            )
        if not isinstance(value, dict):
            continue
        if "error" in value:
            raise InvalidArgument(
                f"{pattern.name}=/{pattern.text}/ is not a valid regular expression: "
                f"{value['error']}",
                hint="fix the pattern (JavaScript syntax), or pass plain text without slashes",
            )
        if value.get("found"):
            return True
    return False
