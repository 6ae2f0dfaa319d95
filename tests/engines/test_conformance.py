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
from tabwarden.actions.batch import BatchError
from tabwarden.budget import Budget
from tabwarden.errors import (
    ActionError,
    DeadlineExceeded,
    InvalidArgument,
    NotActionable,
    PathNotAllowed,
    StaleRefError,
)
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
