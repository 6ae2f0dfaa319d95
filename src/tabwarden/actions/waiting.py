"""Waiting for a condition on a page: text, an element's visibility, a load state, a time."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from ..budget import Budget
from ..errors import CDPTimeout, DeadlineExceeded, InvalidArgument, StaleRefError
from .pointer import visible
from .resolve import resolve

if TYPE_CHECKING:
    from ..tab import Tab

__all__ = ["wait_for"]

_POLL_S = 0.05
_LOAD_STATES = ("domcontentloaded", "load", "networkidle")
_READY = {"domcontentloaded": ("interactive", "complete"), "load": ("complete",)}


async def wait_for(
    tab: Tab,
    budget: Budget,
    *,
    text: str | None = None,
    text_gone: str | None = None,
    ref: str | None = None,
    state: str = "visible",
    load_state: str | None = None,
    time_ms: float | None = None,
) -> str:
    """Poll (with the call's deadline) until the one condition given holds."""
    given = [x is not None for x in (text, text_gone, ref, load_state, time_ms)]
    if sum(given) != 1:
        raise InvalidArgument(
            "wait needs exactly one of text, text_gone, ref, load_state, time_ms",
            hint='e.g. wait(text="Saved") or wait(ref="e7", state="hidden")',
        )
    started = time.monotonic()
    if time_ms is not None:
        if not 0 <= time_ms <= budget.remaining() * 1000:
            raise InvalidArgument(
                f"time_ms={time_ms} does not fit in the call's timeout",
                hint="use a smaller time_ms or a larger timeout_ms",
            )
        await budget.sleep(time_ms / 1000)  # the caller asked for this pause
        return f"waited {time_ms:.0f} ms"
    if ref is not None and state not in ("visible", "hidden"):
        raise InvalidArgument(f"state={state!r} is not valid", hint="use 'visible' or 'hidden'")
    if load_state is not None and load_state not in _LOAD_STATES:
        raise InvalidArgument(
            f"load_state={load_state!r} is not valid", hint=f"use one of {', '.join(_LOAD_STATES)}"
        )
    what = _describe(text, text_gone, ref, state, load_state)
    while True:
        try:
            if await _holds(tab, budget, text, text_gone, ref, state, load_state):
                return f"{what} after {(time.monotonic() - started) * 1000:.0f} ms"
        except CDPTimeout:
            # The deadline passed during a check: the answer is "not in time".
            raise _never(budget, what, " (the page did not answer the last check)") from None
        except DeadlineExceeded:
            if not budget.expired:
                raise
            # It passed before the check could be sent (a loaded machine oversleeps).
            raise _never(budget, what, "") from None
        if budget.remaining() <= _POLL_S:
            raise _never(budget, what, "")
        await budget.sleep(_POLL_S)


def _never(budget: Budget, what: str, detail: str) -> DeadlineExceeded:
    return DeadlineExceeded(
        f"waited {budget.timeout_s * 1000:.0f} ms, but {what} never happened{detail}",
        hint="take a snapshot to see the page; retry with a larger timeout_ms",
    )


async def _holds(
    tab: Tab,
    budget: Budget,
    text: str | None,
    text_gone: str | None,
    ref: str | None,
    state: str,
    load_state: str | None,
) -> bool:
    session = tab.frames.main_session
    if text is not None or text_gone is not None:
        needle = json.dumps(text if text is not None else text_gone)
        reply = await session.send(
            "Runtime.evaluate",
            {
                "expression": f"(document.body?.innerText ?? '').includes({needle})",
                "returnByValue": True,
            },
            budget=budget,
        )
        found = bool(reply.get("result", {}).get("value"))
        return found if text is not None else not found
    if ref is not None:
        try:
            element = await resolve(tab, ref, budget)
        except StaleRefError:
            return state == "hidden"  # removed counts as hidden
        shown = await visible(element, budget)
        return shown if state == "visible" else not shown
    assert load_state is not None
    if load_state == "networkidle":
        return tab._network_idle()
    reply = await session.send(
        "Runtime.evaluate",
        {"expression": "document.readyState", "returnByValue": True},
        budget=budget,
    )
    return reply.get("result", {}).get("value") in _READY[load_state]


def _describe(
    text: str | None, text_gone: str | None, ref: str | None, state: str, load_state: str | None
) -> str:
    if text is not None:
        return f"text {text!r} appeared"
    if text_gone is not None:
        return f"text {text_gone!r} disappeared"
    if ref is not None:
        return f"{ref} became {state}"
    return f"the page reached {load_state}"
