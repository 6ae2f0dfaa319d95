"""A dialog that opens while a call waits on the page ends the call at once, naming it;
a navigation a dialog of the page being left holds back is reported as not navigated."""

from __future__ import annotations

import time
import uuid

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import DialogBlocking
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

pytestmark = pytest.mark.browser

# The page gets busy (so the call's commands queue behind its script), says so through a
# synchronous request, and opens an alert from inside that busy script.
_BUSY_THEN_ALERT = """setTimeout(() => {
  const mark = new XMLHttpRequest();
  mark.open('GET', '/mark?key=KEY', false);
  mark.send();
  const end = Date.now() + 400;
  while (Date.now() < end) {}
  alert('late');
}, 0)"""

_CALLS = {
    "snapshot": lambda tab: tab.snapshot(timeout_ms=10_000),
    "snapshot full": lambda tab: tab.snapshot(full=True, timeout_ms=10_000),
    "get_text": lambda tab: tab.get_text(timeout_ms=10_000),
    "screenshot": lambda tab: tab.screenshot(timeout_ms=10_000),
    "wait": lambda tab: tab.wait(text="never there", timeout_ms=10_000),
    "evaluate": lambda tab: tab.evaluate("1 + 1", timeout_ms=10_000),
}


def _ref(snapshot, name: str) -> str:
    for node in snapshot.root.walk():
        if node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no {name!r} in:\n{snapshot.text}")


async def _until(predicate, what: str, seconds: float = 10) -> None:
    budget = Budget(seconds)
    while not predicate():
        budget.check(what)
        await budget.sleep(0.01)


@pytest.fixture
async def tab(browser, server):
    tab = await browser.new_tab(server.url("/index.html"))
    yield tab
    if not tab.closed:
        await tab.close(timeout_ms=10_000)


async def _make_busy_then_alert(tab, server) -> None:
    key = uuid.uuid4().hex
    await tab.evaluate(_BUSY_THEN_ALERT.replace("KEY", key))
    await _until(lambda: server.marked(key), "the page starting its busy script")


@pytest.mark.parametrize("call", list(_CALLS))
async def test_a_dialog_that_opens_during_a_call_ends_it_at_once(tab, server, call):
    await _make_busy_then_alert(tab, server)
    started = time.monotonic()
    try:
        outcome = await _CALLS[call](tab)
    except DialogBlocking as exc:
        outcome = exc
    elapsed = time.monotonic() - started
    assert elapsed < 2.5, f"{call} took {elapsed:.2f} s"
    (dialog,) = tab.pending_dialogs
    assert (dialog.type, dialog.message) == ("alert", "late")
    if call.startswith("snapshot"):
        # A snapshot reports the dialog in its header, as for one that was open already.
        assert f"# dialog open: {dialog.id}: alert" in outcome.text
        assert str(dialog.answer_call()) in outcome.text
    else:
        assert isinstance(outcome, DialogBlocking), outcome
        assert dialog.id in str(outcome) and "late" in str(outcome)
        assert str(dialog.answer_call()) in outcome.hint
    started = time.monotonic()
    closed = await tab.dialog("accept", timeout_ms=5_000)
    assert closed.dialog.id == dialog.id and time.monotonic() - started < 2.5
    assert "Test home" in await tab.get_text(timeout_ms=5_000)  # the tab works again


async def test_a_dialog_the_evaluated_script_opens_ends_the_evaluation(tab, browser):
    before = browser.metrics.snapshot()
    started = time.monotonic()
    with pytest.raises(DialogBlocking) as caught:
        await tab.evaluate(
            "alert('from the script'); document.title = 'went on'", timeout_ms=10_000
        )
    assert time.monotonic() - started < 2.5
    assert "from the script" in str(caught.value) and "terminated" not in str(caught.value)
    after = browser.metrics.snapshot()
    assert after["evaluate_terminations"] == before["evaluate_terminations"]
    assert after["evaluate_interruptions"] == before["evaluate_interruptions"] + 1
    await tab.dialog("accept", timeout_ms=5_000)
    # Nothing was terminated: the script goes on after the answer.
    budget = Budget(10)
    while (await tab.evaluate("document.title", timeout_ms=5_000)).value != "went on":
        budget.check("the script going on after the dialog")
        await budget.sleep(0.02)


async def test_a_dialog_already_open_refuses_reads_and_waits_at_once(tab):
    await tab.evaluate("setTimeout(() => alert('open'), 0)")
    await _until(lambda: bool(tab.pending_dialogs), "the alert")
    started = time.monotonic()
    for call in (
        tab.wait(text="never there", timeout_ms=10_000),
        tab.wait(time_ms=5_000, timeout_ms=10_000),
        tab.evaluate("1", timeout_ms=10_000),
    ):
        with pytest.raises(DialogBlocking):
            await call
    assert time.monotonic() - started < 2.0
    await tab.dialog("dismiss")


# ---- navigations a dialog holds back ---------------------------------------------------


async def test_a_beforeunload_holds_the_navigation_back_and_it_says_so(browser, server):
    tab = await browser.new_tab(server.url("/dialogs.html"))
    old_url = tab.url
    await tab.click(_ref(await tab.snapshot(), "Guard"))  # a real click: user activation
    target = server.url("/second.html")
    result = await tab.navigate(target, timeout_ms=10_000)
    assert result.dialog is not None and result.dialog.type == "beforeunload"
    assert result.navigated is False and result.ok is False
    assert result.to_dict()["ok"] is False and result.to_dict()["navigated"] is False
    assert (result.url, result.requested_url) == (old_url, target)
    # The tab shows the old page, whatever the browser's target info says meanwhile.
    assert tab.url == old_url
    snapshot = await tab.snapshot()
    assert snapshot.text.splitlines()[0].endswith(f"· {old_url}")
    assert snapshot.url == old_url
    assert (await browser.tab_infos())[-1].url == old_url
    await tab.dialog("dismiss")  # stay
    assert tab.url == old_url
    await tab.close(timeout_ms=10_000)


async def test_an_alert_of_the_new_page_while_it_loads_is_a_navigation(tab, server):
    target = server.url("/alert_on_load.html")
    result = await tab.navigate(target, timeout_ms=10_000)
    assert result.dialog is not None and result.dialog.type == "alert"
    assert result.navigated is True and result.ok is True
    assert result.url == target == tab.url and "commit" in result.reached
    assert (await tab.snapshot()).text.splitlines()[0].endswith(f"· {target}")
    await tab.dialog("accept")


async def test_a_dialog_of_the_old_page_before_the_load_commits_is_no_navigation(tab, server):
    key = uuid.uuid4().hex
    # The old page opens an alert once the new page's (slow) request reached the server.
    await tab.evaluate(
        """const poll = setInterval(() => {
          const asked = new XMLHttpRequest();
          asked.open('GET', '/marked?key=KEY', false);
          asked.send();
          if (asked.responseText === 'yes') { clearInterval(poll); alert('old page'); }
        }, 20)""".replace("KEY", key)
    )
    old_url = tab.url
    result = await tab.navigate(server.url(f"/slow?ms=5000&mark={key}"), timeout_ms=10_000)
    assert result.dialog is not None and result.dialog.message == "old page"
    assert result.navigated is False and not result.ok
    assert result.url == old_url == tab.url
    await tab.dialog("accept")


async def test_navigate_tool_flags_a_held_back_navigation_as_an_error(manager_ctx, server):
    ctx, session = manager_ctx
    loaded = await call_tool(ctx, "browser_navigate", {"url": server.url("/dialogs.html")})
    assert not loaded.is_error
    tab = session.active_tab
    await tab.click(_ref(await tab.snapshot(), "Guard"))
    held = await call_tool(ctx, "browser_navigate", {"url": server.url("/second.html")})
    assert held.is_error and held.to_dict()["is_error"] is True
    first = held.text.splitlines()[0]
    assert first.startswith(f"tab {tab.id}: not navigated to {server.url('/second.html')}")
    assert f"still on {server.url('/dialogs.html')}" in first
    assert "accept it to leave" in held.text and 'browser_dialog {"action"' in held.text
    await call_tool(ctx, "browser_dialog", {"action": "accept"})  # leave: it goes on
    await _until(lambda: tab.url == server.url("/second.html"), "the navigation going on")
    on_load = await call_tool(ctx, "browser_navigate", {"url": server.url("/alert_on_load.html")})
    assert not on_load.is_error and "dialog open: d-" in on_load.text
    await call_tool(ctx, "browser_dialog", {"action": "accept"})


@pytest.fixture
async def manager_ctx():
    config = Config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "interrupts")
        yield ctx, await ctx.session()
