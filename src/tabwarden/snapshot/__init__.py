"""Snapshots: the page as an accessibility tree with refs, in text and JSON forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..report_text import ReportText
from .model import Bounds, SnapshotNode
from .refs import RefEntry, RefTable, parse_ref
from .render import DEFAULT_MAX_CHARS, SnapshotDiff, SnapshotPage, diff_lines, page_lines

if TYPE_CHECKING:
    from ..supervisor.state import SupervisorState

__all__ = [
    "DEFAULT_MAX_CHARS",
    "Bounds",
    "RefEntry",
    "RefTable",
    "Snapshot",
    "SnapshotDiff",
    "SnapshotNode",
    "SnapshotPage",
    "diff_lines",
    "page_lines",
    "parse_ref",
]


@dataclass(frozen=True)
class Snapshot:
    """One page of a snapshot of a tab: the node tree, and that page of its text form
    (all pages of a snapshot come from one capture: see ``captures.py``)."""

    tab_id: str
    url: str
    title: str
    full: bool
    root: SnapshotNode
    page: SnapshotPage
    lines: list[str] = field(repr=False)
    """Every line of the requested view (before find and paging)."""
    state: SupervisorState | None = field(default=None, repr=False)
    """Pending and recent dialogs, console errors and the frame tree at that moment."""
    capture: str = ""
    """The capture (one walk of the page) this page is cut from; cursors name it. The tab
    keeps it while it has pages left to read (its last few such)."""
    changed: bool | None = None
    """On a later page: whether the live page has changed since the capture (None on
    the first page, or when the page could not tell)."""

    @property
    def text(self) -> ReportText:
        return ReportText(self.page.text)

    def __str__(self) -> str:
        return self.text

    @property
    def nodes(self) -> list[SnapshotNode]:
        return self.root.children

    def node(self, ref: str) -> SnapshotNode | None:
        for node in self.root.walk():
            if node.ref == ref:
                return node
        return None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (Browser V2 node shape) plus the text page and its size."""
        return {
            "tab_id": self.tab_id,
            "url": self.url,
            "title": self.title,
            "full": self.full,
            "text": self.page.text,
            "chars": self.page.chars,
            "tokens": self.page.tokens,
            "capture": self.capture,
            "next_cursor": self.page.next_cursor,
            "remaining_lines": self.page.remaining_lines,
            "changed_since_capture": self.changed,
            "nodes": [node.to_dict() for node in self.nodes],
            **(self.state.to_dict() if self.state is not None else {}),
        }
