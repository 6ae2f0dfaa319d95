"""The supervisor with a real Chromium: dialog round trips, frames, policies, watchdog."""

from __future__ import annotations

import time

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import DialogBlocking, InvalidArgument

pytestmark = pytest.mark.browser


def _ref(snapshot, name: str) -> str:
    for node in snapshot.root.walk():
        if node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no {name!r} in:\n{snapshot.text}")


async def _title(browser, tab, expected: str, seconds: float = 5) -> None:
    budget = Budget(seconds)
    while tab.title != expected:
        budget.check(f"waiting for the title {expected!r} (have {tab.title!r})")
        await browser.tabs()  # refreshes titles from the browser
        await budget.sleep(0.02)


async def _until(predicate, what: str, seconds: float = 5) -> None:
    budget = Budget(seconds)
    while not predicate():
        budget.check(what)
        await budget.sleep(0.01)


@pytest.fixture
async def page(browser, server, other_origin):
    tab = await browser.new_tab(server.url(f"/dialogs.html?child={other_origin.base}"))
    yield tab, await tab.snapshot()
    if not tab.closed:
        await tab.close()


async def test_alert_round_trip(browser, page):
    tab, snap = page
    receipt = await tab.click(_ref(snap, "Alert"))
    dialog = receipt.dialog
    assert dialog is not None and (dialog.type, dialog.message) == ("alert", "Plain alert")
    assert (
        dialog.id.startswith("d-") and dialog.tab_id == tab.id and dialog.frame_id == tab.target_id
    )
    assert tab.pending_dialogs == [dialog]
    closed = await tab.dialog("accept")
    assert closed.closed_by == "agent" and closed.dialog == dialog
    await _title(browser, tab, "after alert")
    assert tab.pending_dialogs == []
    assert browser.state(tab).recent_dialogs[-1].dialog.id == dialog.id


@pytest.mark.parametrize(
    ("action", "title"), [("accept", "confirm=true"), ("dismiss", "confirm=false")]
)
async def test_confirm_answer_reaches_the_page(browser, page, action, title):
    tab, snap = page
    await tab.click(_ref(snap, "Confirm"))
    closed = await tab.dialog(action)
    assert closed.accepted is (action == "accept")
    await _title(browser, tab, title)


async def test_prompt_text_reaches_the_page(browser, page):
    tab, snap = page
    receipt = await tab.click(_ref(snap, "Prompt"))
    assert receipt.dialog.type == "prompt" and receipt.dialog.default_prompt == "anon"
    await tab.dialog("accept", prompt_text="Ada")
    await _title(browser, tab, "prompt=Ada")


async def test_alerts_from_same_origin_and_cross_origin_iframes(browser, page):
    tab, snap = page
    buttons = [n.ref for n in snap.root.walk() if n.name == "Frame alert"]
    frames = {f.frame_id: f for f in tab.frames.frames()}
    for ref, name in zip(buttons, ("same", "cross"), strict=True):
        receipt = await tab.click(ref)
        dialog = receipt.dialog
        assert dialog is not None and dialog.message == f"from {name}"
        frame = frames[dialog.frame_id]
        assert frame.is_oopif is (name == "cross")
        assert frame.parent_id == tab.target_id
        with pytest.raises(DialogBlocking):
            await tab.get_text()
        await tab.dialog("dismiss", dialog_id=dialog.id)
        assert tab.pending_dialogs == []


async def test_blocked_tab_fails_fast_while_others_keep_working(browser, page, server):
    tab, snap = page
    await tab.click(_ref(snap, "Alert"))
    other = await browser.new_tab(server.url("/second.html"))
    started = time.monotonic()
    for call in (tab.get_text(), tab.click(_ref(snap, "Confirm")), tab.get_content()):
        with pytest.raises(DialogBlocking) as caught:
            await call
        assert "d-" in caught.value.hint
    assert time.monotonic() - started < 2.5  # three calls, none waiting on the page
    assert len(await browser.tabs()) >= 2  # listing tabs never waits on the blocked page
    assert await other.get_text() == "Second\nhome"
    snapshot = await tab.snapshot()
    assert "# dialog open: d-" in snapshot.text
    assert snapshot.to_dict()["pending_dialogs"][0]["message"] == "Plain alert"
    await tab.dialog("accept")
    await other.close()


async def test_several_pending_dialogs_need_an_id(browser, server):
    first = await browser.new_tab(server.url("/dialogs.html"))
    second = await browser.new_tab(server.url("/dialogs.html"))
    for tab in (first, second):
        await tab.click(_ref(await tab.snapshot(), "Alert"))
    with pytest.raises(InvalidArgument) as caught:
        await browser.dialog("accept")
    assert "2 dialogs are open" in str(caught.value) and "dialog_id" in caught.value.hint
    ids = [d.id for d in browser.supervisor.pending()]
    closed = await browser.dialog("accept", dialog_id=ids[1])
    assert closed.dialog.tab_id == second.id
    assert (await first.dialog("dismiss")).dialog.id == ids[0]  # the tab's only one
    with pytest.raises(InvalidArgument) as none_left:
        await browser.dialog("accept")
    assert "no dialog is open" in str(none_left.value)
    with pytest.raises(InvalidArgument):
        await browser.dialog("accept", dialog_id="d-999")
    for tab in (first, second):
        await tab.close()


async def test_beforeunload_on_navigate_and_reload_never_hangs(browser, page, server):
    tab, snap = page
    await tab.click(_ref(snap, "Guard"))  # a real click: the page has user activation
    await _title(browser, tab, "guarded")
    started = time.monotonic()
    result = await tab.navigate(server.url("/second.html"), timeout_ms=10_000)
    assert time.monotonic() - started < 3
    assert result.dialog is not None and result.dialog.type == "beforeunload"
    await tab.dialog("dismiss")  # stay on the page
    assert (await tab.reload(timeout_ms=10_000)).dialog.type == "beforeunload"
    await tab.dialog("accept")  # leave: the reload goes on
    await _title(browser, tab, "Dialogs")  # a fresh page, with no guard
    result = await tab.navigate(server.url("/second.html"))
    assert result.title == "Second page" and result.dialog is None


async def test_closing_a_tab_with_beforeunload_or_an_open_dialog(browser, server):
    tab = await browser.new_tab(server.url("/dialogs.html"))
    snap = await tab.snapshot()
    await tab.click(_ref(snap, "Guard"))
    await tab.click(_ref(snap, "Alert"))
    await tab.close(timeout_ms=10_000)
    assert tab.closed
    assert all(d.tab_id != tab.id for d in browser.supervisor.pending())


async def _policy_session(policy: str, **extra: object) -> tabwarden.BrowserSession:
    config = Config()
    config.browser.dialog_policy = policy  # type: ignore[assignment]
    for key, value in extra.items():
        setattr(config.browser, key, value)
    return await tabwarden.launch(isolated=True, config=config)


@pytest.mark.parametrize(
    ("policy", "title"), [("auto_dismiss", "confirm=false"), ("auto_accept", "confirm=true")]
)
async def test_auto_policies_answer_at_once_and_record_it(server, policy, title):
    session = await _policy_session(policy)
    try:
        tab = await session.new_tab(server.url("/dialogs.html"))
        receipt = await tab.click(_ref(await tab.snapshot(), "Confirm"))
        assert receipt.dialog is None
        await _title(session, tab, title)
        recent = session.state(tab).recent_dialogs
        assert recent and recent[-1].closed_by == "auto_policy"
        assert recent[-1].dialog.message == "Sure?"
        result = await tab.navigate(server.url("/alert_on_load.html"))
        assert result.dialog is None and "load" in result.reached  # the load went on
    finally:
        await session.close()


async def test_watchdog_dismisses_an_unanswered_dialog(server):
    session = await _policy_session("must_respond", dialog_timeout_s=0.4)
    try:
        tab = await session.new_tab(server.url("/dialogs.html"))
        await tab.click(_ref(await tab.snapshot(), "Confirm"))
        assert tab.pending_dialogs
        await _until(lambda: not tab.pending_dialogs, "waiting for the watchdog")
        closed = session.state(tab).recent_dialogs[-1]
        assert closed.closed_by == "watchdog" and closed.accepted is False
        await _title(session, tab, "confirm=false")
        snapshot = await tab.snapshot()
        assert "by watchdog" in snapshot.text
    finally:
        await session.close()


async def test_frame_tree_with_oopif_detach_and_cap(browser, server, other_origin):
    tab = await browser.new_tab(server.url(f"/dialogs.html?child={other_origin.base}"))
    await tab.snapshot()
    tree = browser.state(tab).frame_tree
    assert len(tree) == 3 and tree[0].parent is None
    cross = [f for f in tree if f.is_oopif]
    assert len(cross) == 1 and cross[0].origin == other_origin.base
    await tab.cdp("Runtime.evaluate", {"expression": "document.getElementById('cross').remove()"})
    await _until(lambda: len(browser.state(tab).frame_tree) == 2, "waiting for the detach")
    await tab.navigate(server.url(f"/many_frames.html?child={other_origin.base}"))
    await _until(lambda: len(tab.frames.frames()) >= 36, "waiting for the frames", seconds=10)
    state = browser.state(tab)
    assert len(state.frame_tree) == 30 and state.frame_tree_truncated
    assert state.to_dict()["frame_tree_truncated"] is True
    await tab.close()


async def test_console_ring_keeps_errors_from_every_frame(browser, server, other_origin):
    tab = await browser.new_tab(server.url(f"/dialogs.html?child={other_origin.base}"))
    snap = await tab.snapshot()
    for ref in [n.ref for n in snap.root.walk() if n.name == "Frame error"]:
        await tab.click(ref)
    await _until(lambda: len(browser.state(tab).console_errors) >= 4, "waiting for errors")
    errors = browser.state(tab).console_errors
    assert sum(e.text == "child error" for e in errors) == 2
    assert sum("undefinedFunction" in e.text for e in errors) == 2
    assert all(e.tab_id == tab.id for e in errors)
    assert any(e.url.startswith(other_origin.base) and e.line > 0 for e in errors)
    await tab.close()


async def test_raw_cdp_reaches_frames_by_frame_id(browser, server, other_origin):
    tab = await browser.new_tab(server.url(f"/dialogs.html?child={other_origin.base}"))
    await tab.snapshot()
    frames = {("cross" if f.is_oopif else "same"): f for f in tab.frames.frames() if f.parent_id}
    expression = {"expression": "location.search", "returnByValue": True}
    for name, frame in frames.items():
        reply = await tab.cdp("Runtime.evaluate", expression, frame_id=frame.frame_id)
        assert reply["result"]["value"] == f"?name={name}"
        via_session = await browser.cdp("Runtime.evaluate", expression, frame_id=frame.frame_id)
        assert via_session["result"]["value"] == f"?name={name}"
    top = await browser.cdp("Runtime.evaluate", expression, target_id=tab.id)
    assert top["result"]["value"].startswith("?child=")
    version = await browser.cdp("Browser.getVersion")
    assert "Chrome/" in version["product"]
    with pytest.raises(InvalidArgument):
        await tab.cdp("Runtime.evaluate", expression, frame_id="nope")
    with pytest.raises(InvalidArgument):
        await tab.cdp("evaluate")
    await tab.close()
