"""The network log of a browser session: each tab's requests (OOPIFs included) from the
``Network`` domain's events, in a bounded ring per tab, with filters, and one request's
headers and bodies fetched on demand."""

from __future__ import annotations

import base64
import builtins
import re
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from ..budget import Budget
from ..cdp.connection import CDPConnection
from ..cdp.protocol import ANY_SESSION, Event, Subscription
from ..cdp.session import CDPSession
from ..counting import counted
from ..errors import CDPError, InvalidArgument
from ..name_lists import split_names
from ..report_text import ReportText
from .journal import Journal

if TYPE_CHECKING:
    from ..page import Page
    from ..services import SessionServices

__all__ = [
    "RESOURCE_TYPES",
    "Exchange",
    "NetworkLog",
    "NetworkReport",
    "NetworkRequest",
    "RequestDetails",
    "RequestFilter",
    "TabNetwork",
    "bounded",
    "bounded_headers",
    "count_error",
    "decode_body",
    "details_report",
    "errors_line",
    "find_exchange",
    "keep_post_data",
    "list_report",
    "requests_since",
    "unfinished_body",
    "watched_entry",
]

RESOURCE_TYPES = (
    "document",
    "stylesheet",
    "image",
    "media",
    "font",
    "script",
    "texttrack",
    "xhr",
    "fetch",
    "prefetch",
    "eventsource",
    "websocket",
    "manifest",
    "signedexchange",
    "ping",
    "cspviolationreport",
    "preflight",
    "fedcm",
    "other",
)
"""CDP's ``Network.ResourceType`` names, lower-cased."""

State = Literal["pending", "finished", "failed", "redirected"]

_MAX_URL = 2_000
_SHOWN_URL = 200
_MAX_HEADERS = 100
_MAX_HEADER_VALUE = 2_000
_TEXT_MIME = re.compile(
    r"^text/|[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded)\b|^image/svg"
)


@dataclass
class Exchange:
    """One request and its response as the events arrive (mutated on the reader)."""

    number: int
    request_id: str
    session_id: str | None
    frame_id: str
    method: str
    url: str
    type: str
    started_at: float
    start_ts: float
    request_headers: dict[str, str]
    post_data: str | None = None
    """Kept up to the body limit; ``post_data_bytes`` is its whole size."""
    post_data_bytes: int = 0
    has_post_data: bool = False
    sent_headers: dict[str, str] | None = None
    status: int | None = None
    status_text: str = ""
    mime_type: str = ""
    response_headers: dict[str, str] = field(default_factory=dict)
    received_headers: dict[str, str] | None = None
    remote: str = ""
    protocol: str = ""
    end_ts: float | None = None
    encoded_bytes: int | None = None
    failure: str = ""
    blocked_reason: str = ""
    canceled: bool = False
    from_cache: bool = False
    redirected_to: str = ""
    redirected_from: str = ""
    state: State = "pending"

    @property
    def id(self) -> str:
        return f"r{self.number}"

    def freeze(self) -> NetworkRequest:
        duration = None
        if self.end_ts is not None:
            duration = max(0, round((self.end_ts - self.start_ts) * 1000))
        return NetworkRequest(
            id=self.id,
            request_id=self.request_id,
            method=self.method,
            url=self.url,
            type=self.type,
            state=self.state,
            status=self.status,
            status_text=self.status_text,
            mime_type=self.mime_type,
            started_at=self.started_at,
            duration_ms=duration,
            encoded_bytes=self.encoded_bytes,
            failure=self.failure,
            blocked_reason=self.blocked_reason,
            canceled=self.canceled,
            from_cache=self.from_cache,
            frame_id=self.frame_id,
            redirected_to=self.redirected_to,
            redirected_from=self.redirected_from,
            remote=self.remote,
        )


@dataclass(frozen=True, slots=True)
class NetworkRequest:
    """One request as it stands: what was asked, what came back, how long, how big."""

    id: str
    """This tab's id for it (``r12``): pass it as ``request_id`` for the details."""
    request_id: str
    """The browser's id (``Network.RequestId``); redirects share it."""
    method: str
    url: str
    type: str
    """document, xhr, fetch, script, image… (lower case)."""
    state: State
    status: int | None
    status_text: str
    mime_type: str
    started_at: float
    """Wall-clock time it was sent (seconds since the epoch)."""
    duration_ms: int | None
    """Until the response finished, failed or was redirected; None while pending."""
    encoded_bytes: int | None
    """Bytes received over the network (headers included); None until finished."""
    failure: str
    """The network error (``net::ERR_CONNECTION_REFUSED``…) when it failed."""
    blocked_reason: str
    canceled: bool
    from_cache: bool
    frame_id: str
    redirected_to: str
    redirected_from: str
    remote: str

    @property
    def failed(self) -> bool:
        return self.state == "failed"

    def line(self) -> str:
        """``r4 GET 404 xhr 12 ms 1.2 kB http://…`` (one line, bounded)."""
        if self.state == "failed":
            outcome = "canceled" if self.canceled else "failed"
        elif self.status is not None:
            outcome = str(self.status)
        else:
            outcome = "pending"
        parts = [self.id, self.method, outcome, self.type]
        if self.duration_ms is not None:
            parts.append(f"{self.duration_ms} ms")
        if self.encoded_bytes is not None and self.state == "finished":
            parts.append(_size(self.encoded_bytes))
        if self.from_cache:
            parts.append("(cache)")
        if self.state == "failed" and not self.canceled:
            reason = self.failure or "failed"
            parts.append(reason + (f" ({self.blocked_reason})" if self.blocked_reason else ""))
        parts.append(_clip(self.url))
        if self.redirected_to:
            parts.append(f"→ {_clip(self.redirected_to)}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "request_id": self.request_id,
            "method": self.method,
            "url": self.url,
            "type": self.type,
            "state": self.state,
            "status": self.status,
            "status_text": self.status_text,
            "mime_type": self.mime_type,
            "started_at": self.started_at,
            "duration_ms": self.duration_ms,
            "encoded_bytes": self.encoded_bytes,
            "failure": self.failure,
            "blocked_reason": self.blocked_reason,
            "canceled": self.canceled,
            "from_cache": self.from_cache,
            "frame_id": self.frame_id,
            "redirected_to": self.redirected_to,
            "redirected_from": self.redirected_from,
            "remote": self.remote,
        }


@dataclass(frozen=True)
class RequestDetails:
    """One request's headers and (bounded) bodies."""

    request: NetworkRequest
    request_headers: tuple[tuple[str, str], ...]
    response_headers: tuple[tuple[str, str], ...]
    headers_sent: bool
    """True when the request headers are those really sent (cookies included), not the
    renderer's provisional ones."""
    post_data: str | None
    post_data_note: str
    body: str | None
    body_note: str
    """Why there is no body, or what was cut (binary bodies are summarised here)."""
    body_bytes: int | None
    """The whole body's size in bytes, when it was read."""

    @property
    def text(self) -> ReportText:
        req = self.request
        lines = [req.line()]
        if req.status is not None:
            lines.append(f"status: {req.status} {req.status_text}".rstrip())
        if req.mime_type:
            lines.append(f"mime type: {req.mime_type}")
        if req.remote:
            lines.append(f"remote: {req.remote}")
        if req.redirected_from:
            lines.append(f"redirected from: {_clip(req.redirected_from)}")
        which = "" if self.headers_sent else " (provisional: the browser did not report more)"
        lines.append(f"request headers{which}:")
        lines += [f"  {name}: {value}" for name, value in self.request_headers]
        if self.response_headers:
            lines.append("response headers:")
            lines += [f"  {name}: {value}" for name, value in self.response_headers]
        if self.post_data is not None or self.post_data_note:
            lines.append(
                "request body:" + (f" ({self.post_data_note})" if self.post_data_note else "")
            )
            if self.post_data is not None:
                lines.append(self.post_data)
        lines.append("response body:" + (f" ({self.body_note})" if self.body_note else ""))
        if self.body is not None:
            lines.append(self.body)
        return ReportText("\n".join(lines))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "request": self.request.to_dict(),
            "request_headers": dict(self.request_headers),
            "response_headers": dict(self.response_headers),
            "headers_sent": self.headers_sent,
            "post_data": self.post_data,
            "post_data_note": self.post_data_note,
            "body": self.body,
            "body_note": self.body_note,
            "body_bytes": self.body_bytes,
        }


@dataclass(frozen=True)
class RequestFilter:
    """Which requests a listing shows: by URL (substring or ``/regex/``), type and status."""

    url: str | None = None
    types: tuple[str, ...] | None = None
    statuses: tuple[str, ...] | None = None
    _pattern: re.Pattern[str] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def parse(
        cls,
        url: str | None = None,
        type: str | Iterable[str] | None = None,
        status: str | int | Iterable[str | int] | None = None,
    ) -> RequestFilter:
        pattern = _url_pattern(url) if url else None
        return cls(url or None, _types(type), _statuses(status), pattern)

    def matches(self, request: NetworkRequest) -> bool:
        if self.url is not None:
            if self._pattern is not None:
                if not self._pattern.search(request.url):
                    return False
            elif self.url.lower() not in request.url.lower():
                return False
        if self.types is not None and request.type not in self.types:
            return False
        return self.statuses is None or any(_status_matches(s, request) for s in self.statuses)

    def describe(self) -> str:
        parts = []
        if self.url is not None:
            parts.append(f"url {self.url}")
        if self.types is not None:
            parts.append("type " + "|".join(self.types))
        if self.statuses is not None:
            parts.append("status " + "|".join(self.statuses))
        return ", ".join(parts)


@dataclass(frozen=True)
class NetworkReport:
    """A network listing (or one request's details) with the ring's size and drops."""

    tab_id: str
    requests: tuple[NetworkRequest, ...]
    matched: int
    filter: RequestFilter
    size: int
    capacity: int
    dropped: int
    cleared: bool = False
    details: RequestDetails | None = None

    @property
    def text(self) -> ReportText:
        if self.details is not None:
            return self.details.text
        which = self.filter.describe()
        head = f"network of tab {self.tab_id}" + (f" ({which})" if which else "") + ": "
        head += f"showing {len(self.requests)} of {self.matched}" if self.matched else "no requests"
        notes = [f"ring holds {self.size} of {self.capacity}"]
        if self.dropped:
            notes.append(f"{self.dropped} dropped")
        if self.cleared:
            notes.append("cleared after reading")
        lines = [f"{head} ({', '.join(notes)})"]
        lines += [request.line() for request in self.requests]
        return ReportText("\n".join(lines))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "tab_id": self.tab_id,
            "requests": [r.to_dict() for r in self.requests],
            "matched": self.matched,
            "size": self.size,
            "capacity": self.capacity,
            "dropped": self.dropped,
            "cleared": self.cleared,
        }
        if self.details is not None:
            data["details"] = self.details.to_dict()
        return data


class TabNetwork:
    """One tab's requests: the ring, the live ones by browser id, early ExtraInfo."""

    def __init__(self, capacity: int) -> None:
        self.journal: Journal[Exchange] = Journal(capacity)
        self.live: dict[str, Exchange] = {}
        self.early_sent: dict[str, dict[str, str]] = {}
        self.early_received: dict[str, dict[str, str]] = {}
        self.unseen: Counter[str] = Counter()
        """Failures and HTTP errors since the last snapshot header."""

    def add(self, exchange: Exchange) -> None:
        exchange.number = self.journal.append(exchange)
        self.live[exchange.request_id] = exchange
        sent = self.early_sent.pop(exchange.request_id, None)
        if sent is not None:
            exchange.sent_headers = sent
        capacity = self.journal.statistics().capacity
        if len(self.live) > 2 * capacity:
            # Keep the index as bounded as the ring: drop what the ring let go.
            oldest = self.journal.first_number()
            self.live = {k: v for k, v in self.live.items() if v.number >= oldest}

    def early(self, store: dict[str, dict[str, str]], request_id: str, headers: Any) -> None:
        store[request_id] = bounded_headers(headers)
        while len(store) > 200:  # ExtraInfo for requests never reported: bounded
            store.pop(next(iter(store)))


def errors_line(unseen: Counter[str]) -> str:
    """``network: 1 failed request, 2 HTTP 404`` for a snapshot's header ("" for none)."""
    if not unseen:
        return ""
    unseen = Counter(unseen)
    parts = []
    failed = unseen.pop("failed", 0)
    if failed:
        parts.append(counted(failed, "failed request"))
    statuses = unseen.most_common()
    parts += [f"{count} HTTP {status}" for status, count in statuses[:3]]
    rest = sum(count for _, count in statuses[3:])
    if rest:
        parts.append(counted(rest, "more HTTP error"))
    return "network: " + ", ".join(parts)


def count_error(state: TabNetwork, exchange: Exchange) -> None:
    """Count a request that failed (not canceled) or answered 400+ for the next
    snapshot's header (a missing favicon is not the page's error)."""
    if _is_favicon(exchange):
        return
    if exchange.state == "failed" and not exchange.canceled:
        state.unseen["failed"] += 1
    elif exchange.state != "failed" and exchange.status is not None and exchange.status >= 400:
        state.unseen[str(exchange.status)] += 1


def requests_since(state: TabNetwork, wall_time: float) -> tuple[NetworkRequest, ...]:
    """A tab's requests sent at or after ``wall_time`` (``time.time()``), oldest first,
    each as it stands now (either engine's log)."""
    recent = []
    for _, exchange in reversed(state.journal.entries()):
        if exchange.started_at < wall_time:
            break
        recent.append(exchange.freeze())
    return tuple(reversed(recent))


class NetworkLog:
    """Requests per tab, each tab's in a ring of ``capacity`` requests; bodies shown (and
    post data kept) up to ``body_max_bytes``."""

    def __init__(self, services: SessionServices, capacity: int, body_max_bytes: int) -> None:
        self._services = services
        self._capacity = capacity
        self._body_max_bytes = body_max_bytes
        self._tabs: dict[str, TabNetwork] = {}
        self._lock = threading.Lock()

    # ---- life ----------------------------------------------------------------------

    def attach(self, connection: CDPConnection) -> list[Subscription]:
        """Listen on every session of ``connection`` (pages and OOPIFs alike)."""
        return [
            connection.subscribe(method, handler, ANY_SESSION)
            for method, handler in (
                ("Network.requestWillBeSent", self._on_request),
                ("Network.requestWillBeSentExtraInfo", self._on_request_extra),
                ("Network.responseReceived", self._on_response),
                ("Network.responseReceivedExtraInfo", self._on_response_extra),
                ("Network.loadingFinished", self._on_finished),
                ("Network.loadingFailed", self._on_failed),
                ("Network.requestServedFromCache", self._on_from_cache),
            )
        ]

    def forget(self, tab_id: str) -> None:
        with self._lock:
            self._tabs.pop(tab_id, None)

    def forget_all(self) -> None:
        with self._lock:
            self._tabs.clear()

    # ---- reading -------------------------------------------------------------------

    def list(
        self,
        tab: Page,
        request_filter: RequestFilter,
        *,
        max_entries: int = 50,
        clear: bool = False,
    ) -> NetworkReport:
        """The newest ``max_entries`` requests that match, oldest first."""
        return list_report(
            tab.id, self._tab(tab.id), request_filter, max_entries=max_entries, clear=clear
        )

    def started_since(self, tab: Page, wall_time: float) -> tuple[NetworkRequest, ...]:
        """The tab's requests sent at or after ``wall_time`` (seconds since the epoch, as
        ``time.time()``), oldest first, each as it stands now."""
        return requests_since(self._tab(tab.id), wall_time)

    async def details(self, tab: Page, request_id: str, budget: Budget) -> NetworkReport:
        """One request with its headers, post data and response body (bounded)."""
        state = self._tab(tab.id)
        exchange = find_exchange(state, request_id)
        session = CDPSession(self._services.connection, exchange.session_id)
        limit = self._body_max_bytes
        post_data, post_note = await _post_data(session, exchange, budget, limit)
        body, body_note, body_bytes = await _response_body(session, exchange, budget, limit)
        return details_report(
            tab.id, state, exchange, (post_data, post_note), (body, body_note, body_bytes)
        )

    def summary(self, tab: Page) -> str:
        """``network: 1 failed request, 2 HTTP 404`` since the last snapshot (empty when
        nothing went wrong); marks them seen."""
        state = self._tab(tab.id)
        with self._lock:
            unseen, state.unseen = state.unseen, Counter()
        return errors_line(unseen)

    # ---- event handlers (on the reader: never await) --------------------------------

    def _on_request(self, event: Event) -> None:
        owner = self._services.pages.of_session(event.session_id)
        if owner is None:
            return
        tab, frame_id = owner
        params = event.params
        state = self._tab(tab.id)
        request_id = str(params.get("requestId", ""))
        request = params.get("request", {})
        url = (str(request.get("url", "")) + str(request.get("urlFragment", "")))[:_MAX_URL]
        previous = state.live.get(request_id)
        redirect = params.get("redirectResponse")
        if previous is not None and isinstance(redirect, dict):
            _apply_response(previous, redirect)
            previous.end_ts = _number(params.get("timestamp"), previous.start_ts)
            previous.encoded_bytes = _int(redirect.get("encodedDataLength"))
            previous.redirected_to = url
            previous.state = "redirected"
            received = state.early_received.pop(request_id, None)
            if received is not None:
                previous.received_headers = received
        elif previous is not None:
            return  # the same request reported again (by a parent and a child session)
        exchange = Exchange(
            number=0,
            request_id=request_id,
            session_id=event.session_id,
            frame_id=str(params.get("frameId") or frame_id),
            method=str(request.get("method", "GET")),
            url=url,
            type=str(params.get("type", "Other")).lower(),
            started_at=_number(params.get("wallTime"), time.time()),
            start_ts=_number(params.get("timestamp"), 0.0),
            request_headers=bounded_headers(request.get("headers")),
            has_post_data=bool(request.get("hasPostData")),
            redirected_from=previous.url if previous is not None and redirect else "",
        )
        keep_post_data(exchange, request.get("postData"), self._body_max_bytes)
        state.add(exchange)
        if previous is not None and redirect is not None:
            self._changed(tab.id, previous)
        self._changed(tab.id, exchange)

    def _on_request_extra(self, event: Event) -> None:
        state = self._state_of(event)
        if state is None:
            return
        request_id = str(event.params.get("requestId", ""))
        exchange = state.live.get(request_id)
        if exchange is not None and exchange.status is None:
            exchange.sent_headers = bounded_headers(event.params.get("headers"))
        else:
            state.early(state.early_sent, request_id, event.params.get("headers"))

    def _on_response(self, event: Event) -> None:
        owner = self._services.pages.of_session(event.session_id)
        if owner is None:
            return
        state = self._tab(owner[0].id)
        exchange = state.live.get(str(event.params.get("requestId", "")))
        if exchange is None:
            return
        _apply_response(exchange, event.params.get("response", {}))
        if event.params.get("type"):
            exchange.type = str(event.params["type"]).lower()
        received = state.early_received.pop(exchange.request_id, None)
        if received is not None:
            exchange.received_headers = received
        if exchange.status is not None and exchange.status >= 400 and not _is_favicon(exchange):
            with self._lock:
                state.unseen[str(exchange.status)] += 1
        self._changed(owner[0].id, exchange)

    def _on_response_extra(self, event: Event) -> None:
        state = self._state_of(event)
        if state is None:
            return
        request_id = str(event.params.get("requestId", ""))
        exchange = state.live.get(request_id)
        if exchange is not None and exchange.status is not None:
            exchange.received_headers = bounded_headers(event.params.get("headers"))
        else:
            # Often comes before responseReceived: kept until the response arrives.
            state.early(state.early_received, request_id, event.params.get("headers"))

    def _on_finished(self, event: Event) -> None:
        exchange = self._exchange_of(event)
        if exchange is None or exchange.state != "pending":
            return
        exchange.end_ts = _number(event.params.get("timestamp"), exchange.start_ts)
        exchange.encoded_bytes = _int(event.params.get("encodedDataLength"))
        exchange.state = "finished"
        self._changed_by(event, exchange)

    def _on_failed(self, event: Event) -> None:
        exchange = self._exchange_of(event)
        if exchange is None or exchange.state != "pending":
            return
        params = event.params
        exchange.end_ts = _number(params.get("timestamp"), exchange.start_ts)
        exchange.failure = str(params.get("errorText", ""))
        exchange.canceled = bool(params.get("canceled"))
        exchange.blocked_reason = str(
            params.get("blockedReason") or params.get("corsErrorStatus", {}).get("corsError", "")
        )
        exchange.state = "failed"
        if not exchange.canceled and not _is_favicon(exchange):
            state = self._state_of(event)
            if state is not None:
                with self._lock:
                    state.unseen["failed"] += 1
        self._changed_by(event, exchange)

    def _on_from_cache(self, event: Event) -> None:
        exchange = self._exchange_of(event)
        if exchange is not None:
            exchange.from_cache = True

    # ---- private -------------------------------------------------------------------

    def _changed(self, tab_id: str, exchange: Exchange) -> None:
        """Tell the session's watchers (the workbench) how a request stands now."""
        activity = self._services.activity
        if activity.watched:
            activity.publish("network", {"tab": tab_id, "entry": watched_entry(exchange)}, tab_id)

    def _changed_by(self, event: Event, exchange: Exchange) -> None:
        if self._services.activity.watched:
            owner = self._services.pages.of_session(event.session_id)
            if owner is not None:
                self._changed(owner[0].id, exchange)

    def entries(self, tab_id: str) -> builtins.list[dict[str, Any]]:
        """A tab's requests held now, oldest first, as watchers get them."""
        return [watched_entry(exchange) for _, exchange in self._tab(tab_id).journal.entries()]

    def _tab(self, tab_id: str) -> TabNetwork:
        with self._lock:
            state = self._tabs.get(tab_id)
            if state is None:
                state = self._tabs[tab_id] = TabNetwork(self._capacity)
            return state

    def _state_of(self, event: Event) -> TabNetwork | None:
        owner = self._services.pages.of_session(event.session_id)
        return self._tab(owner[0].id) if owner is not None else None

    def _exchange_of(self, event: Event) -> Exchange | None:
        state = self._state_of(event)
        if state is None:
            return None
        return state.live.get(str(event.params.get("requestId", "")))


def list_report(
    tab_id: str,
    state: TabNetwork,
    request_filter: RequestFilter,
    *,
    max_entries: int = 50,
    clear: bool = False,
) -> NetworkReport:
    """The newest ``max_entries`` requests of a tab's log that match, oldest first
    (``clear``: the log is emptied after reading)."""
    if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
        raise InvalidArgument(f"max_entries must be a positive whole number, got {max_entries!r}")
    requests = [exchange.freeze() for _, exchange in state.journal.entries()]
    matched = [r for r in requests if request_filter.matches(r)]
    stats = state.journal.statistics()
    if clear:
        state.journal.clear()
    return NetworkReport(
        tab_id=tab_id,
        requests=tuple(matched[-max_entries:]),
        matched=len(matched),
        filter=request_filter,
        size=stats.size,
        capacity=stats.capacity,
        dropped=stats.dropped,
        cleared=clear,
    )


def details_report(
    tab_id: str,
    state: TabNetwork,
    exchange: Exchange,
    post: tuple[str | None, str],
    body: tuple[str | None, str, int | None],
) -> NetworkReport:
    """One request's details (headers as held, the post data and the response body as
    read, each with its note) as a report of a tab's log."""
    post_data, post_note = post
    text, body_note, body_bytes = body
    details = RequestDetails(
        request=exchange.freeze(),
        request_headers=_header_items(exchange.sent_headers or exchange.request_headers),
        response_headers=_header_items(
            exchange.received_headers
            if exchange.received_headers is not None
            else exchange.response_headers
        ),
        headers_sent=exchange.sent_headers is not None,
        post_data=post_data,
        post_data_note=post_note,
        body=text,
        body_note=body_note,
        body_bytes=body_bytes,
    )
    stats = state.journal.statistics()
    return NetworkReport(
        tab_id=tab_id,
        requests=(details.request,),
        matched=1,
        filter=RequestFilter(),
        size=stats.size,
        capacity=stats.capacity,
        dropped=stats.dropped,
        details=details,
    )


def watched_entry(exchange: Exchange) -> dict[str, Any]:
    """A request as a watcher (the workbench) shows it: its fields, plus the short ones a
    list row needs."""
    request = exchange.freeze()
    data = request.to_dict()
    data.update(
        failed=(request.failure or "failed") if request.failed else None,
        size=request.encoded_bytes,
        at=request.started_at,
    )
    return data


# ---- filters ------------------------------------------------------------------------


def _url_pattern(url: str) -> re.Pattern[str] | None:
    """``/regex/`` or ``/regex/i`` → a pattern; anything else is a substring."""
    if not isinstance(url, str):
        raise InvalidArgument(f"url must be text, got {url!r}")
    match = re.fullmatch(r"/(.+)/(i?)", url, re.DOTALL)
    if match is None:
        return None
    try:
        return re.compile(match.group(1), re.IGNORECASE if match.group(2) else 0)
    except re.error as exc:
        raise InvalidArgument(
            f"url={url!r} is not a valid regular expression: {exc}",
            hint="fix the /regex/, or pass plain text to match a part of the URL",
        ) from None


def _types(value: str | Iterable[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    out = []
    for raw in split_names(value):
        name = str(raw).strip().lower()
        if name not in RESOURCE_TYPES:
            raise InvalidArgument(
                f"type={raw!r} is not a resource type",
                hint=f"use some of {', '.join(RESOURCE_TYPES)}",
            )
        out.append(name)
    return tuple(out) or None


def _statuses(value: str | int | Iterable[str | int] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    out = []
    for raw in split_names(value):
        name = str(raw).strip().lower()
        if not re.fullmatch(r"[1-5](\d\d|xx)|failed|pending", name):
            raise InvalidArgument(
                f"status={raw!r} is not a status filter",
                hint="use a code (404), a class (4xx, 5xx), failed or pending",
            )
        out.append(name)
    return tuple(out) or None


def _status_matches(spec: str, request: NetworkRequest) -> bool:
    if spec == "failed":
        return request.state == "failed"
    if spec == "pending":
        return request.state == "pending"
    if request.status is None:
        return False
    if spec.endswith("xx"):
        return request.status // 100 == int(spec[0])
    return request.status == int(spec)


# ---- details ------------------------------------------------------------------------


def find_exchange(state: TabNetwork, request_id: str) -> Exchange:
    """By this tab's id (``r12``) or the browser's request id (its latest hop)."""
    wanted = request_id.strip().lstrip("#")
    entries = [exchange for _, exchange in state.journal.entries()]
    for exchange in reversed(entries):
        if wanted in (exchange.id, exchange.request_id):
            return exchange
    held = f" (held: {entries[0].id}…{entries[-1].id})" if entries else " (none held)"
    raise InvalidArgument(
        f"no request {request_id!r} in this tab's network log{held}",
        hint="take an id (r12) from the network listing; old requests leave the ring",
    )


async def _post_data(
    session: CDPSession, exchange: Exchange, budget: Budget, limit: int
) -> tuple[str | None, str]:
    if exchange.post_data is not None:
        whole = exchange.post_data_bytes
        cut = f"showing the first {_size(limit)} of {_size(whole)}" if whole > limit else ""
        return exchange.post_data, cut
    data = None
    if exchange.has_post_data:
        try:
            # Network.getRequestPostData: bodies too large to come with the event.
            reply = await session.send(
                "Network.getRequestPostData", {"requestId": exchange.request_id}, budget=budget
            )
            data = str(reply.get("postData", ""))
        except CDPError as exc:
            return None, f"not available: {exc.cdp_message}"
    if data is None:
        return None, ""
    return bounded(data, limit)


async def _response_body(
    session: CDPSession, exchange: Exchange, budget: Budget, limit: int
) -> tuple[str | None, str, int | None]:
    unfinished = unfinished_body(exchange)
    if unfinished is not None:
        return None, unfinished, None
    try:
        reply = await session.send(
            "Network.getResponseBody", {"requestId": exchange.request_id}, budget=budget
        )
    except CDPError as exc:
        return None, f"not available: {exc.cdp_message}", None
    return decode_body(
        exchange, str(reply.get("body", "")), bool(reply.get("base64Encoded")), limit
    )


def unfinished_body(exchange: Exchange) -> str | None:
    """Why a request has no response body to read (still loading, redirected, failed),
    or None when it finished."""
    if exchange.state == "pending":
        return "not yet: the response has not finished loading"
    if exchange.state == "redirected":
        return f"none: redirected to {_clip(exchange.redirected_to)}"
    if exchange.state == "failed":
        return f"none: the request failed ({exchange.failure or 'canceled'})"
    return None


def decode_body(
    exchange: Exchange, body: str, base64_encoded: bool, limit: int
) -> tuple[str | None, str, int | None]:
    """A body as the browser gave it → (text cut at ``limit`` bytes, note, whole size);
    a binary body is only summarised in the note."""
    if base64_encoded:
        try:
            raw = base64.b64decode(body)
        except ValueError:
            return None, "not available: the browser sent a malformed body", None
        if not _TEXT_MIME.search(exchange.mime_type):
            return (
                None,
                f"binary, {_size(len(raw))} ({exchange.mime_type or 'unknown type'})",
                len(raw),
            )
        body = raw.decode("utf-8", errors="replace")
        size = len(raw)
    else:
        size = len(body.encode("utf-8"))
    text, note = bounded(body, limit)
    return text, note, size


def bounded(text: str, limit: int) -> tuple[str, str]:
    """Cut ``text`` at ``limit`` UTF-8 bytes and say so."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, ""
    cut = data[:limit].decode("utf-8", errors="ignore")
    return cut, f"showing the first {_size(limit)} of {_size(len(data))}"


# ---- small helpers ------------------------------------------------------------------


def _apply_response(exchange: Exchange, response: dict[str, Any]) -> None:
    status = response.get("status")
    exchange.status = int(status) if isinstance(status, (int, float)) else None
    exchange.status_text = str(response.get("statusText", ""))
    exchange.mime_type = str(response.get("mimeType", ""))
    exchange.response_headers = bounded_headers(response.get("headers"))
    exchange.protocol = str(response.get("protocol", ""))
    if response.get("remoteIPAddress"):
        exchange.remote = f"{response['remoteIPAddress']}:{response.get('remotePort', '')}"
    if (
        response.get("fromDiskCache")
        or response.get("fromPrefetchCache")
        or response.get("fromServiceWorker")
    ):
        exchange.from_cache = True


def bounded_headers(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    out = {}
    for name, text in list(value.items())[:_MAX_HEADERS]:
        out[str(name)] = str(text)[:_MAX_HEADER_VALUE]
    return out


def _header_items(headers: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(headers.items(), key=lambda item: item[0].lower()))


def keep_post_data(exchange: Exchange, value: Any, limit: int) -> None:
    """Post data that came with the event, kept only up to ``limit`` bytes (a big upload
    must not sit in memory for as long as the ring holds its request)."""
    if isinstance(value, str):
        exchange.post_data, _ = bounded(value, limit)
        exchange.post_data_bytes = len(value.encode("utf-8"))


def _is_favicon(exchange: Exchange) -> bool:
    """The browser asks every page for a favicon; a missing one is not the page's problem."""
    # Chromium's request is of type "other", Firefox's an image.
    return exchange.type in ("other", "image") and urlsplit(exchange.url).path == "/favicon.ico"


def _number(value: Any, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) else default


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) else None


def _size(n: int) -> str:
    if n < 1000:
        return f"{n} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1_000_000:.1f} MB"


def _clip(url: str) -> str:
    return url if len(url) <= _SHOWN_URL else url[: _SHOWN_URL - 1] + "…"
