"""One consumer's view of a page's screencast: the newest frame, never a queue.

A live viewer shows what the page looks like now: a frame that arrives before the
viewer asked for the previous one replaces it (and is counted as skipped), so a slow
viewer costs no memory and never falls behind. A consumer that needs every frame (a
recording) passes ``on_frame``, called for each one as it arrives.
"""

from __future__ import annotations

import asyncio
import base64
import statistics
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

from ..budget import Budget
from ..errors import ActionError, DeadlineExceeded, TabwardenError
from .params import ScreencastParams
from .quality import AdaptiveQuality

__all__ = ["FeedStatistics", "FrameFeed", "ScreencastFrame"]

_HANDED_KEPT = 32
"""Frames handed out whose arrival time is kept for ``shown`` (a viewer shows the last
few it took, not one from long ago)."""
_LATENCIES_KEPT = 16


@dataclass(frozen=True, slots=True)
class ScreencastFrame:
    """One screencast frame (``Page.screencastFrame``) as it arrived."""

    seq: int
    """Numbered by the page's frame source as frames arrive, from 1."""
    encoded: str
    """The JPEG image, base64, as the browser sent it (a live view passes it on as is)."""
    arrived: float
    """When it arrived (``time.monotonic()``)."""
    timestamp: float | None
    """When the browser painted it (seconds, wall clock), if it said."""
    offset_top: float
    """Top offset of the page in the frame, in CSS pixels (``offsetTop``)."""
    page_scale_factor: float
    """The page's pinch-zoom factor."""
    device_width: float
    """The viewport's width in CSS pixels (the frame may be scaled down from it)."""
    device_height: float
    scroll_offset_x: float
    """The page's scroll position, in CSS pixels."""
    scroll_offset_y: float

    @property
    def data(self) -> bytes:
        """The JPEG image (decoded on each use: a recording keeps it, a live view never
        needs it)."""
        return base64.b64decode(self.encoded)

    @classmethod
    def from_cdp(
        cls, seq: int, encoded: str, metadata: dict[str, float], arrived: float
    ) -> ScreencastFrame:
        timestamp = metadata.get("timestamp")
        return cls(
            seq=seq,
            encoded=encoded,
            arrived=arrived,
            timestamp=float(timestamp) if timestamp is not None else None,
            offset_top=float(metadata.get("offsetTop", 0.0)),
            page_scale_factor=float(metadata.get("pageScaleFactor", 1.0)),
            device_width=float(metadata.get("deviceWidth", 0.0)),
            device_height=float(metadata.get("deviceHeight", 0.0)),
            scroll_offset_x=float(metadata.get("scrollOffsetX", 0.0)),
            scroll_offset_y=float(metadata.get("scrollOffsetY", 0.0)),
        )


@dataclass(frozen=True, slots=True)
class FeedStatistics:
    delivered: int
    """Frames that reached this feed."""
    taken: int
    """Frames ``next`` handed out."""
    skipped: int
    """Frames replaced by a newer one before anyone took them."""
    shown: int
    """Frames the consumer said it showed (``shown``)."""
    median_latency_ms: float | None
    """Median arrival-to-shown time of the last frames shown."""
    params: ScreencastParams
    """What the feed asks for now (lowered by adaptive quality)."""
    step: int
    """How far adaptive quality has lowered it (0: as asked)."""


class FrameFeed:
    """The newest frame of a page's screencast for one consumer; ``close`` it when done
    (the screencast stops when its last feed closes)."""

    def __init__(
        self,
        asked: ScreencastParams,
        *,
        adaptive: bool,
        on_frame: Callable[[ScreencastFrame], None] | None,
        params_changed: Callable[[], None],
        closing: Callable[[FrameFeed], None],
        on_shown: Callable[[int], None] | None = None,
    ) -> None:
        self.asked = asked
        self._quality = AdaptiveQuality(asked) if adaptive else None
        self._on_frame = on_frame
        self._params_changed = params_changed
        self._closing = closing
        self._on_shown = on_shown
        """Told each frame the consumer showed (a source that captures on demand paces
        itself on it)."""
        self._latest: ScreencastFrame | None = None
        self._arrival = asyncio.Event()
        self._handed: OrderedDict[int, float] = OrderedDict()
        self._latencies: deque[float] = deque(maxlen=_LATENCIES_KEPT)
        self._delivered = 0
        self._taken = 0
        self._skipped = 0
        self._skipped_since_shown = 0
        self._shown = 0
        self.last_skipped = 0
        """Frames skipped just before the one ``next`` returned last."""
        self._skipped_since_taken = 0
        self._closed = False
        self._ended: TabwardenError | None = None

    # ---- properties -----------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def keeps_every_frame(self) -> bool:
        """A recording: every frame matters, not only the newest."""
        return self._on_frame is not None

    @property
    def params(self) -> ScreencastParams:
        """What this feed asks of the screencast now."""
        return self._quality.params() if self._quality is not None else self.asked

    def statistics(self) -> FeedStatistics:
        median = statistics.median(self._latencies) * 1000 if self._latencies else None
        return FeedStatistics(
            delivered=self._delivered,
            taken=self._taken,
            skipped=self._skipped,
            shown=self._shown,
            median_latency_ms=median,
            params=self.params,
            step=self._quality.step if self._quality is not None else 0,
        )

    # ---- the consumer -----------------------------------------------------------------

    async def next(self, budget: Budget) -> ScreencastFrame | None:
        """The newest frame not taken yet, waiting for one within ``budget``; None when
        none came in time (a background tab paints nothing: its last frame stays the
        newest). Raises once the feed is closed or its page went away."""
        while True:
            self._check_open()
            frame = self._latest
            if frame is not None:
                self._latest = None
                self._taken += 1
                self.last_skipped = self._skipped_since_taken
                self._skipped_since_taken = 0
                self._handed[frame.seq] = frame.arrived
                while len(self._handed) > _HANDED_KEPT:
                    self._handed.popitem(last=False)
                return frame
            self._arrival.clear()
            try:
                await budget.run(self._arrival.wait(), what="waiting for a screencast frame")
            except DeadlineExceeded:
                return None

    def shown(self, seq: int, at: float | None = None) -> None:
        """The consumer showed frame ``seq`` (at ``at``, ``time.monotonic()``; default
        now). Feeds adaptive quality; a frame not handed out recently is ignored."""
        arrived = self._handed.pop(seq, None)
        if arrived is None:
            return
        latency = (time.monotonic() if at is None else at) - arrived
        skipped, self._skipped_since_shown = self._skipped_since_shown, 0
        self._shown += 1
        self._latencies.append(max(0.0, latency))
        if self._quality is not None and self._quality.shown(latency, skipped):
            self._params_changed()
        if self._on_shown is not None:
            self._on_shown(seq)

    def close(self) -> None:
        """Stop receiving frames (the screencast stops, in the background, when no feed
        is left). Closing twice does nothing."""
        if self._closed:
            return
        self._closed = True
        self._arrival.set()
        self._closing(self)

    # ---- the frame source --------------------------------------------------------------

    def deliver(self, frame: ScreencastFrame) -> None:
        """A frame arrived (on the connection's reader: never awaits)."""
        if self._closed:
            return
        self._delivered += 1
        if self._latest is not None:
            self._skipped += 1
            self._skipped_since_taken += 1
            self._skipped_since_shown += 1
        self._latest = frame
        if self._quality is not None:
            self._quality.saw_size(round(frame.device_width), round(frame.device_height))
        if self._on_frame is not None:
            self._on_frame(frame)
        self._arrival.set()

    def end(self, error: TabwardenError) -> None:
        """The page went away: ``next`` raises ``error`` from now on."""
        self._ended = error
        self._closed = True
        self._arrival.set()

    def _check_open(self) -> None:
        if self._ended is not None:
            raise self._ended
        if self._closed:
            raise ActionError("this screencast feed is closed", hint="open another with watch()")
