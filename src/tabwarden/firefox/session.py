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

import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable
from typing import Any

from ..backends.firefox import LocalFirefox
from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..cdp.protocol import Event
from ..config import Config, load_config
from ..diagnostics.emulation_state import (
    EmulationChange,
    EmulationResult,
    EmulationState,
    emulation_change,
)
from ..errors import (
    BiDiError,
    BrowserCrashed,
    NavigationError,
    NavigationFailed,
    PolicyDenied,
    SessionClosed,
    TabNotFound,
    TabwardenError,
)
from ..frames import FrameInfo
from ..safety.paths import WorkspacePaths
from ..safety.url_policy import UrlPolicy, Verdict
from ..supervisor.dialogs import DialogPolicy, PendingDialog
from ..tasks import TaskOwner
from .emulation import FirefoxEmulation
from .page import ConsoleEntry, FirefoxPage

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
)
_MAX_CONSOLE = 500
_MAX_BLOCKED = 100
_DOCUMENTS = ("document", "iframe", "frame", "embed", "object")
"""Request destinations that are documents (a page, a frame's page)."""
_MAX_STATUSES = 200
_CLOSE_S = 5.0


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
        self._tasks = TaskOwner(f"firefox session {name}")
        self._closed = False
        self.policy = UrlPolicy.from_config(
            self.config.policy, WorkspacePaths.from_config(self.config).root
        )
        self.last_used = time.monotonic()
        """When a call last started here (the session manager closes idle sessions)."""
        self.blocked: list[Verdict] = []
        """Page-initiated documents the policy blocked (the newest last, bounded)."""
        self.emulation = FirefoxEmulation(backend.viewport)

    # ---- life -----------------------------------------------------------------------

    async def start(self, timeout_ms: float | None = None) -> FirefoxSession:
        budget = Budget.from_ms(timeout_ms or self.config.timeouts.launch_ms)
        endpoint = await self.backend.start(budget)
        self._connection = await BiDiConnection.connect(endpoint.ws_url, budget)
        await self._connection.send("session.new", {"capabilities": CAPABILITIES}, budget=budget)
        self._connection.subscribe("*", self._on_event)
        self._connection.on_close(self._connection_closed)
        await self._connection.subscribe_remote(EVENTS, budget)
        # Every request pauses before it is sent: documents (pages and frames) are judged
        # by the URL policy, like Chromium's Fetch interception of documents; the rest go
        # on at once (with policy.intercept_subresources, judged too).
        await self._connection.send(
            "network.addIntercept", {"phases": ["beforeRequestSent"]}, budget=budget
        )
        tree = await self._connection.send("browsingContext.getTree", {}, budget=budget)
        for info in tree.get("contexts", []):
            self._context_created(info)
        for page in self.tabs:
            await self._set_viewport(page.context, budget)
        if not self._pages:
            await self.new_tab()
        return self

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
        for page in self._pages.values():
            page.was_closed()

    # ---- reading --------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connection(self) -> BiDiConnection:
        if self._connection is None or self._closed:
            raise SessionClosed(f"the Firefox session {self.name} is closed")
        if self._connection.closed:
            status = self.backend.exit_status()
            raise BrowserCrashed(
                f"Firefox {status}" if status else "the connection to Firefox closed",
                hint="Firefox sessions are not relaunched: close this session and launch a new one",
            )
        return self._connection

    @property
    def tabs(self) -> list[FirefoxPage]:
        return [page for page in self._pages.values() if not page.closed]

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

    def budget(self, timeout_ms: float | None, kind: str) -> Budget:
        self.last_used = time.monotonic()
        timeouts = self.config.timeouts
        default = {
            "navigation": timeouts.navigation_ms,
            "evaluate": timeouts.evaluate_ms,
            "screenshot": timeouts.action_ms,
            "snapshot": timeouts.action_ms,
        }.get(kind, timeouts.action_ms)
        return Budget.from_ms(timeout_ms if timeout_ms is not None else default)

    def status_of(self, navigation: object) -> tuple[int | None, str]:
        if isinstance(navigation, str) and navigation in self._statuses:
            status, text = self._statuses[navigation]
            return status, text
        return None, ""

    def last_dialog_of(self, page: FirefoxPage) -> PendingDialog | None:
        return page.pending_dialog or self._last_dialog.get(page.context)

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
        budget = self.budget(timeout_ms, "action")
        reply = await self.connection.send("browsingContext.create", {"type": "tab"}, budget=budget)
        context = str(reply["context"])
        page = self._pages.get(context) or self._add_page(context, "about:blank", None)
        await self._set_viewport(context, budget)
        self._active = page
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
        return page

    def get_tab(self, tab_id: str) -> FirefoxPage:
        for page in self.tabs:
            if page.id == tab_id:
                return page
        known = ", ".join(page.id for page in self.tabs) or "none"
        raise TabNotFound(f"no open tab {tab_id} (open: {known})", hint="list the tabs")

    def page_of(self, context: str) -> FirefoxPage | None:
        page = self._pages.get(context)
        if page is not None:
            return page
        for page in self._pages.values():
            if context in page.frames:
                return page
        return None

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
        if method == "browsingContext.contextCreated":
            self._context_created(params)
        elif method == "browsingContext.contextDestroyed":
            self._context_destroyed(params)
        elif method in ("browsingContext.domContentLoaded", "browsingContext.load"):
            page = self._pages.get(str(params.get("context")))
            if page is not None:
                state = "complete" if method.endswith("load") else "interactive"
                page.saw_load_state(state, str(params.get("url", "")))
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

    def _add_page(self, context: str, url: str, opener: FirefoxPage | None) -> FirefoxPage:
        page = FirefoxPage(self, f"t{next(self._tab_ids)}", context, url)
        page.opener = opener
        self._pages[context] = page
        if opener is not None:
            self._active = page  # a popup is where the agent's next call goes, as on Chromium
            self._tasks.spawn(
                self._set_viewport(context, Budget(_CLOSE_S)), name="firefox popup viewport"
            )
        return page

    def _context_destroyed(self, info: JSONObject) -> None:
        context = str(info.get("context"))
        page = self._pages.get(context)
        if page is not None:
            page.was_closed()
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
        if self.dialog_policy != "must_respond":
            accept = self.dialog_policy == "auto_accept" or kind in ("alert", "beforeunload")
            self._tasks.spawn(self._answer(page, context, accept), name="firefox dialog policy")

    async def _answer(self, page: FirefoxPage, context: str, accept: bool) -> None:
        with contextlib.suppress(TabwardenError):
            await self.connection.send(
                "browsingContext.handleUserPrompt",
                {"context": context, "accept": accept},
                budget=Budget(_CLOSE_S),
            )
        page.dialog_closed()

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
        del self.blocked[:-_MAX_BLOCKED]

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
        if page is None:
            return
        stack = params.get("stackTrace") or {}
        frames = stack.get("callFrames") if isinstance(stack, dict) else None
        url = str(frames[0].get("url", "")) if frames else ""
        entry = ConsoleEntry(
            level=str(params.get("level", "info")),
            text=str(params.get("text", "")),
            url=url,
            timestamp=float(params.get("timestamp", 0)) / 1000,
        )
        page.saw_console(entry, _MAX_CONSOLE)


async def _quietly(work: Awaitable[Any]) -> None:
    with contextlib.suppress(TabwardenError):
        await work
