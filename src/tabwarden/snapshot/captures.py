"""Captures: one walk of a tab, rendered once, read page by page.

A snapshot's first page walks the page, builds the tree and renders every line of the
view: that is a capture. Its later pages are cut from the capture, so a long page is
read with one walk and its pages agree with each other; a page read later says when
the live page has changed since. A cursor names the capture and the line a page
starts at (``s3:120``). Each tab keeps its last few captures that have pages left to
read, within a size bound, and drops them with the tab.
"""

from __future__ import annotations

import itertools
import re
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ..counting import counted
from ..errors import InvalidArgument
from . import Snapshot
from .model import SnapshotNode
from .refs import parse_ref
from .render import cursor_text, page_lines
from .walker import FrameMark

if TYPE_CHECKING:
    from ..supervisor.state import SupervisorState

__all__ = ["Capture", "CaptureStore", "Cursor", "new_capture_id"]

MAX_CAPTURES = 3
"""Captures kept per tab: the newest ones with pages left to read."""
MAX_KEPT_CHARS = 8_000_000
"""Characters of lines kept per tab across its captures (the newest is always kept)."""
_CURSOR = re.compile(r"(s\d+):(\d+)")
_ids = itertools.count(1)


def new_capture_id() -> str:
    """Unique in the process: a cursor of one tab never names a capture of another."""
    return f"s{next(_ids)}"


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a snapshot call starts: a new capture (``capture`` None), or a line of one."""

    capture: str | None
    line: int = 0

    @classmethod
    def parse(cls, value: int | str) -> Cursor:
        """``0`` or ``"0"``: a new capture; ``"s3:120"``: line 120 of capture s3."""
        if (value == 0 and not isinstance(value, bool)) or value == "0":
            return cls(None)
        match = _CURSOR.fullmatch(value.strip()) if isinstance(value, str) else None
        if match is None:
            raise InvalidArgument(
                f"cursor={value!r} is not a snapshot cursor",
                hint="pass the cursor the previous page ends with (like s3:120), "
                "or 0 for a new snapshot",
            )
        return cls(match.group(1), int(match.group(2)))


@dataclass(frozen=True)
class Capture:
    """One walk of a tab, rendered: the view's lines and what to page and check them by."""

    id: str
    tab_id: str
    url: str
    title: str
    full: bool
    scope: str | None
    """The ref whose subtree the view is, if any."""
    find: str | None
    root: SnapshotNode = field(repr=False)
    """The view's root: the document, or the scope's node."""
    header: list[str] = field(repr=False)
    """The header of every page (``find``'s count included)."""
    lines: list[str] = field(repr=False)
    """Every line of the view (before ``find``)."""
    selected: list[str] = field(repr=False)
    """The lines ``find`` selects (``lines`` without it): what pages are cut from."""
    state: SupervisorState | None = field(default=None, repr=False)
    frames: frozenset[str] = frozenset()
    """The tab's frames when it was walked."""
    marks: tuple[FrameMark, ...] = ()
    """Each walked frame's document, world and change count (to tell later changes)."""
    document: str = ""
    """The top document (its loader id) it was taken in."""
    taken_at: float = field(default_factory=time.monotonic)

    @property
    def age_s(self) -> float:
        return time.monotonic() - self.taken_at

    @cached_property
    def size(self) -> int:
        """Characters of its lines: what keeping it costs, roughly."""
        return sum(len(line) for line in self.lines)

    def params(self) -> str:
        """The view parameters that made it, as a caller writes them."""
        return _params(self.full, self.scope, self.find)

    def page(self, *, max_chars: int) -> Snapshot:
        """The first page (taken with the capture)."""
        return self._page(max_chars, 0, None, ())

    def later_page(
        self, *, max_chars: int, start: int, changed: bool | None, notes: Sequence[str] = ()
    ) -> Snapshot:
        """The page from line ``start``, read after the capture: it says whether the live
        page has ``changed`` since (None: it could not tell), below the capture's header
        and any other ``notes``."""
        age = _age(self.age_s)
        if changed:
            notes = [
                *notes,
                f"# the page has changed since this capture (taken {age} ago): "
                "take a new snapshot for the current page",
            ]
        elif changed is None:
            notes = [
                *notes,
                f"# could not tell whether the page changed since this capture (taken {age} ago)",
            ]
        return self._page(max_chars, start, changed, notes)

    def _page(
        self, max_chars: int, start: int, changed: bool | None, notes: Sequence[str]
    ) -> Snapshot:
        header = [*self.header, *notes]
        page = page_lines(header, self.selected, capture=self.id, max_chars=max_chars, start=start)
        return Snapshot(
            self.tab_id,
            self.url,
            self.title,
            self.full,
            self.root,
            page,
            self.lines,
            self.state,
            capture=self.id,
            changed=changed,
        )


class CaptureStore:
    """A tab's captures with pages left to read: the newest few, bounded in size."""

    def __init__(self, tab_id: str) -> None:
        self._tab_id = tab_id
        self._captures: dict[str, Capture] = {}
        self._dropped: deque[str] = deque(maxlen=64)
        """Ids of recent captures let go for newer ones (to say so when one is asked for)."""

    def __len__(self) -> int:
        return len(self._captures)

    def keep(self, capture: Capture) -> None:
        self._captures[capture.id] = capture
        kept = sum(c.size for c in self._captures.values())
        while len(self._captures) > MAX_CAPTURES or (
            kept > MAX_KEPT_CHARS and len(self._captures) > 1
        ):
            oldest = next(iter(self._captures))
            kept -= self._captures.pop(oldest).size
            self._dropped.append(oldest)

    def continued(
        self, cursor: Cursor, *, full: bool, scope: str | None, find: str | None
    ) -> Capture:
        """The capture a cursor pages, checked against the call's view parameters (a
        cursor continues the view it was given for), or an error saying why not."""
        assert cursor.capture is not None
        text = cursor_text(cursor.capture, cursor.line)
        capture = self._captures.get(cursor.capture)
        if capture is None:
            if cursor.capture in self._dropped:
                why = (
                    f"snapshot {cursor.capture} was let go for newer ones (tab "
                    f"{self._tab_id} keeps its last {MAX_CAPTURES} with pages left to read)"
                )
            else:
                why = f"tab {self._tab_id} has no snapshot {cursor.capture} (another tab's?)"
            raise InvalidArgument(
                f"cursor={text!r}: {why}",
                hint="start again with cursor=0 (a new snapshot) and page on with its cursors",
            )
        asked = _params(full, (parse_ref(scope) or scope) if scope is not None else None, find)
        if asked != capture.params():
            raise InvalidArgument(
                f"cursor={text!r} continues a snapshot taken with {capture.params()}, not {asked}",
                hint=f"pass {capture.params()} with this cursor, or cursor=0 for a new "
                "snapshot with these",
            )
        if cursor.line > len(capture.selected):
            raise InvalidArgument(
                f"cursor={text!r} is past the end of snapshot {capture.id} "
                f"({counted(len(capture.selected), 'line')})",
                hint="use the cursor the previous page ends with, or 0 to start over",
            )
        return capture

    def clear(self) -> None:
        self._captures.clear()


def _age(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:,.0f} s"


def _params(full: bool, scope: str | None, find: str | None) -> str:
    parts = [f"full={full}"]
    if scope is not None:
        parts.append(f"scope={scope!r}")
    if find:
        parts.append(f"find={find!r}")
    return ", ".join(parts)
