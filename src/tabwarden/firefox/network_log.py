"""The network log of a Firefox session: each tab's requests (its frames included) from
WebDriver BiDi's ``network`` events, in the same bounded ring per tab, with the same
filters, listing and request details as the Chromium log (diagnostics/network.py).

``network.beforeRequestSent`` starts a request (a redirect hop keeps the request id,
with a higher ``redirectCount``: the hop before it is marked redirected),
``network.responseStarted`` / ``network.responseCompleted`` give its response and
``network.fetchError`` its failure. Bodies: a data collector
(``network.addDataCollector``) keeps each request's post data and response body in
Firefox, up to ``COLLECTED_MAX_BYTES`` each (Firefox also bounds the total and evicts
the oldest), and ``network.getData`` reads one when the details are asked for.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..diagnostics.network import (
    Exchange,
    NetworkReport,
    NetworkRequest,
    RequestFilter,
    TabNetwork,
    bounded,
    bounded_headers,
    count_error,
    decode_body,
    details_report,
    errors_line,
    find_exchange,
    list_report,
    requests_since,
    unfinished_body,
    watched_entry,
)
from ..errors import BiDiError

__all__ = ["COLLECTED_MAX_BYTES", "EVENTS", "NETWORK_IDLE_S", "FirefoxNetworkLog", "resource_type"]

NETWORK_IDLE_S = 0.5
"""No request of a tab in flight for this long is network idle, as Chromium's
``networkIdle`` (navigations and waits with ``networkidle``)."""

JSONObject = dict[str, Any]

EVENTS = (
    "network.beforeRequestSent",
    "network.responseStarted",
    "network.responseCompleted",
    "network.fetchError",
)
"""The BiDi events the log is built from."""

COLLECTED_MAX_BYTES = 10_000_000
"""A body larger than this is not kept by Firefox (Chromium keeps about as much per
resource); the details then say it is not available."""

_MAX_URL = 2_000
_MAX_NAVIGATIONS = 200
_DOCUMENTS = ("document", "iframe", "frame", "embed", "object")
_BY_INITIATOR = {"fetch": "fetch", "xmlhttprequest": "xhr", "beacon": "ping"}
_BY_DESTINATION = {
    "style": "stylesheet",
    "image": "image",
    "script": "script",
    "worker": "script",
    "sharedworker": "script",
    "serviceworker": "script",
    "audioworklet": "script",
    "paintworklet": "script",
    "font": "font",
    "audio": "media",
    "video": "media",
    "track": "texttrack",
    "manifest": "manifest",
    "report": "cspviolationreport",
}
_CANCELED = ("NS_BINDING_ABORTED", "NS_ERROR_ABORT")


def resource_type(params: JSONObject) -> str:
    """The Chromium resource type name (document, xhr, fetch, script, image…) of a BiDi
    request, from its navigation, initiator type and destination."""
    request = params.get("request") or {}
    destination = str(request.get("destination") or "")
    if params.get("navigation") or destination in _DOCUMENTS:
        return "document"
    initiator = str(request.get("initiatorType") or "")
    if initiator in _BY_INITIATOR:
        return _BY_INITIATOR[initiator]
    return _BY_DESTINATION.get(destination, "other")


class FirefoxNetworkLog:
    """Requests per tab, each tab's in a ring of ``capacity``; bodies shown up to
    ``body_max_bytes``. ``tab_of`` names the tab of a browsing context (a tab or one of
    its frames); event handlers run on the reader and never await."""

    def __init__(
        self, capacity: int, body_max_bytes: int, tab_of: Callable[[str], str | None]
    ) -> None:
        self._capacity = capacity
        self._body_max_bytes = body_max_bytes
        self._tab_of = tab_of
        self._tabs: dict[str, TabNetwork] = {}
        self._navigations: dict[str, Exchange] = {}
        """The latest request of each recent navigation (a download's is looked up)."""
        self._collecting = False
        self._last_activity: dict[str, float] = {}
        """Per tab, when a request last started or ended (``time.monotonic()``)."""
        self.on_change: Callable[[str, Exchange], None] | None = None
        """Told how a request stands after each of its events (the session's watchers)."""

    # ---- life ----------------------------------------------------------------------

    async def start(self, connection: BiDiConnection, budget: Budget) -> None:
        """Ask Firefox to keep the bodies (the events are subscribed by the session)."""
        try:
            await connection.send(
                "network.addDataCollector",
                {"dataTypes": ["request", "response"], "maxEncodedDataSize": COLLECTED_MAX_BYTES},
                budget=budget,
            )
        except BiDiError:
            # An older Firefox: the requests are listed, their bodies say why there are none.
            self._collecting = False
        else:
            self._collecting = True

    def started_since(self, tab_id: str, wall_time: float) -> tuple[NetworkRequest, ...]:
        """The tab's requests sent at or after ``wall_time``, each as it stands now."""
        return requests_since(self._tab(tab_id), wall_time)

    def errors_summary(self, tab_id: str) -> str:
        """``network: 1 failed request, 2 HTTP 404`` since the last time (empty when
        nothing went wrong); marks them seen."""
        state = self._tab(tab_id)
        unseen, state.unseen = state.unseen, Counter()
        return errors_line(unseen)

    def quiet_for(self, tab_id: str) -> float:
        """How long (s) the tab has had no request in flight: 0 while one is (a
        network-idle wait, as Chromium's ``networkIdle``: 500 ms of none)."""
        state = self._tabs.get(tab_id)
        if state is not None and any(e.state == "pending" for e in state.live.values()):
            return 0.0
        return time.monotonic() - self._last_activity.get(tab_id, 0.0)

    def entries(self, tab_id: str) -> builtins.list[dict[str, Any]]:
        """A tab's requests held now, oldest first, as watchers (the workbench) get them."""
        return [watched_entry(exchange) for _, exchange in self._tab(tab_id).journal.entries()]

    def forget(self, tab_id: str) -> None:
        self._tabs.pop(tab_id, None)
        self._last_activity.pop(tab_id, None)

    # ---- reading -------------------------------------------------------------------

    def list(
        self,
        tab_id: str,
        request_filter: RequestFilter,
        *,
        max_entries: int = 50,
        clear: bool = False,
    ) -> NetworkReport:
        """The newest ``max_entries`` requests that match, oldest first."""
        return list_report(
            tab_id, self._tab(tab_id), request_filter, max_entries=max_entries, clear=clear
        )

    async def details(
        self, tab_id: str, request_id: str, connection: BiDiConnection, budget: Budget
    ) -> NetworkReport:
        """One request with its headers, post data and response body (bounded)."""
        state = self._tab(tab_id)
        exchange = find_exchange(state, request_id)
        limit = self._body_max_bytes
        post: tuple[str | None, str] = (None, "")
        if exchange.method not in ("GET", "HEAD") and self._collecting:
            data, note = await self._data(connection, exchange, "request", budget)
            if data is not None:
                raw, encoded = data
                text = base64.b64decode(raw).decode("utf-8", "replace") if encoded else raw
                post = bounded(text, limit)
            elif exchange.has_post_data:
                post = (None, note)
        body: tuple[str | None, str, int | None]
        unfinished = unfinished_body(exchange)
        if unfinished is not None:
            body = (None, unfinished, None)
        else:
            data, note = await self._data(connection, exchange, "response", budget)
            body = (None, note, None) if data is None else decode_body(exchange, *data, limit)
        return details_report(tab_id, state, exchange, post, body)

    async def _data(
        self, connection: BiDiConnection, exchange: Exchange, kind: str, budget: Budget
    ) -> tuple[tuple[str, bool] | None, str]:
        """``network.getData``: (the bytes, base64 or not), or None and why not."""
        if not self._collecting:
            return None, "not available: this Firefox does not keep bodies (network.getData)"
        try:
            reply = await connection.send(
                "network.getData",
                {"dataType": kind, "request": exchange.request_id},
                budget=budget,
            )
        except BiDiError as exc:
            if exc.error == "no such network data":
                return None, (
                    "not available: Firefox did not keep it (larger than "
                    f"{COLLECTED_MAX_BYTES // 1_000_000} MB, evicted, or never sent)"
                )
            return None, f"not available: {exc.bidi_message or exc.error}"
        data = reply.get("bytes") or {}
        return (str(data.get("value", "")), data.get("type") == "base64"), ""

    def promised_size(self, navigation: str) -> int | None:
        """The body size the server announced (``Content-Length``, unencoded) for a
        navigation's response, or None when it did not say."""
        exchange = self._navigations.get(navigation)
        if exchange is None:
            return None
        headers = {name.lower(): value for name, value in exchange.response_headers.items()}
        if headers.get("content-encoding", "identity").strip().lower() != "identity":
            return None
        length = headers.get("content-length", "").strip()
        return int(length) if length.isdigit() else None

    # ---- event handlers (on the reader: never await) --------------------------------

    def on_event(self, method: str, params: JSONObject) -> None:
        """Follow one BiDi event (those of ``EVENTS``, and a tab's closing; others are
        ignored)."""
        if method == "network.beforeRequestSent":
            self._on_request(params)
            self._active(params)
        elif method in ("network.responseStarted", "network.responseCompleted"):
            self._on_response(params, done=method.endswith("Completed"))
            self._active(params)
        elif method == "network.fetchError":
            self._on_error(params)
            self._active(params)
        else:
            if method == "browsingContext.contextDestroyed" and not params.get("parent"):
                tab_id = self._tab_of(str(params.get("context", "")))
                if tab_id is not None:
                    self.forget(tab_id)  # a closed tab's log goes with it
            return
        if self.on_change is not None:
            tab_id = self._tab_of(str(params.get("context", "")))
            exchange = self._exchange_of(params)
            if tab_id is not None and exchange is not None:
                self.on_change(tab_id, exchange)

    def _on_request(self, params: JSONObject) -> None:
        state = self._state_of(params)
        if state is None:
            return
        request = params.get("request") or {}
        request_id = str(request.get("request", ""))
        url = str(request.get("url", ""))[:_MAX_URL]
        at = _seconds(params.get("timestamp"))
        previous = state.live.get(request_id)
        redirect = previous is not None and int(params.get("redirectCount") or 0) > 0
        if previous is not None and not redirect:
            return  # the same request reported again
        if previous is not None and previous.state in ("pending", "finished"):
            previous.state = "redirected"
            previous.redirected_to = url
            previous.end_ts = previous.end_ts or at
        exchange = Exchange(
            number=0,
            request_id=request_id,
            session_id=None,
            frame_id=str(params.get("context", "")),
            method=str(request.get("method", "GET")),
            url=url,
            type=resource_type(params),
            started_at=at,
            start_ts=at,
            request_headers=_headers(request.get("headers")),
            has_post_data=int(request.get("bodySize") or 0) > 0,
            redirected_from=previous.url if previous is not None else "",
        )
        state.add(exchange)
        navigation = params.get("navigation")
        if isinstance(navigation, str) and navigation:
            self._navigations[navigation] = exchange
            while len(self._navigations) > _MAX_NAVIGATIONS:
                self._navigations.pop(next(iter(self._navigations)))

    def _on_response(self, params: JSONObject, *, done: bool) -> None:
        exchange = self._exchange_of(params)
        if exchange is None or exchange.state not in ("pending", "finished"):
            return
        response = params.get("response") or {}
        status = response.get("status")
        exchange.status = int(status) if isinstance(status, (int, float)) else None
        exchange.status_text = str(response.get("statusText", ""))
        exchange.mime_type = str(response.get("mimeType", ""))
        exchange.response_headers = _headers(response.get("headers"))
        exchange.protocol = str(response.get("protocol", ""))
        exchange.from_cache = bool(response.get("fromCache"))
        request = params.get("request") or {}
        if request.get("headers"):
            # The headers as sent (cookies included), not those first planned.
            exchange.sent_headers = _headers(request.get("headers"))
        if done:
            exchange.end_ts = _seconds(params.get("timestamp"))
            received = response.get("bytesReceived")
            if isinstance(received, (int, float)):
                exchange.encoded_bytes = int(received)
            exchange.state = "finished"
            state = self._state_of(params)
            if state is not None:
                count_error(state, exchange)

    def _on_error(self, params: JSONObject) -> None:
        exchange = self._exchange_of(params)
        if exchange is None or exchange.state not in ("pending", "finished"):
            return
        failure = str(params.get("errorText", ""))
        exchange.end_ts = _seconds(params.get("timestamp"))
        exchange.failure = failure
        exchange.canceled = failure in _CANCELED
        exchange.state = "failed"
        state = self._state_of(params)
        if state is not None:
            count_error(state, exchange)

    # ---- private -------------------------------------------------------------------

    def _active(self, params: JSONObject) -> None:
        tab_id = self._tab_of(str(params.get("context", "")))
        if tab_id is not None:
            self._last_activity[tab_id] = time.monotonic()

    def _tab(self, tab_id: str) -> TabNetwork:
        state = self._tabs.get(tab_id)
        if state is None:
            state = self._tabs[tab_id] = TabNetwork(self._capacity)
        return state

    def _state_of(self, params: JSONObject) -> TabNetwork | None:
        context = params.get("context")
        tab_id = self._tab_of(str(context)) if context else None
        return self._tab(tab_id) if tab_id is not None else None

    def _exchange_of(self, params: JSONObject) -> Exchange | None:
        state = self._state_of(params)
        if state is None:
            return None
        request = params.get("request") or {}
        return state.live.get(str(request.get("request", "")))


def _headers(value: Any) -> dict[str, str]:
    """BiDi's header list (``[{name, value: {type, value}}]``) → a bounded dict; a
    header sent more than once is joined with newlines, as CDP reports it."""
    joined: dict[str, str] = {}
    for header in value if isinstance(value, list) else []:
        if not isinstance(header, dict):
            continue
        name = str(header.get("name", ""))
        raw = header.get("value") or {}
        text = str(raw.get("value", "")) if isinstance(raw, dict) else str(raw)
        if isinstance(raw, dict) and raw.get("type") == "base64":
            with contextlib.suppress(ValueError):
                text = base64.b64decode(text).decode("latin-1")
        joined[name] = f"{joined[name]}\n{text}" if name in joined else text
    return bounded_headers(joined)


def _seconds(timestamp: Any) -> float:
    """A BiDi timestamp (milliseconds since the epoch) in seconds, as ``time.time()``."""
    return float(timestamp) / 1000 if isinstance(timestamp, (int, float)) else time.time()
