"""A person's input forwarded to a tab: it reaches the page, waits for the agent's
running action, and the agent's next receipt or snapshot says a person acted."""

from __future__ import annotations

import asyncio

import pytest

from tabwarden.budget import Budget
from tabwarden.errors import DeadlineExceeded, InvalidArgument
from tabwarden.person_input import PersonInput

pytestmark = pytest.mark.browser


async def _center(tab, selector: str) -> tuple[float, float]:
    x, y = (
        await tab.evaluate(
            f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
    ).value
    return x, y


async def _value(tab, expression: str):
    return (await tab.evaluate(expression)).value


async def _take_over_tab(browser, server):
    tab = await browser.new_tab(server.url("/take_over.html"))
    await tab.activate()
    return tab


async def test_a_person_click_runs_the_button_handler(browser, server):
    tab = await _take_over_tab(browser, server)
    person = PersonInput(tab.page)
    x, y = await _center(tab, "#hit")
    await person.click(x, y, Budget(10.0))
    assert await _value(tab, "hits") == [1]
    await person.click(x, y, Budget(10.0), click_count=2)  # a double click's second click
    # Pressed and released separately, the same button counts as a click too.
    await person.mouse_move(x, y, Budget(10.0))
    await person.mouse_down(x, y, Budget(10.0))
    await person.mouse_up(x, y, Budget(10.0))
    assert await _value(tab, "hits") == [1, 2, 1]
    await tab.close()


async def test_person_typing_reaches_the_focused_input(browser, server):
    tab = await _take_over_tab(browser, server)
    person = PersonInput(tab.page)
    x, y = await _center(tab, "#field")
    await person.click(x, y, Budget(10.0))
    for key, code in (("h", "KeyH"), ("I", "KeyI")):
        await person.key_down(key, Budget(10.0), code=code)
        await person.key_up(key, Budget(10.0), code=code)
    await person.insert_text(" héllo", Budget(10.0))
    await person.key_down("Backspace", Budget(10.0), code="Backspace")
    await person.key_up("Backspace", Budget(10.0), code="Backspace")
    assert await _value(tab, "document.getElementById('field').value") == "hI héll"
    assert await _value(tab, "keys") == ["h", "I", "Backspace"]
    # Control+A selects all (its editing command), then typing replaces the selection.
    await person.key_down("a", Budget(10.0), code="KeyA", modifiers=2)
    await person.key_up("a", Budget(10.0), code="KeyA", modifiers=2)
    await person.key_down("z", Budget(10.0), code="KeyZ")
    assert await _value(tab, "document.getElementById('field').value") == "z"
    with pytest.raises(InvalidArgument):
        await person.key_down("", Budget(10.0))
    await tab.close()


async def test_the_wheel_scrolls_the_page(browser, server):
    tab = await _take_over_tab(browser, server)
    person = PersonInput(tab.page)
    await person.wheel(200, 200, 0, 600, Budget(10.0))
    budget = Budget(10.0)
    while (scrolled := await _value(tab, "scrollY")) == 0:  # a wheel scrolls as it renders
        assert not budget.expired, "the wheel did not scroll the page"
        await budget.sleep(0.05)
    assert scrolled > 0
    await tab.close()


async def test_the_next_receipt_says_a_person_acted_and_a_snapshot_clears_it(browser, server):
    tab = await _take_over_tab(browser, server)
    person = PersonInput(tab.page)
    await tab.snapshot()
    x, y = await _center(tab, "#field")
    await person.click(x, y, Budget(10.0))
    await person.insert_text("typed by hand", Budget(10.0))
    receipt = await tab.click("#other")
    line = (
        "a person acted in this tab since your last snapshot (clicked, typed): "
        "take a snapshot before using old refs"
    )
    assert line in receipt.text()
    assert receipt.to_dict()["person_acted"]["kinds"] == ["clicked", "typed"]
    again = await tab.click("#other")  # told once
    assert "a person acted" not in again.text()
    assert await _value(tab, "others") == 2

    await person.key_down("Escape", Budget(10.0), code="Escape")
    await person.key_up("Escape", Budget(10.0), code="Escape")
    snapshot = await tab.snapshot()
    assert "# a person acted in this tab since your last snapshot (pressed keys)" in snapshot.text()
    after = await tab.click("#other")
    assert "a person acted" not in after.text()  # the snapshot told it already
    await tab.close()


async def test_person_input_waits_for_the_agent_action_running(browser, server):
    tab = await _take_over_tab(browser, server)
    person = PersonInput(tab.page)
    assert tab.page.input_lock is tab.page.runner.input_lock  # the agent's actions' lock
    field = "document.getElementById('field').value"
    agent = asyncio.create_task(tab.type("abcdefgh", ref="#field", delay_ms=60))
    budget = Budget(15.0)
    while not await _value(tab, field):  # the agent's action is typing
        assert not budget.expired and not agent.done()
        await budget.sleep(0.02)
    forwarded = asyncio.create_task(person.insert_text("XY", Budget(30.0)))
    done, _ = await asyncio.wait({agent, forwarded}, return_when=asyncio.FIRST_COMPLETED)
    assert done == {agent}, "the person's input went in before the agent's action ended"
    await forwarded
    assert await _value(tab, field) == "abcdefghXY"  # not interleaved
    await tab.close()


async def test_person_input_gives_up_at_its_budget_while_an_action_holds_the_lock(browser, server):
    tab = await _take_over_tab(browser, server)
    person = PersonInput(tab.page)
    x, y = await _center(tab, "#hit")
    async with tab.page.input_lock:  # as an agent's action holds it
        with pytest.raises(DeadlineExceeded):
            await person.click(x, y, Budget(0.3))
    assert await _value(tab, "hits") == []
    assert tab.page.take_person_activity() is None  # nothing was sent, nothing noted
    assert not tab.page.input_lock.locked()
    await tab.close()
