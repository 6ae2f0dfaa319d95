"""act_batch: several actions in one call, stopping at the first failure."""

from __future__ import annotations

import time
from typing import Any

from ..budget import Budget
from ..counting import counted
from ..errors import ActionError, InvalidArgument, TabwardenError
from .receipt import Receipt

__all__ = ["ACTIONS", "BatchError", "check_steps", "run_batch"]

# action name → the Tab method and the step keys it accepts.
ACTIONS: dict[str, tuple[str, frozenset[str]]] = {
    "click": ("click", frozenset({"ref", "button", "click_count", "modifiers"})),
    "hover": ("hover", frozenset({"ref"})),
    "drag": ("drag", frozenset({"start_ref", "end_ref"})),
    "fill": ("fill", frozenset({"ref", "value"})),
    "type": ("type", frozenset({"text", "ref", "delay_ms", "submit"})),
    "press": ("press", frozenset({"key", "ref"})),
    "select": ("select", frozenset({"ref", "values"})),
    "check": ("check", frozenset({"ref", "checked"})),
    "uncheck": ("check", frozenset({"ref"})),
    "scroll": ("scroll", frozenset({"ref", "direction", "amount"})),
    "upload_file": ("upload_file", frozenset({"ref", "paths"})),
}
_MAX_STEPS = 50


class BatchError(ActionError):
    """A step of a batch failed; ``receipts`` holds the steps that ran before it."""

    def __init__(self, message: str, *, step: int, receipts: list[Receipt], cause: Exception):
        self.step = step
        self.receipts = receipts
        self.cause = cause
        hint = cause.hint if isinstance(cause, TabwardenError) else ""
        super().__init__(message, hint=hint)


async def run_batch(tab: object, steps: list[dict[str, Any]], budget: Budget) -> list[Receipt]:
    """Run ``steps`` by the tab's own action methods (each a public call with the time
    left of ``budget``)."""
    receipts: list[Receipt] = []
    for index, step in enumerate(steps):
        name = step["action"]
        method, _ = ACTIONS[name]
        kwargs = {k: v for k, v in step.items() if k != "action"}
        if name == "uncheck":
            kwargs["checked"] = False
        left_ms = budget.remaining() * 1000
        if left_ms <= 0:
            raise BatchError(
                f"step {index + 1} ({name}) did not start: the batch ran out of time",
                step=index,
                receipts=receipts,
                cause=InvalidArgument("out of time", hint="use a larger timeout_ms"),
            )
        started = time.monotonic()
        try:
            receipts.append(await getattr(tab, method)(**kwargs, timeout_ms=left_ms))
        except TabwardenError as exc:
            raise BatchError(
                f"step {index + 1} of {len(steps)} ({name}) failed after "
                f"{(time.monotonic() - started) * 1000:.0f} ms: {exc.message}; "
                f"{counted(len(receipts), 'step')} ran before it",
                step=index,
                receipts=receipts,
                cause=exc,
            ) from exc
    return receipts


def check_steps(steps: list[dict[str, Any]]) -> None:
    """Refuse a malformed batch before running any step of it."""
    if not isinstance(steps, list) or not steps:
        raise InvalidArgument("steps must be a non-empty list of actions")
    if len(steps) > _MAX_STEPS:
        raise InvalidArgument(f"a batch takes at most {_MAX_STEPS} steps, got {len(steps)}")
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or step.get("action") not in ACTIONS:
            raise InvalidArgument(
                f"step {index + 1} has no known action: {step!r}",
                hint=f"each step is a dict with action one of {', '.join(ACTIONS)}",
            )
        _, allowed = ACTIONS[step["action"]]
        unknown = set(step) - allowed - {"action"}
        if unknown:
            raise InvalidArgument(
                f"step {index + 1} ({step['action']}) has unknown keys {sorted(unknown)}",
                hint=f"{step['action']} takes {', '.join(sorted(allowed))}",
            )
