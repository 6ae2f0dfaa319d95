"""A page's screencast, shared: one frame source per page, a latest-wins feed per
consumer, and the adaptive quality of a live view."""

from __future__ import annotations

from .feed import FeedStatistics, FrameFeed, ScreencastFrame
from .params import ScreencastParams, most_demanding
from .quality import AdaptiveQuality
from .source import FrameSource, Thumbnail

__all__ = [
    "AdaptiveQuality",
    "FeedStatistics",
    "FrameFeed",
    "FrameSource",
    "ScreencastFrame",
    "ScreencastParams",
    "Thumbnail",
    "most_demanding",
]
