"""Receipts wait for what an action started and say what text it changed."""

from __future__ import annotations

import time

import pytest

from tabwarden.actions.receipt import Receipt
from tabwarden.actions.text_changes import TextChanges
from tabwarden.snapshot.render import SnapshotDiff
from tests.cdp_log import recorded_commands


def _ref(snapshot, name: str) -> str:
    for node in snapshot.root.walk():
        if node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no node named {name!r} in:\n{snapshot.text}")


async def _value(tab, expression: str):
    reply = await tab.cdp("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return reply["result"].get("value")


@pytest.fixture
async def order(browser, server):
    tab = await browser.new_tab(server.url("/order_form.html"))
    snap = await tab.snapshot()
    yield tab, snap
    if not tab.closed:
        await tab.close()


async def test_a_receipt_reports_the_status_an_order_writes_once_its_request_answers(order):
    # Place order posts the form (the server answers in 300 ms), then writes "Thanks
    # Jane…" into a role=status element: the receipt waits for the answer and shows it.
    tab, snap = order
    receipt = await tab.click(_ref(snap, "Place order"))
    status = [line for line in receipt.diff.added if line.strip().startswith("- status")]
    assert len(status) == 1 and "Thanks Jane, your order #1042 is confirmed" in status[0]
    assert status[0].endswith("…") and len(status[0]) < 260  # long text is clipped
    assert len(receipt.requests) == 1
    assert receipt.requests[0].startswith("POST /slow?ms=300 200 (")
    assert receipt.settle_wait_ms > 0 and receipt.still_open == []
    text = receipt.text()
    assert "requests: POST /slow?ms=300 200" in text and "+ - status [ref=" in text
    # The view shows the live region from now on.
    after = await tab.snapshot()
    assert any(line.startswith("  - status [ref=") for line in after.text.splitlines())


async def test_a_console_error_logged_after_the_response_is_in_the_receipt_every_time(order):
    # Check stock fetches (a 404 after 150 ms), reads the body, then logs an error.
    tab, snap = order
    for run in range(5):
        receipt = await tab.click(_ref(snap, "Check stock"))
        assert receipt.console_errors == ["stock check failed: HTTP 404"], run
        assert receipt.requests[0].startswith("GET /slow?ms=150&status=404 404 ("), run
        assert "console error: stock check failed: HTTP 404" in receipt.text()


async def test_a_click_that_starts_nothing_does_not_wait(order):
    tab, snap = order
    with recorded_commands() as commands:
        quiet = await tab.click(_ref(snap, "Count quietly"))
    assert await _value(tab, "window.quietClicks") == 1
    assert quiet.settle_wait_ms == 0 and quiet.requests == [] and quiet.still_open == []
    # One pass through the page's task queue, as before: no round of its own for requests.
    barriers = [c for c in commands if "setTimeout" in c.params.get("expression", "")]
    assert len(barriers) == 1
    # A request an earlier action left open is not this action's to wait for.
    await tab.click(_ref(snap, "Track parcel"))
    started = time.monotonic()
    again = await tab.click(_ref(snap, "Count quietly"))
    assert again.settle_wait_ms == 0 and again.still_open == []
    assert time.monotonic() - started < 0.9  # the open request holds the server for 5 s


async def test_a_request_still_open_past_the_bound_is_named(browser, order):
    tab, snap = order
    settings = browser.config.browser
    default = settings.receipt_settle_ms
    assert default == 1_000
    settings.receipt_settle_ms = 300
    try:
        receipt = await tab.click(_ref(snap, "Track parcel"))
    finally:
        settings.receipt_settle_ms = default
    assert len(receipt.still_open) == 1
    assert receipt.still_open[0].startswith("GET /slow?ms=5000 (")
    assert 300 <= receipt.settle_wait_ms < 2_000  # gave up at the bound, not at the answer
    assert "still waiting on 1 request: GET /slow?ms=5000 (" in receipt.text()
    assert receipt.to_dict()["still_open"] == receipt.still_open


async def test_text_that_appears_or_goes_away_outside_the_view_is_reported(order):
    tab, snap = order
    added = await tab.click(_ref(snap, "Add a note"))
    assert added.text_changes.appeared == ["Gift wrap requested"]
    assert 'text appeared: "Gift wrap requested"' in added.text()
    assert "no visible change" not in added.text()
    # The note about what the view leaves out is no element: it is never diffed.
    assert not any("#" in line for line in added.diff.added + added.diff.removed)
    gone = await tab.click(_ref(snap, "Dismiss promo"))
    assert 'text went away: "Free shipping ends today"' in gone.text()
    # Shown and hidden by an attribute (hidden; a class that hides), not added or removed.
    shown = await tab.click(_ref(snap, "Pay by card"))
    assert shown.text_changes.appeared == ["Your card was declined"]
    hidden = await tab.click(_ref(snap, "Close tip"))
    assert hidden.text_changes.gone == ["Save 10% with code TEA"]
    assert 'text went away: "Save 10% with code TEA"' in hidden.text()
    # A re-render that puts back the same text changed nothing a reader would see.
    same = await tab.click(_ref(snap, "Refresh basket"))
    assert same.text_changes is not None and same.text_changes.empty
    assert "text appeared" not in same.text() and "text went away" not in same.text()


async def test_a_long_list_rendered_again_reports_only_what_differs(browser, server):
    tab = await browser.new_tab(server.url("/long_list.html"))
    try:
        snap = await tab.snapshot()
        same = await tab.click(_ref(snap, "Refresh"))  # 1,000 items out, the same back in
        assert same.text_changes is not None and same.text_changes.empty
        renamed = await tab.click(_ref(snap, "Rename"))
        assert renamed.text_changes.appeared == ["Item seven"]
        assert renamed.text_changes.gone == ["Item 7"] and renamed.text_changes.more == 0
    finally:
        await tab.close()


async def test_a_receipt_keeps_the_read_it_took_while_the_page_settled(order):
    # The page is read while the action's queued tasks run; when nothing changed after
    # that read, it is the receipt's view (one walk of the page, not two).
    tab, snap = order
    with recorded_commands() as commands:
        receipt = await tab.click(_ref(snap, "Count quietly"))
    walks = [c for c in commands if "w.snapshot(options" in c.params.get("functionDeclaration", "")]
    assert receipt.diff is not None and len(walks) == 1


async def test_a_dialog_the_answer_opens_ends_the_wait_and_is_reported(order):
    tab, snap = order
    receipt = await tab.click(_ref(snap, "Ask stock"))
    assert receipt.dialog is not None and receipt.dialog.message == "In stock"
    assert receipt.requests[0].startswith("GET /slow?ms=100 200 (")
    assert "dialog open:" in receipt.text()
    await tab.dialog("accept")


def _receipt(**fields) -> Receipt:
    base = {"action": "fill", "target": "e4 (textbox)", "detail": 'set to "Ada"'}
    return Receipt(**{**base, **fields}, tab_id="t1", url="http://a.test/", title="A", elapsed_ms=5)


def _diff(added=(), removed=(), changed=()) -> SnapshotDiff:
    return SnapshotDiff(list(added), list(removed), list(changed), truncated=0)


@pytest.mark.parametrize(
    ("fields", "page_text"),
    [
        ({}, False),
        ({"diff": _diff()}, False),
        # the element acted on, with its new value: what the action did
        ({"diff": _diff(changed=["- textbox [ref=e4] [focused]: Ada"])}, False),
        # the page names its elements: a name is the page's words
        ({"target": 'e4 (textbox "Name")'}, True),
        ({"diff": _diff(changed=['- textbox "Email" [ref=e5]: x'])}, True),
        ({"diff": _diff(added=["- status [ref=e9]: Saved"])}, True),
        ({"text_changes": TextChanges(appeared=["Saved"])}, True),
        ({"text_changes": TextChanges(more=3)}, False),
        ({"navigated": True}, True),
        ({"console_errors": ["boom"]}, True),
        ({"requests": ["POST /save 200 (5 ms)"]}, True),
        ({"still_open": ["GET /slow (1.0 s)"]}, True),
        ({"downloads": ["a.txt (http://a.test/a.txt)"]}, True),
        ({"policy_blocks": ["request blocked: http://b.test/"]}, True),
    ],
)
def test_a_receipt_carries_page_text_only_when_it_reports_what_the_page_wrote(fields, page_text):
    assert _receipt(**fields).carries_page_text is page_text


def test_a_drag_between_unnamed_elements_is_tabwardens_own_words():
    diff = _diff(changed=["- listitem [ref=e3]", "- list [ref=e9]"])
    drag = _receipt(target="e3 (listitem) → e9 (list)", diff=diff)
    assert not drag.carries_page_text
    named = _receipt(target='e3 (listitem "A") → e9 (list "B")', diff=diff)
    assert named.carries_page_text
    by_selector = _receipt(target="selector '#name'", diff=_diff(changed=["- textbox [ref=e4]"]))
    assert by_selector.carries_page_text  # no ref named: the line is the page's
