"""Fetch what a snapshot is made of, concurrently, from every session of a tab.

Per session that renders frames: one ``DOMSnapshot.captureSnapshot`` (layout,
styles, paint order, clickability). Per frame: ``Accessibility.getFullAXTree``
with its ``frameId``. Per OOPIF: ``DOM.getFrameOwner`` in its parent, to know
which <iframe> it fills. All issued at once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, TypeVar

from ..budget import Budget
from ..cdp.session import CDPSession
from ..errors import CDPError
from ..frames import FrameRegistry
from .build import FrameData
from .layout import STYLES, DocumentLayout, parse_documents

__all__ = ["capture_frames"]

logger = logging.getLogger("tabwarden.snapshot")


async def capture_frames(registry: FrameRegistry, budget: Budget) -> dict[str, FrameData]:
    """Raw data for every frame of the tab, keyed by frame id (failed frames left out)."""
    frames = registry.frames()
    sessions = {f.session_id: registry.session_for(f.frame_id) for f in frames}
    layouts_by_session = {sid: _layout(session, budget) for sid, session in sessions.items()}
    ax_by_frame = {
        f.frame_id: _ax_tree(registry.session_for(f.frame_id), f.frame_id, budget) for f in frames
    }
    owners = {
        f.frame_id: _frame_owner(registry.session_for(f.parent_id), f.frame_id, budget)
        for f in frames
        if f.is_oopif and f.parent_id
    }
    layout_results, ax_results, owner_results = await asyncio.gather(
        asyncio.gather(*layouts_by_session.values(), return_exceptions=True),
        asyncio.gather(*ax_by_frame.values(), return_exceptions=True),
        asyncio.gather(*owners.values(), return_exceptions=True),
    )
    layouts = _succeeded("layout", list(layouts_by_session), layout_results)
    ax = _succeeded("accessibility tree", list(ax_by_frame), ax_results)
    owner_of = _succeeded("frame owner", list(owners), owner_results)
    return _assemble(registry, layouts, ax, owner_of)


K = TypeVar("K")
V = TypeVar("V")


def _succeeded(what: str, keys: list[K], results: list[V | BaseException]) -> dict[K, V]:
    """Keep what succeeded; a frame that went away mid-snapshot is left out, not fatal."""
    out: dict[K, V] = {}
    for key, result in zip(keys, results, strict=True):
        if isinstance(result, BaseException):
            if not isinstance(result, CDPError):  # timeouts and lost connections are real
                raise result
            logger.debug("snapshot: the %s of %s failed: %s", what, key, result)
        else:
            out[key] = result
    return out


def _assemble(
    registry: FrameRegistry,
    layouts: dict[str | None, list[DocumentLayout]],
    ax: dict[str, list[dict[str, Any]]],
    owner_of: dict[str, int],
) -> dict[str, FrameData]:
    layout_of_frame: dict[str, DocumentLayout] = {}
    children: dict[str, dict[int, str]] = {}
    for documents in layouts.values():
        for doc in documents:
            layout_of_frame[doc.frame_id] = doc
            for iframe_node, child_index in doc.child_document.items():
                if 0 <= child_index < len(documents):
                    backend = doc.backend_of_node[iframe_node]
                    children.setdefault(doc.frame_id, {})[backend] = documents[child_index].frame_id
    for frame in registry.frames():
        if frame.frame_id in owner_of and frame.parent_id:
            children.setdefault(frame.parent_id, {})[owner_of[frame.frame_id]] = frame.frame_id
    return {
        frame.frame_id: FrameData(
            frame_id=frame.frame_id,
            loader_id=frame.loader_id,
            ax_nodes=ax.get(frame.frame_id, []),
            layout=layout_of_frame.get(frame.frame_id),
            children=children.get(frame.frame_id, {}),
        )
        for frame in registry.frames()
    }


async def _layout(session: CDPSession, budget: Budget) -> list[DocumentLayout]:
    reply = await session.send(
        "DOMSnapshot.captureSnapshot",
        {"computedStyles": list(STYLES), "includePaintOrder": True},
        budget=budget,
    )
    return parse_documents(reply)


async def _ax_tree(session: CDPSession, frame_id: str, budget: Budget) -> list[dict[str, Any]]:
    reply = await session.send("Accessibility.getFullAXTree", {"frameId": frame_id}, budget=budget)
    nodes: list[dict[str, Any]] = reply.get("nodes", [])
    return nodes


async def _frame_owner(session: CDPSession, frame_id: str, budget: Budget) -> int:
    reply = await session.send("DOM.getFrameOwner", {"frameId": frame_id}, budget=budget)
    return int(reply["backendNodeId"])
