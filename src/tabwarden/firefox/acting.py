"""One input action on a Firefox tab and its receipt: the same ``Receipt`` a Chromium
action returns (actions/receipt.py), built from BiDi's events.

The watch opens before the input and collects what followed from it: a navigation of
the tab (``browsingContext.navigationStarted``), tabs it opened, a dialog left
pending or answered by the policy, console errors, documents the URL policy blocked.
Then the page settles (the timers and tasks the action's handlers queued have run; a
navigation: until DOMContentLoaded, bounded) and the interactive view is read again
and diffed against the one before, so the agent often needs no new snapshot.

As on Chromium, the receipt waits (within ``browser.receipt_settle_ms``) for the
requests the tab sent since the input (fetch, XHR, scripts, stylesheets, frame
documents) and names those that answered; BiDi does not tie a request to the input
that caused it, so a request the page sent on its own meanwhile is counted too. Not
on Firefox: the text that appeared or went away outside the interactive view, and a
person's input (there is no live view).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from ..actions.receipt import AWAITED_TYPES, NAMED_TYPES, Receipt, describe_request
from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..cdp.connection import EventQueue
from ..cdp.protocol import Event
from ..clipping import clip_title, clip_url
from ..diagnostics.network import NetworkRequest
from ..errors import TabwardenError
from ..safety.url_policy import Verdict
from ..snapshot.render import diff_lines
from ..supervisor.dialogs import ClosedDialog, PendingDialog

__all__ = ["WATCHED_EVENTS", "ActedPage", "ActingHost", "ActionBody", "FirefoxActionWatch"]

ActionBody = Callable[[Budget], Awaitable[tuple[str | None, str]]]
"""An action's input: returns (what it acted on, a detail) for the receipt."""

WATCHED_EVENTS = (
    "browsingContext.navigationStarted",
    "browsingContext.fragmentNavigated",
    "browsingContext.historyUpdated",
    "browsingContext.domContentLoaded",
    "browsingContext.navigationFailed",
)
_LOADED = ("browsingContext.domContentLoaded", "browsingContext.navigationFailed")
"""A started navigation has settled: its document is parsed, or it failed (blocked)."""
_SETTLE_NAVIGATION_S = 5.0
_SETTLE_TASKS_S = 0.5
_MAX_CONSOLE = 5
_MAX_DIFF_LINES = 30
_AUTO_DIFF_MAX_LINES = 1_500
_POLL_S = 0.05
_REQUEST_POLL_S = 0.01
_AFTER_QUEUED_TASKS = "new Promise((resolve) => setTimeout(() => resolve(document.title), 0))"
"""Resolves once the timers and tasks queued before it have run (a zero-delay timer
fires after them), with the document's title then."""


class ActedPage(Protocol):
    """What the watch reads of the page acted on (``FirefoxPage``)."""

    id: str
    context: str
    url: str
    title: str
    last_view: list[str]

    @property
    def pending_dialog(self) -> PendingDialog | None: ...

    def console_errors_since(self, since: float) -> list[str]: ...

    async def evaluate_in(self, context: str, expression: str, budget: Budget) -> object: ...

    async def read_lines(self, budget: Budget) -> list[str]: ...


class ActingHost(Protocol):
    """What the watch reads of the session (``FirefoxSession``)."""

    @property
    def connection(self) -> BiDiConnection: ...

    def tabs_opened_since(self, since: float) -> list[str]: ...

    def dialogs_closed_since(self, tab_id: str, since: float) -> list[ClosedDialog]: ...

    def blocked_since(self, since: float) -> list[Verdict]: ...

    def requests_since(self, tab_id: str, since: float) -> tuple[NetworkRequest, ...]:
        """The tab's requests sent since ``since`` (``time.time()``), as they stand now."""
        ...

    def downloads_since(self, tab_id: str, since: float) -> list[str]:
        """``name (url) into <folder>`` of the downloads the tab started since ``since``."""
        ...

    @property
    def receipt_settle_ms(self) -> int:
        """``browser.receipt_settle_ms``: how long a receipt waits for the requests the
        action started."""
        ...

    @property
    def dialog_policy(self) -> str:
        """What happens to a dialog: must_respond, auto_dismiss or auto_accept."""
        ...

    @property
    def receipt_diff(self) -> str:
        """``browser.receipt_diff``: auto, on or off."""
        ...


class FirefoxActionWatch:
    """Collects one action's consequences; enter it before the input is sent."""

    def __init__(self, page: ActedPage, host: ActingHost) -> None:
        self._page = page
        self._host = host
        self._started = time.monotonic()
        self._wall_started = time.time()
        self._before = list(page.last_view)
        self._url_before = page.url
        self._events: EventQueue | None = None
        self._seen: list[Event] = []
        self._queue: contextlib.ExitStack = contextlib.ExitStack()

    def __enter__(self) -> FirefoxActionWatch:
        self._events = self._queue.enter_context(
            self._host.connection.event_queue(list(WATCHED_EVENTS))
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self._queue.close()

    def _take(self) -> list[Event]:
        """The tab's own events seen so far (its frames' are not the tab's navigation)."""
        if self._events is not None:
            context = self._page.context
            self._seen += [e for e in self._events.ready() if e.params.get("context") == context]
        return self._seen

    def _navigation(self) -> tuple[bool, bool]:
        """(a new document started loading in the tab, its URL changed in the document)."""
        methods = {event.method for event in self._take()}
        loading = "browsingContext.navigationStarted" in methods
        same_document = bool(
            methods & {"browsingContext.fragmentNavigated", "browsingContext.historyUpdated"}
        )
        return loading, same_document

    def _loaded(self) -> bool:
        """Whether a navigation the action started has settled."""
        events = self._take()
        started = [
            i for i, e in enumerate(events) if e.method == "browsingContext.navigationStarted"
        ]
        return bool(started) and any(e.method in _LOADED for e in events[started[-1] :])

    async def receipt(
        self, action: str, target: str | None, detail: str, budget: Budget
    ) -> Receipt:
        """Let the page settle (bounded), then describe what happened."""
        page = self._page
        waited_ms = 0
        if self._host.dialog_policy != "must_respond":
            # The policy's answer is on its way: the receipt names the dialog it closed.
            answered = budget.child(_SETTLE_NAVIGATION_S)
            while page.pending_dialog is not None and not answered.expired:
                await answered.sleep(_POLL_S / 5)
        if page.pending_dialog is None:
            await self._settle(budget)
        if page.pending_dialog is None and not self._navigation()[0]:
            waited_ms = await self._until_requests_answered(budget)
        loading, same_document = self._navigation()
        mode = self._host.receipt_diff
        snapshot_diff = None
        skipped = ""
        diff = mode != "off" and page.pending_dialog is None
        if diff and mode == "auto" and len(self._before) > _AUTO_DIFF_MAX_LINES:
            diff, skipped = False, f"a large page: {len(self._before):,} lines"
        if diff:
            try:
                after = await page.read_lines(budget.child(5.0))
            except TabwardenError:
                after = None  # the action happened; a failed diff must not hide it
            if after is not None:
                snapshot_diff = diff_lines(self._before, after, max_lines=_MAX_DIFF_LINES)
        blocked = self._host.blocked_since(self._wall_started)
        requests = [r for r in self._awaited() if r.state != "redirected"]
        return Receipt(
            action=action,
            target=target,
            detail=detail,
            tab_id=page.id,
            url=clip_url(page.url),
            title=clip_title(page.title),
            elapsed_ms=int((time.monotonic() - self._started) * 1000),
            navigated=loading or (same_document and page.url != self._url_before),
            new_tabs=self._host.tabs_opened_since(self._wall_started),
            dialog=page.pending_dialog,
            closed_dialogs=self._host.dialogs_closed_since(page.id, self._wall_started),
            console_errors=page.console_errors_since(self._wall_started)[:_MAX_CONSOLE],
            diff=snapshot_diff,
            diff_skipped=skipped,
            policy_blocks=[f"navigation blocked by policy: {v.url} ({v.rule})" for v in blocked],
            downloads=self._host.downloads_since(page.id, self._wall_started),
            requests=[
                describe_request(r, page.url)
                for r in requests
                if r.state != "pending" and r.type in NAMED_TYPES
            ],
            still_open=[describe_request(r, page.url) for r in requests if r.state == "pending"],
            settle_wait_ms=waited_ms,
        )

    def _awaited(self) -> list[NetworkRequest]:
        """Requests sent since the action began that the page will act on when they
        answer (the tab's own navigation is followed by its events instead)."""
        page = self._page
        return [
            r
            for r in self._host.requests_since(page.id, self._wall_started)
            if r.type in AWAITED_TYPES and not (r.type == "document" and r.frame_id == page.context)
        ]

    async def _until_requests_answered(self, budget: Budget) -> int:
        """Until the requests the action started have answered and the page has run what
        their answers queued, within ``browser.receipt_settle_ms`` and half of what is
        left of the call's budget; how long it waited (0: it started none)."""
        settle_s = self._host.receipt_settle_ms / 1000
        if settle_s <= 0:
            return 0
        if not self._awaited():
            # The page's own script ran, but the requests it started are Firefox's parent
            # process's to report: one round trip there lets the events it has queued
            # arrive first (BiDi does not order them before a script's reply).
            with contextlib.suppress(TabwardenError):
                await self._host.connection.send("session.status", {}, budget=budget.child(1.0))
            if not self._awaited():
                return 0
        started = time.monotonic()
        wait = budget.child(min(settle_s, budget.remaining() / 2))
        page = self._page
        while any(r.state == "pending" for r in self._awaited()) and not wait.expired:
            if page.pending_dialog is not None or self._navigation()[0]:
                break
            await wait.sleep(_REQUEST_POLL_S)
        if page.pending_dialog is None:
            with contextlib.suppress(TabwardenError, TimeoutError):
                # The page runs what the answers queued.
                await page.evaluate_in(
                    page.context, _AFTER_QUEUED_TASKS, budget.child(_SETTLE_TASKS_S)
                )
        return max(1, int((time.monotonic() - started) * 1000))

    async def _settle(self, budget: Budget) -> None:
        """Until the tasks the action queued ran; a navigation: until the new document's
        DOMContentLoaded (bounded: past it, the receipt says what is known)."""
        page = self._page
        with contextlib.suppress(TabwardenError, TimeoutError):
            title = await page.evaluate_in(
                page.context, _AFTER_QUEUED_TASKS, budget.child(_SETTLE_TASKS_S)
            )
            if isinstance(title, str):
                page.title = title
        loading, _ = self._navigation()
        if not loading:
            return
        wait = budget.child(_SETTLE_NAVIGATION_S)
        with contextlib.suppress(TabwardenError, TimeoutError):
            while not self._loaded() and page.pending_dialog is None and not wait.expired:
                await wait.sleep(_POLL_S)
            if page.pending_dialog is None:
                href = await page.evaluate_in(page.context, "[location.href, document.title]", wait)
                if isinstance(href, list) and len(href) == 2:
                    page.url, page.title = str(href[0]), str(href[1])
