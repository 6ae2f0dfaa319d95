"""BrowserSession: one browser, one CDP connection, its tabs, and its life (relaunch, close).

Isolation (docs/isolation.md): by default each session owns its own browser process
and profile; with ``browser.isolation: context`` its backend gives it a browser
context of a shared browser, and the session sees and acts in that context only.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from .activity import SessionActivity
from .backends.base import Backend, Endpoint
from .budget import Budget
from .cdp.connection import CDPConnection
from .cdp.scoped import browser_session
from .cdp.session import CDPSession
from .cdp_page import CdpPage
from .config import Config
from .counting import counted
from .diagnostics import emulation, storage
from .diagnostics.downloads import Download, DownloadList, DownloadTracker
from .diagnostics.emulation import EmulationResult, EmulationState
from .diagnostics.recording import RecordingFile, RecordingFormat
from .diagnostics.storage import StorageResult
from .diagnostics.trace import TraceFile, TraceRecorder, TraceStarted
from .errors import (
    CDPTimeout,
    ConnectionLost,
    DeadlineExceeded,
    InvalidArgument,
    SessionClosed,
    TabNotFound,
    TabwardenError,
)
from .interrupts import OnDialog
from .link import BrowserLink, LinkEvents
from .metrics import Metrics
from .navigation import NavigationResult, check_wait_until, normalize_url
from .page import Page, engine_side
from .relaunch import Relaunch
from .safety.guard import PolicyDecision
from .safety.paths import WorkspacePaths
from .safety.raw_cdp import send_raw
from .safety.redaction import Redactor
from .safety.reserved import check_context_raw, check_raw_method
from .safety.url_policy import Verdict
from .services import SessionServices
from .start_settings import StartSettings
from .supervisor.dialogs import ClosedBy, ClosedDialog, PendingDialog, dialog_action
from .supervisor.state import SupervisorState
from .supervisor.supervisor import Supervisor
from .tab import Tab, TabInfo
from .tabs import TabRegistry, close_targets
from .tasks import TaskOwner
from .unresponsive import BrowserProbe, explain_failure

__all__ = ["BrowserSession"]


_SETUP_S = 10.0


class BrowserSession:
    """A browser (launched or attached) with its tabs. Use ``tabwarden.launch()``."""

    engine = "chromium"

    def __init__(self, backend: Backend, *, name: str = "default", config: Config | None = None):
        self.name = name
        self.backend = backend
        self.config = config or Config()
        self.last_used: float = time.monotonic()
        self.metrics = Metrics()
        """Evaluation durations and outcomes, busy pages…: ``metrics.snapshot()``."""
        self.redactor = Redactor.from_config(self.config.safety)
        """Removes secrets from text and values meant for a model (``safety`` config)."""
        self._tasks = TaskOwner(f"session {name}")
        self._busy = 0
        self._closed = False
        self._registry = TabRegistry(self._make_tab)
        self._link = BrowserLink(
            name,
            backend,
            self.config,
            self._tasks,
            LinkEvents(
                set_up=self._set_up,
                reconnecting=self._reconnecting,
                lost=self._lost,
                open_tabs=self._registry.lost_tabs,
            ),
        )
        self._paths: WorkspacePaths | None = None
        self._downloads = DownloadTracker(
            lambda: self.paths,
            capacity=self.config.files.max_downloads,
            tab_of_frame=self._registry.id_of_frame,
        )
        self._trace = TraceRecorder()
        self._services = SessionServices(
            name,
            self.config,
            pages=self._registry,
            downloads=self._downloads,
            connection=lambda: self.connection,
            connected=lambda: self.connected,
            endpoint=lambda: self.endpoint,
            owns_browser=backend.owns_browser,
            browser_context=lambda: backend.browser_context_id,
            own_viewport=backend.viewport,
            paths=lambda: self.paths,
            operation=self.operation,
            open_page=self._open_own_page,
            metrics=self.metrics,
            redactor=self.redactor,
            tasks=self._tasks,
        )
        self._start_settings = StartSettings(self._services, self.config.browser)
        activity = self._services.activity
        self._downloads.on_change = lambda download: activity.publish(
            "download", {"entry": download.to_dict()}
        )
        self._registry.on_change = self._tabs_changed
        bridge = self.config.browser.dialog_bridge
        self.supervisor = Supervisor(
            self._services,
            policy=self.config.browser.dialog_policy,
            dialog_timeout_s=self.config.browser.dialog_timeout_s,
            bridge=bridge == "on" or (bridge == "auto" and backend.needs_dialog_bridge),
        )

    def __repr__(self) -> str:
        state = "closed" if self._closed else counted(len(self._registry), "tab")
        return f"<BrowserSession {self.name!r} {self.backend.name} {state}>"

    async def __aenter__(self) -> BrowserSession:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        return self._link.connected

    @property
    def endpoint(self) -> Endpoint | None:
        """Where the browser is (its DevTools URL; the pid of one this session launched)."""
        return self._link.endpoint

    @property
    def product(self) -> str:
        """The browser's name and version, as it says (``Chrome/130.0…``)."""
        return self._link.product

    @property
    def launches(self) -> int:
        """How many times this session started its browser (relaunches included)."""
        return self._link.launches

    @property
    def last_relaunch(self) -> Relaunch | None:
        """The last time the browser went away and the session started a new one (what
        was lost, when); the first call after it says so once (``take_relaunch_notice``)."""
        return self._link.last_relaunch

    @property
    def busy(self) -> bool:
        """True while a call on this session is running (the idle reaper leaves it alone)."""
        return self._busy > 0

    @property
    def active_tab(self) -> Tab | None:
        return self._registry.active_tab()

    @property
    @engine_side
    def activity(self) -> SessionActivity:
        """What the session does, as it happens: events for watchers (the workbench) and
        the timeline of calls (activity.py)."""
        return self._services.activity

    @property
    def profile_kind(self) -> str:
        """``workspace`` (a persistent profile), ``throwaway`` (removed on close; always
        so in context mode, docs/isolation.md), or ``attached`` (a browser someone else
        started: their profile)."""
        if not self.backend.owns_browser:
            return "attached"
        shared = self.config.browser.isolation == "context"
        return "throwaway" if self.config.browser.isolated or shared else "workspace"

    def known_tabs(self) -> list[Tab]:
        """The open tabs as the session knows them now, from the browser's target events
        (no call to the browser: see ``tabs()`` for a fresh list)."""
        return self._registry.open_tabs()

    def known_downloads(self) -> tuple[Download, ...]:
        """The session's downloads as last reported (no wait, no call to the browser)."""
        return self._downloads.items()

    def watch_flags(self) -> dict[str, bool]:
        """What is being captured now: a trace, and screencast recordings."""
        return {"trace": self._trace.active, "recording": bool(self._services.recordings.tab_ids())}

    def tab_of_target(self, target_id: str) -> Tab | None:
        """The tab of a CDP target id, open or closed (None when unknown)."""
        return self._registry.tab_of_target(target_id)

    @property
    def paths(self) -> WorkspacePaths:
        """The workspace: where files may be read from and written to (safety/paths.py)."""
        if self._paths is None:
            self._paths = WorkspacePaths.from_config(self.config)
        return self._paths

    @property
    def connection(self) -> CDPConnection:
        return self._link.connection

    # ---- life ----------------------------------------------------------------------

    async def start(self, *, timeout_ms: float | None = None) -> BrowserSession:
        """Launch or attach the browser (idempotent)."""
        async with self.operation(timeout_ms, "launch"):
            pass
        return self

    async def close(self) -> None:
        """Close the browser (or detach from an attached one) and forget every tab."""
        if self._closed:
            return
        self._services.activity.publish("closed", {"session": self.name, "reason": "closed"})
        self._services.activity.hand_back()
        self._link.closing = True
        await self.supervisor.close()  # first: no answer or watchdog runs during teardown
        self._link.stop_reconnecting()
        try:
            await self._save_files_on_close()
            if self.connected and not self.backend.owns_browser:
                await self._close_own_tabs()
            elif self.connected and self.backend.browser_context_id is None:
                # The browser saves its profile as it closes. A remote one's proxy (a
                # Grid's) may keep the socket open after Browser.close: waiting for the
                # socket to close would only stall; its backend ends it anyway.
                local = self.endpoint is not None and self.endpoint.pid is not None
                await self._link.close_browser(Budget(_SETUP_S), wait=local)
            await self._tasks.close()
            await self._link.close()
            await self.backend.close()
        finally:
            self._registry.forget_all(f"session {self.name!r} was closed")
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
        if target_url is not None:
            self.supervisor.guard.check_navigation(target_url)  # before a tab is opened for it
        async with self.operation(timeout_ms, "navigation") as budget:
            tab = self._pristine_tab() or await self._open_page(budget)
            self._registry.set_active(tab)
            if target_url is not None:
                await tab.page.load(target_url, stage, budget)
        return tab

    async def open(
        self, url: str, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Load ``url`` in the active tab (opening one if there is none)."""
        tab = await self.current_tab(timeout_ms=timeout_ms)
        return await tab.navigate(url, wait_until=wait_until, timeout_ms=timeout_ms)

    async def current_tab(self, *, timeout_ms: float | None = None) -> Tab:
        """The active tab, relaunching the browser or opening a tab when there is none."""
        async with self.operation(timeout_ms, "action") as budget:
            active = self._registry.active_tab()
            if active is None or active.closed:
                active = self._pristine_tab() or await self._open_page(budget)
                self._registry.set_active(active)
            return active

    async def tabs(self, *, timeout_ms: float | None = None) -> list[Tab]:
        """Open tabs in the order they appeared (popups included), with fresh URLs and titles.

        Read from the browser's target list (``Target.getTargets``), never from a
        page, so a tab that is busy or blocked by a dialog cannot hold it up.
        """
        async with self.operation(timeout_ms, "action") as budget:
            reply = await self._browser_cdp().send(
                "Target.getTargets", {"filter": [{"type": "page"}]}, budget=budget
            )
            for info in reply.get("targetInfos", []):
                tab = self._registry.tab_of_target(info.get("targetId", ""))
                if tab is not None:
                    tab.page.update_info(info)
            return self._registry.open_tabs()

    async def tab_infos(self, *, timeout_ms: float | None = None) -> list[TabInfo]:
        return [tab.info() for tab in await self.tabs(timeout_ms=timeout_ms)]

    def get_tab(self, tab_id: str) -> Tab:
        """A tab by its id (``t3``) or its CDP target id."""
        if not isinstance(tab_id, str) or not tab_id:
            raise InvalidArgument(f"tab_id must be a tab id such as 't1', got {tab_id!r}")
        tab = self._registry.find(tab_id)
        if tab is not None:
            return tab
        known = ", ".join(t.id for t in self._registry.open_tabs()) or "none"
        loss = self._link.known_loss() or (
            self.last_relaunch.loss if self.last_relaunch is not None else None
        )
        if loss is not None and any(tab_id == lost.id for lost in loss.tabs):
            raise TabNotFound(
                f"tab {tab_id} was lost when {loss.reason} (open now: {known})",
                hint="open the page again in a new tab; the next call relaunches the browser",
            )
        raise TabNotFound(f"no open tab {tab_id!r} in session {self.name!r} (open: {known})")

    async def switch_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> Tab:
        async with self.operation(timeout_ms, "action") as budget:
            tab = self.get_tab(tab_id)
            await self._browser_cdp().send(
                "Target.activateTarget", {"targetId": tab.target_id}, budget=budget
            )
            self._services.front = tab.target_id
            self._registry.set_active(tab)
            return tab

    async def close_tab(
        self, tab_id: str | None = None, *, timeout_ms: float | None = None
    ) -> None:
        """Close a tab (default: the active one); the previously active tab takes over."""
        async with self.operation(timeout_ms, "action") as budget:
            tab = self.get_tab(tab_id) if tab_id is not None else self._registry.active_tab()
            if tab is None:
                raise TabNotFound("there is no active tab to close")
            # A page paused in a dialog cannot run its unload: answer for it first.
            for dialog in self.supervisor.pending(tab.page):
                with contextlib.suppress(TabwardenError):
                    await self.supervisor.answer(
                        accept=dialog.type == "beforeunload",
                        dialog_id=dialog.id,
                        budget=budget.child(2.0),
                    )
            await close_targets(
                self.connection,
                [tab.target_id],
                lambda _: tab.closed,
                budget,
                what=f"closing tab {tab.id}",
                strict=True,
            )

    async def dialog(
        self,
        action: str = "accept",
        *,
        prompt_text: str | None = None,
        dialog_id: str | None = None,
        timeout_ms: float | None = None,
    ) -> ClosedDialog:
        """Answer a pending dialog of any tab: the one named by ``dialog_id``, or the only one."""
        accept = dialog_action(action)
        async with self.operation(timeout_ms, "action") as budget:
            return await self.supervisor.answer(
                accept=accept, prompt_text=prompt_text, dialog_id=dialog_id, budget=budget
            )

    def state(self, tab: Tab | None = None) -> SupervisorState:
        """What the supervisor knows (dialogs, console errors, frames); never waits."""
        return self.supervisor.state(tab.page if tab is not None else None)

    # ---- what the workbench reads (surfaces/workbench/source.py) ----------------------

    @engine_side
    def pending_dialogs(self) -> list[PendingDialog]:
        """The dialogs waiting for an answer now, in every tab."""
        return self.supervisor.pending()

    @engine_side
    def recent_dialogs(self, tab_id: str | None = None) -> list[ClosedDialog]:
        """Dialogs closed lately (the newest last), of every tab or of ``tab_id``."""
        recent = self.supervisor.state(None).recent_dialogs
        return [d for d in recent if tab_id in (None, d.dialog.tab_id)]

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
        return await self.supervisor.answer(
            accept=accept,
            prompt_text=prompt_text,
            dialog_id=dialog_id,
            budget=budget,
            closed_by=closed_by,
        )

    @engine_side
    def console_entries(self, tab_id: str) -> list[dict[str, Any]]:
        """A tab's console messages held now, oldest first, as watchers get them."""
        return self.supervisor.console.entries(tab_id)

    @engine_side
    def network_entries(self, tab_id: str) -> list[dict[str, Any]]:
        """A tab's requests held now, oldest first, as watchers get them."""
        return self.supervisor.network.entries(tab_id)

    def take_person_notice(self) -> str:
        """Once after a person acted in tabs of this session (from the workbench) since the
        agent's last snapshot of them: which tabs and what they did (empty otherwise)."""
        notes = []
        for tab in self._registry.open_tabs():
            acts = tab.page.take_person_activity()
            if acts is not None:
                notes.append(
                    f"a person acted in tab {tab.id} ({acts.describe()}) since your last "
                    "snapshot of it: take a snapshot before using its refs"
                )
        return "\n".join(notes)

    def take_relaunch_notice(self) -> Relaunch | None:
        """The relaunch the caller has not been told about yet, once: after the browser
        went away, the first call that asks gets it (snapshot headers and tool results
        show it); later calls get None."""
        return self._link.take_relaunch_notice()

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
        check_raw_method(method)
        if target_id is None and frame_id is not None:
            owner = self._registry.of_frame(frame_id)
            target_id = owner.target_id if owner is not None else None
            if target_id is None:
                raise InvalidArgument(f"no tab has a frame {frame_id!r}", hint="see the frame tree")
        if target_id is not None:
            tab = self.get_tab(target_id)
            return await tab.cdp(method, params, frame_id=frame_id, timeout_ms=timeout_ms)
        async with self.operation(timeout_ms, "action") as budget:
            context_id = self.backend.browser_context_id
            if context_id is not None:  # a shared browser: nothing past this session's context
                check_context_raw(
                    method, params, context_id, lambda t: self._registry.find(t) is not None
                )
            return await send_raw(
                self._browser_cdp(),
                method,
                params,
                budget,
                guard=self.supervisor.guard,
                paths=self.paths,
                tab=None,
            )

    # ---- storage and emulation -----------------------------------------------------

    def emulation_state(self) -> EmulationState:
        """What this session emulates now, for every tab (never waits)."""
        return self._services.emulation

    async def emulate(
        self,
        change: emulation.EmulationChange | str | None = None,
        *,
        timeout_ms: float | None = None,
        **settings: Any,
    ) -> EmulationResult:
        """Emulate a device, user agent, locale, timezone, place, media, network or CPU in
        every tab: open ones now, new tabs, popups and iframes from their start.

        The settings are those of :class:`~tabwarden.diagnostics.emulation.EmulationChange`,
        given as that model (``change``) or as keyword arguments (``width=400``; they win
        over the model's); a first argument that is text names a device preset
        (``emulate("pixel-8")``). Only what is given changes (None keeps a setting);
        ``reset=True`` first returns everything to the browser's own. ``width`` and
        ``height`` replace the session's viewport (a launched browser's configured size,
        ``browser.window_width`` x ``window_height``; an attached browser's windows keep
        theirs): one alone keeps the other side. ``device`` is a
        preset (``iphone-15``, ``pixel-8``, ``desktop-1080p``… see ``emulation.DEVICES``);
        ``network`` a preset (``slow-3g``, ``fast-3g``, ``4g``), ``none``, or custom via
        ``latency_ms``, ``download_kbps``, ``upload_kbps``; ``cpu_throttling`` a slowdown
        factor. ``color_scheme``/``reduced_motion`` take ``default`` and text settings
        ``""`` to stop emulating them. With nothing given it returns the current state.
        ``platform`` (navigator.platform) reaches the pages open now and each new tab's
        first page; Chromium may drop it on a later same-site navigation.
        """
        asked = emulation.emulation_change(change, settings)
        async with self.operation(timeout_ms, "action") as budget:
            services = self._services
            agent = await services.browser_user_agent(budget)
            new = emulation.updated(services.emulation, asked, browser_user_agent=agent)
            own = services.own_viewport
            if new == services.emulation:
                return EmulationResult(new, own_viewport=own)
            old, services.emulation = services.emulation, new  # new tabs set up get it now
            notes = await emulation.apply(
                self._browser_cdp(),
                [t.page for t in self._registry.open_tabs()],
                services.user_agent,
                self._tasks.spawn,
                old,
                new,
                own,
                budget,
                granted=services.granted_permissions,
                context_id=services.browser_context_id,
            )
            notes = [*emulation.change_notes(old, new), *notes]
            services.activity.publish("emulation", {"state": new.to_dict()})
            return EmulationResult(new, tuple(notes), own_viewport=own)

    async def save_storage_state(
        self, file: str | None = None, *, timeout_ms: float | None = None
    ) -> StorageResult:
        """Save every cookie and the localStorage of each open origin to a storage state
        file (Playwright's format) in the workspace's ``state`` folder: ``file`` is a
        name there (or a path inside the workspace); default: a time-stamped name. The
        file holds logins: it is written readable by its owner only."""
        async with self.operation(timeout_ms, "action") as budget:
            return await storage.save_state(self._services, budget, file)

    async def load_storage_state(
        self, file: str, *, timeout_ms: float | None = None
    ) -> StorageResult:
        """Load a storage state file (Playwright's format, from the workspace or an
        allowed folder): its cookies, and each origin's localStorage, written through a
        short-lived background tab that is served an empty page (no site is contacted)."""
        async with self.operation(timeout_ms, "navigation") as budget:
            return await storage.load_state(self._services, budget, file)

    # ---- files: downloads and traces ------------------------------------------------

    async def downloads(
        self, *, wait: bool = False, guid: str | None = None, timeout_ms: float | None = None
    ) -> DownloadList:
        """The session's downloads, oldest first: state, bytes, final path and size, and
        executable types flagged (never opened or run). They are saved into the
        workspace's ``downloads`` folder. ``wait=True`` waits until the downloads in
        progress (or only ``guid``) finish, within ``timeout_ms``; still running at the
        deadline is reported, not raised."""
        async with self.operation(timeout_ms, "wait" if wait else "action") as budget:
            if not wait:
                return self._downloads.listing()
            done = await self._downloads.wait(budget, guid)
            waited = max(1, int(budget.elapsed() * 1000))
            return self._downloads.listing(waited_ms=waited, still_running=not done)

    async def cancel_download(self, guid: str, *, timeout_ms: float | None = None) -> Download:
        """Cancel a download in progress (``Browser.cancelDownload``); returns its end state."""
        async with self.operation(timeout_ms, "action") as budget:
            return await self._downloads.cancel(self._browser_cdp(), guid, budget)

    async def trace_start(
        self,
        *,
        categories: list[str] | None = None,
        screenshots: bool = False,
        timeout_ms: float | None = None,
    ) -> TraceStarted:
        """Start a performance trace of the whole browser (default categories: what the
        DevTools Performance panel records; ``screenshots`` adds filmstrip frames).
        One trace at a time per session; ``trace_stop`` saves it. A session that shares
        its browser (``browser.isolation: context``) cannot trace: a trace records
        every page of the browser, the other sessions' too."""
        if self.backend.browser_context_id is not None or self.config.browser.isolation == (
            "context"
        ):
            raise InvalidArgument(
                "a trace records the whole browser, and this session shares its browser with "
                "other sessions (browser.isolation: context)",
                hint="use browser.isolation: process (--isolation process) to trace",
            )
        async with self.operation(timeout_ms, "action") as budget:
            started = await self._trace.start(
                self._browser_cdp(), budget, categories=categories, screenshots=screenshots
            )
        self._capturing("trace")
        return started

    async def trace_stop(
        self, path: str | None = None, *, timeout_ms: float | None = None
    ) -> TraceFile:
        """Stop the trace and save it as JSON in the workspace's ``traces`` folder
        (``path``: a file name there, or a path inside the workspace); Chrome DevTools
        and Perfetto open it."""
        try:
            async with self.operation(timeout_ms, "wait") as budget:
                return await self._trace.stop(self._browser_cdp(), self.paths, path, budget)
        finally:
            self._capturing("trace")

    async def record_stop(
        self,
        tab_id: str | None = None,
        path: str | None = None,
        *,
        format: RecordingFormat = "auto",
        timeout_ms: float | None = None,
    ) -> RecordingFile:
        """Stop a tab's recording (``tab_id``; default: the only one, else the active
        tab's) and save it in the workspace's ``recordings`` folder: WebM when ffmpeg is
        available, else a self-contained HTML player. A closed tab's recording too."""
        recordings = self._services.recordings
        async with self.operation(timeout_ms, "action") as budget:
            if tab_id is not None and tab_id not in recordings:
                with contextlib.suppress(TabNotFound):
                    tab_id = self.get_tab(tab_id).id  # a CDP target id
            active = self._registry.active()
            chosen = recordings.chosen(tab_id, active.id if active is not None else None)
            try:
                return await recordings.save(chosen, path, format, budget)
            finally:
                self._capturing("recording")

    def _capturing(self, kind: str) -> None:
        """Tell watchers whether a trace or a recording runs now."""
        self._services.activity.publish(kind, {"state": {"active": self.watch_flags()[kind]}})

    async def _save_files_on_close(self) -> None:
        """A trace or recording still running when the session closes is saved first;
        an attached browser gets its own download behaviour back."""
        if self.connected and not self.backend.owns_browser:
            with contextlib.suppress(TabwardenError):
                await self._downloads.restore(self._browser_cdp(), Budget(2.0))
        if self.connected:
            await self._trace.save_if_running(self._browser_cdp(), self.paths, self.name)
        await self._services.recordings.save_all(self.name)

    # ---- safety: URL policy -------------------------------------------------------

    def check_url(self, url: str) -> Verdict:
        """What the URL policy says about ``url`` as a page (nothing is loaded or recorded)."""
        return self.supervisor.guard.policy.check(url)

    def policy_decisions(
        self, *, tab_id: str | None = None, blocked_only: bool = False
    ) -> list[PolicyDecision]:
        """Recent URL policy decisions, oldest first (a ring of 100; blocked ones also in a
        ring of 50): every page, frame and popup document, and every blocked request.
        With ``tab_id``, that tab's and those of the popups it opened."""
        tab = self.get_tab(tab_id) if tab_id is not None else None
        page = tab.page if tab is not None else None
        return self.supervisor.guard.decisions(tab=page, blocked_only=blocked_only)

    # ---- internal ------------------------------------------------------------------

    def budget(self, timeout_ms: float | None, kind: str = "action") -> Budget:
        """A Budget for one call: ``timeout_ms`` or the configured default for ``kind``."""
        return self._services.budget(timeout_ms, kind)

    @engine_side
    @contextlib.asynccontextmanager
    async def operation(
        self,
        timeout_ms: float | None,
        kind: str,
        page: Page | None = None,
        *,
        on_dialog: OnDialog = "fail",
    ) -> AsyncIterator[Budget]:
        """One public call: a budget, a live browser (relaunched if it died), busy marking.

        A call on a closed ``page`` fails before anything else (a relaunch could not bring
        that page back). A call on a page ends at once when its page can no longer answer
        (interrupts.py): the page crashed, or — as ``on_dialog`` says — a dialog opened."""
        budget = self.budget(timeout_ms, kind)
        if self._closed or self._link.closing:
            raise SessionClosed(f"session {self.name!r} is closed")
        if page is not None and page.closed:
            raise page.closed_error()
        if page is not None and page.crashed and kind != "navigation":
            raise page.crashed_error()  # only a load brings a new renderer
        self._busy += 1
        self.last_used = time.monotonic()
        probe = BrowserProbe(self._services, budget)
        try:
            await self._link.ensure(budget)
            if page is None:
                yield budget
            else:
                if on_dialog == "fail":
                    page.check_no_dialog()
                with page.calls.enter(on_dialog):
                    yield budget
        except TabwardenError as exc:
            if isinstance(exc, CDPTimeout) and page is not None and page.pending_dialogs:
                page.check_no_dialog()  # what held the page: a dialog, not a busy script
            better = await self._explain(exc, page, budget, probe)
            if better is exc:
                raise
            raise better from exc
        finally:
            probe.close()
            self._busy -= 1
            self.last_used = time.monotonic()

    async def _explain(
        self, error: TabwardenError, tab: Page | None, budget: Budget, probe: BrowserProbe
    ) -> TabwardenError:
        """What a failed call should say: that the session or tab it ran on was closed
        under it, why the browser or page did not answer in time (unresponsive.py), or
        ``error`` itself."""
        if isinstance(error, SessionClosed):
            return error
        if self._link.closing or self._closed:
            return SessionClosed(f"session {self.name!r} was closed while this call ran")
        return await explain_failure(self._services, tab, error, budget, probe)

    def _browser_cdp(self) -> CDPSession:
        return self._services.browser_cdp()

    async def _open_page(self, budget: Budget, *, background: bool = False) -> Tab:
        """A new tab of this session's own, set up (``background``: not shown)."""
        params = {"url": "about:blank", "background": background}
        reply = await self._browser_cdp().send("Target.createTarget", params, budget=budget)
        tab = self._registry.register(reply["targetId"], {"url": "about:blank"})
        tab.page.mark_created_here()
        if not background:
            self._services.front = tab.target_id
        await tab.page.ready_session(budget)
        return tab

    async def _open_own_page(self, budget: Budget, *, background: bool = False) -> CdpPage:
        return (await self._open_page(budget, background=background)).page

    def _shown(self, target_id: str) -> None:
        self._services.front = target_id

    def _tabs_changed(self, gone: str | None) -> None:
        activity = self._services.activity
        if gone is not None:
            activity.tab_gone(gone)
        if activity.watched:
            active = self._registry.active_tab()
            activity.publish(
                "tabs",
                {
                    "tabs": [tab.id for tab in self._registry.open_tabs()],
                    "active": active.id if active is not None else None,
                },
            )

    def _make_tab(self, tab_id: str, target_id: str) -> Tab:
        return Tab(self, self._services, self.supervisor, tab_id, target_id)

    def _pristine_tab(self) -> Tab | None:
        """The browser's own first blank tab, reused by the first new_tab() of a launch."""
        if not self.backend.owns_browser:
            return None
        open_tabs = self._registry.open_tabs()
        if len(open_tabs) == 1 and not open_tabs[0].navigated and not self._registry.ever_active:
            return open_tabs[0]
        return None

    async def _close_own_tabs(self) -> None:
        """On an attached browser, close only the tabs this session opened, and return
        once the browser has let them go."""
        with contextlib.suppress(ConnectionLost, DeadlineExceeded):
            await close_targets(
                self.connection,
                self._registry.own_targets(),
                lambda target_id: self._registry.tab_of_target(target_id) is None,
                Budget(_SETUP_S),
                what="closing this session's tabs",
            )

    # ---- the link to the browser (link.py) ------------------------------------------

    async def _set_up(self, connection: CDPConnection, budget: Budget) -> None:
        """Watch a new connection, then have the browser report and hold its pages."""
        self.supervisor.attach(connection)
        context_id = self.backend.browser_context_id
        self._registry.follow(
            connection,
            self._tasks,
            on_closed=self.supervisor.tab_closed,
            on_popup=self._shown,
            context_id=context_id,
        )
        browser = browser_session(connection, context_id)
        await self._start_settings.before_pages(browser, budget)
        await browser.send(
            "Target.setDiscoverTargets",
            {"discover": True, "filter": [{"type": "page"}]},
            budget=budget,
        )
        # Downloads go to the workspace before any page can start one.
        await self._downloads.enable(browser, budget, own_frames_only=context_id is not None)
        # The URL policy for the first load of pages created with a URL, which
        # starts before their own session's Fetch (safety/guard.py).
        for method, params in self.supervisor.guard.browser_fetch_commands():
            await browser.send(method, params, budget=budget)
        # Pages (popups included) attach paused, so a tab is set up before its
        # first script runs; each is resumed once set up (Tab.bind).
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
        await self._start_settings.after_pages(self._link.launches, budget)

    def _reconnecting(self) -> None:
        """Someone else's browser dropped the connection: keep tabs and dialogs."""
        self.supervisor.connection_state = "reconnecting"
        for tab in self._registry.tabs():
            tab.page.unbind()

    def _lost(self, reason: str, message: str, gave_up: bool) -> None:
        if gave_up:
            self.supervisor.connection_state = "gave_up"
        self.supervisor.browser_gone(reason)
        self._registry.forget_all(message)
