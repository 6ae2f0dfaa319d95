"""A Firefox tab's live view and a person's input: frames captured only while a feed is
open, with the viewport and scroll offsets; a person's input reaches the page and is
noted for the agent."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.firefox.session import FirefoxSession
from tabwarden.screencast import ScreencastParams
from tests.local_server import LocalServer

pytestmark = pytest.mark.browser

WAIT_S = 20.0


@pytest.fixture(scope="module")
async def firefox() -> AsyncIterator[FirefoxSession]:
    async with tabwarden.launch(isolated=True, engine="firefox") as session:
        yield session


async def test_frames_come_only_while_a_feed_is_open_with_the_scroll_offsets(
    firefox: FirefoxSession, server: LocalServer
) -> None:
    tab = firefox.active_tab
    assert tab is not None
    await tab.navigate(server.url("/workbench_target.html"))
    assert not tab.live_view.capturing and tab.live_view.captures == 0
    feed = await tab.live_feed(ScreencastParams(quality=60), Budget(WAIT_S))
    try:
        frame = await feed.next(Budget(WAIT_S))
        assert frame is not None and frame.data.startswith(b"\xff\xd8")
        viewport = (await tab.evaluate("[innerWidth, innerHeight]")).value
        assert [frame.device_width, frame.device_height] == viewport
        feed.shown(frame.seq)
        await tab.evaluate("scrollTo(0, 300)")
        deadline = time.monotonic() + WAIT_S
        while frame is None or frame.scroll_offset_y != 300:
            assert time.monotonic() < deadline, "no frame of the scrolled page"
            frame = await feed.next(Budget(1.0))
            if frame is not None:
                feed.shown(frame.seq)
    finally:
        feed.close()
    deadline = time.monotonic() + WAIT_S
    while tab.live_view.capturing:
        assert time.monotonic() < deadline, "the capture loop kept running for nobody"
        await asyncio.sleep(0.02)
    await tab.evaluate("scrollTo(0, 0)")


async def test_a_still_frame_and_a_thumbnail_take_no_loop(firefox: FirefoxSession) -> None:
    tab = firefox.active_tab
    assert tab is not None
    still = await tab.still_frame(Budget(WAIT_S))
    assert still.encoded.startswith("/9j/") and still.device_width > 0
    assert (await tab.thumbnail_jpeg(Budget(WAIT_S), 360)).startswith(b"\xff\xd8")
    assert not tab.live_view.capturing


async def test_a_persons_click_and_typing_reach_the_page_and_are_noted(
    firefox: FirefoxSession, server: LocalServer
) -> None:
    tab = firefox.active_tab
    assert tab is not None
    await tab.navigate(server.url("/workbench_target.html"))
    box = (
        await tab.evaluate(
            "(() => { const r = document.getElementById('typed').getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
    ).value
    person = tab.person_input()
    budget = Budget(WAIT_S)
    await person.mouse_down(box[0], box[1], budget)
    await person.mouse_up(box[0], box[1], budget)
    for key in "Hi":
        await person.key_down(key, budget)
        await person.key_up(key, budget)
    await person.key_down("Backspace", budget)
    await person.key_up("Backspace", budget)
    await person.insert_text(" there", budget)
    assert (await tab.evaluate("document.getElementById('typed').value")).value == "H there"
    notice = firefox.take_person_notice()
    assert f"a person acted in tab {tab.id} (clicked, typed, pressed keys)" in notice
    assert firefox.take_person_notice() == ""  # told once
