"""SessionActivity: what a session does, pushed to whoever watches it (the workbench).

Each session has one. The parts that already know what happens publish it here as it
happens: the tab registry (tabs, their load state), the action runner (what was acted
on and where the pointer went), the snapshot reader (the refs and their boxes), the
supervisor (dialogs), the console, network and download logs, and the tool registry
(every call, with its receipt). Nothing asks the browser for any of it.

Publishing costs one attribute check while nobody watches (``watched``): a publisher
with work to do before it can publish (boxes of a snapshot) asks first.

A watcher ``subscribe()``s and reads events in order; a watcher that falls behind by
more than its queue holds loses the oldest events and is told how many
(``Subscription.dropped``), so a slow page never slows the agent.

Calls are kept in a bounded timeline (``calls``) so a watcher that arrives late sees
what happened before it came. A call made through a tool registers itself in
``current_call`` while it runs, so the actions it makes are drawn under its name;
pointer events (``note_pointer``) are gathered for the action that runs them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from .budget import Budget
from .errors import PersonInControl
from .snapshot.boxes import ref_boxes
from .snapshot.model import SnapshotNode

__all__ = [
    "ActivityEvent",
    "CallRecord",
    "PointerMark",
    "SessionActivity",
    "Subscription",
    "acting_person",
    "current_call",
    "gathering_pointer",
    "note_pointer",
]

CALLS_KEPT = 200
"""Calls a session's timeline holds (the oldest go first)."""
_QUEUE = 2_000
_TEXT_CHARS = 20_000
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class ActivityEvent:
    """One thing that happened: ``kind`` names it (``tabs``, ``action``, ``snapshot``,
    ``dialog_opened``…, see docs/workbench-protocol.md); ``data`` is JSON-ready."""

    kind: str
    data: dict[str, Any]
    tab_id: str | None = None
    at: float = field(default_factory=time.time)


@dataclass(frozen=True, slots=True)
class PointerMark:
    """Where an action's pointer went, in the viewport's CSS pixels."""

    kind: Literal["move", "press", "wheel", "drop"]
    x: float
    y: float

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "x": round(self.x, 1), "y": round(self.y, 1)}


@dataclass(slots=True)
class CallRecord:
    """One call in a session's timeline: a tool call by the agent, or a person's act."""

    tool: str
    args: dict[str, Any]
    by: Literal["agent", "person"] = "agent"
    id: int = field(default_factory=lambda: next(_ids))
    tab_id: str | None = None
    started: float = field(default_factory=time.time)
    duration_ms: float | None = None
    ok: bool | None = None
    text: str = ""
    error: dict[str, str] | None = None
    marks: list[dict[str, Any]] = field(default_factory=list)
    _began: float = field(default_factory=time.monotonic)

    def finish(self, *, ok: bool, text: str = "", error: dict[str, str] | None = None) -> None:
        self.duration_ms = round((time.monotonic() - self._began) * 1000, 1)
        self.ok = ok
        self.text = text[:_TEXT_CHARS]
        self.error = error

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "args": self.args,
            "by": self.by,
            "tab": self.tab_id,
            "started": self.started,
            "duration_ms": self.duration_ms,
            "ok": self.ok,
            "text": self.text,
            "error": self.error,
            "marks": list(self.marks),
        }


current_call: ContextVar[CallRecord | None] = ContextVar("tabwarden_current_call", default=None)
"""The call running in this task (set by the tool registry while a tool runs)."""

acting_person: ContextVar[bool] = ContextVar("tabwarden_acting_person", default=False)
"""True in a call a person makes from the workbench (it never waits for itself)."""

_pointer: ContextVar[list[PointerMark] | None] = ContextVar("tabwarden_pointer", default=None)


@contextmanager
def gathering_pointer() -> Iterator[list[PointerMark]]:
    """Collect the pointer events of the action that runs inside (``note_pointer``)."""
    marks: list[PointerMark] = []
    token = _pointer.set(marks)
    try:
        yield marks
    finally:
        _pointer.reset(token)


def note_pointer(kind: Literal["move", "press", "wheel", "drop"], x: float, y: float) -> None:
    """Remember a pointer event for the running action (nothing when none gathers)."""
    marks = _pointer.get()
    if marks is not None and len(marks) < 64:
        marks.append(PointerMark(kind, x, y))


class Subscription:
    """A watcher's queue of events: read with ``get``; ``close`` when done."""

    def __init__(
        self, owner: SessionActivity, size: int, wake: asyncio.Event | None = None
    ) -> None:
        self._owner = owner
        self._queue: deque[ActivityEvent] = deque()
        self._size = size
        self._ready = wake or asyncio.Event()
        self.dropped = 0
        """Events lost because this watcher fell too far behind."""
        self.closed = False

    def put(self, event: ActivityEvent) -> None:
        if len(self._queue) >= self._size:
            self._queue.popleft()
            self.dropped += 1
        self._queue.append(event)
        self._ready.set()

    async def get(self) -> ActivityEvent:
        """The next event (waits for one; the watcher's own deadline bounds it)."""
        while not self._queue:
            self._ready.clear()
            await self._ready.wait()
        return self._queue.popleft()

    @property
    def session_name(self) -> str:
        return self._owner.session_name

    def ready(self) -> list[ActivityEvent]:
        """Every event queued now, without waiting."""
        events = list(self._queue)
        self._queue.clear()
        return events

    def close(self) -> None:
        self.closed = True
        self._owner.unsubscribe(self)


class SessionActivity:
    """One session's live activity; see the module docstring."""

    def __init__(self, session_name: str) -> None:
        self.session_name = session_name
        self._subscribers: list[Subscription] = []
        self._calls: deque[CallRecord] = deque(maxlen=CALLS_KEPT)
        self.last_call: CallRecord | None = None
        self._views: dict[str, tuple[float, SnapshotNode]] = {}
        self._acting = 0
        self._agent_idle = asyncio.Event()
        self._agent_idle.set()
        self.person_in_control: str | None = None
        """Who took over the browser (a workbench viewer), or None: the agent drives."""
        self._controlled_since = 0.0
        self._handed_back = asyncio.Event()
        self._handed_back.set()

    @property
    def watched(self) -> bool:
        """True while someone watches (a publisher may skip costly work otherwise)."""
        return bool(self._subscribers)

    def subscribe(self, size: int = _QUEUE, wake: asyncio.Event | None = None) -> Subscription:
        """A queue of this session's events from now on; ``wake`` (shared by a watcher of
        several sessions) is set whenever one arrives."""
        subscription = Subscription(self, size, wake)
        self._subscribers.append(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        if subscription in self._subscribers:
            self._subscribers.remove(subscription)

    def publish(self, kind: str, data: dict[str, Any], tab_id: str | None = None) -> None:
        """Tell every watcher (never awaits, never raises: it runs inside event handlers)."""
        if not self._subscribers:
            return
        event = ActivityEvent(kind, data, tab_id)
        for subscription in list(self._subscribers):
            subscription.put(event)

    # ---- the agent acting ---------------------------------------------------------------

    @contextmanager
    def acting(self) -> Iterator[None]:
        """Around an agent's input action: watchers hold their own work (frames, events)
        until it ends, so they never compete with it for the machine."""
        self._acting += 1
        self._agent_idle.clear()
        try:
            yield
        finally:
            self._acting -= 1
            if not self._acting:
                self._agent_idle.set()

    async def until_agent_idle(self, limit_s: float) -> None:
        """Wait while an agent's action runs, at most ``limit_s`` (a long one, typing a
        long text, still lets a watcher see it happen)."""
        if self._acting:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._agent_idle.wait(), limit_s)

    # ---- a person in control ------------------------------------------------------------

    def take_over(self, who: str) -> None:
        """A person drives the browser from now on: the agent's input actions wait."""
        if self.person_in_control is None:
            self._controlled_since = time.time()
        self.person_in_control = who
        self._handed_back.clear()
        self.publish("person", {"taken_over": True, "by": who})

    def hand_back(self) -> None:
        """The person is done: the agent's waiting actions go on."""
        if self.person_in_control is None:
            return
        self.person_in_control = None
        self._handed_back.set()
        self.publish("person", {"taken_over": False, "by": None})

    async def until_handed_back(self, budget: Budget) -> None:
        """Wait (within ``budget``) while a person is in control; PersonInControl if they
        still are when it runs out."""
        if self.person_in_control is None or acting_person.get():
            return
        waited = time.monotonic()

        def still_in_control() -> PersonInControl:
            since = time.strftime("%H:%M:%S", time.localtime(self._controlled_since))
            return PersonInControl(
                f"a person has been in control of this browser since {since} (workbench): "
                f"the action waited {time.monotonic() - waited:.1f} s for them to hand back"
            )

        await budget.run(self._handed_back.wait(), on_timeout=still_in_control)

    # ---- what the agent saw ---------------------------------------------------------------

    def snapshot_taken(self, tab_id: str, root: SnapshotNode) -> None:
        """The agent read ``root`` of ``tab_id``: kept (the newest per tab) for watchers
        that come later; its boxes go to those watching now."""
        self._views[tab_id] = (time.time(), root)
        if self._subscribers:  # boxes cost a walk of the tree: only for a watcher
            self.publish("snapshot", self.boxes_of(tab_id) or {}, tab_id)

    def boxes_of(self, tab_id: str) -> dict[str, Any] | None:
        """The boxes of the agent's latest snapshot of ``tab_id`` (None: it took none)."""
        view = self._views.get(tab_id)
        if view is None:
            return None
        at, root = view
        return {"tab": tab_id, "at": at, "boxes": ref_boxes(root)}

    def tab_gone(self, tab_id: str) -> None:
        self._views.pop(tab_id, None)

    # ---- the timeline of calls ----------------------------------------------------------

    def calls(self) -> list[CallRecord]:
        """The calls held, oldest first."""
        return list(self._calls)

    def call_started(self, record: CallRecord) -> None:
        if record not in self._calls:
            self._calls.append(record)
        self.last_call = record
        self.publish("call_started", {"call": record.to_dict()}, record.tab_id)

    def call_ended(self, record: CallRecord) -> None:
        if record not in self._calls:
            self._calls.append(record)
        self.last_call = record
        self.publish("call", {"call": record.to_dict()}, record.tab_id)

    def action(
        self,
        tab_id: str,
        name: str,
        *,
        ref: str | None,
        label: str | None,
        points: list[PointerMark],
    ) -> None:
        """An input action ran on ``tab_id``: drawn where it happened, under its call."""
        call = current_call.get()
        data = {
            "call": call.id if call is not None else None,
            "tab": tab_id,
            "name": name,
            "ref": ref,
            "label": label,
            "points": [p.to_dict() for p in points],
        }
        if call is not None:
            call.tab_id = call.tab_id or tab_id
            call.marks.append({k: v for k, v in data.items() if k != "call"})
        self.publish("action", data, tab_id)
