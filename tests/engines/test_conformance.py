"""One suite, both engines: what the Firefox engine supports must behave as on Chromium.

Each test runs against Chromium (CDP, ``Tab``) and Firefox (WebDriver BiDi,
``FirefoxPage``) through a thin ``Driver`` that only papers over return types; the
calls and the rules (refs, stale refs, dialogs, deadlines, frames) are the same.
"""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

import tabwarden
from tabwarden.actions.batch import BatchError
from tabwarden.budget import Budget
from tabwarden.errors import (
    ActionError,
    DeadlineExceeded,
    InvalidArgument,
    NotActionable,
    PathNotAllowed,
    StaleRefError,
    UnknownRef,
)
from tabwarden.safety.paths import WorkspacePaths
from tests.conftest import browser_processes

pytestmark = pytest.mark.browser

ENGINES = ["chromium", "firefox"]


@dataclass
class Driver:
    engine: str
    session: Any
    tab: Any

    async def snapshot(self) -> str:
        return str((await self.tab.snapshot()).text)

    async def ref(self, pattern: str) -> str:
        text = await self.snapshot()
        for line in text.splitlines():
            if re.search(pattern, line):
                found = re.search(r"\[ref=(e\d+)\]", line)
                if found:
                    return found.group(1)
        raise AssertionError(f"no line matches {pattern!r} in:\n{text}")

    async def value(self, expression: str, timeout_ms: float | None = None) -> Any:
        return (await self.tab.evaluate(expression, timeout_ms=timeout_ms)).value

    async def title_becomes(self, title: str) -> None:
        budget = Budget(10)
        while await self.value("document.title") != title:
            assert not budget.expired, f"the title never became {title!r}"
            await budget.sleep(0.05)

    async def pending(self) -> Any:
        budget = Budget(10)
        while self.tab.pending_dialog is None:
            assert not budget.expired, "no dialog opened"
            await budget.sleep(0.02)
        return self.tab.pending_dialog


@pytest.fixture(params=ENGINES, scope="module")
async def driver(request) -> AsyncIterator[Driver]:
    async with tabwarden.launch(isolated=True, engine=request.param) as session:
        tab = session.active_tab if request.param == "firefox" else await session.new_tab()
        yield Driver(request.param, session, tab)


@pytest.fixture
async def page(driver: Driver, server) -> Driver:
    result = await driver.tab.navigate(server.url("/engines.html"))
    assert result.ok and result.status == 200
    return driver


async def test_navigate_reports_status_title_and_wait_until(driver, server):
    result = await driver.tab.navigate(server.url("/engines.html"), wait_until="domcontentloaded")
    assert result.status == 200
    assert result.url == server.url("/engines.html")
    missing = await driver.tab.navigate(server.url("/no-such-page"))
    assert missing.status == 404 and not missing.ok


async def test_snapshot_has_refs_and_inlines_a_same_origin_iframe(page):
    text = await page.snapshot()
    assert re.search(r'- button "Confirm" \[ref=e\d+\]', text), text
    assert re.search(r'- textbox "Name" \[ref=e\d+\]', text), text
    # The iframe's button is under the iframe, with a ref of the same space.
    lines = text.splitlines()
    iframe = next(i for i, line in enumerate(lines) if "- iframe" in line)
    assert any('button "Inner"' in line for line in lines[iframe + 1 :]), text
    # The same live element keeps its ref.
    assert await page.ref('button "Confirm"') == await page.ref('button "Confirm"')


async def test_a_snapshot_pages_by_max_chars_and_cursor_and_finds_lines(page):
    first = await page.tab.snapshot(max_chars=300)
    assert first.text.startswith(f'# tab {page.tab.id} · "Engines"')
    assert first.page.next_cursor is not None and len(first.text) <= 300
    rest = await page.tab.snapshot(max_chars=300, cursor=first.page.next_cursor)
    assert rest.capture == first.capture and rest.changed is False
    whole = await page.snapshot()
    shown = [line for line in first.text.splitlines() + rest.text.splitlines() if "[ref=" in line]
    assert shown and all(line in whole for line in shown)
    found = await page.tab.snapshot(find="Hover")
    assert [line for line in found.text.splitlines() if "[ref=" in line] == [
        line for line in whole.splitlines() if "Hover" in line
    ]


async def test_click_in_a_frame_reaches_its_element(page):
    await page.tab.click(await page.ref('button "Inner"'))
    await page.title_becomes("from frame")


async def test_type_fills_the_field(page):
    await page.tab.type("hello", ref=await page.ref('textbox "Name"'))
    assert await page.value("document.getElementById('name').value") == "hello"


async def test_fill_replaces_the_text_and_press_sends_a_key(page):
    city = await page.ref('textbox "City"')
    await page.tab.fill(city, "Oslo")
    assert await page.value("document.getElementById('city').value") == "Oslo"
    await page.tab.press("Enter", ref=city)
    await page.title_becomes("entered Oslo")
    await page.tab.fill(city, "")
    assert await page.value("document.getElementById('city').value") == ""


async def test_hover_moves_the_mouse_over_the_element(page):
    await page.tab.hover(await page.ref('button "Hover me"'))
    await page.title_becomes("hovered")


async def test_reload_loads_the_document_again(page):
    await page.value("window.marker = 1")
    result = await page.tab.reload()
    assert result.status == 200
    assert await page.value("window.marker === undefined") is True


async def test_back_and_forward_walk_the_history(driver, server):
    await driver.tab.navigate(server.url("/engines.html"))
    await driver.tab.navigate(server.url("/engines_child.html"))
    back = await driver.tab.back()
    assert back.url == server.url("/engines.html")
    assert await driver.value("location.pathname") == "/engines.html"
    forward = await driver.tab.forward()
    assert forward.url == server.url("/engines_child.html")


async def test_get_text_of_an_element_and_of_the_page(page):
    assert (await page.tab.get_text(await page.ref('button "Confirm"'))).strip() == "Confirm"
    whole = await page.tab.get_text()
    assert "Engines" in whole and "Hover me" in whole
    assert (await page.tab.get_text(max_chars=3)).startswith("Eng")


async def test_a_removed_element_is_a_stale_ref(page):
    doomed = await page.ref('button "Doomed"')
    await page.tab.click(await page.ref('button "Remove"'))
    with pytest.raises(StaleRefError):
        await page.tab.click(doomed)


async def test_a_ref_of_a_page_navigated_away_is_stale(page, server):
    ref = await page.ref('button "Confirm"')
    await page.tab.navigate(server.url("/engines.html"))
    with pytest.raises(StaleRefError):
        await page.tab.click(ref)
    # Also once the new document was read (its elements have handles of their own).
    assert await page.ref('button "Confirm"') != ref
    with pytest.raises(StaleRefError):
        await page.tab.click(ref)


async def test_evaluate_within_its_budget_and_a_hung_script_times_out(driver, server):
    await driver.tab.navigate(server.url("/engines.html"))
    assert await driver.value("1 + 2") == 3
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        await driver.value("new Promise(() => {})", timeout_ms=500)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("answer", ["accept", "dismiss"])
async def test_a_click_that_opens_a_confirm_returns_and_the_answer_reaches_the_page(page, answer):
    started = time.monotonic()
    await asyncio.wait_for(page.tab.click(await page.ref('button "Confirm"')), 10)
    assert time.monotonic() - started < 10
    dialog = await page.pending()
    assert dialog.type == "confirm" and dialog.message == "Sure?"
    assert "dialog open: " in await page.snapshot()  # a snapshot tells of the dialog
    await page.tab.dialog(answer)
    await page.title_becomes(f"confirm {'true' if answer == 'accept' else 'false'}")


async def test_alert_and_prompt_are_answered(page):
    await page.tab.click(await page.ref('button "Alert"'))
    assert (await page.pending()).type == "alert"
    await page.tab.dialog("accept")
    await page.title_becomes("alerted")
    await page.tab.click(await page.ref('button "Prompt"'))
    dialog = await page.pending()
    assert dialog.type == "prompt" and dialog.message == "Name?"
    await page.tab.dialog("accept", prompt_text="Ada")
    await page.title_becomes("prompt Ada")


@pytest.mark.parametrize("engine", ENGINES)
async def test_closing_the_session_leaves_no_browser_and_no_profile(engine):
    session = await tabwarden.launch(isolated=True, engine=engine)
    backend = session.backend
    profile = backend.profile_dir
    assert profile is not None and profile.is_dir()
    assert browser_processes(profile)
    await session.close()
    budget = Budget(15)
    while browser_processes(profile):
        assert not budget.expired, "the browser outlived its session"
        await budget.sleep(0.05)
    assert not profile.exists()


async def test_an_inline_document_loads(driver):
    result = await driver.tab.navigate("data:text/html,<title>Inline</title><p>inline</p>")
    assert result.ok and result.status == 200  # both engines report data: loads so
    assert await driver.value("document.title") == "Inline"


async def test_a_tab_has_the_configured_viewport(driver):
    assert await driver.value("[innerWidth, innerHeight]") == [1280, 720]


async def test_an_action_returns_a_receipt_with_the_views_changes(page):
    receipt = await page.tab.click(await page.ref('button "Remove"'))
    assert receipt.action == "click" and 'button "Remove"' in (receipt.target or "")
    assert receipt.tab_id == page.tab.id and not receipt.navigated
    assert receipt.diff is not None
    assert any("Doomed" in line for line in receipt.diff.removed), receipt.text
    assert "page changes:" in receipt.text


async def test_a_receipt_waits_for_what_the_action_queued(page):
    receipt = await page.tab.click(await page.ref('button "Grow"'))
    assert receipt.diff is not None
    assert any('button "Grown"' in line for line in receipt.diff.added), receipt.text
    assert receipt.console_errors == ["grew"], receipt.text


async def test_a_click_on_a_link_says_where_it_navigated(page, server):
    receipt = await page.tab.click(await page.ref('link "Child page"'))
    assert receipt.navigated, receipt.text
    assert receipt.url == server.url("/engines_child.html")
    assert f"navigated to {server.url('/engines_child.html')}" in receipt.text


async def test_a_receipt_names_a_dialog_the_action_left_open(page):
    receipt = await page.tab.click(await page.ref('button "Confirm"'))
    assert receipt.dialog is not None and receipt.dialog.type == "confirm", receipt.text
    assert "dialog open: " in receipt.text
    await page.tab.dialog("dismiss")


async def test_fill_and_type_receipts_say_what_the_field_holds(page):
    city = await page.ref('textbox "City"')
    filled = await page.tab.fill(city, "Oslo")
    assert filled.detail == 'set to "Oslo"', filled.text
    typed = await page.tab.type("ab", ref=city, delay_ms=20, submit=True)
    assert typed.detail == "typed 2 characters and pressed Enter", typed.text
    await page.title_becomes("entered Osloab")


async def test_evaluate_a_function_with_an_element_and_arguments(page):
    city = await page.ref('textbox "City"')
    result = await page.tab.evaluate(
        function="function (el, suffix) { return this.value + el.id + suffix; }",
        ref=city,
        args=["!"],
    )
    assert (result.value, result.type) == ("Pariscity!", "string")
    added = await page.tab.evaluate(function="(a, b) => ({sum: a + b})", args=[2, 3])
    assert (added.value, added.type) == ({"sum": 5}, "object")


async def test_evaluate_results_are_json_described_and_cut_as_on_chromium(page):
    nodes = await page.tab.evaluate("[document.body, 1n, NaN, () => 1]")
    assert nodes.value == ["body", "1n", "NaN", "function (anonymous)"] and nodes.described
    circular = await page.tab.evaluate("(() => { const a = {n: 1}; a.self = a; return a; })()")
    assert circular.value == {"n": 1, "self": "[circular]"}
    long = await page.tab.evaluate("'x'.repeat(500)", max_chars=100)
    assert long.truncated and long.total_chars == 502 and len(long.value) == 100
    big = await page.tab.evaluate("Array.from({length: 300}, (_, i) => i)", max_chars=100)
    assert big.truncated and big.value.startswith("[0,1,2") and big.total_chars > 100
    assert (await page.tab.evaluate("undefined")).type == "undefined"
    assert (await page.tab.evaluate("Promise.resolve(7)")).value == 7
    pending = await page.tab.evaluate("Promise.resolve(7)", await_promise=False)
    assert pending.type == "object"


async def test_evaluate_in_a_frame_by_its_id(page):
    frames = await page.tab.evaluate(
        "Array.from(document.querySelectorAll('iframe'), f => f.title)"
    )
    assert frames.value == ["child"]
    main, child = page.tab.frames.frames()
    assert main.frame_id == page.tab.target_id and child.parent_id == main.frame_id
    assert child.url.endswith("/engines_child.html")
    frame_id = child.frame_id
    inner = await page.tab.evaluate("location.pathname", frame_id=frame_id)
    assert inner.value == "/engines_child.html"


async def test_a_snapshot_scoped_to_a_ref_shows_only_its_subtree(page):
    frame = await page.ref(r'iframe|Iframe|document "child"|"child"')
    scoped = (await page.tab.snapshot(scope=frame)).text
    assert f"# scope {frame}" in scoped
    assert 'button "Inner"' in scoped and 'button "Confirm"' not in scoped, scoped
    with pytest.raises(UnknownRef):
        await page.tab.snapshot(scope="e99999")


async def test_content_as_markdown_and_text_paged_by_cursor(driver, server):
    await driver.tab.navigate(server.url("/engines.html"))
    content = await driver.tab.get_content()
    assert content.format == "markdown" and content.title == "Engines"
    assert "# Engines" in content.text and "[Child page](" in content.text
    text = await driver.tab.get_content(format="text")
    assert text.text.startswith("Engines") and "[Child page]" not in text.text
    await driver.tab.navigate(server.url("/content_long.html"))
    first = await driver.tab.get_content(max_chars=200)
    assert first.next_cursor is not None and first.truncated
    rest = await driver.tab.get_content(max_chars=1_000_000, cursor=first.next_cursor)
    assert rest.cursor == first.next_cursor and rest.next_cursor is None
    assert first.total_chars == rest.total_chars > 200


async def test_images_are_listed_with_size_and_state(driver, server):
    await driver.tab.navigate(server.url("/content_images.html"))
    images = await driver.tab.get_images()
    assert images.total >= 2 and images.images
    assert any(i.loaded is False for i in images.images)  # a broken image says so
    first = await driver.tab.get_images(max_images=1)
    assert len(first.images) == 1 and first.truncated


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


async def test_screenshots_of_the_viewport_the_page_and_an_element(driver, server):
    await driver.tab.navigate(server.url("/engines_tall.html"))
    viewport = await driver.tab.screenshot()
    assert (viewport.kind, viewport.format) == ("viewport", "png")
    assert _png_size(viewport.data) == (viewport.width, viewport.height) == (1280, 720)
    page = await driver.tab.screenshot(full_page=True)
    assert page.kind == "page" and page.height > 3000 and not page.cut
    assert _png_size(page.data) == (page.width, page.height)
    jpeg = await driver.tab.screenshot(format="jpeg", quality=50)
    assert jpeg.data[:2] == b"\xff\xd8" and jpeg.format == "jpeg"
    await driver.tab.navigate(server.url("/engines.html"))
    button = await driver.ref('button "Confirm"')
    element = await driver.tab.screenshot(ref=button)
    assert element.kind == "element" and 20 < element.width < 200 and element.height < 60
    width, height = _png_size(element.data)  # a box of fractional size: ±1 px
    assert abs(width - element.width) <= 1 and abs(height - element.height) <= 1


async def test_an_annotated_screenshot_marks_the_refs_and_leaves_the_page_clean(page, tmp_path):
    shot = await page.tab.screenshot(annotate=True, save=True)
    assert shot.marks >= 5  # the buttons and fields of engines.html
    assert shot.path is not None and shot.path.read_bytes() == shot.data
    assert await page.value("document.getElementById('__tabwarden_marks__')") is None
    shot.path.unlink()


async def test_the_console_keeps_every_level_and_uncaught_exceptions(driver, server):
    await driver.tab.navigate(server.url("/engines.html"))
    await driver.tab.console(clear=True)
    await driver.value(
        "console.log('fine'); console.warn('careful'); console.error('broken', 42);"
        " setTimeout(() => { throw new Error('boom'); }, 0); 1"
    )
    budget = Budget(10)
    while (await driver.tab.console(level="exception")).matched == 0:
        assert not budget.expired, "the uncaught exception never came"
        await budget.sleep(0.05)
    report = await driver.tab.console()
    texts = [(e.level, e.text) for e in report.entries]
    assert ("log", "fine") in texts and ("warning", "careful") in texts, texts
    assert ("error", "broken 42") in texts, texts
    [thrown] = [e for e in report.entries if e.level == "exception"]
    assert "Error: boom" in thrown.text and thrown.source == "exception"
    errors = await driver.tab.console(level="error")
    assert {e.level for e in errors.entries} == {"error", "exception"}  # error takes both
    assert "console of tab" in errors.text and "broken 42" in errors.text
    header = (await driver.snapshot()).split("\n[", 1)[0]
    assert "# console: 2 errors (1 uncaught) since last snapshot" in header, header
    await driver.value("console.log('later'); 1")
    while "later" not in [e.text for e in (await driver.tab.console()).entries]:
        assert not budget.expired, "the later message never came"
        await budget.sleep(0.05)
    unread = await driver.tab.console(since="last_read", clear=True)
    assert unread.matched == 0  # the read above saw it already
    assert (await driver.tab.console()).matched == 0  # cleared


# ---- the network log and downloads ---------------------------------------------------


async def _network_until(driver: Driver, done: Any, **filters: Any) -> Any:
    """The tab's network report once ``done(report)`` holds (events arrive on their own)."""
    budget = Budget(10)
    while True:
        report = await driver.tab.network(**filters)
        if done(report):
            return report
        assert not budget.expired, report.text
        await budget.sleep(0.05)


@pytest.fixture
async def network_page(driver: Driver, server) -> Driver:
    result = await driver.tab.navigate(server.url("/diag_network.html"))
    assert result.ok
    await driver.tab.network(clear=True)
    return driver


async def test_the_network_log_lists_a_fetch_with_its_status_and_filters(network_page):
    page = network_page
    assert await page.value("get('/diag-body?bytes=50&log=fetch')") == 200
    assert await page.value("xhr('/status/500?log=xhr')") == 500
    report = await _network_until(
        page, lambda r: r.matched == 1 and r.requests[0].state == "finished", url="log=fetch"
    )
    fetched = report.requests[0]
    assert (fetched.method, fetched.status, fetched.type) == ("GET", 200, "fetch")
    assert fetched.encoded_bytes is not None and fetched.encoded_bytes >= 50
    assert fetched.duration_ms is not None and fetched.id in report.text
    assert "GET 200 fetch" in fetched.line()
    xhr = await _network_until(page, lambda r: r.matched == 1, type="xhr")
    assert xhr.requests[0].status == 500 and "log=xhr" in xhr.requests[0].url
    failing = await page.tab.network(status="5xx")
    assert [r.url for r in failing.requests] == [xhr.requests[0].url]
    assert (await page.tab.network(url="/log=(fetch|xhr)/")).matched == 2
    assert (await page.tab.network(type="document")).matched == 0  # cleared before
    cleared = await page.tab.network(clear=True)
    assert cleared.cleared and (await page.tab.network()).matched == 0


async def test_a_request_s_details_give_its_headers_and_bodies(network_page):
    page = network_page
    secret = "Bearer sk-live-0123456789abcdefghijklmnop"
    options = f"{{headers: {{Authorization: '{secret}'}}}}"
    script = f"fetch('/diag-body?bytes=30&log=details', {options}).then(r => r.text())"
    assert await page.value(script) == "0123456789" * 3
    report = await _network_until(
        page, lambda r: r.matched == 1 and r.requests[0].state == "finished", url="log=details"
    )
    details = (await page.tab.network(request_id=report.requests[0].id)).details
    headers = {name.lower(): value for name, value in details.request_headers}
    assert headers["authorization"] == secret
    assert dict(details.response_headers)["X-Diagnostics"] == "body"
    assert (details.body, details.body_bytes) == ("0123456789" * 3, 30)
    assert await page.value("post('/slow?ms=0&log=post', JSON.stringify({a: 1}))") == 200
    posted = await _network_until(
        page, lambda r: r.matched == 1 and r.requests[0].state == "finished", url="log=post"
    )
    details = (await page.tab.network(request_id=posted.requests[0].id)).details
    assert posted.requests[0].method == "POST" and details.post_data == '{"a":1}'


async def test_a_redirect_and_a_refused_connection_in_the_network_log(network_page, server):
    page = network_page
    assert await page.value("get('/redirect?to=/status/201%3Flog%3Dhop')") == 201
    hops = await _network_until(
        page,
        lambda r: r.matched == 2 and r.requests[1].state == "finished",
        url="/redirect|log=hop/",
    )
    first, second = hops.requests
    assert (first.state, first.status) == ("redirected", 302)
    assert first.redirected_to.endswith("/status/201?log=hop")
    assert second.status == 201 and second.redirected_from == first.url
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # nothing listens once it is closed
    refused = f"http://127.0.0.1:{closed}/refused"
    assert "Error" in str(await page.value(f"get('{refused}')"))
    failed = await _network_until(page, lambda r: r.matched == 1, url="/refused", status="failed")
    assert failed.requests[0].failure and not failed.requests[0].canceled
    with pytest.raises(InvalidArgument):
        await page.tab.network(request_id="r999999")


async def test_a_download_lands_in_the_downloads_folder_with_size_and_flag(driver, server):
    await driver.tab.navigate(server.url("/files_downloads.html"))
    folder = WorkspacePaths.from_config(driver.session.config).output_dir("downloads", create=False)
    names = {"text": f"{driver.engine}-notes.txt", "exe": f"{driver.engine}-setup.exe"}
    for body, name in names.items():
        # One at a time: a link's navigation would abort the one before it has begun.
        click = "document.body.append(a); a.click(); return 1 })()"
        await driver.value(
            f"(() => {{ const a = document.createElement('a'); a.href = "
            f"'/download/{name}?body={body}'; {click}"
        )
        budget = Budget(15)
        while not any(
            d.suggested_name == name and d.state == "completed"
            for d in driver.session.known_downloads()
        ):
            assert not budget.expired, (await driver.session.downloads()).text
            await budget.sleep(0.05)
    listing = await driver.session.downloads(wait=True, timeout_ms=10_000)
    found = {d.suggested_name: d for d in listing.downloads}
    notes, setup = found[names["text"]], found[names["exe"]]
    for download in (notes, setup):
        assert download.state == "completed" and download.path is not None
        assert download.path.parent == folder and download.path.is_file()
        assert download.size == download.path.stat().st_size > 0
        assert download.path.stat().st_mode & 0o111 == 0
        assert download.tab_id == driver.tab.id
    assert notes.path.name == names["text"] and not notes.executable
    assert setup.executable and any("Windows executable" in r for r in setup.reasons)
    assert "WARNING: executable" in listing.text and str(folder) in listing.text
    data = listing.to_dict()
    assert {"url", "state", "path", "size", "executable"} <= set(data["downloads"][0])


async def test_a_receipt_waits_for_the_requests_the_action_sent(page, server):
    # Firefox reports a request from its parent process, with no order against the
    # page's own replies: on a loaded machine a request may be seen after the page
    # settled, and the receipt then does not list it (docs/firefox.md). One of three
    # tries must; Chromium's must each time.
    for _ in range(3 if page.engine == "firefox" else 1):
        receipt = await page.tab.click(await page.ref('button "Load"'))
        if receipt.requests:
            break
        await page.tab.navigate(server.url("/engines.html"))
    # Listed with its status: the request had ended when the receipt was written. (How
    # long the receipt itself waited depends on the machine: a loaded one may finish the
    # 75 ms request before the click returns, and then the wait is 0.)
    assert any(r.startswith("GET /engines_child.html 200") for r in receipt.requests), receipt
    assert not receipt.still_open
    assert receipt.diff is not None
    assert any('button "Loaded"' in line for line in receipt.diff.added), receipt.text
    assert "requests: GET /engines_child.html 200" in receipt.text


async def test_a_snapshot_header_counts_the_failed_requests_since_the_last(page, server):
    await page.snapshot()  # what came before is seen
    await page.value("fetch('/status/404').then(r => r.status)")
    header = (await page.snapshot()).split("\n[", 1)[0]
    assert "network: 1 HTTP 404" in header, header
    assert "network:" not in (await page.snapshot()).split("\n[", 1)[0]  # told once


# ---- storage and emulation ----------------------------------------------------------------


async def test_a_cookie_set_is_what_the_page_and_a_read_see_and_delete_removes_it(driver, server):
    await driver.tab.navigate(server.url("/state_storage.html"))
    await driver.tab.storage("clear", "cookies", all=True)
    stored = await driver.tab.storage("set", "cookies", name="flavour", value="oatmeal")
    assert stored.changed == 1 and stored.items[0]["domain"] == "127.0.0.1"
    assert "flavour=oatmeal" in await driver.value("document.cookie")
    await driver.value("document.cookie = 'by-page=yes'")
    got = await driver.tab.storage("get", "cookies")
    assert sorted((c["name"], c["value"]) for c in got.items) == [
        ("by-page", "yes"),
        ("flavour", "oatmeal"),
    ]
    assert set(got.items[0]) == {
        "name",
        "value",
        "domain",
        "path",
        "expires",
        "httpOnly",
        "secure",
        "sameSite",
    }
    deleted = await driver.tab.storage("delete", "cookies", name="flavour")
    assert deleted.changed == 1 and await driver.value("document.cookie") == "by-page=yes"
    missing = await driver.tab.storage("delete", "cookies", name="flavour")
    assert missing.changed == 0 and "no cookie named" in missing.notes[0]
    cleared = await driver.tab.storage("clear", "cookies")
    assert cleared.changed == 1 and await driver.value("document.cookie") == ""


async def test_an_http_only_cookie_reaches_the_server_but_not_the_page(driver, server):
    await driver.tab.navigate(server.url("/state_storage.html"))
    await driver.tab.storage("clear", "cookies", all=True)
    await driver.tab.storage("set", "cookies", name="sid", value="s3cr3t", http_only=True)
    assert "sid" not in await driver.value("document.cookie")
    sent = await driver.value(
        f"fetch({server.url('/state-headers')!r}).then(r => r.json()).then(h => h.Cookie)"
    )
    assert "sid=s3cr3t" in sent
    with pytest.raises(InvalidArgument) as refused:
        await driver.tab.storage("set", "cookies", name="cross", value="1", same_site="None")
    assert "SameSite=None needs secure" in str(refused.value)
    await driver.tab.storage("clear", "cookies", all=True)


@pytest.mark.parametrize("kind", ["local", "session"])
async def test_web_storage_set_get_delete_clear_as_the_page_sees_it(driver, server, kind):
    await driver.tab.navigate(server.url("/state_storage.html"))
    await driver.tab.storage("clear", kind)
    await driver.tab.storage("set", kind, name="theme", value="dark")
    await driver.value(f"{kind}Storage.setItem('by-page', 'yes')")
    assert await driver.value(f"{kind}Storage.getItem('theme')") == "dark"
    got = await driver.tab.storage("get", kind)
    assert {i["name"]: i["value"] for i in got.items} == {"theme": "dark", "by-page": "yes"}
    assert got.scope == server.base
    one = await driver.tab.storage("get", kind, name="nope")
    assert one.items == () and "no key" in one.notes[0]
    deleted = await driver.tab.storage("delete", kind, name="theme")
    assert deleted.changed == 1 and await driver.value(f"{kind}Storage.length") == 1
    cleared = await driver.tab.storage("clear", kind)
    assert cleared.changed == 1 and await driver.value(f"{kind}Storage.length") == 0
    with pytest.raises(InvalidArgument):
        await driver.tab.storage("set", kind, name="k", value="v", http_only=True)


_SEEN = (
    "[innerWidth, innerHeight, devicePixelRatio, navigator.userAgent, navigator.language, "
    "Intl.DateTimeFormat().resolvedOptions().timeZone]"
)


async def test_viewport_user_agent_locale_and_timezone_reach_open_and_new_tabs(driver, server):
    await driver.tab.navigate(server.url("/state_emulation.html"))
    before = await driver.value(_SEEN)
    try:
        result = await driver.session.emulate(
            width=500,
            height=400,
            device_scale_factor=2,
            user_agent="TestAgent/1.0",
            locale="de-DE",
            timezone="Asia/Tokyo",
        )
        assert result.state.width == 500 and result.state.timezone == "Asia/Tokyo"
        assert "viewport: 500x400 at 2x" in result.text
        assert driver.session.emulation_state() == result.state
        await driver.tab.navigate(server.url("/state_emulation.html"))
        seen = [500, 400, 2, "TestAgent/1.0", "de-DE", "Asia/Tokyo"]
        assert await driver.value(_SEEN) == seen
        other = await driver.session.new_tab(server.url("/state_emulation.html"))
        try:
            value = await other.evaluate(_SEEN)
            assert value.value == seen
        finally:
            await other.close()
    finally:
        reset = await driver.session.emulate(reset=True)
    assert reset.state.is_default
    await driver.tab.navigate(server.url("/state_emulation.html"))
    assert await driver.value(_SEEN) == before


async def test_an_emulated_geolocation_is_what_the_page_reads(driver, server):
    await driver.tab.navigate(server.url("/state_emulation.html"))
    try:
        await driver.session.emulate(latitude=48.8584, longitude=2.2945, accuracy=25)
        position = await driver.value(
            "new Promise((ok, no) => navigator.geolocation.getCurrentPosition("
            "p => ok([p.coords.latitude, p.coords.longitude, p.coords.accuracy]), "
            "e => no(new Error(e.message)), {timeout: 8000}))",
            timeout_ms=15_000,
        )
        assert position == [48.8584, 2.2945, 25]
    finally:
        await driver.session.emulate(reset=True)


async def test_offline_fails_requests_until_back_online(driver, server):
    await driver.tab.navigate(server.url("/state_emulation.html"))
    fetch = f"fetch({server.url('/state-headers')!r}).then(r => r.status, () => 'failed')"
    try:
        await driver.session.emulate(offline=True)
        assert await driver.value(fetch) == "failed"
    finally:
        await driver.session.emulate(offline=False)
    assert await driver.value(fetch) == 200


async def test_a_site_loaded_after_the_emulation_reads_the_emulated_geolocation(
    driver, server, other_origin
):
    await driver.tab.navigate(server.url("/state_emulation.html"))
    try:
        await driver.session.emulate(latitude=35.6586, longitude=139.7454)
        await driver.tab.navigate(other_origin.url("/state_emulation.html"))
        position = await driver.value(
            "new Promise((ok, no) => navigator.geolocation.getCurrentPosition("
            "p => ok([p.coords.latitude, p.coords.longitude]), "
            "e => no(new Error(e.message)), {timeout: 8000}))",
            timeout_ms=15_000,
        )
        assert position == [35.6586, 139.7454]
    finally:
        await driver.session.emulate(reset=True)


@pytest.fixture
async def inputs(driver: Driver, server) -> Driver:
    result = await driver.tab.navigate(server.url("/engines_input.html"))
    assert result.ok
    return driver


async def test_click_takes_a_button_a_click_count_and_modifiers(inputs):
    clicks = await inputs.ref('button "Clicks"')
    await inputs.tab.click(clicks, modifiers=["Shift", "ctrl"])
    await inputs.title_becomes("click 1 shift control")
    double = await inputs.tab.click(clicks, click_count=2)
    assert double.detail == "2 clicks", double.text
    await inputs.title_becomes("dblclick")
    await inputs.tab.click(clicks, button="middle")
    await inputs.title_becomes("auxclick 1")
    await inputs.tab.click(clicks, button="right")
    await inputs.title_becomes("auxclick 2")
    assert await inputs.value("window.menus") == 1
    await inputs.tab.click(clicks, modifiers=["Alt"])  # the page still takes input
    await inputs.title_becomes("click 1 alt")
    with pytest.raises(InvalidArgument):
        await inputs.tab.click(clicks, button="fourth")
    with pytest.raises(InvalidArgument):
        await inputs.tab.click(clicks, modifiers=["Hyper"])


async def test_select_chooses_options_by_value_or_label(inputs):
    colour = await inputs.ref('combobox "Colour"')
    receipt = await inputs.tab.select(colour, ["g"])
    assert receipt.action == "select" and receipt.detail == 'selected "Green" (value "g")'
    await inputs.title_becomes("colour g")
    await inputs.tab.select(colour, "Blue")
    await inputs.title_becomes("colour b")
    sizes = await inputs.ref('listbox "Sizes"')
    several = await inputs.tab.select(sizes, ["S", "L"])
    assert several.detail == 'selected "S", "L"', several.text
    picked = "[...document.getElementById('sizes').selectedOptions].map(o => o.value)"
    assert await inputs.value(picked) == ["S", "L"]
    with pytest.raises(InvalidArgument, match="no option 'Purple'"):
        await inputs.tab.select(colour, ["Purple"])
    with pytest.raises(NotActionable, match="not a <select>"):
        await inputs.tab.select(await inputs.ref('button "Clicks"'), ["x"])


async def test_check_clicks_only_when_the_state_differs_and_verifies_it(inputs):
    agree = await inputs.ref('checkbox "Agree"')
    first = await inputs.tab.check(agree)
    assert first.detail == "checked", first.text
    assert await inputs.value("document.getElementById('agree').checked") is True
    again = await inputs.tab.check(agree)
    assert again.detail == "already checked", again.text
    off = await inputs.tab.check(agree, False)
    assert off.detail == "unchecked"
    switch = await inputs.ref('checkbox "Switch"')
    assert (await inputs.tab.check(switch)).detail == "checked"
    with pytest.raises(ActionError, match="did not check"):
        await inputs.tab.check(await inputs.ref('checkbox "Stuck"'))
    with pytest.raises(NotActionable, match="not a checkbox"):
        await inputs.tab.check(await inputs.ref('button "Clicks"'))


async def test_scroll_moves_the_page_an_element_or_brings_a_ref_into_view(inputs):
    page = await inputs.tab.scroll(direction="down", amount=400)
    assert page.detail.startswith("scrolled down to x=0, y="), page.text
    await _becomes(inputs, "scrollY > 0")
    box = await inputs.ref('textbox "Notes"')
    inner = await inputs.tab.scroll(box, direction="down", amount=200)
    assert inner.detail.startswith("scrolled down to"), inner.text
    assert await inputs.value("document.getElementById('notes').scrollTop") > 0
    await inputs.tab.scroll(direction="up", amount=5000)
    await _becomes(inputs, "scrollY === 0")
    into = await inputs.tab.scroll(box, direction=None)
    assert into.detail == "scrolled into view"
    with pytest.raises(InvalidArgument):
        await inputs.tab.scroll(direction="sideways")


async def test_drag_drops_an_html5_draggable_onto_a_target(inputs):
    receipt = await inputs.tab.drag(
        await inputs.ref('button "Card"'), await inputs.ref('button "Bin"')
    )
    assert receipt.action == "drag" and receipt.detail == "HTML5 drag and drop", receipt.text
    assert "→" in (receipt.target or "")
    await inputs.title_becomes("dropped card")


async def test_drag_of_a_plain_element_is_real_pointer_input(inputs):
    handle, slot = await inputs.ref('button "Handle"'), await inputs.ref('button "Slot"')
    receipt = await inputs.tab.drag(handle, slot)
    assert receipt.detail == "", receipt.text
    await inputs.title_becomes("pointer dropped")


async def test_upload_sets_a_hidden_input_and_answers_a_chooser_a_button_opens(inputs, tmp_path):
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("1")
    two.write_text("2")
    hidden = await inputs.ref("Attachment")
    receipt = await inputs.tab.upload_file(hidden, [str(one)])
    assert receipt.action == "upload_file" and receipt.detail == "attached one.txt", receipt.text
    await inputs.title_becomes("attached one.txt")
    label = await inputs.tab.upload_file(await inputs.ref('button "Upload photo"'), str(two))
    assert label.detail == "attached two.txt", label.text
    await inputs.title_becomes("photo two.txt")
    chooser = await inputs.tab.upload_file(
        await inputs.ref('button "Choose files"'), [str(one), str(two)]
    )
    assert chooser.detail.startswith("attached one.txt, two.txt through the file chooser"), (
        chooser.text
    )
    await inputs.title_becomes("chose one.txt, two.txt")
    with pytest.raises(PathNotAllowed):
        await inputs.tab.upload_file(hidden, ["/etc/hostname"])
    with pytest.raises(NotActionable, match="which takes no files"):
        await inputs.tab.upload_file(await inputs.ref('combobox "Colour"'), [str(one)])
    with pytest.raises(InvalidArgument, match="takes one file, 2 were given"):
        await inputs.tab.upload_file(await inputs.ref('button "Choose one"'), [str(one), str(two)])
    with pytest.raises(NotActionable, match="opened no file chooser"):
        await inputs.tab.upload_file(await inputs.ref('button "Clicks"'), [str(one)])


async def test_wait_for_text_a_ref_a_load_state_and_a_time(inputs):
    going = await inputs.ref('button "Going"')
    await inputs.tab.click(await inputs.ref('button "Later"'))
    said = await inputs.tab.wait(text="ready NOW", timeout_ms=10_000)
    assert said.startswith("text 'ready NOW' appeared after "), said
    assert (await inputs.tab.wait(ref=going, state="hidden")).startswith(f"{going} became hidden")
    assert (await inputs.tab.wait(text_gone="Going")).startswith("text 'Going' disappeared")
    assert (await inputs.tab.wait(load_state="load")).startswith("the page reached load")
    assert await inputs.tab.wait(time_ms=50) == "waited 50 ms"
    with pytest.raises(DeadlineExceeded, match="waited 300 ms for text 'Never' to appear"):
        await inputs.tab.wait(text="Never", timeout_ms=300)
    with pytest.raises(InvalidArgument, match="exactly one of"):
        await inputs.tab.wait(text="a", text_gone="b")


async def test_wait_finds_text_in_an_iframe(page):
    said = await page.tab.wait(text="Inner", timeout_ms=10_000)
    assert said.startswith("text 'Inner' appeared after "), said


async def test_act_batch_runs_the_steps_and_stops_at_the_first_failure(inputs):
    agree = await inputs.ref('checkbox "Agree"')
    colour = await inputs.ref('combobox "Colour"')
    receipts = await inputs.tab.act_batch(
        [{"action": "check", "ref": agree}, {"action": "select", "ref": colour, "values": ["r"]}]
    )
    assert [r.action for r in receipts] == ["check", "select"]
    with pytest.raises(BatchError) as caught:
        await inputs.tab.act_batch(
            [
                {"action": "uncheck", "ref": agree},
                {"action": "select", "ref": colour, "values": ["x"]},
            ]
        )
    assert caught.value.step == 1 and [r.detail for r in caught.value.receipts] == ["unchecked"]
    with pytest.raises(InvalidArgument):
        await inputs.tab.act_batch([{"action": "fly"}])


async def _becomes(driver: Driver, expression: str) -> None:
    budget = Budget(10)
    while await driver.value(expression) is not True:
        assert not budget.expired, f"{expression} never held"
        await budget.sleep(0.05)


async def test_a_page_saved_as_pdf_with_print_options(driver, server):
    await driver.tab.navigate(server.url("/files_print.html"))
    pdf = await driver.tab.save_pdf("engines-print.pdf", paper_format="A4")
    landscape = await driver.tab.save_pdf(
        "engines-landscape", landscape=True, paper_format="a4", margins="1cm 2cm", scale=0.8
    )
    two = await driver.tab.save_pdf("engines-two", page_ranges="1-2")
    try:
        assert pdf.path.parent == driver.session.paths.output_dir("pdf")
        assert pdf.path.name == "engines-print.pdf" and pdf.bytes == len(pdf.path.read_bytes())
        assert pdf.path.read_bytes().startswith(b"%PDF")
        assert (pdf.pages, two.pages) == (3, 2)
        assert landscape.path.read_bytes() != pdf.path.read_bytes()
        with pytest.raises(PathNotAllowed):
            await driver.tab.save_pdf("/tmp/elsewhere.pdf")
        with pytest.raises(InvalidArgument, match="paper_format='B9'"):
            await driver.tab.save_pdf(paper_format="B9")
    finally:
        for made in (pdf, landscape, two):
            made.path.unlink()


async def test_networkidle_waits_for_the_requests_after_the_load(driver, server):
    loaded = await driver.tab.navigate(server.url("/engines_late_fetch.html"), wait_until="load")
    assert loaded.title == "Late fetch"  # the late request is still out
    idle = await driver.tab.navigate(
        server.url("/engines_late_fetch.html"), wait_until="networkidle"
    )
    assert await driver.value("document.title") == "fetched", idle
    await driver.tab.reload(wait_until="load")
    said = await driver.tab.wait(load_state="networkidle", timeout_ms=10_000)
    assert "networkidle" in said
    assert await driver.value("document.title") == "fetched"


@pytest.mark.parametrize("engine", ENGINES)
async def test_the_first_new_tab_is_the_blank_one_the_browser_starts_with(engine, server):
    async with tabwarden.launch(isolated=True, engine=engine) as session:
        first = await session.new_tab(server.url("/engines.html"))
        second = await session.new_tab()
        assert (first.id, second.id) == ("t1", "t2")
        assert first.title == "Engines" and second.url == "about:blank"


async def test_both_engines_give_the_same_snapshot_text(server):
    pages = ("/engines_input.html", "/content_article.html", "/engines_tall.html")
    texts: dict[str, list[str]] = {}
    for engine in ENGINES:
        async with tabwarden.launch(isolated=True, engine=engine) as session:
            tab = await session.new_tab()
            for path in pages:
                await tab.navigate(server.url(path))
                for full in (False, True):
                    lines = (await tab.snapshot(full=full)).text.splitlines()
                    # The header names the tab and URL; the rest is the page's view.
                    texts.setdefault(engine, []).extend(lines[1:])
    assert texts["firefox"] == texts["chromium"]
    assert any(line.startswith("# not shown:") for line in texts["chromium"])
