"""What the supervisor knows about a page, frozen: safe to read from any thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from ..diagnostics.console import ConsoleEntry
from .dialogs import ClosedDialog, DialogPolicy, PendingDialog

if TYPE_CHECKING:
    from ..page import Page

__all__ = ["ConnectionState", "FrameNode", "SupervisorState", "frame_tree"]

FRAME_TREE_CAP = 30
OOPIF_DEPTH_CAP = 2

ConnectionState = Literal["connected", "reconnecting", "gave_up", "closed"]


@dataclass(frozen=True, slots=True)
class FrameNode:
    frame_id: str
    url: str
    origin: str
    parent: str | None
    is_oopif: bool
    session_id: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "frame_id": self.frame_id,
            "url": self.url,
            "origin": self.origin,
            "parent": self.parent,
            "is_oopif": self.is_oopif,
            "cdp_session": self.session_id,
        }


@dataclass(frozen=True, slots=True)
class SupervisorState:
    """What the supervisor knows, frozen: safe to read from any thread."""

    pending_dialogs: tuple[PendingDialog, ...] = ()
    recent_dialogs: tuple[ClosedDialog, ...] = ()
    console_errors: tuple[ConsoleEntry, ...] = ()
    frame_tree: tuple[FrameNode, ...] = ()
    frame_tree_truncated: bool = False
    connection: ConnectionState = "connected"
    policy: DialogPolicy = "must_respond"
    bridge: str = "off"
    """The dialog bridge: off, on, or "failed: …" (dialogs may then be auto-dismissed)."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pending_dialogs": [d.to_dict() for d in self.pending_dialogs],
            "frame_tree": [f.to_dict() for f in self.frame_tree],
            "connection": self.connection,
            "dialog_bridge": self.bridge,
        }
        if self.frame_tree_truncated:
            data["frame_tree_truncated"] = True
        if self.recent_dialogs:
            data["recent_dialogs"] = [d.to_dict() for d in self.recent_dialogs]
        return data


def frame_tree(page: Page) -> tuple[tuple[FrameNode, ...], bool]:
    """The tab's frames, parents first, capped at 30 entries and OOPIF depth 2."""
    if page.attached_frames is None:
        return (), False
    registry = page.attached_frames
    frames = {f.frame_id: f for f in registry.frames()}
    children: dict[str | None, list[str]] = {}
    for info in frames.values():
        parent = info.parent_id if info.parent_id in frames else None
        children.setdefault(parent, []).append(info.frame_id)
    out: list[FrameNode] = []
    truncated = False
    queue: list[tuple[str, int]] = [(fid, 0) for fid in children.get(None, [])]
    while queue:
        frame_id, depth = queue.pop(0)
        info = frames[frame_id]
        oopif_depth = depth + (1 if info.is_oopif else 0)
        if oopif_depth > OOPIF_DEPTH_CAP or len(out) >= FRAME_TREE_CAP:
            truncated = True
            continue
        parts = urlsplit(info.url)
        out.append(
            FrameNode(
                frame_id=frame_id,
                url=info.url,
                origin=f"{parts.scheme}://{parts.netloc}" if parts.netloc else parts.scheme,
                parent=info.parent_id,
                is_oopif=info.is_oopif,
                session_id=info.session_id,
            )
        )
        queue.extend((child, oopif_depth) for child in children.get(frame_id, []))
    return tuple(out), truncated
