"""The frames of one tab and the CDP session that renders each of them.

Same-origin iframes live in their parent's process and share its session;
cross-origin iframes (OOPIFs) are targets of their own, auto-attached in
flatten mode, and get their own session. Updated from ``Page.frame*`` events
and target attach/detach; read without awaiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .budget import Budget
from .cdp.protocol import Event, Subscription
from .cdp.session import CDPSession
from .errors import TabwardenError
from .tasks import TaskOwner

logger = logging.getLogger("tabwarden.frames")

__all__ = ["AUTO_ATTACH_IFRAMES", "FrameInfo", "FrameRegistry", "FrameTracker"]

# Top documents left behind whose child frames are kept (Chromium's back-forward cache
# holds 6 pages by default).
_CACHED_DOCUMENTS = 8


@dataclass(frozen=True, slots=True)
class FrameInfo:
    frame_id: str
    parent_id: str | None
    url: str
    loader_id: str
    session_id: str | None
    is_oopif: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "frame_id": self.frame_id,
            "parent": self.parent_id,
            "url": self.url,
            "is_oopif": self.is_oopif,
            "cdp_session": self.session_id,
        }


class FrameRegistry:
    """frame id → (parent, url, loader, rendering session) for one tab."""

    def __init__(self, main_frame_id: str, main_session: CDPSession) -> None:
        self.main_frame_id = main_frame_id
        self._frames: dict[str, FrameInfo] = {}
        self._sessions: dict[str | None, CDPSession] = {main_session.session_id: main_session}
        self._contexts: dict[str, int] = {}
        self._unique_contexts: dict[str, str] = {}
        self._worlds: dict[str, int] = {}
        """frame id → tabwarden's isolated world context in it (snapshot walker, refs)."""
        self._cached: dict[str, list[FrameInfo]] = {}
        """Loader id of a top document left behind (oldest first) → its child frames."""
        self.main_session = main_session

    # ---- reading -------------------------------------------------------------------

    def get(self, frame_id: str) -> FrameInfo | None:
        return self._frames.get(frame_id)

    def frames(self) -> list[FrameInfo]:
        return list(self._frames.values())

    def session_for(self, frame_id: str) -> CDPSession:
        """The session that renders ``frame_id`` (the main session when unknown)."""
        info = self._frames.get(frame_id)
        if info is None:
            return self.main_session
        return self._sessions.get(info.session_id, self.main_session)

    def sessions(self) -> list[CDPSession]:
        return list(self._sessions.values())

    def frames_of(self, session: CDPSession) -> list[FrameInfo]:
        """Frames rendered by one session, parents before children."""
        return [f for f in self._frames.values() if f.session_id == session.session_id]

    def context_of(self, frame_id: str) -> int | None:
        """The frame's main-world execution context (for Runtime.evaluate in that frame)."""
        return self._contexts.get(frame_id)

    def unique_context_of(self, frame_id: str) -> str | None:
        """The frame's main-world context by its ``uniqueId`` (valid on any session)."""
        return self._unique_contexts.get(frame_id)

    def context_created(self, context: dict[str, Any]) -> None:
        aux = context.get("auxData", {})
        if aux.get("isDefault") and aux.get("frameId"):
            self._contexts[aux["frameId"]] = context["id"]
            if context.get("uniqueId"):
                self._unique_contexts[aux["frameId"]] = context["uniqueId"]

    def context_destroyed(self, context_id: int) -> None:
        for frame_id, known in list(self._contexts.items()):
            if known == context_id:
                del self._contexts[frame_id]
                self._unique_contexts.pop(frame_id, None)
        for frame_id, known in list(self._worlds.items()):
            if known == context_id:
                del self._worlds[frame_id]

    def world_of(self, frame_id: str) -> int | None:
        """tabwarden's isolated world context in the frame, when one is known to live."""
        return self._worlds.get(frame_id)

    def set_world(self, frame_id: str, context_id: int) -> None:
        self._worlds[frame_id] = context_id

    def forget_world(self, frame_id: str) -> None:
        self._worlds.pop(frame_id, None)

    def loader_of(self, frame_id: str) -> str | None:
        info = self._frames.get(frame_id)
        return info.loader_id if info else None

    # ---- updating (from events) ----------------------------------------------------

    def add_session(self, session: CDPSession) -> None:
        self._sessions[session.session_id] = session

    def remove_session(self, session_id: str) -> None:
        """A child session went away; its frames stay known until detached or re-attached."""
        self._sessions.pop(session_id, None)

    def seed(self, tree: dict[str, Any], session: CDPSession) -> None:
        """Load a ``Page.getFrameTree`` result rendered by ``session``."""
        self._seed(tree, session)

    def _seed(self, tree: dict[str, Any], session: CDPSession) -> None:
        self.navigated(tree.get("frame", {}), session)
        for child in tree.get("childFrames", ()):
            self._seed(child, session)

    def navigated(
        self, frame: dict[str, Any], session: CDPSession, *, restored: bool = False
    ) -> None:
        """``Page.frameNavigated``: the frame is rendered by ``session`` with a new document
        (``restored``: one brought back from the back-forward cache)."""
        frame_id = frame.get("id", "")
        loader_id = frame.get("loaderId", "")
        old = self._frames.get(frame_id)
        if old is None or old.loader_id != loader_id:
            self._worlds.pop(frame_id, None)
            if old is not None:
                # Its child frames belonged to the document it left: Chromium reports no
                # frameDetached for them when the page goes into the back-forward cache
                # or its process is swapped.
                self._leave(frame_id, old.loader_id)
        parent_id = frame.get("parentId") or (old.parent_id if old else None)
        self._frames[frame_id] = FrameInfo(
            frame_id=frame_id,
            parent_id=parent_id,
            url=frame.get("url", "") + frame.get("urlFragment", ""),
            loader_id=loader_id,
            session_id=session.session_id,
            # A frame is out of process when it is the root of a child target's session
            # (an OOPIF's target id is its frame id); one that navigated back to its
            # parent's site is reported by the parent's session again.
            is_oopif=parent_id is not None
            and session.session_id != self.main_session.session_id
            and session.target_id == frame_id,
        )
        if restored:
            self._restore(frame_id, loader_id)

    def attached(self, frame_id: str, parent_id: str, session: CDPSession) -> None:
        """``Page.frameAttached``: a child frame exists (its document comes later)."""
        if frame_id not in self._frames:
            self._frames[frame_id] = FrameInfo(
                frame_id, parent_id, "", "", session.session_id, is_oopif=False
            )

    def became_oopif(self, frame_id: str, session: CDPSession, url: str) -> None:
        """An iframe target attached: its frame is now rendered by its own session."""
        self.add_session(session)
        self._worlds.pop(frame_id, None)
        old = self._frames.get(frame_id)
        self._frames[frame_id] = FrameInfo(
            frame_id=frame_id,
            parent_id=old.parent_id if old else None,
            url=url or (old.url if old else ""),
            loader_id=old.loader_id if old else "",
            session_id=session.session_id,
            is_oopif=True,
        )

    def detached(self, frame_id: str, *, swapped: bool = False) -> None:
        """``Page.frameDetached``: removed, unless it only moved to another process."""
        if swapped:
            return
        for info in self._descendants(frame_id):
            self._forget(info.frame_id)
        self._forget(frame_id)

    def set_loader(self, frame_id: str, loader_id: str) -> None:
        info = self._frames.get(frame_id)
        if info is not None and loader_id:
            self._frames[frame_id] = replace(info, loader_id=loader_id)

    # ---- private -------------------------------------------------------------------

    def _descendants(self, frame_id: str) -> list[FrameInfo]:
        """The frames below ``frame_id``, parents before children."""
        found: list[FrameInfo] = []
        seen = parents = {frame_id}
        while True:
            level = [
                f
                for f in self._frames.values()
                if f.parent_id in parents and f.frame_id not in seen
            ]
            if not level:
                return found
            found += level
            parents = {f.frame_id for f in level}
            seen = seen | parents

    def _leave(self, frame_id: str, loader_id: str) -> None:
        """``frame_id`` left the document ``loader_id``: its child frames go with it. The
        top document's are kept aside, as Chromium may bring that page back whole from its
        back-forward cache (and then announces none of its child frames)."""
        gone = self._descendants(frame_id)
        for info in gone:
            self._forget(info.frame_id)
        if frame_id == self.main_frame_id and loader_id:
            self._cached.pop(loader_id, None)
            self._cached[loader_id] = gone
            while len(self._cached) > _CACHED_DOCUMENTS:
                del self._cached[next(iter(self._cached))]

    def _restore(self, frame_id: str, loader_id: str) -> None:
        """The document ``loader_id`` came back from the back-forward cache: its child
        frames with it. An OOPIF's target attaches again, maybe before this: what it told
        (its session) is kept, what only the cached copy knows (its parent) is added."""
        if frame_id != self.main_frame_id:
            return
        for cached in self._cached.pop(loader_id, []):
            now = self._frames.get(cached.frame_id)
            if now is None:
                self._frames[cached.frame_id] = cached
            else:
                self._frames[cached.frame_id] = replace(
                    now,
                    parent_id=now.parent_id or cached.parent_id,
                    url=now.url or cached.url,
                    loader_id=now.loader_id or cached.loader_id,
                )

    def _forget(self, frame_id: str) -> None:
        self._frames.pop(frame_id, None)
        self._worlds.pop(frame_id, None)
        # A page restored from the back-forward cache announces its contexts again.
        self._contexts.pop(frame_id, None)
        self._unique_contexts.pop(frame_id, None)


# Child frames attach paused (so none of their events is missed) and are resumed
# once set up; nested OOPIFs are auto-attached by their parent's session the same way.
AUTO_ATTACH_IFRAMES = {
    "autoAttach": True,
    "waitForDebuggerOnStart": True,
    "flatten": True,
    "filter": [{"type": "iframe"}],
}
_CHILD_SETUP_S = 10.0


class FrameTracker:
    """Keeps a tab's FrameRegistry current and sets up its OOPIF sessions."""

    def __init__(
        self,
        main_session: CDPSession,
        main_frame_id: str,
        extra_setup: Callable[[], list[tuple[str, dict[str, Any]]]] | None = None,
        on_session: Callable[[str, str | None], None] | None = None,
    ) -> None:
        self.registry = FrameRegistry(main_frame_id, main_session)
        self._extra_setup = extra_setup or list
        """Read at each child's set-up: the session's settings may change meanwhile."""
        self._on_session = on_session or _ignore
        """Told (session id, frame id) when a cross-origin frame's session attaches, and
        (session id, None) when it goes."""
        self._children: set[str] = set()
        self._pending: set[asyncio.Future[None]] = set()
        self._tasks = TaskOwner(f"frames of {main_frame_id}")
        """Setting up the child frames that attach, and letting other child targets go."""
        self._subscriptions: list[Subscription] = []
        self._watch(main_session)

    async def seed(self, budget: Budget) -> None:
        """Load the main session's frame tree (call once its Page domain is enabled)."""
        main = self.registry.main_session
        tree = await main.send("Page.getFrameTree", budget=budget)
        self.registry.seed(tree["frameTree"], main)

    async def settled(self, budget: Budget) -> None:
        """Wait until every attached child frame is set up (for a complete snapshot)."""
        while self._pending:
            await budget.run(
                asyncio.gather(*list(self._pending), return_exceptions=True),
                what="waiting for iframes to attach",
            )

    def close(self) -> None:
        """Stop following the frames and cancel the set-ups still running."""
        for subscription in self._subscriptions:
            subscription.close()
        for session_id in self._children:
            self._on_session(session_id, None)
        self._children.clear()
        self._tasks.cancel()

    # ---- private -------------------------------------------------------------------

    def _watch(self, session: CDPSession) -> None:
        registry = self.registry

        def on_navigated(event: Event) -> None:
            registry.navigated(
                event.params.get("frame", {}),
                session,
                restored=event.params.get("type") == "BackForwardCacheRestore",
            )

        def on_attached_frame(event: Event) -> None:
            registry.attached(
                event.params["frameId"], event.params.get("parentFrameId", ""), session
            )

        def on_detached_frame(event: Event) -> None:
            registry.detached(event.params["frameId"], swapped=event.params.get("reason") == "swap")

        def on_context(event: Event) -> None:
            registry.context_created(event.params.get("context", {}))

        def on_context_gone(event: Event) -> None:
            registry.context_destroyed(event.params.get("executionContextId", -1))

        for method, handler in (
            ("Runtime.executionContextCreated", on_context),
            ("Runtime.executionContextDestroyed", on_context_gone),
            ("Page.frameNavigated", on_navigated),
            ("Page.frameAttached", on_attached_frame),
            ("Page.frameDetached", on_detached_frame),
            ("Target.attachedToTarget", lambda e: self._on_child_attached(session, e)),
            ("Target.detachedFromTarget", self._on_child_detached),
        ):
            self._subscriptions.append(session.subscribe(method, handler))

    def _on_child_attached(self, parent: CDPSession, event: Event) -> None:
        info = event.params.get("targetInfo", {})
        child = CDPSession(parent.connection, event.params["sessionId"], info.get("targetId"))
        waiting = bool(event.params.get("waitingForDebugger"))
        if info.get("type") != "iframe":
            self._tasks.spawn(
                _release(child, waiting), name=f"{self._tasks.name}: release {child.target_id}"
            )
        else:
            self.registry.became_oopif(info["targetId"], child, info.get("url", ""))
            self._children.add(event.params["sessionId"])
            self._on_session(event.params["sessionId"], info["targetId"])
            self._watch(child)
            task = self._tasks.spawn(
                self._setup_child(child, waiting),
                name=f"{self._tasks.name}: set up {child.target_id}",
            )
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._pending.add(done)

            def finished(_: object) -> None:
                self._pending.discard(done)
                done.set_result(None)

            task.add_done_callback(finished)

    def _on_child_detached(self, event: Event) -> None:
        session_id = event.params.get("sessionId")
        if session_id:
            self.registry.remove_session(session_id)
            if session_id in self._children:
                self._children.discard(session_id)
                self._on_session(session_id, None)

    async def _setup_child(self, child: CDPSession, waiting: bool) -> None:
        budget = Budget(_CHILD_SETUP_S)
        commands: list[tuple[str, dict[str, Any] | None]] = [
            ("Page.enable", None),  # frame events and dialogs of the OOPIF
            ("Runtime.enable", None),  # its console messages and execution contexts
            ("Network.enable", None),  # its requests, for the tab's network log
            ("Target.setAutoAttach", AUTO_ATTACH_IFRAMES),
            *self._extra_setup(),
        ]
        if waiting:
            commands.append(("Runtime.runIfWaitingForDebugger", None))
        results = await asyncio.gather(
            *(child.send(method, params, budget=budget) for method, params in commands),
            return_exceptions=True,
        )
        for (method, _), result in zip(commands, results, strict=True):
            if isinstance(result, BaseException):
                logger.debug("setting up frame %s: %s failed: %s", child.target_id, method, result)
        try:
            tree = await child.send("Page.getFrameTree", budget=budget)
            # The iframe may have been removed while its tree was on its way (the reply
            # came before the parent's frameDetached, and that event was handled first):
            # seeding then would bring a removed frame back.
            if child.session_id in self._children and self.registry.get(child.target_id or ""):
                self.registry.seed(tree["frameTree"], child)
        except (TabwardenError, KeyError) as exc:
            logger.debug("reading the frame tree of %s failed: %s", child.target_id, exc)


def _ignore(session_id: str, frame_id: str | None) -> None:
    """No one to tell about frame sessions."""


async def _release(session: CDPSession, waiting: bool) -> None:
    """A worker or other non-frame target attached under a page: let it run, detach."""
    budget = Budget(_CHILD_SETUP_S)
    with contextlib.suppress(TabwardenError):
        if waiting:
            await session.send("Runtime.runIfWaitingForDebugger", budget=budget)
        await session.detach(budget=budget)
