"""A tab's text watch: installed once in its own tab's world, started before each action."""

from __future__ import annotations

import pytest

from tabwarden.actions.text_changes import TextWatch
from tabwarden.budget import Budget


def _ref(snapshot, name: str) -> str:
    for node in snapshot.root.walk():
        if node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no node named {name!r} in:\n{snapshot.text}")


async def _installed_here(tab) -> bool:
    reply = await tab.cdp(
        "Runtime.evaluate",
        {
            "expression": "typeof globalThis.__tabwardenTextStart === 'function'",
            "contextId": tab.frames.world_of(tab.target_id),
            "returnByValue": True,
        },
    )
    return reply["result"]["value"] is True


@pytest.fixture
async def two_tabs(browser, server):
    first = await browser.new_tab(server.url("/order_form.html"))
    second = await browser.new_tab(server.url("/order_form.html"))
    yield first, second
    for tab in (first, second):
        if not tab.closed:
            await tab.close()


async def test_an_action_installs_the_watch_in_its_own_tab_only(two_tabs):
    first, second = two_tabs
    snapshot = await first.snapshot()
    await second.snapshot()
    assert first.page.text_watch is not second.page.text_watch
    assert (
        first.page.text_watch.installed_in is None and second.page.text_watch.installed_in is None
    )
    await first.click(_ref(snapshot, "Check stock"))
    world = first.frames.world_of(first.target_id)
    assert world is not None and first.page.text_watch.installed_in == world
    assert await _installed_here(first)
    assert second.page.text_watch.installed_in is None
    assert not await _installed_here(second)


async def test_a_watch_for_another_registry_installs_again(two_tabs):
    # Installed for one tab's registry says nothing of another's world, even one with
    # the same context id: the first start there sends the watch's code.
    first, second = two_tabs
    watch = TextWatch()
    await first.snapshot()
    await second.snapshot()
    await watch.start(first.frames, 5_000, 1_000, Budget(5))
    assert watch.installed_in == first.frames.world_of(first.target_id)
    assert not await _installed_here(second)
    await watch.start(second.frames, 5_000, 1_000, Budget(5))
    assert watch.installed_in == second.frames.world_of(second.target_id)
    assert await _installed_here(second)
