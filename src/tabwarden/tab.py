"""Tab: one page of a browser session, and every call an agent makes on it.

The public methods are the API; the work is done below them: navigations by
``actions.navigate.Navigator``, input actions by ``actions.runner.ActionRunner``,
snapshots by ``snapshot.reading.SnapshotReader``, frames by ``frames.FrameTracker``.
``Tab`` implements the ``Page`` protocol (page.py) those parts take.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from .actions import batch, forms, pointer, scrolling, upload, waiting
from .actions.evaluate import EvaluateResult, EvaluationSessions, is_busy
from .actions.evaluate import evaluate as run_evaluate
from .actions.navigate import Navigator
from .actions.receipt import Receipt
from .actions.resolve import resolve
from .actions.runner import ActionRunner
from .actions.text_changes import TextWatch
from .budget import Budget
from .cdp.protocol import Event
from .cdp.session import CDPSession
from .clipping import clip_title, clip_url
from .content import ImageList, PageContent, page_content, page_images
from .diagnostics import storage
from .diagnostics.console import ConsoleReport
from .diagnostics.emulation import commands as emulation_commands
from .diagnostics.network import NetworkReport, RequestFilter
from .diagnostics.pdf import PdfFile, print_options, save_pdf
from .diagnostics.recording import RecordingFile, RecordingStarted
from .diagnostics.storage import StorageResult
from .errors import (
    DialogBlocking,
    EvaluateDisabled,
    InvalidArgument,
    TabClosed,
    TabCrashed,
    TabwardenError,
)
from .frames import AUTO_ATTACH_IFRAMES, FrameRegistry, FrameTracker
from .interrupts import OnDialog, PageCalls
from .navigation import NavigationResult, WaitUntil, check_wait_until, normalize_url
from .page import PageView, engine_side
from .relaunch import Relaunch
from .safety.raw_cdp import route_to_frame, send_raw
from .safety.reserved import check_raw_method
from .screenshot import Captures, Screenshot, save_screenshot
from .screenshot import capture as capture_screenshot
from .services import SessionServices
from .snapshot import DEFAULT_MAX_CHARS, RefTable, Snapshot
from .snapshot.captures import Cursor
from .snapshot.reading import SnapshotReader, dialog_lines
from .snapshot.render import check_max_chars
from .snapshot.walker import Walker
from .supervisor.bridge import bridge_commands
from .supervisor.dialogs import ClosedDialog, PendingDialog
from .supervisor.state import SupervisorState
from .supervisor.supervisor import Supervisor

if TYPE_CHECKING:
    from .diagnostics.recording import RecordingFormat

__all__ = ["Tab", "TabHost", "TabInfo", "dialog_action"]

T = TypeVar("T")

logger = logging.getLogger("tabwarden.tab")

_SETUP_S = 10.0


@dataclass(frozen=True, slots=True)
class TabInfo:
    """What a tab list shows; read from target info, never from the page's JS thread."""

    id: str
    url: str
    title: str
    active: bool
    opener: str | None
    dialog: PendingDialog | None


class TabHost(Protocol):
    """What a tab asks of the session that holds it (``BrowserSession`` is one)."""

    def take_relaunch_notice(self) -> Relaunch | None: ...

    async def switch_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> Tab: ...

    async def close_tab(
        self, tab_id: str | None = None, *, timeout_ms: float | None = None
    ) -> None: ...

    async def save_storage_state(
        self, file: str | None = None, *, timeout_ms: float | None = None
    ) -> StorageResult: ...

    async def load_storage_state(
        self, file: str, *, timeout_ms: float | None = None
    ) -> StorageResult: ...

    async def record_stop(
        self,
        tab_id: str | None = None,
        path: str | None = None,
        *,
        format: RecordingFormat = "auto",
        timeout_ms: float | None = None,
    ) -> RecordingFile: ...


class Tab:
    """A page in a browser session. Create tabs with ``BrowserSession.new_tab``."""

    def __init__(
        self,
        host: TabHost,
        services: SessionServices,
        supervisor: Supervisor,
        tab_id: str,
        target_id: str,
    ) -> None:
        self._host = host
        self._services = services
        self._supervisor = supervisor
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
        self._screenshots = Captures(services.tasks, lambda: services.emulation)
        """Screenshots, one at a time (a capture the call gave up on still runs)."""
        self._evaluations = EvaluationSessions(
            services.browser_cdp, services.tasks.spawn, services.metrics
        )
        self._calls = PageCalls()
        """The calls running on this tab, ended at once by a crash or a dialog."""
        self._runner = ActionRunner(self, services, supervisor)
        self._navigator = Navigator(self, supervisor, services.metrics)
        self._reader = SnapshotReader(self, self._state_header)

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
    @engine_side
    def crashed(self) -> bool:
        """The page's renderer crashed; only a load brings a new one."""
        return self._crashed

    @property
    def opener(self) -> Tab | None:
        """The tab whose page opened this one (``window.open``, ``target=_blank``)."""
        if self._opener_target is None:
            return None
        opener = self._services.pages.by_target(self._opener_target)
        return opener if isinstance(opener, Tab) else None

    @property
    def frames(self) -> FrameRegistry:
        """The tab's frames and the sessions that render them (OOPIFs have their own)."""
        return self._tracker().registry

    @property
    @engine_side
    def attached_frames(self) -> FrameRegistry | None:
        """The frames, or None while the tab has no session (never raises)."""
        return self._frames.registry if self._frames is not None else None

    @property
    @engine_side
    def session(self) -> CDPSession | None:
        """The tab's own CDP session now (None while detached)."""
        return self._session

    @property
    @engine_side
    def object_group(self) -> str:
        """The remote-object group of the running action."""
        return self._runner.object_group

    @property
    @engine_side
    def calls(self) -> PageCalls:
        return self._calls

    @property
    @engine_side
    def setup_error(self) -> str:
        """What failed while the tab's session was set up ("" when nothing did)."""
        return self._setup_error

    @property
    @engine_side
    def walker(self) -> Walker:
        """Runs this tab's snapshots in its frames; keeps what they reuse."""
        return self._reader.walker

    @property
    @engine_side
    def text_watch(self) -> TextWatch:
        """Watches the text an action makes appear or go away."""
        return self._runner.text_watch

    @property
    @engine_side
    def last_view(self) -> Sequence[str]:
        return self._reader.last_view

    @property
    def pending_dialogs(self) -> list[PendingDialog]:
        """Dialogs open in this tab (its frames included) that wait for an answer."""
        return self._supervisor.pending(self)

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
            active=self._services.pages.active() is self,
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
        async with self._call(timeout_ms, "navigation", on_dialog="go_on") as budget:
            return await self._navigator.load(target_url, stage, budget)

    @engine_side
    async def load(self, url: str, stage: WaitUntil, budget: Budget) -> NavigationResult:
        """Load ``url`` (normalised) within a budget the caller's call already holds (a
        new tab opened for it)."""
        return await self._navigator.load(url, stage, budget)

    async def reload(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        stage = check_wait_until(wait_until)
        async with self._call(timeout_ms, "navigation", on_dialog="go_on") as budget:
            return await self._navigator.reload(stage, budget)

    async def _go_history(
        self, step: int, wait_until: str, timeout_ms: float | None
    ) -> NavigationResult:
        stage = check_wait_until(wait_until)
        async with self._call(timeout_ms, "navigation", on_dialog="go_on") as budget:
            return await self._navigator.go_history(step, stage, budget)

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
        async with self._call(timeout_ms, "action", on_dialog="go_on") as budget:
            tracker = self._tracker()
            if start.capture is not None:
                later = await self._reader.later_page(
                    tracker, budget, start, full=full, scope=scope, find=find, max_chars=max_chars
                )
                return later
            read = functools.partial(
                self._reader.read, tracker, budget, full=full, scope=scope, find=find, summary=True
            )
            _, capture = await self.until_dialog(read())
            if capture is None:
                # A dialog opened during the read: the page is paused, and the snapshot says
                # so the way it does for a dialog that was already open.
                capture = await read()
            snapshot = capture.page(max_chars=max_chars)
            if snapshot.page.next_cursor is not None:
                self._reader.captures.keep(capture)
            return snapshot

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
        accept = dialog_action(action)
        async with self._call(timeout_ms, "action", on_dialog="go_on") as budget:
            return await self._supervisor.answer(
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
        scrolling.check_direction(direction)

        async def body(budget: Budget) -> tuple[str | None, str]:
            return await scrolling.scroll(self, ref, direction, amount, budget)

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
                self, ref, _as_list(paths), budget, self._services.paths
            )

        return await self._act("upload_file", timeout_ms, body, ref)

    async def get_text(
        self, ref: str | None = None, *, max_chars: int = 20_000, timeout_ms: float | None = None
    ) -> str:
        """The visible text of an element, or of the whole page (bounded by ``max_chars``)."""
        async with self._call(timeout_ms, "action") as budget:
            await self.ready_session(budget)
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
        async with self._call(timeout_ms, "wait") as budget:
            await self.ready_session(budget)
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
        batch.check_steps(steps)
        return await batch.run_batch(self, steps, self._services.budget(timeout_ms, "action"))

    async def get_content(
        self,
        *,
        format: Literal["markdown", "text"] = "markdown",
        max_chars: int = 20_000,
        cursor: int = 0,
        timeout_ms: float | None = None,
    ) -> PageContent:
        """The page as Markdown (or plain text), paged; untrusted page data."""
        async with self._call(timeout_ms, "action") as budget:
            session = await self.ready_session(budget)
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
        async with self._call(timeout_ms, "action") as budget:
            session = await self.ready_session(budget)
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
        if not self._services.config.browser.evaluate_enabled:
            raise EvaluateDisabled("evaluating JavaScript is turned off for this session")
        async with self._call(timeout_ms, "evaluate") as budget:
            await self.ready_session(budget)
            return await run_evaluate(
                self,
                self._evaluations,
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
        async with self._call(timeout_ms, "action", on_dialog="go_on") as budget:
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
        async with self._call(timeout_ms, "action") as budget:
            await self.ready_session(budget)
            group = self._runner.new_group()
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
                self._runner.release(group)
            if save or path is not None:
                shot = save_screenshot(shot, self._services.paths, path)
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
        async with self._call(timeout_ms, "action", on_dialog="go_on"):
            return self._supervisor.console.read(
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
        log = self._supervisor.network
        if request_id is not None:
            async with self._call(timeout_ms, "action", on_dialog="go_on") as budget:
                return await log.details(self, request_id, budget)
        request_filter = RequestFilter.parse(url, type, status)
        async with self._call(timeout_ms, "action", on_dialog="go_on"):
            return log.list(self, request_filter, max_entries=max_entries, clear=clear)

    # ---- storage and emulation (diagnostics/storage.py, emulation.py) -----------------

    async def storage(
        self,
        action: str = "get",
        kind: str = "cookies",
        cookie: storage.CookieSpec | None = None,
        *,
        all: bool = False,
        file: str | None = None,
        timeout_ms: float | None = None,
        **cookie_fields: Any,
    ) -> StorageResult:
        """Read or change this page's cookies, localStorage or sessionStorage.

        ``action`` get, set, delete or clear; ``kind`` cookies, local or session.
        Cookies default to those of the page's URL (``all=True``: every cookie of the
        browser). The cookie is a :class:`~tabwarden.diagnostics.storage.CookieSpec`
        (``cookie``) or its fields as keyword arguments (they win over the model's):
        ``name`` and ``value`` (a storage entry's key and value too), and for cookies
        ``domain``/``url``, ``path``, ``expires`` (Unix seconds), ``http_only``,
        ``secure`` and ``same_site``. ``save_state`` and ``load_state`` write or read a
        storage state ``file`` for the whole session (see
        ``BrowserSession.save_storage_state``).
        """
        storage.check_request(action, kind)
        cookie = storage.cookie_spec(cookie, cookie_fields)
        if action == "save_state":
            return await self._host.save_storage_state(file, timeout_ms=timeout_ms)
        if action == "load_state":
            return await self._host.load_storage_state(file or "", timeout_ms=timeout_ms)
        async with self._call(timeout_ms, "action", on_dialog="end") as budget:
            browser = self._services.browser_cdp()
            return await storage.run(
                self, browser, budget, action=action, kind=kind, cookie=cookie, all=all
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
        async with self._call(timeout_ms, "action") as budget:
            session = await self.ready_session(budget)
            return await save_pdf(session, self._services.paths, path, params, budget)

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
        async with self._call(timeout_ms, "action") as budget:
            session = await self.ready_session(budget)
            # A background tab paints nothing, so it would send no frames.
            await self._services.bring_to_front(self, budget)
            return await self._services.recordings.start(
                self.id,
                session,
                budget,
                quality=quality,
                max_width=max_width,
                max_height=max_height,
                every_nth_frame=every_nth_frame,
            )

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
        return await self._host.record_stop(self.id, path, format=format, timeout_ms=timeout_ms)

    # ---- tab control ---------------------------------------------------------------

    async def activate(self, *, timeout_ms: float | None = None) -> Tab:
        """Make this the session's active tab and bring it to the front."""
        return await self._host.switch_tab(self.id, timeout_ms=timeout_ms)

    async def close(self, *, timeout_ms: float | None = None) -> None:
        await self._host.close_tab(self.id, timeout_ms=timeout_ms)

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
        async with self._call(timeout_ms, "action", on_dialog="go_on") as budget:
            session = await self.ready_session(budget)
            params = dict(params or {})
            if frame_id is not None and frame_id != self.target_id:
                session, params = route_to_frame(self.frames, self.id, frame_id, method, params)
            return await send_raw(
                session,
                method,
                params,
                budget,
                guard=self._supervisor.guard,
                paths=self._services.paths,
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

    # ---- the Page protocol: what actions, supervisor and logs use -------------------

    @engine_side
    async def ready_session(self, budget: Budget) -> CDPSession:
        """The tab's session once it is set up (attached again if it detached)."""
        if self._closed_reason is not None:
            raise self.closed_error()
        if self._detached:
            # Our session detached but the page lives on: attach again; the
            # attachedToTarget event binds and sets up the new session.
            self._detached = False
            await self._services.browser_cdp().attach(self.target_id, budget=budget)
        await budget.run(asyncio.shield(self._ready), what=f"waiting for tab {self.id}")
        await self._screenshots.settled(budget)  # a given-up screenshot still holds the viewport
        assert self._session is not None
        return self._session

    @engine_side
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

    @engine_side
    async def read_view(self, budget: Budget) -> PageView:
        """Read the interactive view now (a receipt's diff, a screenshot's marks)."""
        await self.ready_session(budget)
        capture = await self._reader.read(self._tracker(), budget)
        return PageView(capture.root, capture.lines)

    @engine_side
    async def refresh_info(self, budget: Budget) -> None:
        """URL and title from the browser's target info (never waits on the page)."""
        try:
            reply = await self._services.browser_cdp().send(
                "Target.getTargetInfo", {"targetId": self.target_id}, budget=budget.child(2.0)
            )
            self.update_info(reply.get("targetInfo", {}))
        except TabwardenError as exc:
            # Best effort: the caller's own commands report a page that does not answer.
            logger.debug("reading the target info of tab %s failed: %s", self.id, exc)

    @engine_side
    def saw_title(self, title: str) -> None:
        """The page's own title, read just now (the browser's copy can lag)."""
        self._title = title

    @engine_side
    def network_idle(self) -> bool:
        loader = self.frames.loader_of(self.target_id) or ""
        return "networkIdle" in self._lifecycle.get(loader, set())

    @engine_side
    def halted(self) -> bool:
        """The page cannot run script now: its renderer crashed, or a dialog waits."""
        return self._crashed or bool(self.pending_dialogs)

    @engine_side
    def check_no_dialog(self) -> None:
        pending = self.pending_dialogs
        if pending:
            raise self.blocked_by(pending[0])

    @engine_side
    def blocked_by(self, dialog: PendingDialog, *, opened_now: bool = False) -> DialogBlocking:
        when = " (it opened while this call was running)" if opened_now else ""
        return DialogBlocking(
            f"tab {self.id} is blocked by dialog {dialog.describe()}{when}",
            dialog_type=dialog.type,
            hint=f"answer it first: {dialog.answer_call()}",
        )

    @engine_side
    def dialog_opened(self, dialog: PendingDialog) -> None:
        """Called by the supervisor: wake whatever waits on this tab's page — calls that
        report a dialog stop their work, the others end with ``DialogBlocking``."""
        opened, self._next_dialog = self._next_dialog, asyncio.get_running_loop().create_future()
        opened.set_result(None)
        self._calls.dialog_opened(lambda: self.blocked_by(dialog, opened_now=True))

    @engine_side
    def closed_error(self) -> TabClosed:
        return TabClosed(f"tab {self.id} is closed: {self._closed_reason}")

    def crashed_error(self, doing: str = "") -> TabCrashed:
        while_ = f" while {doing} was running" if doing else ""
        return TabCrashed(f"the page of tab {self.id} ({self.url}) crashed{while_}")

    # ---- life: called by the session's tab registry ---------------------------------

    @property
    @engine_side
    def created_here(self) -> bool:
        """This session opened the tab (on an attached browser, it closes only those)."""
        return self._created_here

    @engine_side
    def mark_created_here(self) -> None:
        self._created_here = True

    @engine_side
    def update_info(self, info: dict[str, Any]) -> None:
        """The browser's target info changed (URL, title, opener)."""
        self._url = info.get("url", self._url)
        self._title = info.get("title", self._title)
        if info.get("openerId"):
            self._opener_target = info["openerId"]
        if self._url not in ("", "about:blank"):
            self.navigated = True

    @engine_side
    def bind(self, session: CDPSession, waiting_for_debugger: bool) -> Coroutine[Any, Any, None]:
        """Attach this tab to its CDP session and set it up (returns the set-up)."""
        self._session = session
        self._detached = False
        if self._frames is not None:
            self._frames.close()
        self._frames = FrameTracker(
            session,
            self.target_id,
            lambda: self._setup_commands(top_level=False),
            self._frame_session,
        )
        if session.session_id is not None:
            self._services.pages.session_attached(session.session_id, self, self.target_id)
        self._document_url = ""  # target info until this session sees a commit
        session.subscribe("Page.lifecycleEvent", self._on_lifecycle)
        session.subscribe("Page.frameNavigated", self._on_frame_navigated)
        session.subscribe("Page.navigatedWithinDocument", self._on_same_document)
        session.subscribe("Inspector.targetCrashed", self._on_crashed)
        session.subscribe("Inspector.targetReloadedAfterCrash", self._on_recovered)
        return self._setup(session, waiting_for_debugger)

    @engine_side
    def unbind(self) -> None:
        """The tab's CDP session detached; the next call attaches a new one."""
        if self._session is not None and self._session.session_id is not None:
            self._services.pages.session_detached(self._session.session_id)
        self._session = None
        self._detached = True
        if self._frames is not None:
            self._frames.close()
            self._frames = None
        if self._ready.done():
            self._ready = asyncio.get_running_loop().create_future()

    @engine_side
    def mark_closed(self, reason: str) -> None:
        """The tab went away (closed, or its browser did): every later call says why."""
        if self._closed_reason is None:
            self._closed_reason = reason
        if self._session is not None and self._session.session_id is not None:
            self._services.pages.session_detached(self._session.session_id)
        self._evaluations.forget()
        self._reader.captures.clear()
        self._reader.walker.cancel()
        if self._frames is not None:
            self._frames.close()
        if not self._ready.done():
            self._ready.set_exception(self.closed_error())
            self._ready.exception()  # nobody may be waiting; do not log it

    # ---- private -------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _call(
        self, timeout_ms: float | None, kind: str, *, on_dialog: OnDialog = "fail"
    ) -> AsyncIterator[Budget]:
        """Opens every public call on this tab: the session's operation (a budget, a live
        browser; the tab's closed, crashed and dialog checks), then the tab's session."""
        async with self._services.operation(timeout_ms, kind, self, on_dialog=on_dialog) as budget:
            await self.ready_session(budget)
            yield budget

    async def _act(
        self,
        name: str,
        timeout_ms: float | None,
        body: Callable[[Budget], Awaitable[Any]],
        target: str | None = None,
    ) -> Receipt:
        """One input action with its receipt (actions/runner.py)."""
        async with self._call(timeout_ms, "action", on_dialog="go_on") as budget:
            return await self._runner.act(name, body, target, budget)

    def _tracker(self) -> FrameTracker:
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
            *self._setup_commands(top_level=True),
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
                    self._setup_error = f"{method} failed: {result}"
        if self._frames is not None:
            try:
                await self._frames.seed(budget)
            except TabwardenError as exc:
                logger.warning("reading the frame tree of tab %s failed: %s", self.id, exc)
        self._supervisor.reconcile(self)
        if not self._ready.done():
            self._ready.set_result(None)

    def _frame_session(self, session_id: str, frame_id: str | None) -> None:
        if frame_id is None:
            self._services.pages.session_detached(session_id)
        else:
            self._services.pages.session_attached(session_id, self, frame_id)

    def _setup_commands(self, *, top_level: bool) -> list[tuple[str, dict[str, Any]]]:
        """Commands every page (``top_level``) and frame session runs while it is set up
        (paused)."""
        commands: list[tuple[str, dict[str, Any]]] = []
        if self._supervisor.bridge:
            commands += bridge_commands()
        # What a new page or frame session needs before it runs, topic by topic:
        # diagnostics: browser-side notices (CSP violations, failed loads) for the console log
        commands.append(("Log.enable", {}))
        # safety: URL policy (with the dialog bridge's pattern): one Fetch.enable per session
        commands += self._supervisor.fetch_commands()
        # storage and emulation: what the session emulates (nothing when at the defaults)
        services = self._services
        commands += emulation_commands(
            services.emulation, services.user_agent, top_level=top_level, full=False
        )
        return commands

    def _state_header(self, summary: bool) -> tuple[list[str], SupervisorState]:
        """The snapshot header's lines after the first: dialogs, then (``summary``) what
        went wrong since the last such snapshot."""
        state = self._supervisor.state(self)
        lines = _state_lines(state, self._dialogs_seen)
        self._dialogs_seen = {d.dialog.id for d in state.recent_dialogs}
        return lines + (self._diagnostics_lines() if summary else []), state

    def _diagnostics_lines(self) -> list[str]:
        """What went wrong since the last snapshot: a relaunch of the browser (told
        once), console and network errors."""
        relaunch = self._host.take_relaunch_notice()
        lines = [f"# {relaunch.describe()}"] if relaunch is not None else []
        line = self._supervisor.diagnostics_summary(self)
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


async def _awaited(work: Awaitable[T]) -> T:
    return await work


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


def dialog_action(action: str) -> bool:
    """``accept`` → True, ``dismiss`` → False; anything else is refused."""
    if action not in ("accept", "dismiss"):
        raise InvalidArgument(
            f"action={action!r} is not a dialog answer", hint="use 'accept' or 'dismiss'"
        )
    return action == "accept"


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
        iframes = f"{len(children)} iframe" + ("" if len(children) == 1 else "s")
        lines.append(f"# frames: {iframes}, {oopifs} cross-origin{more}")
    return lines
