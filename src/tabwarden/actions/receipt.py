"""Receipts: what an action did and what followed from it, compactly.

An ActionWatch listens from just before the action until it settles: a
navigation, a new tab, a dialog, console errors, the requests it started and the
text it made appear or go away; then the interactive view is diffed against the
previous one, so the agent often needs no new snapshot.

Settling waits for what the action started and nothing else: the timers and tasks
its handlers queued; the requests sent since the input (fetch, XHR, scripts,
stylesheets, frame documents; not streams, sockets, beacons or media) until they
answer and the page has run what their answers queued, bounded by
``browser.receipt_settle_ms``; a navigation until DOMContentLoaded. An action that
started no request does not wait for one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..budget import Budget
from ..calls import call
from ..cdp.protocol import Event, Subscription
from ..clipping import clip_title, clip_url
from ..counting import counted
from ..diagnostics.network import NetworkRequest
from ..errors import CDPError, DeadlineExceeded, TabwardenError
from ..page import PageView
from ..person_activity import PersonActs
from ..report_text import ReportText
from ..snapshot.render import SnapshotDiff, diff_lines
from ..supervisor.dialogs import ClosedDialog, PendingDialog
from ..supervisor.state import FrameNode
from .text_changes import TextChanges, TextWatch

if TYPE_CHECKING:
    from ..page import Page
    from ..services import SessionServices
    from ..supervisor.supervisor import Supervisor

__all__ = [
    "AWAITED_TYPES",
    "NAMED_TYPES",
    "ActionWatch",
    "Receipt",
    "describe_request",
    "listed",
]

_SETTLE_NAVIGATION_S = 5.0
_SETTLE_TASKS_S = 0.5
"""How long the page may take to run what the action queued (a loaded machine, a busy
page): past it, the receipt reports what is known."""
_MAX_CONSOLE = 5
_MAX_DIFF_LINES = 30
_AUTO_DIFF_MAX_LINES = 1_500
_MAX_REQUESTS = 3
"""Requests a receipt names (the rest are counted)."""
_REQUEST_POLL_S = 0.005
NAMED_TYPES = frozenset({"fetch", "xhr", "document"})
"""Requests a receipt names once answered (calls to the site, frames); scripts and
stylesheets are waited for but not named unless still open."""
_ACTED_ON = re.compile(r"(?:^|→ )(e\d+) \(")
"""The refs of the elements an action names in its target (``RefEntry.describe``): one,
or two for a drag (``e3 (…) → e9 (…)``)."""
AWAITED_TYPES = frozenset({"fetch", "xhr", "script", "stylesheet", "document"})
"""Requests whose answer the page acts on. Not awaited: streams and sockets (open for
good), beacons, media, images and fonts (they change no text and log nothing)."""

# A zero-delay timer fires after the timers and tasks the action's handlers queued (a
# deferred navigation or re-render, a form submission): once it has, their CDP events
# (navigation requested, a new target, console errors) were sent ahead of this reply.
# (A posted message is not enough: after input Chromium holds timers back until the
# next frame, and messages overtake them.) It resolves to whether the document changed
# meanwhile (a MutationObserver), which tells a read taken during the wait from a stale one,
# to the document's title then (the browser's copy of it can lag behind), and to the text
# changes the action's watch saw so far (see text_changes.py; null where none runs).
_AFTER_QUEUED_TASKS = """new Promise(resolve => {
  let changed = false;  // records are delivered to the callback at each task's end
  const observer = new MutationObserver(() => { changed = true; });
  observer.observe(document, {subtree: true, childList: true, attributes: true,
                              characterData: true});
  setTimeout(() => {
    changed = changed || observer.takeRecords().length > 0;
    observer.disconnect();
    const watch = globalThis.__tabwardenText;
    resolve({changed, title: document.title, text: watch ? watch.collect() : null});
  }, 0);
})"""


@dataclass(frozen=True)
class Receipt:
    """The outcome of one action."""

    action: str
    target: str | None
    detail: str
    tab_id: str
    url: str
    title: str
    elapsed_ms: int
    navigated: bool = False
    new_tabs: list[str] = field(default_factory=list)
    dialog: PendingDialog | None = None
    """A dialog the action opened that waits for an answer."""
    closed_dialogs: list[ClosedDialog] = field(default_factory=list)
    """Dialogs that opened and were closed during the action (by a policy, say)."""
    frame_tree: tuple[FrameNode, ...] = ()
    """The tab's frames after the action."""
    console_errors: list[str] = field(default_factory=list)
    diff: SnapshotDiff | None = None
    diff_skipped: str = ""
    """Why there is no diff, when one was not taken (e.g. a large page)."""
    policy_blocks: list[str] = field(default_factory=list)
    """Navigations, popups and requests the URL policy blocked during the action."""
    downloads: list[str] = field(default_factory=list)
    """Downloads the action started: ``name (url)``."""
    requests: list[str] = field(default_factory=list)
    """Requests the action started that answered: ``POST /order 200 (305 ms)``."""
    still_open: list[str] = field(default_factory=list)
    """Requests it started still unanswered when the receipt stopped waiting:
    ``GET /api/slow (1.0 s)``."""
    settle_wait_ms: int = 0
    """How long the receipt waited for the requests the action started and for what their
    answers queued (0: it started none, and did not wait)."""
    text_changes: TextChanges | None = None
    """Text that appeared or went away in the page (None when it could not be watched)."""
    person_acted: PersonActs | None = None
    """A person's input to the tab since the agent's last snapshot (a live view's take over)."""

    @property
    def text(self) -> ReportText:
        """The compact form an agent reads."""
        head = f"{self.action}"
        if self.target:
            head += f" {self.target}"
        if self.detail:
            head += f": {self.detail}"
        lines = [f"{head} ({self.elapsed_ms} ms)"]
        if self.person_acted is not None:
            lines.append(self.person_acted.receipt_line())
        if self.navigated and any(b.startswith("navigation blocked") for b in self.policy_blocks):
            # Chromium shows its "blocked" page at the refused URL: the page did not load.
            lines.append(f"the tab now shows the browser's blocked page ({self.title!r})")
        elif self.navigated:
            lines.append(f"navigated to {self.url} {json.dumps(self.title, ensure_ascii=False)}")
        for tab_id in self.new_tabs:
            switch = call("switch_tab", tab_id=tab_id)
            lines.append(f"new tab opened: {tab_id} (switch to it with {switch})")
        if self.dialog is not None:
            lines.append(
                f"dialog open: {self.dialog.describe()} — answer it with "
                f"{self.dialog.answer_call()} before anything else"
            )
        for closed in self.closed_dialogs:
            lines.append(f"dialog closed: {closed.dialog.describe()} by {closed.closed_by}")
        lines += self.policy_blocks
        lines += [f"download started: {d} (see {call('downloads')})" for d in self.downloads]
        if self.requests:
            lines.append("requests: " + listed(self.requests))
        if self.still_open:
            count = len(self.still_open)
            lines.append(
                f"still waiting on {counted(count, 'request')}: " + listed(self.still_open)
            )
        for error in self.console_errors:
            lines.append(f"console error: {error}")
        diff_text = self.diff.text if self.diff is not None and not self.diff.empty else ""
        text_lines = self.text_changes.lines(diff_text) if self.text_changes else []
        if diff_text:
            lines.append("page changes:")
            lines.append(diff_text)
        elif self.diff is not None and not text_lines:
            lines.append("no visible change in the interactive view")
        elif self.diff_skipped:
            lines.append(f"page changes not diffed ({self.diff_skipped}): take a snapshot")
        lines += text_lines
        body = "\n".join(lines)
        return ReportText(f"{body}\n# {len(body):,} chars")

    def __str__(self) -> str:
        return self.text

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def carries_page_text(self) -> bool:
        """Whether the text carries words the page wrote: the accessible name of the
        element acted on (a page can name a button anything), a title it navigated to,
        dialog messages, console errors, URLs it requested or was refused, downloads, or
        how its text changed. A receipt for an element without a name, whose view changed
        only in that element's own line, is tabwarden's own words."""
        if _NAMED.search(self.target or ""):
            return True
        changed = self.diff is not None and not _only_acted_on(self.diff, self.target)
        texts = self.text_changes is not None and bool(
            self.text_changes.appeared or self.text_changes.gone
        )
        return bool(
            self.navigated
            or self.dialog is not None
            or self.closed_dialogs
            or self.console_errors
            or self.policy_blocks
            or self.downloads
            or self.requests
            or self.still_open
            or changed
            or texts
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "target": self.target,
            "detail": self.detail,
            "tab_id": self.tab_id,
            "url": self.url,
            "title": self.title,
            "elapsed_ms": self.elapsed_ms,
            "navigated": self.navigated,
            "new_tabs": self.new_tabs,
            "dialog": None if self.dialog is None else self.dialog.to_dict(),
            "pending_dialogs": [] if self.dialog is None else [self.dialog.to_dict()],
            "recent_dialogs": [d.to_dict() for d in self.closed_dialogs],
            "frame_tree": [f.to_dict() for f in self.frame_tree],
            "console_errors": self.console_errors,
            "policy_blocks": self.policy_blocks,
            "downloads": self.downloads,
            "requests": self.requests,
            "still_open": self.still_open,
            "settle_wait_ms": self.settle_wait_ms,
            "text_changes": None if self.text_changes is None else self.text_changes.to_dict(),
            "person_acted": None if self.person_acted is None else self.person_acted.to_dict(),
            "diff": None
            if self.diff is None
            else {
                "added": self.diff.added,
                "removed": self.diff.removed,
                "changed": self.diff.changed,
                "truncated": self.diff.truncated,
            },
            "text": str(self.text),
        }


class ActionWatch:
    """Collects an action's consequences; open it before the action starts."""

    def __init__(
        self, tab: Page, services: SessionServices, supervisor: Supervisor, text_watch: TextWatch
    ) -> None:
        self._tab = tab
        self._text_watch = text_watch
        self._services = services
        self._supervisor = supervisor
        self._started = time.monotonic()
        self.loading = False
        self.navigated = False
        self.loader_id: str | None = None
        self.lifecycle: dict[str, set[str]] = {}
        self.new_targets: list[str] = []
        self._wall_started = time.time()
        self.console_errors: list[str] = []
        self.title: str | None = None
        """The document's title once the action's queued tasks ran (None: not read)."""
        self.text_changes: TextChanges | None = None
        self.settle_wait_ms = 0
        self._watching: asyncio.Future[int | None] | None = None
        """Starts the text watch; its result is the world it runs in."""
        main = tab.frames.main_session
        connection = main.connection
        self._subscriptions: list[Subscription] = [
            main.subscribe("Page.frameStartedLoading", self._on_started_loading),
            main.subscribe("Page.frameRequestedNavigation", self._on_started_loading),
            main.subscribe("Page.frameNavigated", self._on_navigated),
            main.subscribe("Page.navigatedWithinDocument", self._on_same_document),
            main.subscribe("Page.lifecycleEvent", self._on_lifecycle),
            connection.subscribe("Target.targetCreated", self._on_target, None),
        ]
        for session in tab.frames.sessions():
            self._subscriptions += [
                session.subscribe("Runtime.exceptionThrown", self._on_exception),
                session.subscribe("Runtime.consoleAPICalled", self._on_console),
            ]

    def __enter__(self) -> ActionWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        for subscription in self._subscriptions:
            subscription.close()
        if self._watching is not None and not self._watching.done():
            self._watching.cancel()  # the page's watch stops by itself

    def start(self, budget: Budget) -> None:
        """Start watching the page's text before the action's input: sent at once, ahead
        of the action's own commands to the page (a session's commands run in order)."""
        self._watching = asyncio.get_running_loop().create_task(
            self._watch_text(budget), name=f"text watch of tab {self._tab.id}"
        )

    async def _watch_text(self, budget: Budget) -> int | None:
        """The world the text watch runs in (None: it could not be started)."""
        # It lives as long as the action may, and stops once the receipt has not read it
        # for longer than a wait for requests can take.
        idle_ms = self._services.config.browser.receipt_settle_ms + 1_000
        try:
            return await self._text_watch.start(
                self._tab.frames, budget.remaining() * 1000, idle_ms, budget
            )
        except TabwardenError:
            return None  # no text report: the diff still says what changed

    async def receipt(
        self,
        action: str,
        target: str | None,
        detail: str,
        budget: Budget,
        *,
        diff: bool = True,
    ) -> Receipt:
        """Let the page settle (bounded), then describe what happened."""
        tab = self._tab
        snapshot_diff = None
        skipped = ""
        mode = self._services.config.browser.receipt_diff
        if mode == "off":
            diff = False
        elif mode == "auto" and len(tab.last_view) > _AUTO_DIFF_MAX_LINES:
            diff, skipped = False, f"a large page: {len(tab.last_view):,} lines"
        before = list(tab.last_view)
        loop = asyncio.get_running_loop()
        settling = loop.create_task(self._settle(budget), name=f"settle {action}")
        early: asyncio.Task[tuple[bool, PageView | None]] | None = None
        if diff and tab.pending_dialog is None and not self.loading:
            # Read the page while it settles (the settle's observer is in place first:
            # it was sent first); the read is kept when nothing changed after it.
            early = loop.create_task(
                tab.until_dialog(tab.read_view(budget.child(5.0))), name=f"read after {action}"
            )
        try:
            changed = await settling
            if diff and tab.pending_dialog is None:
                snapshot = await _result(early) if early is not None else None
                if snapshot is None or changed or self.loading:
                    try:
                        snapshot = await tab.read_view(budget.child(5.0))
                    except TabwardenError:
                        snapshot = None  # the action happened; a failed diff must not hide it
                if snapshot is not None:
                    snapshot_diff = diff_lines(before, snapshot.lines, max_lines=_MAX_DIFF_LINES)
            else:
                if early is not None:
                    await _result(early)
                await tab.refresh_info(budget)
                if self.title is not None and not self.loading:
                    tab.saw_title(self.title)  # the page's own, newer than the browser's copy
        finally:
            for task in (settling, early):
                if task is not None and not task.done():
                    task.cancel()
                    await asyncio.wait({task})
        requests = [r for r in self._awaited() if r.state != "redirected"]
        state = self._supervisor.state(tab)
        new_tabs = []
        for target_id in self.new_targets:
            other = self._services.pages.by_target(target_id)
            if other is not None:
                new_tabs.append(other.id)
        return Receipt(
            action=action,
            target=target,
            detail=detail,
            tab_id=tab.id,
            url=clip_url(tab.url),
            title=clip_title(tab.title),
            elapsed_ms=int((time.monotonic() - self._started) * 1000),
            navigated=self.navigated,
            new_tabs=new_tabs,
            dialog=tab.pending_dialog,
            closed_dialogs=[
                d for d in state.recent_dialogs if d.dialog.opened_at >= self._wall_started
            ],
            frame_tree=state.frame_tree,
            console_errors=self.console_errors[:_MAX_CONSOLE],
            diff=snapshot_diff,
            diff_skipped=skipped,
            policy_blocks=await self._supervisor.guard.receipt_lines(
                tab, self._wall_started, self.new_targets, budget
            ),
            downloads=self._services.downloads.started_since(tab.id, self._wall_started),
            requests=[
                describe_request(r, tab.url)
                for r in requests
                if r.state != "pending" and r.type in NAMED_TYPES
            ],
            still_open=[describe_request(r, tab.url) for r in requests if r.state == "pending"],
            settle_wait_ms=self.settle_wait_ms,
            text_changes=None if self.loading else self.text_changes,
            person_acted=tab.take_person_activity(),
        )

    async def _settle(self, budget: Budget) -> bool:
        """Until the timers and tasks the action queued have run; a navigation that
        started: until DOMContentLoaded (bounded). True when the document changed (or
        may have) while it settled."""
        if self._tab.pending_dialog is not None:
            return True
        if not self.loading:
            changed = await self._after_queued_tasks(budget)
            waited = not self.loading and changed is not None
            if waited and await self._until_requests_answered(budget):
                changed = True  # their answers changed the page after the first read
            if not self.loading:
                return changed is not False
        wait = budget.child(_SETTLE_NAVIGATION_S)
        while not self._dom_ready() and self._tab.pending_dialog is None and not wait.expired:
            if self._became_download():
                return True  # the response was a download: no document will load
            await wait.sleep(0.02)  # still loading at the deadline: report what is known
        return True

    async def _after_queued_tasks(self, budget: Budget) -> bool | None:
        """Until the tasks queued so far have run (see _AFTER_QUEUED_TASKS); whether the
        document changed meanwhile (None: not known). Runs in tabwarden's world where the
        text watch runs, which it reads too."""
        context = None
        if self._watching is not None and self._watching.done():
            with contextlib.suppress(asyncio.CancelledError):
                context = self._watching.result()
        params: dict[str, Any] = {
            "expression": _AFTER_QUEUED_TASKS,
            "awaitPromise": True,
            "returnByValue": True,
        }
        if context is not None:
            params["contextId"] = context
        try:
            reply = await self._tab.frames.main_session.send(
                "Runtime.evaluate", params, budget=budget.child(_SETTLE_TASKS_S)
            )
        except (DeadlineExceeded, CDPError):  # CDPError: it navigated meanwhile
            return None
        settled = reply.get("result", {}).get("value")
        if not isinstance(settled, dict):
            return None
        title = settled.get("title")
        self.title = title if isinstance(title, str) else None
        text = TextChanges.from_page(settled.get("text"))
        if text is not None:
            self.text_changes = text
        return settled.get("changed") is not False

    async def _until_requests_answered(self, budget: Budget) -> bool:
        """Until the requests the action started have answered and the page has run what
        their answers queued (and again for requests those started), within
        ``browser.receipt_settle_ms`` and half of what is left of the call's budget.
        Returns at once when it started none; True when it waited."""
        settle_s = self._services.config.browser.receipt_settle_ms / 1000
        requests = self._awaited()
        if not requests or settle_s <= 0:
            return False
        started = time.monotonic()
        wait = budget.child(min(settle_s, budget.remaining() / 2))
        handled: set[str] = set()  # answered, and the page has run what the answer queued
        while not all(r.id in handled for r in requests):
            # The network log follows every request of the tab (diagnostics/network.py).
            while any(r.state == "pending" for r in requests) and not self._stop_waiting(wait):
                await wait.sleep(_REQUEST_POLL_S)
                requests = self._awaited()
            if any(r.state == "pending" for r in requests) or self._interrupted():
                break
            answered = {r.id for r in requests}
            # The page runs what the answers queued (from the call's budget: answers that
            # came at the bound still get it); a dialog it opens ends the wait.
            finished, changed = await self._tab.until_dialog(self._after_queued_tasks(budget))
            if not finished or changed is None or self._interrupted():
                break
            handled |= answered
            if wait.expired or wait.cancelled:
                break
            requests = self._awaited()  # and what those answers started in turn
        self.settle_wait_ms = max(1, round((time.monotonic() - started) * 1000))
        return True

    def _stop_waiting(self, wait: Budget) -> bool:
        return self._interrupted() or wait.expired or wait.cancelled

    def _interrupted(self) -> bool:
        """A navigation or a dialog: the page's requests are no longer what to wait for."""
        return self.loading or self._tab.pending_dialog is not None

    def _awaited(self) -> list[NetworkRequest]:
        """Requests sent since the action began that the page will act on when they
        answer (the tab's own navigation is followed by its lifecycle instead)."""
        tab = self._tab
        return [
            r
            for r in self._supervisor.network.started_since(tab, self._wall_started)
            if r.type in AWAITED_TYPES
            and not (r.type == "document" and r.frame_id == tab.target_id)
        ]

    def _became_download(self) -> bool:
        return bool(self._services.downloads.started_since(self._tab.id, self._wall_started))

    def _dom_ready(self) -> bool:
        return bool(self.loader_id) and "DOMContentLoaded" in self.lifecycle.get(
            self.loader_id or "", set()
        )

    # ---- event handlers -------------------------------------------------------------

    def _on_started_loading(self, event: Event) -> None:
        if event.params.get("frameId") == self._tab.target_id:
            self.loading = True

    def _on_navigated(self, event: Event) -> None:
        frame = event.params.get("frame", {})
        if frame.get("id") == self._tab.target_id and not frame.get("parentId"):
            self.navigated = True
            self.loading = True
            self.loader_id = frame.get("loaderId")

    def _on_same_document(self, event: Event) -> None:
        if event.params.get("frameId") == self._tab.target_id:
            self.navigated = True

    def _on_lifecycle(self, event: Event) -> None:
        if event.params.get("frameId") == self._tab.target_id:
            loader = event.params.get("loaderId", "")
            self.lifecycle.setdefault(loader, set()).add(event.params.get("name", ""))

    def _on_target(self, event: Event) -> None:
        info = event.params.get("targetInfo", {})
        if info.get("type") == "page" and info.get("openerId") == self._tab.target_id:
            self.new_targets.append(info["targetId"])

    def _on_exception(self, event: Event) -> None:
        details = event.params.get("exceptionDetails", {})
        text = details.get("exception", {}).get("description") or details.get("text", "")
        where = f" ({details.get('url', '')}:{details.get('lineNumber', 0) + 1})"
        self.console_errors.append(text.splitlines()[0][:200] + where if text else where)

    def _on_console(self, event: Event) -> None:
        if event.params.get("type") not in ("error", "assert"):
            return
        args = event.params.get("args", [])
        text = " ".join(str(a.get("value", a.get("description", ""))) for a in args)
        self.console_errors.append(text[:200])


_NAMED = re.compile(r'\(\w+ "')
"""A target named by the page: ``e4 (textbox "Name")``."""


def _only_acted_on(diff: SnapshotDiff, target: str | None) -> bool:
    """The diff changes nothing but the lines of the elements acted on (a field's new
    value, a box now checked), named by ref in the target (``e4 (textbox "Name")``)."""
    refs = _ACTED_ON.findall(target or "")
    return not (diff.added or diff.removed) and all(
        any(f"[ref={ref}]" in line for ref in refs) for line in diff.changed
    )


def describe_request(request: NetworkRequest, page_url: str) -> str:
    """``POST /order 200 (305 ms)``, ``GET /api/slow (1.0 s)`` while open."""
    page = urlsplit(page_url)
    url = request.url
    origin = f"{page.scheme}://{page.netloc}"
    if page.netloc and url.startswith(origin + "/"):
        url = url[len(origin) :]
    if len(url) > 100:
        url = url[:99] + "…"
    if request.state == "pending":
        return f"{request.method} {url} ({max(0.0, time.time() - request.started_at):.1f} s)"
    if request.state == "failed":
        outcome = "canceled" if request.canceled else request.failure or "failed"
    else:
        outcome = str(request.status)
    took = f" ({request.duration_ms} ms)" if request.duration_ms is not None else ""
    return f"{request.method} {url} {outcome}{took}"


def listed(items: list[str]) -> str:
    shown = "; ".join(items[:_MAX_REQUESTS])
    more = len(items) - _MAX_REQUESTS
    return shown + (f"; and {more} more (see browser_network)" if more > 0 else "")


async def _result(
    early: asyncio.Future[tuple[bool, PageView | None]],
) -> PageView | None:
    """The early read of the page, or None when it failed or a dialog cut it short."""
    try:
        finished, snapshot = await early
    except TabwardenError:
        return None
    return snapshot if finished else None
