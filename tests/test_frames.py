"""FrameTracker keeps a tab's frame registry true while child frames come and go,
whatever order the browser's replies and events are handled in (a fake connection
orders them; the real browser is in test_frames_lifecycle)."""

from __future__ import annotations

import asyncio
from typing import Any

from tabwarden.budget import Budget
from tabwarden.cdp.protocol import Event, EventCallback, EventRouter, Subscription
from tabwarden.cdp.session import CDPSession
from tabwarden.frames import FrameTracker

MAIN_FRAME = "MAIN"
CHILD_FRAME = "CHILD"
CHILD_SESSION = "child-session"


class RemovedWhileReading:
    """Answers every command; the child's frame tree is answered only after the parent
    reported its iframe removed (the reply was on the wire before that event, and the
    event's handler ran first)."""

    def __init__(self) -> None:
        self.router = EventRouter()
        self.tree_read = asyncio.Event()

    def subscribe(
        self, method: str, callback: EventCallback, session_id: str | None
    ) -> Subscription:
        return self.router.subscribe(method, callback, session_id)

    def drop_session(self, session_id: str) -> None:
        self.router.drop_session(session_id)

    def emit(self, method: str, params: dict[str, Any], session_id: str | None) -> None:
        self.router.dispatch(Event(method, params, session_id))

    async def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        budget: Budget,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        if method != "Page.getFrameTree" or session_id != CHILD_SESSION:
            return {}
        self.emit(
            "Page.frameDetached", {"frameId": CHILD_FRAME, "reason": "remove"}, "main-session"
        )
        self.emit("Target.detachedFromTarget", {"sessionId": CHILD_SESSION}, "main-session")
        self.tree_read.set()
        return {
            "frameTree": {
                "frame": {
                    "id": CHILD_FRAME,
                    "parentId": MAIN_FRAME,
                    "loaderId": "L2",
                    "url": "http://localhost/child",
                }
            }
        }


def _tracker_with_child(connection: RemovedWhileReading) -> FrameTracker:
    """A tab's tracker whose cross-origin iframe's target just attached."""
    main = CDPSession(connection, "main-session", MAIN_FRAME)  # type: ignore[arg-type]
    tracker = FrameTracker(main, MAIN_FRAME)
    tracker.registry.navigated({"id": MAIN_FRAME, "loaderId": "L1", "url": "http://a/"}, main)
    connection.emit(
        "Target.attachedToTarget",
        {
            "sessionId": CHILD_SESSION,
            "targetInfo": {"type": "iframe", "targetId": CHILD_FRAME, "url": "http://localhost/"},
            "waitingForDebugger": True,
        },
        "main-session",
    )
    return tracker


async def test_an_iframe_removed_while_its_tree_was_read_stays_removed() -> None:
    connection = RemovedWhileReading()
    tracker = _tracker_with_child(connection)
    assert tracker.registry.get(CHILD_FRAME) is not None  # the OOPIF is known at once
    await tracker.settled(Budget(5.0))
    assert connection.tree_read.is_set()
    assert [f.frame_id for f in tracker.registry.frames()] == [MAIN_FRAME]
    tracker.close()


async def test_an_iframe_that_stays_is_seeded_from_its_own_session() -> None:
    class Stays(RemovedWhileReading):
        async def send(
            self,
            method: str,
            params: Any = None,
            *,
            budget: Budget,
            session_id: str | None = None,
        ) -> dict[str, Any]:
            if method != "Page.getFrameTree" or session_id != CHILD_SESSION:
                return {}
            frame = {"id": CHILD_FRAME, "parentId": MAIN_FRAME, "loaderId": "L2"}
            return {"frameTree": {"frame": {**frame, "url": "http://localhost/c"}}}

    tracker = _tracker_with_child(Stays())
    await tracker.settled(Budget(5.0))
    child = tracker.registry.get(CHILD_FRAME)
    assert child is not None and child.is_oopif and child.loader_id == "L2"
    assert child.url == "http://localhost/c" and child.parent_id == MAIN_FRAME
    tracker.close()
