"""Tab: one page of a browser session, and every call an agent makes on it.

The public methods are the API; the work is done below them: navigations by
``actions.navigate.Navigator``, input actions by ``actions.runner.ActionRunner``,
snapshots by ``snapshot.reading.SnapshotReader``, frames by ``frames.FrameTracker``.
``Tab`` implements the ``Page`` protocol (page.py) those parts take.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from .actions import batch, forms, pointer, scrolling, upload, waiting
from .actions.evaluate import EvaluateResult, is_busy
from .actions.evaluate import evaluate as run_evaluate
from .actions.receipt import Receipt
from .actions.resolve import resolve
from .budget import Budget
from .cdp_page import CdpPage
from .clipping import clip_quoted, clip_title, clip_url
from .content import ImageList, PageContent, page_content, page_images
from .counting import counted
from .diagnostics import storage
from .diagnostics.console import ConsoleReport
from .diagnostics.network import NetworkReport, RequestFilter
from .diagnostics.pdf import PdfFile, print_options, save_pdf
from .diagnostics.recording import RecordingFile, RecordingStarted
from .diagnostics.storage import StorageResult
from .errors import (
    EvaluateDisabled,
    InvalidArgument,
    TabCrashed,
)
from .frames import FrameRegistry
from .navigation import NavigationResult, check_wait_until
from .page import engine_side
from .person_input import PersonInput
from .relaunch import Relaunch
from .safety.raw_cdp import route_to_frame, send_raw
from .safety.reserved import check_context_raw, check_raw_method
from .screencast import FrameFeed, ScreencastFrame, ScreencastParams
from .screenshot import Screenshot, save_screenshot
from .screenshot import capture as capture_screenshot
from .services import SessionServices
from .snapshot import DEFAULT_MAX_CHARS, RefTable, Snapshot
from .snapshot.captures import Cursor
from .snapshot.render import check_max_chars
from .supervisor.dialogs import ClosedDialog, PendingDialog, dialog_action
from .supervisor.supervisor import Supervisor

if TYPE_CHECKING:
    from .diagnostics.recording import RecordingFormat

__all__ = ["Tab", "TabHost", "TabInfo"]

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

    @property
    def active_tab(self) -> Tab | None: ...

    def tab_of_target(self, target_id: str) -> Tab | None: ...

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
        self._page = CdpPage(services, supervisor, tab_id, target_id, host.take_relaunch_notice)
        self.id = tab_id
        self.target_id = target_id

    def __repr__(self) -> str:
        return repr(self._page).replace("<CdpPage", "<Tab", 1)

    # ---- properties (no awaiting: read from target info) ----------------------------

    @property
    @engine_side
    def page(self) -> CdpPage:
        """The page under this tab: what the actions, the supervisor and the logs use."""
        return self._page

    @property
    def url(self) -> str:
        """The URL of the document the tab shows. Not a pending navigation's target
        (which the browser's target info reports while, say, a ``beforeunload`` dialog
        holds the navigation back)."""
        return self._page.url

    @property
    def title(self) -> str:
        return self._page.title

    @property
    def closed(self) -> bool:
        return self._page.closed

    @property
    def navigated(self) -> bool:
        """True once anything loaded in this tab beyond its first blank page."""
        return self._page.navigated

    @property
    def opener(self) -> Tab | None:
        """The tab whose page opened this one (``window.open``, ``target=_blank``)."""
        target = self._page.opener_target
        return self._host.tab_of_target(target) if target is not None else None

    @property
    def frames(self) -> FrameRegistry:
        """The tab's frames and the sessions that render them (OOPIFs have their own)."""
        return self._page.frames

    @property
    def refs(self) -> RefTable:
        """This tab's refs: one space across all its frames."""
        return self._page.refs

    @property
    def pending_dialogs(self) -> list[PendingDialog]:
        """Dialogs open in this tab (its frames included) that wait for an answer."""
        return self._page.pending_dialogs

    @property
    def pending_dialog(self) -> PendingDialog | None:
        return self._page.pending_dialog

    def info(self) -> TabInfo:
        opener = self.opener
        return TabInfo(
            id=self.id,
            url=clip_url(self.url),
            title=clip_title(self.title),
            active=self._host.active_tab is self,
            opener=opener.id if opener else None,
            dialog=self.pending_dialog,
        )

    def crashed_error(self, doing: str = "") -> TabCrashed:
        return self._page.crashed_error(doing)

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
        return await self._page.navigate(url, wait_until=wait_until, timeout_ms=timeout_ms)

    async def reload(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        stage = check_wait_until(wait_until)
        async with self._page.call(timeout_ms, "navigation", on_dialog="go_on") as budget:
            await self._page.services.activity.until_handed_back(budget)
            return await self._page.navigator.reload(stage, budget)

    async def _go_history(
        self, step: int, wait_until: str, timeout_ms: float | None
    ) -> NavigationResult:
        stage = check_wait_until(wait_until)
        async with self._page.call(timeout_ms, "navigation", on_dialog="go_on") as budget:
            await self._page.services.activity.until_handed_back(budget)
            return await self._page.navigator.go_history(step, stage, budget)

    async def back(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        return await self._go_history(-1, wait_until, timeout_ms)

    async def forward(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        return await self._go_history(+1, wait_until, timeout_ms)

    # ---- the live view (the workbench: surfaces/workbench/source.py) ----------------

    @engine_side
    def load_state(self) -> str:
        """``loading``, ``interactive`` or ``complete``, as the page's events said."""
        return self._page.load_state()

    @engine_side
    async def live_feed(self, params: ScreencastParams, budget: Budget) -> FrameFeed:
        """A latest-wins, adaptive feed of the tab's frames (the screencast runs while a
        feed is open)."""
        return await self._page.screencast.watch(params, budget=budget)

    @engine_side
    async def still_frame(self, budget: Budget) -> ScreencastFrame:
        """What the tab shows now, captured once."""
        return await self._page.screencast.still(budget)

    @engine_side
    async def thumbnail_jpeg(self, budget: Budget, max_width: int) -> bytes:
        """A small JPEG of what the tab shows now."""
        return (await self._page.screencast.thumbnail(budget, max_width=max_width)).data

    @engine_side
    def person_input(self) -> PersonInput:
        """A person's mouse and keyboard into this tab (taking over from the agent)."""
        return PersonInput(self._page)

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
        async with self._page.call(timeout_ms, "action", on_dialog="go_on") as budget:
            tracker = self._page.tracker()
            if start.capture is not None:
                later = await self._page.reader.later_page(
                    tracker, budget, start, full=full, scope=scope, find=find, max_chars=max_chars
                )
                return later
            read = functools.partial(
                self._page.reader.read,
                tracker,
                budget,
                full=full,
                scope=scope,
                find=find,
                summary=True,
            )
            _, capture = await self._page.until_dialog(read())
            if capture is None:
                # A dialog opened during the read: the page is paused, and the snapshot says
                # so the way it does for a dialog that was already open.
                capture = await read()
            snapshot = capture.page(max_chars=max_chars)
            if snapshot.page.next_cursor is not None:
                self._page.reader.captures.keep(capture)
            self._page.services.activity.snapshot_taken(self.id, capture.root)
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
        async with self._page.call(timeout_ms, "action", on_dialog="go_on", ready=False) as budget:
            return await self._page.supervisor.answer(
                accept=accept,
                prompt_text=prompt_text,
                dialog_id=dialog_id,
                tab=self._page,
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
            element, point = await pointer.locate(self._page, ref, budget)
            await pointer.click(
                self._page, point, budget, button=button, click_count=click_count, modifiers=bits
            )
            return element.label, "" if click_count == 1 else f"{click_count} clicks"

        return await self._page.act("click", timeout_ms, body, ref)

    async def hover(self, ref: str, *, timeout_ms: float | None = None) -> Receipt:
        async def body(budget: Budget) -> tuple[str, str]:
            element, point = await pointer.locate(self._page, ref, budget, need_enabled=False)
            await pointer.hover(self._page, point, budget)
            return element.label, ""

        return await self._page.act("hover", timeout_ms, body, ref)

    async def drag(
        self, start_ref: str, end_ref: str, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Drag one element onto another with real mouse events (HTML5 drag-and-drop too)."""

        async def body(budget: Budget) -> tuple[str, str]:
            source, start = await pointer.locate(self._page, start_ref, budget)
            target, end = await pointer.locate(self._page, end_ref, budget, need_enabled=False)
            html5 = await pointer.drag(self._page, start, end, budget)
            return f"{source.label} → {target.label}", "HTML5 drag and drop" if html5 else ""

        return await self._page.act("drag", timeout_ms, body, start_ref)

    async def fill(self, ref: str, value: str, *, timeout_ms: float | None = None) -> Receipt:
        """Clear a text field (input, textarea, contenteditable) and set ``value``."""

        async def body(budget: Budget) -> tuple[str, str]:
            element = await resolve(self._page, ref, budget)
            final, secret = await forms.fill(self._page, element, value, budget)
            if secret:
                return (
                    element.label,
                    f"set to {counted(len(value), 'character')} (a password, not shown)",
                )
            shown = clip_quoted(value)
            note = "" if final == value else f" (the field now holds {clip_quoted(final)})"
            return element.label, f"set to {shown}{note}"

        return await self._page.act("fill", timeout_ms, body, ref)

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
                element = await resolve(self._page, ref, budget)
                await forms.focus(element, budget)
                label = element.label
            await forms.type_text(self._page, text, budget, delay_ms=delay_ms, ref=ref)
            if submit:
                await forms.press(self._page, "Enter", budget)
            return label, f"typed {counted(len(text), 'character')}" + (
                " and pressed Enter" if submit else ""
            )

        return await self._page.act("type", timeout_ms, body, ref)

    async def press(
        self, key: str, *, ref: str | None = None, timeout_ms: float | None = None
    ) -> Receipt:
        """Press a key or chord: ``Enter``, ``Control+A``, ``Shift+Tab``, ``ArrowDown``, ``F5``…"""

        async def body(budget: Budget) -> tuple[str | None, str]:
            label = None
            if ref is not None:
                element = await resolve(self._page, ref, budget)
                await forms.focus(element, budget)
                label = element.label
            await forms.press(self._page, key, budget)
            return label, key

        return await self._page.act("press", timeout_ms, body, ref)

    async def select(
        self, ref: str, values: list[str] | str, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Choose options of a <select> by value or label (several for a multiple select)."""

        async def body(budget: Budget) -> tuple[str, str]:
            element = await resolve(self._page, ref, budget)
            chosen = await forms.select_options(element, _as_list(values), budget)
            return element.label, "selected " + ", ".join(o.describe() for o in chosen)

        return await self._page.act("select", timeout_ms, body, ref)

    async def check(
        self, ref: str, checked: bool = True, *, timeout_ms: float | None = None
    ) -> Receipt:
        """Check (or with ``checked=False`` uncheck) a checkbox, radio or switch by clicking it."""

        async def body(budget: Budget) -> tuple[str, str]:
            element = await resolve(self._page, ref, budget)
            state = await forms.check_state(element, budget)
            if state is checked:
                return element.label, f"already {'checked' if checked else 'unchecked'}"
            point = await pointer.actionable_point(self._page, element, budget)
            await pointer.click(self._page, point, budget)
            if await forms.check_state(element, budget) is not checked:
                raise forms.unchanged(element, checked)
            return element.label, "checked" if checked else "unchecked"

        return await self._page.act("check", timeout_ms, body, ref)

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
            return await scrolling.scroll(self._page, ref, direction, amount, budget)

        return await self._page.act("scroll", timeout_ms, body, ref)

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
                self._page, ref, _as_list(paths), budget, self._page.services.paths
            )

        return await self._page.act("upload_file", timeout_ms, body, ref)

    async def get_text(
        self, ref: str | None = None, *, max_chars: int = 20_000, timeout_ms: float | None = None
    ) -> str:
        """The visible text of an element, or of the whole page (bounded by ``max_chars``)."""
        async with self._page.call(timeout_ms, "action") as budget:
            if ref is None:
                session = self.frames.main_session
                reply = await session.send(
                    "Runtime.evaluate", {"expression": "document"}, budget=budget
                )
                object_id = reply["result"]["objectId"]
            else:
                element = await resolve(self._page, ref, budget)
                session, object_id = element.session, element.object_id
            text, total = await forms.page_text(session, object_id, budget, max_chars)
            if total > len(text):
                text += f"\n[… {counted(total - len(text), 'more character')}]"
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
        async with self._page.call(timeout_ms, "wait") as budget:
            return await waiting.wait_for(
                self._page,
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
        return await batch.run_batch(self, steps, self._page.services.budget(timeout_ms, "action"))

    async def get_content(
        self,
        *,
        format: Literal["markdown", "text"] = "markdown",
        max_chars: int = 20_000,
        cursor: int = 0,
        timeout_ms: float | None = None,
    ) -> PageContent:
        """The page as Markdown (or plain text), paged; untrusted page data."""
        async with self._page.call(timeout_ms, "action") as budget:
            session = await self._page.ready_session(budget)
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
        async with self._page.call(timeout_ms, "action") as budget:
            session = await self._page.ready_session(budget)
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
        if not self._page.services.config.browser.evaluate_enabled:
            raise EvaluateDisabled("evaluating JavaScript is turned off for this session")
        async with self._page.call(timeout_ms, "evaluate") as budget:
            return await run_evaluate(
                self._page,
                self._page.evaluations,
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
        async with self._page.call(timeout_ms, "action", on_dialog="go_on", ready=False) as budget:
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
        async with self._page.call(timeout_ms, "action") as budget:
            group = self._page.runner.new_group()
            try:
                shot = await capture_screenshot(
                    self._page,
                    self._page.screenshots,
                    budget,
                    ref=ref,
                    full_page=full_page,
                    format=format,
                    quality=quality,
                    annotate=annotate,
                )
            finally:
                self._page.runner.release(group)
            if save or path is not None:
                shot = save_screenshot(shot, self._page.services.paths, path)
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
        async with self._page.call(timeout_ms, "action", on_dialog="go_on", ready=False):
            return self._page.supervisor.console.read(
                self._page, level=level, since=since, clear=clear, max_entries=max_entries
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
        log = self._page.supervisor.network
        if request_id is not None:
            async with self._page.call(
                timeout_ms, "action", on_dialog="go_on", ready=False
            ) as budget:
                return await log.details(self._page, request_id, budget)
        request_filter = RequestFilter.parse(url, type, status)
        async with self._page.call(timeout_ms, "action", on_dialog="go_on", ready=False):
            return log.list(self._page, request_filter, max_entries=max_entries, clear=clear)

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
        async with self._page.call(timeout_ms, "action", on_dialog="end") as budget:
            browser = self._page.services.browser_cdp()
            return await storage.run(
                self._page, browser, budget, action=action, kind=kind, cookie=cookie, all=all
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
        async with self._page.call(timeout_ms, "action") as budget:
            session = await self._page.ready_session(budget)
            return await save_pdf(session, self._page.services.paths, path, params, budget)

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
        async with self._page.call(timeout_ms, "action") as budget:
            # A background tab paints nothing, so it would send no frames.
            await self._page.services.bring_to_front(self._page, budget)
            started = await self._page.services.recordings.start(
                self.id,
                self._page.screencast,
                budget,
                quality=quality,
                max_width=max_width,
                max_height=max_height,
                every_nth_frame=every_nth_frame,
            )
        self._page.services.activity.publish("recording", {"state": {"active": True}}, self.id)
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
        async with self._page.call(timeout_ms, "action", on_dialog="go_on") as budget:
            services = self._page.services
            context_id = services.browser_context_id
            if context_id is not None:  # a shared browser: nothing past this session's context
                check_context_raw(
                    method, params, context_id, lambda t: services.pages.by_target(t) is not None
                )
            session = await self._page.ready_session(budget)
            params = dict(params or {})
            if frame_id is not None and frame_id != self.target_id:
                session, params = route_to_frame(self.frames, self.id, frame_id, method, params)
            return await send_raw(
                session,
                method,
                params,
                budget,
                guard=self._page.supervisor.guard,
                paths=self._page.services.paths,
                tab=self._page,
            )


def _as_list(values: list[str] | str) -> list[str]:
    return [values] if isinstance(values, str) else list(values)
