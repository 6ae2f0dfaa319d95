"""Reading a page into a snapshot: walk every frame once, build the tree, render it.

A ``SnapshotReader`` belongs to one page. ``read`` walks the page (all frames, OOPIFs
included) and returns a ``Capture`` whose pages are read without walking again;
``later_page`` reads a kept capture's next page after one short call per frame to tell
whether the page changed since. While a dialog waits, the page's script is paused: the
capture then says so instead of walking.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..budget import Budget
from ..cdp.protocol import gc_paused
from ..clipping import clip_title, clip_url
from ..errors import DeadlineExceeded, InvalidArgument, StaleRefError, UnknownRef
from . import Snapshot
from .build import build_tree
from .captures import Capture, CaptureStore, Cursor, new_capture_id
from .model import LeftOut, SnapshotNode
from .refs import RefTable, parse_ref
from .render import render_lines, select_lines
from .walker import Walker

if TYPE_CHECKING:
    from ..frames import FrameTracker
    from ..page import Page, PageBasics
    from ..supervisor.dialogs import PendingDialog
    from ..supervisor.state import SupervisorState

__all__ = ["SnapshotReader", "dialog_lines", "header_line", "scope_node"]

_CHANGE_CHECK_S = 1.0
"""How long a later page of a snapshot waits for the page to say whether it changed."""

StateHeader = Callable[[bool], tuple[list[str], "SupervisorState"]]
"""The header's lines after the first (dialogs; with True, what went wrong since the last
such snapshot) and the supervisor's state they were read from."""


class SnapshotReader:
    """Snapshots of one page, and the captures kept for their later pages."""

    def __init__(self, page: Page, state_header: StateHeader) -> None:
        self._page = page
        self._state_header = state_header
        self.captures = CaptureStore(page.id)
        """Snapshots with pages left to read (their later pages need no new walk)."""
        self.last_view: list[str] = []
        """The lines of the last interactive view read (what a receipt diffs against)."""
        self.walker = Walker(f"tab {page.id}")
        """Runs this page's snapshots in its frames; keeps what they reuse."""

    async def read(
        self,
        tracker: FrameTracker,
        budget: Budget,
        *,
        full: bool = False,
        scope: str | None = None,
        find: str | None = None,
        summary: bool = False,
    ) -> Capture:
        """Walk the page once and render the view. ``summary``: the header says what went
        wrong since the last such snapshot (the agent's own snapshots; a receipt's diff
        must not use that up)."""
        page = self._page
        header = [header_line(page)]
        if page.pending_dialogs:
            # The page's script is paused: no tree can be read until the dialog is answered.
            said, state = self._state_header(summary)
            return Capture(
                id=new_capture_id(),
                tab_id=page.id,
                url=clip_url(page.url),
                title=clip_title(page.title),
                full=full,
                scope=scope,
                find=find,
                root=SnapshotNode(role="document", frame=page.target_id),
                header=header + said,
                lines=[],
                selected=[],
                state=state,
            )
        await tracker.settled(budget)
        registry = tracker.registry
        frames = frozenset(f.frame_id for f in registry.frames())
        document = registry.loader_of(page.target_id) or ""
        walks, _ = await asyncio.gather(
            self.walker.walk(registry, budget, all_nodes=full or scope is not None),
            page.refresh_info(budget),
        )
        top = walks.get(page.target_id)
        if top is not None:
            page.saw_title(top.title)  # read by the page just now; the browser's copy can lag
        with gc_paused():  # many small objects, no cycles: collections only cost time
            root = build_tree(walks, page.target_id, page.refs)
        header[0] = header_line(page)
        said, state = self._state_header(summary)
        header += said
        view = root
        if scope is not None:
            view = scope_node(root, scope, page.refs, page.id)
            header.append(f"# scope {view.ref}")
        left_out = None
        if scope is None and not full:
            left_out = LeftOut()
            for walk in walks.values():
                left_out = left_out.plus(walk.left_out or LeftOut())
        lines = render_lines(view, full=full, page_url=page.url, left_out=left_out)
        if not full and scope is None:
            self.last_view = lines
        header, selected = select_lines(header, lines, find)
        return Capture(
            id=new_capture_id(),
            tab_id=page.id,
            url=clip_url(page.url),
            title=clip_title(page.title),
            full=full,
            scope=view.ref if scope is not None else None,
            find=find,
            root=view,
            header=header,
            lines=lines,
            selected=selected,
            state=state,
            frames=frames,
            marks=tuple(walk.mark for walk in walks.values()),
            document=top.frame.loader_id if top is not None else document,
        )

    async def later_page(
        self,
        tracker: FrameTracker,
        budget: Budget,
        start: Cursor,
        *,
        full: bool,
        scope: str | None,
        find: str | None,
        max_chars: int,
    ) -> Snapshot:
        """A page of a kept capture: no walk, one short call per frame to tell whether
        the page has changed since."""
        page = self._page
        capture = self.captures.continued(start, full=full, scope=scope, find=find)
        if tracker.registry.loader_of(page.target_id) != capture.document:
            raise InvalidArgument(
                f"cursor={capture.id}:{start.line}: tab {page.id} has left the page of "
                f"snapshot {capture.id} ({capture.url}) since",
                hint="start again with cursor=0 for a snapshot of the page it shows now",
            )
        if page.pending_dialogs:
            # The page's script is paused: it cannot be asked until the dialog is answered.
            return capture.later_page(
                max_chars=max_chars,
                start=start.line,
                changed=None,
                notes=dialog_lines(page.pending_dialogs),
            )
        try:
            changed: bool | None = await self.walker.changed_since(
                tracker.registry, capture.frames, capture.marks, budget.child(_CHANGE_CHECK_S)
            )
        except DeadlineExceeded:
            changed = None  # a busy page: the capture can still be read
        return capture.later_page(max_chars=max_chars, start=start.line, changed=changed)


def scope_node(root: SnapshotNode, scope: str, refs: RefTable, tab_id: str) -> SnapshotNode:
    """The node a snapshot's ``scope`` names (a ref of the tab's), read from ``root``."""
    ref = parse_ref(scope)
    if ref is None:
        raise InvalidArgument(
            f"scope={scope!r} is not a ref", hint="pass a ref from a snapshot, such as e7"
        )
    for node in root.walk():
        if node.ref == ref:
            return node
    entry = refs.get(ref)
    if entry is None:
        raise UnknownRef(f"no ref {ref} in tab {tab_id}", ref=ref)
    raise StaleRefError(f"{entry.describe()} is no longer on the page", ref=ref)


def header_line(page: PageBasics) -> str:
    title = json.dumps(clip_title(page.title), ensure_ascii=False)
    return f"# tab {page.id} · {title} · {clip_url(page.url)}"


def dialog_lines(pending: Sequence[PendingDialog]) -> list[str]:
    return [f"# dialog open: {d.describe()} — answer it with {d.answer_call()}" for d in pending]
