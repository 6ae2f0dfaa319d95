"""One screencast per page, shared by its feeds: frames, metadata, latest-wins, stopping
when nobody watches, a recording and a live view at once, thumbnails."""

from __future__ import annotations

import asyncio
import time

import pytest

from tabwarden.budget import Budget
from tabwarden.cdp.protocol import Event
from tabwarden.diagnostics.recording import jpeg_size
from tabwarden.errors import ActionError, TabClosed
from tabwarden.screencast import FrameFeed, ScreencastFrame, ScreencastParams

pytestmark = pytest.mark.browser

# Resolves after the page painted this many animation frames: a window in which a
# running screencast has frames to send.
ANIMATION_FRAMES = """new Promise(resolve => {
  let n = 0;
  const step = () => (++n < 30 ? requestAnimationFrame(step) : resolve(n));
  requestAnimationFrame(step);
})"""


async def _shown_tab(browser, server, page: str = "/files_anim.html"):
    """A tab the browser shows: a background tab paints nothing."""
    tab = await browser.new_tab(server.url(page))
    await tab.activate()
    return tab


async def _frame_where(feed: FrameFeed, check, what: str) -> ScreencastFrame:
    budget = Budget(15.0)
    seen = []
    while True:
        frame = await feed.next(budget)
        assert frame is not None, f"no frame with {what} (saw {seen[-3:]})"
        if check(frame):
            return frame
        seen.append(frame)


async def test_frames_carry_the_viewport_metadata(browser, server):
    tab = await _shown_tab(browser, server)
    source = tab.page.screencast
    assert source.running is None  # nobody watches yet: no screencast
    # Not adaptive: this test reads no frame as shown, and a feed whose frames are never
    # shown steps its quality down (each step restarts the screencast).
    feed = await source.watch(ScreencastParams(quality=50), Budget(10.0), adaptive=False)
    assert source.running == ScreencastParams(quality=50)
    frame = await feed.next(Budget(15.0))
    assert frame is not None and frame.data[:2] == b"\xff\xd8"  # JPEG
    width, height = (await tab.evaluate("[innerWidth, innerHeight]")).value
    assert (frame.device_width, frame.device_height) == (width, height)
    assert jpeg_size(frame.data) == (width, height)  # no largest size asked: full size
    assert frame.page_scale_factor == 1 and frame.offset_top == 0
    assert frame.seq >= 1 and frame.arrived <= time.monotonic()
    assert frame.timestamp is not None and abs(frame.timestamp - time.time()) < 60
    await tab.evaluate("document.body.style.height = '4000px'; scrollTo(0, 500)")
    scrolled = await _frame_where(feed, lambda f: f.scroll_offset_y == 500, "scrollOffsetY 500")
    assert scrolled.seq > frame.seq and scrolled.scroll_offset_x == 0
    feed.close()
    await tab.close()


async def test_the_screencast_stops_when_its_last_feed_closes(browser, server):
    tab = await _shown_tab(browser, server)
    source = tab.page.screencast
    session = tab.page.session
    assert session is not None
    arrived: list[Event] = []
    counting = session.subscribe("Page.screencastFrame", arrived.append)
    try:
        feed = await source.watch(ScreencastParams(quality=30, max_width=200), Budget(10.0))
        await tab.evaluate(ANIMATION_FRAMES)
        assert await feed.next(Budget(15.0)) is not None
        assert arrived  # while a feed is open, the animation sends frames
        feed.close()
        await source.updated(Budget(10.0))
        assert source.running is None and source.feeds == 0
        received = source.frames_received
        # A frame the browser captured before the stop may still be on its way: let it
        # come during one animation, and acknowledge it, so that a screencast still
        # running would go on sending.
        arrived.clear()
        await tab.evaluate(ANIMATION_FRAMES)
        for late in arrived:
            ack = {"sessionId": late.params["sessionId"]}
            await session.send("Page.screencastFrameAck", ack, budget=Budget(5.0))
        arrived.clear()
        await tab.evaluate(ANIMATION_FRAMES)  # 30 more painted frames
        assert arrived == []
        assert source.frames_received == received
        with pytest.raises(ActionError, match="closed"):
            await feed.next(Budget(1.0))
    finally:
        counting.close()
    await tab.close()


async def test_a_slow_consumer_gets_the_newest_frame_and_a_skip_count(browser, server):
    tab = await _shown_tab(browser, server)
    source = tab.page.screencast
    feed = await source.watch(ScreencastParams(quality=20, max_width=200), Budget(10.0))
    budget = Budget(15.0)
    while feed.statistics().delivered < 6:  # the consumer reads nothing meanwhile
        assert not budget.expired, feed.statistics()
        await budget.sleep(0.05)
    frame = await feed.next(Budget(5.0))
    stats = feed.statistics()
    assert frame is not None and frame.seq == source.frames_received  # the newest
    assert stats.taken == 1 and stats.skipped == stats.delivered - 1 == feed.last_skipped
    feed.shown(frame.seq)
    shown = feed.statistics()
    assert shown.shown == 1 and shown.median_latency_ms is not None
    assert shown.median_latency_ms >= 0
    feed.close()
    await tab.close()


async def test_feeds_share_one_screencast_run_with_the_most_demanding_params(browser, server):
    tab = await _shown_tab(browser, server)
    source = tab.page.screencast
    small = await source.watch(ScreencastParams(quality=20, max_width=160), Budget(10.0))
    large = await source.watch(ScreencastParams(quality=60, max_width=320), Budget(10.0))
    assert source.running == ScreencastParams(quality=60, max_width=320)
    one = await _frame_where(small, lambda f: f.seq > 0, "any")
    other = await _frame_where(large, lambda f: f.seq >= one.seq, "a frame as new")
    assert other.seq >= one.seq  # both feeds get the same frames
    large.close()
    await source.updated(Budget(10.0))
    assert source.running == ScreencastParams(quality=20, max_width=160)
    narrow = await _frame_where(small, lambda f: (jpeg_size(f.data) or (0, 0))[0] <= 160, "160")
    assert narrow.seq > other.seq
    small.close()
    await tab.close()


async def test_a_recording_and_a_live_feed_of_one_tab_both_get_frames(browser, server):
    tab = await _shown_tab(browser, server)
    await tab.record_start(quality=50, max_width=300)
    source = tab.page.screencast
    live = await source.watch(ScreencastParams(quality=30, max_width=400), Budget(10.0))
    assert source.running == ScreencastParams(quality=50, max_width=400)
    first = await live.next(Budget(15.0))
    assert first is not None
    recorder = tab.page.services.recordings.recorder(tab.id)
    budget = Budget(15.0)
    while recorder.statistics().size < 3:
        assert not budget.expired, recorder.statistics()
        await budget.sleep(0.05)
    saved = await tab.record_stop("with-live-view", format="html")
    assert saved.frames >= 3 and saved.path.is_file()
    # The recording's end leaves the live view's screencast running, with its own params.
    assert source.running == ScreencastParams(quality=30, max_width=400)
    later = await live.next(Budget(15.0))
    assert later is not None and later.seq > first.seq
    live.close()
    await tab.close()


async def test_a_feed_ends_when_its_tab_closes(browser, server):
    tab = await _shown_tab(browser, server)
    feed = await tab.page.screencast.watch(ScreencastParams(quality=20), Budget(10.0))
    await tab.close()
    with pytest.raises(TabClosed):
        await feed.next(Budget(5.0))
    with pytest.raises(TabClosed):
        await tab.page.screencast.watch(ScreencastParams(), Budget(5.0))


async def test_a_thumbnail_is_a_small_jpeg_of_the_viewport(browser, server):
    tab = await _shown_tab(browser, server)
    width = (await tab.evaluate("innerWidth")).value
    thumbnail = await tab.page.screencast.thumbnail(Budget(10.0), max_width=200)
    assert thumbnail.data[:2] == b"\xff\xd8"
    assert thumbnail.width == 200 < width
    assert jpeg_size(thumbnail.data) == (thumbnail.width, thumbnail.height)
    assert tab.page.screencast.running is None  # no screencast for a thumbnail
    await tab.close()


async def test_a_watch_cancelled_while_its_start_is_on_the_way_leaves_the_screencast_usable(
    browser, server, monkeypatch
):
    tab = await _shown_tab(browser, server)
    source = tab.page.screencast
    session = tab.page.session
    assert session is not None
    send = session.send

    async def cancelled_once_started(method, *args, **kwargs):
        reply = await send(method, *args, **kwargs)
        if method == "Page.startScreencast":
            monkeypatch.undo()
            # The browser started it; the caller (a page that left) is cancelled now.
            raise asyncio.CancelledError
        return reply

    monkeypatch.setattr(session, "send", cancelled_once_started)
    with pytest.raises(asyncio.CancelledError):
        await source.watch(ScreencastParams(quality=40), Budget(10.0))
    feed = await source.watch(ScreencastParams(quality=40), Budget(10.0))
    await tab.evaluate(ANIMATION_FRAMES)
    assert await feed.next(Budget(15.0)) is not None
    feed.close()
    await source.updated(Budget(10.0))
    assert source.running is None
    await tab.close()


async def test_a_feed_opened_while_the_screencast_runs_gets_the_newest_frame_at_once(
    browser, server
):
    tab = await _shown_tab(browser, server, "/index.html")  # paints nothing once loaded
    source = tab.page.screencast
    params = ScreencastParams(quality=50)
    first = await source.watch(params, Budget(10.0))
    shown = await first.next(Budget(15.0))
    assert shown is not None
    second = await source.watch(params, Budget(10.0))
    frame = await second.next(Budget(3.0))
    assert frame is not None, "a second watcher of an idle page saw nothing"
    assert frame.seq == shown.seq
    second.close()
    first.close()
    await tab.close()


async def test_thumbnails_taken_while_a_live_view_watches_leave_its_frames_true(browser, server):
    # A scaled capture resizes the viewport the screencast paints for a moment: frames
    # painted then would carry the thumbnail's size as the viewport's.
    tab = await _shown_tab(browser, server)
    source = tab.page.screencast
    width, height = (await tab.evaluate("[innerWidth, innerHeight]")).value
    seen: list[ScreencastFrame] = []
    feed = await source.watch(
        ScreencastParams(quality=40), Budget(10.0), adaptive=False, on_frame=seen.append
    )
    await feed.next(Budget(15.0))
    for _ in range(8):
        thumbnail = await source.thumbnail(Budget(10.0), max_width=200)
        assert thumbnail.data[:2] == b"\xff\xd8"
        assert jpeg_size(thumbnail.data) == (thumbnail.width, thumbnail.height)
        await tab.evaluate(ANIMATION_FRAMES)
    assert len(seen) > 8
    sizes = {(frame.device_width, frame.device_height) for frame in seen}
    assert sizes == {(width, height)}
    feed.close()
    await tab.close()
