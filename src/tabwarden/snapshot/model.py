"""The snapshot's node shape (the Browser V2 node: ref, role, name, value, text, bounds…)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["INTERACTIVE_ROLES", "Bounds", "LeftOut", "SnapshotNode"]

# Roles an agent acts on. Chromium's AX role names, lower-cased.
INTERACTIVE_ROLES = frozenset(
    {
        "button",
        "link",
        "textbox",
        "searchbox",
        "combobox",
        "listbox",
        "option",
        "checkbox",
        "radio",
        "switch",
        "slider",
        "spinbutton",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "tab",
        "treeitem",
        "gridcell",
        "columnheader",
        "disclosuretriangle",
        "popupbutton",
        "togglebutton",
        "date",
        "datetime",
        "inputtime",
        "colorwell",
        "draggable",
        "filechooser",
        "dropzone",
    }
)


class Bounds(NamedTuple):
    """CSS pixels in the top document's coordinates (scroll included). A named tuple:
    a snapshot makes one per element, and a frozen dataclass costs twice as much."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x <= self.x + self.width and self.y <= y <= self.y + self.height

    def shifted(self, dx: float, dy: float) -> Bounds:
        return Bounds(self.x + dx, self.y + dy, self.width, self.height)

    def to_dict(self) -> dict[str, float]:
        return {
            "x": round(self.x, 1),
            "y": round(self.y, 1),
            "width": round(self.width, 1),
            "height": round(self.height, 1),
        }


class LeftOut(NamedTuple):
    """What the interactive view leaves out and only the full view shows, as the walker
    counted it in the interactive walk."""

    text_blocks: int = 0
    tables: int = 0
    rows: int = 0
    """Rows of those tables, together."""
    images: int = 0

    def plus(self, other: LeftOut) -> LeftOut:
        return LeftOut(*(a + b for a, b in zip(self, other, strict=True)))

    @property
    def empty(self) -> bool:
        return not any(self)


@dataclass(slots=True)
class SnapshotNode:
    role: str
    name: str = ""
    ref: str | None = None
    value: str | None = None
    text: str | None = None
    """Text content of a text node (full mode)."""
    bounds: Bounds | None = None
    disabled: bool = False
    focused: bool = False
    selected: bool | None = None
    checked: bool | str | None = None
    """True, False, "mixed", or None where the role has no checked state."""
    expanded: bool | None = None
    pressed: bool | str | None = None
    level: int | None = None
    url: str | None = None
    frame: str = ""
    required: bool = False
    readonly: bool = False
    password: bool = False
    clickable: bool = False
    """No interactive role, but the page handles clicks on it (cursor:pointer or a listener)."""
    accept: str | None = None
    """A file chooser's ``accept`` (file types it asks for, e.g. ``.pdf,image/*``)."""
    multiple: bool = False
    """A file chooser that takes several files."""
    hidden: bool = False
    """A file input the page hides itself (a label or button of the page opens it): listed
    without bounds, as uploads need no pointer on it."""
    covered_by: str | None = None
    """What covers the element's centre, e.g. 'dialog "Cookies" (e40)'."""
    handle: int | None = None
    """The element's handle in tabwarden's isolated world of its frame (what refs name)."""
    children: list[SnapshotNode] = field(default_factory=list)

    @property
    def interactive(self) -> bool:
        return self.role in INTERACTIVE_ROLES or self.clickable

    def walk(self) -> list[SnapshotNode]:
        """This node and its descendants, in document order."""
        out: list[SnapshotNode] = []
        stack = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form; password values never appear (they are never captured)."""
        data: dict[str, Any] = {
            "ref": self.ref,
            "role": self.role,
            "name": self.name,
            "value": self.value,
            "text": self.text,
            "bounds": self.bounds.to_dict() if self.bounds else None,
            "disabled": self.disabled,
            "focused": self.focused,
            "selected": self.selected,
            "checked": self.checked,
            "expanded": self.expanded,
            "level": self.level,
            "url": self.url,
            "frame": self.frame,
        }
        if self.covered_by:
            data["covered_by"] = self.covered_by
        if self.clickable:
            data["clickable"] = True
        if self.role == "filechooser":
            data.update(accept=self.accept, multiple=self.multiple, hidden=self.hidden)
        if self.children:
            data["children"] = [child.to_dict() for child in self.children]
        return data
