"""The Firefox network log (firefox/network_log.py): BiDi's network events fed into the
shared per-tab ring, resource types, redirects, failures and headers; and, in a real
Firefox, bodies read with network.getData (cut, or summarised when binary)."""

from __future__ import annotations

import base64
import inspect
from typing import Any

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.diagnostics.network import RequestFilter
from tabwarden.firefox import FirefoxPage
from tabwarden.firefox.network_log import FirefoxNetworkLog, resource_type

CONTEXTS = {"top": "t1", "frame": "t1", "other": "t2"}


def _log(capacity: int = 10) -> FirefoxNetworkLog:
    return FirefoxNetworkLog(capacity, 1_000, CONTEXTS.get)


def _header(name: str, value: str) -> dict[str, Any]:
    return {"name": name, "value": {"type": "string", "value": value}}


def _event(
    request_id: str,
    url: str = "http://127.0.0.1/x",
    *,
    context: str = "top",
    hop: int = 0,
    at: float = 1_000_000.0,
    navigation: str | None = None,
    response: dict[str, Any] | None = None,
    **request: Any,
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "context": context,
        "navigation": navigation,
        "redirectCount": hop,
        "timestamp": at,
        "request": {"request": request_id, "url": url, "method": "GET", **request},
    }
    if response is not None:
        params["response"] = response
    return params


def _listed(log: FirefoxNetworkLog, tab: str = "t1", **filters: Any) -> list[Any]:
    return list(log.list(tab, RequestFilter.parse(**filters)).requests)


def test_resource_types_are_named_as_on_chromium():
    def kind(navigation: str | None = None, **request: Any) -> str:
        return resource_type({"navigation": navigation, "request": request})

    assert kind("nav-1") == "document"
    assert kind(destination="iframe") == "document"
    assert kind(initiatorType="fetch") == "fetch"
    assert kind(initiatorType="xmlhttprequest") == "xhr"
    assert kind(destination="style", initiatorType="link") == "stylesheet"
    assert kind(destination="image", initiatorType="img") == "image"
    assert kind(destination="script") == "script"
    assert kind(destination="font") == "font"
    assert kind() == "other"


def test_a_request_its_response_and_headers_per_tab():
    log = _log()
    sent = [_header("Accept", "*/*"), _header("X-Twice", "a"), _header("X-Twice", "b")]
    log.on_event("network.beforeRequestSent", _event("1", headers=sent, initiatorType="fetch"))
    log.on_event("network.beforeRequestSent", _event("1"))  # reported again: one entry
    log.on_event("network.beforeRequestSent", _event("2", context="other"))
    log.on_event("network.beforeRequestSent", _event("3", context="unknown"))
    (pending,) = _listed(log)
    assert (pending.id, pending.state, pending.type, pending.status) == (
        "r1",
        "pending",
        "fetch",
        None,
    )
    assert pending.started_at == 1000.0
    cookie = {
        "name": "Cookie",
        "value": {"type": "base64", "value": base64.b64encode(b"k=v").decode()},
    }
    response = {
        "status": 404,
        "statusText": "Not Found",
        "mimeType": "text/html",
        "headers": [_header("Content-Length", "9")],
        "bytesReceived": 120,
        "fromCache": False,
    }
    done = _event("1", at=1_000_250.0, response=response, headers=[*sent, cookie])
    log.on_event("network.responseCompleted", done)
    (finished,) = _listed(log, status="4xx")
    assert (finished.state, finished.status, finished.encoded_bytes) == ("finished", 404, 120)
    assert finished.duration_ms == 250 and "r1 GET 404 fetch 250 ms" in finished.line()
    assert [r.url for r in _listed(log, "t2")] == ["http://127.0.0.1/x"]


async def test_details_give_sent_headers_and_say_why_there_is_no_body():
    log = _log()
    sent = [_header("X-Twice", "a"), _header("X-Twice", "b")]
    log.on_event("network.beforeRequestSent", _event("1", headers=sent))
    # Not collecting (no data collector was added): nothing is asked of Firefox.
    report = await log.details("t1", "r1", None, Budget(1))  # type: ignore[arg-type]
    details = report.details
    assert dict(details.request_headers) == {"X-Twice": "a\nb"}
    assert details.body is None and details.body_note.startswith("not yet")
    log.on_event("network.responseCompleted", _event("1", response={"status": 200}))
    details = (await log.details("t1", "1", None, Budget(1))).details  # type: ignore[arg-type]
    assert details.headers_sent is False and "does not keep bodies" in details.body_note


def test_a_redirect_hop_is_marked_and_the_next_hop_links_back():
    log = _log()
    log.on_event("network.beforeRequestSent", _event("1", "http://h/a"))
    hop = _event("1", "http://h/a", at=1_000_005.0, response={"status": 302})
    log.on_event("network.responseCompleted", hop)
    log.on_event("network.beforeRequestSent", _event("1", "http://h/b", hop=1, at=1_000_010.0))
    log.on_event(
        "network.responseCompleted", _event("1", "http://h/b", hop=1, response={"status": 200})
    )
    first, second = _listed(log)
    assert (first.state, first.status, first.redirected_to) == ("redirected", 302, "http://h/b")
    assert first.duration_ms == 5
    assert (second.state, second.status, second.redirected_from) == ("finished", 200, "http://h/a")


def test_failures_and_cancels_and_a_bounded_ring():
    log = _log(capacity=3)
    log.on_event("network.beforeRequestSent", _event("1"))
    log.on_event("network.fetchError", {**_event("1"), "errorText": "NS_ERROR_CONNECTION_REFUSED"})
    log.on_event("network.beforeRequestSent", _event("2"))
    log.on_event("network.fetchError", {**_event("2"), "errorText": "NS_BINDING_ABORTED"})
    refused, aborted = _listed(log, status="failed")
    assert refused.failure == "NS_ERROR_CONNECTION_REFUSED" and not refused.canceled
    assert aborted.canceled and " canceled " in aborted.line()
    for n in range(3, 7):
        log.on_event("network.beforeRequestSent", _event(str(n)))
    report = log.list("t1", RequestFilter())
    assert (report.size, report.capacity, report.dropped) == (3, 3, 3)
    assert [r.id for r in report.requests] == ["r4", "r5", "r6"]
    log.on_event("browsingContext.contextDestroyed", {"context": "frame", "parent": "top"})
    assert log.list("t1", RequestFilter()).matched == 3  # a frame went, not the tab
    log.on_event("browsingContext.contextDestroyed", {"context": "top", "parent": None})
    assert log.list("t1", RequestFilter()).matched == 0


def test_the_promised_size_of_a_navigation_s_response():
    log = _log()
    plain = {"status": 200, "headers": [_header("Content-Length", "2048")]}
    packed = {
        "status": 200,
        "headers": [_header("Content-Length", "99"), _header("Content-Encoding", "gzip")],
    }
    for n, response in (("1", plain), ("2", packed)):
        log.on_event("network.beforeRequestSent", _event(n, navigation=f"nav-{n}"))
        log.on_event("network.responseStarted", _event(n, navigation=f"nav-{n}", response=response))
    assert log.promised_size("nav-1") == 2048
    assert log.promised_size("nav-2") is None  # the file holds the decoded body
    assert log.promised_size("nav-unknown") is None


@pytest.mark.browser
async def test_bodies_are_read_from_firefox_cut_or_summarised(server):
    config = Config()
    config.diagnostics.body_max_bytes = 256
    async with tabwarden.launch(isolated=True, engine="firefox", config=config) as session:
        tab = session.active_tab
        await tab.navigate(server.url("/diag_network.html"))
        await tab.evaluate("get('/diag-body?bytes=1000')")
        await tab.evaluate("get('/diag-body?bytes=300&kind=binary')")
        budget = Budget(10)
        while True:
            listed = await tab.network(url="diag-body")
            if listed.matched == 2 and all(r.state == "finished" for r in listed.requests):
                break
            assert not budget.expired, listed.text
            await budget.sleep(0.05)
        text, binary = listed.requests
        details = (await tab.network(request_id=text.id)).details
        assert details.body == ("0123456789" * 26)[:256] and details.body_bytes == 1000
        assert details.body_note == "showing the first 256 B of 1.0 kB"
        details = (await tab.network(request_id=binary.id)).details
        assert details.body is None and details.body_note.startswith("binary, 300 B")


def test_the_page_method_mirrors_the_chromium_tab_s():
    chromium = inspect.signature(tabwarden.Tab.network)
    firefox = inspect.signature(FirefoxPage.network)
    assert firefox.parameters == chromium.parameters
    assert firefox.return_annotation == chromium.return_annotation
