"""Evaluate on its own session, cut off at its deadline; no tool can wedge a tab."""

from __future__ import annotations

import asyncio
import time

import pytest

import tabwarden
from tabwarden.actions.evaluate import is_busy
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import (
    BrowserNotResponding,
    EvaluateDisabled,
    EvaluateTimeout,
    InvalidArgument,
    PageBusy,
    ScriptError,
)

pytestmark = pytest.mark.browser

MARGIN_S = 0.25


def _ref(snapshot, name: str, nth: int = 0) -> str:
    refs = [n.ref for n in snapshot.root.walk() if n.name == name and n.ref]
    assert len(refs) > nth, f"no {name!r} #{nth} in:\n{snapshot.text}"
    return refs[nth]


@pytest.fixture
async def busy_page(browser, server, other_origin):
    tab = await browser.new_tab(server.url(f"/busy.html?child={other_origin.base}"))
    yield tab, await tab.snapshot()
    if not tab.closed:
        await tab.close()


async def test_values_functions_args_and_promises(busy_page):
    tab, _ = busy_page
    assert (await tab.evaluate("document.title")).value == "Busy"
    assert (await tab.evaluate(function="(a, b) => a * b", args=[6, 7])).value == 42
    slow = await tab.evaluate("new Promise(r => setTimeout(() => r({ok: [1, 2]}), 30))")
    assert slow.value == {"ok": [1, 2]} and slow.type == "object"


async def test_values_that_cannot_be_serialised_fall_back_to_descriptions(busy_page):
    tab, _ = busy_page
    body = await tab.evaluate("document.body")
    assert body.value == "body" and body.described
    assert (await tab.evaluate("window")).value == "Window"
    assert (await tab.evaluate("NaN")).value == "NaN"
    assert (await tab.evaluate("2n ** 70n")).value == "1180591620717411303424n"
    cyclic = await tab.evaluate("(() => { const a = {name: 'a'}; a.self = a; return a; })()")
    assert cyclic.value == {"name": "a", "self": "[circular]"} and cyclic.described
    assert (await tab.evaluate("undefined")).value is None


async def test_huge_results_are_bounded_and_say_so(busy_page):
    tab, _ = busy_page
    result = await tab.evaluate("'x'.repeat(200000)", max_chars=1000)
    assert result.truncated and result.total_chars == 200002 and len(result.value) == 1000
    big = await tab.evaluate("Array.from({length: 50000}, (_, i) => i)", max_chars=500)
    assert big.truncated and len(big.value) == 500


async def test_a_thrown_error_reports_its_text_and_line(busy_page):
    tab, _ = busy_page
    with pytest.raises(ScriptError) as caught:
        await tab.evaluate("1 + 1;\nthrow new TypeError('bad input')")
    assert "TypeError: bad input" in str(caught.value)
    assert caught.value.line == 2
    assert (await tab.evaluate("'still fine'")).value == "still fine"


async def test_element_evaluation_by_ref_in_main_frame_same_origin_iframe_and_oopif(busy_page):
    tab, snap = busy_page
    main = await tab.evaluate(function="el => el.textContent", ref=_ref(snap, "Click me"))
    assert main.value == "Click me"
    for nth, name in ((0, "same"), (1, "cross")):
        ref = _ref(snap, "Frame button", nth)
        where = await tab.evaluate(function="(el) => [el.id, location.search]", ref=ref)
        assert where.value == ["child-button", f"?name={name}"]
    frames = {
        ("cross" if f.is_oopif else "same"): f.frame_id for f in tab.frames.frames() if f.parent_id
    }
    for name, frame_id in frames.items():
        assert (await tab.evaluate("location.search", frame_id=frame_id)).value == f"?name={name}"


@pytest.mark.parametrize("expression", ["while (true) {}", "new Promise(() => {})"])
async def test_hung_evaluation_returns_by_its_deadline_and_the_tab_still_works(
    busy_page, expression
):
    tab, snap = busy_page
    returned = []
    for _ in range(3):
        started = time.monotonic()
        with pytest.raises(EvaluateTimeout) as caught:
            await tab.evaluate(expression, timeout_ms=400)
        returned.append(time.monotonic() - started)
        if expression.startswith("while"):
            assert caught.value.terminated
        # (A pending promise is left alone; on a heavily loaded machine the 100 ms busy
        # probe may still call it busy, so that side is measured by the benchmark.)
        started = time.monotonic()
        await tab.click(_ref(snap, "Click me"), timeout_ms=5000)
        # Well inside the click's own 5 s: the tab is not held by the stopped script (a
        # loaded CI machine has taken 1.7 s for the click and its receipt).
        assert time.monotonic() - started < 2.5
    # A hung evaluation left to itself never returns: these bounds prove the deadline and
    # leave a loaded machine room to stop the script (one run on four busy workers took
    # 0.5 to 0.9 s).
    assert sorted(returned)[1] < 0.4 + 1.0, returned  # the median of three runs
    # One run in three may meet a loaded machine: its 100 ms busy probe can then call a
    # pending promise busy and stop it too, which costs a few hundred ms more.
    assert max(returned) < 0.4 + 2.0, returned
    assert (await tab.evaluate("window.n")).value == 3


async def test_an_aborted_evaluation_is_terminated_like_a_timed_out_one(browser, busy_page):
    tab, snap = busy_page
    before = browser.metrics.snapshot()
    task = asyncio.ensure_future(tab.evaluate("while (true) {}", timeout_ms=30_000))
    budget = Budget(5)
    while not await is_busy(tab.frames.main_session):  # each probe is a CDP round trip
        budget.check("waiting for the script to start running")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    after = browser.metrics.snapshot()
    assert after["evaluate_cancellations"] == before["evaluate_cancellations"] + 1
    assert after["evaluate_terminations"] == before["evaluate_terminations"] + 1
    await tab.click(_ref(snap, "Click me"), timeout_ms=5000)


async def test_evaluation_does_not_block_actions_on_the_same_tab(busy_page):
    tab, snap = busy_page
    slow = asyncio.ensure_future(
        tab.evaluate("new Promise(r => setTimeout(() => r('late'), 3000))", timeout_ms=10_000)
    )
    await tab.click(_ref(snap, "Click me"))
    # Not queued behind the evaluation: the click is done while it still runs (an order,
    # not a time, so that a loaded machine's slower click still tells them apart).
    assert not slow.done()
    assert (await slow).value == "late"


async def test_the_evaluate_gate(server):
    config = Config()
    config.browser.evaluate_enabled = False
    async with tabwarden.launch(isolated=True, config=config) as session:
        tab = await session.new_tab(server.url("/index.html"))
        with pytest.raises(EvaluateDisabled) as caught:
            await tab.evaluate("1")
        assert "evaluate_enabled" in caught.value.hint


async def test_bad_evaluate_arguments(busy_page):
    tab, _ = busy_page
    with pytest.raises(InvalidArgument):
        await tab.evaluate()
    with pytest.raises(InvalidArgument):
        await tab.evaluate("1", function="() => 2")
    with pytest.raises(InvalidArgument):
        await tab.evaluate("1", args=[1])
    with pytest.raises(InvalidArgument):
        await tab.evaluate("1", frame_id="nope")


async def test_every_tool_returns_by_its_deadline_on_a_busy_page(browser, busy_page, server):
    tab, snap = busy_page
    other = await browser.new_tab(server.url("/second.html"))
    await tab.click(_ref(snap, "Spin forever"))
    calls = {
        "snapshot": lambda: tab.snapshot(timeout_ms=800),
        "click": lambda: tab.click(_ref(snap, "Click me"), timeout_ms=800),
        "type": lambda: tab.type("abc", ref=_ref(snap, "Field"), timeout_ms=800),
        "screenshot": lambda: tab.screenshot(timeout_ms=800),
        "get_text": lambda: tab.get_text(timeout_ms=800),
        "content": lambda: tab.get_content(timeout_ms=800),
    }
    for name, call in calls.items():
        # Best of three: on a loaded two-core machine one call can be scheduled late, or
        # the browser's own answer to the probe that tells a busy page from a frozen
        # browser can come late; a call that ignored its deadline, or blamed the browser
        # for a busy page, would do so every time.
        took: list[float] = []
        said: list[str] = []
        for _ in range(3):
            started = time.monotonic()
            with pytest.raises((PageBusy, BrowserNotResponding)) as caught:
                await call()
            took.append(time.monotonic() - started)
            said.append(type(caught.value).__name__)
            if isinstance(caught.value, PageBusy) and took[-1] < 0.8 + MARGIN_S:
                assert "terminate_script" in caught.value.hint
                break
        else:
            raise AssertionError(f"{name}: never a timely PageBusy ({said}, {took})")
        # Meanwhile the session, its tab list and another tab keep working (a spinning
        # renderer takes one of two cores: the other tab gets a loaded machine's time).
        assert len(await browser.tabs()) >= 2
        assert (await other.snapshot(timeout_ms=10_000)).page.chars > 0
    assert await tab.terminate_script()
    await tab.click(_ref(snap, "Click me"))
    assert (await tab.evaluate("window.n")).value == 1
    await other.close()


async def test_navigating_away_from_a_busy_page_stops_its_script(busy_page, server):
    tab, snap = busy_page
    await tab.click(_ref(snap, "Spin forever"))
    result = await tab.navigate(server.url("/second.html"), timeout_ms=5000)
    assert result.title == "Second page"


async def test_a_busy_tab_can_always_be_closed(browser, busy_page):
    tab, snap = busy_page
    await tab.click(_ref(snap, "Spin forever"))
    started = time.monotonic()
    await tab.close(timeout_ms=5000)
    assert tab.closed and time.monotonic() - started < 3
