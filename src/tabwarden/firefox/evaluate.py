"""``evaluate`` on a Firefox tab: the same call and the same ``EvaluateResult`` as on
Chromium (actions/evaluate.py), over ``script.evaluate`` and ``script.callFunction``.

The agent's script runs in the page's own realm (it sees the page's globals), in the
tab's document or one of its frames; ``function`` with ``ref`` gets the element as
``this`` and as its first argument. An object result is kept by a handle just long
enough to be turned into JSON by the same serialiser Chromium's results go through
(circular references, nodes, functions and big numbers are described, and the text is
cut at ``max_chars``), then released.

BiDi has no ``terminateExecution``: a script still running at the deadline keeps
running (``EvaluateTimeout(terminated=False)``); a loop holds its tab until the tab is
closed, which ends it (docs/firefox.md).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Awaitable, Mapping
from typing import Any, Protocol, TypeVar

from ..actions.evaluate import SERIALIZE_JS, EvaluateResult, check_evaluate_args
from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..errors import EvaluateTimeout, InvalidArgument, ScriptError, TabClosed, TabwardenError
from ..frames import FrameInfo
from ..metrics import Metrics
from .values import JS_TYPES, JSONObject, local_value, remote_result, remote_value

__all__ = ["EvaluatedPage", "evaluate"]

T = TypeVar("T")

_UNSERIALIZABLE = {"NaN", "-0", "Infinity", "-Infinity"}


class EvaluatedPage(Protocol):
    """What an evaluation needs of its tab (``FirefoxPage``)."""

    id: str
    context: str

    @property
    def frames(self) -> Mapping[str, FrameInfo]: ...

    @property
    def connection(self) -> BiDiConnection: ...

    @property
    def metrics(self) -> Metrics: ...

    def check_no_dialog(self) -> None: ...

    async def element(self, ref: str, budget: Budget) -> tuple[str, JSONObject]: ...

    async def until_dialog(self, work: Awaitable[T]) -> tuple[bool, T | None]: ...


async def evaluate(
    page: EvaluatedPage,
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
    """Run the agent's script within ``budget``; see the module's docstring."""
    check_evaluate_args(expression, function, args, max_chars)
    context = frame_id or page.context
    if context != page.context and context not in page.frames:
        raise InvalidArgument(
            f"tab {page.id} has no frame {frame_id!r}",
            hint="use a frame_id from the frame tree (the tab's own id for its document)",
        )
    element: JSONObject | None = None
    if ref is not None:
        context, element = await page.element(ref, budget)
    target = {"context": context}
    if function is not None:
        arguments = [element] if element is not None else []
        arguments += [local_value(arg) for arg in args or []]
        params: JSONObject = {
            "functionDeclaration": function,
            "target": target,
            "arguments": arguments,
            "awaitPromise": await_promise,
            "resultOwnership": "root",
        }
        if element is not None:
            params["this"] = element
        command = page.connection.send("script.callFunction", params, budget=budget)
    else:
        params = {
            "expression": expression,
            "target": target,
            "awaitPromise": await_promise,
            "resultOwnership": "root",
        }
        command = page.connection.send("script.evaluate", params, budget=budget)
    started = time.monotonic()
    metrics = page.metrics
    try:
        done, reply = await page.until_dialog(command)
    except TimeoutError:
        metrics.evaluated((time.monotonic() - started) * 1000, "timeout")
        raise EvaluateTimeout(
            f"the script did not finish within {budget.timeout_s * 1000:.0f} ms in tab "
            f"{page.id}, and it may still run: Firefox cannot stop a running script",
            elapsed_ms=int((time.monotonic() - started) * 1000),
            terminated=False,
            hint="a promise that never settles leaves the tab usable; a script that "
            "loops holds the tab (a navigation waits for it): close the tab "
            "(tab.close()) to end it, other tabs keep working",
        ) from None
    elapsed = int((time.monotonic() - started) * 1000)
    if not done or reply is None:
        metrics.evaluated(elapsed, "interrupted")
        page.check_no_dialog()
        raise TabClosed(f"tab {page.id}: the script ended with no result")
    try:
        remote = remote_result(reply)
    except ScriptError:
        metrics.evaluated(elapsed, "error")
        raise
    result = await _packed(page, context, remote, elapsed, max_chars, budget)
    if result.described:
        metrics.count("evaluate_fallbacks")
    metrics.evaluated(elapsed, "ok")
    return result


async def _packed(
    page: EvaluatedPage,
    context: str,
    remote: JSONObject,
    elapsed: int,
    max_chars: int,
    budget: Budget,
) -> EvaluateResult:
    """The result as JSON: primitives as they came, objects through the serialiser."""
    kind = str(remote.get("type", "undefined"))
    js_type = JS_TYPES.get(kind, kind)
    handle = remote.get("handle")
    if kind == "number" and remote.get("value") in _UNSERIALIZABLE:
        return EvaluateResult(remote["value"], js_type, elapsed, described=True)
    if kind == "bigint":
        return EvaluateResult(f"{remote.get('value')}n", js_type, elapsed, described=True)
    if not isinstance(handle, str):
        value = remote_value(remote)
        text = json.dumps(value)
        if len(text) > max_chars:
            return EvaluateResult(text[:max_chars], js_type, elapsed, True, len(text))
        return EvaluateResult(value, js_type, elapsed, total_chars=len(text))
    try:
        reply = await page.connection.send(
            "script.callFunction",
            {
                "functionDeclaration": SERIALIZE_JS,
                "target": {"context": context},
                "this": {"handle": handle},
                "arguments": [local_value(max_chars)],
                "awaitPromise": False,
                "resultOwnership": "none",
            },
            budget=budget,
        )
        packed = remote_value(remote_result(reply))
    except TabwardenError:
        return EvaluateResult(js_type, js_type, elapsed, described=True)
    finally:
        with contextlib.suppress(TabwardenError):
            await page.connection.send(
                "script.disown",
                {"handles": [handle], "target": {"context": context}},
                budget=Budget(1.0),
            )
    total = int(packed.get("total", len(packed["text"])))
    described = bool(packed.get("fallbacks"))
    if total > max_chars:
        return EvaluateResult(packed["text"], js_type, elapsed, True, total, described)
    return EvaluateResult(json.loads(packed["text"]), js_type, elapsed, False, total, described)
