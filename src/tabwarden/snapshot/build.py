"""Merge per-frame accessibility trees with layout into one node tree with refs.

Pure: takes what :mod:`.capture` fetched and returns :class:`SnapshotNode`
trees. Iframes (same-origin and OOPIF) are inlined under their iframe node with
bounds moved into top-document coordinates.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .layout import DocumentLayout
from .model import INTERACTIVE_ROLES, Bounds, SnapshotNode
from .refs import RefTable

__all__ = ["FrameData", "build_tree"]

_SKIP_ROLES = frozenset({"inlinetextbox", "linebreak"})
_TEXT_ROLES = frozenset({"statictext"})
_IFRAME_ROLES = frozenset({"iframe", "iframepresentational"})
_VALUE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
_TEXT_FIELD_ROLES = frozenset({"textbox", "searchbox"})
_ROLE_NAMES = {
    "rootwebarea": "document",
    "iframe": "iframe",
    "statictext": "text",
    "labeltext": "label",
    "menulistpopup": "listbox",
    "listboxoption": "option",
}
_MAX_NAME = 200
_MAX_COVER_CANDIDATES = 300


@dataclass(slots=True)
class FrameData:
    """One frame's accessibility nodes and the layout of its document."""

    frame_id: str
    loader_id: str
    ax_nodes: list[dict[str, Any]]
    layout: DocumentLayout | None
    children: dict[int, str] = field(default_factory=dict)
    """backendDOMNodeId of an <iframe> in this frame → the frame id it hosts."""


def build_tree(frames: dict[str, FrameData], top_frame_id: str, refs: RefTable) -> SnapshotNode:
    """The tab's node tree: the top frame, with every captured child frame inlined."""
    builder = _Builder(frames, refs)
    root = builder.frame(top_frame_id, None, ())
    builder.assign_refs(root)
    builder.mark_covered()
    return root


class _Builder:
    def __init__(self, frames: dict[str, FrameData], refs: RefTable) -> None:
        self.frames = frames
        self.refs = refs
        # (node, frame data) of every element node, for cover checks after refs exist.
        self.elements: list[tuple[SnapshotNode, FrameData]] = []
        self.by_backend: dict[tuple[str, int], SnapshotNode] = {}

    # ---- frames --------------------------------------------------------------------

    def frame(
        self, frame_id: str, origin: tuple[float, float] | None, seen: tuple[str, ...]
    ) -> SnapshotNode:
        """A frame's nodes; ``origin`` is where a child frame's viewport sits in the top
        document (None for the top frame, whose coordinates are the reference)."""
        data = self.frames.get(frame_id)
        if data is None or frame_id in seen or not data.ax_nodes:
            return SnapshotNode(role="document", frame=frame_id)
        layout = data.layout
        if layout is not None and origin is not None:
            layout.offset_x = origin[0] - layout.scroll_x
            layout.offset_y = origin[1] - layout.scroll_y
        by_id = {node["nodeId"]: node for node in data.ax_nodes}
        root = next((n for n in data.ax_nodes if n.get("parentId") not in by_id), data.ax_nodes[0])
        document = SnapshotNode(role="document", frame=frame_id)
        document.name = _value(root.get("name"))
        for child_id in root.get("childIds", ()):
            child = by_id.get(child_id)
            if child is not None:
                document.children.extend(self.node(child, by_id, data, False, (*seen, frame_id)))
        return document

    # ---- nodes ---------------------------------------------------------------------

    def node(
        self,
        ax: dict[str, Any],
        by_id: dict[str, dict[str, Any]],
        data: FrameData,
        inside_interactive: bool,
        seen: tuple[str, ...],
    ) -> list[SnapshotNode]:
        """Snapshot nodes for one AX node: itself, or its children when it is not shown."""
        role_raw = _value(ax.get("role")).lower()
        if role_raw in _SKIP_ROLES:
            return []
        layout = data.layout
        backend = ax.get("backendDOMNodeId")
        dom = layout.node(backend) if layout is not None and backend is not None else None
        ignored = bool(ax.get("ignored")) or role_raw in ("none", "presentation", "")
        clickable = (
            not inside_interactive
            and role_raw not in INTERACTIVE_ROLES
            and role_raw not in _TEXT_ROLES
            and role_raw != "labeltext"
            and dom is not None
            and layout is not None
            and self._handles_clicks(layout, dom)
        )
        if ignored and not clickable:
            return self.children(ax, by_id, data, inside_interactive, seen)
        role = _ROLE_NAMES.get(role_raw, role_raw)
        if clickable and role_raw in ("generic", "none", ""):
            draggable = (
                layout is not None
                and dom is not None
                and layout.attribute(dom, "draggable") == "true"
            )
            role = "draggable" if draggable else "clickable"
        editable_root = role_raw == "generic" and _editable(ax) and not inside_interactive
        if editable_root:
            role, clickable = "textbox", False  # a contenteditable region
        node = SnapshotNode(role=role, frame=data.frame_id, backend_node_id=backend)
        node.name = _value(ax.get("name"))[:_MAX_NAME]
        node.clickable = clickable
        if role_raw in _TEXT_ROLES:
            node.text = node.name
            node.name = ""
        if dom is not None and layout is not None:
            node.bounds = layout.box(dom) if layout.visible(dom) else None
            attrs = layout.attributes.get(dom, {})
            node.password = attrs.get("type", "").lower() == "password"
            if role == "link" and attrs.get("href"):
                node.url = attrs["href"]
        _apply_properties(node, ax.get("properties", ()))
        if role_raw in _VALUE_ROLES and not node.password:
            value = _value(ax.get("value"))
            node.value = value[:_MAX_NAME] if value else None
        if backend is not None:
            self.by_backend[(data.frame_id, backend)] = node
            if dom is not None:
                self.elements.append((node, data))
        if role_raw in _IFRAME_ROLES and backend is not None:
            child_frame = data.children.get(backend)
            if child_frame is not None:
                origin = self._content_origin(layout, dom)
                node.children.append(self.frame(child_frame, origin, seen))
            return [node]
        if editable_root:
            node.children = self.children(ax, by_id, data, True, seen)
            node.value = _text_of(node)[:_MAX_NAME] or None
            node.children = []
            return [node]
        if node.password or role_raw in _TEXT_FIELD_ROLES:
            return [node]  # inner text is the value (masked for passwords), shown already
        interactive = inside_interactive or role_raw in INTERACTIVE_ROLES or clickable
        node.children = self.children(ax, by_id, data, interactive, seen)
        if clickable and any(child.interactive for child in node.walk()[1:]):
            # A wrapper (a <label> around a checkbox, a card around its link): the
            # controls inside are what to act on.
            node.clickable = False
            if ignored:
                return node.children
            node.role = _ROLE_NAMES.get(role_raw, role_raw)
        elif clickable and not node.name:
            node.name = _text_of(node)[:_MAX_NAME]
        return [node]

    def children(
        self,
        ax: dict[str, Any],
        by_id: dict[str, dict[str, Any]],
        data: FrameData,
        inside_interactive: bool,
        seen: tuple[str, ...],
    ) -> list[SnapshotNode]:
        out: list[SnapshotNode] = []
        for child_id in ax.get("childIds", ()):
            child = by_id.get(child_id)
            if child is not None:
                out.extend(self.node(child, by_id, data, inside_interactive, seen))
        return out

    # ---- refs and covering ---------------------------------------------------------

    def assign_refs(self, root: SnapshotNode) -> None:
        counts: dict[tuple[str, str], int] = defaultdict(int)
        for node in root.walk():
            if node.backend_node_id is None or node.role in ("text", "document"):
                continue
            data = self.frames.get(node.frame)
            key = (node.role, node.name)
            nth = counts[key]
            counts[key] += 1
            node.ref = self.refs.assign(
                node.frame,
                node.backend_node_id,
                data.loader_id if data else "",
                node.role,
                node.name,
                nth,
            )

    def mark_covered(self) -> None:
        candidates: dict[str, list[int]] = {}
        for node, data in self.elements:
            layout = data.layout
            if layout is None or not node.interactive or node.bounds is None:
                continue
            if data.frame_id not in candidates:
                candidates[data.frame_id] = _overlay_candidates(layout)
            dom = layout.node(node.backend_node_id) if node.backend_node_id is not None else None
            if dom is None:
                continue
            cover = _covering(layout, dom, node.bounds, candidates[data.frame_id])
            if cover is not None:
                node.covered_by = self._describe(layout, data.frame_id, cover)

    def _describe(self, layout: DocumentLayout, frame_id: str, dom: int) -> str:
        node = dom
        while node >= 0:
            backend = layout.backend_of_node[node]
            snap = self.by_backend.get((frame_id, backend))
            if snap is not None and snap.ref and snap.role not in ("generic", "text"):
                name = f' "{snap.name[:40]}"' if snap.name else ""
                return f"{snap.role}{name} ({snap.ref})"
            node = layout.parent[node]
        return layout.describe(dom)

    @staticmethod
    def _content_origin(layout: DocumentLayout | None, dom: int | None) -> tuple[float, float]:
        if layout is None or dom is None:
            return (0.0, 0.0)
        return layout.content_origin(dom) or (0.0, 0.0)

    @staticmethod
    def _handles_clicks(layout: DocumentLayout, dom: int) -> bool:
        if dom in layout.clickable or layout.attribute(dom, "draggable") == "true":
            return layout.visible(dom)
        if not layout.pointer_cursor(dom):
            return False
        parent = layout.parent[dom]
        # Only where the pointer cursor starts: its descendants inherit it.
        return (parent < 0 or not layout.pointer_cursor(parent)) and layout.visible(dom)


def _overlay_candidates(layout: DocumentLayout) -> list[int]:
    """Positioned, visible, hit-testable elements: what can cover others."""
    found = []
    for node in layout.layout_of_node:
        if layout.positioned(node) and layout.pointer_events(node) and layout.visible(node):
            box = layout.box(node)
            if box is not None:
                found.append((box.width * box.height, node))
    found.sort(reverse=True)
    return [node for _, node in found[:_MAX_COVER_CANDIDATES]]


def _covering(
    layout: DocumentLayout, dom: int, bounds: Bounds, candidates: list[int]
) -> int | None:
    """The topmost candidate painted over the element's centre, if any."""
    x, y = bounds.center
    paint = layout.paint(dom)
    best: int | None = None
    best_paint = paint
    for other in candidates:
        other_paint = layout.paint(other)
        if other_paint <= best_paint:
            continue
        box = layout.box(other)
        if box is None or not box.contains(x, y):
            continue
        if layout.is_ancestor(other, dom) or layout.is_ancestor(dom, other):
            continue
        best, best_paint = other, other_paint
    return best


def _apply_properties(node: SnapshotNode, properties: Any) -> None:
    for prop in properties:
        name = prop.get("name")
        value = prop.get("value", {}).get("value")
        if name == "disabled":
            node.disabled = bool(value)
        elif name == "focused":
            node.focused = bool(value)
        elif name == "selected":
            node.selected = bool(value)
        elif name == "checked":
            node.checked = "mixed" if value == "mixed" else value == "true"
        elif name == "pressed":
            node.pressed = "mixed" if value == "mixed" else value == "true"
        elif name == "expanded":
            node.expanded = bool(value)
        elif name == "level":
            node.level = int(value) if value is not None else None
        elif name == "required":
            node.required = bool(value)
        elif name == "readonly":
            node.readonly = bool(value)
        elif name == "url" and node.role == "link" and not node.url:
            node.url = str(value)


def _editable(ax: dict[str, Any]) -> bool:
    return any(
        prop.get("name") == "editable" and prop.get("value", {}).get("value")
        for prop in ax.get("properties", ())
    )


def _value(field: Any) -> str:
    if isinstance(field, dict):
        value = field.get("value")
        return "" if value is None else str(value)
    return ""


def _text_of(node: SnapshotNode) -> str:
    parts = [n.text for n in node.walk() if n.text]
    return " ".join(" ".join(parts).split())
