"""Actions on refs against local pages: each action, frames, actionability, receipts."""

from __future__ import annotations

import time

import pytest

from tabwarden.actions.batch import BatchError
from tabwarden.budget import Budget
from tabwarden.errors import DialogBlocking, InvalidArgument, NotActionable
from tests.cdp_log import recorded_commands


def _ref(snapshot, name: str, role: str | None = None) -> str:
    for node in snapshot.root.walk():
        if node.name == name and (role is None or node.role == role) and node.ref:
            return node.ref
    raise AssertionError(f"no {role or 'node'} named {name!r} in:\n{snapshot.text}")


async def _events(tab) -> list[str]:
    reply = await tab.cdp(
        "Runtime.evaluate", {"expression": "window.__events", "returnByValue": True}
    )
    return reply["result"]["value"]


async def _value(tab, expression: str):
    reply = await tab.cdp("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return reply["result"].get("value")


async def _frames_later(tab) -> None:
    """Until a few frames have passed in the page: an element the last snapshot saw where
    it still is counts as stable (not moving) without waiting for frames of its own."""
    await tab.cdp(
        "Runtime.evaluate",
        {
            "expression": "new Promise(done => { let n = 3; const next = () =>"
            " --n ? requestAnimationFrame(next) : done(); requestAnimationFrame(next); })",
            "awaitPromise": True,
        },
    )


@pytest.fixture
async def page(browser, server):
    tab = await browser.new_tab(server.url("/actions.html"))
    snap = await tab.snapshot()
    yield tab, snap
    if not tab.closed:
        await tab.close()


async def test_click_double_right_and_modifier_clicks(page):
    tab, snap = page
    receipt = await tab.click(_ref(snap, "Count"))
    assert receipt.action == "click" and "Count" in receipt.target
    await tab.click(_ref(snap, "Double me"), click_count=2)
    await tab.click(_ref(snap, "Right me"), button="right")
    await tab.click(_ref(snap, "Mods"), modifiers=["Shift", "Control"])
    assert await _events(tab) == ["clicked 1", "double", "right", "mods shift+ctrl"]
    with pytest.raises(InvalidArgument):
        await tab.click(_ref(snap, "Count"), modifiers=["Hyper"])


async def test_hover_moves_a_real_pointer(page):
    tab, _ = page
    await tab.hover("#hover-target")
    assert "hovered" in await _events(tab)


async def test_role_less_card_and_shadow_button_are_clickable_by_ref(page):
    tab, snap = page
    await tab.click(_ref(snap, "A role-less card"))
    await tab.click(_ref(snap, "Shadow button"))
    clicks = [e for e in await _events(tab) if e != "hovered"]  # the pointer passes over it
    assert clicks == ["card", "shadow"]


async def test_click_scrolls_a_far_element_into_view(page):
    tab, snap = page
    await tab.click(_ref(snap, "Far below"))
    assert await _value(tab, "scrollY") > 500


_SMOOTH = (
    "data:text/html,<title>Smooth</title><style>html { scroll-behavior: smooth }"
    " .box { height: 120px; overflow: auto; scroll-behavior: smooth }</style>"
    "<div style='height: 3000px'></div>"
    "<button onclick=\"document.title = 'far'\">Far</button>"
    "<div class=box><div style='height: 600px'></div>"
    "<button onclick=\"document.title = 'boxed'\">Boxed</button></div>"
    "<div style='height: 3000px'></div>"
    "<div style='position: fixed; left: -500px; top: 10px'>"
    "<button onclick=\"document.title = 'unreachable'\">Off screen</button></div>"
)


@pytest.mark.parametrize("settled", [False, True], ids=["just-seen", "at-rest"])
async def test_clicks_scroll_at_once_on_pages_that_scroll_smoothly(browser, settled):
    # With scroll-behavior: smooth, scrolling into view would still be under way when
    # the pointer goes down: the click would land on whatever passes by, or nowhere.
    tab = await browser.new_tab(_SMOOTH)
    try:
        snap = await tab.snapshot()
        if settled:
            await _frames_later(tab)
        assert (await tab.click(_ref(snap, "Far"))).title == "far"
        assert (await tab.click(_ref(snap, "Boxed"))).title == "boxed"
        with pytest.raises(NotActionable) as caught:
            await tab.click(_ref(snap, "Off screen"))
        assert caught.value.reason in ("offscreen", "hidden")
        assert await _value(tab, "document.title") == "boxed"
    finally:
        await tab.close()


async def test_fill_sets_inputs_textareas_contenteditables_and_dates(page):
    tab, snap = page
    receipt = await tab.fill(_ref(snap, "Query", "textbox"), "hello world")
    assert 'set to "hello world"' in receipt.detail
    await tab.fill(_ref(snap, "Notes", "textbox"), "new notes")
    await tab.fill(_ref(snap, "Editor", "textbox"), "rich text")
    await tab.fill(_ref(snap, "Date"), "2026-11-25")
    assert await _value(tab, "document.getElementById('q').value") == "hello world"
    assert await _value(tab, "document.getElementById('notes').value") == "new notes"
    assert await _value(tab, "document.getElementById('editor').innerText") == "rich text"
    assert await _value(tab, "document.getElementById('date').value") == "2026-11-25"
    events = await _events(tab)
    for name in ("q", "notes", "date"):
        assert f"input {name}" in events and f"change {name}" in events
    assert "input editor" in events
    await tab.fill(_ref(snap, "Notes", "textbox"), "")
    assert await _value(tab, "document.getElementById('notes').value") == ""


async def test_fill_never_echoes_a_password(page):
    tab, snap = page
    receipt = await tab.fill(_ref(snap, "Secret", "textbox"), "s3cret-value")
    assert "s3cret" not in receipt.text() and "not shown" in receipt.detail
    assert await _value(tab, "document.getElementById('secret').value") == "s3cret-value"
    assert "s3cret" not in (await tab.snapshot(full=True)).text


async def test_fill_refuses_what_is_not_a_text_field(page):
    tab, snap = page
    with pytest.raises(NotActionable) as caught:
        await tab.fill(_ref(snap, "I agree"), "x")
    assert caught.value.reason == "not-editable" and "check" in caught.value.hint


async def test_type_with_real_keys_and_enter_to_submit(page):
    tab, snap = page
    query = _ref(snap, "Query", "textbox")
    await tab.type("abc", ref=query)
    await tab.press("Control+A", ref=query)
    await tab.press("Backspace")
    await tab.type("Hi there!", ref=query, submit=True)
    assert "submitted Hi there!" in await _events(tab)
    started = time.monotonic()
    await tab.type("xy", ref=query, delay_ms=100)
    assert time.monotonic() - started >= 0.1


async def test_select_by_value_or_label_and_multiple(page):
    tab, snap = page
    receipt = await tab.select(_ref(snap, "Colors"), ["r", "Blue"])
    # The receipt says what the page shows; a value given says which option it chose.
    assert receipt.detail == 'selected "Red" (value "r"), "Blue"'
    selected = "[...document.getElementById('colors').selectedOptions].map(o => o.value)"
    assert await _value(tab, selected) == ["r", "b"]
    receipt = await tab.select(_ref(snap, "Size"), "Medium")
    assert receipt.detail == 'selected "Medium"'
    assert 'selected "Medium"' in receipt.text()
    assert await _value(tab, "document.getElementById('size').value") == "m"
    receipt = await tab.select(_ref(snap, "Size"), "s")
    assert receipt.detail == 'selected "Small" (value "s")'
    assert "change size" in await _events(tab)
    with pytest.raises(InvalidArgument) as caught:
        await tab.select(_ref(snap, "Size"), "Huge")
    assert "'Small'" in caught.value.hint
    with pytest.raises(InvalidArgument):
        await tab.select(_ref(snap, "Size"), ["s", "m"])


async def test_check_and_uncheck(page):
    tab, snap = page
    agree = _ref(snap, "I agree")
    assert (await tab.check(agree)).detail == "checked"
    assert (await tab.check(agree)).detail == "already checked"
    assert (await tab.check(agree, checked=False)).detail == "unchecked"
    assert await _value(tab, "document.getElementById('agree').checked") is False


async def test_upload_files(page, tmp_path):
    tab, snap = page
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("one")
    second.write_text("two")
    await tab.upload_file("#file", [str(first), str(second)])
    names = "[...document.getElementById('file').files].map(f => f.name)"
    assert await _value(tab, names) == ["a.txt", "b.txt"]
    assert "change file" in await _events(tab)
    with pytest.raises(InvalidArgument) as caught:
        await tab.upload_file("#file", [str(tmp_path / "missing.txt")])
    assert "missing.txt" in str(caught.value)
    with pytest.raises(NotActionable):
        await tab.upload_file(_ref(snap, "Count"), [str(first)])


async def test_html5_drag_and_drop(page):
    tab, snap = page
    receipt = await tab.drag(_ref(snap, "Drag me"), _ref(snap, "Drop zone"))
    assert "HTML5" in receipt.detail
    assert await tab.get_text("#drop") == "dropped payload"


async def test_scroll_page_and_element(page):
    tab, _snap = page
    receipt = await tab.scroll(direction="down", amount=300)
    assert await _value(tab, "scrollY") > 0 and "scrolled down" in receipt.detail
    await tab.scroll("#scroller", direction="down", amount=200)
    assert await _value(tab, "document.getElementById('scroller').scrollTop") > 0
    with pytest.raises(InvalidArgument):
        await tab.scroll(direction="sideways")


async def test_wait_for_a_late_element_then_click_it(page):
    tab, snap = page
    await tab.click(_ref(snap, "Make a late button"))
    # exact: "Make a late button" already shows it, case aside
    said = await tab.wait(text="Late button", exact=True, timeout_ms=5_000)
    assert "appeared" in said
    late = _ref(await tab.snapshot(), "Late button")
    await tab.click(late)
    assert "late clicked" in await _events(tab)
    await tab.wait(ref=late, state="visible")
    with pytest.raises(Exception) as caught:
        await tab.wait(text="never there", timeout_ms=300)
    assert "for text 'never there' to appear; it did not" in str(caught.value)
    with pytest.raises(InvalidArgument):
        await tab.wait()


async def test_a_wait_whose_deadline_passes_before_a_check_says_it_did_not_happen(page):
    # On a loaded machine the poll's sleep can overrun the deadline: the next check is
    # then refused by the budget, and that too means "not in time".
    from tabwarden.actions.waiting import wait_for
    from tabwarden.errors import DeadlineExceeded

    tab, _ = page
    with pytest.raises(DeadlineExceeded) as caught:
        await wait_for(tab, Budget(0.0), text="never there")
    assert "for text 'never there' to appear; it did not" in str(caught.value)


async def test_get_text_of_page_and_element(page):
    tab, snap = page
    assert await tab.get_text(_ref(snap, "Count")) == "Count"
    text = await tab.get_text(max_chars=50)
    assert text.startswith("Actions") and "more characters" in text


@pytest.mark.parametrize("by_ref", [False, True], ids=["css-selector", "ref-at-rest"])
async def test_covered_button_fails_naming_the_cover_and_page_is_unchanged(browser, server, by_ref):
    # By selector, the element was never seen by a snapshot: stability waits a frame and
    # the hit test goes over CDP. By ref, at rest where snapshots saw it, the page
    # hit-tests it in the same call as its other checks.
    tab = await browser.new_tab(server.url("/covered.html"))
    snap = await tab.snapshot()
    await _frames_later(tab)
    with recorded_commands() as commands, pytest.raises(NotActionable) as caught:
        await tab.click(_ref(snap, "Buy now") if by_ref else "#under")
    assert caught.value.reason == "covered"
    assert ("DOM.getNodeForLocation" in [c.method for c in commands]) is not by_ref
    assert "div#backdrop" in str(caught.value) and "dismiss" in caught.value.hint
    assert tab.title == "Covered"
    # Scrolling it into view does not touch it: what lies over it does not matter.
    assert "scrolled into view" in (await tab.scroll(_ref(snap, "Buy now"), direction=None)).text()
    receipt = await tab.click(_ref(snap, "Accept"))
    assert any("Buy now" in line for line in receipt.diff.changed)
    await tab.click(_ref(snap, "Buy now"))
    await tab.wait(text="Buy now")
    assert (await browser.tabs()) and (
        await tab.cdp("Runtime.evaluate", {"expression": "document.title", "returnByValue": True})
    )["result"]["value"] == "clicked under"
    await tab.close()


async def test_a_selector_on_a_scrolled_page_is_hit_tested_where_it_is(browser):
    # DOM.getNodeForLocation takes document coordinates: with viewport ones, a scrolled
    # page was hit-tested above what shows, and a cover went unseen.
    tab = await browser.new_tab(
        "data:text/html,<title>Deep</title><div style='height: 2000px'></div>"
        "<button id=deep onclick=\"document.title = 'clicked'\">Deep</button>"
        "<div style='height: 2000px'></div>"
        "<div id=veil style='position: fixed; inset: 0'></div>"
    )
    try:
        with pytest.raises(NotActionable) as caught:
            await tab.click("#deep")
        assert caught.value.reason == "covered" and "div#veil" in str(caught.value)
        assert await _value(tab, "scrollY") > 1000
        await _value(tab, "document.getElementById('veil').remove()")
        assert (await tab.click("#deep")).title == "clicked"
    finally:
        await tab.close()


async def test_disabled_button_is_not_clicked(browser, server):
    tab = await browser.new_tab(server.url("/receipts.html"))
    with pytest.raises(NotActionable) as caught:
        await tab.click(_ref(await tab.snapshot(), "Not yet"))
    assert caught.value.reason == "disabled"
    await tab.close()


async def test_clicks_land_inside_same_origin_and_cross_origin_frames(
    browser, server, other_origin
):
    tab = await browser.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    snap = await tab.snapshot()
    buttons = [n.ref for n in snap.root.walk() if n.name == "Frame button"]
    inputs = [n.ref for n in snap.root.walk() if n.name == "Frame input"]
    assert len(buttons) == 2
    for ref in buttons:
        await tab.click(ref)
    for ref, text in zip(inputs, ("in same", "in cross"), strict=True):
        await tab.fill(ref, text)
    after = await tab.snapshot(full=True)
    assert '"clicked in same"' in after.text and '"clicked in cross"' in after.text
    assert "in same" in after.text and "in cross" in after.text
    await tab.close()


async def test_a_layer_over_a_frame_covers_what_is_inside_it(browser, server, other_origin):
    # Inside its own document the frame's button is topmost; in the page, a consent
    # layer lies over the whole frame. The click would land on the layer.
    tab = await browser.new_tab(server.url(f"/frames_covered.html?child={other_origin.base}"))
    try:
        snap = await tab.snapshot()
        buttons = [n.ref for n in snap.root.walk() if n.name == "Frame button"]
        assert len(buttons) == 2  # same origin, cross origin (an OOPIF)
        for ref in buttons:
            with pytest.raises(NotActionable) as caught:
                await tab.click(ref)
            assert caught.value.reason == "covered"
            assert 'dialog "Consent"' in str(caught.value), str(caught.value)
        await _value(tab, "document.getElementById('consent').remove()")
        for ref in buttons:
            await tab.click(ref)
        after = await tab.snapshot(full=True)
        assert '"clicked in same"' in after.text and '"clicked in cross"' in after.text
    finally:
        await tab.close()


async def test_receipts_report_navigation_new_tabs_changes_and_console_errors(browser, server):
    tab = await browser.new_tab(server.url("/receipts.html"))
    snap = await tab.snapshot()
    changed = await tab.click(_ref(snap, "Change page"))
    assert any('"Added"' in line for line in changed.diff.added)
    assert any('"Renamed"' in line for line in changed.diff.added + changed.diff.changed)
    thrown = await tab.click(_ref(snap, "Throw"))
    assert thrown.console_errors and "boom" in thrown.console_errors[0]
    logged = await tab.click(_ref(snap, "Log error"))
    assert logged.console_errors == ["something failed"]
    opened = await tab.click(_ref(snap, "Open home in a new tab"))
    assert len(opened.new_tabs) == 1 and opened.new_tabs[0] in opened.text()
    moved = await tab.click(_ref(snap, "Go to second"))
    assert moved.navigated and moved.url == server.url("/second.html")
    assert moved.title == "Second page"
    assert moved.chars == len(moved.text()) and "chars" in moved.text()
    for other in await browser.tabs():
        if other is not tab and other.id in opened.new_tabs:
            await other.close()
    await tab.close()


async def test_receipts_see_what_the_action_queued_for_later(browser, server):
    # Consequences deferred to a task (a zero-delay timer, a form submission) are part
    # of what the action did: the receipt waits for the tasks the action queued.
    tab = await browser.new_tab(server.url("/receipts.html"))
    try:
        changed = await tab.click(_ref(await tab.snapshot(), "Change later"))
        assert any('"Changed later"' in line for line in changed.diff.added + changed.diff.changed)
        moved = await tab.click(_ref(await tab.snapshot(), "Go later"))
        assert moved.navigated and moved.title == "Second page"
        await tab.back()
        submitted = await tab.click(_ref(await tab.snapshot(), "Submit form"))
        assert submitted.navigated and submitted.url == server.url("/second.html?q=x")
    finally:
        await tab.close()


async def test_a_dialog_from_an_action_is_reported_and_blocks_promptly(browser, server):
    tab = await browser.new_tab(server.url("/receipts.html"))
    snap = await tab.snapshot()
    receipt = await tab.click(_ref(snap, "Confirm me"))
    assert receipt.dialog is not None and receipt.dialog.type == "confirm"
    assert "dialog(action='accept' or 'dismiss', dialog_id='d-" in receipt.text()
    assert receipt.target and "Confirm me" in receipt.target
    started = time.monotonic()
    with pytest.raises(DialogBlocking) as caught:
        await tab.click(_ref(snap, "Alert me"), timeout_ms=10_000)
    assert time.monotonic() - started < 2.5  # not its 10 s deadline
    assert "Proceed?" in str(caught.value) and "dialog(action=" in caught.value.hint
    await tab.dialog("dismiss")
    budget = Budget(5)
    while tab.title != "declined":
        budget.check("waiting for the page to see the answer")
        await browser.tabs()  # refreshes titles from the browser
        await budget.sleep(0.02)
    await tab.close()


async def test_act_batch_runs_in_order_and_stops_at_the_first_failure(page):
    tab, snap = page
    receipts = await tab.act_batch(
        [
            {"action": "fill", "ref": _ref(snap, "Query", "textbox"), "value": "batch"},
            {"action": "check", "ref": _ref(snap, "I agree")},
            {"action": "click", "ref": _ref(snap, "Count")},
        ]
    )
    assert [r.action for r in receipts] == ["fill", "check", "click"]
    with pytest.raises(BatchError) as caught:
        await tab.act_batch(
            [
                {"action": "click", "ref": _ref(snap, "Count")},
                {"action": "click", "ref": "e99999"},
                {"action": "click", "ref": _ref(snap, "Count")},
            ]
        )
    assert caught.value.step == 1 and len(caught.value.receipts) == 1
    assert "step 2 of 3" in str(caught.value)
    assert (await _events(tab)).count("clicked 1") == 1
    assert "clicked 2" in await _events(tab) and "clicked 3" not in await _events(tab)
    with pytest.raises(InvalidArgument):
        await tab.act_batch([{"action": "explode"}])
    with pytest.raises(InvalidArgument):
        await tab.act_batch([{"action": "click", "ref": "e1", "bogus": 1}])


async def test_clicks_hit_the_right_element_at_device_pixel_ratio_two(
    browser, server, other_origin
):
    tab = await browser.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    await tab.cdp(
        "Emulation.setDeviceMetricsOverride",
        {"width": 900, "height": 600, "deviceScaleFactor": 2, "mobile": False},
    )
    try:
        snap = await tab.snapshot()
        cross = [n.ref for n in snap.root.walk() if n.name == "Frame button"][1]
        await tab.click(cross)
        await tab.click(_ref(snap, "Top button"))
        assert '"clicked in cross"' in (await tab.snapshot(full=True)).text
    finally:
        await tab.cdp("Emulation.clearDeviceMetricsOverride")
        await tab.close()


@pytest.mark.parametrize(
    "metrics",
    [
        {"width": 900, "height": 600, "deviceScaleFactor": 2, "mobile": False},
        # No viewport meta: the page is laid out wide and shown zoomed out (pointer
        # coordinates stay the layout's).
        {"width": 400, "height": 700, "deviceScaleFactor": 2, "mobile": True},
    ],
    ids=["dpr-2", "mobile-zoomed-out"],
)
async def test_a_still_element_is_hit_where_it_is_shown(browser, metrics):
    # A stable element of the top document is hit-tested in the page: its point must be
    # the pointer's, whatever the device pixel ratio or the visual viewport's zoom.
    tab = await browser.new_tab(
        "data:text/html,<title>Target</title><div style='width: 1200px; height: 10px'></div>"
        "<button style='position: absolute; left: 700px; top: 300px'"
        " onclick='document.title = \"hit\"'>Far</button>"
    )
    await tab.cdp("Emulation.setDeviceMetricsOverride", metrics)
    try:
        snap = await tab.snapshot()
        await _frames_later(tab)
        with recorded_commands() as commands:
            receipt = await tab.click(_ref(snap, "Far"))
        assert receipt.title == "hit"
        assert "DOM.getNodeForLocation" not in [c.method for c in commands]
    finally:
        await tab.cdp("Emulation.clearDeviceMetricsOverride")
        await tab.close()


async def test_wait_for_load_states(browser, server):
    tab = await browser.new_tab()
    await tab.navigate(server.url("/busy_network.html"), wait_until="commit")
    assert "domcontentloaded" in await tab.wait(load_state="domcontentloaded")
    assert "reached load" in await tab.wait(load_state="load")
    assert "networkidle" in await tab.wait(load_state="networkidle", timeout_ms=10_000)
    with pytest.raises(InvalidArgument):
        await tab.wait(load_state="idle")
    await tab.close()


async def test_a_click_fires_what_a_real_pointer_does_in_order(browser, server):
    # The move, press and release are sent together: the renderer must still dispatch
    # the move (and the hover it causes) before the press.
    tab = await browser.new_tab(server.url("/pointer_events.html"))
    try:
        snap = await tab.snapshot()
        await tab.click(_ref(snap, "Press"))
        assert await _value(tab, "events") == [
            "pointerover",
            "pointerenter",
            "mouseover",
            "mouseenter",
            "pointermove",
            "mousemove",
            "pointerdown",
            "mousedown:1",
            "pointerup",
            "mouseup:1",
            "click:1",
        ]
        await tab.click(_ref(snap, "Press"), click_count=2)
        events = await _value(tab, "events")
        tail = [e for e in events[11:] if e.startswith(("mousedown", "mouseup", "click", "dbl"))]
        assert tail == [
            "mousedown:1",
            "mouseup:1",
            "click:1",
            "mousedown:2",
            "mouseup:2",
            "click:2",
            "dblclick:2",
        ]
    finally:
        await tab.close()


async def test_a_click_checks_its_element_in_one_round_trip_after_finding_it(
    browser, server, other_origin
):
    # Describing the element and its state (scrolled into view, visible, enabled,
    # stable, and for the top-level document where it is and what is topmost there)
    # are sent together: the page answers them in order. (The receipt's text watch goes
    # out first, on its own.)
    def before_input(commands) -> list:
        methods = [c.method for c in commands]
        return [
            c
            for c in commands[: methods.index("Input.dispatchMouseEvent")]
            if "__tabwardenText" not in c.params.get("functionDeclaration", "")
        ]

    tab = await browser.new_tab(server.url("/pointer_events.html"))
    try:
        snap = await tab.snapshot()
        await _frames_later(tab)
        with recorded_commands() as commands:
            await tab.click(_ref(snap, "Press"))
        assert "click:1" in await _value(tab, "events")
        checks = [c for c in before_input(commands) if c.method != "Page.bringToFront"]
        assert [c.method for c in checks] == [
            "Runtime.callFunctionOn",  # the element by its handle
            "DOM.describeNode",
            "Runtime.callFunctionOn",  # its state, point and hit test
        ]
        assert checks[2].sent < checks[1].answered
    finally:
        await tab.close()
    # In a frame, the quads (where the pointer goes) are read with the state, which
    # hit-tests in the frame's own document; one more hit test in the page checks
    # that nothing lies over the frame there.
    tab = await browser.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    try:
        snap = await tab.snapshot()
        await _frames_later(tab)
        for ref in [n.ref for n in snap.root.walk() if n.name == "Frame button"]:
            with recorded_commands() as commands:
                await tab.click(ref)
            checks = before_input(commands)
            describe = next(c for c in checks if c.method == "DOM.describeNode")
            quads = next(c for c in checks if c.method == "DOM.getContentQuads")
            assert quads.sent < describe.answered
            assert [c.method for c in checks].count("DOM.getNodeForLocation") == 1
        after = await tab.snapshot(full=True)
        assert '"clicked in same"' in after.text and '"clicked in cross"' in after.text
    finally:
        await tab.close()


async def test_timers_a_click_queues_run_without_waiting_for_the_next_frame(browser):
    # Chromium would hold timers back until the next frame after input (up to 16 ms
    # more for every receipt, which waits for them); tabwarden's browser runs them at
    # once, as before input.
    tab = await browser.new_tab(
        'data:text/html,<button onclick="const t0 = performance.now();'
        ' setTimeout(() => delays.push(performance.now() - t0))">Go</button>'
        "<script>delays = []</script>"
    )
    try:
        snap = await tab.snapshot()
        for _ in range(7):
            await tab.click(_ref(snap, "Go"))
        delays = sorted(await _value(tab, "delays"))
        # Held back, the median is about half a frame (8 ms); run at once, a fraction
        # of a millisecond (a loaded CI machine has shown 2.1 ms): half of held back.
        assert delays[3] < 4, delays
    finally:
        await tab.close()


async def test_an_element_that_moved_since_the_snapshot_is_clicked_where_it_is_now(browser, server):
    tab = await browser.new_tab(server.url("/moving.html"))
    try:
        snap = await tab.snapshot()
        await _value(tab, "document.getElementById('jumper').style.left = '400px'")
        receipt = await tab.click(_ref(snap, "Jumper"))
        assert receipt.title == "jumped"
    finally:
        await tab.close()


async def test_an_element_snapshots_keep_finding_in_place_is_clicked_without_a_frame_wait(
    browser, server
):
    # Seen in the same place by snapshots a few frames apart, an element is at rest:
    # an action right after the latest snapshot need not wait a frame to know it.
    tab = await browser.new_tab(server.url("/pointer_events.html"))
    try:
        first = await tab.snapshot()
        await _frames_later(tab)
        await tab.snapshot()
        with recorded_commands() as commands:
            await tab.click(_ref(first, "Press"))
        assert "click:1" in await _value(tab, "events")
        waits = [
            c
            for c in commands
            if "requestAnimationFrame" in c.params.get("functionDeclaration", "")
        ]
        assert waits == []
        assert "DOM.getNodeForLocation" not in [c.method for c in commands]
    finally:
        await tab.close()


async def test_an_element_that_keeps_moving_is_not_clicked(browser, server):
    tab = await browser.new_tab(server.url("/moving.html"))
    try:
        snap = await tab.snapshot()
        with pytest.raises(NotActionable) as info:
            await tab.click(_ref(snap, "Spinner"))
        assert info.value.reason == "unstable"
        assert await _value(tab, "document.title") == "Moving"
    finally:
        await tab.close()


async def test_the_settle_barrier_reports_changes_made_by_queued_timers(browser, server):
    # The barrier's MutationObserver hands records to its callback at the end of each
    # task: a change made by a timer the page queued first must still count.
    from tabwarden.actions.receipt import _AFTER_QUEUED_TASKS

    tab = await browser.new_tab(server.url("/index.html"))
    try:
        for queued, expected in (("document.body.append('x')", True), ("void 0", False)):
            # The page's timer is queued first, in the same task, as after a click.
            expression = (
                f"(() => {{ setTimeout(() => {{ {queued}; }}, 0); "
                f"return {_AFTER_QUEUED_TASKS}; }})()"
            )
            reply = await tab.cdp(
                "Runtime.evaluate",
                {"expression": expression, "awaitPromise": True, "returnByValue": True},
            )
            assert reply["result"]["value"]["changed"] is expected, queued
    finally:
        await tab.close()
