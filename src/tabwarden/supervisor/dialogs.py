"""Dialog records: pending ones waiting for an answer, and a ring of recently closed ones."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..calls import Call, OneOf, Value
from ..errors import InvalidArgument

__all__ = ["ClosedBy", "ClosedDialog", "DialogPolicy", "PendingDialog", "dialog_action"]

DialogPolicy = Literal["must_respond", "auto_dismiss", "auto_accept"]
ClosedBy = Literal["agent", "user", "auto_policy", "watchdog", "remote"]
"""Who closed a dialog: the agent, a person (in the workbench), the configured policy,
the watchdog, or the page itself / the browser (``remote``)."""


@dataclass(frozen=True, slots=True)
class PendingDialog:
    """A JavaScript dialog open in a page: the page's script waits until it is answered."""

    id: str
    """``d-1``, ``d-2``… unique within the session."""
    type: str
    """alert, confirm, prompt or beforeunload."""
    message: str
    default_prompt: str
    url: str
    tab_id: str
    frame_id: str
    session_id: str | None
    opened_at: float
    """Wall-clock time (``time.time()``)."""
    source: Literal["native", "bridge"] = "native"

    def describe(self) -> str:
        return f"{self.id}: {self.type} {json.dumps(self.message, ensure_ascii=False)}"

    def answer_call(self) -> Call:
        """The exact call that resolves it, for messages (written for the surface in use:
        ``browser.dialog(action='accept' or 'dismiss', dialog_id='d-1')``,
        ``browser_dialog {"action": "accept" or "dismiss", "dialog_id": "d-1"}``…)."""
        args: list[tuple[str, Value]] = [("action", OneOf(("accept", "dismiss")))]
        if self.type == "prompt":
            args.append(("prompt_text", "…"))
        return Call("dialog", (*args, ("dialog_id", self.id)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def age_s(self) -> float:
        return max(0.0, time.time() - self.opened_at)


@dataclass(frozen=True, slots=True)
class ClosedDialog:
    dialog: PendingDialog
    closed_at: float
    closed_by: ClosedBy
    accepted: bool | None
    """True/False when known; None when the browser closed it (e.g. a navigation)."""

    def to_dict(self) -> dict[str, Any]:
        data = self.dialog.to_dict()
        data.update(closed_at=self.closed_at, closed_by=self.closed_by, accepted=self.accepted)
        return data


def dialog_action(action: str) -> bool:
    """``accept`` → True, ``dismiss`` → False; anything else is refused."""
    if action not in ("accept", "dismiss"):
        raise InvalidArgument(
            f"action={action!r} is not a dialog answer", hint="use 'accept' or 'dismiss'"
        )
    return action == "accept"
