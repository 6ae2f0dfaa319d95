"""TabRegistry: the tabs of one browser session, by target, id, CDP session and frame.

The registry is the session's bookkeeping of pages: it makes a ``Tab`` for every page
target the browser reports (short ids ``t1``, ``t2``… never reused), keeps the active
tab and the order tabs were active in (closing the active tab falls back to the one
before), and a map from CDP session id to (tab, frame) kept as sessions attach and
detach, so the console, network and dialog handlers find a tab without a scan.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from typing import Any

from .budget import Budget
from .cdp.connection import CDPConnection
from .cdp.protocol import Event
from .cdp.session import CDPSession
from .errors import CDPError, ConnectionLost, DeadlineExceeded
from .page import Page
from .relaunch import LostTab
from .tab import Tab
from .tasks import TaskOwner

__all__ = ["TabRegistry", "close_targets"]

_RELEASE_S = 10.0
_CLOSE_RETRY_S = 1.0
"""How long a close may take before it is asked again."""


class TabRegistry:
    """Every tab of a session. Its lookups by id, target, CDP session and frame give the
    tabs' pages (``PageLookup``, for the parts below the tab); the session's own calls
    get the tabs."""

    def __init__(self, make_tab: Callable[[str, str], Tab]) -> None:
        self._make_tab = make_tab
        """Makes a tab from its short id and its target id."""
        self._tabs: dict[str, Tab] = {}  # by target id, in creation order
        self._next = 1
        self._active: Tab | None = None
        self._recent: list[Tab] = []
        self._sessions: dict[str, tuple[Page, str]] = {}
        self.on_change: Callable[[str | None], None] | None = None
        """Told when a tab opens, closes (its id), becomes active or changes URL or title."""

    def __len__(self) -> int:
        return len(self._tabs)

    # ---- pages (PageLookup) ----------------------------------------------------------

    def by_id(self, tab_id: str) -> Page | None:
        return next((t.page for t in self._tabs.values() if t.id == tab_id), None)

    def by_target(self, target_id: str) -> Page | None:
        tab = self._tabs.get(target_id)
        return tab.page if tab is not None else None

    def of_session(self, session_id: str | None) -> tuple[Page, str] | None:
        """The page, and the frame, that a CDP session renders (OOPIF sessions included)."""
        if session_id is None:
            return None
        return self._sessions.get(session_id)

    def of_frame(self, frame_id: str) -> Page | None:
        """The page whose main frame, or one of its frames, is ``frame_id``."""
        tab = self._tabs.get(frame_id)
        if tab is not None:
            return tab.page
        for tab in self._tabs.values():
            registry = tab.page.attached_frames
            if registry is not None and registry.get(frame_id) is not None:
                return tab.page
        return None

    def id_of_frame(self, frame_id: str) -> str | None:
        page = self.of_frame(frame_id)
        return page.id if page is not None else None

    def all(self) -> list[Page]:
        """Every page known, closed ones not yet forgotten included, in creation order."""
        return [t.page for t in self._tabs.values()]

    def active(self) -> Page | None:
        return self._active.page if self._active is not None else None

    def session_attached(self, session_id: str, page: Page, frame_id: str) -> None:
        tab = self._tabs.get(page.target_id)
        if tab is not None and tab.page is page:
            self._sessions[session_id] = (page, frame_id)

    def session_detached(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    # ---- tabs ------------------------------------------------------------------------

    def tab_of_target(self, target_id: str) -> Tab | None:
        return self._tabs.get(target_id)

    def find(self, tab_id: str) -> Tab | None:
        """An open tab by its id (``t3``) or its CDP target id."""
        return next(
            (t for t in self._tabs.values() if tab_id in (t.id, t.target_id) and not t.closed),
            None,
        )

    def tabs(self) -> list[Tab]:
        """Every tab known, closed ones not yet forgotten included, in creation order."""
        return list(self._tabs.values())

    def open_tabs(self) -> list[Tab]:
        return [t for t in self._tabs.values() if not t.closed]

    def active_tab(self) -> Tab | None:
        return self._active

    def own_targets(self) -> list[str]:
        """The targets of the tabs this session opened itself (not popups of theirs)."""
        return [
            t.target_id
            for t in self._tabs.values()
            if t.page.opener_target is None and t.page.created_here
        ]

    def lost_tabs(self) -> list[LostTab]:
        """The open tabs as a loss of the browser remembers them."""
        return [LostTab(t.id, t.url, t.title) for t in self.open_tabs()]

    @property
    def ever_active(self) -> bool:
        """Some tab was made active since the browser started."""
        return bool(self._recent)

    def register(self, target_id: str, info: dict[str, Any]) -> Tab:
        """The tab of a page target (made on first sight), with its target info."""
        tab = self._tabs.get(target_id)
        if tab is None:
            tab = self._make_tab(f"t{self._next}", target_id)
            self._next += 1
            self._tabs[target_id] = tab
        tab.page.update_info(info)
        self._changed(None)
        return tab

    def _changed(self, gone: str | None) -> None:
        if self.on_change is not None:
            self.on_change(gone)

    def set_active(self, tab: Tab) -> None:
        self._active = tab
        if tab in self._recent:
            self._recent.remove(tab)
        self._recent.append(tab)
        self._changed(None)

    def remove(self, target_id: str) -> Tab | None:
        """Forget a tab whose target went away; the previously active tab takes over."""
        tab = self._tabs.pop(target_id, None)
        if tab is None:
            return None
        if tab in self._recent:
            self._recent.remove(tab)
        if self._active is tab:
            self._active = self._recent[-1] if self._recent else None
        self._changed(tab.id)
        return tab

    def forget_all(self, reason: str) -> None:
        """Every tab is gone (the browser went away, or the session closed)."""
        for tab in self._tabs.values():
            tab.page.mark_closed(reason)
        self._tabs.clear()
        self._sessions.clear()
        self._active = None
        self._recent.clear()

    # ---- the browser's target events (on the reader: never await) --------------------

    def follow(
        self,
        connection: CDPConnection,
        tasks: TaskOwner,
        *,
        on_closed: Callable[[Page], None],
        on_popup: Callable[[str], None],
        context_id: str | None = None,
    ) -> None:
        """Keep the registry current from ``connection``'s target events: a tab for every
        page, set up once attached (its set-up owned by ``tasks``); ``on_closed`` is told
        of each page that went away, ``on_popup`` of each page opened by another (the
        browser shows it in front). ``context_id``: the browser is shared (context
        mode), and only the pages of this browser context are the session's; the others
        are never registered, and are let go at once when auto-attached."""

        def ours(info: dict[str, Any]) -> bool:
            return context_id is None or info.get("browserContextId") == context_id

        def created(event: Event) -> None:
            info = event.params.get("targetInfo", {})
            if info.get("type") == "page" and ours(info):
                self.register(info["targetId"], info)
                if info.get("openerId"):
                    on_popup(info["targetId"])

        def info_changed(event: Event) -> None:
            info = event.params.get("targetInfo", {})
            tab = self._tabs.get(info.get("targetId", ""))
            if tab is not None:
                tab.page.update_info(info)
                self._changed(None)

        def destroyed(event: Event) -> None:
            tab = self.remove(event.params.get("targetId", ""))
            if tab is not None:
                on_closed(tab.page)
                tab.page.mark_closed("it was closed")

        def attached(event: Event) -> None:
            info = event.params.get("targetInfo", {})
            session_id = event.params["sessionId"]
            waiting = bool(event.params.get("waitingForDebugger"))
            if not ours(info):
                # Another session's page (a shared browser): only let go. Resuming it
                # would start it before its own session has set it up.
                tasks.spawn(_release(connection, session_id, resume=False), f"drop {session_id}")
                return
            if info.get("type") != "page":
                if waiting:  # auto-attached: not ours to keep
                    tasks.spawn(_release(connection, session_id), f"release {session_id}")
                return
            page = self.register(info["targetId"], info).page
            if page.session is not None:
                # Another session on a page we already drive (an explicit
                # Target.attachToTarget, e.g. for isolated evaluation): not the tab's.
                return
            session = CDPSession(connection, session_id, info["targetId"])
            tasks.spawn(page.bind(session, waiting), f"tab-setup {page.id}")

        def detached(event: Event) -> None:
            session_id = event.params.get("sessionId")
            if not session_id:
                return
            connection.drop_session(session_id)
            tab = self._tabs.get(event.params.get("targetId", ""))
            session = tab.page.session if tab is not None else None
            if tab is not None and session is not None and session.session_id == session_id:
                tab.page.unbind()

        for method, handler in (
            ("Target.targetCreated", created),
            ("Target.targetInfoChanged", info_changed),
            ("Target.targetDestroyed", destroyed),
            ("Target.attachedToTarget", attached),
            ("Target.detachedFromTarget", detached),
        ):
            connection.subscribe(method, handler, None)


async def _release(connection: CDPConnection, session_id: str, *, resume: bool = True) -> None:
    """Detach from a target that is not the session's: not a page (the filter should
    prevent it; ``resume``d first), or another session's page in a shared browser (its
    own session resumes it; detaching drops only this connection's hold)."""
    session = CDPSession(connection, session_id)
    budget = Budget(_RELEASE_S)
    with contextlib.suppress(CDPError, ConnectionLost):
        if resume:
            await session.send("Runtime.runIfWaitingForDebugger", budget=budget)
        await session.detach(budget=budget)


async def close_targets(
    connection: CDPConnection,
    target_ids: Collection[str],
    gone: Callable[[str], bool],
    budget: Budget,
    *,
    what: str,
    strict: bool = False,
) -> None:
    """Close page targets and return once ``gone`` says each went away.

    A close that lands while a navigation commits is answered with success and then
    dropped by Chromium: it is asked again until the target is gone. A refused close
    means the target is gone already, except (``strict``) for the first ask, which
    raises.
    """
    browser = CDPSession(connection, None)
    refused: set[str] = set()

    def left() -> list[str]:
        return sorted(t for t in target_ids if t not in refused and not gone(t))

    first = True
    with connection.event_queue(["Target.targetDestroyed"], None) as destroyed:
        while left():
            for target_id in left():
                try:
                    await browser.send("Target.closeTarget", {"targetId": target_id}, budget=budget)
                except CDPError:
                    if strict and first:
                        raise
                    if not strict:
                        refused.add(target_id)
            first = False
            with contextlib.suppress(DeadlineExceeded):
                while left():
                    await destroyed.get(budget.child(_CLOSE_RETRY_S), what=what)
            budget.check(what=what)
