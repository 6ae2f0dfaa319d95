"""FrameSource: the one screencast of a page, shared by every consumer.

Chromium runs one screencast per page session: two consumers that each called
``Page.startScreencast`` would change each other's parameters and stop each other's
frames. The page's ``FrameSource`` runs it while at least one ``FrameFeed`` is open,
with the most demanding parameters any feed asks for (restarted when they change),
acknowledges every frame (``Page.screencastFrameAck``: unacknowledged, the browser
stops sending) and hands each one to every feed. With no feed open it stops: a page
nobody looks at costs nothing. A live view opened while it runs starts with its newest
frame: an idle page paints no other.

A background tab paints nothing, so its screencast sends no frames: a viewer of a
background tab keeps its last frame until the tab is shown (the source never brings a
tab to the front by itself).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any

from ..budget import Budget
from ..cdp.protocol import Event, Subscription
from ..cdp.session import CDPSession
from ..errors import ActionError, InvalidArgument, TabwardenError
from ..jpeg import jpeg_size
from .feed import FrameFeed, ScreencastFrame
from .params import ScreencastParams, most_demanding

__all__ = ["FrameSource", "Thumbnail"]

logger = logging.getLogger("tabwarden.screencast")

Spawn = Callable[[Coroutine[Any, Any, None], str], asyncio.Task[None]]
"""Runs background work under an owner (the session's ``TaskOwner.spawn``)."""

_ACK_S = 5.0
_UPDATE_S = 10.0
_STOP_S = 2.0
_RESUME_S = 0.05
"""After an agent's action, how long the paused screencast waits before it starts again."""


@dataclass(frozen=True, slots=True)
class Thumbnail:
    """A small JPEG of what the page's viewport shows now."""

    data: bytes
    width: int
    height: int


class FrameSource:
    """The screencast of one page, shared by its feeds (see the module's docstring)."""

    def __init__(
        self,
        tab_id: str,
        ready_session: Callable[[Budget], Awaitable[CDPSession]],
        spawn: Spawn,
    ) -> None:
        """``ready_session``: the page's session once set up; ``spawn``: runs background
        work owned by the page's session (acknowledgements, updates)."""
        self.tab_id = tab_id
        self._ready_session = ready_session
        self._spawn = spawn
        self._feeds: list[FrameFeed] = []
        self._switch = asyncio.Lock()
        """Held while the screencast is started, changed or stopped."""
        self._running: ScreencastParams | None = None
        self._running_on: CDPSession | None = None
        self._maybe_running = False
        """A start was cancelled on its way: the browser may run a screencast or not."""
        self._newest: ScreencastFrame | None = None
        """The last frame of the screencast running now: what the page shows until it
        paints again (a new feed starts with it: an idle page sends no other)."""
        self._subscription: Subscription | None = None
        self._update: asyncio.Task[None] | None = None
        self._seq = 0
        self._quiet = 0
        """Agent actions running now: live views get no frames meanwhile (``quiet``)."""
        self._resume: asyncio.TimerHandle | None = None
        self._ended: TabwardenError | None = None

    # ---- properties -----------------------------------------------------------------

    @property
    def running(self) -> ScreencastParams | None:
        """The parameters the screencast runs with now (None: stopped)."""
        return self._running

    @property
    def frames_received(self) -> int:
        """Frames received since the page's source was made (the last frame's ``seq``)."""
        return self._seq

    @property
    def feeds(self) -> int:
        """How many feeds are open."""
        return len(self._feeds)

    # ---- consumers -------------------------------------------------------------------

    async def watch(
        self,
        params: ScreencastParams | None = None,
        budget: Budget | None = None,
        *,
        adaptive: bool = True,
        on_frame: Callable[[ScreencastFrame], None] | None = None,
    ) -> FrameFeed:
        """Open a feed of this page's frames; the screencast runs (or is changed to serve
        it too) before this returns. ``adaptive`` lowers the feed's quality and size
        while the frames it shows come late (``FrameFeed.shown``); ``on_frame`` is called
        for every frame as it arrives (a recording), on the connection's reader: it must
        not block."""
        if self._ended is not None:
            raise self._ended
        budget = budget if budget is not None else Budget(_UPDATE_S)
        feed = FrameFeed(
            params if params is not None else ScreencastParams(),
            adaptive=adaptive,
            on_frame=on_frame,
            params_changed=self._schedule_update,
            closing=self._feed_closed,
        )
        self._feeds.append(feed)
        try:
            await self._apply(budget)
        except BaseException:
            if feed in self._feeds:
                self._feeds.remove(feed)
            self._schedule_update()  # back to what the other feeds need
            raise
        if self._newest is not None and on_frame is None and not feed.statistics().delivered:
            # A recording starts with what comes next; a live view with what is shown.
            feed.deliver(self._newest)
        return feed

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """While an agent's action runs: when only live views watch, the screencast pauses
        (capturing and encoding frames would compete with the action for the machine)
        and starts again after it, with the page as it is then. Both in the background:
        the stop goes out ahead of the action's input, the action waits for neither. A
        recording keeps every frame, so with one open nothing pauses."""
        if (
            self._running is None
            or self._ended is not None
            or any(feed.keeps_every_frame for feed in self._feeds)
        ):
            yield
            return
        self._quiet += 1
        if self._resume is not None:
            self._resume.cancel()  # the last action's resume had not come yet: still paused
            self._resume = None
        else:
            self._schedule_update()
        try:
            yield
        finally:
            self._quiet -= 1
            if not self._quiet:
                # A moment later: an agent acting again at once (a batch, a form filled
                # field by field) keeps it paused, rather than restarting between steps.
                self._resume = asyncio.get_running_loop().call_later(_RESUME_S, self._resumed)

    def _resumed(self) -> None:
        self._resume = None
        if not self._quiet:
            self._schedule_update()

    async def updated(self, budget: Budget) -> None:
        """Wait until the screencast matches the open feeds (after a close, a change of
        adaptive quality, a new page session)."""
        while self._update is not None and not self._update.done():
            update = self._update
            await budget.run(asyncio.shield(update), what="updating the screencast")

    async def thumbnail(
        self, budget: Budget, *, max_width: int = 320, quality: int = 40
    ) -> Thumbnail:
        """A small JPEG of the page's viewport now (``Page.captureScreenshot`` clipped to
        the visual viewport, scaled to at most ``max_width`` CSS pixels wide); for lists
        of sessions and tabs. Runs no screencast.

        While the screencast runs, its newest frame is the thumbnail, as large as the
        screencast makes it: a scaled capture resizes the viewport the screencast paints
        for a moment, and frames painted then would give the thumbnail's size as the
        viewport's. A capture also holds back a screencast's start until it is done."""
        if max_width < 16:
            raise InvalidArgument(f"max_width must be at least 16 pixels, got {max_width}")
        if not 0 <= quality <= 100:
            raise InvalidArgument(f"quality={quality} is out of range", hint="give 0 to 100")
        async with self._switch:
            newest = self._newest if self._running is not None else None
            if newest is not None:
                data = newest.data
                size = jpeg_size(data) or (int(newest.device_width), int(newest.device_height))
                return Thumbnail(data, *size)
            return await self._capture_thumbnail(budget, max_width, quality)

    async def still(self, budget: Budget, *, quality: int = 60) -> ScreencastFrame:
        """What the page shows now, captured once, as a frame with the viewport's size and
        scroll offsets (for a page that sends no screencast frame: a still page whose
        start frame was lost to a change of its viewport). Runs no screencast."""
        session = await self._ready_session(budget)
        metrics, shot = await asyncio.gather(
            session.send("Page.getLayoutMetrics", budget=budget),
            session.send(
                "Page.captureScreenshot", {"format": "jpeg", "quality": quality}, budget=budget
            ),
        )
        view = metrics.get("cssVisualViewport") or {}
        return ScreencastFrame(
            seq=0,
            encoded=str(shot.get("data", "")),
            arrived=time.monotonic(),
            timestamp=None,
            offset_top=0.0,
            page_scale_factor=float(view.get("scale", 1.0)),
            device_width=float(view.get("clientWidth", 0)),
            device_height=float(view.get("clientHeight", 0)),
            scroll_offset_x=float(view.get("pageX", 0)),
            scroll_offset_y=float(view.get("pageY", 0)),
        )

    async def _capture_thumbnail(self, budget: Budget, max_width: int, quality: int) -> Thumbnail:
        session = await self._ready_session(budget)
        metrics = await session.send("Page.getLayoutMetrics", budget=budget)
        view = metrics.get("cssVisualViewport") or {}
        width = float(view.get("clientWidth", 0))
        height = float(view.get("clientHeight", 0))
        if width <= 0 or height <= 0:
            raise ActionError(
                f"tab {self.tab_id} has an empty viewport ({width:g}x{height:g})",
                hint="give the window a size, or show the tab",
            )
        scale = min(1.0, max_width / width)
        clip = {
            "x": float(view.get("pageX", 0)),
            "y": float(view.get("pageY", 0)),
            "width": width,
            "height": height,
            "scale": scale,
        }
        reply = await session.send(
            "Page.captureScreenshot",
            {"format": "jpeg", "quality": quality, "clip": clip, "optimizeForSpeed": True},
            budget=budget,
        )
        data = base64.b64decode(reply.get("data", ""))
        # The browser rounds the scaled size its own way: the image says what it is.
        size = jpeg_size(data) or (round(width * scale), round(height * scale))
        return Thumbnail(data, *size)

    # ---- the page --------------------------------------------------------------------

    def session_changed(self) -> None:
        """The page's CDP session was replaced (detached and attached again): start the
        screencast on the new one if feeds are open."""
        self._running_on = None
        self._running = None
        self._maybe_running = False
        self._newest = None
        self._drop_subscription()
        if self._feeds:
            self._schedule_update()

    def end(self, error: TabwardenError) -> None:
        """The page went away: every feed ends with ``error``; nothing is sent."""
        self._ended = error
        self._newest = None
        self._drop_subscription()
        self._running = None
        self._running_on = None
        feeds, self._feeds = self._feeds, []
        for feed in feeds:
            feed.end(error)

    # ---- private ---------------------------------------------------------------------

    def _feed_closed(self, feed: FrameFeed) -> None:
        if feed in self._feeds:
            self._feeds.remove(feed)
            self._schedule_update()

    def _schedule_update(self) -> None:
        if self._ended is not None:
            return
        self._update = self._spawn(self._apply_quietly(), f"screencast of tab {self.tab_id}")

    async def _apply_quietly(self) -> None:
        try:
            await self._apply(Budget(_UPDATE_S))
        except TabwardenError as exc:
            logger.debug("updating the screencast of tab %s failed: %s", self.tab_id, exc)

    async def _apply(self, budget: Budget) -> None:
        """Make the screencast what the open feeds need: running with their most
        demanding parameters, or stopped."""
        async with self._switch:
            if self._ended is not None:
                return
            wanted = most_demanding(feed.params for feed in self._feeds)
            if wanted is None or self._quiet:
                await self._stop(budget)
                return
            session = await self._ready_session(budget)
            if session is self._running_on and wanted == self._running:
                return
            if session is not self._running_on:
                self._drop_subscription()
                self._subscription = session.subscribe(
                    "Page.screencastFrame", lambda event: self._on_frame(session, event)
                )
                self._running_on = session
                self._running = None
                self._maybe_running = False
            elif self._running is not None or self._maybe_running:
                # Chromium refuses a second start ("Screencast is already active"): new
                # parameters need a stop first.
                self._running = None
                self._maybe_running = False
                await session.send("Page.stopScreencast", budget=budget)
            try:
                await session.send("Page.startScreencast", wanted.to_cdp(), budget=budget)
            except asyncio.CancelledError:
                # The watcher left (a page closed) while the start was on its way: the
                # browser may have started it. A stop first makes the next start right.
                self._maybe_running = True
                raise
            self._running = wanted

    async def _stop(self, budget: Budget) -> None:
        session, running = self._running_on, self._running is not None or self._maybe_running
        self._newest = None
        self._drop_subscription()
        self._running = None
        self._running_on = None
        self._maybe_running = False
        if session is not None and running:
            with contextlib.suppress(TabwardenError):  # a closed page stopped it already
                await session.send("Page.stopScreencast", budget=budget.child(_STOP_S))

    def _drop_subscription(self) -> None:
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None

    def _on_frame(self, session: CDPSession, event: Event) -> None:
        """Runs on the connection's reader: acknowledge (owned task), then hand out."""
        params = event.params
        ack = params.get("sessionId")
        if ack is not None:
            self._spawn(self._ack(session, int(ack)), f"screencast ack {self.tab_id}")
        encoded = params.get("data")
        if not isinstance(encoded, str) or not encoded:
            return
        self._seq += 1
        frame = ScreencastFrame.from_cdp(
            self._seq, encoded, params.get("metadata") or {}, time.monotonic()
        )
        self._newest = frame
        for feed in list(self._feeds):
            feed.deliver(frame)

    async def _ack(self, session: CDPSession, frame_session: int) -> None:
        with contextlib.suppress(TabwardenError):
            await session.send(
                "Page.screencastFrameAck", {"sessionId": frame_session}, budget=Budget(_ACK_S)
            )
