"""A Selenium Grid's capacity, read from its ``GET /status``, for errors that say how full it is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..counting import counted

__all__ = ["GridCapacity", "read_capacity"]


@dataclass(frozen=True, slots=True)
class GridCapacity:
    """How many sessions a Grid can hold for one browser, and how many it holds now."""

    ready: bool
    """The Grid could take a new session at once (a full Grid is not ready)."""
    message: str
    nodes: int
    """Nodes that are up."""
    slots: int
    """Sessions of this browser the nodes can run at once (each node's slots for it,
    capped by the node's own ``maxSessions``)."""
    in_use: int
    """Sessions running on those nodes (any browser: they share a node's ``maxSessions``)."""

    @property
    def free(self) -> int:
        return max(self.slots - self.in_use, 0)

    def describe(self) -> str:
        """``2 of 2 sessions in use on 1 node``, or why the Grid has no slot for the browser."""
        if self.nodes == 0:
            return f"no node is up ({self.message or 'the Grid lists none'})"
        if self.slots == 0:
            return f"none of its {counted(self.nodes, 'node')} offers one"
        return f"{self.in_use} of {counted(self.slots, 'session')} in use on " + counted(
            self.nodes, "node"
        )


def read_capacity(value: Any, browser_name: str) -> GridCapacity:
    """The capacity the ``value`` of a ``/status`` answer describes, for ``browser_name``."""
    if not isinstance(value, dict):
        return GridCapacity(False, "its /status answer was not understood", 0, 0, 0)
    nodes = [n for n in value.get("nodes") or [] if isinstance(n, dict)]
    up = [n for n in nodes if str(n.get("availability", "UP")).upper() == "UP"]
    slots = in_use = 0
    for node in up:
        node_slots = [s for s in node.get("slots") or [] if isinstance(s, dict)]
        busy = sum(1 for s in node_slots if s.get("session"))
        fitting = sum(1 for s in node_slots if _browser(s) == browser_name.lower())
        limit = node.get("maxSessions")
        if isinstance(limit, int) and limit > 0:
            fitting = min(fitting, limit)
        slots += fitting
        in_use += busy
    return GridCapacity(
        ready=bool(value.get("ready")),
        message=str(value.get("message") or ""),
        nodes=len(up),
        slots=slots,
        in_use=in_use,
    )


def _browser(slot: dict[str, Any]) -> str:
    stereotype = slot.get("stereotype")
    if not isinstance(stereotype, dict):
        return ""
    return str(stereotype.get("browserName") or "").lower()
