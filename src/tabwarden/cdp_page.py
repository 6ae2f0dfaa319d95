"""CdpPage: one page of a Chromium browser over CDP, the ``Page`` under a ``Tab``.

It holds what a page is (target info, its CDP session and frames, its refs, the
dialogs that hold it, its renderer crashing) and the parts that work on it: the
action runner, the navigator, the snapshot reader, screenshots and evaluations. Each
of those takes it as a ``Page`` (page.py). ``Tab`` (tab.py) is the public API over
it; the session's tab registry binds it to its CDP session as targets attach.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

from .actions.evaluate import EvaluationSessions
from .actions.navigate import Navigator
from .actions.receipt import Receipt
from .actions.runner import ActionRunner
from .actions.text_changes import TextWatch
from .budget import Budget
from .cdp.protocol import Event
from .cdp.session import CDPSession
from .counting import counted
from .diagnostics.emulation import commands as emulation_commands
from .errors import (
    CDPError,
    ConnectionLost,
    DialogBlocking,
    TabClosed,
    TabCrashed,
    TabwardenError,
)
from .frames import AUTO_ATTACH_IFRAMES, FrameRegistry, FrameTracker
from .interrupts import OnDialog, PageCalls
from .navigation import NavigationResult, WaitUntil, check_wait_until, normalize_url
from .page import Page, PageView
from .person_activity import PersonActivity, PersonActKind, PersonActs
from .relaunch import Relaunch
from .screencast import FrameSource
from .screenshot import Captures
from .services import SessionServices
from .snapshot import RefTable
from .snapshot.reading import SnapshotReader, dialog_lines
from .snapshot.walker import Walker
from .supervisor.bridge import bridge_commands
from .supervisor.dialogs import PendingDialog
from .supervisor.state import SupervisorState
from .supervisor.supervisor import Supervisor

__all__ = ["CdpPage"]

T = TypeVar("T")

logger = logging.getLogger("tabwarden.page")

_SETUP_S = 10.0
_SESSION_NOT_FOUND = -32001
"""CDP's error code for a command sent to a session that is gone (its target closed)."""


_LOAD_STAGES = frozenset({"init", "DOMContentLoaded", "load"})
"""Lifecycle events that change what a watcher's address bar shows."""


class CdpPage:
    """One page target of a Chromium browser, driven over CDP: the ``Page`` of a tab."""

    def __init__(
        self,
        services: SessionServices,
        supervisor: Supervisor,
        tab_id: str,
        target_id: str,
        relaunch_notice: Callable[[], Relaunch | None],
    ) -> None:
        self.services = services
        self.supervisor = supervisor
        self._relaunch_notice = relaunch_notice
        """The browser's relaunch not told yet (once: a snapshot's header says it)."""
        self.id = tab_id
        self.target_id = target_id
        self._url = ""
        """From the browser's target info: during a navigation, the pending URL."""
        self._document_url = ""
        """The main frame's committed document (moves within it included); empty until
        this tab's session saw one."""
        self._title = ""
        self._opener_target: str | None = None
        self._session: CDPSession | None = None
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._closed_reason: str | None = None
        self._crashed = False
        """The page's renderer crashed; a reload or navigation brings a new one."""
        self._dialogs_seen: set[str] = set()
        self._setup_error = ""
        self.navigated = False
        """True once anything loaded in this tab beyond its first blank page."""
        self._created_here = False
        self._detached = False
        self._frames: FrameTracker | None = None
        self.refs = RefTable()
        """This tab's refs: one space across all its frames."""
        self._next_dialog: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        """Resolved when a dialog that waits for an answer opens (then replaced)."""
        self._lifecycle: dict[str, set[str]] = {}
        self.screenshots = Captures(
            services.tasks, lambda: services.emulation, services.own_viewport
        )
        """Screenshots, one at a time (a capture the call gave up on still runs)."""
        self.evaluations = EvaluationSessions(
            services.browser_cdp, services.tasks.spawn, services.metrics
        )
        self._calls = PageCalls()
        """The calls running on this tab, ended at once by a crash or a dialog."""
        self.runner = ActionRunner(self, services, supervisor)
        """Input actions, one at a time, each with its receipt."""
        self.navigator = Navigator(self, supervisor, services.metrics)
        self.reader = SnapshotReader(self, self._state_header)
        """Snapshots, and the captures kept for their later pages."""
        self._screencast: FrameSource | None = None
        self._person = PersonActivity()

    def __repr__(self) -> str:
        state = f"closed: {self._closed_reason}" if self._closed_reason else self.url
        return f"<CdpPage {self.id} {state}>"

    # ---- properties (no awaiting: read from target info) ----------------------------

    @property
    def url(self) -> str:
        """The URL of the document the tab shows. Not a pending navigation's target
        (which the browser's target info reports while, say, a ``beforeunload`` dialog
        holds the navigation back)."""
        return self._document_url or self._url

    @property
    def title(self) -> str:
        return _real_title(self._title, self.url, self._url)

    @property
    def closed(self) -> bool:
        return self._closed_reason is not None

    @property
    def crashed(self) -> bool:
        """The page's renderer crashed; only a load brings a new one."""
        return self._crashed

    @property
    def opener_target(self) -> str | None:
        """The target id of the page that opened this one (``window.open``, a link)."""
        return self._opener_target

    @property
    def opener(self) -> Page | None:
        """The page that opened this one (``window.open``, ``target=_blank``)."""
        if self._opener_target is None:
            return None
        return self.services.pages.by_target(self._opener_target)

    @property
    def frames(self) -> FrameRegistry:
        """The tab's frames and the sessions that render them (OOPIFs have their own)."""
        return self.tracker().registry

    @property
    def attached_frames(self) -> FrameRegistry | None:
        """The frames, or None while the tab has no session (never raises)."""
        return self._frames.registry if self._frames is not None else None

    @property
    def session(self) -> CDPSession | None:
        """The tab's own CDP session now (None while detached)."""
        return self._session

    @property
    def object_group(self) -> str:
        """The remote-object group of the running action."""
        return self.runner.object_group

    @property
    def calls(self) -> PageCalls:
        return self._calls

    @property
    def setup_error(self) -> str:
        """What failed while the tab's session was set up ("" when nothing did)."""
        return self._setup_error

    @property
    def walker(self) -> Walker:
        """Runs this tab's snapshots in its frames; keeps what they reuse."""
        return self.reader.walker

    @property
    def text_watch(self) -> TextWatch:
        """Watches the text an action makes appear or go away."""
        return self.runner.text_watch

    @property
    def last_view(self) -> Sequence[str]:
        return self.reader.last_view

    @property
    def input_lock(self) -> asyncio.Lock:
        """Held while input goes to the page (an agent's action, a person's event)."""
        return self.runner.input_lock

    @property
    def screencast(self) -> FrameSource:
        """The page's one screencast, shared by live views and recordings."""
        if self._screencast is None:
            self._screencast = FrameSource(self.id, self.ready_session, self.services.spawn)
            if self._closed_reason is not None:
                self._screencast.end(self.closed_error())
        return self._screencast

    @property
    def pending_dialogs(self) -> list[PendingDialog]:
        """Dialogs open in this tab (its frames included) that wait for an answer."""
        return self.supervisor.pending(self)

    @property
    def pending_dialog(self) -> PendingDialog | None:
        pending = self.pending_dialogs
        return pending[0] if pending else None

    # ---- the Page protocol: what actions, supervisor and logs use -------------------

    async def navigate(
        self, url: str, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Load ``url`` as a public call of its own (see ``Tab.navigate``)."""
        stage = check_wait_until(wait_until)
        target_url = normalize_url(url)
        async with self.call(timeout_ms, "navigation", on_dialog="go_on") as budget:
            await self.services.activity.until_handed_back(budget)
            return await self.navigator.load(target_url, stage, budget)

    async def load(self, url: str, stage: WaitUntil, budget: Budget) -> NavigationResult:
        """Load ``url`` (normalised) within a budget the caller's call already holds (a
        new tab opened for it)."""
        return await self.navigator.load(url, stage, budget)

    async def ready_session(self, budget: Budget) -> CDPSession:
        """The tab's session once it is set up (attached again if it detached)."""
        if self._closed_reason is not None:
            raise self.closed_error()
        if self._detached:
            # Our session detached but the page lives on: attach again; the
            # attachedToTarget event binds and sets up the new session.
            self._detached = False
            await self.services.browser_cdp().attach(self.target_id, budget=budget)
        await budget.run(asyncio.shield(self._ready), what=f"waiting for tab {self.id}")
        await self.screenshots.settled(budget)  # a given-up screenshot still holds the viewport
        assert self._session is not None
        return self._session

    async def until_dialog(self, work: Awaitable[T]) -> tuple[bool, T | None]:
        """Run ``work`` unless a dialog that waits for an answer opens first.

        Returns (True, result), or (False, None) when a dialog cut it short: the
        page is paused, so replies to what ``work`` still sent would not come.
        """
        opened: asyncio.Future[Any] = self._next_dialog  # only one that opens from now on
        task: asyncio.Task[T] = asyncio.get_running_loop().create_task(_awaited(work))
        try:
            await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                return True, task.result()
        finally:
            # Cut short by a dialog, or this call itself was (a crash, the caller):
            # the work ends here too; its own error no longer matters.
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
            if not task.cancelled():
                task.exception()
        return False, None

    async def read_view(self, budget: Budget) -> PageView:
        """Read the interactive view now (a receipt's diff, a screenshot's marks)."""
        await self.ready_session(budget)
        capture = await self.reader.read(self.tracker(), budget)
        return PageView(capture.root, capture.lines)

    async def refresh_info(self, budget: Budget) -> None:
        """URL and title from the browser's target info (never waits on the page)."""
        try:
            reply = await self.services.browser_cdp().send(
                "Target.getTargetInfo", {"targetId": self.target_id}, budget=budget.child(2.0)
            )
            self.update_info(reply.get("targetInfo", {}))
        except TabwardenError as exc:
            # Best effort: the caller's own commands report a page that does not answer.
            logger.debug("reading the target info of tab %s failed: %s", self.id, exc)

    def saw_title(self, title: str) -> None:
        """The page's own title, read just now (the browser's copy can lag)."""
        self._title = title

    def note_person_activity(self, kind: PersonActKind) -> None:
        """A person's input was forwarded to this tab (the agent is told once)."""
        self._person.note(kind)

    def take_person_activity(self) -> PersonActs | None:
        """What a person did in this tab since the last take (None: nothing); forgets it."""
        return self._person.take()

    def network_idle(self) -> bool:
        loader = self.frames.loader_of(self.target_id) or ""
        return "networkIdle" in self._lifecycle.get(loader, set())

    def load_state(self) -> str:
        events = next(iter(self._lifecycle.values()), set())
        if "load" in events:
            return "complete"
        return "interactive" if "DOMContentLoaded" in events else "loading"

    def halted(self) -> bool:
        """The page cannot run script now: its renderer crashed, or a dialog waits."""
        return self._crashed or bool(self.pending_dialogs)

    def check_no_dialog(self) -> None:
        pending = self.pending_dialogs
        if pending:
            raise self.blocked_by(pending[0])

    def blocked_by(self, dialog: PendingDialog, *, opened_now: bool = False) -> DialogBlocking:
        when = " (it opened while this call was running)" if opened_now else ""
        return DialogBlocking(
            f"tab {self.id} is blocked by dialog {dialog.describe()}{when}",
            dialog_type=dialog.type,
            hint=f"answer it first: {dialog.answer_call()}",
        )

    def dialog_opened(self, dialog: PendingDialog) -> None:
        """Called by the supervisor: wake whatever waits on this tab's page — calls that
        report a dialog stop their work, the others end with ``DialogBlocking``."""
        opened, self._next_dialog = self._next_dialog, asyncio.get_running_loop().create_future()
        opened.set_result(None)
        self._calls.dialog_opened(lambda: self.blocked_by(dialog, opened_now=True))

    def closed_error(self) -> TabClosed:
        return TabClosed(f"tab {self.id} is closed: {self._closed_reason}")

    def crashed_error(self, doing: str = "") -> TabCrashed:
        while_ = f" while {doing} was running" if doing else ""
        return TabCrashed(f"the page of tab {self.id} ({self.url}) crashed{while_}")

    # ---- life: called by the session's tab registry ---------------------------------

    @property
    def created_here(self) -> bool:
        """This session opened the tab (on an attached browser, it closes only those)."""
        return self._created_here

    def mark_created_here(self) -> None:
        self._created_here = True

    def update_info(self, info: dict[str, Any]) -> None:
        """The browser's target info changed (URL, title, opener)."""
        self._url = info.get("url", self._url)
        self._title = info.get("title", self._title)
        if info.get("openerId"):
            self._opener_target = info["openerId"]
        if self._url not in ("", "about:blank"):
            self.navigated = True

    def bind(self, session: CDPSession, waiting_for_debugger: bool) -> Coroutine[Any, Any, None]:
        """Attach this tab to its CDP session and set it up (returns the set-up)."""
        self._session = session
        self._detached = False
        if self._frames is not None:
            self._frames.close()
        self._frames = FrameTracker(
            session,
            self.target_id,
            lambda: self.setup_commands(top_level=False),
            self._frame_session,
        )
        if session.session_id is not None:
            self.services.pages.session_attached(session.session_id, self, self.target_id)
        self._document_url = ""  # target info until this session sees a commit
        session.subscribe("Page.lifecycleEvent", self._on_lifecycle)
        session.subscribe("Page.frameNavigated", self._on_frame_navigated)
        session.subscribe("Page.navigatedWithinDocument", self._on_same_document)
        session.subscribe("Inspector.targetCrashed", self._on_crashed)
        session.subscribe("Inspector.targetReloadedAfterCrash", self._on_recovered)
        if self._screencast is not None:
            self._screencast.session_changed()
        return self._setup(session, waiting_for_debugger)

    def unbind(self) -> None:
        """The tab's CDP session detached; the next call attaches a new one."""
        if self._session is not None and self._session.session_id is not None:
            self.services.pages.session_detached(self._session.session_id)
        self._session = None
        self._detached = True
        if self._frames is not None:
            self._frames.close()
            self._frames = None
        if self._ready.done():
            self._ready = asyncio.get_running_loop().create_future()

    def mark_closed(self, reason: str) -> None:
        """The tab went away (closed, or its browser did): every later call says why."""
        if self._closed_reason is None:
            self._closed_reason = reason
        if self._session is not None and self._session.session_id is not None:
            self.services.pages.session_detached(self._session.session_id)
        self.evaluations.forget()
        if self._screencast is not None:
            self._screencast.end(self.closed_error())
        self.reader.captures.clear()
        self.reader.walker.cancel()
        if self._frames is not None:
            self._frames.close()
        if not self._ready.done():
            self._ready.set_exception(self.closed_error())
            self._ready.exception()  # nobody may be waiting; do not log it

    # ---- private -------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def call(
        self,
        timeout_ms: float | None,
        kind: str,
        *,
        on_dialog: OnDialog = "fail",
        ready: bool = True,
    ) -> AsyncIterator[Budget]:
        """Opens every public call on the page's tab: the session's operation (a budget,
        a live browser; the page's closed, crashed and dialog checks), then (``ready``)
        its session. Calls that only read what was recorded, answer a dialog or stop a
        busy script do not wait for the session: a capture still under way, or a page
        being set up, must not hold them."""
        async with self.services.operation(timeout_ms, kind, self, on_dialog=on_dialog) as budget:
            if ready:
                await self.ready_session(budget)
            yield budget

    async def act(
        self,
        name: str,
        timeout_ms: float | None,
        body: Callable[[Budget], Awaitable[Any]],
        target: str | None = None,
    ) -> Receipt:
        """One input action with its receipt (actions/runner.py)."""
        async with self.call(timeout_ms, "action", on_dialog="go_on") as budget:
            return await self.runner.act(name, body, target, budget)

    def tracker(self) -> FrameTracker:
        if self._frames is None:
            raise (
                self.closed_error()
                if self.closed
                else TabClosed(f"tab {self.id} is not attached yet", hint="retry in a moment")
            )
        return self._frames

    async def _setup(self, session: CDPSession, waiting_for_debugger: bool) -> None:
        budget = Budget(_SETUP_S)
        # Page: lifecycle, frame and dialog events; Network: document statuses. A
        # popup waits paused until Runtime.runIfWaitingForDebugger, and some of
        # these replies need its renderer running: send the resume in the same
        # batch (commands run in order, so the enables still come first).
        commands: list[tuple[str, dict[str, Any] | None]] = [
            ("Page.enable", None),
            ("Page.setLifecycleEventsEnabled", {"enabled": True}),
            ("Network.enable", None),
            ("Runtime.enable", None),
            ("Target.setAutoAttach", AUTO_ATTACH_IFRAMES),
            *self.setup_commands(top_level=True),
        ]
        if waiting_for_debugger:
            commands.append(("Runtime.runIfWaitingForDebugger", None))
        results = await asyncio.gather(
            *(session.send(method, params, budget=budget) for method, params in commands),
            return_exceptions=True,
        )
        for (method, _), result in zip(commands, results, strict=True):
            if not isinstance(result, BaseException):
                continue
            if _gone(result):
                # The page (or the browser) went away while it was being set up, e.g. a
                # session closed right after it started: nothing is wrong with it.
                logger.debug("setting up tab %s: %s: the page went away", self.id, method)
                continue
            logger.warning("setting up tab %s: %s failed: %s", self.id, method, result)
            if method in ("Fetch.enable", "Page.addScriptToEvaluateOnNewDocument"):
                self._setup_error = f"{method} failed: {result}"
        if self._frames is not None:
            try:
                await self._frames.seed(budget)
            except TabwardenError as exc:
                log = logger.debug if _gone(exc) else logger.warning
                log("reading the frame tree of tab %s failed: %s", self.id, exc)
        self.supervisor.reconcile(self)
        if not self._ready.done():
            self._ready.set_result(None)

    def _frame_session(self, session_id: str, frame_id: str | None) -> None:
        if frame_id is None:
            self.services.pages.session_detached(session_id)
        else:
            self.services.pages.session_attached(session_id, self, frame_id)

    def setup_commands(self, *, top_level: bool) -> list[tuple[str, dict[str, Any]]]:
        """Commands every page (``top_level``) and frame session runs while it is set up
        (paused)."""
        commands: list[tuple[str, dict[str, Any]]] = []
        if self.supervisor.bridge:
            commands += bridge_commands()
        # What a new page or frame session needs before it runs, topic by topic:
        # diagnostics: browser-side notices (CSP violations, failed loads) for the console log
        commands.append(("Log.enable", {}))
        # safety: URL policy (with the dialog bridge's pattern): one Fetch.enable per session
        commands += self.supervisor.fetch_commands()
        # storage and emulation: what the session emulates (nothing when at the defaults)
        services = self.services
        commands += emulation_commands(
            services.emulation,
            services.user_agent,
            services.own_viewport,
            top_level=top_level,
            full=False,
            granted=services.granted_permissions,
            context_id=services.browser_context_id,
        )
        # the user's init scripts: in every page and frame (OOPIFs are targets of their own)
        commands += [
            ("Page.addScriptToEvaluateOnNewDocument", {"source": source})
            for source in services.init_scripts
        ]
        return commands

    def _state_header(self, summary: bool) -> tuple[list[str], SupervisorState]:
        """The snapshot header's lines after the first: dialogs, then (``summary``) what
        went wrong since the last such snapshot."""
        state = self.supervisor.state(self)
        lines = _state_lines(state, self._dialogs_seen)
        self._dialogs_seen = {d.dialog.id for d in state.recent_dialogs}
        return lines + (self._diagnostics_lines() if summary else []), state

    def _diagnostics_lines(self) -> list[str]:
        """What went wrong since the last snapshot: a relaunch of the browser (told
        once), a person's input, console and network errors."""
        relaunch = self._relaunch_notice()
        lines = [f"# {relaunch.describe()}"] if relaunch is not None else []
        acted = self.take_person_activity()
        if acted is not None:
            lines.append(acted.snapshot_line())
        line = self.supervisor.diagnostics_summary(self)
        return lines + ([f"# {line}"] if line else [])

    def _on_crashed(self, event: Event) -> None:
        self._crashed = True
        logger.warning("the page of tab %s crashed (%s)", self.id, self.url)
        session = self._session
        if session is not None and session.session_id is not None:
            session.connection.fail_session(session.session_id, self.crashed_error)
        # Calls waiting on anything else (a poll's pause, an evaluation's own session,
        # an event) end now too: nothing they wait for will come.
        self._calls.crashed(lambda: self.crashed_error("this call"))

    def _on_recovered(self, event: Event) -> None:
        self._crashed = False

    def _on_lifecycle(self, event: Event) -> None:
        self._crashed = False  # a document is loading: the renderer is alive again
        if event.params.get("frameId") != self.target_id:
            return
        loader = event.params.get("loaderId", "")
        if loader not in self._lifecycle:
            self._lifecycle = {loader: set()}  # only the current document matters
        name = event.params.get("name", "")
        self._lifecycle[loader].add(name)
        if name in _LOAD_STAGES:
            data = {"tab": self.id, "state": self.load_state(), "url": self.url}
            self.services.activity.publish("load", data, self.id)

    def _on_frame_navigated(self, event: Event) -> None:
        frame = event.params.get("frame", {})
        if frame.get("id") == self.target_id and not frame.get("parentId"):
            # An error page commits as chrome-error://…; the URL it failed to load is the
            # document's (the browser's address bar shows that one too).
            url = frame.get("unreachableUrl") or frame.get("url", "") + frame.get("urlFragment", "")
            self._document_url = url

    def _on_same_document(self, event: Event) -> None:
        if event.params.get("frameId") == self.target_id:
            self._document_url = event.params.get("url", self._document_url)


def _gone(error: BaseException) -> bool:
    """The error says the page's session or the connection is gone (not a failure of
    the command itself)."""
    if isinstance(error, ConnectionLost):
        return True
    return isinstance(error, CDPError) and error.code == _SESSION_NOT_FOUND


async def _awaited(work: Awaitable[T]) -> T:
    return await work


def _real_title(title: str, *urls: str) -> str:
    """The page's own title; Chromium shows the URL (without scheme) for a page with none
    (the shown document's, or a pending navigation's)."""
    if any(title in (url, url.split("://", 1)[-1]) for url in urls):
        return ""
    return title


def _state_lines(state: SupervisorState, seen: set[str]) -> list[str]:
    """Header lines: pending dialogs, dialogs closed since the last snapshot, frames."""
    lines = dialog_lines(state.pending_dialogs)
    lines += [
        f"# dialog closed: {d.dialog.describe()} by {d.closed_by}"
        + ("" if d.accepted is None else f" ({'accepted' if d.accepted else 'dismissed'})")
        for d in state.recent_dialogs
        if d.dialog.id not in seen
    ]
    if state.bridge.startswith("failed"):
        lines.append(
            f"# dialog bridge {state.bridge}: this backend may auto-dismiss dialogs unseen"
        )
    children = [f for f in state.frame_tree if f.parent is not None]
    if children:
        oopifs = sum(1 for f in children if f.is_oopif)
        more = " (more not listed)" if state.frame_tree_truncated else ""
        iframes = counted(len(children), "iframe")
        lines.append(f"# frames: {iframes}, {oopifs} cross-origin{more}")
    return lines
