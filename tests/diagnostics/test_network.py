"""The network log: statuses, failures, filters, one request's headers and bodies."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable

import pytest

import tabwarden
from tabwarden.config import Config
from tabwarden.diagnostics.network import NetworkRequest
from tabwarden.errors import InvalidArgument
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

pytestmark = pytest.mark.browser


def _held(tab) -> list[NetworkRequest]:
    """What the tab's log holds, as it stands."""
    state = tab.page.supervisor.network._tab(tab.id)
    return [exchange.freeze() for _, exchange in state.journal.entries()]


async def _until(tab, check: Callable[[list[NetworkRequest]], bool], seconds: float = 10.0):
    """Poll until the log satisfies ``check`` (a response's events trail the page's promise)."""
    deadline = time.monotonic() + seconds
    while not check(_held(tab)):
        if time.monotonic() > deadline:
            raise AssertionError("the network log never got there:\n" + _lines(_held(tab)))
        await asyncio.sleep(0.05)


def _lines(requests: list[NetworkRequest]) -> str:
    return "\n".join(r.line() for r in requests)


def _done(url_part: str) -> Callable[[list[NetworkRequest]], bool]:
    return lambda held: any(url_part in r.url and r.state != "pending" for r in held)


def _one(report, url_part: str) -> NetworkRequest:
    found = [r for r in report.requests if url_part in r.url]
    assert len(found) == 1, report.text()
    return found[0]


@pytest.fixture
async def tab(browser, server):
    tab = await browser.new_tab(server.url("/diag_network.html"))
    yield tab
    await tab.close()


async def test_a_404_a_refused_connection_and_an_xhr_are_listed(tab, server, closed_port):
    refused = f"http://127.0.0.1:{closed_port}/nothing"
    assert (await tab.evaluate("get('/status/404')")).value == 404
    assert "Failed to fetch" in (await tab.evaluate(f"get('{refused}')")).value
    assert (await tab.evaluate("xhr('/diag-body?bytes=1500')")).value == 200
    await _until(tab, _done("/diag-body"))
    report = await tab.network()

    document = _one(report, "/diag_network.html")
    assert (document.method, document.status, document.type) == ("GET", 200, "document")
    assert document.frame_id == tab.target_id and document.duration_ms is not None

    missing = _one(report, "/status/404?image")
    assert (missing.status, missing.type, missing.state) == (404, "image", "finished")

    not_found = next(r for r in report.requests if r.url == server.url("/status/404"))
    assert (not_found.status, not_found.status_text, not_found.type) == (404, "Not Found", "fetch")
    assert re.fullmatch(
        rf"r\d+ GET 404 fetch \d+ ms \d+ B {re.escape(server.url('/status/404'))}",
        not_found.line(),
    )

    failed = _one(report, refused)
    assert failed.state == "failed" and failed.failure == "net::ERR_CONNECTION_REFUSED"
    assert failed.status is None and not failed.canceled
    assert f"GET failed fetch {failed.duration_ms} ms net::ERR_CONNECTION_REFUSED" in failed.line()

    body = _one(report, "/diag-body")
    assert (body.type, body.status, body.mime_type) == ("xhr", 200, "text/plain")
    assert body.encoded_bytes is not None and body.encoded_bytes > 1500
    assert " 1.7 kB " in body.line() or " 1.6 kB " in body.line()
    assert 0 < body.started_at <= time.time()

    text = report.text()
    assert text.startswith(f"network of tab {tab.id}: showing {report.matched} of")
    assert failed.line() in text.splitlines()


async def test_filters_by_type_status_and_url(tab, server, closed_port):
    await tab.evaluate("get('/status/404')")
    await tab.evaluate("get('/status/500')")
    await tab.evaluate(f"get('http://127.0.0.1:{closed_port}/refused')")
    await tab.evaluate("xhr('/diag-body?bytes=10')")
    await _until(tab, _done("/diag-body"))

    assert [r.type for r in (await tab.network(type="xhr")).requests] == ["xhr"]
    both = await tab.network(type=["xhr", "image"])
    assert {r.type for r in both.requests} == {"xhr", "image"}

    client = await tab.network(status="4xx", url="/status/")  # not the browser's favicon ask
    assert sorted(r.url.removeprefix(server.base) for r in client.requests) == [
        "/status/404",
        "/status/404?image",
    ]
    assert [r.status for r in (await tab.network(status=["5xx"])).requests] == [500]
    assert [r.status for r in (await tab.network(status=500)).requests] == [500]
    failed = await tab.network(status="failed")
    assert [r.url for r in failed.requests] == [f"http://127.0.0.1:{closed_port}/refused"]
    either = (await tab.network(status=["404", "failed"])).requests
    assert len([r for r in either if not r.url.endswith("/favicon.ico")]) == 3

    assert [r.status for r in (await tab.network(url="STATUS/5")).requests] == [500]
    by_regex = await tab.network(url=r"/status/\d{3}$/")
    assert sorted(r.status for r in by_regex.requests) == [404, 500]
    assert "url /status/\\d{3}$/" in by_regex.text()
    combined = await tab.network(url="status", type="image", status="4xx")
    assert [r.url for r in combined.requests] == [server.url("/status/404?image")]
    assert "no requests" in (await tab.network(url="nowhere-at-all")).text()

    with pytest.raises(InvalidArgument) as bad_type:
        await tab.network(type="pictures")
    assert "image" in bad_type.value.hint
    with pytest.raises(InvalidArgument) as bad_status:
        await tab.network(status="teapot")
    assert "4xx" in bad_status.value.hint
    with pytest.raises(InvalidArgument) as bad_regex:
        await tab.network(url="/(unclosed/")
    assert "regular expression" in str(bad_regex.value)


async def test_one_requests_headers_and_bounded_body(tab, server):
    await tab.evaluate("get('/diag-body?bytes=50000')")
    await tab.evaluate("get('/diag-body?bytes=3000&kind=binary')")
    await _until(tab, _done("kind=binary"))
    listed = await tab.network(url="bytes=50000")
    large = listed.requests[0]

    report = await tab.network(request_id=large.id)
    details = report.details
    assert details is not None and details.request.id == large.id
    assert details.headers_sent  # the headers really sent, not the provisional ones
    request_headers = dict(details.request_headers)
    assert request_headers["Host"] == f"127.0.0.1:{server.port}"
    assert request_headers["Sec-Fetch-Mode"] == "cors"
    assert dict(details.response_headers)["X-Diagnostics"] == "body"
    assert details.body_bytes == 50_000
    assert details.body is not None and len(details.body.encode()) == 20_000
    assert details.body.startswith("0123456789")
    assert details.body_note == "showing the first 20.0 kB of 50.0 kB"
    text = report.text()
    assert "response body: (showing the first 20.0 kB of 50.0 kB)" in text
    assert "  X-Diagnostics: body" in text

    by_browser_id = await tab.network(request_id=large.request_id)
    assert by_browser_id.details is not None and by_browser_id.details.request.id == large.id

    binary = (await tab.network(url="kind=binary")).requests[0]
    binary_details = (await tab.network(request_id=binary.id)).details
    assert binary_details is not None and binary_details.body is None
    assert binary_details.body_note == "binary, 3.0 kB (application/octet-stream)"
    assert binary_details.body_bytes == 3000

    with pytest.raises(InvalidArgument) as unknown:
        await tab.network(request_id="r99999")
    assert "r99999" in str(unknown.value) and unknown.value.hint


async def test_a_posts_body_and_a_failed_requests_details(tab, server, closed_port):
    payload = '{"name": "Ada", "items": [1, 2, 3]}'
    assert (await tab.evaluate(f"post('/status/200', '{payload}')")).value == 501
    await tab.evaluate(f"get('http://127.0.0.1:{closed_port}/refused')")
    await tab.evaluate("post('/status/200?big', 'x'.repeat(100000))")
    await _until(tab, _done("?big"))
    posted = (await tab.network(url=server.url("/status/200"), type="fetch")).requests[0]
    assert posted.method == "POST" and posted.status == 501

    details = (await tab.network(request_id=posted.id)).details
    assert details is not None and details.post_data == payload
    assert dict(details.request_headers)["Content-Type"] == "application/json"

    big = (await tab.network(url="?big")).requests[0]
    big_details = (await tab.network(request_id=big.id)).details
    assert big_details is not None and big_details.post_data == "x" * 20_000
    assert big_details.post_data_note == "showing the first 20.0 kB of 100.0 kB"

    refused = (await tab.network(status="failed")).requests[0]
    refused_details = (await tab.network(request_id=refused.id)).details
    assert refused_details is not None and refused_details.body is None
    assert refused_details.body_note == "none: the request failed (net::ERR_CONNECTION_REFUSED)"


async def test_a_redirect_is_two_requests(tab, server):
    await tab.evaluate("get('/redirect?to=/diag-body?bytes=10')")
    await _until(tab, _done("/diag-body"))
    first, second = (await tab.network(url="/redirect|/diag-body/")).requests
    assert first.status == 302 and first.state == "redirected"
    assert first.redirected_to == server.url("/diag-body?bytes=10")
    assert second.status == 200 and second.redirected_from == first.url
    assert second.request_id == first.request_id and second.id != first.id
    assert f"→ {server.url('/diag-body?bytes=10')}" in first.line()
    details = (await tab.network(request_id=first.id)).details
    assert details is not None and details.body_note.startswith("none: redirected to")


async def test_requests_of_a_cross_origin_frame(browser, server, other_origin):
    tab = await browser.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    await tab.snapshot()
    oopif = next(f for f in tab.frames.frames() if f.is_oopif)
    await tab.evaluate(
        "fetch('/status/404?from-frame').then(r => r.status)", frame_id=oopif.frame_id
    )
    await _until(tab, _done("from-frame"))
    request = (await tab.network(url="from-frame")).requests[0]
    assert request.url == other_origin.url("/status/404?from-frame")
    assert request.frame_id == oopif.frame_id and request.status == 404
    child_document = (await tab.network(url=other_origin.base, type="document")).requests
    assert child_document and child_document[0].status == 200
    await tab.close()


async def test_a_full_ring_reports_what_it_dropped(server):
    config = Config()
    config.diagnostics.network_entries = 10
    async with tabwarden.launch(isolated=True, config=config) as session:
        tab = await session.new_tab(server.url("/diag_network.html"))
        await tab.evaluate(
            "Promise.all(Array.from({length: 20}, (_, i) => get('/diag-body?bytes=1&n=' + i)))"
        )
        await _until(tab, lambda held: len(held) == 10 and all(r.state != "pending" for r in held))
        report = await tab.network(max_entries=4)
        assert (report.size, report.capacity) == (10, 10) and report.dropped >= 12
        assert len(report.requests) == 4 and report.matched == 10
        assert f"showing 4 of 10 (ring holds 10 of 10, {report.dropped} dropped)" in report.text()
        cleared = await tab.network(clear=True)
        assert cleared.cleared and "cleared after reading" in cleared.text()
        assert (await tab.network()).requests == ()


async def test_snapshot_header_sums_up_errors_since_the_last_snapshot(tab, server, closed_port):
    await tab.evaluate("console.error('went wrong')")
    await tab.evaluate(f"get('http://127.0.0.1:{closed_port}/refused')")
    await _until(tab, _done("/refused"))
    text = (await tab.snapshot()).text
    line = "# console: 1 error since last snapshot · network: 1 failed request, 1 HTTP 404"
    assert line in text.splitlines()
    assert "# console:" not in (await tab.snapshot()).text

    await tab.evaluate("get('/status/404?before-click')")
    await _until(tab, _done("before-click"))
    snap = await tab.snapshot()  # (the header says it; taken before the click below)
    assert "# network: 1 HTTP 404" in snap.text.splitlines()
    await tab.evaluate("get('/status/404?again')")
    await _until(tab, _done("?again"))
    ref = next(n.ref for n in snap.root.walk() if n.name == "Rename")
    receipt = await tab.click(ref)  # its receipt takes a snapshot of its own for the diff
    assert receipt.diff is not None
    later = (await tab.snapshot()).text.splitlines()
    assert "# network: 1 HTTP 404" in later  # the receipt's snapshot did not use it up


async def test_network_tool_lists_and_details(server, closed_port):
    config = Config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "network-tool")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/diag_network.html")})
        tab = await ctx.tab()
        await tab.evaluate(f"get('http://127.0.0.1:{closed_port}/refused')")
        await _until(tab, _done("/refused"))
        listing = await call_tool(ctx, "browser_network", {"status": "4xx,failed"})
        assert listing.untrusted
        lines = listing.final_text().splitlines()
        assert any(re.match(r"r\d+ GET 404 image \d+ ms", line) for line in lines)
        assert any("net::ERR_CONNECTION_REFUSED" in line for line in lines)
        page_requests = [r for r in listing.data["requests"] if "favicon" not in r["url"]]
        assert [(r["type"], r["status"]) for r in page_requests] == [
            ("image", 404),
            ("fetch", None),
        ]
        request_id = page_requests[0]["id"]
        details = await call_tool(ctx, "browser_network", {"request_id": request_id})
        assert "<title>Status 404</title>" in details.final_text()
        assert details.data["details"]["request"]["id"] == request_id
        with pytest.raises(InvalidArgument):
            await call_tool(ctx, "browser_network", {"type": ["pictures"]})


async def test_a_token_in_a_request_url_comes_out_redacted(server):
    config = Config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "network-redaction")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/diag_network.html")})
        tab = await ctx.tab()
        await tab.evaluate("get('/status/200?access_token=abc.def.ghi&page=2')")
        await _until(tab, _done("access_token"))
        assert any("abc.def.ghi" in r.url for r in _held(tab))  # the log itself keeps it
        listing = await call_tool(ctx, "browser_network", {"url": "access_token"})
        assert "access_token" in listing.final_text() and "page=2" in listing.final_text()
        request_id = listing.data["requests"][0]["id"]
        details = await call_tool(ctx, "browser_network", {"request_id": request_id})
        for result in (listing, details):
            assert "abc.def.ghi" not in result.final_text()
            assert "abc.def.ghi" not in repr(result.data)
