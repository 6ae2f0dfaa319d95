"""The synchronous API: the same names as the async API, on a background loop.

::

    with tabwarden.sync.launch(isolated=True) as browser:
        tab = browser.new_tab("http://localhost:8000/")
        print(tab.title)

Generated from the async classes by ``python -m tabwarden.sync_codegen``; do not edit by hand.
Every call runs on one event-loop thread that lives as long as the process
(``sync_runtime.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Self, overload

from . import api
from .actions.evaluate import EvaluateResult
from .actions.receipt import Receipt
from .backends.base import Backend, Endpoint
from .backends.external import ConsentCheck
from .backends.firefox import LocalFirefox
from .budget import Budget
from .cdp.connection import CDPConnection
from .config import Config
from .content import ImageList, PageContent
from .diagnostics import emulation, storage
from .diagnostics.console import ConsoleReport
from .diagnostics.downloads import Download, DownloadList
from .diagnostics.emulation_state import EmulationChange, EmulationResult, EmulationState
from .diagnostics.network import NetworkReport
from .diagnostics.pdf import PdfFile
from .diagnostics.recording import RecordingFile, RecordingFormat, RecordingStarted
from .diagnostics.storage_request import CookieSpec, StorageResult
from .diagnostics.trace import TraceFile, TraceStarted
from .errors import TabCrashed
from .firefox.page import ChildFrames, PageHost
from .firefox.page import FirefoxPage as AsyncFirefoxPage
from .firefox.session import FirefoxSession as AsyncFirefoxSession
from .firefox.start import FirefoxStart
from .frames import FrameRegistry
from .manager import AskPerson, BackendFactory, Reaped
from .manager import SessionManager as AsyncSessionManager
from .metrics import Metrics
from .navigation import NavigationResult
from .relaunch import Relaunch
from .safety.guard import PolicyDecision
from .safety.paths import WorkspacePaths
from .safety.redaction import Redactor
from .safety.url_policy import Verdict
from .screenshot import Screenshot
from .services import SessionServices
from .session import BrowserSession as AsyncBrowserSession
from .snapshot import Snapshot
from .snapshot.refs import RefTable
from .snapshot.render import DEFAULT_MAX_CHARS
from .supervisor.dialogs import ClosedDialog, DialogPolicy, PendingDialog
from .supervisor.state import SupervisorState
from .supervisor.supervisor import Supervisor
from .sync_runtime import (
    Facade,
    adopt,
    awaited,
    run,
    untyped,
    unwrap,
    unwrap_optional,
    wrap,
    wrap_list,
    wrap_optional,
)
from .tab import Tab as AsyncTab
from .tab import TabHost, TabInfo

__all__ = [
    "BrowserSession",
    "FirefoxPage",
    "FirefoxSession",
    "SessionManager",
    "Tab",
    "attach",
    "launch",
    "run",
]


class Tab(Facade[AsyncTab]):
    """A page in a browser session. Create tabs with ``BrowserSession.new_tab``."""

    def __init__(
        self,
        host: TabHost,
        services: SessionServices,
        supervisor: Supervisor,
        tab_id: str,
        target_id: str,
    ) -> None:
        adopt(self, AsyncTab(host, services, supervisor, tab_id, target_id))

    @property
    def closed(self) -> bool:
        return unwrap(self).closed

    @property
    def frames(self) -> FrameRegistry:
        """The tab's frames and the sessions that render them (OOPIFs have their own)."""
        return unwrap(self).frames

    @property
    def id(self) -> str:
        return unwrap(self).id

    @property
    def navigated(self) -> bool:
        """True once anything loaded in this tab beyond its first blank page."""
        return unwrap(self).navigated

    @property
    def opener(self) -> Tab | None:
        """The tab whose page opened this one (``window.open``, ``target=_blank``)."""
        return wrap_optional(Tab, unwrap(self).opener)

    @property
    def pending_dialog(self) -> PendingDialog | None:
        return unwrap(self).pending_dialog

    @property
    def pending_dialogs(self) -> list[PendingDialog]:
        """Dialogs open in this tab (its frames included) that wait for an answer."""
        return unwrap(self).pending_dialogs

    @property
    def refs(self) -> RefTable:
        """This tab's refs: one space across all its frames."""
        return unwrap(self).refs

    @property
    def target_id(self) -> str:
        return unwrap(self).target_id

    @property
    def title(self) -> str:
        return unwrap(self).title

    @property
    def url(self) -> str:
        """The URL of the document the tab shows. Not a pending navigation's target
        (which the browser's target info reports while, say, a ``beforeunload`` dialog
        holds the navigation back)."""
        return unwrap(self).url

    def act_batch(
        self,
        steps: list[dict[str, Any]],
        *,
        timeout_ms: float | None = None,
    ) -> list[Receipt]:
        """Run several actions in order, e.g. ``[{"action": "fill", "ref": "e4", "value":
        "x"}, {"action": "click", "ref": "e7"}]``; stops at the first failure, raising
        ``BatchError`` that carries the receipts of the steps that ran."""
        return run(unwrap(self).act_batch(steps, timeout_ms=timeout_ms))

    def activate(self, *, timeout_ms: float | None = None) -> Tab:
        """Make this the session's active tab and bring it to the front."""
        return wrap(Tab, run(unwrap(self).activate(timeout_ms=timeout_ms)))

    def back(
        self,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        return run(unwrap(self).back(wait_until=wait_until, timeout_ms=timeout_ms))

    def cdp(
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
        that frame's JavaScript context."""
        return run(unwrap(self).cdp(method, params, frame_id=frame_id, timeout_ms=timeout_ms))

    def check(self, ref: str, checked: bool = True, *, timeout_ms: float | None = None) -> Receipt:
        """Check (or with ``checked=False`` uncheck) a checkbox, radio or switch by clicking it."""
        return run(unwrap(self).check(ref, checked, timeout_ms=timeout_ms))

    def click(
        self,
        ref: str,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: list[str] | None = None,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Click an element (a ref such as ``e7``, or a CSS selector) like a real pointer."""
        coroutine = unwrap(self).click(
            ref,
            button=button,
            click_count=click_count,
            modifiers=modifiers,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def close(self, *, timeout_ms: float | None = None) -> None:
        run(unwrap(self).close(timeout_ms=timeout_ms))

    def console(
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
        how many matched and how many the tab's ring dropped."""
        coroutine = unwrap(self).console(
            level=level,
            since=since,
            clear=clear,
            max_entries=max_entries,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def crashed_error(self, doing: str = "") -> TabCrashed:
        return unwrap(self).crashed_error(doing)

    def dialog(
        self,
        action: str = "accept",
        *,
        prompt_text: str | None = None,
        dialog_id: str | None = None,
        timeout_ms: float | None = None,
    ) -> ClosedDialog:
        """Answer this tab's pending dialog (``accept`` or ``dismiss``; ``prompt_text`` for
        a prompt). With several pending, name one by ``dialog_id``."""
        coroutine = unwrap(self).dialog(
            action,
            prompt_text=prompt_text,
            dialog_id=dialog_id,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def drag(self, start_ref: str, end_ref: str, *, timeout_ms: float | None = None) -> Receipt:
        """Drag one element onto another with real mouse events (HTML5 drag-and-drop too)."""
        return run(unwrap(self).drag(start_ref, end_ref, timeout_ms=timeout_ms))

    def evaluate(
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
        and first argument."""
        coroutine = unwrap(self).evaluate(
            expression,
            function=function,
            ref=ref,
            frame_id=frame_id,
            args=args,
            await_promise=await_promise,
            max_chars=max_chars,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def fill(self, ref: str, value: str, *, timeout_ms: float | None = None) -> Receipt:
        """Clear a text field (input, textarea, contenteditable) and set ``value``."""
        return run(unwrap(self).fill(ref, value, timeout_ms=timeout_ms))

    def forward(
        self,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        return run(unwrap(self).forward(wait_until=wait_until, timeout_ms=timeout_ms))

    def get_content(
        self,
        *,
        format: Literal["markdown", "text"] = "markdown",
        max_chars: int = 20_000,
        cursor: int = 0,
        timeout_ms: float | None = None,
    ) -> PageContent:
        """The page as Markdown (or plain text), paged; untrusted page data."""
        coroutine = unwrap(self).get_content(
            format=format,
            max_chars=max_chars,
            cursor=cursor,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def get_images(self, *, max_images: int = 200, timeout_ms: float | None = None) -> ImageList:
        """The page's images: src, alt, rendered and natural size, loaded or broken."""
        return run(unwrap(self).get_images(max_images=max_images, timeout_ms=timeout_ms))

    def get_text(
        self,
        ref: str | None = None,
        *,
        max_chars: int = 20_000,
        timeout_ms: float | None = None,
    ) -> str:
        """The visible text of an element, or of the whole page (bounded by ``max_chars``)."""
        return run(unwrap(self).get_text(ref, max_chars=max_chars, timeout_ms=timeout_ms))

    def hover(self, ref: str, *, timeout_ms: float | None = None) -> Receipt:
        return run(unwrap(self).hover(ref, timeout_ms=timeout_ms))

    def info(self) -> TabInfo:
        return unwrap(self).info()

    def navigate(
        self,
        url: str,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        """Load ``url`` and wait until it reaches ``wait_until``.

        Returns the final URL, title and HTTP status (a 4xx/5xx status is reported,
        not raised). A dialog opened during the load ends the wait early and is
        reported in ``dialog``. A URL the URL policy refuses, or a redirect to one,
        raises ``PolicyDenied`` naming the rule."""
        return run(unwrap(self).navigate(url, wait_until=wait_until, timeout_ms=timeout_ms))

    def network(
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
        ``clear`` empties the log after reading."""
        coroutine = unwrap(self).network(
            url=url,
            type=type,
            status=status,
            request_id=request_id,
            max_entries=max_entries,
            clear=clear,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def press(
        self,
        key: str,
        *,
        ref: str | None = None,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Press a key or chord: ``Enter``, ``Control+A``, ``Shift+Tab``, ``ArrowDown``, ``F5``…"""
        return run(unwrap(self).press(key, ref=ref, timeout_ms=timeout_ms))

    def record_start(
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
        coroutine = unwrap(self).record_start(
            quality=quality,
            max_width=max_width,
            max_height=max_height,
            every_nth_frame=every_nth_frame,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def record_stop(
        self,
        path: str | None = None,
        *,
        format: Literal["auto", "webm", "html"] = "auto",
        timeout_ms: float | None = None,
    ) -> RecordingFile:
        """Stop recording and save it in the workspace's ``recordings`` folder: WebM when
        ffmpeg is available (``auto``/``webm``), else a self-contained HTML player.
        Works after the tab closed too (what was recorded is saved)."""
        return run(unwrap(self).record_stop(path, format=format, timeout_ms=timeout_ms))

    def reload(
        self,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        return run(unwrap(self).reload(wait_until=wait_until, timeout_ms=timeout_ms))

    def save_pdf(
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
        Chromium (a browser that refuses raises ``ActionError``)."""
        coroutine = unwrap(self).save_pdf(
            path,
            landscape=landscape,
            print_background=print_background,
            scale=scale,
            paper_format=paper_format,
            page_ranges=page_ranges,
            margins=margins,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def screenshot(
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
        writes it into the workspace's screenshots folder; ``Screenshot.path`` says where."""
        coroutine = unwrap(self).screenshot(
            ref=ref,
            full_page=full_page,
            format=format,
            quality=quality,
            annotate=annotate,
            save=save,
            path=path,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def scroll(
        self,
        ref: str | None = None,
        *,
        direction: str | None = "down",
        amount: float | None = None,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Scroll the page or an element (``direction`` up/down/left/right, ``amount`` in
        CSS px, default most of a screen); ``direction=None`` with a ref scrolls it into view."""
        coroutine = unwrap(self).scroll(
            ref,
            direction=direction,
            amount=amount,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def select(
        self,
        ref: str,
        values: list[str] | str,
        *,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Choose options of a <select> by value or label (several for a multiple select)."""
        return run(unwrap(self).select(ref, values, timeout_ms=timeout_ms))

    def snapshot(
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
        takes a new snapshot."""
        coroutine = unwrap(self).snapshot(
            full=full,
            scope=scope,
            max_chars=max_chars,
            cursor=cursor,
            find=find,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def storage(
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
        ``BrowserSession.save_storage_state``)."""
        coroutine = unwrap(self).storage(
            action,
            kind,
            cookie,
            all=all,
            file=file,
            timeout_ms=timeout_ms,
            **cookie_fields,
        )
        return run(coroutine)

    def terminate_script(self, *, timeout_ms: float | None = None) -> bool:
        """Stop the script that keeps this page busy (``Runtime.terminateExecution`` on
        each of its frames' sessions). Returns True when something was busy."""
        return run(unwrap(self).terminate_script(timeout_ms=timeout_ms))

    def type(
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
        coroutine = unwrap(self).type(
            text,
            ref=ref,
            delay_ms=delay_ms,
            submit=submit,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def upload_file(
        self,
        ref: str,
        paths: list[str] | str,
        *,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Give files to a file input (hidden ones too; an empty list clears it), to the
        file chooser a label or button opens when clicked, or to a drop zone (dropped on
        it). Files come only from the workspace or a folder allowed in
        ``files.upload_dirs`` (relative paths are taken from the workspace); anything
        else raises ``PathNotAllowed``."""
        return run(unwrap(self).upload_file(ref, paths, timeout_ms=timeout_ms))

    def wait(
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
        coroutine = unwrap(self).wait(
            text=text,
            text_gone=text_gone,
            exact=exact,
            ref=ref,
            state=state,
            load_state=load_state,
            time_ms=time_ms,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)


class BrowserSession(Facade[AsyncBrowserSession]):
    """A browser (launched or attached) with its tabs. Use ``tabwarden.launch()``."""

    def __init__(
        self,
        backend: Backend,
        *,
        name: str = "default",
        config: Config | None = None,
    ) -> None:
        adopt(self, AsyncBrowserSession(backend, name=name, config=config))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def active_tab(self) -> Tab | None:
        return wrap_optional(Tab, unwrap(self).active_tab)

    @property
    def backend(self) -> Backend:
        return unwrap(self).backend

    @property
    def busy(self) -> bool:
        """True while a call on this session is running (the idle reaper leaves it alone)."""
        return unwrap(self).busy

    @property
    def closed(self) -> bool:
        return unwrap(self).closed

    @property
    def config(self) -> Config:
        return unwrap(self).config

    @property
    def connected(self) -> bool:
        return unwrap(self).connected

    @property
    def connection(self) -> CDPConnection:
        return unwrap(self).connection

    @property
    def endpoint(self) -> Endpoint | None:
        """Where the browser is (its DevTools URL; the pid of one this session launched)."""
        return unwrap(self).endpoint

    @property
    def last_relaunch(self) -> Relaunch | None:
        """The last time the browser went away and the session started a new one (what
        was lost, when); the first call after it says so once (``take_relaunch_notice``)."""
        return unwrap(self).last_relaunch

    @property
    def last_used(self) -> float:
        return unwrap(self).last_used

    @property
    def launches(self) -> int:
        """How many times this session started its browser (relaunches included)."""
        return unwrap(self).launches

    @property
    def metrics(self) -> Metrics:
        """Evaluation durations and outcomes, busy pages…: ``metrics.snapshot()``."""
        return unwrap(self).metrics

    @property
    def name(self) -> str:
        return unwrap(self).name

    @property
    def paths(self) -> WorkspacePaths:
        """The workspace: where files may be read from and written to (safety/paths.py)."""
        return unwrap(self).paths

    @property
    def product(self) -> str:
        """The browser's name and version, as it says (``Chrome/130.0…``)."""
        return unwrap(self).product

    @property
    def profile_kind(self) -> str:
        """``workspace`` (a persistent profile), ``throwaway`` (removed on close; always
        so in context mode, docs/isolation.md), or ``attached`` (a browser someone else
        started: their profile)."""
        return unwrap(self).profile_kind

    @property
    def redactor(self) -> Redactor:
        """Removes secrets from text and values meant for a model (``safety`` config)."""
        return unwrap(self).redactor

    @property
    def supervisor(self) -> Supervisor:
        return unwrap(self).supervisor

    def budget(self, timeout_ms: float | None, kind: str = "action") -> Budget:
        """A Budget for one call: ``timeout_ms`` or the configured default for ``kind``."""
        return unwrap(self).budget(timeout_ms, kind)

    def cancel_download(self, guid: str, *, timeout_ms: float | None = None) -> Download:
        """Cancel a download in progress (``Browser.cancelDownload``); returns its end state."""
        return run(unwrap(self).cancel_download(guid, timeout_ms=timeout_ms))

    def cdp(
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
        coroutine = unwrap(self).cdp(
            method,
            params,
            target_id=target_id,
            frame_id=frame_id,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def check_url(self, url: str) -> Verdict:
        """What the URL policy says about ``url`` as a page (nothing is loaded or recorded)."""
        return unwrap(self).check_url(url)

    def close(self) -> None:
        """Close the browser (or detach from an attached one) and forget every tab."""
        run(unwrap(self).close())

    def close_tab(self, tab_id: str | None = None, *, timeout_ms: float | None = None) -> None:
        """Close a tab (default: the active one); the previously active tab takes over."""
        run(unwrap(self).close_tab(tab_id, timeout_ms=timeout_ms))

    def current_tab(self, *, timeout_ms: float | None = None) -> Tab:
        """The active tab, relaunching the browser or opening a tab when there is none."""
        return wrap(Tab, run(unwrap(self).current_tab(timeout_ms=timeout_ms)))

    def dialog(
        self,
        action: str = "accept",
        *,
        prompt_text: str | None = None,
        dialog_id: str | None = None,
        timeout_ms: float | None = None,
    ) -> ClosedDialog:
        """Answer a pending dialog of any tab: the one named by ``dialog_id``, or the only one."""
        coroutine = unwrap(self).dialog(
            action,
            prompt_text=prompt_text,
            dialog_id=dialog_id,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def downloads(
        self,
        *,
        wait: bool = False,
        guid: str | None = None,
        timeout_ms: float | None = None,
    ) -> DownloadList:
        """The session's downloads, oldest first: state, bytes, final path and size, and
        executable types flagged (never opened or run). They are saved into the
        workspace's ``downloads`` folder. ``wait=True`` waits until the downloads in
        progress (or only ``guid``) finish, within ``timeout_ms``; still running at the
        deadline is reported, not raised."""
        return run(unwrap(self).downloads(wait=wait, guid=guid, timeout_ms=timeout_ms))

    def emulate(
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
        first page; Chromium may drop it on a later same-site navigation."""
        return run(unwrap(self).emulate(change, timeout_ms=timeout_ms, **settings))

    def emulation_state(self) -> EmulationState:
        """What this session emulates now, for every tab (never waits)."""
        return unwrap(self).emulation_state()

    def get_tab(self, tab_id: str) -> Tab:
        """A tab by its id (``t3``) or its CDP target id."""
        return wrap(Tab, unwrap(self).get_tab(tab_id))

    def known_downloads(self) -> tuple[Download, ...]:
        """The session's downloads as last reported (no wait, no call to the browser)."""
        return unwrap(self).known_downloads()

    def known_tabs(self) -> list[Tab]:
        """The open tabs as the session knows them now, from the browser's target events
        (no call to the browser: see ``tabs()`` for a fresh list)."""
        return wrap_list(Tab, unwrap(self).known_tabs())

    def load_storage_state(self, file: str, *, timeout_ms: float | None = None) -> StorageResult:
        """Load a storage state file (Playwright's format, from the workspace or an
        allowed folder): its cookies, and each origin's localStorage, written through a
        short-lived background tab that is served an empty page (no site is contacted)."""
        return run(unwrap(self).load_storage_state(file, timeout_ms=timeout_ms))

    def new_tab(
        self,
        url: str | None = None,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> Tab:
        """Open a tab (and load ``url`` in it); it becomes the active tab."""
        coroutine = unwrap(self).new_tab(
            url,
            wait_until=wait_until,
            timeout_ms=timeout_ms,
        )
        return wrap(Tab, run(coroutine))

    def open(
        self,
        url: str,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        """Load ``url`` in the active tab (opening one if there is none)."""
        return run(unwrap(self).open(url, wait_until=wait_until, timeout_ms=timeout_ms))

    def policy_decisions(
        self,
        *,
        tab_id: str | None = None,
        blocked_only: bool = False,
    ) -> list[PolicyDecision]:
        """Recent URL policy decisions, oldest first (a ring of 100; blocked ones also in a
        ring of 50): every page, frame and popup document, and every blocked request.
        With ``tab_id``, that tab's and those of the popups it opened."""
        return unwrap(self).policy_decisions(tab_id=tab_id, blocked_only=blocked_only)

    def record_stop(
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
        return run(unwrap(self).record_stop(tab_id, path, format=format, timeout_ms=timeout_ms))

    def save_storage_state(
        self,
        file: str | None = None,
        *,
        timeout_ms: float | None = None,
    ) -> StorageResult:
        """Save every cookie and the localStorage of each open origin to a storage state
        file (Playwright's format) in the workspace's ``state`` folder: ``file`` is a
        name there (or a path inside the workspace); default: a time-stamped name. The
        file holds logins: it is written readable by its owner only."""
        return run(unwrap(self).save_storage_state(file, timeout_ms=timeout_ms))

    def start(self, *, timeout_ms: float | None = None) -> BrowserSession:
        """Launch or attach the browser (idempotent)."""
        return wrap(BrowserSession, run(unwrap(self).start(timeout_ms=timeout_ms)))

    def state(self, tab: Tab | None = None) -> SupervisorState:
        """What the supervisor knows (dialogs, console errors, frames); never waits."""
        return unwrap(self).state(unwrap_optional(tab))

    def switch_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> Tab:
        return wrap(Tab, run(unwrap(self).switch_tab(tab_id, timeout_ms=timeout_ms)))

    def tab_infos(self, *, timeout_ms: float | None = None) -> list[TabInfo]:
        return run(unwrap(self).tab_infos(timeout_ms=timeout_ms))

    def tab_of_target(self, target_id: str) -> Tab | None:
        """The tab of a CDP target id, open or closed (None when unknown)."""
        return wrap_optional(Tab, unwrap(self).tab_of_target(target_id))

    def tabs(self, *, timeout_ms: float | None = None) -> list[Tab]:
        """Open tabs in the order they appeared (popups included), with fresh URLs and titles.

        Read from the browser's target list (``Target.getTargets``), never from a
        page, so a tab that is busy or blocked by a dialog cannot hold it up."""
        return wrap_list(Tab, run(unwrap(self).tabs(timeout_ms=timeout_ms)))

    def take_person_notice(self) -> str:
        """Once after a person acted in tabs of this session (from the workbench) since the
        agent's last snapshot of them: which tabs and what they did (empty otherwise)."""
        return unwrap(self).take_person_notice()

    def take_relaunch_notice(self) -> Relaunch | None:
        """The relaunch the caller has not been told about yet, once: after the browser
        went away, the first call that asks gets it (snapshot headers and tool results
        show it); later calls get None."""
        return unwrap(self).take_relaunch_notice()

    def trace_start(
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
        coroutine = unwrap(self).trace_start(
            categories=categories,
            screenshots=screenshots,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def trace_stop(self, path: str | None = None, *, timeout_ms: float | None = None) -> TraceFile:
        """Stop the trace and save it as JSON in the workspace's ``traces`` folder
        (``path``: a file name there, or a path inside the workspace); Chrome DevTools
        and Perfetto open it."""
        return run(unwrap(self).trace_stop(path, timeout_ms=timeout_ms))

    def watch_flags(self) -> dict[str, bool]:
        """What is being captured now: a trace, and screencast recordings."""
        return unwrap(self).watch_flags()


class FirefoxPage(Facade[AsyncFirefoxPage]):
    """One tab of a :class:`FirefoxSession`."""

    def __init__(self, session: PageHost, tab_id: str, context: str, url: str) -> None:
        adopt(self, AsyncFirefoxPage(session, tab_id, context, url))

    @property
    def closed(self) -> bool:
        return unwrap(self).closed

    @property
    def frames(self) -> ChildFrames:
        """Child contexts (iframes) of this tab by context id; the tab's own is not in it
        (``frames.frames()`` lists it too, as Chromium's frame registry does)."""
        return unwrap(self).frames

    @property
    def id(self) -> str:
        return unwrap(self).id

    @property
    def opened_at(self) -> float:
        """When the tab opened (``time.time()``)."""
        return unwrap(self).opened_at

    @property
    def opener(self) -> FirefoxPage | None:
        return wrap_optional(FirefoxPage, unwrap(self).opener)

    @property
    def pending_dialog(self) -> PendingDialog | None:
        return unwrap(self).pending_dialog

    @property
    def refs(self) -> RefTable:
        return unwrap(self).refs

    @property
    def target_id(self) -> str:
        return unwrap(self).target_id

    @property
    def title(self) -> str:
        return unwrap(self).title

    @property
    def url(self) -> str:
        return unwrap(self).url

    def act_batch(
        self,
        steps: list[dict[str, Any]],
        *,
        timeout_ms: float | None = None,
    ) -> list[Receipt]:
        """Run several actions in order; stops at the first failure, raising
        ``BatchError`` with the receipts of the steps that ran (as on Chromium)."""
        return run(unwrap(self).act_batch(steps, timeout_ms=timeout_ms))

    def back(
        self,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        """Go one entry back in the tab's history and wait for ``wait_until``."""
        return run(unwrap(self).back(wait_until=wait_until, timeout_ms=timeout_ms))

    def check(self, ref: str, checked: bool = True, *, timeout_ms: float | None = None) -> Receipt:
        """Check (or with ``checked=False`` uncheck) a checkbox, radio or switch by
        clicking it."""
        return run(unwrap(self).check(ref, checked, timeout_ms=timeout_ms))

    def click(
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
        coroutine = unwrap(self).click(
            ref,
            button=button,
            click_count=click_count,
            modifiers=modifiers,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def close(self, *, timeout_ms: float | None = None) -> None:
        run(unwrap(self).close(timeout_ms=timeout_ms))

    def console(
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
        coroutine = unwrap(self).console(
            level=level,
            since=since,
            clear=clear,
            max_entries=max_entries,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def dialog(
        self,
        action: str = "accept",
        *,
        prompt_text: str | None = None,
        timeout_ms: float | None = None,
    ) -> PendingDialog:
        """Answer the pending dialog (``accept`` or ``dismiss``; ``prompt_text`` for a
        prompt), as the Chromium tab's ``dialog``."""
        return run(unwrap(self).dialog(action, prompt_text=prompt_text, timeout_ms=timeout_ms))

    def drag(self, start_ref: str, end_ref: str, *, timeout_ms: float | None = None) -> Receipt:
        """Drag one element onto another (HTML5 drag and drop too; firefox/pointer.py)."""
        return run(unwrap(self).drag(start_ref, end_ref, timeout_ms=timeout_ms))

    def evaluate(
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
        coroutine = unwrap(self).evaluate(
            expression,
            function=function,
            ref=ref,
            frame_id=frame_id,
            args=args,
            await_promise=await_promise,
            max_chars=max_chars,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def fill(self, ref: str, value: str, *, timeout_ms: float | None = None) -> Receipt:
        """Clear a text field (input, textarea, contenteditable) and set ``value``, with
        real key events (its text is selected, then typed over)."""
        return run(unwrap(self).fill(ref, value, timeout_ms=timeout_ms))

    def forward(
        self,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        """Go one entry forward in the tab's history and wait for ``wait_until``."""
        return run(unwrap(self).forward(wait_until=wait_until, timeout_ms=timeout_ms))

    def get_content(
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
        coroutine = unwrap(self).get_content(
            format=format,
            max_chars=max_chars,
            cursor=cursor,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def get_images(self, *, max_images: int = 200, timeout_ms: float | None = None) -> ImageList:
        """The page's images: src, alt, rendered and natural size, loaded or broken."""
        return run(unwrap(self).get_images(max_images=max_images, timeout_ms=timeout_ms))

    def get_text(
        self,
        ref: str | None = None,
        *,
        max_chars: int = 20_000,
        timeout_ms: float | None = None,
    ) -> str:
        """The visible text of the element ``ref`` names, or of the whole page (bounded
        by ``max_chars``)."""
        return run(unwrap(self).get_text(ref, max_chars=max_chars, timeout_ms=timeout_ms))

    def hover(self, ref: str, *, timeout_ms: float | None = None) -> Receipt:
        """Move the mouse to the centre of the element ``ref`` names."""
        return run(unwrap(self).hover(ref, timeout_ms=timeout_ms))

    def navigate(
        self,
        url: str,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        """Load ``url`` and wait for ``wait_until`` (commit, domcontentloaded, load,
        networkidle: loaded, then no request in flight for 500 ms)."""
        return run(unwrap(self).navigate(url, wait_until=wait_until, timeout_ms=timeout_ms))

    def network(
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
        coroutine = unwrap(self).network(
            url=url,
            type=type,
            status=status,
            request_id=request_id,
            max_entries=max_entries,
            clear=clear,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def press(
        self,
        key: str,
        *,
        ref: str | None = None,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Press one key or a chord (``Enter``, ``Control+a``), into ``ref`` (clicked
        first) or the focused element."""
        return run(unwrap(self).press(key, ref=ref, timeout_ms=timeout_ms))

    def reload(
        self,
        *,
        wait_until: str = "load",
        timeout_ms: float | None = None,
    ) -> NavigationResult:
        """Load the current document again."""
        return run(unwrap(self).reload(wait_until=wait_until, timeout_ms=timeout_ms))

    def save_pdf(
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
        coroutine = unwrap(self).save_pdf(
            path,
            landscape=landscape,
            print_background=print_background,
            scale=scale,
            paper_format=paper_format,
            page_ranges=page_ranges,
            margins=margins,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def screenshot(
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
        coroutine = unwrap(self).screenshot(
            ref=ref,
            full_page=full_page,
            format=format,
            quality=quality,
            annotate=annotate,
            save=save,
            path=path,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def scroll(
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
        coroutine = unwrap(self).scroll(
            ref,
            direction=direction,
            amount=amount,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def select(
        self,
        ref: str,
        values: list[str] | str,
        *,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Choose options of a <select> by value or label (several for a multiple one)."""
        return run(unwrap(self).select(ref, values, timeout_ms=timeout_ms))

    def snapshot(
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
        coroutine = unwrap(self).snapshot(
            full=full,
            max_chars=max_chars,
            cursor=cursor,
            find=find,
            scope=scope,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def storage(
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
        coroutine = unwrap(self).storage(
            action,
            kind,
            cookie,
            all=all,
            file=file,
            timeout_ms=timeout_ms,
            **cookie_fields,
        )
        return run(coroutine)

    def type(
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
        coroutine = unwrap(self).type(
            text,
            ref=ref,
            delay_ms=delay_ms,
            submit=submit,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)

    def upload_file(
        self,
        ref: str,
        paths: list[str] | str,
        *,
        timeout_ms: float | None = None,
    ) -> Receipt:
        """Give files to a file input (hidden ones too; an empty list clears it) or to the
        file chooser a label or button opens when clicked (firefox/upload.py). Files
        come only from the workspace or ``files.upload_dirs``, as on Chromium."""
        return run(unwrap(self).upload_file(ref, paths, timeout_ms=timeout_ms))

    def wait(
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
        coroutine = unwrap(self).wait(
            text=text,
            text_gone=text_gone,
            exact=exact,
            ref=ref,
            state=state,
            load_state=load_state,
            time_ms=time_ms,
            timeout_ms=timeout_ms,
        )
        return run(coroutine)


class FirefoxSession(Facade[AsyncFirefoxSession]):
    """A launched Firefox and its tabs; ``close()`` leaves no process and no profile."""

    def __init__(
        self,
        backend: LocalFirefox,
        *,
        name: str = "default",
        config: Config | None = None,
    ) -> None:
        adopt(self, AsyncFirefoxSession(backend, name=name, config=config))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def active_tab(self) -> FirefoxPage | None:
        return wrap_optional(FirefoxPage, unwrap(self).active_tab)

    @property
    def backend(self) -> LocalFirefox:
        return unwrap(self).backend

    @property
    def blocked(self) -> list[Verdict]:
        """Page-initiated documents the policy blocked (the newest last, bounded)."""
        return unwrap(self).blocked

    @property
    def browser_lost(self) -> bool:
        """Firefox went away under the open session (the next call relaunches it)."""
        return unwrap(self).browser_lost

    @property
    def busy(self) -> bool:
        """A command waits for its reply (a call is running)."""
        return unwrap(self).busy

    @property
    def closed(self) -> bool:
        return unwrap(self).closed

    @property
    def dialog_policy(self) -> DialogPolicy:
        return unwrap(self).dialog_policy

    @property
    def last_used(self) -> float:
        """When a call last started here (the session manager closes idle sessions)."""
        return unwrap(self).last_used

    @property
    def metrics(self) -> Metrics:
        """Evaluations (durations, outcomes) and call counts, as a Chromium session's."""
        return unwrap(self).metrics

    @property
    def name(self) -> str:
        return unwrap(self).name

    @property
    def paths(self) -> WorkspacePaths:
        """The workspace: where files may be read from and written to (safety/paths.py)."""
        return unwrap(self).paths

    @property
    def product(self) -> str:
        """The browser's name and version (``Firefox/153.0``)."""
        return unwrap(self).product

    @property
    def profile_kind(self) -> str:
        """``throwaway`` (removed on close) or ``workspace`` (a persistent profile)."""
        return unwrap(self).profile_kind

    @property
    def redactor(self) -> Redactor:
        """Cleans what watchers (the workbench) are sent about this session."""
        return unwrap(self).redactor

    @property
    def tabs(self) -> list[FirefoxPage]:
        return wrap_list(FirefoxPage, unwrap(self).tabs)

    def close(self) -> None:
        """``browser.close`` (it ends the BiDi session too), then the process is waited
        for and killed if it lingers; the profile is removed when it was throwaway."""
        run(unwrap(self).close())

    def close_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> None:
        """Close the tab ``tab_id`` (its refs and pending dialog go with it)."""
        run(unwrap(self).close_tab(tab_id, timeout_ms=timeout_ms))

    def downloads(
        self,
        *,
        wait: bool = False,
        guid: str | None = None,
        timeout_ms: float | None = None,
    ) -> DownloadList:
        """The session's downloads, oldest first, as on Chromium: state, final path and
        size, executable types flagged (never opened or run), saved into the workspace's
        ``downloads`` folder. ``wait=True`` waits until the downloads in progress (or only
        ``guid``) end, within ``timeout_ms``; still running at the deadline is reported."""
        return run(unwrap(self).downloads(wait=wait, guid=guid, timeout_ms=timeout_ms))

    def emulate(
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
        return run(unwrap(self).emulate(change, timeout_ms=timeout_ms, **settings))

    def emulation_state(self) -> EmulationState:
        """What this session emulates now, for every tab (never waits)."""
        return unwrap(self).emulation_state()

    def get_tab(self, tab_id: str) -> FirefoxPage:
        return wrap(FirefoxPage, unwrap(self).get_tab(tab_id))

    def known_downloads(self) -> tuple[Download, ...]:
        """The session's downloads as last reported (no wait, no call to the browser)."""
        return unwrap(self).known_downloads()

    def known_tabs(self) -> list[FirefoxPage]:
        """The open tabs, as the session's events keep them (as ``tabs``)."""
        return wrap_list(FirefoxPage, unwrap(self).known_tabs())

    def new_tab(self, url: str | None = None, *, timeout_ms: float | None = None) -> FirefoxPage:
        """A new tab (at ``url``), made active; Firefox is relaunched first when it went
        away under the session."""
        return wrap(FirefoxPage, run(unwrap(self).new_tab(url, timeout_ms=timeout_ms)))

    def recent_dialogs(self, tab_id: str | None = None) -> list[ClosedDialog]:
        """Dialogs closed lately (the newest last): by the agent, the policy or the page."""
        return unwrap(self).recent_dialogs(tab_id)

    def relaunch_if_lost(self, timeout_ms: float | None = None) -> bool:
        """When Firefox went away (killed, crashed) under the open session: launch a new
        one in its place, with a new first tab (True). The old tabs, their refs and
        dialogs are gone; ``take_relaunch_notice()`` says so once."""
        return run(unwrap(self).relaunch_if_lost(timeout_ms))

    def start(self, timeout_ms: float | None = None) -> FirefoxSession:
        return wrap(FirefoxSession, run(unwrap(self).start(timeout_ms)))

    def switch_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> FirefoxPage:
        """Make ``tab_id`` the active tab (brought to the front)."""
        return wrap(FirefoxPage, run(unwrap(self).switch_tab(tab_id, timeout_ms=timeout_ms)))

    def take_person_notice(self) -> str:
        """Once after a person acted in tabs of this session (from the workbench) since the
        agent's last snapshot of them: which tabs and what they did (empty otherwise)."""
        return unwrap(self).take_person_notice()

    def take_relaunch_notice(self) -> Relaunch | None:
        """Once after a relaunch: what was lost and when (then None)."""
        return unwrap(self).take_relaunch_notice()

    def watch_flags(self) -> dict[str, bool]:
        """What is being captured now (Firefox records no trace and no screencast)."""
        return unwrap(self).watch_flags()


class SessionManager(Facade[AsyncSessionManager]):
    """Named sessions with idle cleanup. Use as ``async with SessionManager() as manager``."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        backend_factory: BackendFactory | None = None,
    ) -> None:
        adopt(self, AsyncSessionManager(config, backend_factory=backend_factory))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_all()

    @property
    def ask_person(self) -> AskPerson | None:
        """Where an attach request without consent is shown to a person (the workbench
        sets it); None: it is refused at once with what the browser holds."""
        return unwrap(self).ask_person

    @property
    def config(self) -> Config:
        return unwrap(self).config

    @property
    def on_change(self) -> list[Callable[[], None]]:
        """Told when a session starts or closes (the workbench's session list)."""
        return unwrap(self).on_change

    @property
    def reaped(self) -> list[str]:
        """Names of sessions closed for inactivity, oldest first (for logs and tests)."""
        return unwrap(self).reaped

    def close(self, name: str) -> None:
        run(unwrap(self).close(name))

    def close_all(self) -> None:
        run(unwrap(self).close_all())

    def close_firefox(self, name: str) -> None:
        run(unwrap(self).close_firefox(name))

    def firefox(self, name: str = "default", *, timeout_ms: float | None = None) -> FirefoxSession:
        """The live Firefox session called ``name``, started now if need be."""
        return wrap(FirefoxSession, run(unwrap(self).firefox(name, timeout_ms=timeout_ms)))

    def firefox_names(self) -> list[str]:
        return unwrap(self).firefox_names()

    def firefox_sessions(self) -> list[FirefoxSession]:
        """The open Firefox sessions, in the order they started."""
        return wrap_list(FirefoxSession, unwrap(self).firefox_sessions())

    def get(self, name: str = "default") -> BrowserSession:
        return wrap(BrowserSession, unwrap(self).get(name))

    def get_firefox(self, name: str = "default") -> FirefoxSession | None:
        """The open Firefox session called ``name`` (None: there is none)."""
        return wrap_optional(FirefoxSession, unwrap(self).get_firefox(name))

    def get_or_create(
        self,
        name: str = "default",
        *,
        isolated: bool | None = None,
        cdp_url: str | None = None,
        consent: ConsentCheck | None = None,
        dialog_bridge: bool = False,
        timeout_ms: float | None = None,
    ) -> BrowserSession:
        """The live session called ``name``, started now if it does not exist (idempotent)."""
        coroutine = unwrap(self).get_or_create(
            name,
            isolated=isolated,
            cdp_url=cdp_url,
            consent=consent,
            dialog_bridge=dialog_bridge,
            timeout_ms=timeout_ms,
        )
        return wrap(BrowserSession, run(coroutine))

    def names(self) -> list[str]:
        return unwrap(self).names()

    def reap_idle(self) -> list[str]:
        """Close sessions unused for longer than the inactivity timeout; returns their names."""
        return run(unwrap(self).reap_idle())

    def reaped_session(self, name: str) -> Reaped | None:
        """The last time the idle reaper closed a session called ``name`` (None: never, or
        too long ago to be remembered)."""
        return unwrap(self).reaped_session(name)

    def sessions(self) -> list[BrowserSession]:
        """The open sessions, in the order they started."""
        return wrap_list(BrowserSession, unwrap(self).sessions())


@overload
def launch(
    *,
    engine: Literal["firefox"],
    isolated: bool | None = None,
    headless: bool | None = None,
    executable: str | None = None,
    workspace: str | Path | None = None,
    args: Sequence[str] = (),
    name: str = "default",
    config: Config | None = None,
    secrets_file: str | Path | None = None,
    timeout_ms: float | None = None,
    backend: str | None = None,
) -> FirefoxSession: ...


@overload
def launch(
    *,
    engine: Literal["chromium"] | None = None,
    isolated: bool | None = None,
    headless: bool | None = None,
    executable: str | None = None,
    workspace: str | Path | None = None,
    args: Sequence[str] = (),
    name: str = "default",
    config: Config | None = None,
    secrets_file: str | Path | None = None,
    timeout_ms: float | None = None,
    proxy_server: str | None = None,
    proxy_bypass: str | Sequence[str] | None = None,
    ignore_https_errors: bool | None = None,
    device: str | None = None,
    user_agent: str | None = None,
    storage_state: str | Path | None = None,
    init_scripts: str | Path | Sequence[str | Path] | None = None,
    grant_permissions: str | Sequence[str] | None = None,
    allowed_origins: str | Sequence[str] | None = None,
    blocked_origins: str | Sequence[str] | None = None,
    output_dir: str | Path | None = None,
    backend: str | None = None,
    isolation: str | None = None,
    cloud: Mapping[str, Any] | None = None,
) -> BrowserSession: ...


def launch(
    *,
    engine: Literal["chromium", "firefox"] | None = None,
    isolated: bool | None = None,
    headless: bool | None = None,
    executable: str | None = None,
    workspace: str | Path | None = None,
    args: Sequence[str] = (),
    name: str = "default",
    config: Config | None = None,
    secrets_file: str | Path | None = None,
    timeout_ms: float | None = None,
    proxy_server: str | None = None,
    proxy_bypass: str | Sequence[str] | None = None,
    ignore_https_errors: bool | None = None,
    device: str | None = None,
    user_agent: str | None = None,
    storage_state: str | Path | None = None,
    init_scripts: str | Path | Sequence[str | Path] | None = None,
    grant_permissions: str | Sequence[str] | None = None,
    allowed_origins: str | Sequence[str] | None = None,
    blocked_origins: str | Sequence[str] | None = None,
    output_dir: str | Path | None = None,
    backend: str | None = None,
    isolation: str | None = None,
    cloud: Mapping[str, Any] | None = None,
) -> BrowserSession | FirefoxSession:
    """Launch a browser (local or cloud); returns its started session (use it with ``with``).

    Launch a browser and return its session: a local Chromium, or a cloud browser.

    ``engine`` (``browser.engine``): ``chromium`` (the default) or ``firefox``, a local
    Firefox over WebDriver BiDi (docs/firefox.md; the local backend only) whose session
    is a :class:`~tabwarden.firefox.FirefoxSession` (``tabwarden.sync.launch`` returns its
    synchronous twin).

    ``backend`` (``browser.backend``): ``local`` (the default) launches Chromium here;
    ``browserbase``, ``browser-use``, ``firecrawl``, ``steel`` create a browser through the
    provider's API and ``cdp-template`` reaches one by ``cloud.url_template``
    (docs/backends.md). ``cloud`` sets fields of the ``cloud`` configuration section for this
    session: ``project_id``, ``region``, ``proxy``, ``stealth``, ``timeout_s``, ``profile``,
    ``url_template``, ``api_url``, ``api_key_env`` (keys are best left in the environment).

    ``isolation`` (``browser.isolation``, docs/isolation.md): ``process`` (the default)
    launches a browser for the session; ``context`` gives it a browser context of one
    Chromium shared by this process's context sessions (local backend only; no
    persistent profile).

    Local only: ``isolated=True`` uses a throwaway profile removed on close; otherwise the
    persistent profile of this workspace (and session ``name``) is used.
    ``secrets_file``: a dotenv file whose values ``session.redactor`` replaces by
    their names. Unset arguments come from ``config`` (default:
    :func:`tabwarden.load_config`).

    The other keywords set the configuration fields of the same names, as the command
    line's flags do (docs/reference/config.md): ``proxy_server``/``proxy_bypass``,
    ``ignore_https_errors``, ``device`` (an emulation preset), ``user_agent``,
    ``storage_state`` (a file loaded at start), ``init_scripts`` (JavaScript files run
    in every page first), ``grant_permissions``, ``allowed_origins``/``blocked_origins``
    (``policy.allow``/``policy.deny``) and ``output_dir`` (``files.output_dir``). Lists
    take a list or text with words separated by commas or semicolons."""
    start = untyped(api.launch)(
        engine=engine,
        isolated=isolated,
        headless=headless,
        executable=executable,
        workspace=workspace,
        args=args,
        name=name,
        config=config,
        secrets_file=secrets_file,
        timeout_ms=timeout_ms,
        proxy_server=proxy_server,
        proxy_bypass=proxy_bypass,
        ignore_https_errors=ignore_https_errors,
        device=device,
        user_agent=user_agent,
        storage_state=storage_state,
        init_scripts=init_scripts,
        grant_permissions=grant_permissions,
        allowed_origins=allowed_origins,
        blocked_origins=blocked_origins,
        output_dir=output_dir,
        backend=backend,
        isolation=isolation,
        cloud=cloud,
    )
    if isinstance(start, FirefoxStart):
        return wrap(FirefoxSession, run(awaited(start)))
    return wrap(BrowserSession, run(awaited(start)))


def attach(
    cdp_url: str | None = None,
    *,
    consent: ConsentCheck | None = None,
    port: int | None = None,
    launch: bool = False,
    dialog_bridge: bool = False,
    name: str = "default",
    config: Config | None = None,
    secrets_file: str | Path | None = None,
    timeout_ms: float | None = None,
) -> BrowserSession:
    """Attach to a running browser by its CDP endpoint; returns the started session.

    Attach to a running browser by its CDP endpoint (``http://host:9222`` or ``ws://…``).

    Without ``cdp_url``: the browser running on this machine with remote debugging (on
    ``port`` when given; else the ports of ``browser.attach.ports`` and the
    DevToolsActivePort files of the usual profile folders). Several found, or none, is
    an :class:`~tabwarden.EndpointError` that lists them, or says how to start one.
    ``launch=True``: when none runs, launch the user's Chrome (``browser.attach``) with
    remote debugging on a profile folder of tabwarden's own, never their everyday one,
    and attach to it; the user asked for that browser, so that is their consent. It is
    theirs: it stays open when the session closes.

    It needs the user's consent: ``consent=True`` once they agreed, or a callable
    shown the :class:`~tabwarden.AttachRequest` (browser, profile, open tabs) that
    returns True; unset, ``safety.allow_attach`` decides. Without consent it fails
    with :class:`~tabwarden.ConsentRequired` saying what it would control.

    Closing the session closes only the tabs it opened; the browser keeps running.
    ``dialog_bridge=True`` for a backend whose proxy auto-dismisses native dialogs."""
    start = api.attach(
        cdp_url,
        consent=consent,
        port=port,
        launch=launch,
        dialog_bridge=dialog_bridge,
        name=name,
        config=config,
        secrets_file=secrets_file,
        timeout_ms=timeout_ms,
    )
    return wrap(BrowserSession, run(awaited(start)))
