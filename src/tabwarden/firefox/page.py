"""One Firefox tab (a top-level browsing context) over WebDriver BiDi.

What the Chromium ``Tab`` does over CDP, done with BiDi's commands: navigation with
``wait`` none|interactive|complete, the snapshot by the same in-page walker (walker.js)
in tabwarden's own sandbox realm of each frame, refs resolved to BiDi shared ids with
the same stale-ref rules, input with ``input.performActions`` from an element origin,
screenshots, the console, and dialogs under the same policies.

An action that opens a dialog gets no reply from Firefox until the dialog is answered
(the page's script is stopped in it), so every action races its command against the
dialog opening: the call returns with the dialog pending, never waits on it, and the
command's reply is collected later by a task this page owns.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, Protocol, TypeVar

from ..actions import batch
from ..actions.evaluate import EvaluateResult
from ..actions.pointer import check_click, modifier_names
from ..actions.receipt import Receipt
from ..actions.scrolling import check_direction
from ..activity import SessionActivity
from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..clipping import clip_quoted
from ..config import Config
from ..content import ImageList, PageContent, page_content, page_images
from ..counting import counted
from ..diagnostics.console import ConsoleReport, ConsoleStore
from ..diagnostics.network import NetworkReport, RequestFilter
from ..diagnostics.pdf import PdfFile, print_options
from ..diagnostics.storage_request import CookieSpec, StorageResult, check_request, cookie_spec
from ..engines import FIREFOX, check_firefox
from ..errors import (
    BiDiError,
    DialogBlocking,
    EngineUnsupported,
    EvaluateDisabled,
    InvalidArgument,
    NavigationError,
    NavigationTimeout,
    NoHistoryEntry,
    ScriptError,
    StaleRefError,
    TabClosed,
    UnknownRef,
)
from ..frames import FrameInfo
from ..metrics import Metrics
from ..navigation import NavigationResult, normalize_url
from ..page import PageBasics, PageView, engine_side
from ..person_activity import PersonActivity, PersonActKind, PersonActs
from ..safety.paths import WorkspacePaths
from ..screencast import FrameFeed, ScreencastFrame, ScreencastParams
from ..screenshot import Screenshot, save_screenshot
from ..snapshot import DEFAULT_MAX_CHARS, RefTable, Snapshot
from ..snapshot.build import build_tree
from ..snapshot.captures import Capture, CaptureStore, Cursor, new_capture_id
from ..snapshot.model import LeftOut
from ..snapshot.reading import dialog_lines, header_line, scope_node
from ..snapshot.render import check_max_chars, render_lines, select_lines
from ..snapshot.walker import WALKER_JS, FrameWalk
from ..supervisor.dialogs import ClosedBy, ClosedDialog, PendingDialog, dialog_action
from ..tasks import TaskOwner
from .acting import ActingHost, ActionBody, FirefoxActionWatch
from .console import receipt_line
from .evaluate import evaluate as run_evaluate
from .forms import select_options, set_checked
from .live_view import FirefoxLiveView
from .network_log import NETWORK_IDLE_S, FirefoxNetworkLog
from .pdf import print_params, save_pdf
from .person_input import FirefoxPersonInput
from .pointer import click_element, drag_element, scroll_wheel
from .screenshot import capture as capture_screenshot
from .storage import run as run_storage
from .upload import upload_files
from .values import local_value, remote_result, remote_value
from .waiting import wait_for

__all__ = [
    "KEYS",
    "SANDBOX",
    "WAIT_FOR",
    "ChildFrames",
    "FirefoxPage",
    "PageHost",
    "page_basics",
]

T = TypeVar("T")
JSONObject = dict[str, Any]

SANDBOX = "tabwarden"
"""tabwarden's own realm in every frame: the page's scripts neither see nor change it."""

WAIT_FOR = {
    "commit": "none",
    "domcontentloaded": "interactive",
    "load": "complete",
    "networkidle": "complete",
}
"""``wait_until`` (as on Chromium) → BiDi's ``wait`` of ``browsingContext.navigate``;
``networkidle`` then waits for the tab's requests to go quiet (``NETWORK_IDLE_S``)."""
_STAGE_EVENTS = {
    "commit": "browsingContext.navigationCommitted",
    "domcontentloaded": "browsingContext.domContentLoaded",
    "load": "browsingContext.load",
    "networkidle": "browsingContext.load",
}
"""``wait_until`` → the event that says a history step reached it."""
_READY_STATES = {
    "commit": ("loading", "interactive", "complete"),
    "domcontentloaded": ("interactive", "complete"),
    "load": ("complete",),
    "networkidle": ("complete",),
}
_POLL_S = 0.05

_RUN_WALKER = (
    "(options) => { const w = globalThis.__tabwardenWalker;"
    " return w ? w.snapshot(options, []) : null; }"
)
_FRAMES = (
    "() => { const w = globalThis.__tabwardenWalker; if (!w) return [];"
    " return Array.from(document.querySelectorAll('iframe, frame'),"
    " (f) => [w.idOf(f), f.contentWindow]); }"
)
"""Each <iframe>'s handle with its window (BiDi serialises a window as its context id)."""
_ELEMENT = (
    "(handle, token) => { const w = globalThis.__tabwardenWalker;"
    " if (!w || w.token !== token) return 'navigated';"
    " const el = w.element(handle); if (!el) return 'gone';"
    " el.scrollIntoView({block: 'center', inline: 'center'}); return el; }"
)
_CHANGED_SINCE = (
    "(token, seen) => { const w = globalThis.__tabwardenWalker;"
    " return !w || w.token !== token || w.changedSince(seen); }"
)
"""True when the frame's walker is not the one that walked, or saw a change since."""
_FIELD_TEXT = "(el) => ['value' in el ? String(el.value) : el.textContent, el.type === 'password']"
"""A field's text after a fill, and whether it is a password (its text is not shown)."""
_SELECT_ALL = (
    "(el) => { el.focus(); if (typeof el.select === 'function') el.select();"
    " else { const r = document.createRange(); r.selectNodeContents(el);"
    " const s = getSelection(); s.removeAllRanges(); s.addRange(r); } }"
)
KEYS = {
    "Backspace": "\ue003",
    "Tab": "\ue004",
    "Enter": "\ue007",
    "Shift": "\ue008",
    "Control": "\ue009",
    "Alt": "\ue00a",
    "Escape": "\ue00c",
    "Space": " ",
    "PageUp": "\ue00e",
    "PageDown": "\ue00f",
    "End": "\ue010",
    "Home": "\ue011",
    "ArrowLeft": "\ue012",
    "ArrowUp": "\ue013",
    "ArrowRight": "\ue014",
    "ArrowDown": "\ue015",
    "Delete": "\ue017",
    "Meta": "\ue03d",
}
"""Key names (as the Chromium engine's ``press`` takes them) → WebDriver key values."""


class PageHost(ActingHost, Protocol):
    """What a page needs of its session (``FirefoxSession``): the socket, budgets, the
    statuses and dialogs its events recorded."""

    def budget(self, timeout_ms: float | None, kind: str) -> Budget: ...

    @property
    def paths(self) -> WorkspacePaths:
        """The workspace: where files may be written (screenshots) and read."""
        ...

    @property
    def console_store(self) -> ConsoleStore:
        """The tabs' console messages."""
        ...

    @property
    def metrics(self) -> Metrics:
        """The session's counters (evaluations, their durations and outcomes)."""
        ...

    @property
    def evaluate_enabled(self) -> bool:
        """``browser.evaluate_enabled``: the agent may run its own JavaScript."""
        ...

    def status_of(self, navigation: object) -> tuple[int | None, str]: ...

    def last_dialog_of(self, page: FirefoxPage) -> PendingDialog | None: ...

    def navigation_error(self, exc: BiDiError, url: str) -> NavigationError: ...

    @property
    def config(self) -> Config: ...

    def check_navigation(self, url: str) -> None:
        """Refuse a URL the policy does not allow (``PolicyDenied``)."""
        ...

    async def answer_dialog(
        self,
        page: FirefoxPage,
        dialog: PendingDialog,
        accept: bool,
        by: ClosedBy,
        prompt_text: str | None,
        budget: Budget,
    ) -> ClosedDialog: ...

    @property
    def network_log(self) -> FirefoxNetworkLog: ...

    @property
    def activity(self) -> SessionActivity:
        """The session's live activity (snapshots' boxes, actions, a person in control)."""
        ...


class ChildFrames(dict[str, FrameInfo]):
    """A tab's iframes by BiDi context id; ``frames()`` lists the tab's own document
    first, then every frame (as ``FrameRegistry.frames()`` does on Chromium)."""

    def __init__(self, page: FirefoxPage) -> None:
        super().__init__()
        self._page = page

    def frames(self) -> list[FrameInfo]:
        page = self._page
        return [FrameInfo(page.context, None, page.url, "", None, False), *self.values()]


class FirefoxPage:
    """One tab of a :class:`FirefoxSession`."""

    engine = "firefox"

    def __init__(self, session: PageHost, tab_id: str, context: str, url: str) -> None:
        self.session = session
        self.id = tab_id
        self.context = context
        self.url = url
        self.title = ""
        self.closed = False
        self.opened_at: float = time.time()
        """When the tab opened (``time.time()``)."""
        self.opener: FirefoxPage | None = None
        self.navigated = False
        self.refs = RefTable()
        self.frames = ChildFrames(self)
        """Child contexts (iframes) of this tab by context id; the tab's own is not in it
        (``frames.frames()`` lists it too, as Chromium's frame registry does)."""
        self.pending_dialog: PendingDialog | None = None
        self.last_view: list[str] = []
        self._captures = CaptureStore(tab_id)
        self._state = "complete"
        self._dialog_opened = asyncio.Event()
        self._tasks = TaskOwner(f"firefox page {tab_id}")
        self._live_view = FirefoxLiveView(self)
        self._input_lock = asyncio.Lock()
        self._person = PersonActivity()

    @property
    def target_id(self) -> str:
        return self.context

    @property
    @engine_side
    def input_lock(self) -> asyncio.Lock:
        """Held by an agent's input action and by each input a person sends from the
        workbench: a person's click never lands in the middle of an agent's action."""
        return self._input_lock

    @property
    @engine_side
    def live_view(self) -> FirefoxLiveView:
        """Frames for the workbench's live view, captured only while it watches."""
        return self._live_view

    # ---- events (called on the connection's reader: no awaits) ----------------------

    @engine_side
    def saw_load_state(self, state: str, url: str) -> None:
        self._state = state
        if url:
            self.url = url
        data = {"tab": self.id, "state": state, "url": self.url}
        self.session.activity.publish("load", data, self.id)

    @engine_side
    def dialog_opened(self, dialog: PendingDialog) -> None:
        self.pending_dialog = dialog
        self._dialog_opened.set()

    @engine_side
    def dialog_closed(self) -> None:
        self.pending_dialog = None
        self._dialog_opened.clear()

    @engine_side
    def was_closed(self) -> None:
        self.closed = True
        self._tasks.cancel()
        self._live_view.end()

    @engine_side
    def load_state(self) -> str:
        return self._state

    @engine_side
    def console_errors_since(self, since: float) -> list[str]:
        """The console errors and uncaught exceptions since ``since`` (``time.time()``),
        as a receipt names them."""
        errors = self.session.console_store.errors(self.id)
        return [receipt_line(e) for e in errors if e.at >= since]

    async def console(
        self,
        *,
        level: str | Sequence[str] | None = None,
        since: Literal["all", "last_read"] = "all",
        clear: bool = False,
        max_entries: int = 50,
        timeout_ms: float | None = None,
    ) -> ConsoleReport:
        """This tab's console, as on Chromium: messages of every level and uncaught
        exceptions (with the top of their stack) from all its frames, with source and
        line; ``level``, ``since="last_read"``, ``clear`` and ``max_entries`` as there
        (``log.entryAdded``; Firefox sends no browser notices)."""
        self.check_open()
        return self.session.console_store.read(
            self.id, self.context, level=level, since=since, clear=clear, max_entries=max_entries
        )

    async def network(
        self,
        *,
        url: str | None = None,
        type: str | Sequence[str] | None = None,
        status: str | int | Sequence[str | int] | None = None,
        request_id: str | None = None,
        max_entries: int = 50,
        clear: bool = False,
        timeout_ms: float | None = None,
    ) -> NetworkReport:
        """This tab's requests (its frames included), as ``Tab.network``: the newest
        ``max_entries`` matching ``url`` (a part or ``/regex/``), ``type`` and ``status``;
        ``request_id`` (r12) for one request's headers, post data and response body;
        ``clear`` empties the log after reading (firefox/network_log.py)."""
        self.check_open()
        log = self.session.network_log
        if request_id is not None:
            budget = self.session.budget(timeout_ms, "action")
            return await log.details(self.id, request_id, self.session.connection, budget)
        request_filter = RequestFilter.parse(url, type, status)
        return log.list(self.id, request_filter, max_entries=max_entries, clear=clear)

    # ---- checks ---------------------------------------------------------------------

    @engine_side
    def check_open(self) -> None:
        if self.closed:
            raise TabClosed(f"tab {self.id} is closed", hint="list the tabs and pick another")

    @engine_side
    def check_no_dialog(self) -> None:
        dialog = self.pending_dialog
        if dialog is not None:
            raise DialogBlocking(
                f"a {dialog.type} dialog waits for an answer in tab {self.id}: "
                f"{json.dumps(dialog.message, ensure_ascii=False)}",
                dialog_type=dialog.type,
                hint='answer it with dialog("accept") or dialog("dismiss"), then retry',
            )

    # ---- navigation -----------------------------------------------------------------

    async def navigate(
        self, url: str, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Load ``url`` and wait for ``wait_until`` (commit, domcontentloaded, load,
        networkidle: loaded, then no request in flight for 500 ms)."""
        self._ready_to_navigate(wait_until)
        url = normalize_url(url)
        self.session.check_navigation(url)
        budget = self.session.budget(timeout_ms, "navigation")
        await self.session.activity.until_handed_back(budget)
        started = time.monotonic()
        params = {"context": self.context, "url": url, "wait": WAIT_FOR[wait_until]}
        command = self.session.connection.send("browsingContext.navigate", params, budget=budget)
        try:
            done, reply = await self.until_dialog(command)
        except BiDiError as exc:
            raise self.session.navigation_error(exc, url) from None
        except TimeoutError:
            raise NavigationTimeout(
                f"{url} did not reach {wait_until} within {budget.timeout_s * 1000:.0f} ms",
                url=url,
                wait_until=wait_until,
                reached=(),
            ) from None
        self.navigated = True
        navigation = reply.get("navigation") if reply else None
        if reply:
            self.url = str(reply.get("url", url))
        return await self._navigated(navigation, wait_until, done, started, url, budget)

    async def reload(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Load the current document again."""
        self._ready_to_navigate(wait_until)
        budget = self.session.budget(timeout_ms, "navigation")
        await self.session.activity.until_handed_back(budget)
        started = time.monotonic()
        params = {"context": self.context, "wait": WAIT_FOR[wait_until]}
        try:
            done, reply = await self.until_dialog(
                self.session.connection.send("browsingContext.reload", params, budget=budget)
            )
        except TimeoutError:
            raise NavigationTimeout(
                f"the reload of {self.url} did not reach {wait_until} within "
                f"{budget.timeout_s * 1000:.0f} ms",
                url=self.url,
                wait_until=wait_until,
                reached=(),
            ) from None
        navigation = reply.get("navigation") if reply else None
        return await self._navigated(navigation, wait_until, done, started, self.url, budget)

    def _ready_to_navigate(self, wait_until: str) -> None:
        if wait_until not in WAIT_FOR:
            raise InvalidArgument(
                f"wait_until must be one of {', '.join(WAIT_FOR)}, not {wait_until!r}"
            )
        self.check_open()
        self.check_no_dialog()

    async def _navigated(
        self,
        navigation: object,
        wait_until: str,
        done: bool,
        started: float,
        requested_url: str,
        budget: Budget,
    ) -> NavigationResult:
        """The result of a navigation that ended (``done``) or was held by a dialog."""
        status, status_text = self.session.status_of(navigation)
        if done and wait_until == "networkidle":
            await self._until_network_idle(budget, requested_url)
        await self._read_title(budget)
        return NavigationResult(
            tab_id=self.id,
            url=self.url,
            title=self.title,
            status=status,
            status_text=status_text,
            wait_until=wait_until,
            reached=(wait_until,) if done else (),
            elapsed_ms=int((time.monotonic() - started) * 1000),
            dialog=None if done else self.pending_dialog,
            requested_url=requested_url,
        )

    async def back(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Go one entry back in the tab's history and wait for ``wait_until``."""
        return await self._traverse(-1, wait_until, timeout_ms)

    async def forward(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Go one entry forward in the tab's history and wait for ``wait_until``."""
        return await self._traverse(1, wait_until, timeout_ms)

    async def _traverse(
        self, delta: int, wait_until: str, timeout_ms: float | None
    ) -> NavigationResult:
        stage = _STAGE_EVENTS.get(wait_until)
        if stage is None:
            raise InvalidArgument(
                f"wait_until must be one of {', '.join(WAIT_FOR)}, not {wait_until!r}"
            )
        self.check_open()
        self.check_no_dialog()
        budget = self.session.budget(timeout_ms, "navigation")
        await self.session.activity.until_handed_back(budget)
        started = time.monotonic()
        connection = self.session.connection
        before = self.url
        with connection.event_queue([stage]) as stages:
            try:
                await connection.send(
                    "browsingContext.traverseHistory",
                    {"context": self.context, "delta": delta},
                    budget=budget,
                )
            except BiDiError as exc:
                if exc.error == "no such history entry":
                    raise NoHistoryEntry(
                        f"tab {self.id} has no history entry {'back' if delta < 0 else 'forward'}",
                        url=self.url,
                    ) from None
                raise
            # A page restored from the back-forward cache sends no load event: the step is
            # done when the document is another one and as far loaded as asked.
            ready = _READY_STATES[wait_until]
            while True:
                seen = any(e.params.get("context") == self.context for e in stages.ready())
                href, state = await self.evaluate_in(
                    self.context, "[location.href, document.readyState]", budget
                )
                if (seen or href != before) and state in ready:
                    self.saw_load_state(str(state), str(href))  # no event says so
                    break
                await budget.sleep(_POLL_S)
        if wait_until == "networkidle":
            await self._until_network_idle(budget, self.url)
        await self._read_title(budget)
        return NavigationResult(
            tab_id=self.id,
            url=self.url,
            title=self.title,
            status=None,
            status_text="",
            wait_until=wait_until,
            reached=(wait_until,),
            elapsed_ms=int((time.monotonic() - started) * 1000),
            requested_url=self.url,
        )

    @engine_side
    def network_quiet_s(self) -> float:
        """How long the tab has had no request in flight (0 while one is)."""
        return self.session.network_log.quiet_for(self.id)

    async def _until_network_idle(self, budget: Budget, url: str) -> None:
        """Until no request has been in flight for ``NETWORK_IDLE_S`` (Chromium's
        ``networkIdle``, from the tab's network log: BiDi has no such event)."""
        while self.network_quiet_s() < NETWORK_IDLE_S:
            if budget.expired:
                raise NavigationTimeout(
                    f"{url} loaded but its requests did not go quiet within "
                    f"{budget.timeout_s * 1000:.0f} ms",
                    url=url,
                    wait_until="networkidle",
                    reached=("load",),
                    hint="wait_until='load' does not wait for the page's own requests",
                )
            await budget.sleep(min(_POLL_S, max(0.0, NETWORK_IDLE_S - self.network_quiet_s())))

    async def _read_title(self, budget: Budget) -> None:
        if self.pending_dialog is not None:
            return
        try:
            value = await self.evaluate_in(self.context, "document.title", budget)
        except (BiDiError, ScriptError, TimeoutError):
            return
        if isinstance(value, str):
            self.title = value

    # ---- script ---------------------------------------------------------------------

    @property
    @engine_side
    def connection(self) -> BiDiConnection:
        return self.session.connection

    @property
    @engine_side
    def metrics(self) -> Metrics:
        return self.session.metrics

    async def evaluate(
        self,
        expression: str | None = None,
        *,
        function: str | None = None,
        ref: str | None = None,
        frame_id: str | None = None,
        args: list[Any] | None = None,
        await_promise: bool = True,
        max_chars: int = 20_000,
        timeout_ms: float | None = None,
    ) -> EvaluateResult:
        """Run JavaScript in the page's own realm (or a frame's, or with an element by
        ``ref``: ``function`` gets it as ``this`` and first argument), as on Chromium.
        BiDi has no ``terminateExecution``: a script still running at the deadline
        keeps running (``EvaluateTimeout(terminated=False)``); a loop holds its tab (even
        a navigation away waits for it) until the tab is closed, which ends it. Other
        tabs keep working meanwhile (firefox/evaluate.py)."""
        if not self.session.evaluate_enabled:
            raise EvaluateDisabled("evaluating JavaScript is turned off for this session")
        self.check_open()
        self.check_no_dialog()
        return await run_evaluate(
            self,
            self.session.budget(timeout_ms, "evaluate"),
            expression=expression,
            function=function,
            ref=ref,
            frame_id=frame_id,
            args=args,
            await_promise=await_promise,
            max_chars=max_chars,
        )

    @engine_side
    async def evaluate_in(
        self, context: str, expression: str, budget: Budget, *, sandbox: str | None = SANDBOX
    ) -> Any:
        return remote_value(await self.remote_in(context, expression, budget, sandbox=sandbox))

    @engine_side
    async def remote_in(
        self, context: str, expression: str, budget: Budget, *, sandbox: str | None = SANDBOX
    ) -> JSONObject:
        target: JSONObject = {"context": context}
        if sandbox:
            target["sandbox"] = sandbox
        reply = await self.session.connection.send(
            "script.evaluate",
            {
                "expression": expression,
                "target": target,
                "awaitPromise": True,
                "resultOwnership": "none",
            },
            budget=budget,
        )
        return remote_result(reply)

    @engine_side
    async def call_in(
        self, context: str, function: str, arguments: list[JSONObject], budget: Budget
    ) -> JSONObject:
        """Call ``function`` in tabwarden's sandbox of ``context``; the remote value."""
        reply = await self.session.connection.send(
            "script.callFunction",
            {
                "functionDeclaration": function,
                "target": {"context": context, "sandbox": SANDBOX},
                "arguments": arguments,
                "awaitPromise": False,
                "resultOwnership": "none",
            },
            budget=budget,
        )
        return remote_result(reply)

    # ---- storage (storage.py) ---------------------------------------------------------

    async def storage(
        self,
        action: str = "get",
        kind: str = "cookies",
        cookie: CookieSpec | None = None,
        *,
        all: bool = False,
        file: str | None = None,
        timeout_ms: float | None = None,
        **cookie_fields: Any,
    ) -> StorageResult:
        """Read or change this page's cookies, localStorage or sessionStorage, as the
        Chromium tab's ``storage`` does; ``save_state`` and ``load_state`` are not on
        Firefox (``EngineUnsupported``)."""
        check_request(action, kind)
        spec = cookie_spec(cookie, cookie_fields)
        if action in ("save_state", "load_state"):
            raise EngineUnsupported(
                f"browser_storage with action={action!r}",
                "firefox",
                hint="storage state files are Chromium's; get and set cookies and "
                "localStorage one by one on Firefox",
            )
        del file  # only the state actions take a file
        self.check_open()
        budget = self.session.budget(timeout_ms, "action")
        return await run_storage(
            self, self.session.connection, budget, action=action, kind=kind, cookie=spec, all=all
        )

    # ---- snapshot -------------------------------------------------------------------

    async def snapshot(
        self,
        *,
        full: bool = False,
        max_chars: int = DEFAULT_MAX_CHARS,
        cursor: int | str = 0,
        find: str | None = None,
        scope: str | None = None,
        timeout_ms: float | None = None,
    ) -> Snapshot:
        """The page's accessibility view with refs, as on Chromium: the same walker, text,
        header, ``find``, ``scope`` (the subtree under a ref, all its nodes), and pages
        of ``max_chars`` read by ``cursor`` from one walk (saying when the page changed
        since). Same-origin and cross-origin iframes are inlined under their <iframe>. A
        pending dialog is named in the header; the page is still read (tabwarden's
        sandbox runs while a dialog waits)."""
        start = Cursor.parse(cursor)
        check_max_chars(max_chars)
        self.check_open()
        budget = self.session.budget(timeout_ms, "snapshot")
        if start.capture is not None:
            capture = self._captures.continued(start, full=full, scope=scope, find=find)
            changed = await self._changed_since(capture, budget)
            return capture.later_page(max_chars=max_chars, start=start.line, changed=changed)
        walks: dict[str, FrameWalk] = {}
        await self._walk(self.context, None, full or scope is not None, budget, walks, depth=0)
        root = build_tree(walks, self.context, self.refs)
        self.session.activity.snapshot_taken(self.id, root)
        top = walks.get(self.context)
        if top is not None:
            self.title = top.title
        dialog = self.pending_dialog
        header = [header_line(self), *dialog_lines([dialog] if dialog is not None else [])]
        # What went wrong since the last snapshot, as Chromium's header says it.
        errors = [
            self.session.console_store.summary(self.id),
            self.session.network_log.errors_summary(self.id),
        ]
        if any(errors):
            header.append("# " + " · ".join(e for e in errors if e))
        if scope is not None:
            root = scope_node(root, scope, self.refs, self.id)
            header.append(f"# scope {root.ref}")
        left_out = _left_out(walks) if scope is None and not full else None
        lines = render_lines(root, full=full, page_url=self.url, left_out=left_out)
        if not full and scope is None:
            self.last_view = lines
        header, selected = select_lines(header, lines, find)
        capture = Capture(
            id=new_capture_id(),
            tab_id=self.id,
            url=self.url,
            title=self.title,
            full=full,
            scope=root.ref if scope is not None else None,
            find=find,
            root=root,
            header=header,
            lines=lines,
            selected=selected,
            frames=frozenset(walks),
            marks=tuple(walk.mark for walk in walks.values()),
        )
        snapshot = capture.page(max_chars=max_chars)
        if snapshot.page.next_cursor is not None:
            self._captures.keep(capture)
        return snapshot

    @engine_side
    async def read_lines(self, budget: Budget) -> list[str]:
        """The interactive view's lines now (refs kept), as a snapshot would show them;
        it becomes the view the next action's receipt is diffed against."""
        return (await self.read_view(budget)).lines

    @engine_side
    async def read_view(self, budget: Budget) -> PageView:
        """The interactive view now: its tree (with boxes) and lines (a receipt's diff, a
        screenshot's marks)."""
        walks: dict[str, FrameWalk] = {}
        await self._walk(self.context, None, False, budget, walks, depth=0)
        root = build_tree(walks, self.context, self.refs)
        self.last_view = render_lines(
            root, full=False, page_url=self.url, left_out=_left_out(walks)
        )
        return PageView(root, self.last_view)

    async def _changed_since(self, capture: Capture, budget: Budget) -> bool | None:
        """Whether any walked frame changed since the capture (None: could not tell)."""
        try:
            for mark in capture.marks:
                changed = await self.call_in(
                    mark.frame_id,
                    _CHANGED_SINCE,
                    [local_value(mark.token), local_value(mark.changes)],
                    budget,
                )
                if remote_value(changed) is not False:
                    return True
        except (BiDiError, ScriptError):
            return None
        return False

    async def _walk(
        self,
        context: str,
        parent: str | None,
        full: bool,
        budget: Budget,
        walks: dict[str, FrameWalk],
        depth: int,
    ) -> None:
        if depth > 8 or context in walks:
            return
        try:
            raw = await self._run_walker(context, full, budget)
        except BiDiError:
            return  # a frame that went away while it was walked: its <iframe> stays empty
        if raw is None:
            return
        data = json.loads(raw)
        url = self.url if parent is None else self.frames.get(context, _frame(context, parent)).url
        walk = FrameWalk(
            frame=FrameInfo(context, parent, url, data.get("w", ""), None, False),
            nodes=data.get("n", []),
            scroll=(float(data.get("sx", 0)), float(data.get("sy", 0))),
            title=str(data.get("t", "")),
            token=str(data.get("w", "")),
            changes=int(data.get("c", 0)),
            left_out=LeftOut(*data["o"]) if "o" in data else None,
        )
        walks[context] = walk
        frames = remote_value(await self.call_in(context, _FRAMES, [], budget))
        for handle, window in frames if isinstance(frames, list) else []:
            child = window.get("context") if isinstance(window, dict) else None
            if isinstance(handle, int) and isinstance(child, str):
                walk.children[handle] = child
                await self._walk(child, context, full, budget, walks, depth + 1)

    async def _run_walker(self, context: str, full: bool, budget: Budget) -> str | None:
        options = local_value({"all": full, "added": [], "gone": [], "drops": []})
        for _ in range(2):
            value = remote_value(await self.call_in(context, _RUN_WALKER, [options], budget))
            if isinstance(value, str):
                return value
            # Not installed in this document's sandbox yet: install it, then run it.
            await self.evaluate_in(context, WALKER_JS, budget)
        return None

    # ---- refs -----------------------------------------------------------------------

    @engine_side
    async def element(self, ref: str, budget: Budget) -> tuple[str, JSONObject]:
        """The live element a ref names, as (its context, its BiDi shared reference),
        scrolled into view; ``StaleRefError`` when it is gone or navigated away."""
        entry = self.refs.get(ref)
        if entry is None:
            if self.refs.known(ref):
                raise StaleRefError(f"{ref} is too old to use", ref=ref)
            raise UnknownRef(f"no ref {ref} in tab {self.id}", ref=ref)
        label = entry.describe()
        if entry.frame_id != self.context and entry.frame_id not in self.frames:
            raise StaleRefError(f"{label} was in a frame that is gone", ref=ref)
        try:
            found = await self.call_in(
                entry.frame_id,
                _ELEMENT,
                [local_value(entry.handle), local_value(entry.world)],
                budget,
            )
        except BiDiError as exc:
            raise StaleRefError(
                f"{label} was in a frame that is gone ({exc.error})", ref=ref
            ) from None
        value = found.get("value")
        if found.get("type") == "string" and value == "navigated":
            raise StaleRefError(f"{label} belonged to a page that has navigated away", ref=ref)
        shared = found.get("sharedId")
        if found.get("type") != "node" or not isinstance(shared, str):
            raise StaleRefError(f"{label} was removed from the page", ref=ref)
        return entry.frame_id, {"sharedId": shared}

    # ---- input ----------------------------------------------------------------------

    @engine_side
    async def act(
        self, name: str, timeout_ms: float | None, body: ActionBody, target: str | None = None
    ) -> Receipt:
        """Run ``body`` as the input action ``name`` on ``target`` (a ref) and return its
        receipt: what it did and what followed (firefox/acting.py). A dialog the action
        opens is in the receipt (pending, or answered by the policy), never waited on."""
        self.check_open()
        self.check_no_dialog()
        budget = self.session.budget(timeout_ms, "action")
        activity = self.session.activity
        await activity.until_handed_back(budget)
        async with self._input_lock:
            with activity.acting(), FirefoxActionWatch(self, self.session) as watch:
                done, result = await self.until_dialog(body(budget))
                if done and result is not None:
                    label, detail = result
                else:
                    label, detail = self._describe(target), "a dialog opened"
                receipt = await watch.receipt(name, label, detail, budget)
        ref = target if target is not None and self.refs.known(target) else None
        activity.action(self.id, name, ref=ref, label=label, points=[])
        return receipt

    def _describe(self, target: str | None) -> str | None:
        """How a receipt names a ref it did not get to use."""
        entry = self.refs.get(target) if target else None
        return entry.describe() if entry is not None else target

    @engine_side
    def label(self, ref: str) -> str:
        """How a receipt names the element ``ref`` names (``e3 (button "Save")``)."""
        entry = self.refs.get(ref)
        return entry.describe() if entry is not None else ref

    async def click(
        self,
        ref: str,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: list[str] | None = None,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Click the element ``ref`` names at its centre: ``button`` left, middle or
        right, ``click_count`` 2 for a double click, ``modifiers`` (Shift, Control, Alt,
        Meta) held (firefox/pointer.py)."""
        check_click(button, click_count)
        modifier_names(modifiers)

        async def body(budget: Budget) -> tuple[str | None, str]:
            return await click_element(
                self, ref, budget, button=button, click_count=click_count, modifiers=modifiers
            )

        return await self.act("click", timeout_ms, body, ref)

    async def drag(
        self, start_ref: str, end_ref: str, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Drag one element onto another (HTML5 drag and drop too; firefox/pointer.py)."""

        async def body(budget: Budget) -> tuple[str | None, str]:
            return await drag_element(self, start_ref, end_ref, budget)

        return await self.act("drag", timeout_ms, body, start_ref)

    async def scroll(
        self,
        ref: str | None = None,
        *,
        direction: str | None = "down",
        amount: float | None = None,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Scroll the page or an element (``direction`` up/down/left/right, ``amount`` in
        CSS px, default most of a screen); ``direction=None`` with a ref scrolls it into
        view."""
        check_direction(direction)

        async def body(budget: Budget) -> tuple[str | None, str]:
            return await scroll_wheel(self, ref, direction, amount, budget)

        return await self.act("scroll", timeout_ms, body, ref)

    async def select(
        self, ref: str, values: list[str] | str, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Choose options of a <select> by value or label (several for a multiple one)."""

        async def body(budget: Budget) -> tuple[str | None, str]:
            return await select_options(self, ref, values, budget)

        return await self.act("select", timeout_ms, body, ref)

    async def check(
        self, ref: str, checked: bool = True, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Check (or with ``checked=False`` uncheck) a checkbox, radio or switch by
        clicking it."""

        async def body(budget: Budget) -> tuple[str | None, str]:
            return await set_checked(self, ref, checked, budget)

        return await self.act("check", timeout_ms, body, ref)

    async def upload_file(
        self, ref: str, paths: list[str] | str, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Give files to a file input (hidden ones too; an empty list clears it) or to the
        file chooser a label or button opens when clicked (firefox/upload.py). Files
        come only from the workspace or ``files.upload_dirs``, as on Chromium."""
        workspace = WorkspacePaths.from_config(self.session.config)
        listed = [paths] if isinstance(paths, str) else paths

        async def body(budget: Budget) -> tuple[str | None, str]:
            return await upload_files(self, ref, listed, budget, workspace)

        return await self.act("upload_file", timeout_ms, body, ref)

    async def wait(
        self,
        *,
        text: str | None = None,
        text_gone: str | None = None,
        exact: bool = False,
        ref: str | None = None,
        state: str = "visible",
        load_state: str | None = None,
        time_ms: float | None = None,
        timeout_ms: float | None = None,
    ) -> str:
        """Wait until text appears or goes, a ref is visible or hidden, the page reaches a
        load state, or for ``time_ms``, as on Chromium; returns what was waited for."""
        self.check_open()
        self.check_no_dialog()
        budget = self.session.budget(timeout_ms, "wait")
        return await wait_for(
            self,
            budget,
            text=text,
            text_gone=text_gone,
            exact=exact,
            ref=ref,
            state=state,
            load_state=load_state,
            time_ms=time_ms,
        )

    async def act_batch(
        self, steps: list[dict[str, Any]], *, timeout_ms: float | None = None
    ) -> list[Receipt]:
        """Run several actions in order; stops at the first failure, raising
        ``BatchError`` with the receipts of the steps that ran (as on Chromium)."""
        batch.check_steps(steps)
        return await batch.run_batch(self, steps, self.session.budget(timeout_ms, "action"))

    async def hover(self, ref: str, *, timeout_ms: float | None = None) -> Receipt:
        """Move the mouse to the centre of the element ``ref`` names."""

        async def body(budget: Budget) -> tuple[str | None, str]:
            context, element = await self.element(ref, budget)
            move = {
                "type": "pointerMove",
                "x": 0,
                "y": 0,
                "origin": {"type": "element", "element": element},
            }
            actions = [
                {
                    "type": "pointer",
                    "id": "tabwarden-mouse",
                    "parameters": {"pointerType": "mouse"},
                    "actions": [move],
                }
            ]
            await self.perform(context, actions, budget)
            return self.label(ref), ""

        return await self.act("hover", timeout_ms, body, ref)

    async def fill(self, ref: str, value: str, *, timeout_ms: float | None = None) -> Receipt:
        """Clear a text field (input, textarea, contenteditable) and set ``value``, with
        real key events (its text is selected, then typed over)."""

        async def body(budget: Budget) -> tuple[str | None, str]:
            context, element = await self.element(ref, budget)
            await self.call_in(context, _SELECT_ALL, [element], budget)
            keys = [KEYS["Backspace"]] if not value else list(value)
            await self.send_keys(context, keys, budget)
            final, secret = remote_value(
                await self.call_in(context, _FIELD_TEXT, [element], budget)
            )
            if secret:
                return self.label(ref), (
                    f"set to {counted(len(value), 'character')} (a password, not shown)"
                )
            final = str(final)
            note = "" if final == value else f" (the field now holds {clip_quoted(final)})"
            return self.label(ref), f"set to {clip_quoted(value)}{note}"

        return await self.act("fill", timeout_ms, body, ref)

    async def press(
        self, key: str, *, ref: str | None = None, timeout_ms: float | None = None
    ) -> Receipt:
        """Press one key or a chord (``Enter``, ``Control+a``), into ``ref`` (clicked
        first) or the focused element."""
        parts = key.split("+") if len(key) > 1 else [key]
        values = [KEYS.get(part, part) for part in parts]
        if any(len(v) != 1 for v in values):
            raise InvalidArgument(
                f"unknown key {key!r}",
                hint=f"a character, or one of {', '.join(sorted(KEYS))}, joined by + for a chord",
            )

        async def body(budget: Budget) -> tuple[str | None, str]:
            label = await self._focus(ref, budget) if ref is not None else None
            down = [{"type": "keyDown", "value": v} for v in values]
            up = [{"type": "keyUp", "value": v} for v in reversed(values)]
            actions = [{"type": "key", "id": "tabwarden-keyboard", "actions": down + up}]
            await self.perform(self.context, actions, budget)
            return label, key

        return await self.act("press", timeout_ms, body, ref)

    async def type(
        self,
        text: str,
        *,
        ref: str | None = None,
        delay_ms: float = 0,
        submit: bool = False,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Type ``text`` with real key events (into ``ref``, else the focused element),
        ``delay_ms`` apart; ``submit`` presses Enter after it."""

        async def body(budget: Budget) -> tuple[str | None, str]:
            label = await self._focus(ref, budget) if ref is not None else None
            await self.send_keys(self.context, list(text), budget, delay_ms=delay_ms)
            if submit:
                await self.send_keys(self.context, [KEYS["Enter"]], budget)
            return label, f"typed {counted(len(text), 'character')}" + (
                " and pressed Enter" if submit else ""
            )

        return await self.act("type", timeout_ms, body, ref)

    async def _focus(self, ref: str, budget: Budget) -> str:
        """Focus the element ``ref`` names (keys then go to it, as on Chromium)."""
        context, element = await self.element(ref, budget)
        await self.call_in(context, "(el) => el.focus()", [element], budget)
        return self.label(ref)

    @engine_side
    async def send_keys(
        self, context: str, values: list[str], budget: Budget, *, delay_ms: float = 0
    ) -> PendingDialog | None:
        """Press and release each key value in turn (``delay_ms`` apart)."""
        keys: list[JSONObject] = []
        for i, value in enumerate(values):
            if delay_ms and i:
                keys.append({"type": "pause", "duration": int(delay_ms)})
            keys += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
        actions = [{"type": "key", "id": "tabwarden-keyboard", "actions": keys}]
        return await self.perform(context, actions, budget)

    @engine_side
    async def perform(
        self, context: str, actions: list[JSONObject], budget: Budget
    ) -> PendingDialog | None:
        # An element origin is found in the context it came from (a frame's own).
        params = {"context": context, "actions": actions}
        done, _ = await self.until_dialog(
            self.session.connection.send("input.performActions", params, budget=budget)
        )
        return None if done else self.session.last_dialog_of(self)

    @engine_side
    async def until_dialog(self, work: Awaitable[T]) -> tuple[bool, T | None]:
        """``work``'s result, unless a dialog opens first: then (False, None) at once, and
        ``work`` is left to finish (Firefox answers it once the dialog is) on a task this
        page owns, whose result is dropped."""
        task = self._tasks.spawn(_awaited(work), name=f"firefox {self.id} command")
        opened = asyncio.ensure_future(self._dialog_opened.wait())
        try:
            await asyncio.wait({task, opened}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            opened.cancel()
        if not task.done() and self.session.dialog_policy != "must_respond":
            # The policy answers the dialog at once: the command's reply follows the answer.
            await asyncio.wait({task})
        if task.cancelled() or (task.done() and self.closed):
            # The tab closed under the call (its tasks end with it).
            task.cancel()
            raise TabClosed(f"tab {self.id} closed during the call", hint="list the tabs")
        if task.done():
            return True, task.result()
        return False, None

    # ---- the live view (the workbench: surfaces/workbench/source.py) -----------------

    @engine_side
    async def live_feed(self, params: ScreencastParams, budget: Budget) -> FrameFeed:
        """A latest-wins feed of the tab's frames (captured while a feed is open)."""
        return await self.live_view.watch(params, budget)

    @engine_side
    async def still_frame(self, budget: Budget) -> ScreencastFrame:
        """What the tab shows now, captured once."""
        return await self.live_view.still(budget)

    @engine_side
    async def thumbnail_jpeg(self, budget: Budget, max_width: int) -> bytes:
        """A JPEG of the viewport now (the workbench scales it down to ``max_width``)."""
        return await self.live_view.thumbnail(budget)

    @engine_side
    def person_input(self) -> FirefoxPersonInput:
        """A person's mouse and keyboard into this tab (taking over from the agent)."""
        return FirefoxPersonInput(self, KEYS)

    @engine_side
    def note_person_activity(self, kind: PersonActKind) -> None:
        """A person's input was forwarded to this tab (the agent is told once)."""
        self._person.note(kind)

    @engine_side
    def take_person_activity(self) -> PersonActs | None:
        """What a person did in this tab since the last take (None: nothing); forgets it."""
        return self._person.take()

    # ---- dialogs --------------------------------------------------------------------

    async def dialog(
        self,
        action: str = "accept",
        *,
        prompt_text: str | None = None,
        timeout_ms: float | None = None,
    ) -> PendingDialog:
        """Answer the pending dialog (``accept`` or ``dismiss``; ``prompt_text`` for a
        prompt), as the Chromium tab's ``dialog``."""
        accept = dialog_action(action)
        dialog = self.pending_dialog
        if dialog is None:
            raise InvalidArgument(
                f"no dialog waits in tab {self.id}", hint="take a snapshot to see the page"
            )
        budget = self.session.budget(timeout_ms, "action")
        await self.session.answer_dialog(self, dialog, accept, "agent", prompt_text, budget)
        return dialog

    # ---- screenshots and the rest ---------------------------------------------------

    async def screenshot(
        self,
        *,
        ref: str | None = None,
        full_page: bool = False,
        format: str = "png",
        quality: int | None = None,
        annotate: bool = False,
        save: bool = False,
        path: str | None = None,
        timeout_ms: float | None = None,
    ) -> Screenshot:
        """Capture the viewport, the full page (``full_page``) or one element (``ref``),
        as on Chromium: the same bounds, ``annotate`` draws each interactive element's
        ref, ``save``/``path`` writes it into the workspace's screenshots folder
        (firefox/screenshot.py)."""
        self.check_open()
        self.check_no_dialog()
        budget = self.session.budget(timeout_ms, "screenshot")
        shot = await capture_screenshot(
            self,
            budget,
            ref=ref,
            full_page=full_page,
            format=format,
            quality=quality,
            annotate=annotate,
        )
        if save or path is not None:
            shot = save_screenshot(shot, self.session.paths, path)
        return shot

    async def save_pdf(
        self,
        path: str | None = None,
        *,
        landscape: bool = False,
        print_background: bool = True,
        scale: float = 1.0,
        paper_format: str = "Letter",
        page_ranges: str | None = None,
        margins: str | None = None,
        timeout_ms: float | None = None,
    ) -> PdfFile:
        """Print the page to a PDF in the workspace's ``pdf`` folder, as on Chromium
        (``browsingContext.print``; firefox/pdf.py): ``path`` a file name there, or a
        path inside the workspace (default: a time-stamped name); ``paper_format``
        Letter, Legal, Tabloid, Ledger, A0 to A6; ``page_ranges`` like ``"1-3, 5"``;
        ``margins`` CSS-like (``"1cm"``, ``"10mm 5mm"``)."""
        options = print_options(
            landscape=landscape,
            print_background=print_background,
            scale=scale,
            paper_format=paper_format,
            page_ranges=page_ranges,
            margins=margins,
        )
        self.check_open()
        self.check_no_dialog()
        budget = self.session.budget(timeout_ms, "screenshot")
        params = print_params(self.context, options)
        return await save_pdf(self.connection, self.session.paths, path, params, budget)

    async def get_text(
        self, ref: str | None = None, *, max_chars: int = 20_000, timeout_ms: float | None = None
    ) -> str:
        """The visible text of the element ``ref`` names, or of the whole page (bounded
        by ``max_chars``)."""
        self.check_open()
        self.check_no_dialog()
        budget = self.session.budget(timeout_ms, "action")
        if ref is None:
            value = await self.evaluate_in(self.context, "document.body.innerText", budget)
        else:
            context, element = await self.element(ref, budget)
            value = remote_value(
                await self.call_in(context, "(el) => el.innerText", [element], budget)
            )
        text = value if isinstance(value, str) else ""
        if len(text) > max_chars:
            text = text[:max_chars] + f"\n[… {counted(len(text) - max_chars, 'more character')}]"
        return text

    async def get_content(
        self,
        *,
        format: Literal["markdown", "text"] = "markdown",
        max_chars: int = 20_000,
        cursor: int = 0,
        timeout_ms: float | None = None,
    ) -> PageContent:
        """The page as Markdown (or plain text), paged; untrusted page data. Read by the
        same script as on Chromium, in tabwarden's sandbox (a page that replaced the
        DOM's built-ins cannot change what is read)."""
        self.check_open()
        self.check_no_dialog()
        budget = self.session.budget(timeout_ms, "action")
        return await page_content(
            self._read_object, budget, format=format, max_chars=max_chars, cursor=cursor
        )

    async def get_images(
        self, *, max_images: int = 200, timeout_ms: float | None = None
    ) -> ImageList:
        """The page's images: src, alt, rendered and natural size, loaded or broken."""
        self.check_open()
        self.check_no_dialog()
        budget = self.session.budget(timeout_ms, "action")
        return await page_images(self._read_object, budget, max_images=max_images)

    async def _read_object(self, script: str, budget: Budget, what: str) -> dict[str, Any]:
        """A page-reading script's object (as JSON text: BiDi's own serialisation of a
        deep object is cut at a depth)."""
        text = await self.evaluate_in(self.context, f"JSON.stringify({script})", budget)
        value = json.loads(text) if isinstance(text, str) else None
        if not isinstance(value, dict):
            raise ScriptError(
                f"{what}: the page script returned no object", text="", line=0, column=0, url=""
            )
        return value

    async def close(self, *, timeout_ms: float | None = None) -> None:
        if self.closed:
            return
        budget = self.session.budget(timeout_ms, "action")
        try:
            await self.session.connection.send(
                "browsingContext.close",
                {"context": self.context, "promptUnload": False},
                budget=budget,
            )
        except BiDiError as exc:
            if exc.error != "no such frame":
                raise
        self.was_closed()

    @engine_side
    async def aclose_tasks(self) -> None:
        await self._tasks.close()


def _left_out(walks: dict[str, FrameWalk]) -> LeftOut:
    """What an interactive view leaves out, over all the frames walked (its last line)."""
    left_out = LeftOut()
    for walk in walks.values():
        left_out = left_out.plus(walk.left_out or LeftOut())
    return left_out


async def _awaited(work: Awaitable[T]) -> T:
    return await work


def _frame(context: str, parent: str) -> FrameInfo:
    return FrameInfo(context, parent, "", "", None, False)


def _refusal(tool: str) -> Callable[..., Awaitable[None]]:
    async def refused(self: FirefoxPage, *args: object, **kwargs: object) -> None:
        check_firefox(tool)

    refused.__doc__ = f"Not on Firefox: raises ``EngineUnsupported`` ({tool})."
    # Not in the typed API (nor its sync twin): it is there only to say no.
    return engine_side(refused)


# The Chromium tab's calls that Firefox does not do fail at once, saying so (never half
# done, never an AttributeError): each names its tool in the engines' table.
for _tool, _support in FIREFOX.items():
    _name = _tool.removeprefix("browser_")
    if not _support.supported and _name not in vars(FirefoxPage):
        setattr(FirefoxPage, _name, _refusal(_tool))


def page_basics(page: FirefoxPage) -> PageBasics:
    """The page as the engine-neutral seam (type-checked: FirefoxPage implements it)."""
    return page
