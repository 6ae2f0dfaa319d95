"""BrowserSession: one browser, one CDP connection, its tabs, and its life (relaunch, close).

Isolation: each session owns its own browser process and profile (see
docs/architecture.md for why processes rather than browser contexts).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from .backends.base import Backend, Endpoint
from .budget import Budget
from .cdp.connection import CDPConnection
from .cdp.protocol import Event
from .cdp.session import CDPSession
from .config import Config
from .errors import (
    BrowserCrashed,
    CDPError,
    CDPTimeout,
    ConnectionLost,
    DeadlineExceeded,
    InvalidArgument,
    PageBusy,
    SessionClosed,
    TabNotFound,
    TabwardenError,
)
from .metrics import Metrics
from .navigation import NavigationResult, check_wait_until, normalize_url
from .safety.paths import WorkspacePaths
from .supervisor.bridge import bridge_commands
from .supervisor.dialogs import ClosedDialog
from .supervisor.supervisor import Supervisor, SupervisorState
from .tab import Tab, TabInfo, _dialog_action

__all__ = ["BrowserSession"]

logger = logging.getLogger("tabwarden.session")

_SETUP_S = 10.0
_RECONNECT_FIRST_S = 0.5
_RECONNECT_MAX_S = 10.0
_RECONNECT_ATTEMPT_S = 10.0


class BrowserSession:
    """A browser (launched or attached) with its tabs. Use ``tabwarden.launch()``."""

    def __init__(self, backend: Backend, *, name: str = "default", config: Config | None = None):
        self.name = name
        self.backend = backend
        self.config = config or Config()
        self.endpoint: Endpoint | None = None
        self.product = ""
        self.launches = 0
        self.last_used = time.monotonic()
        self._connection: CDPConnection | None = None
        self._tabs: dict[str, Tab] = {}  # by target id, in creation order
        self._next_tab = 1
        self._active: Tab | None = None
        self._recent: list[Tab] = []
        self._reconnecting: asyncio.Task[None] | None = None
        self.metrics = Metrics()
        """Evaluation durations and outcomes, busy pages…: ``metrics.snapshot()``."""
        self._front: str | None = None
        """Target id of the tab the browser shows (the others render no frames)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._start_lock = asyncio.Lock()
        self._busy = 0
        self._closing = False
        self._closed = False
        self._lost_reason = ""
        self._paths: WorkspacePaths | None = None
        bridge = self.config.browser.dialog_bridge
        self.supervisor = Supervisor(
            self,
            policy=self.config.browser.dialog_policy,
            dialog_timeout_s=self.config.browser.dialog_timeout_s,
            bridge=bridge == "on" or (bridge == "auto" and backend.needs_dialog_bridge),
        )

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self._tabs)} tabs"
        return f"<BrowserSession {self.name!r} {self.backend.name} {state}>"

    async def __aenter__(self) -> BrowserSession:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- properties ----------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        return self._connection is not None and not self._connection.closed

    @property
    def busy(self) -> bool:
        """True while a call on this session is running (the idle reaper leaves it alone)."""
        return self._busy > 0

    @property
    def active_tab(self) -> Tab | None:
        return self._active

    @property
    def paths(self) -> WorkspacePaths:
        """The workspace: where files may be read from and written to (safety/paths.py)."""
        if self._paths is None:
            self._paths = WorkspacePaths.from_config(self.config)
        return self._paths

    @property
    def connection(self) -> CDPConnection:
        if self._connection is None:
            raise SessionClosed(f"session {self.name!r} is not started")
        return self._connection

    # ---- life ----------------------------------------------------------------------

    async def start(self, *, timeout_ms: float | None = None) -> BrowserSession:
        """Launch or attach the browser (idempotent)."""
        async with self._operation(timeout_ms, "launch"):
            pass
        return self

    async def close(self) -> None:
        """Close the browser (or detach from an attached one) and forget every tab."""
        if self._closed:
            return
        self._closing = True
        self.supervisor.stop()  # first: no answer or watchdog runs during teardown
        if self._reconnecting is not None:
            self._reconnecting.cancel()
        try:
            if self.connected and not self.backend.owns_browser:
                await self._close_own_tabs()
            elif self.connected:
                await self._close_browser_gracefully()
            for task in list(self._tasks):
                task.cancel()
            if self._connection is not None:
                await self._connection.close()
            await self.backend.close()
        finally:
            self._forget_tabs(f"session {self.name!r} was closed")
            self._closed = True

    # ---- tabs ----------------------------------------------------------------------

    async def new_tab(
        self,
        url: str | None = None,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> Tab:
        """Open a tab (and load ``url`` in it); it becomes the active tab."""
        stage = check_wait_until(wait_until)
        target_url = normalize_url(url) if url is not None else None
        async with self._operation(timeout_ms, "navigation") as budget:
            tab = self._pristine_tab() or await self._create_tab(budget)
            self._set_active(tab)
            if target_url is not None:
                await tab._navigate(target_url, stage, budget)
        return tab

    async def open(
        self, url: str, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Load ``url`` in the active tab (opening one if there is none)."""
        tab = await self.current_tab(timeout_ms=timeout_ms)
        return await tab.navigate(url, wait_until=wait_until, timeout_ms=timeout_ms)

    async def current_tab(self, *, timeout_ms: float | None = None) -> Tab:
        """The active tab, relaunching the browser or opening a tab when there is none."""
        async with self._operation(timeout_ms, "action") as budget:
            if self._active is None or self._active.closed:
                tab = self._pristine_tab() or await self._create_tab(budget)
                self._set_active(tab)
            assert self._active is not None
            return self._active

    async def tabs(self, *, timeout_ms: float | None = None) -> list[Tab]:
        """Open tabs in the order they appeared (popups included), with fresh URLs and titles.

        Read from the browser's target list (``Target.getTargets``), never from a
        page, so a tab that is busy or blocked by a dialog cannot hold it up.
        """
        async with self._operation(timeout_ms, "action") as budget:
            reply = await self._browser_cdp().send(
                "Target.getTargets", {"filter": [{"type": "page"}]}, budget=budget
            )
            for info in reply.get("targetInfos", []):
                tab = self._tabs.get(info.get("targetId", ""))
                if tab is not None:
                    tab._update_info(info)
            return [tab for tab in self._tabs.values() if not tab.closed]

    async def tab_infos(self, *, timeout_ms: float | None = None) -> list[TabInfo]:
        return [tab.info() for tab in await self.tabs(timeout_ms=timeout_ms)]

    def get_tab(self, tab_id: str) -> Tab:
        """A tab by its id (``t3``) or its CDP target id."""
        if not isinstance(tab_id, str) or not tab_id:
            raise InvalidArgument(f"tab_id must be a tab id such as 't1', got {tab_id!r}")
        for tab in self._tabs.values():
            if tab_id in (tab.id, tab.target_id) and not tab.closed:
                return tab
        known = ", ".join(t.id for t in self._tabs.values() if not t.closed) or "none"
        raise TabNotFound(f"no open tab {tab_id!r} in session {self.name!r} (open: {known})")

    async def switch_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> Tab:
        async with self._operation(timeout_ms, "action") as budget:
            tab = self.get_tab(tab_id)
            await self._browser_cdp().send(
                "Target.activateTarget", {"targetId": tab.target_id}, budget=budget
            )
            self._front = tab.target_id
            self._set_active(tab)
            return tab

    async def close_tab(
        self, tab_id: str | None = None, *, timeout_ms: float | None = None
    ) -> None:
        """Close a tab (default: the active one); the previously active tab takes over."""
        async with self._operation(timeout_ms, "action") as budget:
            tab = self.get_tab(tab_id) if tab_id is not None else self._active
            if tab is None:
                raise TabNotFound("there is no active tab to close")
            # A page paused in a dialog cannot run its unload: answer for it first.
            for dialog in self.supervisor.pending(tab):
                with contextlib.suppress(TabwardenError):
                    await self.supervisor.answer(
                        accept=dialog.type == "beforeunload",
                        dialog_id=dialog.id,
                        budget=budget.child(2.0),
                    )
            with self.connection.event_queue(["Target.targetDestroyed"], None) as destroyed:
                await self._browser_cdp().send(
                    "Target.closeTarget", {"targetId": tab.target_id}, budget=budget
                )
                while not tab.closed:
                    await destroyed.get(budget, what=f"closing tab {tab.id}")

    async def dialog(
        self,
        action: str = "accept",
        *,
        prompt_text: str | None = None,
        dialog_id: str | None = None,
        timeout_ms: float | None = None,
    ) -> ClosedDialog:
        """Answer a pending dialog of any tab: the one named by ``dialog_id``, or the only one."""
        accept = _dialog_action(action)
        async with self._operation(timeout_ms, "action") as budget:
            return await self.supervisor.answer(
                accept=accept, prompt_text=prompt_text, dialog_id=dialog_id, budget=budget
            )

    def state(self, tab: Tab | None = None) -> SupervisorState:
        """What the supervisor knows (dialogs, console errors, frames); never waits."""
        return self.supervisor.state(tab)

    async def cdp(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        target_id: str | None = None,
        frame_id: str | None = None,
        timeout_ms: float | None = None,
    ) -> dict[str, Any]:
        """Send a raw CDP command (an escape hatch; prefer the API): to the browser, to a
        tab (``target_id`` or tab id), or to a frame (``frame_id``, OOPIFs included)."""
        if target_id is None and frame_id is not None:
            target_id = next(
                (
                    t.target_id
                    for t in self._tabs.values()
                    if t._frames is not None and t._frames.registry.get(frame_id)
                ),
                None,
            )
            if target_id is None:
                raise InvalidArgument(f"no tab has a frame {frame_id!r}", hint="see the frame tree")
        if target_id is not None:
            tab = self.get_tab(target_id)
            return await tab.cdp(method, params, frame_id=frame_id, timeout_ms=timeout_ms)
        async with self._operation(timeout_ms, "action") as budget:
            return await self._browser_cdp().send(method, params, budget=budget)

    # ---- diagnostics: console and network -------------------------------------------

    # ---- storage and emulation -----------------------------------------------------

    # ---- files: downloads and traces ------------------------------------------------

    # ---- safety: URL policy -------------------------------------------------------

    # ---- internal ------------------------------------------------------------------

    def budget(self, timeout_ms: float | None, kind: str = "action") -> Budget:
        """A Budget for one call: ``timeout_ms`` or the configured default for ``kind``."""
        timeouts = self.config.timeouts
        if timeout_ms is None:
            timeout_ms = getattr(timeouts, f"{kind}_ms")
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, (int, float)):
            raise InvalidArgument(
                f"timeout_ms must be a number of milliseconds, got {timeout_ms!r}"
            )
        if not 0 < timeout_ms <= timeouts.max_ms:
            raise InvalidArgument(
                f"timeout_ms={timeout_ms} is out of range",
                hint=f"give a value above 0 and at most {timeouts.max_ms} ms",
            )
        return Budget.from_ms(timeout_ms)

    @contextlib.asynccontextmanager
    async def _operation(
        self, timeout_ms: float | None, kind: str, tab: Tab | None = None
    ) -> AsyncIterator[Budget]:
        """One public call: a budget, a live browser (relaunched if it died), busy marking.

        A call on a closed ``tab`` fails before anything else (a relaunch could not bring
        that page back)."""
        budget = self.budget(timeout_ms, kind)
        if self._closed or self._closing:
            raise SessionClosed(f"session {self.name!r} is closed")
        if tab is not None and tab.closed:
            raise tab._closed_error()
        self._busy += 1
        self.last_used = time.monotonic()
        try:
            await self._ensure_connected(budget)
            yield budget
        except CDPTimeout as exc:
            if tab is None or exc.session_id is None:
                raise
            self.metrics.count("page_busy")
            raise PageBusy(
                f"tab {tab.id} did not answer {exc.method} within {budget.timeout_s * 1000:.0f} ms",
                tab_id=tab.id,
            ) from exc
        finally:
            self._busy -= 1
            self.last_used = time.monotonic()

    def _browser_cdp(self) -> CDPSession:
        return CDPSession(self.connection, None)

    async def _bring_to_front(self, tab: Tab, budget: Budget) -> None:
        """Show ``tab`` (a background tab runs no animation frames, so pages that
        render on them would not react to an agent's actions)."""
        if self._front != tab.target_id:
            await (await tab._ready_session(budget)).send("Page.bringToFront", budget=budget)
            self._front = tab.target_id

    def setup_commands(self) -> list[tuple[str, dict[str, Any]]]:
        """Commands every page and frame session runs while it is set up (paused)."""
        commands: list[tuple[str, dict[str, Any]]] = []
        if self.supervisor.bridge:
            commands += bridge_commands()
        # Each topic below adds what a new page or frame session needs before it runs.
        return commands

    def _tab_by_id(self, tab_id: str) -> Tab | None:
        return next((t for t in self._tabs.values() if t.id == tab_id), None)

    def _tab_of_session(self, session_id: str | None) -> tuple[Tab, str] | None:
        """The tab, and the frame, that a CDP session renders (OOPIF sessions included)."""
        if session_id is None:
            return None
        for tab in self._tabs.values():
            if tab._session is not None and tab._session.session_id == session_id:
                return tab, tab.target_id
            if tab._frames is not None:
                for frame in tab._frames.registry.frames():
                    if frame.is_oopif and frame.session_id == session_id:
                        return tab, frame.frame_id
        return None

    def _tab_by_target(self, target_id: str) -> Tab | None:
        return self._tabs.get(target_id)

    async def _ensure_connected(self, budget: Budget) -> None:
        if self.connected:
            return
        reconnecting = self._reconnecting
        if reconnecting is not None and not reconnecting.done():
            with contextlib.suppress(DeadlineExceeded):
                await budget.run(asyncio.shield(reconnecting), what="waiting to reconnect")
            if not self.connected:
                raise ConnectionLost(
                    f"session {self.name!r} lost its connection ({self._lost_reason}) and is "
                    "reconnecting",
                    hint="retry in a few seconds; the tabs and pending dialogs are kept",
                )
            return
        async with self._start_lock:
            if self.connected:
                return
            if self._connection is not None:
                logger.warning(
                    "session %r: the browser went away (%s); relaunching",
                    self.name,
                    self._lost_reason,
                )
                self._connection = None
                await self.backend.close()
            await self._connect(budget.child(self.config.timeouts.launch_ms / 1000))

    async def _connect(self, budget: Budget, *, again: bool = False) -> None:
        """Start (or, ``again``, reconnect to) the browser and watch its targets."""
        self.endpoint = await (
            self.backend.reconnect(budget) if again else self.backend.start(budget)
        )
        try:
            connection = await CDPConnection.connect(self.endpoint.ws_url, budget)
        except BaseException:
            if not again:
                await self.backend.close()
            raise
        connection.loss_error = self._loss_error
        self._connection = connection
        self.supervisor.attach(connection)
        if not again:
            self.launches += 1
        connection.on_close(lambda: self._on_connection_closed(connection))
        browser = CDPSession(connection, None)
        for method, handler in (
            ("Target.targetCreated", self._on_target_created),
            ("Target.targetInfoChanged", self._on_target_info_changed),
            ("Target.targetDestroyed", self._on_target_destroyed),
            ("Target.attachedToTarget", self._on_attached),
            ("Target.detachedFromTarget", self._on_detached),
        ):
            connection.subscribe(method, handler, None)
        try:
            version = await browser.send("Browser.getVersion", budget=budget)
            self.product = version.get("product", "")
            await browser.send(
                "Target.setDiscoverTargets",
                {"discover": True, "filter": [{"type": "page"}]},
                budget=budget,
            )
            # Pages (popups included) attach paused, so a tab is set up before its
            # first script runs; each is resumed once set up (Tab._setup).
            await browser.send(
                "Target.setAutoAttach",
                {
                    "autoAttach": True,
                    "waitForDebuggerOnStart": True,
                    "flatten": True,
                    "filter": [{"type": "page"}],
                },
                budget=budget,
            )
        except BaseException:
            await connection.close()
            if not again:
                await self.backend.close()
            self._connection = None
            raise
        logger.info(
            "session %r connected to %s (%s)", self.name, self.product, self.endpoint.ws_url
        )

    async def _create_tab(self, budget: Budget) -> Tab:
        reply = await self._browser_cdp().send(
            "Target.createTarget", {"url": "about:blank"}, budget=budget
        )
        tab = self._register(reply["targetId"], {"url": "about:blank"})
        tab._created_here = True
        self._front = tab.target_id
        await tab._ready_session(budget)
        return tab

    def _pristine_tab(self) -> Tab | None:
        """The browser's own first blank tab, reused by the first new_tab() of a launch."""
        if not self.backend.owns_browser:
            return None
        open_tabs = [tab for tab in self._tabs.values() if not tab.closed]
        if len(open_tabs) == 1 and not open_tabs[0].navigated and not self._recent:
            return open_tabs[0]
        return None

    def _register(self, target_id: str, info: dict[str, Any]) -> Tab:
        tab = self._tabs.get(target_id)
        if tab is None:
            tab = Tab(self, f"t{self._next_tab}", target_id)
            self._next_tab += 1
            self._tabs[target_id] = tab
        tab._update_info(info)
        return tab

    def _set_active(self, tab: Tab) -> None:
        self._active = tab
        if tab in self._recent:
            self._recent.remove(tab)
        self._recent.append(tab)

    def _spawn(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _close_own_tabs(self) -> None:
        """On an attached browser, close only the tabs this session opened."""
        budget = Budget(_SETUP_S)
        for tab in [t for t in self._tabs.values() if t.opener is None and t._created_here]:
            with contextlib.suppress(CDPError, ConnectionLost):
                await self._browser_cdp().send(
                    "Target.closeTarget", {"targetId": tab.target_id}, budget=budget.child(2.0)
                )

    async def _close_browser_gracefully(self) -> None:
        """``Browser.close``: the browser saves its profile (cookies, storage) and exits."""
        with contextlib.suppress(CDPError, ConnectionLost, DeadlineExceeded):
            budget = Budget(_SETUP_S)
            await self._browser_cdp().send("Browser.close", budget=budget)
            await self.connection.wait_closed(budget)

    def _forget_tabs(self, reason: str) -> None:
        for tab in self._tabs.values():
            tab._mark_closed(reason)
        self._tabs.clear()
        self._active = None
        self._recent.clear()

    def _loss_error(self, method: str) -> ConnectionLost:
        if self._closing:
            return ConnectionLost(
                f"{method}: session {self.name!r} was closed", hint="open a new session"
            )
        if self.backend.owns_browser:
            status = self.backend.exit_status() or "went away"
            return BrowserCrashed(f"{method}: the browser of session {self.name!r} {status}")
        return ConnectionLost(
            f"{method}: lost the connection to {self.endpoint and self.endpoint.ws_url}"
        )

    # ---- event handlers (on the reader: no awaiting) --------------------------------

    def _on_connection_closed(self, connection: CDPConnection) -> None:
        if connection is not self._connection or self._closing:
            return
        status = self.backend.exit_status() if self.backend.owns_browser else None
        self._lost_reason = connection.close_reason if status is None else f"the browser {status}"
        if not self.backend.owns_browser and self.config.browser.reconnect_give_up_s > 0:
            # Someone else's browser still runs: keep tabs and dialogs, and reconnect.
            self.supervisor.connection_state = "reconnecting"
            for tab in self._tabs.values():
                tab._unbind()
            self._reconnecting = asyncio.get_running_loop().create_task(
                self._reconnect(), name=f"reconnect {self.name}"
            )
            return
        self.supervisor.browser_gone(self._lost_reason)
        self._forget_tabs(
            f"the browser went away ({self._lost_reason}); the next call on session "
            f"{self.name!r} relaunches it — open a new tab"
        )

    async def _reconnect(self) -> None:
        """Reconnect with exponential backoff (0.5 s doubling to 10 s) until the give-up."""
        give_up = Budget(self.config.browser.reconnect_give_up_s)
        delay = _RECONNECT_FIRST_S
        attempt = 0
        while True:
            attempt += 1
            await give_up.sleep(delay)  # backoff between attempts
            try:
                await self._connect(give_up.child(_RECONNECT_ATTEMPT_S), again=True)
                logger.info("session %r reconnected after %d attempts", self.name, attempt)
                return
            except TabwardenError as exc:
                logger.info("session %r: reconnect attempt %d failed: %s", self.name, attempt, exc)
            if give_up.expired:
                break
            delay = min(delay * 2, _RECONNECT_MAX_S)
        self.supervisor.connection_state = "gave_up"
        self._lost_reason = (
            f"gave up reconnecting after {give_up.timeout_s:.0f} s ({attempt} attempts)"
        )
        self.supervisor.browser_gone(self._lost_reason)
        self._forget_tabs(f"the connection was lost and {self._lost_reason}")
        logger.warning("session %r: %s", self.name, self._lost_reason)

    def _on_target_created(self, event: Event) -> None:
        info = event.params.get("targetInfo", {})
        if info.get("type") == "page":
            self._register(info["targetId"], info)
            if info.get("openerId"):
                self._front = info["targetId"]  # the browser shows a popup in front

    def _on_target_info_changed(self, event: Event) -> None:
        info = event.params.get("targetInfo", {})
        tab = self._tabs.get(info.get("targetId", ""))
        if tab is not None:
            tab._update_info(info)

    def _on_target_destroyed(self, event: Event) -> None:
        tab = self._tabs.pop(event.params.get("targetId", ""), None)
        if tab is None:
            return
        self.supervisor.tab_closed(tab)
        tab._mark_closed("it was closed")
        if tab in self._recent:
            self._recent.remove(tab)
        if self._active is tab:
            self._active = self._recent[-1] if self._recent else None

    def _on_attached(self, event: Event) -> None:
        info = event.params.get("targetInfo", {})
        session_id = event.params["sessionId"]
        connection = self.connection
        if info.get("type") != "page":
            if event.params.get("waitingForDebugger"):  # auto-attached: not ours to keep
                self._spawn(asyncio.get_running_loop().create_task(self._release(session_id)))
            return
        tab = self._register(info["targetId"], info)
        if tab._session is not None:
            # Another session on a page we already drive (an explicit
            # Target.attachToTarget, e.g. for isolated evaluation): not the tab's.
            return
        session = CDPSession(connection, session_id, info["targetId"])
        self._spawn(tab._bind(session, bool(event.params.get("waitingForDebugger"))))

    def _on_detached(self, event: Event) -> None:
        session_id = event.params.get("sessionId")
        if not session_id:
            return
        self.connection.drop_session(session_id)
        tab = self._tabs.get(event.params.get("targetId", ""))
        if tab is not None and tab._session is not None and tab._session.session_id == session_id:
            tab._unbind()

    async def _release(self, session_id: str) -> None:
        """Resume and detach a target that is not a page (the filter should prevent it)."""
        session = CDPSession(self.connection, session_id)
        budget = Budget(_SETUP_S)
        with contextlib.suppress(CDPError, ConnectionLost):
            await session.send("Runtime.runIfWaitingForDebugger", budget=budget)
            await session.detach(budget=budget)
