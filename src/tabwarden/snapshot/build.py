"""Turn the walker's per-frame views into one node tree with refs.

Pure: takes what :mod:`.walker` returned and gives :class:`SnapshotNode` trees.
Iframes (same-origin and OOPIF) are inlined under their iframe node, with bounds
moved into top-document coordinates.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .model import Bounds, SnapshotNode
from .refs import RefTable
from .walker import FrameWalk

__all__ = ["build_tree"]

# Bits of the walker's "f" field.
_DISABLED, _FOCUSED, _REQUIRED, _READONLY = 1, 2, 4, 8
_FIELDS = {
    "ck": "checked",
    "s": "selected",
    "pr": "pressed",
    "e": "expanded",
    "l": "level",
    "u": "url",
    "v": "value",
    "ac": "accept",
}
"""The walker's keys that are node fields as they come."""


def build_tree(walks: dict[str, FrameWalk], top_frame_id: str, refs: RefTable) -> SnapshotNode:
    """The tab's node tree: the top frame, with every walked child frame inlined."""
    builder = _Builder(walks)
    root = builder.frame(top_frame_id, (0.0, 0.0), ())
    builder.assign_refs(root, refs)
    builder.name_covers()
    return root


class _Builder:
    def __init__(self, walks: dict[str, FrameWalk]) -> None:
        self.walks = walks
        self.by_handle: dict[tuple[str, int], SnapshotNode] = {}
        self.covered: list[tuple[SnapshotNode, dict[str, Any]]] = []

    def frame(
        self,
        frame_id: str,
        origin: tuple[float, float],
        seen: tuple[str, ...],
        owner_name: str = "",
    ) -> SnapshotNode:
        """A frame's nodes; ``origin`` is where its viewport's (0, 0) lies in the top
        document, ``owner_name`` the name of its <iframe>."""
        document = SnapshotNode(role="document", frame=frame_id)
        walk = self.walks.get(frame_id)
        if walk is None or frame_id in seen:
            return document
        document.name = walk.title
        dx, dy = origin[0] - walk.scroll[0], origin[1] - walk.scroll[1]
        if not walk.frame.parent_id:
            dx, dy = 0.0, 0.0  # the top document is the reference
        inner = (*seen, frame_id)
        document.children = [self.node(raw, walk, dx, dy, inner) for raw in walk.nodes]
        if owner_name and walk.nodes and walk.nodes[0].get("d") and not document.children[0].name:
            # An editable document (a rich-text editor's frame) is named by its <iframe>
            # when its body has no name of its own; a cross-origin body cannot read it.
            document.children[0].name = owner_name
        return document

    def node(
        self, raw: dict[str, Any], walk: FrameWalk, dx: float, dy: float, seen: tuple[str, ...]
    ) -> SnapshotNode:
        frame_id = walk.frame.frame_id
        role = raw["r"]
        get = raw.get
        if role == "text":
            return SnapshotNode(role="text", text=get("t", ""), frame=frame_id)
        box = get("b")
        handle = get("h")
        node = SnapshotNode(
            role,
            get("n", ""),
            frame=frame_id,
            handle=handle,
            bounds=None if box is None else Bounds(box[0] + dx, box[1] + dy, box[2], box[3]),
        )
        # A node carries a few of the walker's keys: set those (most fields keep their
        # defaults, and passing them all costs more than the rest of the build).
        for key, value in raw.items():
            field = _FIELDS.get(key)
            if field is not None:
                setattr(node, field, value)
            elif key == "f":
                node.disabled = bool(value & _DISABLED)
                node.focused = bool(value & _FOCUSED)
                node.required = bool(value & _REQUIRED)
                node.readonly = bool(value & _READONLY)
            elif key == "p":
                node.password = bool(value)
            elif key == "k":
                node.clickable = bool(value)
            elif key == "m":
                node.multiple = bool(value)
            elif key == "hd":
                node.hidden = bool(value)
        if handle is not None:
            self.by_handle[(frame_id, handle)] = node
        if "x" in raw:
            self.covered.append((node, raw["x"]))
        children = raw.get("c")
        if children:
            node.children = [self.node(child, walk, dx, dy, seen) for child in children]
        if role == "iframe" and handle is not None:
            child_frame = walk.children.get(handle)
            if child_frame is not None:
                content = raw.get("o") or (box[:2] if box else (0.0, 0.0))
                node.children.append(
                    self.frame(child_frame, (content[0] + dx, content[1] + dy), seen, node.name)
                )
        return node

    def assign_refs(self, root: SnapshotNode, refs: RefTable) -> None:
        counts: dict[tuple[str, str], int] = defaultdict(int)
        for node in root.walk():
            if node.handle is None or node.role in ("text", "document"):
                continue
            walk = self.walks.get(node.frame)
            key = (node.role, node.name)
            nth = counts[key]
            counts[key] += 1
            node.ref = refs.assign(
                node.frame,
                node.handle,
                walk.frame.loader_id if walk else "",
                node.role,
                node.name,
                nth,
                world=walk.token if walk else "",
            )

    def name_covers(self) -> None:
        """``[covered by …]``: the covering element by role, name and ref when it has
        them, else a CSS-like name."""
        for node, cover in self.covered:
            other = self.by_handle.get((node.frame, cover["h"])) if "h" in cover else None
            if other is not None and other.ref and other.role not in ("generic", "text"):
                name = f' "{other.name[:40]}"' if other.name else ""
                node.covered_by = f"{other.role}{name} ({other.ref})"
            else:
                node.covered_by = str(cover.get("d") or "another element")
