"""A Firefox browser session over WebDriver BiDi: the tabs, the dialogs, the console.

One socket (``ws://127.0.0.1:PORT/session``), one BiDi session created with
``unhandledPromptBehavior: ignore`` so dialogs wait for tabwarden's supervisor (the
policy answers them or the agent does), never for Firefox's own defaults. The tab
list comes from ``browsingContext.getTree`` and is kept by ``contextCreated`` and
``contextDestroyed`` (popups are tabs whose opener is known). Closing ends the BiDi
session with ``browser.close`` (which ends the session and the browser; ``session.end``
alone when that fails), then the backend ends what is left of the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import time
from collections.abc import Awaitable
from typing import Any

from ..activity import SessionActivity
from ..backends.firefox import LocalFirefox
from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..cdp.protocol import Event
from ..config import Config, load_config
from ..diagnostics.console import ConsoleEntry, ConsoleStore
from ..diagnostics.console import watched_entry as watched_console_entry
from ..diagnostics.downloads import Download, DownloadList
from ..diagnostics.emulation_state import (
    EmulationChange,
    EmulationResult,
    EmulationState,
    emulation_change,
)
from ..diagnostics.network import Exchange, NetworkRequest
from ..diagnostics.network import watched_entry as watched_request
from ..errors import (
    BiDiError,
    BrowserCrashed,
    InvalidArgument,
    NavigationError,
    NavigationFailed,
    PolicyDenied,
    SessionClosed,
    TabNotFound,
    TabwardenError,
)
from ..frames import FrameInfo
from ..metrics import Metrics
from ..page import engine_side
from ..relaunch import BrowserLoss, LostTab, Relaunch
from ..safety.paths import WorkspacePaths
from ..safety.redaction import Redactor
from ..safety.url_policy import UrlPolicy, Verdict
from ..supervisor.buffers import Ring
from ..supervisor.dialogs import ClosedBy, ClosedDialog, DialogPolicy, PendingDialog
from ..tasks import TaskOwner
from .console import console_entry
from .downloads import FirefoxDownloads
from .emulation import FirefoxEmulation
from .network_log import FirefoxNetworkLog
from .page import FirefoxPage

__all__ = ["CAPABILITIES", "EVENTS", "FirefoxSession"]

logger = logging.getLogger("tabwarden.firefox")

JSONObject = dict[str, Any]

CAPABILITIES: JSONObject = {"alwaysMatch": {"unhandledPromptBehavior": {"default": "ignore"}}}
"""``session.new``: every prompt waits for an answer (the supervisor owns them)."""
EVENTS = (
    "browsingContext.contextCreated",
    "browsingContext.contextDestroyed",
    "browsingContext.domContentLoaded",
    "browsingContext.load",
    "browsingContext.navigationStarted",
    "browsingContext.userPromptOpened",
    "browsingContext.userPromptClosed",
    "log.entryAdded",
    "network.responseCompleted",
    "network.beforeRequestSent",
    "network.responseStarted",
    "network.fetchError",
    "browsingContext.downloadWillBegin",
    "browsingContext.downloadEnd",
)
_MAX_BLOCKED = 100
_DOCUMENTS = ("document", "iframe", "frame", "embed", "object")
"""Request destinations that are documents (a page, a frame's page)."""
_MAX_STATUSES = 200
_CLOSE_S = 5.0
_RECENT_DIALOGS = 20


class FirefoxSession:
    """A launched Firefox and its tabs; ``close()`` leaves no process and no profile."""

    engine = "firefox"

    def __init__(
        self,
        backend: LocalFirefox,
        *,
        name: str = "default",
        config: Config | None = None,
    ) -> None:
        self.backend = backend
        self.name = name
        self.config = config or load_config()
        self.dialog_policy: DialogPolicy = self.config.browser.dialog_policy
        self._connection: BiDiConnection | None = None
        self._pages: dict[str, FirefoxPage] = {}
        self._tab_ids = itertools.count(1)
        self._dialog_ids = itertools.count(1)
        self._active: FirefoxPage | None = None
        self._statuses: dict[str, tuple[int, str]] = {}
        self._last_dialog: dict[str, PendingDialog] = {}
        self._recent_dialogs: Ring[ClosedDialog] = Ring(_RECENT_DIALOGS)
        self._answering: set[str] = set()
        self._watchdogs: dict[str, asyncio.TimerHandle] = {}
        """With must_respond: a dialog left unanswered ``browser.dialog_timeout_s`` is
        dismissed (``closed_by: watchdog``), as the supervisor's watchdog does."""
        """Dialogs tabwarden is answering (their close event is not the browser's doing)."""
        self._tasks = TaskOwner(f"firefox session {name}")
        self._closed = False
        self._paths = WorkspacePaths.from_config(self.config)
        self.policy = UrlPolicy.from_config(self.config.policy, self._paths.root)
        self.last_used: float = time.monotonic()
        """When a call last started here (the session manager closes idle sessions)."""
        self.blocked: list[Verdict] = []
        """Page-initiated documents the policy blocked (the newest last, bounded)."""
        self._blocked_at: list[float] = []
        self._metrics = Metrics()
        self._console_store = ConsoleStore(
            self.config.diagnostics.console_entries, self._console_added
        )
        self._first_blank: FirefoxPage | None = None
        """The blank tab Firefox starts with, until used: the first ``new_tab`` is it."""
        self._loss: BrowserLoss | None = None
        """Why and when Firefox went away under the open session (None: it did not)."""
        self._relaunch: Relaunch | None = None
        self._relaunching = asyncio.Lock()
        diagnostics = self.config.diagnostics
        self.network_log = FirefoxNetworkLog(
            diagnostics.network_entries, diagnostics.body_max_bytes, self._tab_id_of
        )
        """Every request, per tab (firefox/network_log.py)."""
        self._downloads = FirefoxDownloads(
            lambda: WorkspacePaths.from_config(self.config),
            capacity=self.config.files.max_downloads,
            tab_of=self._tab_id_of,
            promised_size=self.network_log.promised_size,
        )
        self.emulation = FirefoxEmulation(backend.viewport)
        self.redactor = Redactor.from_config(self.config.safety)
        """Cleans what watchers (the workbench) are sent about this session."""
        self._activity = SessionActivity(name)
        self.network_log.on_change = self._network_changed
        self._product = "Firefox"

    # ---- life -----------------------------------------------------------------------

    async def start(self, timeout_ms: float | None = None) -> FirefoxSession:
        budget = Budget.from_ms(timeout_ms or self.config.timeouts.launch_ms)
        await self._open(budget)
        return self

    async def _open(self, budget: Budget) -> None:
        """Launch Firefox, open the BiDi session and take its tabs (one at least)."""
        endpoint = await self.backend.start(budget)
        self._connection = await BiDiConnection.connect(endpoint.ws_url, budget)
        opened = await self._connection.send(
            "session.new", {"capabilities": CAPABILITIES}, budget=budget
        )
        version = (opened.get("capabilities") or {}).get("browserVersion")
        self._product = f"Firefox/{version}" if version else "Firefox"
        self._connection.subscribe("*", self._on_event)
        self._connection.on_close(self._connection_closed)
        await self._connection.subscribe_remote(EVENTS, budget)
        # Bodies kept and downloads sent to the workspace before any page loads.
        await self.network_log.start(self._connection, budget)
        await self._downloads.start(self._connection, budget)
        # Every request pauses before it is sent: documents (pages and frames) are judged
        # by the URL policy, like Chromium's Fetch interception of documents; the rest go
        # on at once (with policy.intercept_subresources, judged too).
        await self._connection.send(
            "network.addIntercept", {"phases": ["beforeRequestSent"]}, budget=budget
        )
        # A relaunched browser starts as the session left off (a first one: no change).
        for problem in await self.emulation.restore(self._connection, budget):
            logger.warning("emulation not restored after a relaunch: %s", problem)
        tree = await self._connection.send("browsingContext.getTree", {}, budget=budget)
        for info in tree.get("contexts", []):
            self._context_created(info)
        for page in self.tabs:
            await self._set_viewport(page.context, budget)
        if not self._pages:
            await self._new_tab(None, None)
        tabs = self.tabs
        self._first_blank = tabs[0] if len(tabs) == 1 and tabs[0].url == "about:blank" else None

    async def relaunch_if_lost(self, timeout_ms: float | None = None) -> bool:
        """When Firefox went away (killed, crashed) under the open session: launch a new
        one in its place, with a new first tab (True). The old tabs, their refs and
        dialogs are gone; ``take_relaunch_notice()`` says so once."""
        async with self._relaunching:
            loss = self._loss
            if loss is None or self._closed:
                return False
            old = self._connection
            self._connection = None
            if old is not None:
                await old.close()
            for handle in self._watchdogs.values():
                handle.cancel()  # their dialogs went with the browser
            self._watchdogs.clear()
            for page in self._pages.values():
                page.was_closed()
                await page.aclose_tasks()
            self._pages.clear()
            self._active = None
            self._statuses.clear()
            budget = Budget.from_ms(timeout_ms or self.config.timeouts.launch_ms)
            await self._open(budget)
            self._loss = None
            self._relaunch = Relaunch(loss, time.time(), launched=True)
            logger.info("Firefox of session %r relaunched (%s)", self.name, loss.reason)
            return True

    def take_relaunch_notice(self) -> Relaunch | None:
        """Once after a relaunch: what was lost and when (then None)."""
        relaunch, self._relaunch = self._relaunch, None
        return relaunch

    @property
    def browser_lost(self) -> bool:
        """Firefox went away under the open session (the next call relaunches it)."""
        return self._loss is not None and not self._closed

    async def _set_viewport(self, context: str, budget: Budget) -> None:
        """Give a tab the emulated viewport, else the configured one (the window's size
        holds Firefox's own bars too), as Chromium's tabs get theirs."""
        params = self.emulation.viewport(context)
        if params is None:
            return
        with contextlib.suppress(BiDiError):  # a tab that closed meanwhile
            await self.connection.send("browsingContext.setViewport", params, budget=budget)

    async def close(self) -> None:
        """``browser.close`` (it ends the BiDi session too), then the process is waited
        for and killed if it lingers; the profile is removed when it was throwaway."""
        if self._closed:
            return
        self._closed = True
        self._activity.publish("closed", {"session": self.name, "reason": "closed"})
        self._activity.hand_back()
        for handle in self._watchdogs.values():
            handle.cancel()
        self._watchdogs.clear()
        for page in list(self._pages.values()):
            page.was_closed()
        self._tasks.cancel()
        connection = self._connection
        if connection is not None and not connection.closed:
            budget = Budget(_CLOSE_S)
            try:
                await connection.send("browser.close", {}, budget=budget)
            except TabwardenError:
                with contextlib.suppress(TabwardenError):
                    await connection.send("session.end", {}, budget=Budget(_CLOSE_S))
            with contextlib.suppress(TabwardenError):
                await connection.wait_closed(Budget(_CLOSE_S))
            await connection.close()
        await self.backend.close()

    async def __aenter__(self) -> FirefoxSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _connection_closed(self) -> None:
        """The socket closed (the browser exited or crashed, or the session closed): every
        tab is gone with it; the pending commands already failed with ConnectionLost."""
        if not self._closed and self._loss is None:
            status = self.backend.exit_status()
            self._loss = BrowserLoss(
                f"Firefox {status}" if status else "the connection to Firefox was lost",
                time.time(),
                tuple(LostTab(page.id, page.url, page.title) for page in self.tabs),
            )
        for page in self._pages.values():
            page.was_closed()

    # ---- reading --------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    @engine_side
    def connection(self) -> BiDiConnection:
        if self._connection is None or self._closed:
            raise SessionClosed(f"the Firefox session {self.name} is closed")
        if self._connection.closed:
            status = self.backend.exit_status()
            raise BrowserCrashed(
                f"Firefox {status}" if status else "the connection to Firefox closed",
                hint="the next tool call relaunches Firefox; from Python, call "
                "await session.relaunch_if_lost() (or close the session and launch another)",
            )
        return self._connection

    @property
    def tabs(self) -> list[FirefoxPage]:
        return [page for page in self._pages.values() if not page.closed]

    def known_tabs(self) -> list[FirefoxPage]:
        """The open tabs, as the session's events keep them (as ``tabs``)."""
        return self.tabs

    @property
    @engine_side
    def activity(self) -> SessionActivity:
        """What the session does, as it happens: events for watchers (the workbench) and
        the timeline of calls (activity.py), as on Chromium."""
        return self._activity

    @property
    def product(self) -> str:
        """The browser's name and version (``Firefox/153.0``)."""
        return self._product

    @property
    def profile_kind(self) -> str:
        """``throwaway`` (removed on close) or ``workspace`` (a persistent profile)."""
        return "throwaway" if self.config.browser.isolated else "workspace"

    def watch_flags(self) -> dict[str, bool]:
        """What is being captured now (Firefox records no trace and no screencast)."""
        return {"trace": False, "recording": False}

    @property
    def active_tab(self) -> FirefoxPage | None:
        if self._active is not None and not self._active.closed:
            return self._active
        tabs = self.tabs
        return tabs[-1] if tabs else None

    @property
    def busy(self) -> bool:
        """A command waits for its reply (a call is running)."""
        connection = self._connection
        return connection is not None and connection.stats["pending"] > 0

    @engine_side
    def budget(self, timeout_ms: float | None, kind: str) -> Budget:
        self.last_used = time.monotonic()
        timeouts = self.config.timeouts
        default = {
            "navigation": timeouts.navigation_ms,
            "evaluate": timeouts.evaluate_ms,
            "screenshot": timeouts.action_ms,
            "wait": timeouts.wait_ms,
            "snapshot": timeouts.action_ms,
        }.get(kind, timeouts.action_ms)
        return Budget.from_ms(timeout_ms if timeout_ms is not None else default)

    @engine_side
    def status_of(self, navigation: object) -> tuple[int | None, str]:
        if isinstance(navigation, str) and navigation in self._statuses:
            status, text = self._statuses[navigation]
            return status, text
        return None, ""

    @engine_side
    def last_dialog_of(self, page: FirefoxPage) -> PendingDialog | None:
        return page.pending_dialog or self._last_dialog.get(page.context)

    @property
    def paths(self) -> WorkspacePaths:
        """The workspace: where files may be read from and written to (safety/paths.py)."""
        return self._paths

    @property
    @engine_side
    def console_store(self) -> ConsoleStore:
        """The tabs' console messages (what ``FirefoxPage.console`` reads)."""
        return self._console_store

    @property
    def metrics(self) -> Metrics:
        """Evaluations (durations, outcomes) and call counts, as a Chromium session's."""
        return self._metrics

    @engine_side
    def requests_since(self, tab_id: str, since: float) -> tuple[NetworkRequest, ...]:
        return self.network_log.started_since(tab_id, since)

    @engine_side
    def downloads_since(self, tab_id: str, since: float) -> list[str]:
        return self._downloads.tracker.started_since(tab_id, since)

    @property
    @engine_side
    def receipt_settle_ms(self) -> int:
        return self.config.browser.receipt_settle_ms

    @property
    @engine_side
    def evaluate_enabled(self) -> bool:
        return self.config.browser.evaluate_enabled

    @property
    @engine_side
    def receipt_diff(self) -> str:
        return self.config.browser.receipt_diff

    @engine_side
    def tabs_opened_since(self, since: float) -> list[str]:
        """The tabs (popups too) opened since ``since`` (``time.time()``), oldest first."""
        return [page.id for page in self.tabs if page.opened_at >= since]

    @engine_side
    def blocked_since(self, since: float) -> list[Verdict]:
        return [v for v, at in zip(self.blocked, self._blocked_at, strict=True) if at >= since]

    def recent_dialogs(self, tab_id: str | None = None) -> list[ClosedDialog]:
        """Dialogs closed lately (the newest last): by the agent, the policy or the page."""
        return [d for d in self._recent_dialogs.items() if tab_id in (None, d.dialog.tab_id)]

    @engine_side
    def dialogs_closed_since(self, tab_id: str, since: float) -> list[ClosedDialog]:
        return [d for d in self.recent_dialogs(tab_id) if d.dialog.opened_at >= since]

    @engine_side
    async def answer_dialog(
        self,
        page: FirefoxPage,
        dialog: PendingDialog,
        accept: bool,
        by: ClosedBy,
        prompt_text: str | None,
        budget: Budget,
    ) -> ClosedDialog:
        """Answer ``dialog`` (``handleUserPrompt``) and keep it among the recent ones."""
        params: JSONObject = {"context": dialog.frame_id or page.context, "accept": accept}
        if prompt_text is not None:
            params["userText"] = prompt_text
        self._answering.add(dialog.id)
        self._stop_watchdog(dialog.id)
        try:
            await self.connection.send("browsingContext.handleUserPrompt", params, budget=budget)
        finally:
            self._answering.discard(dialog.id)
        closed = ClosedDialog(dialog, time.time(), by, accept)
        self._recent_dialogs.append(closed)
        self._activity.publish("dialog_closed", {"dialog": closed.to_dict()}, page.id)
        if page.pending_dialog is dialog:
            page.dialog_closed()
        return closed

    # ---- what the workbench reads (surfaces/workbench/source.py) ----------------------

    @engine_side
    def pending_dialogs(self) -> list[PendingDialog]:
        """The dialogs waiting for an answer now, in every tab."""
        return [page.pending_dialog for page in self.tabs if page.pending_dialog is not None]

    @engine_side
    async def answer_pending_dialog(
        self,
        *,
        accept: bool,
        prompt_text: str | None,
        dialog_id: str | None,
        budget: Budget,
        closed_by: ClosedBy,
    ) -> ClosedDialog:
        """Answer a pending dialog (the given one, or the only one) for ``closed_by``."""
        waiting = [
            (page, page.pending_dialog) for page in self.tabs if page.pending_dialog is not None
        ]
        chosen = [(p, d) for p, d in waiting if dialog_id in (None, d.id)]
        if len(chosen) != 1:
            known = ", ".join(d.id for _, d in waiting) or "none"
            raise InvalidArgument(
                f"no single pending dialog {dialog_id or ''} to answer (pending: {known})",
                hint="name the dialog's id" if waiting else "no dialog waits",
            )
        page, dialog = chosen[0]
        return await self.answer_dialog(page, dialog, accept, closed_by, prompt_text, budget)

    @engine_side
    def console_entries(self, tab_id: str) -> list[dict[str, Any]]:
        """A tab's console messages held now, oldest first, as watchers get them."""
        return self._console_store.entries(tab_id)

    @engine_side
    def network_entries(self, tab_id: str) -> list[dict[str, Any]]:
        """A tab's requests held now, oldest first, as watchers get them."""
        return self.network_log.entries(tab_id)

    def take_person_notice(self) -> str:
        """Once after a person acted in tabs of this session (from the workbench) since the
        agent's last snapshot of them: which tabs and what they did (empty otherwise)."""
        notes = []
        for page in self.tabs:
            acts = page.take_person_activity()
            if acts is not None:
                notes.append(
                    f"a person acted in tab {page.id} ({acts.describe()}) since your last "
                    "snapshot of it: take a snapshot before using its refs"
                )
        return "\n".join(notes)

    def _console_added(self, tab_id: str, number: int, entry: ConsoleEntry) -> None:
        if self._activity.watched:
            data = {"tab": tab_id, "entry": watched_console_entry(number, entry)}
            self._activity.publish("console", data, tab_id)

    def _network_changed(self, tab_id: str, exchange: Exchange) -> None:
        if self._activity.watched:
            data = {"tab": tab_id, "entry": watched_request(exchange)}
            self._activity.publish("network", data, tab_id)

    def _tabs_changed(self) -> None:
        activity = self._activity
        if activity.watched:
            active = self.active_tab
            tabs = {"tabs": [page.id for page in self.tabs]}
            activity.publish("tabs", {**tabs, "active": active.id if active else None})

    @engine_side
    def navigation_error(self, exc: BiDiError, url: str) -> NavigationError:
        if exc.error == "invalid argument":
            return NavigationError(f"cannot load {url}: {exc.bidi_message}", url=url)
        return NavigationFailed(
            f"loading {url} failed: {exc.bidi_message or exc.error}", url=url, net_error=exc.error
        )

    # ---- tabs -----------------------------------------------------------------------

    async def new_tab(
        self, url: str | None = None, *, timeout_ms: float | None = None
    ) -> FirefoxPage:
        """A new tab (at ``url``), made active; Firefox is relaunched first when it went
        away under the session."""
        await self.relaunch_if_lost(timeout_ms)
        return await self._new_tab(url, timeout_ms)

    async def _new_tab(self, url: str | None, timeout_ms: float | None) -> FirefoxPage:
        blank = self._first_blank
        self._first_blank = None
        if blank is not None and not blank.closed and not blank.navigated:
            # The blank tab Firefox starts with is the first new tab, as on Chromium.
            self._active = blank
            if url:
                await blank.navigate(url, timeout_ms=timeout_ms)
            return blank
        budget = self.budget(timeout_ms, "action")
        reply = await self.connection.send("browsingContext.create", {"type": "tab"}, budget=budget)
        context = str(reply["context"])
        page = self._pages.get(context) or self._add_page(context, "about:blank", None)
        await self._set_viewport(context, budget)
        self._active = page
        self._tabs_changed()
        if url:
            await page.navigate(url, timeout_ms=timeout_ms)
        return page

    async def switch_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> FirefoxPage:
        """Make ``tab_id`` the active tab (brought to the front)."""
        page = self.get_tab(tab_id)
        await self.connection.send(
            "browsingContext.activate",
            {"context": page.context},
            budget=self.budget(timeout_ms, "action"),
        )
        self._active = page
        self._tabs_changed()
        return page

    async def close_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> None:
        """Close the tab ``tab_id`` (its refs and pending dialog go with it)."""
        await self.get_tab(tab_id).close(timeout_ms=timeout_ms)

    def get_tab(self, tab_id: str) -> FirefoxPage:
        for page in self.tabs:
            if page.id == tab_id:
                return page
        known = ", ".join(page.id for page in self.tabs) or "none"
        raise TabNotFound(f"no open tab {tab_id} (open: {known})", hint="list the tabs")

    def _tab_id_of(self, context: str) -> str | None:
        page = self.page_of(context)
        return page.id if page is not None else None

    @engine_side
    def page_of(self, context: str) -> FirefoxPage | None:
        page = self._pages.get(context)
        if page is not None:
            return page
        for page in self._pages.values():
            if context in page.frames:
                return page
        return None

    # ---- downloads (firefox/downloads.py) ----------------------------------------------

    async def downloads(
        self, *, wait: bool = False, guid: str | None = None, timeout_ms: float | None = None
    ) -> DownloadList:
        """The session's downloads, oldest first, as on Chromium: state, final path and
        size, executable types flagged (never opened or run), saved into the workspace's
        ``downloads`` folder. ``wait=True`` waits until the downloads in progress (or only
        ``guid``) end, within ``timeout_ms``; still running at the deadline is reported."""
        if self._closed:
            raise SessionClosed(f"the Firefox session {self.name} is closed")
        budget = self.budget(timeout_ms, "wait" if wait else "action")
        return await self._downloads.listing(wait=wait, guid=guid, budget=budget)

    def known_downloads(self) -> tuple[Download, ...]:
        """The session's downloads as last reported (no wait, no call to the browser)."""
        return self._downloads.items()

    # ---- emulation (emulation.py) ----------------------------------------------------

    def emulation_state(self) -> EmulationState:
        """What this session emulates now, for every tab (never waits)."""
        return self.emulation.state

    async def emulate(
        self,
        change: EmulationChange | str | None = None,
        *,
        timeout_ms: float | None = None,
        **settings: Any,
    ) -> EmulationResult:
        """Emulate a device, user agent, locale, timezone, place or offline in every tab,
        as ``BrowserSession.emulate`` does; a setting Firefox cannot apply (mobile, touch,
        platform, accept_language, color_scheme, reduced_motion, network and CPU
        throttling) is refused with ``EngineUnsupported`` before anything changes."""
        asked = emulation_change(change, settings)
        budget = self.budget(timeout_ms, "action")
        pages = [(page.context, page.url) for page in self.tabs]
        return await self.emulation.change(self.connection, pages, asked, budget)

    # ---- events (on the reader: no awaits) --------------------------------------------

    def _on_event(self, event: Event) -> None:
        params = event.params
        method = event.method
        self.network_log.on_event(method, params)
        self._downloads.on_event(method, params)
        if method == "browsingContext.contextCreated":
            self._context_created(params)
        elif method == "browsingContext.contextDestroyed":
            self._context_destroyed(params)
        elif method in ("browsingContext.domContentLoaded", "browsingContext.load"):
            context = str(params.get("context"))
            page = self._pages.get(context)
            if page is not None:
                state = "complete" if method.endswith("load") else "interactive"
                page.saw_load_state(state, str(params.get("url", "")))
                self._tabs_changed()  # the watchers' address bar and tab strip
            else:
                self._frame_loaded(context, str(params.get("url", "")))
        elif method == "browsingContext.navigationStarted":
            page = self._pages.get(str(params.get("context")))
            if page is not None:
                page.saw_load_state("loading", "")
            self._grant_place(str(params.get("url", "")))
        elif method == "browsingContext.userPromptOpened":
            self._prompt_opened(params)
        elif method == "browsingContext.userPromptClosed":
            page = self.page_of(str(params.get("context")))
            if page is not None:
                dialog = page.pending_dialog
                if dialog is not None:
                    self._stop_watchdog(dialog.id)
                if dialog is not None and dialog.id not in self._answering:
                    # Closed by the page's own navigation or the browser, not by an answer.
                    accepted = params.get("accepted")
                    closed = ClosedDialog(
                        dialog,
                        time.time(),
                        "remote",
                        accepted if isinstance(accepted, bool) else None,
                    )
                    self._recent_dialogs.append(closed)
                    self._activity.publish("dialog_closed", {"dialog": closed.to_dict()}, page.id)
                page.dialog_closed()
        elif method == "network.beforeRequestSent":
            if params.get("isBlocked"):
                self._tasks.spawn(self._judge(params), name="firefox request policy")
        elif method == "log.entryAdded":
            self._console(params)
        elif method == "network.responseCompleted":
            navigation = params.get("navigation")
            response = params.get("response") or {}
            if isinstance(navigation, str) and isinstance(response, dict):
                status = int(response.get("status", 0))
                text = str(response.get("statusText", ""))
                if status == 304:
                    # A revalidated document shows the copy it kept: its status is the
                    # cached 200 (what Chromium reports for the same load).
                    status, text = 200, "OK"
                self._statuses[navigation] = (status, text)
                while len(self._statuses) > _MAX_STATUSES:
                    self._statuses.pop(next(iter(self._statuses)))

    def _grant_place(self, url: str) -> None:
        """Let a page starting to load read the emulated position (Firefox grants per
        origin); sent as the navigation starts, ahead of the new document's script."""
        grant = self.emulation.grant_for(url)
        connection = self._connection
        if grant is None or connection is None or connection.closed:
            return
        send = connection.send("permissions.setPermission", grant, budget=Budget(_CLOSE_S))
        self._tasks.spawn(_quietly(send), name="firefox geolocation grant")

    def _context_created(self, info: JSONObject) -> None:
        context = str(info.get("context"))
        parent = info.get("parent")
        url = str(info.get("url", ""))
        if parent:
            page = self.page_of(str(parent))
            if page is not None:
                page.frames[context] = FrameInfo(context, str(parent), url, "", None, False)
        elif context not in self._pages:
            opener = info.get("originalOpener")
            page = self._add_page(context, url, self._pages.get(str(opener)) if opener else None)
        for child in info.get("children") or []:
            if isinstance(child, dict):
                child.setdefault("parent", context)
                self._context_created(child)

    def _frame_loaded(self, context: str, url: str) -> None:
        """An iframe's document loaded: its frame shows where it is now."""
        page = self.page_of(context)
        frame = page.frames.get(context) if page is not None else None
        if page is not None and frame is not None and url:
            page.frames[context] = dataclasses.replace(frame, url=url)

    def _add_page(self, context: str, url: str, opener: FirefoxPage | None) -> FirefoxPage:
        page = FirefoxPage(self, f"t{next(self._tab_ids)}", context, url)
        page.opener = opener
        self._pages[context] = page
        if opener is not None:
            self._active = page  # a popup is where the agent's next call goes, as on Chromium
            self._tasks.spawn(
                self._set_viewport(context, Budget(_CLOSE_S)), name="firefox popup viewport"
            )
        self._tabs_changed()
        return page

    def _context_destroyed(self, info: JSONObject) -> None:
        context = str(info.get("context"))
        page = self._pages.get(context)
        if page is not None:
            page.was_closed()
            self._activity.tab_gone(page.id)
            self._tabs_changed()
            return
        for page in self._pages.values():
            page.frames.pop(context, None)

    def _prompt_opened(self, params: JSONObject) -> None:
        context = str(params.get("context"))
        page = self.page_of(context)
        if page is None:
            return
        kind = str(params.get("type", "alert"))
        dialog = PendingDialog(
            id=f"d-{next(self._dialog_ids)}",
            type=kind,
            message=str(params.get("message", "")),
            default_prompt=str(params.get("defaultValue", "")),
            url=page.url,
            tab_id=page.id,
            frame_id=context,
            session_id=None,
            opened_at=time.time(),
        )
        self._last_dialog[page.context] = dialog
        page.dialog_opened(dialog)
        self._activity.publish("dialog_opened", {"dialog": dialog.to_dict()}, page.id)
        if self.dialog_policy != "must_respond":
            accept = self.dialog_policy == "auto_accept" or kind in ("alert", "beforeunload")
            answer = self._answer(page, dialog, accept, "auto_policy")
            self._tasks.spawn(answer, name="firefox dialog policy")
            return
        self._watchdogs[dialog.id] = asyncio.get_running_loop().call_later(
            self.config.browser.dialog_timeout_s, self._watchdog_fired, page, dialog
        )

    def _watchdog_fired(self, page: FirefoxPage, dialog: PendingDialog) -> None:
        self._watchdogs.pop(dialog.id, None)
        if page.pending_dialog is dialog and not self._closed:
            logger.warning(
                "dialog %s was not answered within %.0f s: dismissed by the watchdog",
                dialog.id,
                self.config.browser.dialog_timeout_s,
            )
            answer = self._answer(page, dialog, False, "watchdog")
            self._tasks.spawn(answer, name="firefox dialog watchdog")

    def _stop_watchdog(self, dialog_id: str) -> None:
        handle = self._watchdogs.pop(dialog_id, None)
        if handle is not None:
            handle.cancel()

    async def _answer(
        self, page: FirefoxPage, dialog: PendingDialog, accept: bool, by: ClosedBy
    ) -> None:
        with contextlib.suppress(TabwardenError):
            await self.answer_dialog(page, dialog, accept, by, None, Budget(_CLOSE_S))
        if page.pending_dialog is dialog:
            page.dialog_closed()

    @engine_side
    def check_navigation(self, url: str) -> None:
        """Refuse a page the URL policy does not allow, before anything is sent."""
        verdict = self.policy.check(url)
        if not verdict.allowed:
            self._note_blocked(verdict)
            raise PolicyDenied(
                f"navigation to {verdict.url} blocked by policy: {verdict.rule}",
                hint=verdict.hint or None,
            )

    def _note_blocked(self, verdict: Verdict) -> None:
        self.blocked.append(verdict)
        self._blocked_at.append(time.time())
        del self.blocked[:-_MAX_BLOCKED]
        del self._blocked_at[:-_MAX_BLOCKED]

    async def _judge(self, params: JSONObject) -> None:
        """Let a paused request go on, or fail it when the policy refuses its URL."""
        request = params.get("request") or {}
        request_id = str(request.get("request", ""))
        url = str(request.get("url", ""))
        document = bool(params.get("navigation")) or request.get("destination") in _DOCUMENTS
        verdict = None
        if document or self.config.policy.intercept_subresources:
            verdict = self.policy.check(url, resource="navigation" if document else "subresource")
        budget = Budget(_CLOSE_S)
        with contextlib.suppress(TabwardenError):
            if verdict is not None and not verdict.allowed:
                self._note_blocked(verdict)
                logger.info("blocked by policy: %s (%s)", verdict.url, verdict.rule)
                await self.connection.send(
                    "network.failRequest", {"request": request_id}, budget=budget
                )
            else:
                await self.connection.send(
                    "network.continueRequest", {"request": request_id}, budget=budget
                )

    def _console(self, params: JSONObject) -> None:
        source = params.get("source") or {}
        context = str(source.get("context", "")) if isinstance(source, dict) else ""
        page = self.page_of(context)
        if page is not None:
            self._console_store.add(page.id, console_entry(params, page.id))


async def _quietly(work: Awaitable[Any]) -> None:
    with contextlib.suppress(TabwardenError):
        await work
