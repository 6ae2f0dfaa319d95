"""Layout facts from ``DOMSnapshot.captureSnapshot``, indexed by backendDOMNodeId.

One ``DocumentLayout`` per captured document (a frame rendered in that
process): bounds, a few computed styles, paint order, clickability and the
attributes the snapshot needs, all in flat arrays as CDP sends them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Bounds

__all__ = ["STYLES", "DocumentLayout", "parse_documents"]

STYLES = (
    "cursor",
    "visibility",
    "position",
    "pointer-events",
    "display",
    "border-left-width",
    "border-top-width",
)
_CURSOR, _VISIBILITY, _POSITION, _POINTER_EVENTS, _DISPLAY, _BORDER_LEFT, _BORDER_TOP = range(
    len(STYLES)
)


@dataclass(slots=True)
class DocumentLayout:
    frame_id: str
    url: str
    scroll_x: float
    scroll_y: float
    offset_x: float = 0.0
    offset_y: float = 0.0
    """Where this document's (0, 0) lies in the top document (set for child frames
    when the tree is built)."""
    node_of_backend: dict[int, int] = field(default_factory=dict)
    parent: list[int] = field(default_factory=list)
    node_name: list[str] = field(default_factory=list)
    layout_of_node: dict[int, int] = field(default_factory=dict)
    bounds: list[list[float]] = field(default_factory=list)
    styles: list[list[str]] = field(default_factory=list)
    paint_order: list[int] = field(default_factory=list)
    clickable: set[int] = field(default_factory=set)
    attributes: dict[int, dict[str, str]] = field(default_factory=dict)
    child_document: dict[int, int] = field(default_factory=dict)
    """iframe node index → index of its document in the same capture."""
    backend_of_node: list[int] = field(default_factory=list)

    # ---- queries by backendDOMNodeId ----------------------------------------------------

    def node(self, backend_id: int) -> int | None:
        return self.node_of_backend.get(backend_id)

    def box(self, node: int) -> Bounds | None:
        """Bounds in top-document coordinates, or None when the node is not rendered."""
        layout = self.layout_of_node.get(node)
        if layout is None:
            return None
        x, y, w, h = self.bounds[layout][:4]
        return Bounds(x + self.offset_x, y + self.offset_y, w, h)

    def style(self, node: int, which: int) -> str:
        layout = self.layout_of_node.get(node)
        if layout is None or layout >= len(self.styles):
            return ""
        values = self.styles[layout]
        return values[which] if which < len(values) else ""

    def visible(self, node: int) -> bool:
        box = self.box(node)
        if box is None or box.width <= 0 or box.height <= 0:
            return False
        return self.style(node, _VISIBILITY) not in ("hidden", "collapse")

    def pointer_cursor(self, node: int) -> bool:
        return self.style(node, _CURSOR) == "pointer"

    def positioned(self, node: int) -> bool:
        return self.style(node, _POSITION) in ("fixed", "absolute", "sticky")

    def pointer_events(self, node: int) -> bool:
        return self.style(node, _POINTER_EVENTS) != "none"

    def paint(self, node: int) -> int:
        layout = self.layout_of_node.get(node)
        if layout is None or layout >= len(self.paint_order):
            return -1
        return self.paint_order[layout]

    def attribute(self, node: int, name: str) -> str | None:
        return self.attributes.get(node, {}).get(name)

    def is_ancestor(self, ancestor: int, node: int) -> bool:
        while node >= 0:
            if node == ancestor:
                return True
            node = self.parent[node]
        return False

    def content_origin(self, iframe_node: int) -> tuple[float, float] | None:
        """Top-document position of an iframe's content (border box + border widths)."""
        layout = self.layout_of_node.get(iframe_node)
        if layout is None:
            return None
        x, y = self.bounds[layout][:2]
        left = _px(self.style(iframe_node, _BORDER_LEFT))
        top = _px(self.style(iframe_node, _BORDER_TOP))
        return x + left + self.offset_x, y + top + self.offset_y

    def describe(self, node: int) -> str:
        """A short CSS-like name for an element that has no accessible name."""
        name = self.node_name[node].lower()
        attrs = self.attributes.get(node, {})
        if attrs.get("id"):
            return f"{name}#{attrs['id']}"
        if attrs.get("class"):
            return f"{name}." + ".".join(attrs["class"].split()[:2])
        return name


def _px(value: str) -> float:
    try:
        return float(value.removesuffix("px")) if value else 0.0
    except ValueError:
        return 0.0


def parse_documents(snapshot: dict[str, Any]) -> list[DocumentLayout]:
    """Parse a ``DOMSnapshot.captureSnapshot`` reply (styles as listed in STYLES)."""
    strings: list[str] = snapshot.get("strings", [])

    def s(index: int) -> str:
        return strings[index] if 0 <= index < len(strings) else ""

    documents = []
    for doc in snapshot.get("documents", []):
        nodes = doc["nodes"]
        layout = doc["layout"]
        parsed = DocumentLayout(
            frame_id=s(doc.get("frameId", -1)),
            url=s(doc.get("documentURL", -1)),
            scroll_x=doc.get("scrollOffsetX", 0.0),
            scroll_y=doc.get("scrollOffsetY", 0.0),
        )
        backend_ids: list[int] = nodes.get("backendNodeId", [])
        parsed.backend_of_node = backend_ids
        parsed.node_of_backend = {b: i for i, b in enumerate(backend_ids)}
        parsed.parent = nodes.get("parentIndex", [])
        parsed.node_name = [s(i) for i in nodes.get("nodeName", [])]
        parsed.layout_of_node = {n: i for i, n in enumerate(layout.get("nodeIndex", []))}
        parsed.bounds = layout.get("bounds", [])
        parsed.styles = [[s(i) for i in row] for row in layout.get("styles", [])]
        parsed.paint_order = layout.get("paintOrders", [])
        parsed.clickable = set(nodes.get("isClickable", {}).get("index", []))
        for index, attrs in enumerate(nodes.get("attributes", [])):
            if attrs:
                parsed.attributes[index] = {
                    s(attrs[i]).lower(): s(attrs[i + 1]) for i in range(0, len(attrs) - 1, 2)
                }
        content = nodes.get("contentDocumentIndex", {})
        parsed.child_document = dict(
            zip(content.get("index", []), content.get("value", []), strict=False)
        )
        documents.append(parsed)
    return documents
