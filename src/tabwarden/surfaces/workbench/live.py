"""The live view's parts on a tab of either engine: its frames (Chromium's shared
screencast, Firefox's captures while watched), a thumbnail, and a person's input sent to
it — in the wire format of the workbench."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, get_args

from ...budget import Budget
from ...errors import InvalidArgument
from ...person_input import MouseButton
from ...screencast import FrameFeed, ScreencastFrame, ScreencastParams
from .source import WatchedTab

__all__ = ["InputForwarder", "LiveFrame", "open_feed", "still_frame", "thumbnail"]

_THUMBNAIL_WIDTH = 360


@dataclass(frozen=True, slots=True)
class LiveFrame:
    seq: int
    data: str
    """The JPEG, base64 (as the page shows it: a data URL)."""
    meta: dict[str, float]

    @classmethod
    def of(cls, frame: ScreencastFrame) -> LiveFrame:
        return cls(
            seq=frame.seq,
            data=frame.encoded,
            meta={
                "deviceWidth": frame.device_width,
                "deviceHeight": frame.device_height,
                "offsetTop": frame.offset_top,
                "pageScaleFactor": frame.page_scale_factor,
                "scrollOffsetX": frame.scroll_offset_x,
                "scrollOffsetY": frame.scroll_offset_y,
            },
        )


LIVE_VIEW = ScreencastParams(quality=60, max_width=1024, max_height=1024)
"""What a live view asks for at first (adaptive quality lowers it while frames come
late): a workbench page shows the tab scaled into part of a window, and every pixel
less is less for the agent's browser to encode while the agent works."""


async def open_feed(tab: WatchedTab, budget: Budget) -> FrameFeed:
    """A latest-wins feed of the tab's frames (made only while the feed is open)."""
    return await tab.live_feed(LIVE_VIEW, budget)


async def still_frame(tab: WatchedTab, budget: Budget) -> LiveFrame:
    """What the tab shows now, captured once: for a page that sends no screencast frame
    (it paints nothing: a still page whose start frame was lost to a change of its
    viewport)."""
    frame = await tab.still_frame(budget)
    return LiveFrame.of(frame)


async def thumbnail(tab: WatchedTab, budget: Budget) -> str:
    """A small JPEG of what the tab shows now, base64."""
    data = await tab.thumbnail_jpeg(budget, _THUMBNAIL_WIDTH)
    return base64.b64encode(data).decode("ascii")


class InputForwarder:
    """A person's input events from one page to one tab (it keeps which buttons are down)."""

    def __init__(self, tab: WatchedTab) -> None:
        self.tab = tab
        self._input = tab.person_input()

    async def forward(self, event: dict[str, Any], budget: Budget) -> dict[str, Any] | None:
        """Send one event; returns the mark to draw (name and points) for a press, a
        wheel or typed text, None for a move or a release."""
        kind, action = event.get("kind"), event.get("action")
        modifiers = _int(event.get("modifiers", 0), "modifiers")
        if kind == "mouse":
            x, y = _number(event.get("x"), "x"), _number(event.get("y"), "y")
            button = event.get("button", "left")
            if button not in get_args(MouseButton):
                raise InvalidArgument(
                    f"button={button!r} is not a mouse button", hint="left, middle or right"
                )
            count = _int(event.get("clickCount", 1), "clickCount")
            if action == "move":
                await self._input.mouse_move(x, y, budget, modifiers=modifiers)
                return None
            if action == "down":
                await self._input.mouse_down(
                    x, y, budget, button=button, click_count=count, modifiers=modifiers
                )
                return {
                    "name": "click",
                    "ref": None,
                    "label": None,
                    "points": [_point("press", x, y)],
                }
            if action == "up":
                await self._input.mouse_up(
                    x, y, budget, button=button, click_count=count, modifiers=modifiers
                )
                return None
            if action == "wheel":
                dx = _number(event.get("deltaX", 0), "deltaX")
                dy = _number(event.get("deltaY", 0), "deltaY")
                await self._input.wheel(x, y, dx, dy, budget, modifiers=modifiers)
                return {
                    "name": "scroll",
                    "ref": None,
                    "label": None,
                    "points": [_point("wheel", x, y)],
                }
        elif kind == "key":
            key = str(event.get("key") or "")
            code = str(event.get("code") or "")
            if action == "down":
                text = event.get("text")
                await self._input.key_down(
                    key,
                    budget,
                    code=code,
                    text=str(text) if text is not None else None,
                    modifiers=modifiers,
                )
                return {"name": "press", "ref": None, "label": key, "points": []}
            if action == "up":
                await self._input.key_up(key, budget, code=code, modifiers=modifiers)
                return None
        elif kind == "text":
            text = str(event.get("text") or "")
            await self._input.insert_text(text, budget)
            return {"name": "type", "ref": None, "label": f"{len(text)} characters", "points": []}
        raise InvalidArgument(
            f"input event {kind!r}/{action!r} is not known",
            hint="mouse move/down/up/wheel, key down/up, or text",
        )


def _point(kind: str, x: float, y: float) -> dict[str, Any]:
    return {"kind": kind, "x": round(x, 1), "y": round(y, 1)}


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"{name} must be a number, got {value!r}", hint="CSS pixels")
    return float(value)


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name} must be a whole number, got {value!r}")
    return value
