"""A feed alone, frames handed in by hand: latest-wins, skips, adaptive quality's
requests, closing and ending. No browser."""

from __future__ import annotations

import asyncio

import pytest

from tabwarden.budget import Budget
from tabwarden.errors import ActionError, TabClosed
from tabwarden.screencast import FrameFeed, ScreencastFrame, ScreencastParams


def _frame(seq: int, arrived: float = 100.0) -> ScreencastFrame:
    metadata = {"deviceWidth": 800, "deviceHeight": 600, "scrollOffsetY": 12, "timestamp": 5.0}
    return ScreencastFrame.from_cdp(seq, "/9g=", metadata, arrived)


class Source:
    """What a frame source gives a feed: told when its params change and when it closes."""

    def __init__(self) -> None:
        self.changes = 0
        self.closed: list[FrameFeed] = []

    def feed(self, params: ScreencastParams, *, adaptive: bool = True, on_frame=None) -> FrameFeed:
        return FrameFeed(
            params,
            adaptive=adaptive,
            on_frame=on_frame,
            params_changed=self.changed,
            closing=self.closed.append,
        )

    def changed(self) -> None:
        self.changes += 1


async def test_the_newest_frame_wins_and_the_ones_passed_over_are_counted() -> None:
    feed = Source().feed(ScreencastParams())
    for seq in (1, 2, 3):
        feed.deliver(_frame(seq))
    frame = await feed.next(Budget(1.0))
    assert frame is not None and frame.seq == 3 and feed.last_skipped == 2
    assert frame.scroll_offset_y == 12 and frame.device_width == 800
    assert await feed.next(Budget(0.05)) is None  # nothing newer came in time
    feed.deliver(_frame(4))
    assert (await feed.next(Budget(1.0))).seq == 4 and feed.last_skipped == 0
    stats = feed.statistics()
    assert (stats.delivered, stats.taken, stats.skipped) == (4, 2, 2)


async def test_a_waiting_consumer_gets_the_frame_that_arrives() -> None:
    feed = Source().feed(ScreencastParams())
    # Delivered once ``next`` waits (the loop runs it when the waiting task yields).
    asyncio.get_running_loop().call_soon(feed.deliver, _frame(7))
    frame = await feed.next(Budget(5.0))
    assert frame is not None and frame.seq == 7 and feed.statistics().skipped == 0


async def test_frames_shown_late_lower_the_feeds_params_and_tell_the_source() -> None:
    source = Source()
    feed = source.feed(ScreencastParams(quality=80, max_width=800))
    for seq in range(1, 5):
        feed.deliver(_frame(seq, arrived=100.0))
        taken = await feed.next(Budget(1.0))
        feed.shown(taken.seq, at=100.4)  # 400 ms from arrival to the screen
    assert source.changes == 1
    lowered = feed.params
    assert lowered.quality < 80 and lowered.max_width is not None and lowered.max_width < 800
    stats = feed.statistics()
    assert stats.step == 1 and stats.shown == 4 and stats.median_latency_ms == pytest.approx(400)
    feed.shown(999)  # never handed out: ignored
    assert feed.statistics().shown == 4


async def test_a_recording_feed_gets_every_frame_and_keeps_its_params() -> None:
    got: list[int] = []
    source = Source()
    feed = source.feed(
        ScreencastParams(quality=60), adaptive=False, on_frame=lambda f: got.append(f.seq)
    )
    for seq in (1, 2, 3):
        feed.deliver(_frame(seq))
    assert got == [1, 2, 3]
    feed.shown((await feed.next(Budget(1.0))).seq, at=200.0)
    assert feed.params == ScreencastParams(quality=60) and source.changes == 0


async def test_closing_tells_the_source_once_and_ends_next() -> None:
    source = Source()
    feed = source.feed(ScreencastParams())
    feed.close()
    feed.close()
    assert source.closed == [feed] and feed.closed
    feed.deliver(_frame(1))  # a frame still in flight is dropped
    with pytest.raises(ActionError, match="closed"):
        await feed.next(Budget(1.0))


async def test_a_feed_whose_page_went_away_raises_why() -> None:
    feed = Source().feed(ScreencastParams())
    feed.end(TabClosed("tab t9 is closed: closed by the user"))
    with pytest.raises(TabClosed, match="t9"):
        await feed.next(Budget(1.0))
