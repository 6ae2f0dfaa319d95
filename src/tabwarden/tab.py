"""Tab: one page target of a browser session, with navigation and history."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .actions import batch, forms, pointer, upload, waiting
from .actions.evaluate import EvaluateResult, EvaluationSessions, is_busy
from .actions.evaluate import evaluate as run_evaluate
from .actions.receipt import ActionWatch, Receipt
from .actions.resolve import resolve
from .actions.text_changes import TextWatch
from .budget import Budget
from .cdp.protocol import Event, gc_paused
from .cdp.session import CDPSession
from .clipping import clip_title, clip_url
from .content import ImageList, PageContent, page_content, page_images
from .diagnostics import storage
from .diagnostics.console import ConsoleReport
from .diagnostics.network import NetworkReport, RequestFilter
from .diagnostics.pdf import PdfFile, print_options, save_pdf
from .diagnostics.recording import RecordingFile, RecordingStarted, ScreencastRecorder
from .diagnostics.storage import StorageResult
from .errors import (
    ActionError,
    CDPError,
    CDPTimeout,
    DeadlineExceeded,
    DialogBlocking,
    EvaluateDisabled,
    InvalidArgument,
    NavigationFailed,
    NoHistoryEntry,
    StaleRefError,
    TabClosed,
    TabCrashed,
    TabwardenError,
    UnknownRef,
)
from .frames import AUTO_ATTACH_IFRAMES, FrameRegistry, FrameTracker
from .interrupts import PageCalls
from .navigation import (
    NavigationResult,
    NavigationWatch,
    WaitUntil,
    _Outcome,
    check_wait_until,
    navigation_timeout,
    normalize_url,
)
from .safety.raw_cdp import send_raw
from .safety.reserved import check_raw_method
from .screenshot import Captures, Screenshot, save_screenshot
from .screenshot import capture as capture_screenshot
from .snapshot import DEFAULT_MAX_CHARS, RefTable, Snapshot, SnapshotNode, parse_ref
from .snapshot.build import build_tree
from .snapshot.captures import Capture, CaptureStore, Cursor, new_capture_id
from .snapshot.model import LeftOut
from .snapshot.render import check_max_chars, render_lines, select_lines
from .snapshot.walker import Walker
from .supervisor.dialogs import ClosedDialog, PendingDialog
from .supervisor.supervisor import SupervisorState

if TYPE_CHECKING:
    from .session import BrowserSession

__all__ = ["Tab", "TabInfo"]

T = TypeVar("T")

logger = logging.getLogger("tabwarden.tab")

# Chromium commits an error page for an HTTP error with an empty body; the
# status is what matters, not this code.
_HTTP_STATUS_FAILURE = "net::ERR_HTTP_RESPONSE_CODE_FAILURE"
_CHANGE_CHECK_S = 1.0
"""How long a later page of a snapshot waits for the page to say whether it changed."""


@dataclass(frozen=True, slots=True)
class TabInfo:
    """What a tab list shows; read from target info, never from the page's JS thread."""

    id: str
    url: str
    title: str
    active: bool
    opener: str | None
    dialog: PendingDialog | None


class Tab:
    """A page in a browser session. Create tabs with ``BrowserSession.new_tab``."""

    def __init__(self, browser: BrowserSession, tab_id: str, target_id: str) -> None:
        self._browser = browser
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
        self._bridge_error = ""
        self.navigated = False
        """True once anything loaded in this tab beyond its first blank page."""
        self._created_here = False
        self._detached = False
        self._frames: FrameTracker | None = None
        self.refs = RefTable()
        """This tab's refs: one space across all its frames."""
        self.walker = Walker(f"tab {tab_id}")
        """Runs this tab's snapshots in its frames; keeps what they reuse."""
        self.text_watch = TextWatch()
        """Watches the text an action makes appear or go away."""
        self._last_view: list[str] = []
        self._captures = CaptureStore(tab_id)
        """Snapshots with pages left to read (their later pages need no new walk)."""
        self._input_lock = asyncio.Lock()
        self._actions = 0
        self._object_group = "tabwarden-action-0"
        self._next_dialog: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        """Resolved when a dialog that waits for an answer opens (then replaced)."""
        self._lifecycle: dict[str, set[str]] = {}
        self._screenshots = Captures(browser._spawn, browser.emulation_state)
        """Screenshots, one at a time (a capture the call gave up on still runs)."""
        self._evaluations = EvaluationSessions(self)
        self._calls = PageCalls()
        """The calls running on this tab, ended at once by a crash or a dialog."""

    def __repr__(self) -> str:
        state = f"closed: {self._closed_reason}" if self._closed_reason else self.url
        return f"<Tab {self.id} {state}>"

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
    def opener(self) -> Tab | None:
        """The tab whose page opened this one (``window.open``, ``target=_blank``)."""
        if self._opener_target is None:
            return None
        return self._browser._tab_by_target(self._opener_target)

    @property
    def frames(self) -> FrameRegistry:
        """The tab's frames and the sessions that render them (OOPIFs have their own)."""
        if self._frames is None:
            raise (
                self._closed_error()
                if self.closed
                else TabClosed(f"tab {self.id} is not attached yet", hint="retry in a moment")
            )
        return self._frames.registry

    @property
    def pending_dialogs(self) -> list[PendingDialog]:
        """Dialogs open in this tab (its frames included) that wait for an answer."""
        return self._browser.supervisor.pending(self)

    @property
    def pending_dialog(self) -> PendingDialog | None:
        pending = self.pending_dialogs
        return pending[0] if pending else None

    def info(self) -> TabInfo:
        opener = self.opener
        return TabInfo(
            id=self.id,
            url=clip_url(self.url),
            title=clip_title(self.title),
            active=self._browser.active_tab is self,
            opener=opener.id if opener else None,
            dialog=self.pending_dialog,
        )

    # ---- navigation ----------------------------------------------------------------

    async def navigate(
        self, url: str, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Load ``url`` and wait until it reaches ``wait_until``.

        Returns the final URL, title and HTTP status (a 4xx/5xx status is reported,
        not raised). A dialog opened during the load ends the wait early and is
        reported in ``dialog``. A URL the URL policy refuses, or a redirect to one,
        raises ``PolicyDenied`` naming the rule.
        """
        stage = check_wait_until(wait_until)
        target_url = normalize_url(url)
        async with self._browser._operation(
            timeout_ms, "navigation", self, on_dialog="go_on"
        ) as budget:
            return await self._navigate(target_url, stage, budget)

    async def reload(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        stage = check_wait_until(wait_until)
        async with self._browser._operation(
            timeout_ms, "navigation", self, on_dialog="go_on"
        ) as budget:
            session = await self._ready_session(budget)

            async def trigger() -> str | None:
                await session.send("Page.reload", budget=budget)
                return None

            return await self._navigation(session, self.url, stage, budget, trigger)

    async def back(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        return await self._go_history(-1, wait_until, timeout_ms)

    async def forward(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        return await self._go_history(+1, wait_until, timeout_ms)

    # ---- snapshot ------------------------------------------------------------------

    async def snapshot(
        self,
        *,
        full: bool = False,
        scope: str | None = None,
        max_chars: int = DEFAULT_MAX_CHARS,
        cursor: int | str = 0,
        find: str | None = None,
        timeout_ms: float | None = None,
    ) -> Snapshot:
        """The page as an accessibility tree with refs, across all its frames.

        Interactive view by default (what can be acted on, with headings and
        frames for context); ``full=True`` for all content. ``scope`` limits it
        to one ref's subtree, ``find`` to lines that show this text (case-insensitive,
        whitespace collapsed) or match this ``/regex/``; ``max_chars`` pages the
        text. A snapshot walks the page once: ``cursor`` (``s3:120``, from the end
        of a page) reads its next page from that walk, with the same ``full``,
        ``scope`` and ``find``, and says when the page has changed since; ``0``
        takes a new snapshot.
        """
        start = Cursor.parse(cursor)
        check_max_chars(max_chars)
        async with self._browser._operation(
            timeout_ms, "action", self, on_dialog="go_on"
        ) as budget:
            if start.capture is not None:
                return await self._later_page(
                    budget, start, full=full, scope=scope, find=find, max_chars=max_chars
                )
            read = functools.partial(
                self._snapshot, budget, full=full, scope=scope, find=find, summary=True
            )
            _, capture = await self._until_dialog(read())
            if capture is None:
                # A dialog opened during the read: the page is paused, and the snapshot says
                # so the way it does for a dialog that was already open.
                capture = await read()
            snapshot = capture.page(max_chars=max_chars)
            if snapshot.page.next_cursor is not None:
                self._captures.keep(capture)
            return snapshot

    async def _later_page(
        self,
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
        capture = self._captures.continued(start, full=full, scope=scope, find=find)
        await self._ready_session(budget)
        tracker = self._frames
        assert tracker is not None
        if tracker.registry.loader_of(self.target_id) != capture.document:
            raise InvalidArgument(
                f"cursor={capture.id}:{start.line}: tab {self.id} has left the page of "
                f"snapshot {capture.id} ({capture.url}) since",
                hint="start again with cursor=0 for a snapshot of the page it shows now",
            )
        if self.pending_dialogs:
            # The page's script is paused: it cannot be asked until the dialog is answered.
            return capture.later_page(
                max_chars=max_chars,
                start=start.line,
                changed=None,
                notes=_dialog_lines(self.pending_dialogs),
            )
        try:
            changed: bool | None = await self.walker.changed_since(
                tracker.registry, capture.frames, capture.marks, budget.child(_CHANGE_CHECK_S)
            )
        except DeadlineExceeded:
            changed = None  # a busy page: the capture can still be read
        return capture.later_page(max_chars=max_chars, start=start.line, changed=changed)

    async def dialog(
        self,
        action: str = "accept",
        *,
        prompt_text: str | None = None,
        dialog_id: str | None = None,
        timeout_ms: float | None = None,
    ) -> ClosedDialog:
        """Answer this tab's pending dialog (``accept`` or ``dismiss``; ``prompt_text`` for
        a prompt). With several pending, name one by ``dialog_id``."""
        accept = _dialog_action(action)
        async with self._browser._operation(
            timeout_ms, "action", self, on_dialog="go_on"
        ) as budget:
            return await self._browser.supervisor.answer(
                accept=accept,
                prompt_text=prompt_text,
                dialog_id=dialog_id,
                tab=self,
                budget=budget,
            )

    # ---- actions on refs (each returns a Receipt) ------------------------------------

    async def click(
        self,
        ref: str,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: list[str] | None = None,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Click an element (a ref such as ``e7``, or a CSS selector) like a real pointer."""
        bits = pointer.modifier_bits(modifiers)

        async def body(budget: Budget) -> tuple[str, str]:
            element, point = await pointer.locate(self, ref, budget)
            await pointer.click(
                self, point, budget, button=button, click_count=click_count, modifiers=bits
            )
            return element.label, "" if click_count == 1 else f"{click_count} clicks"

        return await self._act("click", timeout_ms, body, ref)

    async def hover(self, ref: str, *, timeout_ms: float | None = None) -> Receipt:
        async def body(budget: Budget) -> tuple[str, str]:
            element, point = await pointer.locate(self, ref, budget, need_enabled=False)
            await pointer.hover(self, point, budget)
            return element.label, ""

        return await self._act("hover", timeout_ms, body, ref)

    async def drag(
        self, start_ref: str, end_ref: str, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Drag one element onto another with real mouse events (HTML5 drag-and-drop too)."""

        async def body(budget: Budget) -> tuple[str, str]:
            source, start = await pointer.locate(self, start_ref, budget)
            target, end = await pointer.locate(self, end_ref, budget, need_enabled=False)
            html5 = await pointer.drag(self, start, end, budget)
            return f"{source.label} → {target.label}", "HTML5 drag and drop" if html5 else ""

        return await self._act("drag", timeout_ms, body, start_ref)

    async def fill(self, ref: str, value: str, *, timeout_ms: float | None = None) -> Receipt:
        """Clear a text field (input, textarea, contenteditable) and set ``value``."""

        async def body(budget: Budget) -> tuple[str, str]:
            element = await resolve(self, ref, budget)
            final, secret = await forms.fill(self, element, value, budget)
            if secret:
                return element.label, f"set to {len(value)} characters (a password, not shown)"
            shown = _clip(value)
            note = "" if final == value else f" (the field now holds {_clip(final)})"
            return element.label, f"set to {shown}{note}"

        return await self._act("fill", timeout_ms, body, ref)

    async def type(
        self,
        text: str,
        *,
        ref: str | None = None,
        delay_ms: float = 0,
        submit: bool = False,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Type ``text`` with real key events (into ``ref``, else the focused element);
        ``submit`` presses Enter after it."""

        async def body(budget: Budget) -> tuple[str | None, str]:
            label = None
            if ref is not None:
                element = await resolve(self, ref, budget)
                await forms.focus(element, budget)
                label = element.label
            await forms.type_text(self, text, budget, delay_ms=delay_ms, ref=ref)
            if submit:
                await forms.press(self, "Enter", budget)
            return label, f"typed {len(text)} characters" + (" and pressed Enter" if submit else "")

        return await self._act("type", timeout_ms, body, ref)

    async def press(
        self, key: str, *, ref: str | None = None, timeout_ms: float | None = None
    ) -> Receipt:
        """Press a key or chord: ``Enter``, ``Control+A``, ``Shift+Tab``, ``ArrowDown``, ``F5``…"""

        async def body(budget: Budget) -> tuple[str | None, str]:
            label = None
            if ref is not None:
                element = await resolve(self, ref, budget)
                await forms.focus(element, budget)
                label = element.label
            await forms.press(self, key, budget)
            return label, key

        return await self._act("press", timeout_ms, body, ref)

    async def select(
        self, ref: str, values: list[str] | str, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Choose options of a <select> by value or label (several for a multiple select)."""

        async def body(budget: Budget) -> tuple[str, str]:
            element = await resolve(self, ref, budget)
            chosen = await forms.select_options(element, _as_list(values), budget)
            return element.label, "selected " + ", ".join(map(repr, chosen))

        return await self._act("select", timeout_ms, body, ref)

    async def check(
        self, ref: str, checked: bool = True, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Check (or with ``checked=False`` uncheck) a checkbox, radio or switch by clicking it."""

        async def body(budget: Budget) -> tuple[str, str]:
            element = await resolve(self, ref, budget)
            state = await forms.check_state(element, budget)
            if state is checked:
                return element.label, f"already {'checked' if checked else 'unchecked'}"
            point = await pointer.actionable_point(self, element, budget)
            await pointer.click(self, point, budget)
            if await forms.check_state(element, budget) is not checked:
                raise forms.unchanged(element, checked)
            return element.label, "checked" if checked else "unchecked"

        return await self._act("check", timeout_ms, body, ref)

    async def scroll(
        self,
        ref: str | None = None,
        *,
        direction: str | None = "down",
        amount: float | None = None,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Scroll the page or an element (``direction`` up/down/left/right, ``amount`` in
        CSS px, default most of a screen); ``direction=None`` with a ref scrolls it into view."""
        if direction not in (None, "up", "down", "left", "right"):
            raise InvalidArgument(
                f"direction={direction!r} is not a direction", hint="up, down, left or right"
            )

        async def body(budget: Budget) -> tuple[str | None, str]:
            return await self._scroll(ref, direction, amount, budget)

        return await self._act("scroll", timeout_ms, body, ref)

    async def upload_file(
        self, ref: str, paths: list[str] | str, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Give files to a file input (hidden ones too; an empty list clears it), to the
        file chooser a label or button opens when clicked, or to a drop zone (dropped on
        it). Files come only from the workspace or a folder allowed in
        ``files.upload_dirs`` (relative paths are taken from the workspace); anything
        else raises ``PathNotAllowed``."""

        async def body(budget: Budget) -> tuple[str, str]:
            return await upload.upload_files(
                self, ref, _as_list(paths), budget, self._browser.paths
            )

        return await self._act("upload_file", timeout_ms, body, ref)

    async def get_text(
        self, ref: str | None = None, *, max_chars: int = 20_000, timeout_ms: float | None = None
    ) -> str:
        """The visible text of an element, or of the whole page (bounded by ``max_chars``)."""
        async with self._browser._operation(timeout_ms, "action", self) as budget:
            await self._ready_session(budget)
            if ref is None:
                session = self.frames.main_session
                reply = await session.send(
                    "Runtime.evaluate", {"expression": "document"}, budget=budget
                )
                object_id = reply["result"]["objectId"]
            else:
                element = await resolve(self, ref, budget)
                session, object_id = element.session, element.object_id
            text, total = await forms.page_text(session, object_id, budget, max_chars)
            if total > len(text):
                text += f"\n[… {total - len(text):,} more characters]"
            return text

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
        load state, or for ``time_ms``. Returns what was waited for.

        Text is looked for in every frame and open shadow root, as rendered and as the
        snapshot shows it: case-insensitive, whitespace collapsed, anywhere in the text;
        ``exact=True`` wants all of an element's text, case-sensitive; ``/regex/`` is a
        JavaScript regular expression (case-insensitive unless ``exact``)."""
        async with self._browser._operation(timeout_ms, "wait", self) as budget:
            await self._ready_session(budget)
            return await waiting.wait_for(
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
        """Run several actions in order, e.g. ``[{"action": "fill", "ref": "e4", "value":
        "x"}, {"action": "click", "ref": "e7"}]``; stops at the first failure, raising
        ``BatchError`` that carries the receipts of the steps that ran."""
        return await batch.run_batch(self, steps, timeout_ms=timeout_ms)

    async def get_content(
        self,
        *,
        format: Literal["markdown", "text"] = "markdown",
        max_chars: int = 20_000,
        cursor: int = 0,
        timeout_ms: float | None = None,
    ) -> PageContent:
        """The page as Markdown (or plain text), paged; untrusted page data."""
        async with self._browser._operation(timeout_ms, "action", self) as budget:
            session = await self._ready_session(budget)
            return await page_content(
                session,
                budget,
                format=format,
                max_chars=max_chars,
                cursor=cursor,
            )

    async def get_images(
        self, *, max_images: int = 200, timeout_ms: float | None = None
    ) -> ImageList:
        """The page's images: src, alt, rendered and natural size, loaded or broken."""
        async with self._browser._operation(timeout_ms, "action", self) as budget:
            session = await self._ready_session(budget)
            return await page_images(session, budget, max_images=max_images)

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
        """Run JavaScript in the page (or a frame, or with an element by ``ref``).

        Runs on a CDP session of its own, so actions never queue behind it. At
        the deadline a script still running is terminated and the tab stays
        usable (``EvaluateTimeout``); a thrown error raises ``ScriptError`` with
        its text and line. ``function`` with ``ref`` gets the element as ``this``
        and first argument.
        """
        if not self._browser.config.browser.evaluate_enabled:
            raise EvaluateDisabled("evaluating JavaScript is turned off for this session")
        async with self._browser._operation(timeout_ms, "evaluate", self) as budget:
            await self._ready_session(budget)
            return await run_evaluate(
                self,
                budget,
                expression=expression,
                function=function,
                ref=ref,
                frame_id=frame_id,
                args=args,
                await_promise=await_promise,
                max_chars=max_chars,
            )

    async def terminate_script(self, *, timeout_ms: float | None = None) -> bool:
        """Stop the script that keeps this page busy (``Runtime.terminateExecution`` on
        each of its frames' sessions). Returns True when something was busy."""
        async with self._browser._operation(
            timeout_ms, "action", self, on_dialog="go_on"
        ) as budget:
            stopped = False
            for session in self.frames.sessions():
                if await is_busy(session):
                    await session.send("Runtime.terminateExecution", budget=budget.child(2.0))
                    stopped = True
            return stopped

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
        """Capture the viewport, the full page (``full_page``) or one element (``ref``).

        An image stops at ``MAX_SIDE_PX`` (16,384) image pixels on a side and
        ``MAX_AREA_PX`` in all: a larger page is captured from where it is scrolled to (an
        element, from its top left), and ``Screenshot.cut`` and ``note()`` say so.
        ``annotate=True`` draws each interactive element's ref on the image.
        ``save=True`` or ``path`` (a file name, or a path inside the workspace) also
        writes it into the workspace's screenshots folder; ``Screenshot.path`` says where.
        """
        async with self._browser._operation(timeout_ms, "action", self) as budget:
            await self._ready_session(budget)
            self._actions += 1
            self._object_group = f"tabwarden-action-{self._actions}"
            try:
                shot = await capture_screenshot(
                    self,
                    self._screenshots,
                    budget,
                    ref=ref,
                    full_page=full_page,
                    format=format,
                    quality=quality,
                    annotate=annotate,
                )
            finally:
                self._release_objects(self._object_group)
            if save or path is not None:
                shot = save_screenshot(shot, self._browser.paths, path)
            return shot

    # ---- diagnostics: console and network (diagnostics/console.py, network.py) ------

    async def console(
        self,
        *,
        level: str | Sequence[str] | None = None,
        since: Literal["all", "last_read"] = "all",
        clear: bool = False,
        max_entries: int = 50,
        timeout_ms: float | None = None,
    ) -> ConsoleReport:
        """This tab's console: messages of every level, uncaught exceptions (with the top
        of their stack) and browser notices, from all its frames, with source and line.

        ``level`` keeps some levels (debug, log, info, warning, error — error includes
        uncaught exceptions — exception) or console calls (assert, trace…);
        ``since="last_read"`` only what came since the previous read; ``clear`` empties
        the log after reading. The newest ``max_entries`` are returned; the report says
        how many matched and how many the tab's ring dropped.
        """
        async with self._browser._operation(timeout_ms, "action", self, on_dialog="go_on"):
            return self._browser.supervisor.console.read(
                self, level=level, since=since, clear=clear, max_entries=max_entries
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
        """This tab's requests (its frames included): method, URL, status, type, timing,
        size and failure reason, newest ``max_entries`` of those matching.

        ``url`` is a part of the URL or a ``/regex/``; ``type`` resource types (document,
        xhr, fetch, script, image…); ``status`` codes (404), classes (4xx, 5xx), failed or
        pending. ``request_id`` (r12 from a listing) returns that request's headers, post
        data and response body instead, bodies cut at ``diagnostics.body_max_bytes``.
        ``clear`` empties the log after reading.
        """
        log = self._browser.supervisor.network
        if request_id is not None:
            async with self._browser._operation(
                timeout_ms, "action", self, on_dialog="go_on"
            ) as budget:
                return await log.details(self, request_id, budget)
        request_filter = RequestFilter.parse(url, type, status)
        async with self._browser._operation(timeout_ms, "action", self, on_dialog="go_on"):
            return log.list(self, request_filter, max_entries=max_entries, clear=clear)

    def _diagnostics_line(self) -> list[str]:
        """The snapshot header's lines of what went wrong since the last one: a relaunch of
        the browser (told once), console and network errors."""
        relaunch = self._browser.take_relaunch_notice()
        lines = [f"# {relaunch.describe()}"] if relaunch is not None else []
        line = self._browser.supervisor.diagnostics_summary(self)
        return lines + ([f"# {line}"] if line else [])

    # ---- storage and emulation (diagnostics/storage.py, emulation.py) -----------------

    async def storage(
        self,
        action: str = "get",
        kind: str = "cookies",
        *,
        name: str | None = None,
        value: str | None = None,
        domain: str | None = None,
        url: str | None = None,
        path: str | None = None,
        expires: float | None = None,
        http_only: bool = False,
        secure: bool = False,
        same_site: str | None = None,
        all: bool = False,
        file: str | None = None,
        timeout_ms: float | None = None,
    ) -> StorageResult:
        """Read or change this page's cookies, localStorage or sessionStorage.

        ``action`` get, set, delete or clear; ``kind`` cookies, local or session.
        Cookies default to those of the page's URL (``all=True``: every cookie of the
        browser); ``domain``/``url``, ``path``, ``expires`` (Unix seconds),
        ``http_only``, ``secure`` and ``same_site`` describe a cookie to set. ``save_state``
        and ``load_state`` write or read a storage state ``file`` for the whole session
        (see ``BrowserSession.save_storage_state``).
        """
        storage.check_request(action, kind)
        if action == "save_state":
            return await self._browser.save_storage_state(file, timeout_ms=timeout_ms)
        if action == "load_state":
            return await self._browser.load_storage_state(file or "", timeout_ms=timeout_ms)
        async with self._browser._operation(timeout_ms, "action", self, on_dialog="end") as budget:
            await self._ready_session(budget)
            return await storage.run(
                self,
                budget,
                action=action,
                kind=kind,
                name=name,
                value=value,
                domain=domain,
                url=url,
                path=path,
                expires=expires,
                http_only=http_only,
                secure=secure,
                same_site=same_site,
                all=all,
            )

    # ---- files: PDF and recording (diagnostics/pdf.py, recording.py) -----------------

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
        """Print the page to a PDF in the workspace's ``pdf`` folder (``path``: a file
        name there, or a path inside the workspace; default: a time-stamped name).

        ``paper_format`` Letter, Legal, Tabloid, Ledger, A0 to A6; ``page_ranges`` like
        ``"1-3, 5"``; ``margins`` CSS-like (``"1cm"``, ``"10mm 5mm"``). Needs headless
        Chromium (a browser that refuses raises ``ActionError``).
        """
        params = print_options(
            landscape=landscape,
            print_background=print_background,
            scale=scale,
            paper_format=paper_format,
            page_ranges=page_ranges,
            margins=margins,
        )
        async with self._browser._operation(timeout_ms, "action", self) as budget:
            session = await self._ready_session(budget)
            return await save_pdf(session, self._browser.paths, path, params, budget)

    async def record_start(
        self,
        *,
        quality: int = 70,
        max_width: int | None = None,
        max_height: int | None = None,
        every_nth_frame: int = 1,
        timeout_ms: float | None = None,
    ) -> RecordingStarted:
        """Start recording this tab's screen (JPEG screencast frames, sent when the page
        repaints); ``record_stop`` saves them. One recording per tab."""
        async with self._browser._operation(timeout_ms, "action", self) as budget:
            session = await self._ready_session(budget)
            recordings = self._browser._recordings
            if self.id in recordings:
                raise ActionError(
                    f"tab {self.id} is already being recorded",
                    hint="stop it with record_stop first (one recording per tab)",
                )
            files = self._browser.config.files
            recorder = ScreencastRecorder(
                self.id,
                session,
                max_frames=files.recording_max_frames,
                max_bytes=files.recording_max_bytes,
                spawn=self._browser._spawn,
            )
            # A background tab paints nothing, so it would send no frames.
            await self._browser._bring_to_front(self, budget)
            started = await recorder.start(
                budget,
                quality=quality,
                max_width=max_width,
                max_height=max_height,
                every_nth_frame=every_nth_frame,
            )
            recordings[self.id] = recorder
            return started

    async def record_stop(
        self,
        path: str | None = None,
        *,
        format: Literal["auto", "webm", "html"] = "auto",
        timeout_ms: float | None = None,
    ) -> RecordingFile:
        """Stop recording and save it in the workspace's ``recordings`` folder: WebM when
        ffmpeg is available (``auto``/``webm``), else a self-contained HTML player.
        Works after the tab closed too (what was recorded is saved)."""
        return await self._browser.record_stop(self.id, path, format=format, timeout_ms=timeout_ms)

    # ---- tab control ---------------------------------------------------------------

    async def activate(self, *, timeout_ms: float | None = None) -> Tab:
        """Make this the session's active tab and bring it to the front."""
        return await self._browser.switch_tab(self.id, timeout_ms=timeout_ms)

    async def close(self, *, timeout_ms: float | None = None) -> None:
        await self._browser.close_tab(self.id, timeout_ms=timeout_ms)

    async def cdp(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        frame_id: str | None = None,
        timeout_ms: float | None = None,
    ) -> dict[str, Any]:
        """Send a raw CDP command to this tab (an escape hatch; prefer the API).

        With ``frame_id`` of a cross-origin iframe it goes through that frame's own
        session; ``Runtime.evaluate`` with a same-origin iframe's ``frame_id`` runs in
        that frame's JavaScript context.
        """
        if not isinstance(method, str) or "." not in method:
            raise InvalidArgument(
                f"{method!r} is not a CDP method", hint="use Domain.method, e.g. Runtime.evaluate"
            )
        check_raw_method(method)
        # A raw command's reply is Chromium's to give: a dialog does not end it (a proxy
        # in front of the browser may answer that dialog itself, and the reply then comes).
        async with self._browser._operation(
            timeout_ms, "action", self, on_dialog="go_on"
        ) as budget:
            session = await self._ready_session(budget)
            params = dict(params or {})
            if frame_id is not None and frame_id != self.target_id:
                session, params = self._frame_route(frame_id, method, params)
            return await send_raw(
                session,
                method,
                params,
                budget,
                guard=self._browser.supervisor.guard,
                paths=self._browser.paths,
                tab=self,
            )

    def _frame_route(
        self, frame_id: str, method: str, params: dict[str, Any]
    ) -> tuple[CDPSession, dict[str, Any]]:
        registry = self.frames
        frame = registry.get(frame_id)
        if frame is None:
            known = ", ".join(f.frame_id for f in registry.frames())
            raise InvalidArgument(
                f"tab {self.id} has no frame {frame_id!r}",
                hint=f"use a frame_id from the frame tree: {known}",
            )
        session = registry.session_for(frame_id)
        if frame.is_oopif:
            return session, params
        if method in ("Runtime.evaluate",) and "contextId" not in params:
            context = registry.context_of(frame_id)
            if context is None:
                raise InvalidArgument(
                    f"frame {frame_id} has no JavaScript context yet", hint="retry once it loaded"
                )
            params["contextId"] = context
            return session, params
        if method.startswith(("Page.", "DOM.", "Runtime.")) and "frameId" not in params:
            raise InvalidArgument(
                f"{method} cannot be aimed at a same-origin iframe by frame_id",
                hint="it runs in the tab's session: pass the frame's ids in params, or use "
                "Runtime.evaluate, which runs in the frame's context",
            )
        return session, params

    # ---- internal: called by BrowserSession -----------------------------------------

    def _update_info(self, info: dict[str, Any]) -> None:
        self._url = info.get("url", self._url)
        self._title = info.get("title", self._title)
        if info.get("openerId"):
            self._opener_target = info["openerId"]
        if self._url not in ("", "about:blank"):
            self.navigated = True

    def _bind(self, session: CDPSession, waiting_for_debugger: bool) -> asyncio.Task[None]:
        """Attach this tab to its CDP session and enable what navigation needs."""
        self._session = session
        self._detached = False
        if self._frames is not None:
            self._frames.close()
        self._frames = FrameTracker(
            session, self.target_id, lambda: self._browser.setup_commands(top_level=False)
        )
        self._document_url = ""  # target info until this session sees a commit
        session.subscribe("Page.lifecycleEvent", self._on_lifecycle)
        session.subscribe("Page.frameNavigated", self._on_frame_navigated)
        session.subscribe("Page.navigatedWithinDocument", self._on_same_document)
        session.subscribe("Inspector.targetCrashed", self._on_crashed)
        session.subscribe("Inspector.targetReloadedAfterCrash", self._on_recovered)
        return asyncio.get_running_loop().create_task(
            self._setup(session, waiting_for_debugger), name=f"tab-setup {self.id}"
        )

    def _unbind(self) -> None:
        """The tab's CDP session detached; the next call attaches a new one."""
        self._session = None
        self._detached = True
        if self._frames is not None:
            self._frames.close()
            self._frames = None
        if self._ready.done():
            self._ready = asyncio.get_running_loop().create_future()

    def _mark_closed(self, reason: str) -> None:
        if self._closed_reason is None:
            self._closed_reason = reason
        self._evaluations.forget()
        self._captures.clear()
        self.walker.cancel()
        if self._frames is not None:
            self._frames.close()
        if not self._ready.done():
            self._ready.set_exception(self._closed_error())
            self._ready.exception()  # nobody may be waiting; do not log it

    # ---- private -------------------------------------------------------------------

    async def _setup(self, session: CDPSession, waiting_for_debugger: bool) -> None:
        budget = Budget(10.0)
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
            *self._browser.setup_commands(),
        ]
        if waiting_for_debugger:
            commands.append(("Runtime.runIfWaitingForDebugger", None))
        results = await asyncio.gather(
            *(session.send(method, params, budget=budget) for method, params in commands),
            return_exceptions=True,
        )
        for (method, _), result in zip(commands, results, strict=True):
            if isinstance(result, BaseException):
                logger.warning("setting up tab %s: %s failed: %s", self.id, method, result)
                if method in ("Fetch.enable", "Page.addScriptToEvaluateOnNewDocument"):
                    self._bridge_error = f"{method} failed: {result}"
        if self._frames is not None:
            try:
                await self._frames.seed(budget)
            except TabwardenError as exc:
                logger.warning("reading the frame tree of tab %s failed: %s", self.id, exc)
        self._browser.supervisor.reconcile(self)
        if not self._ready.done():
            self._ready.set_result(None)

    async def _navigate(self, url: str, stage: WaitUntil, budget: Budget) -> NavigationResult:
        guard = self._browser.supervisor.guard
        guard.check_navigation(url, self)  # a URL the policy refuses is never sent
        session = await self._ready_session(budget)
        mark = guard.mark()

        async def trigger() -> str | None:
            reply = await session.send("Page.navigate", {"url": url}, budget=budget)
            error = reply.get("errorText", "")
            if error and error != _HTTP_STATUS_FAILURE:
                raise guard.navigation_failure(self, url, error, mark)  # a redirect hop, say
            if reply.get("isDownload"):
                raise NavigationFailed(
                    f"{url} is a download, not a page",
                    url=url,
                    net_error="download",
                    hint="downloads are saved by the browser; navigate to a page instead",
                )
            self.navigated = True
            loader: str | None = reply.get("loaderId")
            return loader

        return await self._navigation(session, url, stage, budget, trigger)

    async def _navigation(
        self,
        session: CDPSession,
        url: str,
        stage: WaitUntil,
        budget: Budget,
        trigger: Callable[[], Awaitable[str | None]],
    ) -> NavigationResult:
        """Trigger a navigation and follow it to ``stage``; a dialog that opens on the way
        (alert during load, beforeunload) ends it at once and is reported."""
        if not self.pending_dialogs and await is_busy(session):
            # A page stuck in script would hold the navigation (and, once one is pending,
            # every command) hostage: stop the script first; the page is being left anyway.
            # (A dialog also stops the page's script, but the navigation closes it.)
            with contextlib.suppress(DeadlineExceeded):
                await session.send("Runtime.terminateExecution", budget=budget.child(0.5))
                self._browser.metrics.count("terminated_before_navigation")
        guard = self._browser.supervisor.guard
        mark = guard.mark()
        with NavigationWatch(session, self.target_id) as watch:

            async def follow() -> _Outcome:
                try:
                    loader = await trigger()
                except CDPTimeout:
                    raise navigation_timeout(url, stage, (), budget.timeout_s) from None
                return await watch.wait(url=url, wait_until=stage, budget=budget, loader_id=loader)

            finished, outcome = await self._until_dialog(follow())
            if not finished or outcome is None:
                outcome = watch.partial(stage)
            blocked = guard.blocked_navigation(self, mark)
            if blocked is not None and outcome.status is None:
                # A reload or history step led where the policy forbids (no page came
                # back); a page that loaded and then moved on by itself is not that.
                raise guard.denied(blocked)
            # Cut short by a dialog: a new document that committed opened it (an alert
            # while loading: navigated); else the page being left did (a beforeunload).
            navigated = finished or "commit" in outcome.reached or outcome.same_document
            return await self._finish(outcome, budget, navigated=navigated, requested_url=url)

    async def _act(
        self,
        name: str,
        timeout_ms: float | None,
        body: Callable[[Budget], Awaitable[Any]],
        target: str | None = None,
    ) -> Receipt:
        """One input action: budget, dialog check, the tab's input lock, a receipt.

        A dialog the action opens pauses the page, and with it the replies to
        whatever the action was still sending: the action then ends at once and
        its receipt reports the dialog.
        """
        async with self._browser._operation(
            timeout_ms, "action", self, on_dialog="go_on"
        ) as budget:
            await self._ready_session(budget)
            self._check_no_dialog()
            async with self._input_lock:
                await self._browser._bring_to_front(self, budget)
                self._actions += 1
                group = self._object_group = f"tabwarden-action-{self._actions}"
                with ActionWatch(self) as watch:
                    watch.start(budget)
                    try:
                        _, done = await self._until_dialog(body(budget))
                    finally:
                        self._release_objects(group)
                    label, detail = (
                        done if done is not None else (self._describe(target), "a dialog opened")
                    )
                    return await watch.receipt(name, label, detail, budget)

    async def _until_dialog(self, work: Awaitable[T]) -> tuple[bool, T | None]:
        """Run ``work`` unless a dialog that waits for an answer opens first.

        Returns (True, result), or (False, None) when a dialog cut it short: the
        page is paused, so replies to what ``work`` still sent would not come.
        """
        opened: asyncio.Future[Any] = self._next_dialog  # only one that opens from now on
        task: asyncio.Future[Any] = asyncio.ensure_future(work)
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

    def _describe(self, target: str | None) -> str | None:
        """How a receipt names a ref or selector it did not get to resolve."""
        if target is None:
            return None
        ref = parse_ref(target)
        entry = self.refs.get(ref) if ref else None
        return entry.describe() if entry else target

    def _dialog_opened_now(self, dialog: PendingDialog) -> None:
        """Called by the supervisor: wake whatever waits on this tab's page — calls that
        report a dialog stop their work, the others end with ``DialogBlocking``."""
        opened, self._next_dialog = self._next_dialog, asyncio.get_running_loop().create_future()
        opened.set_result(None)
        self._calls.dialog_opened(lambda: self._blocked_by(dialog, opened_now=True))

    def _halted(self) -> bool:
        """The page cannot run script now: its renderer crashed, or a dialog waits."""
        return self._crashed or bool(self.pending_dialogs)

    def _check_no_dialog(self) -> None:
        pending = self.pending_dialogs
        if pending:
            raise self._blocked_by(pending[0])

    def _blocked_by(self, dialog: PendingDialog, *, opened_now: bool = False) -> DialogBlocking:
        when = " (it opened while this call was running)" if opened_now else ""
        return DialogBlocking(
            f"tab {self.id} is blocked by dialog {dialog.describe()}{when}",
            dialog_type=dialog.type,
            hint=f"answer it first: {dialog.answer_call()}",
        )

    def _release_objects(self, group: str) -> None:
        """Free the remote objects an action made (fire and forget, bounded)."""
        if self._frames is None:
            return
        for session in self._frames.registry.sessions():
            task = asyncio.get_running_loop().create_task(
                _release_group(session, group), name=f"release {group}"
            )
            self._browser._spawn(task)

    async def _scroll(
        self, ref: str | None, direction: str | None, amount: float | None, budget: Budget
    ) -> tuple[str | None, str]:
        if ref is None:
            session = self.frames.main_session
            reply = await session.send(
                "Runtime.evaluate", {"expression": "document"}, budget=budget
            )
            object_id, label = reply["result"]["objectId"], None
            metrics = await session.send("Page.getLayoutMetrics", budget=budget)
            viewport = metrics["cssLayoutViewport"]
            point = pointer.Point(viewport["clientWidth"] / 2, viewport["clientHeight"] / 2)
            size = (viewport["clientWidth"], viewport["clientHeight"])
        else:
            element = await resolve(self, ref, budget)
            session, object_id, label = element.session, element.object_id, element.label
            # Into view only: what lies over it does not matter; a wheel goes to the top.
            point = await pointer.actionable_point(
                self, element, budget, need_enabled=False, need_topmost=direction is not None
            )
            if direction is None:
                return label, "scrolled into view"
            size = (400.0, 400.0)
        if direction is None:
            raise InvalidArgument("direction=None needs a ref to scroll into view")
        before = await forms.scroll_position(session, object_id, budget)
        step = (
            amount
            if amount is not None
            else 0.8 * (size[1] if direction in ("up", "down") else size[0])
        )
        dx, dy = {"up": (0, -step), "down": (0, step), "left": (-step, 0), "right": (step, 0)}[
            direction
        ]
        await pointer.wheel(self, point, dx, dy, budget)
        position = before
        wait = budget.child(1.0)
        while position == before and not wait.expired:  # wheel scrolling lands a frame later
            await wait.sleep(0.02)
            position = await forms.scroll_position(session, object_id, budget)
        moved = "" if position != before else " (it did not move: already at the end?)"
        return label, f"scrolled {direction} to x={position['x']:.0f}, y={position['y']:.0f}{moved}"

    async def _snapshot(
        self,
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
        await self._ready_session(budget)
        tracker = self._frames
        assert tracker is not None
        header = [self._header_line()]
        if self.pending_dialogs:
            # The page's script is paused: no tree can be read until the dialog is answered.
            said, state = self._state_header(summary)
            header += said
            return Capture(
                id=new_capture_id(),
                tab_id=self.id,
                url=clip_url(self.url),
                title=clip_title(self.title),
                full=full,
                scope=scope,
                find=find,
                root=SnapshotNode(role="document", frame=self.target_id),
                header=header,
                lines=[],
                selected=[],
                state=state,
            )
        await tracker.settled(budget)
        frames = frozenset(f.frame_id for f in tracker.registry.frames())
        document = tracker.registry.loader_of(self.target_id) or ""
        walks, _ = await asyncio.gather(
            self.walker.walk(tracker.registry, budget, all_nodes=full or scope is not None),
            self._refresh_info(budget),
        )
        top = walks.get(self.target_id)
        if top is not None:
            self._title = top.title  # read by the page just now; the browser's copy can lag
        with gc_paused():  # many small objects, no cycles: collections only cost time
            root = build_tree(walks, self.target_id, self.refs)
        header[0] = self._header_line()
        said, state = self._state_header(summary)
        header += said
        view = root
        if scope is not None:
            view = self._scope_node(root, scope)
            header.append(f"# scope {view.ref}")
        left_out = None
        if scope is None and not full:
            left_out = LeftOut()
            for walk in walks.values():
                left_out = left_out.plus(walk.left_out or LeftOut())
        lines = render_lines(view, full=full, page_url=self.url, left_out=left_out)
        if not full and scope is None:
            self._last_view = lines
        header, selected = select_lines(header, lines, find)
        return Capture(
            id=new_capture_id(),
            tab_id=self.id,
            url=clip_url(self.url),
            title=clip_title(self.title),
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

    def _state_header(self, summary: bool) -> tuple[list[str], SupervisorState]:
        """The header's lines after the first: dialogs, then (``summary``) what went wrong
        since the last such snapshot."""
        state = self._browser.supervisor.state(self)
        lines = _state_lines(state, self._dialogs_seen)
        self._dialogs_seen = {d.dialog.id for d in state.recent_dialogs}
        return lines + (self._diagnostics_line() if summary else []), state

    def _header_line(self) -> str:
        title = json.dumps(clip_title(self.title), ensure_ascii=False)
        return f"# tab {self.id} · {title} · {clip_url(self.url)}"

    def _scope_node(self, root: SnapshotNode, scope: str) -> SnapshotNode:
        ref = parse_ref(scope)
        if ref is None:
            raise InvalidArgument(
                f"scope={scope!r} is not a ref", hint="pass a ref from a snapshot, such as e7"
            )
        for node in root.walk():
            if node.ref == ref:
                return node
        entry = self.refs.get(ref)
        if entry is None:
            raise UnknownRef(f"no ref {ref} in tab {self.id}", ref=ref)
        raise StaleRefError(f"{entry.describe()} is no longer on the page", ref=ref)

    async def _refresh_info(self, budget: Budget) -> None:
        """URL and title from the browser's target info (never waits on the page)."""
        try:
            reply = await self._browser._browser_cdp().send(
                "Target.getTargetInfo", {"targetId": self.target_id}, budget=budget.child(2.0)
            )
            self._update_info(reply.get("targetInfo", {}))
        except (CDPError, DeadlineExceeded) as exc:
            # Best effort: the caller's own commands report a page that does not answer.
            logger.debug("reading the target info of tab %s failed: %s", self.id, exc)

    async def _ready_session(self, budget: Budget) -> CDPSession:
        if self._closed_reason is not None:
            raise self._closed_error()
        if self._detached:
            # Our session detached but the page lives on: attach again; the
            # attachedToTarget event binds and sets up the new session.
            self._detached = False
            await self._browser._browser_cdp().attach(self.target_id, budget=budget)
        await budget.run(asyncio.shield(self._ready), what=f"waiting for tab {self.id}")
        await self._screenshots.settled(budget)  # a given-up screenshot still holds the viewport
        assert self._session is not None
        return self._session

    def _closed_error(self) -> TabClosed:
        return TabClosed(f"tab {self.id} is closed: {self._closed_reason}")

    async def _finish(
        self, outcome: _Outcome, budget: Budget, *, navigated: bool, requested_url: str
    ) -> NavigationResult:
        await self._refresh_info(budget)
        return NavigationResult(
            tab_id=self.id,
            url=clip_url(self.url or outcome.url),
            title=clip_title(self.title),
            status=outcome.status,
            status_text=outcome.status_text,
            wait_until=outcome.wait_until,
            reached=outcome.reached,
            elapsed_ms=outcome.elapsed_ms,
            same_document=outcome.same_document,
            dialog=self.pending_dialog,
            navigated=navigated,
            requested_url=clip_url(requested_url),
        )

    async def _go_history(
        self, step: int, wait_until: str, timeout_ms: float | None
    ) -> NavigationResult:
        stage = check_wait_until(wait_until)
        async with self._browser._operation(
            timeout_ms, "navigation", self, on_dialog="go_on"
        ) as budget:
            session = await self._ready_session(budget)
            history = await session.send("Page.getNavigationHistory", budget=budget)
            index = history["currentIndex"] + step
            entries = history["entries"]
            if not 0 <= index < len(entries):
                direction = "back" if step < 0 else "forward"
                raise NoHistoryEntry(f"tab {self.id} cannot go {direction}: no page there")
            entry = entries[index]

            async def trigger() -> str | None:
                await session.send(
                    "Page.navigateToHistoryEntry", {"entryId": entry["id"]}, budget=budget
                )
                return None

            return await self._navigation(session, entry.get("url", ""), stage, budget, trigger)

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

    def crashed_error(self, doing: str = "") -> TabCrashed:
        while_ = f" while {doing} was running" if doing else ""
        return TabCrashed(f"the page of tab {self.id} ({self.url}) crashed{while_}")

    def _on_lifecycle(self, event: Event) -> None:
        self._crashed = False  # a document is loading: the renderer is alive again
        if event.params.get("frameId") != self.target_id:
            return
        loader = event.params.get("loaderId", "")
        if loader not in self._lifecycle:
            self._lifecycle = {loader: set()}  # only the current document matters
        self._lifecycle[loader].add(event.params.get("name", ""))

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

    def _network_idle(self) -> bool:
        loader = self.frames.loader_of(self.target_id) or ""
        return "networkIdle" in self._lifecycle.get(loader, set())


def _real_title(title: str, *urls: str) -> str:
    """The page's own title; Chromium shows the URL (without scheme) for a page with none
    (the shown document's, or a pending navigation's)."""
    if any(title in (url, url.split("://", 1)[-1]) for url in urls):
        return ""
    return title


def _as_list(values: list[str] | str) -> list[str]:
    return [values] if isinstance(values, str) else list(values)


def _clip(value: str, limit: int = 80) -> str:
    return json.dumps(
        value if len(value) <= limit else value[: limit - 1] + "…", ensure_ascii=False
    )


async def _release_group(session: CDPSession, group: str) -> None:
    with contextlib.suppress(TabwardenError):
        await session.send("Runtime.releaseObjectGroup", {"objectGroup": group}, budget=Budget(2.0))


def _dialog_action(action: str) -> bool:
    if action not in ("accept", "dismiss"):
        raise InvalidArgument(
            f"action={action!r} is not a dialog answer", hint="use 'accept' or 'dismiss'"
        )
    return action == "accept"


def _dialog_lines(pending: Sequence[PendingDialog]) -> list[str]:
    return [f"# dialog open: {d.describe()} — answer it with {d.answer_call()}" for d in pending]


def _state_lines(state: SupervisorState, seen: set[str]) -> list[str]:
    """Header lines: pending dialogs, dialogs closed since the last snapshot, frames."""
    lines = _dialog_lines(state.pending_dialogs)
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
        iframes = f"{len(children)} iframe" + ("" if len(children) == 1 else "s")
        lines.append(f"# frames: {iframes}, {oopifs} cross-origin{more}")
    return lines
