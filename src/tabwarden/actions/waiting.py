"""Waiting for a condition on a page: text, an element's visibility, a load state, a time.

Text is looked for in every frame of the tab (same-origin and cross-origin iframes
alike) and in open shadow roots, in tabwarden's isolated world of each frame, as the
page renders it (``innerText``: CSS ``text-transform`` applied) and as the snapshot
shows it (the text of shown elements); matching is textmatch.py's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..budget import Budget
from ..errors import (
    BiDiTimeout,
    CDPError,
    CDPTimeout,
    DeadlineExceeded,
    InvalidArgument,
    StaleRefError,
)
from ..frames import FrameInfo
from ..snapshot.walker import world
from ..textmatch import NORMALISE_JS, TextPattern, text_pattern
from .pointer import visible
from .resolve import resolve

if TYPE_CHECKING:
    from ..frames import FrameRegistry
    from ..page import Page

__all__ = [
    "FIND_TEXT_JS",
    "LOAD_STATES",
    "READY_STATES",
    "WaitGoal",
    "pause",
    "poll",
    "wait_for",
    "wait_goal",
]

logger = logging.getLogger("tabwarden.actions")

_POLL_S = 0.05
LOAD_STATES = ("domcontentloaded", "load", "networkidle")
READY_STATES = {"domcontentloaded": ("interactive", "complete"), "load": ("complete",)}
_LOAD_HINTS = {
    "domcontentloaded": "the page's HTML has not finished arriving: check browser_network "
    "for a slow document or script, or retry with a larger timeout_ms",
    "load": "something on the page (an image, a script, an iframe) is still loading: wait "
    "for load_state='domcontentloaded', or for the text or element you need",
    "networkidle": "the page keeps making requests (polling, analytics, a live feed): wait "
    "for the text or element you need instead",
}


async def wait_for(
    tab: Page,
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
    """Poll (with the call's deadline) until the one condition given holds."""
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
        return await _holds(tab, budget, goal.pattern, text is not None, ref, state, load_state)

    return await poll(budget, goal, holds)


def wait_goal(
    budget: Budget,
    *,
    text: str | None,
    text_gone: str | None,
    exact: bool,
    ref: str | None,
    state: str,
    load_state: str | None,
    time_ms: float | None,
) -> WaitGoal:
    """What a wait call waits for, its arguments checked (``InvalidArgument``) before
    anything is sent (on any engine)."""
    given = [x is not None for x in (text, text_gone, ref, load_state, time_ms)]
    if sum(given) != 1:
        raise InvalidArgument(
            "wait needs exactly one of text, text_gone, ref, load_state, time_ms",
            hint='e.g. wait(text="Saved") or wait(ref="e7", state="hidden")',
        )
    if exact and text is None and text_gone is None:
        raise InvalidArgument(
            "exact applies to text and text_gone only", hint="drop exact, or wait for text"
        )
    if time_ms is not None and not 0 <= time_ms <= budget.remaining() * 1000:
        raise InvalidArgument(
            f"time_ms={time_ms} does not fit in the call's timeout",
            hint="use a smaller time_ms or a larger timeout_ms",
        )
    if ref is not None and state not in ("visible", "hidden"):
        raise InvalidArgument(f"state={state!r} is not valid", hint="use 'visible' or 'hidden'")
    if load_state is not None and load_state not in LOAD_STATES:
        raise InvalidArgument(
            f"load_state={load_state!r} is not valid", hint=f"use one of {', '.join(LOAD_STATES)}"
        )
    pattern = None
    if text is not None:
        pattern = text_pattern(text, exact=exact, name="text")
    elif text_gone is not None:
        pattern = text_pattern(text_gone, exact=exact, name="text_gone")
    return WaitGoal(text, text_gone, exact, ref, state, load_state, pattern)


async def pause(budget: Budget, time_ms: float) -> str:
    """``wait(time_ms=…)``: the pause the caller asked for."""
    await budget.sleep(time_ms / 1000)
    return f"waited {time_ms:.0f} ms"


async def poll(budget: Budget, goal: WaitGoal, holds: Callable[[], Awaitable[bool]]) -> str:
    """Check ``holds`` until it is true (what was waited for happened, and when) or the
    deadline passes (``DeadlineExceeded`` saying what did not happen)."""
    started = time.monotonic()
    while True:
        checked = time.monotonic()
        try:
            if await holds():
                return f"{goal.done} after {(time.monotonic() - started) * 1000:.0f} ms"
        except (CDPTimeout, BiDiTimeout):
            # The deadline passed during a check: the answer is "not in time".
            raise goal.missed(budget, " (a check was still running at the deadline)") from None
        except DeadlineExceeded:
            if not budget.expired:
                raise
            # It passed before the check could be sent (a loaded machine oversleeps).
            raise goal.missed(budget, "") from None
        if budget.remaining() <= _POLL_S:
            raise goal.missed(budget, "")
        # A check that costs the page much (a huge page) is spaced out: the page keeps
        # about two thirds of its time for what is waited for.
        pause = max(_POLL_S, 2 * (time.monotonic() - checked))
        await budget.sleep(min(pause, budget.remaining() - _POLL_S))


class WaitGoal:
    """What is waited for, in words: when it happened, and when it did not in time."""

    def __init__(
        self,
        text: str | None,
        text_gone: str | None,
        exact: bool,
        ref: str | None,
        state: str,
        load_state: str | None,
        pattern: TextPattern | None = None,
    ) -> None:
        self.pattern = pattern
        """The text to find (text or text_gone), checked."""
        how = " (exact)" if exact else ""
        self.hint = "take a snapshot to see the page; retry with a larger timeout_ms"
        if text is not None:
            self.want = f"text {text!r}{how} to appear"
            self.done = f"text {text!r}{how} appeared"
            self.outcome = "it did not"
            if exact:
                self.hint = (
                    "exact=true wants all of one element's text, case and all: take a "
                    "snapshot to see the text, or drop exact to match part of it"
                )
        elif text_gone is not None:
            self.want = f"text {text_gone!r}{how} to disappear"
            self.done = f"text {text_gone!r}{how} disappeared"
            self.outcome = "it is still there"
        elif ref is not None:
            self.want = f"{ref} to become {state}"
            self.done = f"{ref} became {state}"
            self.outcome = f"it is still {'hidden' if state == 'visible' else 'visible'}"
        elif load_state is not None:
            self.want = f"the page to reach {load_state}"
            self.done = f"the page reached {load_state}"
            self.outcome = "it did not"
            self.hint = _LOAD_HINTS[load_state]
        else:  # a pause (time_ms): it cannot be missed
            self.want = self.done = "a pause"
            self.outcome = ""

    def missed(self, budget: Budget, detail: str) -> DeadlineExceeded:
        return DeadlineExceeded(
            f"waited {budget.timeout_s * 1000:.0f} ms for {self.want}; {self.outcome}{detail}",
            hint=self.hint,
        )


async def _holds(
    tab: Page,
    budget: Budget,
    pattern: TextPattern | None,
    appear: bool,
    ref: str | None,
    state: str,
    load_state: str | None,
) -> bool:
    if pattern is not None:
        found = await _text_shown(tab.frames, pattern, budget)
        return found if appear else not found
    if ref is not None:
        try:
            element = await resolve(tab, ref, budget)
        except StaleRefError:
            return state == "hidden"  # removed counts as hidden
        shown = await visible(element, budget)
        return shown if state == "visible" else not shown
    assert load_state is not None
    if load_state == "networkidle":
        return tab.network_idle()
    reply = await tab.frames.main_session.send(
        "Runtime.evaluate",
        {"expression": "document.readyState", "returnByValue": True},
        budget=budget,
    )
    return reply.get("result", {}).get("value") in READY_STATES[load_state]


async def _text_shown(registry: FrameRegistry, pattern: TextPattern, budget: Budget) -> bool:
    """Whether any frame of the tab shows the text (all frames checked at once)."""
    frames = registry.frames()
    results = await asyncio.gather(
        *(_text_in_frame(registry, frame, pattern, budget) for frame in frames),
        return_exceptions=True,
    )
    for frame, result in zip(frames, results, strict=True):
        if isinstance(result, BaseException):
            if not isinstance(result, CDPError):  # timeouts and bad patterns are real
                raise result
            # A frame that went away (or has no document yet) shows nothing.
            logger.debug("wait: frame %s could not be read: %s", frame.frame_id, result)
        elif result:
            return True
    return False


async def _text_in_frame(
    registry: FrameRegistry, frame: FrameInfo, pattern: TextPattern, budget: Budget
) -> bool:
    session = registry.session_for(frame.frame_id)
    for attempt in range(2):
        # tabwarden's isolated world: page script cannot change what the check reads.
        context = await world(registry, frame.frame_id, budget)
        try:
            reply = await session.send(
                "Runtime.callFunctionOn",
                {
                    "functionDeclaration": FIND_TEXT_JS,
                    "executionContextId": context,
                    "arguments": [{"value": pattern.spec()}],
                    "returnByValue": True,
                },
                budget=budget,
            )
        except CDPError:
            registry.forget_world(frame.frame_id)  # a context that died unseen
            if attempt:
                raise
            continue
        if "exceptionDetails" in reply:
            raise CDPError(
                "Runtime.callFunctionOn", -1, str(reply["exceptionDetails"].get("text", ""))
            )
        value: dict[str, Any] = reply.get("result", {}).get("value") or {}
        if "error" in value:
            raise InvalidArgument(
                f"{pattern.name}=/{pattern.text}/ is not a valid regular expression: "
                f"{value['error']}",
                hint="fix the pattern (JavaScript syntax), or pass plain text without slashes",
            )
        return bool(value.get("found"))
    return False


FIND_TEXT_JS = (
    """function (spec) {"""
    + NORMALISE_JS
    + r"""
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TEXTAREA"]);
  const shownMemo = new Map();
  const isShown = (el) => {
    let shown = shownMemo.get(el);
    if (shown === undefined) {
      shown = el.checkVisibility
        ? el.checkVisibility({ visibilityProperty: true })
        : el.getClientRects().length > 0;
      shownMemo.set(el, shown);
    }
    return shown;
  };
  // What an element renders (SVG elements have no innerText).
  const renders = (el) => (isShown(el) && typeof el.innerText === "string" ? el.innerText : "");
  const body = document.body || document.documentElement;
  if (!body) return { found: false };
  let test = null;
  if (spec.regex) {
    let pattern;
    try {
      pattern = new RegExp(spec.text, spec.exact ? "" : "i");
    } catch (error) {
      return { error: String(error.message || error) };
    }
    test = (text) => pattern.test(twCollapse(text));
  } else if (!spec.exact) {
    const needle = twFold(spec.text);
    test = (text) => twFold(twCollapse(text)).includes(needle);
  }

  // As rendered (innerText: text-transform applied, hidden parts left out), open shadow
  // trees included (innerText does not enter them).
  const rendered = [];
  const inShadows = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el; el = walker.nextNode()) {
      if (!el.shadowRoot) continue;
      for (const child of el.shadowRoot.children) rendered.push(renders(child));
      inShadows(el.shadowRoot);
    }
  };
  rendered.push(renders(body));
  inShadows(body);
  if (test && rendered.some(test)) return { found: true };
  if (!spec.regex) {
    // As the snapshot shows it, the text differs only in spaces (one around each
    // element): every word of it must show as rendered first, which is cheap to check.
    const folded = rendered.map((text) => twFold(twCollapse(text)));
    const words = twFold(spec.text).split(" ");
    if (!words.every((word) => folded.some((text) => text.includes(word)))) {
      return { found: false };
    }
  }

  // The text of a subtree as the snapshot reads it: the text nodes of shown elements,
  // a space around each element, a shadow host's shadow tree (then its light children,
  // shown through its slots). With a ``cap`` (exact), each element's text, collapsed,
  // goes to ``each``, and a text longer than ``cap`` is null: neither it nor any
  // ancestor's can equal what is wanted.
  function gather(node, cap, each) {
    let out = "";
    let over = false;
    const add = (parent) => {
      for (let child = parent.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === 3) {
          const owner = child.parentElement || parent.host;
          if (!over && owner && isShown(owner)) out += child.data;
        } else if (child.nodeType === 1 && !SKIP.has(child.tagName)) {
          const inner = gather(child, cap, each);
          if (inner === null) over = true;
          else if (!over) out += " " + inner + " ";
        }
        if (!over && out.length > cap) {
          out = twCollapse(out);
          over = out.length > cap;
        }
      }
    };
    if (node.shadowRoot) add(node.shadowRoot);
    add(node);
    if (over) return null;
    if (!each) return out;
    out = twCollapse(out);
    each(node, out);
    return out;
  }

  if (test) return { found: test(gather(body, Infinity, null)) };
  // exact: some element's whole text, as the snapshot shows it or as rendered.
  const key = (text) => twFold(text).replace(/ /g, "");
  const wanted = key(spec.text);
  let found = false;
  gather(body, 2 * wanted.length + 2, (el, text) => {
    if (found || key(text) !== wanted) return;
    found = text === spec.text || twCollapse(renders(el)) === spec.text;
  });
  return { found };
}"""
)
