"""Run the snapshot walker (walker.js) in every frame of a tab, concurrently.

The walker runs in tabwarden's own isolated world of each frame: the page's
scripts can neither see it nor change what it reads. One call per frame returns
the frame's view as compact JSON; elements carry *handles* that stay the same
while the element lives (a WeakMap in that world), which is what refs are made
of. Click and drop listeners are the one thing page script cannot see, so they are
read over CDP (``DOMDebugger.getEventListeners``) and handed to the walker. Each tab
has its own ``Walker``: what one walk leaves for the next, and the work it leaves
running, belong to that tab and end with it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from ..budget import Budget
from ..cdp.session import CDPSession
from ..errors import CDPError, TabwardenError
from ..frames import FrameInfo, FrameRegistry
from ..tasks import TaskOwner
from .model import LeftOut

__all__ = [
    "WALKER_JS",
    "WORLD_NAME",
    "FrameMark",
    "FrameWalk",
    "Walker",
    "element_by_handle",
    "world",
]

logger = logging.getLogger("tabwarden.snapshot")

WALKER_JS = (files("tabwarden.snapshot") / "walker.js").read_text(encoding="utf-8")
WORLD_NAME = "tabwarden"
_GROUP = "tabwarden-snapshot"
_KEEP = "tabwarden-snapshot-keep"
"""Objects kept for a world's lifetime (its document), never released by hand."""
_CLICK_EVENTS = frozenset(
    {"click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend"}
)
_DROP_EVENT = "drop"
"""An element with a drop listener of its own is a drop zone (files can be dropped on it)."""
_MAX_LISTENER_NODES = 300
"""Above this many elements with click listeners in a frame, listener-only clickables are
not looked for (cursor:pointer, onclick attributes and roles still are): each element
costs a round trip to resolve, and a page with that many listeners puts them on its
buttons and links, which have roles anyway."""
_ELEMENT_BY_HANDLE = (
    "function(handle, token) { const w = globalThis.__tabwardenWalker;"
    " return w && w.token === token ? w.element(handle) : undefined; }"
)
_RUN_WALKER = (
    "function(options, ...listening) { const w = globalThis.__tabwardenWalker;"
    " return w ? w.snapshot(options, listening) : null; }"
)
"""Runs the walker installed in the world (WALKER_JS installs it); null when it is not."""
_HANDLE_OF = (
    "function() { const w = globalThis.__tabwardenWalker; return w ? w.idOf(this) : null; }"
)
_CHANGED_SINCE = (
    "function(token, seen) { const w = globalThis.__tabwardenWalker;"
    " return !w || w.token !== token || w.changedSince(seen); }"
)
"""True when the world's walker is not the one that walked, or saw a change since."""


@dataclass(slots=True)
class FrameWalk:
    """What the walker saw in one frame."""

    frame: FrameInfo
    nodes: list[dict[str, Any]]
    scroll: tuple[float, float]
    title: str
    token: str
    """The world's token: handles are only meaningful together with it."""
    changes: int = 0
    """The world's count of page changes when the walk ran (see ``changed_since``)."""
    children: dict[int, str] = field(default_factory=dict)
    """Handle of an <iframe> in this frame → the frame id it hosts."""
    left_out: LeftOut | None = None
    """What the interactive view leaves out of this frame (None for a full walk)."""

    @property
    def mark(self) -> FrameMark:
        return FrameMark(self.frame.frame_id, self.frame.loader_id, self.token, self.changes)


@dataclass(frozen=True, slots=True)
class FrameMark:
    """Where a frame stood when it was walked: its document, its world and its count of
    changes seen."""

    frame_id: str
    loader_id: str
    token: str
    changes: int


async def world(registry: FrameRegistry, frame_id: str, budget: Budget) -> int:
    """tabwarden's isolated world context in a frame (created on first use per document;
    the same world name gives back the same world, so handles persist)."""
    known = registry.world_of(frame_id)
    if known is not None:
        return known
    session = registry.session_for(frame_id)
    reply = await session.send(
        "Page.createIsolatedWorld",
        {"frameId": frame_id, "worldName": WORLD_NAME, "grantUniveralAccess": False},
        budget=budget,
    )
    context = int(reply["executionContextId"])
    registry.set_world(frame_id, context)
    return context


async def element_by_handle(
    registry: FrameRegistry, frame_id: str, handle: int, token: str, group: str, budget: Budget
) -> tuple[str, int] | None:
    """The objectId of a live element by its handle, and the world (context id) it lives
    in; None when it is gone (removed, collected, or its document was replaced). ``token``
    names the world the handle was given in: another world's handles mean nothing."""
    session = registry.session_for(frame_id)
    for attempt in range(2):
        context = await world(registry, frame_id, budget)
        try:
            reply = await session.send(
                "Runtime.callFunctionOn",
                {
                    "functionDeclaration": _ELEMENT_BY_HANDLE,
                    "executionContextId": context,
                    "arguments": [{"value": handle}, {"value": token}],
                    "objectGroup": group,
                },
                budget=budget,
            )
        except CDPError:
            registry.forget_world(frame_id)  # a context that died unseen: try a fresh one
            if attempt:
                return None
            continue
        result = reply.get("result", {})
        object_id = result.get("objectId")
        if object_id and result.get("subtype") == "node":
            return str(object_id), context
        return None
    return None


class Walker:
    """One tab's walker. What it keeps between the tab's snapshots: each frame's
    listener elements held in its world, and the <iframe> that hosts each child frame;
    and the work a walk leaves running (releasing the objects it made), ended with the
    tab. What it keeps is for one frame registry: a new one (the tab attached again)
    starts afresh."""

    def __init__(self, name: str) -> None:
        self._tasks = TaskOwner(f"snapshot walker of {name}")
        self._memory: _Memory | None = None

    @property
    def running(self) -> int:
        """Background work still running (releases of the objects a walk made)."""
        return len(self._tasks)

    @property
    def closed(self) -> bool:
        """Cancelled with its tab: a release a later walk leaves is cancelled at once."""
        return self._tasks.closed

    @property
    def frames_held(self) -> frozenset[str]:
        """The frames of the registry walked last that this walker keeps memory of
        (what their worlds hold of the elements with click listeners)."""
        if self._memory is None or self._memory.registry() is None:
            return frozenset()
        return frozenset(self._memory.listeners)

    async def walk(
        self, registry: FrameRegistry, budget: Budget, *, all_nodes: bool
    ) -> dict[str, FrameWalk]:
        """Every frame's walk, keyed by frame id; frames that went away mid-way are left
        out."""
        memory = self._memory_of(registry)
        frames = registry.frames()
        grouped: set[CDPSession] = set()  # sessions that made objects in _GROUP
        results = await asyncio.gather(
            *(
                _walk(registry, memory.listeners, frame, budget, all_nodes, grouped)
                for frame in frames
            ),
            return_exceptions=True,
        )
        walks: dict[str, FrameWalk] = {}
        for frame, result in zip(frames, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, CDPError):  # timeouts and lost connections are real
                    raise result
                logger.debug("snapshot: walking frame %s failed: %s", frame.frame_id, result)
            elif result is not None:
                walks[frame.frame_id] = result
        children = [w for w in walks.values() if w.frame.parent_id and w.frame.parent_id in walks]
        known = memory.owners
        keys = [(w.frame.frame_id, walks[w.frame.parent_id or ""].token) for w in children]
        owners = await asyncio.gather(
            *(
                _owner(registry, w.frame, budget, grouped)
                if key not in known
                else _known(known[key])
                for w, key in zip(children, keys, strict=True)
            ),
            return_exceptions=True,
        )
        for session in grouped:
            self._tasks.spawn(_release(session), name=f"{self._tasks.name}: release")
        live: dict[tuple[str, str], int] = {}
        for walk, key, owner in zip(children, keys, owners, strict=True):
            if isinstance(owner, int):
                live[key] = owner
                walks[walk.frame.parent_id or ""].children[owner] = walk.frame.frame_id
            elif isinstance(owner, BaseException) and not isinstance(owner, CDPError):
                raise owner
        memory.owners = live  # frames gone since the last walk are forgotten
        return walks

    async def changed_since(
        self,
        registry: FrameRegistry,
        frames: frozenset[str],
        marks: tuple[FrameMark, ...],
        budget: Budget,
    ) -> bool:
        """Whether the frames walked then (``marks``, of the tab's ``frames`` then)
        changed since: a frame came or went, a document was replaced, or the walker's
        world saw the DOM change or the user type. One short call per frame, all at once;
        no walk."""
        if frozenset(f.frame_id for f in registry.frames()) != frames:
            return True
        calls = []
        for mark in marks:
            context = registry.world_of(mark.frame_id)
            if context is None or registry.loader_of(mark.frame_id) != mark.loader_id:
                return True
            calls.append((registry.session_for(mark.frame_id), context, mark))
        replies = await asyncio.gather(
            *(
                session.send(
                    "Runtime.callFunctionOn",
                    {
                        "functionDeclaration": _CHANGED_SINCE,
                        "executionContextId": context,
                        "arguments": [{"value": mark.token}, {"value": mark.changes}],
                        "returnByValue": True,
                    },
                    budget=budget,
                )
                for session, context, mark in calls
            ),
            return_exceptions=True,
        )
        for reply in replies:
            if isinstance(reply, CDPError):
                return True  # the world is gone with its document
            if isinstance(reply, BaseException):
                raise reply
            if reply.get("result", {}).get("value") is not False:
                return True
        return False

    def cancel(self) -> None:
        """Cancel the work still running; a later walk's is cancelled at once (the tab
        is closed: nothing may run on its behalf)."""
        self._tasks.cancel()

    async def close(self) -> None:
        """Cancel the work still running and wait until it has ended."""
        await self._tasks.close()

    def _memory_of(self, registry: FrameRegistry) -> _Memory:
        memory = self._memory
        if memory is None or memory.registry() is not registry:
            memory = self._memory = _Memory(weakref.ref(registry))
        return memory


async def _known(handle: int) -> int:
    return handle


@dataclass(slots=True)
class _Listeners:
    """What one frame's world already holds of the elements with click listeners:
    resolving an element costs a round trip that grows with the page, so each is
    resolved once per world and kept there (the walker keeps them by backend id)."""

    context: int
    token: str = ""
    installed: bool = False
    """Whether WALKER_JS was installed in this world."""
    document: str | None = None
    """The document's objectId in the page's main world (kept while that world lives)."""
    page_context: int | None = None
    resolved: set[int] = field(default_factory=set)
    drops: list[int] = field(default_factory=list)
    """Those of ``resolved`` with a drop listener (as of the last listener read)."""
    unresolvable: set[int] = field(default_factory=set)
    """Listener nodes this world cannot hold (they belong to another frame's document)."""


@dataclass(slots=True)
class _Memory:
    """What a walker keeps of one frame registry's frames."""

    registry: weakref.ref[FrameRegistry]
    owners: dict[tuple[str, str], int] = field(default_factory=dict)
    """(frame id, parent world's token) → handle of the frame's <iframe>. The owner of a
    frame does not change while both live (moving an iframe makes a new frame), so it is
    looked up once per parent world, not on every snapshot."""
    listeners: dict[str, _Listeners] = field(default_factory=dict)
    """frame id → what its world holds of the elements with click listeners."""


async def _walk(
    registry: FrameRegistry,
    memos: dict[str, _Listeners],
    frame: FrameInfo,
    budget: Budget,
    all_nodes: bool,
    grouped: set[CDPSession],
) -> FrameWalk | None:
    session = registry.session_for(frame.frame_id)
    for attempt in range(3):
        context = await world(registry, frame.frame_id, budget)
        memo = memos.get(frame.frame_id)
        if memo is None or memo.context != context:
            memo = memos[frame.frame_id] = _Listeners(context)
        page_context = registry.context_of(frame.frame_id)
        try:
            if memo.token and memo.document and memo.page_context == page_context:
                # Warm: the world holds the listener elements of the last walk. Walk
                # and ask for the listeners at once (the walk first: the page runs
                # them in order, and the walk is what the snapshot waits for); walk
                # again only if they changed.
                drops = memo.drops
                loop = asyncio.get_running_loop()
                walking = loop.create_task(
                    _call_walker(session, memo, all_nodes, [], [], [], drops, budget)
                )
                changes = loop.create_task(
                    _listener_changes(session, memo, page_context, budget, grouped)
                )
                # Both end here, whatever happens (a cancel reaches the one awaited): the
                # walk is awaited even when the listener read failed, so neither outlives
                # this call. (asyncio.gather would do the same with a hop more per frame.)
                try:
                    added, objects, gone = await changes
                finally:
                    data = await walking
                if added or gone or memo.drops != drops:
                    data = await _call_walker(
                        session, memo, all_nodes, added, objects, gone, memo.drops, budget
                    )
            else:
                added, objects, gone = await _listener_changes(
                    session, memo, page_context, budget, grouped
                )
                data = await _call_walker(
                    session, memo, all_nodes, added, objects, gone, memo.drops, budget
                )
        except _WalkerFailed:
            raise
        except CDPError:
            registry.forget_world(frame.frame_id)
            memos.pop(frame.frame_id, None)
            if attempt:
                raise
            continue
        token = str(data["w"])
        if memo.token and token != memo.token and memo.resolved:
            # The walker's state was lost (its world restarted): what it was given
            # before is gone with it; give it everything again.
            memos[frame.frame_id] = _Listeners(
                context,
                token,
                installed=True,
                document=memo.document,
                page_context=memo.page_context,
            )
            continue
        memo.token = token
        memo.resolved = (memo.resolved | set(added)) - set(gone)
        return FrameWalk(
            frame=frame,
            nodes=data["n"],
            scroll=(float(data["sx"]), float(data["sy"])),
            title=str(data.get("t", "")),
            token=token,
            changes=int(data.get("c", 0)),
            left_out=LeftOut(*data["o"]) if "o" in data else None,
        )
    return None


async def _call_walker(
    session: CDPSession,
    memo: _Listeners,
    all_nodes: bool,
    added: list[int],
    objects: list[str],
    gone: list[int],
    drops: list[int],
    budget: Budget,
) -> dict[str, Any]:
    """The frame's view, decoded (while the listeners' reply may still be on its way);
    ``drops``: the listener elements that take drops."""
    call = {
        "functionDeclaration": _RUN_WALKER,
        "executionContextId": memo.context,
        "arguments": [
            {"value": {"all": all_nodes, "added": added, "gone": gone, "drops": drops}},
            *({"objectId": object_id} for object_id in objects),
        ],
        "returnByValue": True,
    }
    for _ in range(2):
        if memo.installed:
            reply = await session.send("Runtime.callFunctionOn", call, budget=budget)
        else:
            # Sent together: a session's commands run in the order they are written.
            install, reply = await asyncio.gather(
                session.send(
                    "Runtime.evaluate",
                    {"expression": WALKER_JS, "contextId": memo.context},
                    budget=budget,
                ),
                session.send("Runtime.callFunctionOn", call, budget=budget),
            )
            _raise_for_exception(install)
            memo.installed = True
        _raise_for_exception(reply)
        value = reply.get("result", {}).get("value")
        if value is not None:
            data: dict[str, Any] = json.loads(value)
            return data
        memo.installed = False  # the world lost it (page script cannot reach it): again
    raise _WalkerFailed("Runtime.callFunctionOn", -32000, "snapshot walker failed: not installed")


class _WalkerFailed(CDPError):
    """The walker threw: a fault to report, not a world to replace."""


def _raise_for_exception(reply: dict[str, Any]) -> None:
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text", "")
        raise _WalkerFailed("Runtime.callFunctionOn", -32000, f"snapshot walker failed: {text}")


async def _listener_changes(
    session: CDPSession,
    memo: _Listeners,
    page_context: int | None,
    budget: Budget,
    grouped: set[CDPSession],
) -> tuple[list[int], list[str], list[int]]:
    """Elements with click-like or drop listeners that the world does not hold yet
    (backend ids and their objects there), and those it holds that have none any more.
    Those with drop listeners are noted in ``memo.drops``."""
    if memo.document is None or memo.page_context != page_context:
        # The document as the page's own world sees it: asking for the listeners of an
        # isolated world's document object crashes Chromium's renderer (156) after a
        # few rounds.
        if page_context is None:
            return [], [], []
        document = await session.send(
            "Runtime.evaluate",
            {"expression": "document", "contextId": page_context, "objectGroup": _KEEP},
            budget=budget,
        )
        memo.document = document.get("result", {}).get("objectId")
        memo.page_context = page_context
        if not memo.document:
            return [], [], []
    reply = await session.send(
        "DOMDebugger.getEventListeners",
        {"objectId": memo.document, "depth": -1, "pierce": True},
        budget=budget,
    )
    current: set[int] = set()
    drops: set[int] = set()
    for listener in reply.get("listeners", ()):
        node, kind = listener.get("backendNodeId"), listener.get("type")
        if node and kind in _CLICK_EVENTS:
            current.add(node)
        elif node and kind == _DROP_EVENT:
            current.add(node)
            drops.add(node)
    if len(current) > _MAX_LISTENER_NODES:
        logger.debug("snapshot: %d elements with click listeners: not resolved", len(current))
        memo.drops = []
        return [], [], sorted(memo.resolved)
    memo.drops = sorted(drops)
    gone = sorted(memo.resolved - current)
    new = sorted(current - memo.resolved - memo.unresolvable)
    if not new:
        return [], [], gone
    grouped.add(session)
    resolved = await asyncio.gather(
        *(
            session.send(
                "DOM.resolveNode",
                {"backendNodeId": node, "executionContextId": memo.context, "objectGroup": _GROUP},
                budget=budget,
            )
            for node in new
        ),
        return_exceptions=True,
    )
    added: list[int] = []
    objects: list[str] = []
    for node, result in zip(new, resolved, strict=True):
        object_id = result.get("object", {}).get("objectId") if isinstance(result, dict) else None
        if object_id:
            added.append(node)
            objects.append(object_id)
        else:
            memo.unresolvable.add(node)
    return added, objects, gone


async def _owner(
    registry: FrameRegistry, frame: FrameInfo, budget: Budget, grouped: set[CDPSession]
) -> int | None:
    """The handle of the <iframe> element that hosts ``frame``, in its parent's world."""
    assert frame.parent_id is not None
    parent = registry.session_for(frame.parent_id)
    grouped.add(parent)
    context = await world(registry, frame.parent_id, budget)
    owner = await parent.send("DOM.getFrameOwner", {"frameId": frame.frame_id}, budget=budget)
    node = await parent.send(
        "DOM.resolveNode",
        {
            "backendNodeId": owner["backendNodeId"],
            "executionContextId": context,
            "objectGroup": _GROUP,
        },
        budget=budget,
    )
    reply = await parent.send(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": _HANDLE_OF,
            "objectId": node["object"]["objectId"],
            "returnByValue": True,
        },
        budget=budget,
    )
    value = reply.get("result", {}).get("value")
    return int(value) if isinstance(value, int | float) else None


async def _release(session: CDPSession) -> None:
    """Free the listener and owner objects (off the snapshot's critical path)."""
    try:
        await session.send(
            "Runtime.releaseObjectGroup", {"objectGroup": _GROUP}, budget=Budget(2.0)
        )
    except TabwardenError as exc:  # best effort: the group dies with its context anyway
        logger.debug("releasing snapshot objects failed: %s", exc)
