"""What a person did in a tab by hand (through a live view) since the agent last looked.

The agent's refs and its picture of the page date from its last snapshot; a person who
clicked or typed in the tab since may have changed both. The page keeps a small record
of the kinds of input forwarded; the next receipt or snapshot tells it once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["PersonActKind", "PersonActivity", "PersonActs"]

PersonActKind = Literal["clicked", "typed", "pressed keys", "scrolled"]


@dataclass(frozen=True, slots=True)
class PersonActs:
    """The person's input in one tab since it was last told."""

    kinds: tuple[PersonActKind, ...]
    """Kinds of input, in the order first seen."""
    events: int
    first_at: float
    """Wall-clock time of the first one (seconds)."""
    last_at: float

    def describe(self) -> str:
        """``clicked, typed``"""
        return ", ".join(self.kinds)

    def receipt_line(self) -> str:
        return (
            f"a person acted in this tab since your last snapshot ({self.describe()}): "
            "take a snapshot before using old refs"
        )

    def snapshot_line(self) -> str:
        return f"# a person acted in this tab since your last snapshot ({self.describe()})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kinds": list(self.kinds),
            "events": self.events,
            "first_at": self.first_at,
            "last_at": self.last_at,
        }


class PersonActivity:
    """The record one page keeps: ``note`` each forwarded input, ``take`` reads and clears."""

    def __init__(self) -> None:
        self._kinds: list[PersonActKind] = []
        self._events = 0
        self._first_at = 0.0
        self._last_at = 0.0

    def note(self, kind: PersonActKind) -> None:
        now = time.time()
        if not self._events:
            self._first_at = now
        self._events += 1
        self._last_at = now
        if kind not in self._kinds:
            self._kinds.append(kind)

    def take(self) -> PersonActs | None:
        """What was noted since the last ``take`` (None: nothing), then forget it."""
        if not self._events:
            return None
        acts = PersonActs(tuple(self._kinds), self._events, self._first_at, self._last_at)
        self._kinds = []
        self._events = 0
        return acts
