"""The Supervisor of one browser session: dialogs (policy, watchdog), console, network, frames.

It runs on the session's one CDP connection (the tab an agent acts on is the
tab it watches), listens to every attached session at once (main pages and
OOPIF children alike), never awaits on the reader (answers are scheduled as
owned tasks), and hands out frozen state that any thread can read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from ..budget import Budget
from ..cdp.connection import CDPConnection
from ..cdp.protocol import ANY_SESSION, Event, Subscription
from ..cdp.session import CDPSession
from ..diagnostics.console import ConsoleLog
from ..diagnostics.network import NetworkLog
from ..errors import InvalidArgument, TabwardenError
from ..safety.guard import PolicyGuard
from ..tasks import TaskOwner
from .bridge import BRIDGE_FETCH_PATTERN, BRIDGE_HOST, fulfil_params
from .buffers import Ring
from .dialogs import ClosedBy, ClosedDialog, DialogPolicy, PendingDialog
from .state import ConnectionState, FrameNode, SupervisorState, frame_tree

if TYPE_CHECKING:
    from ..page import Page
    from ..services import SessionServices

__all__ = ["Supervisor"]

logger = logging.getLogger("tabwarden.supervisor")

RECENT_DIALOGS = 20
CONSOLE_ERRORS = 50
_ANSWER_S = 5.0


@dataclass
class _Answer:
    closed_by: ClosedBy
    accept: bool


@dataclass
class _Book:
    """Mutable dialog bookkeeping (guarded by the supervisor's lock)."""

    pending: dict[str, PendingDialog] = field(default_factory=dict)
    answering: dict[str, _Answer] = field(default_factory=dict)
    watchdogs: dict[str, asyncio.TimerHandle] = field(default_factory=dict)


class Supervisor:
    """Watches one BrowserSession's connection; state survives reconnects."""

    def __init__(
        self,
        services: SessionServices,
        *,
        policy: DialogPolicy,
        dialog_timeout_s: float,
        bridge: bool = False,
    ) -> None:
        self._services = services
        self._pages = services.pages
        self.policy: DialogPolicy = policy
        self.bridge = bridge
        """Dialogs go through the page-script bridge (see bridge.py) as well as natively."""
        self._bridge_requests: dict[str, str] = {}
        self.guard = PolicyGuard(services)
        """The URL policy: it judges every request ``Fetch`` pauses before the bridge."""
        self.dialog_timeout_s = dialog_timeout_s
        self.connection_state: ConnectionState = "connected"
        self._lock = threading.Lock()
        self._book = _Book()
        self._recent: Ring[ClosedDialog] = Ring(RECENT_DIALOGS)
        diagnostics = services.config.diagnostics
        self.console = ConsoleLog(services, diagnostics.console_entries)
        """Console messages, exceptions and browser notices per tab (diagnostics/console.py)."""
        self.network = NetworkLog(services, diagnostics.network_entries, diagnostics.body_max_bytes)
        """Every request, per tab (diagnostics/network.py)."""
        self._next_dialog = 1
        self._subscriptions: list[Subscription] = []
        self._tasks = TaskOwner(f"supervisor of {services.name}")
        self._connection: CDPConnection | None = None

    # ---- life ----------------------------------------------------------------------

    def attach(self, connection: CDPConnection) -> None:
        """Watch a (new) connection. Pending dialogs of a previous one are kept."""
        self.detach()
        self._connection = connection
        self.connection_state = "connected"
        for method, handler in (
            ("Page.javascriptDialogOpening", self._on_opening),
            ("Page.javascriptDialogClosed", self._on_closed),
            ("Fetch.requestPaused", self._on_request_paused),
        ):
            self._subscriptions.append(connection.subscribe(method, handler, ANY_SESSION))
        self._subscriptions += self.console.attach(connection)
        self._subscriptions += self.network.attach(connection)

    def detach(self) -> None:
        for subscription in self._subscriptions:
            subscription.close()
        self._subscriptions.clear()
        self._connection = None

    def stop(self) -> None:
        """Stop watching for good: timers and tasks end, state says ``closed``."""
        self.detach()
        with self._lock:
            for handle in self._book.watchdogs.values():
                handle.cancel()
            self._book.watchdogs.clear()
        self._tasks.cancel()
        self.connection_state = "closed"

    async def close(self) -> None:
        """``stop``, then wait until its background work has ended."""
        self.stop()
        await self._tasks.close()

    def browser_gone(self, reason: str) -> None:
        """The browser died: its dialogs closed with it."""
        with self._lock:
            doomed = list(self._book.pending.values())
        for dialog in doomed:
            self._close(dialog, "remote", None)
        self.console.forget_all()
        self.network.forget_all()
        logger.info("dialogs closed with the browser (%s): %d", reason, len(doomed))

    def reconcile(self, tab: Page) -> None:
        """After a tab got a new session (a reconnect), drop the dialogs the browser did not
        report again on it: they closed while nobody was connected."""
        current = tab.session.session_id if tab.session is not None else None
        for dialog in self.pending(tab):
            if dialog.source == "native" and dialog.session_id != current:
                self._close(dialog, "remote", None)

    def tab_closed(self, tab: Page) -> None:
        """A tab went away: its dialogs closed with it, its console and network logs too."""
        for dialog in self.pending(tab):
            self._close(dialog, "remote", None)
        self.console.forget(tab.id)
        self.network.forget(tab.id)

    # ---- reading -------------------------------------------------------------------

    def state(self, tab: Page | None = None) -> SupervisorState:
        """A frozen view; with ``tab``, its dialogs, console errors and frame tree only."""
        with self._lock:
            pending = tuple(self._book.pending.values())
        recent = self._recent.items()
        console = self.console.errors(tab, CONSOLE_ERRORS)
        frames: tuple[FrameNode, ...] = ()
        truncated = False
        if tab is not None:
            pending = tuple(d for d in pending if d.tab_id == tab.id)
            recent = tuple(d for d in recent if d.dialog.tab_id == tab.id)
            frames, truncated = frame_tree(tab)
        return SupervisorState(
            pending_dialogs=pending,
            recent_dialogs=recent,
            console_errors=console,
            frame_tree=frames,
            frame_tree_truncated=truncated,
            connection=self.connection_state,
            policy=self.policy,
            bridge=_bridge_state(self.bridge, tab),
        )

    def diagnostics_summary(self, tab: Page) -> str:
        """One bounded line of what went wrong in ``tab`` since the last time this was asked
        (console errors, failed requests, HTTP errors); empty when nothing did."""
        parts = [self.console.summary(tab), self.network.summary(tab)]
        return " · ".join(part for part in parts if part)

    def pending(self, tab: Page | None = None) -> list[PendingDialog]:
        with self._lock:
            dialogs = list(self._book.pending.values())
        return [d for d in dialogs if tab is None or d.tab_id == tab.id]

    def fetch_commands(self) -> list[tuple[str, dict[str, Any]]]:
        """The one ``Fetch.enable`` of a page or frame session: a second one would replace
        the first's patterns, so the URL policy's and the bridge's go in together."""
        patterns = self.guard.fetch_patterns()
        if self.bridge:
            patterns.append(BRIDGE_FETCH_PATTERN)
        return [("Fetch.enable", {"patterns": patterns})]

    # ---- answering -----------------------------------------------------------------

    async def answer(
        self,
        *,
        accept: bool,
        prompt_text: str | None = None,
        dialog_id: str | None = None,
        tab: Page | None = None,
        budget: Budget,
        closed_by: ClosedBy = "agent",
    ) -> ClosedDialog:
        """Accept or dismiss a pending dialog: the given one, or the only one (of ``tab``)."""
        dialog = self._choose(dialog_id, tab)
        with self._lock:
            self._book.answering[dialog.id] = _Answer(closed_by, accept)
        params: dict[str, Any] = {"accept": accept}
        if prompt_text is not None:
            params["promptText"] = prompt_text
        connection = self._connection
        if connection is None:
            raise InvalidArgument(
                f"dialog {dialog.id} cannot be answered: the browser is not connected",
                hint="wait for the session to reconnect, then answer it",
            )
        session = self._answering_session(connection, dialog)
        try:
            if dialog.source == "bridge":
                request_id = self._bridge_requests[dialog.id]
                await session.send(
                    "Fetch.fulfillRequest",
                    fulfil_params(request_id, dialog.type, accept, prompt_text),
                    budget=budget,
                )
            else:
                await session.send("Page.handleJavaScriptDialog", params, budget=budget)
        except TabwardenError:
            with self._lock:
                self._book.answering.pop(dialog.id, None)
            if dialog.id in self._book.pending:
                raise
        return self._close(dialog, closed_by, accept)

    def _answering_session(self, connection: CDPConnection, dialog: PendingDialog) -> CDPSession:
        """Where to answer: the tab's current sessions (they change when the socket is
        reconnected), else the session that reported the dialog."""
        tab = self._pages.by_id(dialog.tab_id)
        frames = tab.attached_frames if tab is not None else None
        if tab is not None and frames is not None:
            if dialog.source == "bridge":
                return frames.session_for(dialog.frame_id)
            if tab.session is not None:
                return tab.session
        return CDPSession(connection, dialog.session_id)

    # ---- event handlers (on the reader: never await) --------------------------------

    def _on_opening(self, event: Event) -> None:
        owner = self._pages.of_session(event.session_id)
        if owner is None:
            return
        tab, frame_id = owner
        params = event.params
        frame_id = _frame_by_url(tab, event.session_id, params.get("url", ""), frame_id)
        self._register(tab, frame_id, event.session_id, params, "native")

    def _on_request_paused(self, event: Event) -> None:
        """The one dispatcher of paused requests: the URL policy fails or continues each,
        except the bridge's own requests (they never reach a network: the bridge
        answers them). Every request is released exactly once."""
        request = event.params.get("request", {})
        request_id = event.params.get("requestId", "")
        if not self.bridge or urlsplit(request.get("url", "")).hostname != BRIDGE_HOST:
            decision = self.guard.judge(event)
            self._spawn(self._release(event.session_id, request_id, allow=decision.allowed))
            return
        owner = self._pages.of_session(event.session_id)
        try:
            asked = json.loads(request.get("postData") or "{}")
        except ValueError:
            asked = {}
        if owner is None or not isinstance(asked, dict):
            self._spawn(self._release(event.session_id, request_id, allow=True))
            return
        tab, frame_id = owner
        frame_id = event.params.get("frameId") or frame_id
        self._register(tab, frame_id, event.session_id, asked, "bridge", request_id)

    def _register(
        self,
        tab: Page,
        frame_id: str,
        session_id: str | None,
        params: dict[str, Any],
        source: Literal["native", "bridge"],
        request_id: str = "",
    ) -> PendingDialog:
        with self._lock:
            known = self._reported_again(tab, session_id, params, source)
            if known is not None:
                return known
            dialog = PendingDialog(
                id=f"d-{self._next_dialog}",
                type=str(params.get("type", "")),
                message=str(params.get("message", "")),
                default_prompt=str(params.get("defaultPrompt", "")),
                url=str(params.get("url", "")),
                tab_id=tab.id,
                frame_id=frame_id,
                session_id=session_id,
                opened_at=time.time(),
                source=source,
            )
            self._next_dialog += 1
            self._book.pending[dialog.id] = dialog
            if request_id:
                self._bridge_requests[dialog.id] = request_id
        self._services.activity.publish("dialog_opened", {"dialog": dialog.to_dict()}, tab.id)
        if self.policy != "must_respond":
            accept = self.policy == "auto_accept"
            self._spawn(self._auto_answer(dialog, accept, "auto_policy"))
            return dialog
        tab.dialog_opened(dialog)
        handle = asyncio.get_running_loop().call_later(
            self.dialog_timeout_s, self._watchdog_fired, dialog.id
        )
        with self._lock:
            self._book.watchdogs[dialog.id] = handle
        return dialog

    def _reported_again(
        self, tab: Page, session_id: str | None, params: dict[str, Any], source: str
    ) -> PendingDialog | None:
        """After a reconnect the browser reports an open dialog again: keep its id and
        move it to the new session. (Called with the lock held.)"""
        for dialog in self._book.pending.values():
            if (
                dialog.tab_id == tab.id
                and dialog.source == source
                and dialog.session_id != session_id
                and dialog.type == params.get("type")
                and dialog.message == params.get("message")
            ):
                moved = replace(dialog, session_id=session_id)
                self._book.pending[dialog.id] = moved
                return moved
        return None

    async def _release(self, session_id: str | None, request_id: str, *, allow: bool) -> None:
        """Let a paused request through untouched, or fail it as blocked by the client."""
        if self._connection is None:
            return
        method, params = (
            ("Fetch.continueRequest", {"requestId": request_id})
            if allow
            else ("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})
        )
        with contextlib.suppress(TabwardenError):  # the target may be gone already
            await CDPSession(self._connection, session_id).send(
                method, params, budget=Budget(_ANSWER_S)
            )

    def _on_closed(self, event: Event) -> None:
        with self._lock:
            dialog = next(
                (
                    d
                    for d in self._book.pending.values()
                    if d.session_id == event.session_id and d.source == "native"
                ),
                None,
            )
            answer = self._book.answering.get(dialog.id) if dialog else None
        if dialog is None:
            return
        accepted = event.params.get("result")
        if answer is not None:
            self._close(dialog, answer.closed_by, answer.accept)
        else:
            self._close(dialog, "remote", bool(accepted) if accepted is not None else None)

    # ---- private -------------------------------------------------------------------

    def _choose(self, dialog_id: str | None, tab: Page | None) -> PendingDialog:
        with self._lock:
            pending = list(self._book.pending.values())
        if dialog_id is not None:
            for dialog in pending:
                if dialog.id == dialog_id:
                    return dialog
            known = ", ".join(d.id for d in pending) or "none"
            raise InvalidArgument(
                f"no pending dialog {dialog_id!r} (pending: {known})",
                hint="take the id from the snapshot's or receipt's pending dialogs",
            )
        candidates = [d for d in pending if tab is None or d.tab_id == tab.id]
        if not candidates:
            where = f" in tab {tab.id}" if tab is not None else ""
            raise InvalidArgument(
                f"no dialog is open{where}",
                hint="dialogs are reported by navigate, actions and snapshots when they open",
            )
        if len(candidates) > 1:
            listed = "; ".join(d.describe() for d in candidates)
            raise InvalidArgument(
                f"{len(candidates)} dialogs are open: {listed}",
                hint="say which one with dialog_id",
            )
        return candidates[0]

    def _close(
        self, dialog: PendingDialog, closed_by: ClosedBy, accepted: bool | None
    ) -> ClosedDialog:
        closed = ClosedDialog(dialog, time.time(), closed_by, accepted)
        with self._lock:
            if self._book.pending.pop(dialog.id, None) is None:
                return closed  # already closed (the event and the answer both say so)
            self._book.answering.pop(dialog.id, None)
            self._bridge_requests.pop(dialog.id, None)
            handle = self._book.watchdogs.pop(dialog.id, None)
        if handle is not None:
            handle.cancel()
        self._recent.append(closed)
        self._services.activity.publish(
            "dialog_closed", {"dialog": closed.to_dict()}, dialog.tab_id
        )
        if closed_by == "watchdog":
            logger.warning(
                "dialog %s was not answered within %.0f s: dismissed by the watchdog",
                dialog.describe(),
                self.dialog_timeout_s,
            )
        return closed

    def _watchdog_fired(self, dialog_id: str) -> None:
        with self._lock:
            dialog = self._book.pending.get(dialog_id)
        if dialog is not None:
            self._spawn(self._auto_answer(dialog, False, "watchdog"))

    async def _auto_answer(self, dialog: PendingDialog, accept: bool, by: ClosedBy) -> None:
        with contextlib.suppress(TabwardenError):
            await self.answer(
                accept=accept, dialog_id=dialog.id, budget=Budget(_ANSWER_S), closed_by=by
            )

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        self._tasks.spawn(coroutine)


def _frame_by_url(tab: Page, session_id: str | None, url: str, fallback: str) -> str:
    """The frame showing ``url``: a dialog event names no frame, only the URL (and a
    cross-origin frame's dialog is reported by the page's session). A child frame
    wins over the top one when both show it; the reporting session's frames first."""
    registry = tab.attached_frames
    if registry is None or not url:
        return fallback
    frames = [f for f in registry.frames() if f.url == url]
    frames.sort(key=lambda f: (f.frame_id == tab.target_id, f.session_id != session_id))
    return frames[0].frame_id if frames else fallback


def _bridge_state(enabled: bool, tab: Page | None) -> str:
    if not enabled:
        return "off"
    if tab is not None and tab.setup_error:
        return f"failed: {tab.setup_error}"
    return "on"
