"""Adaptive quality of a live view: lower JPEG quality and frame size when frames reach
the screen late or are skipped, raise them back once they come quickly.

A pure policy: the feed tells it, for each frame shown, how long the frame took from
its arrival to the screen and how many newer frames were skipped meanwhile; it answers
with the parameters to ask for. No clock, no I/O.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass

from .params import ScreencastParams

__all__ = ["AdaptiveQuality", "QualityStep"]


@dataclass(frozen=True, slots=True)
class QualityStep:
    """One rung of the ladder: a share of the asked JPEG quality and of the frame size."""

    quality: float
    size: float


LADDER: tuple[QualityStep, ...] = (
    QualityStep(1.0, 1.0),
    QualityStep(0.8, 0.75),
    QualityStep(0.6, 0.5),
    QualityStep(0.4, 0.35),
)
_LOWEST_QUALITY = 10
_SMALLEST_SIDE = 16


class AdaptiveQuality:
    """Steps down the ladder when the median delivery-to-shown latency of the window is
    above ``slow_s`` or more than ``skipped_share`` of the frames were skipped; steps up
    when a full window's median is below ``fast_s`` and nothing was skipped. Each step
    starts a new window, so a decision is always made on frames of the current step."""

    def __init__(
        self,
        asked: ScreencastParams,
        *,
        slow_s: float = 0.150,
        fast_s: float = 0.060,
        window: int = 8,
        min_samples: int = 4,
        skipped_share: float = 1 / 3,
    ) -> None:
        self.asked = asked
        self.step = 0
        """Index into ``LADDER`` (0: what the consumer asked for)."""
        self._slow_s = slow_s
        self._fast_s = fast_s
        self._window = window
        self._min_samples = min(min_samples, window)
        self._skipped_share = skipped_share
        self._latencies: deque[float] = deque(maxlen=window)
        self._skipped: deque[int] = deque(maxlen=window)
        self._page_size: tuple[int, int] | None = None

    def saw_size(self, width: int, height: int) -> None:
        """The size of the page's frames at full scale (a smaller step needs a base when
        the consumer set no largest size)."""
        if width > 0 and height > 0:
            self._page_size = (width, height)

    def shown(self, latency_s: float, skipped: int) -> bool:
        """A frame reached the screen ``latency_s`` after it arrived, ``skipped`` newer
        frames having been passed over since the previous one shown. True when the step
        changed (ask for ``params()`` again)."""
        self._latencies.append(max(0.0, latency_s))
        self._skipped.append(max(0, skipped))
        samples = len(self._latencies)
        if samples < self._min_samples:
            return False
        median = statistics.median(self._latencies)
        skipped_total = sum(self._skipped)
        share = skipped_total / (skipped_total + samples)
        if (median > self._slow_s or share > self._skipped_share) and self.step + 1 < len(LADDER):
            return self._move(+1)
        if samples == self._window and median < self._fast_s and skipped_total == 0 and self.step:
            return self._move(-1)
        return False

    def params(self) -> ScreencastParams:
        """What to ask of the screencast at the current step."""
        rung = LADDER[self.step]
        asked = self.asked
        quality = asked.quality
        if rung.quality < 1.0:
            quality = min(asked.quality, max(_LOWEST_QUALITY, round(asked.quality * rung.quality)))
        width, height = asked.max_width, asked.max_height
        if rung.size < 1.0:
            base_width = width or (self._page_size[0] if self._page_size else None)
            base_height = height or (self._page_size[1] if self._page_size else None)
            width = _scaled(base_width, rung.size)
            height = _scaled(base_height, rung.size)
        return ScreencastParams(quality, width, height, asked.every_nth_frame)

    def _move(self, by: int) -> bool:
        self.step += by
        self._latencies.clear()
        self._skipped.clear()
        return True


def _scaled(size: int | None, share: float) -> int | None:
    if size is None:
        return None
    return max(_SMALLEST_SIDE, round(size * share))
