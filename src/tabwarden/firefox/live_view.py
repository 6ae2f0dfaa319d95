"""A Firefox tab's live view: frames while someone watches, a still, a thumbnail.

WebDriver BiDi has no screencast. While at least one feed is open, a capture loop (on
a task of its own ``TaskOwner``) takes ``browsingContext.captureScreenshot`` as JPEG
with the viewport's size and scroll offsets, and hands each changed image to the
feeds as the same ``ScreencastFrame`` the Chromium screencast makes (a ``FrameFeed``
is latest-wins, so a slow viewer skips frames). Pacing: the next capture waits until
the viewer showed the last frame (``FrameFeed.shown``, at most ``_SHOWN_WAIT_S``) and
for at least twice the time a capture took, so a slow machine gets fewer captures,
never a queue. An unchanged image is not sent again. When the last feed closes, the
loop ends: nothing is captured while nobody looks.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Protocol

from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..errors import TabClosed, TabwardenError
from ..screencast import FrameFeed, ScreencastFrame, ScreencastParams
from ..tasks import TaskOwner
from .values import JSONObject, remote_value

__all__ = ["FirefoxLiveView", "LiveViewPage"]

_VIEWPORT = "() => [innerWidth, innerHeight, scrollX, scrollY, visualViewport?.scale ?? 1]"
"""The viewport (CSS px), where it is scrolled to, and the pinch-zoom factor."""
_CAPTURE_S = 5.0
_SHOWN_WAIT_S = 1.0
"""A viewer that does not say it showed a frame gets the next one after this anyway."""
_MIN_PAUSE_S = 0.05
_IDLE_PAUSE_S = 0.2
"""Between captures of a page that did not change (it may, any time)."""
_RETRY_S = 0.5
"""After a capture that failed (a dialog open, a navigation under way)."""


class LiveViewPage(Protocol):
    """What the live view needs of its tab (``FirefoxPage``)."""

    id: str
    context: str
    closed: bool

    @property
    def connection(self) -> BiDiConnection: ...

    async def call_in(
        self, context: str, function: str, arguments: list[JSONObject], budget: Budget
    ) -> JSONObject: ...


class FirefoxLiveView:
    """One tab's frames for its viewers (``watch``), captured only while one is open."""

    def __init__(self, page: LiveViewPage) -> None:
        self._page = page
        self._feeds: list[FrameFeed] = []
        self._tasks = TaskOwner(f"firefox live view {page.id}")
        self._loop: asyncio.Task[None] | None = None
        self._shown = asyncio.Event()
        self._seq = itertools.count(1)
        self._last = ""
        """The image sent last (an unchanged page is not sent again)."""
        self.captures = 0
        """Captures the loop took so far (none while nobody watches)."""

    @property
    def capturing(self) -> bool:
        """True while the capture loop runs (a feed is open)."""
        return self._loop is not None and not self._loop.done()

    async def watch(self, params: ScreencastParams, budget: Budget) -> FrameFeed:
        """A latest-wins feed of the tab's frames; the capture loop runs while it is open."""
        if self._page.closed:
            raise TabClosed(f"tab {self._page.id} is closed", hint="pick another tab")
        feed = FrameFeed(
            params,
            adaptive=False,  # the loop paces itself on the viewer; the size is Firefox's
            on_frame=None,
            params_changed=lambda: None,
            closing=self._feed_closed,
            on_shown=self._frame_shown,
        )
        self._feeds.append(feed)
        self._last = ""  # the new feed gets the page as it is now, changed or not
        self._shown.set()
        if not self.capturing:
            self._loop = self._tasks.spawn(self._capture_loop(), f"firefox frames {self._page.id}")
        return feed

    async def still(self, budget: Budget, quality: int = 60) -> ScreencastFrame:
        """What the tab shows now, captured once (no loop)."""
        return await self._capture(next(self._seq), quality, budget)

    async def thumbnail(self, budget: Budget, quality: int = 40) -> bytes:
        """A JPEG of the viewport now (the page scales it down where it shows it)."""
        return (await self.still(budget, quality)).data

    def end(self) -> None:
        """The tab closed: every feed ends, and the loop with them."""
        feeds, self._feeds = self._feeds, []
        for feed in feeds:
            feed.end(TabClosed(f"tab {self._page.id} closed", hint="pick another tab"))
        self._loop = None
        self._tasks.cancel()

    # ---- the loop ----------------------------------------------------------------------

    def _feed_closed(self, feed: FrameFeed) -> None:
        if feed in self._feeds:
            self._feeds.remove(feed)
        if not self._feeds and self._loop is not None:
            self._loop.cancel()
            self._loop = None

    def _frame_shown(self, seq: int) -> None:
        self._shown.set()

    async def _capture_loop(self) -> None:
        while self._feeds and not self._page.closed:
            quality = max(feed.params.quality for feed in self._feeds)
            started = time.monotonic()
            try:
                frame = await self._capture(next(self._seq), quality, Budget(_CAPTURE_S))
            except TabwardenError:
                await asyncio.sleep(_RETRY_S)
                continue
            took = time.monotonic() - started
            self.captures += 1
            if frame.encoded == self._last:
                await asyncio.sleep(max(_IDLE_PAUSE_S, 2 * took))
                continue
            self._last = frame.encoded
            self._shown.clear()
            for feed in list(self._feeds):
                feed.deliver(frame)
            # Latest wins: the next capture once this one was shown, never faster than
            # the capture itself (on a loaded machine the viewer gets fewer frames).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._shown.wait(), _SHOWN_WAIT_S)
            await asyncio.sleep(max(_MIN_PAUSE_S, 2 * took - (time.monotonic() - started)))

    async def _capture(self, seq: int, quality: int, budget: Budget) -> ScreencastFrame:
        page = self._page
        shot = page.connection.send(
            "browsingContext.captureScreenshot",
            {
                "context": page.context,
                "origin": "viewport",
                "format": {"type": "image/jpeg", "quality": quality / 100},
            },
            budget=budget,
        )
        view, reply = await asyncio.gather(page.call_in(page.context, _VIEWPORT, [], budget), shot)
        width, height, x, y, scale = _numbers(remote_value(view))
        return ScreencastFrame(
            seq=seq,
            encoded=str(reply.get("data", "")),
            arrived=time.monotonic(),
            timestamp=time.time(),
            offset_top=0.0,
            page_scale_factor=scale,
            device_width=width,
            device_height=height,
            scroll_offset_x=x,
            scroll_offset_y=y,
        )


def _numbers(value: object) -> tuple[float, float, float, float, float]:
    items = value if isinstance(value, list) else []
    numbers = [float(v) if isinstance(v, (int, float)) else 0.0 for v in items]
    numbers += [0.0] * (5 - len(numbers))
    return numbers[0], numbers[1], numbers[2], numbers[3], numbers[4] or 1.0
