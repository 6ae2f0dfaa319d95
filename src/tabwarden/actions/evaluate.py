"""Evaluate JavaScript on a CDP session of its own, cut off at its deadline.

Evaluation never shares the session actions use (``Target.attachToTarget`` in
flatten mode gives it one), so nothing queues behind a slow script. At the
deadline, or when the caller goes away, a script still running is stopped with
``Runtime.terminateExecution`` and the evaluation session is detached; a
promise that never settles is simply abandoned (terminating then would kill the
page's *next* script instead). A dialog or a crash ends the call at once (the
tab's page call, interrupts.py) and nothing is terminated: a script paused on a
dialog goes on once it is answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..budget import Budget
from ..cdp.session import CDPSession
from ..errors import (
    Cancelled,
    CDPError,
    DeadlineExceeded,
    EvaluateTimeout,
    InvalidArgument,
    ScriptError,
    TabwardenError,
)
from .resolve import resolve

if TYPE_CHECKING:
    from ..metrics import Metrics
    from ..page import Page

__all__ = [
    "SERIALIZE_JS",
    "EvaluateResult",
    "EvaluationSessions",
    "check_evaluate_args",
    "evaluate",
    "is_busy",
]

_GROUP = "tabwarden-evaluate"
_STOP_S = 0.2
"""Budget for probing, terminating and detaching after a deadline (inside the 250 ms margin)."""
_PROBE_S = 0.1
DEFAULT_MAX_CHARS = 20_000

# Turns a result object into something JSON can carry: cycles, DOM nodes and
# functions become short descriptions instead of failing the whole result.
SERIALIZE_JS = """function(maxChars) {
  const seen = new WeakSet();
  const describe = v => {
    if (v instanceof Node) {
      if (v.nodeType !== 1) return '#' + v.nodeName.toLowerCase().replace(/^#/, '');
      let d = v.tagName.toLowerCase();
      if (v.id) d += '#' + v.id;
      else if (v.classList && v.classList.length) d += '.' + [...v.classList].slice(0, 2).join('.');
      return d;
    }
    if (typeof v === 'function') return 'function ' + (v.name || '(anonymous)');
    if (v === window) return 'Window';
    return Object.prototype.toString.call(v);
  };
  let fallbacks = 0;
  const text = JSON.stringify(this, function(key, v) {
    if (typeof v === 'bigint') { fallbacks++; return v.toString() + 'n'; }
    if (typeof v === 'function' || v instanceof Node || v === window) {
      fallbacks++;
      return describe(v);
    }
    if (typeof v === 'number' && !Number.isFinite(v)) { fallbacks++; return String(v); }
    if (v && typeof v === 'object') {
      if (seen.has(v)) { fallbacks++; return '[circular]'; }
      seen.add(v);
    }
    return v;
  });
  if (text === undefined) return {text: JSON.stringify(describe(this)), fallbacks: fallbacks + 1};
  return {text: text.length > maxChars ? text.slice(0, maxChars) : text,
          total: text.length, fallbacks};
}"""


@dataclass(frozen=True, slots=True)
class EvaluateResult:
    value: Any
    """The result as JSON-compatible data (or its description when it has none)."""
    type: str
    """The JavaScript type: number, string, object, undefined…"""
    elapsed_ms: int
    truncated: bool = False
    """The value's JSON was cut at ``max_chars``: ``value`` then holds that text."""
    total_chars: int = 0
    described: bool = False
    """Part of the value could not be serialised and was described instead."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "type": self.type,
            "elapsed_ms": self.elapsed_ms,
            "truncated": self.truncated,
            "total_chars": self.total_chars,
            "described": self.described,
        }


class EvaluationSessions:
    """One evaluation session per target (a page or an OOPIF), made on first use."""

    def __init__(
        self,
        browser_cdp: Callable[[], CDPSession],
        spawn: Callable[[Coroutine[Any, Any, None]], object],
        metrics: Metrics,
    ) -> None:
        self._browser_cdp = browser_cdp
        self.spawn = spawn
        """Runs clean-up in the background, owned by the session."""
        self.metrics = metrics
        self._sessions: dict[str, CDPSession] = {}
        self._lock = asyncio.Lock()

    async def get(self, target_id: str, budget: Budget) -> CDPSession:
        async with self._lock:
            session = self._sessions.get(target_id)
            if session is None or session.connection.closed:
                browser = self._browser_cdp()
                session = await browser.attach(target_id, budget=budget)
                self._sessions[target_id] = session
            return session

    def take(self, target_id: str) -> CDPSession | None:
        """Stop using a session that may be stuck behind a script (the caller detaches it;
        a fresh one is made next time)."""
        return self._sessions.pop(target_id, None)

    def forget(self) -> None:
        self._sessions.clear()


async def evaluate(
    tab: Page,
    sessions: EvaluationSessions,
    budget: Budget,
    *,
    expression: str | None,
    function: str | None,
    ref: str | None,
    frame_id: str | None,
    args: list[Any] | None,
    await_promise: bool,
    max_chars: int,
) -> EvaluateResult:
    check_evaluate_args(expression, function, args, max_chars)
    registry = tab.frames
    frame_id = frame_id or tab.target_id
    frame = registry.get(frame_id)
    if frame is None:
        raise InvalidArgument(
            f"tab {tab.id} has no frame {frame_id!r}", hint="use a frame_id from the frame tree"
        )
    target_id = _target_of(tab, frame_id)
    element = None
    if ref is not None:
        element = await resolve(tab, ref, budget)
        target_id = _target_of(tab, element.frame_id)
    session = await sessions.get(target_id, budget)
    started = time.monotonic()
    metrics = sessions.metrics
    try:
        reply = await _run(
            session,
            budget,
            tab,
            frame_id,
            target_id,
            expression,
            function,
            element,
            args,
            await_promise,
        )
    except (DeadlineExceeded, Cancelled, asyncio.CancelledError) as exc:
        elapsed = int((time.monotonic() - started) * 1000)
        if tab.halted():
            # A dialog paused the script (it goes on once the dialog is answered) or the
            # renderer is gone: there is nothing to stop, and terminating now would kill
            # whatever runs after the dialog. The call says what happened (DialogBlocking,
            # TabCrashed); the evaluation is left to finish on its own.
            _abandon(sessions, target_id)
            metrics.evaluated(elapsed, "interrupted")
            raise
        terminated = await asyncio.shield(_stop(tab, sessions, target_id))
        if terminated:
            metrics.count("evaluate_terminations")
        if isinstance(exc, DeadlineExceeded):
            metrics.evaluated(elapsed, "timeout")
            raise EvaluateTimeout(
                f"the evaluation did not finish within {budget.timeout_s * 1000:.0f} ms "
                + (
                    "(the running script was terminated)"
                    if terminated
                    else "(it was waiting on a promise; nothing was left running)"
                ),
                elapsed_ms=elapsed,
                terminated=terminated,
            ) from None
        metrics.evaluated(elapsed, "cancelled")
        raise
    elapsed = int((time.monotonic() - started) * 1000)
    if "exceptionDetails" in reply:
        metrics.evaluated(elapsed, "error")
        raise _script_error(reply["exceptionDetails"])
    result = await _value(session, reply["result"], elapsed, max_chars, budget)
    if result.described:
        metrics.count("evaluate_fallbacks")
    metrics.evaluated(elapsed, "ok")
    return result


async def is_busy(session: CDPSession, within_s: float = _PROBE_S) -> bool:
    """True when the session's page does not run a trivial script at once (within
    ``within_s``): it is busy."""
    try:
        await session.send(
            "Runtime.evaluate", {"expression": "0", "returnByValue": True}, budget=Budget(within_s)
        )
    except DeadlineExceeded:
        return True
    except TabwardenError:
        return False
    return False


# ---- private ------------------------------------------------------------------------


def check_evaluate_args(
    expression: str | None, function: str | None, args: list[Any] | None, max_chars: int
) -> None:
    if (expression is None) == (function is None):
        raise InvalidArgument(
            "evaluate needs an expression or a function (one of them)",
            hint="e.g. expression='document.title' or function='(el) => el.value' with a ref",
        )
    if args is not None and function is None:
        raise InvalidArgument("args go with function=", hint="pass function='(a, b) => a + b'")
    if args is not None:
        try:
            json.dumps(args)
        except (TypeError, ValueError):
            raise InvalidArgument("args must be JSON values (numbers, text, lists…)") from None
    if not 100 <= max_chars <= 10_000_000:
        raise InvalidArgument(f"max_chars={max_chars} is out of range", hint="100..10000000")


def _target_of(tab: Page, frame_id: str) -> str:
    """The target whose session renders the frame: the OOPIF root, else the page."""
    registry = tab.frames
    frame = registry.get(frame_id)
    while frame is not None and frame.parent_id and not frame.is_oopif:
        frame = registry.get(frame.parent_id)
    if frame is not None and frame.is_oopif:
        return frame.frame_id
    return tab.target_id


async def _run(
    session: CDPSession,
    budget: Budget,
    tab: Page,
    frame_id: str,
    target_id: str,
    expression: str | None,
    function: str | None,
    element: Any,
    args: list[Any] | None,
    await_promise: bool,
) -> dict[str, Any]:
    common = {"awaitPromise": await_promise, "objectGroup": _GROUP, "userGesture": True}
    if element is not None or function is not None:
        declaration = function or f"function() {{ return ({expression}); }}"
        if element is not None:
            node = await session.send(
                "DOM.resolveNode",
                {"backendNodeId": element.backend_node_id, "objectGroup": _GROUP},
                budget=budget,
            )
            target = {"objectId": node["object"]["objectId"]}
            arguments = [{"objectId": node["object"]["objectId"]}]
        else:
            global_this = await session.send(
                "Runtime.evaluate",
                {
                    "expression": "globalThis",
                    "objectGroup": _GROUP,
                    **_context(tab, frame_id, target_id),
                },
                budget=budget,
            )
            target = {"objectId": global_this["result"]["objectId"]}
            arguments = []
        arguments += [{"value": a} for a in args or ()]
        return await session.send(
            "Runtime.callFunctionOn",
            {**target, "functionDeclaration": declaration, "arguments": arguments, **common},
            budget=budget,
        )
    return await session.send(
        "Runtime.evaluate",
        {"expression": expression, **common, **_context(tab, frame_id, target_id)},
        budget=budget,
    )


def _context(tab: Page, frame_id: str, target_id: str) -> dict[str, Any]:
    """Aim at a same-origin iframe's main world (the page's own is the default)."""
    if frame_id in (target_id, tab.target_id):
        return {}
    unique = tab.frames.unique_context_of(frame_id)
    if unique is None:
        raise InvalidArgument(
            f"frame {frame_id} has no JavaScript context yet", hint="retry once it loaded"
        )
    return {"uniqueContextId": unique}


async def _value(
    session: CDPSession, result: dict[str, Any], elapsed: int, max_chars: int, budget: Budget
) -> EvaluateResult:
    kind = result.get("type", "undefined")
    if "unserializableValue" in result:  # NaN, Infinity, -0, 12n
        return EvaluateResult(result["unserializableValue"], kind, elapsed, described=True)
    if "objectId" not in result:
        value = result.get("value")
        text = json.dumps(value)
        if len(text) > max_chars:
            return EvaluateResult(text[:max_chars], kind, elapsed, True, len(text))
        return EvaluateResult(value, kind, elapsed, total_chars=len(text))
    try:
        reply = await session.send(
            "Runtime.callFunctionOn",
            {
                "objectId": result["objectId"],
                "functionDeclaration": SERIALIZE_JS,
                "arguments": [{"value": max_chars}],
                "returnByValue": True,
            },
            budget=budget,
        )
        packed = reply["result"]["value"]
    except (CDPError, KeyError):
        return EvaluateResult(result.get("description", kind), kind, elapsed, described=True)
    finally:
        with contextlib.suppress(TabwardenError):
            await session.send(
                "Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, budget=Budget(1.0)
            )
    total = packed.get("total", len(packed["text"]))
    described = bool(packed.get("fallbacks"))
    if total > max_chars:
        return EvaluateResult(packed["text"], kind, elapsed, True, total, described)
    return EvaluateResult(json.loads(packed["text"]), kind, elapsed, False, total, described)


async def _stop(tab: Page, sessions: EvaluationSessions, target_id: str) -> bool:
    """After a deadline: terminate a script that is still running, drop the session.

    Only the probe is awaited; termination and detaching go on in the background so
    the caller gets its answer right after the deadline (the next command to the page
    simply queues until the script is stopped)."""
    session = (
        tab.frames.main_session
        if target_id == tab.target_id
        else (tab.frames.session_for(target_id))
    )
    busy = await is_busy(session)
    stale = sessions.take(target_id)

    async def clean_up() -> None:
        with contextlib.suppress(TabwardenError):
            if busy:
                await session.send("Runtime.terminateExecution", budget=Budget(_STOP_S * 5))
            if stale is not None:
                await stale.detach(budget=Budget(_STOP_S * 5))

    sessions.spawn(clean_up())
    return busy


def _abandon(sessions: EvaluationSessions, target_id: str) -> None:
    """Stop using the evaluation session of ``target_id`` (detached in the background)."""
    stale = sessions.take(target_id)
    if stale is None:
        return

    async def detach() -> None:
        with contextlib.suppress(TabwardenError):
            await stale.detach(budget=Budget(_STOP_S * 5))

    sessions.spawn(detach())


def _script_error(details: dict[str, Any]) -> ScriptError:
    exception = details.get("exception", {})
    text = exception.get("description") or details.get("text", "script error")
    first = text.splitlines()[0] if text else "script error"
    line = details.get("lineNumber", -1) + 1
    column = details.get("columnNumber", -1) + 1
    url = details.get("url", "")
    where = f" at line {line}, column {column}" + (f" of {url}" if url else "")
    return ScriptError(
        f"the script threw: {first}{where}", text=text, line=line, column=column, url=url
    )
