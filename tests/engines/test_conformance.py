"""One suite, both engines: what the Firefox engine supports must behave as on Chromium.

Each test runs against Chromium (CDP, ``Tab``) and Firefox (WebDriver BiDi,
``FirefoxPage``) through a thin ``Driver`` that only papers over return types; the
calls and the rules (refs, stale refs, dialogs, deadlines, frames) are the same.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.errors import DeadlineExceeded, InvalidArgument, StaleRefError
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
        result = await self.tab.evaluate(expression, timeout_ms=timeout_ms)
        return result if self.engine == "firefox" else result.value

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
            assert (value if driver.engine == "firefox" else value.value) == seen
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
