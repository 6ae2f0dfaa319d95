"""What a screencast consumer asks of the frames: JPEG quality, largest size, frame rate."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidArgument

__all__ = ["ScreencastParams", "most_demanding"]

_MIN_SIZE = 16


@dataclass(frozen=True, slots=True)
class ScreencastParams:
    """``Page.startScreencast`` parameters (JPEG only: every consumer decodes it)."""

    quality: int = 70
    """JPEG quality, 0 to 100."""
    max_width: int | None = None
    """Largest frame width in pixels (None: as the page is shown)."""
    max_height: int | None = None
    every_nth_frame: int = 1
    """Send every Nth painted frame (1: every one)."""

    def __post_init__(self) -> None:
        if not 0 <= self.quality <= 100:
            raise InvalidArgument(f"quality={self.quality} is out of range", hint="give 0 to 100")
        if self.every_nth_frame < 1:
            raise InvalidArgument("every_nth_frame must be 1 or more")
        for name, value in (("max_width", self.max_width), ("max_height", self.max_height)):
            if value is not None and value < _MIN_SIZE:
                raise InvalidArgument(
                    f"{name} must be at least {_MIN_SIZE} pixels, got {value}",
                    hint="leave it out to keep the page's own size",
                )

    def to_cdp(self) -> dict[str, Any]:
        """The parameters of ``Page.startScreencast``."""
        params: dict[str, Any] = {
            "format": "jpeg",
            "quality": self.quality,
            "everyNthFrame": self.every_nth_frame,
        }
        if self.max_width is not None:
            params["maxWidth"] = self.max_width
        if self.max_height is not None:
            params["maxHeight"] = self.max_height
        return params


def most_demanding(wanted: Iterable[ScreencastParams]) -> ScreencastParams | None:
    """One screencast serves every consumer: the best quality, the largest size (no limit
    wins) and the highest frame rate any of them asks for. None when nobody asks."""
    wanted = list(wanted)
    if not wanted:
        return None
    return ScreencastParams(
        quality=max(p.quality for p in wanted),
        max_width=_largest(p.max_width for p in wanted),
        max_height=_largest(p.max_height for p in wanted),
        every_nth_frame=min(p.every_nth_frame for p in wanted),
    )


def _largest(sizes: Iterable[int | None]) -> int | None:
    found = list(sizes)
    if any(size is None for size in found):
        return None
    return max(size for size in found if size is not None)
