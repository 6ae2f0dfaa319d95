"""Screenshots: the viewport, the full page, or one element; optionally annotated with refs.

``annotate=True`` draws each interactive element's ref on the page (set-of-marks
style) for the capture, then removes the marks.

An image is bounded: at most :data:`MAX_SIDE_PX` image pixels on a side and
:data:`MAX_AREA_PX` in all. A page within the bounds is captured whole with
``captureBeyondViewport``, which keeps the page's viewport (what is sized in vh keeps
its size) but makes Chromium lay the whole page out again, at 1x1 px and at its full
size, whatever the clip: bounded work on a page within the bounds, not on a huge one
(a 200,000-element page, 680,000 px tall, took 3 to 17 s for a 2,000 px clip, and did
not answer meanwhile; its full-height capture failed). A page over the bounds is
captured in part, from where it is scrolled to (the top when it is not), through a
viewport made as large with ``Emulation.setDeviceMetricsOverride`` (keeping the
session's emulated width, scale and mobile mode; what is sized in vh grows with it),
then given the session's viewport and its scroll position back. An element the
viewport does not show is captured the same way, from its top left. The
:class:`Screenshot` says what it shows (``cut``, ``note()``); how a capture that runs
out of time ends: :class:`Captures`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .actions import pointer
from .actions.resolve import Element
from .budget import Budget
from .diagnostics.emulation import EmulationState, Size, viewport_commands
from .errors import DeadlineExceeded, InvalidArgument, TabwardenError
from .snapshot.model import SnapshotNode
from .snapshot.walker import world
from .tasks import TaskOwner

if TYPE_CHECKING:
    from .cdp.session import CDPSession
    from .page import Page
    from .safety.paths import WorkspacePaths

__all__ = [
    "DRAW_MARKS_JS",
    "FORMATS",
    "MAX_AREA_PX",
    "MAX_SIDE_PX",
    "REMOVE_MARKS_JS",
    "Captures",
    "Region",
    "Screenshot",
    "bounded",
    "capture",
    "check_capture",
    "element_region",
    "marks_of",
    "page_region",
    "save_screenshot",
]

T = TypeVar("T")
Command = tuple[str, dict[str, Any]]
Measure = Callable[[Budget], Awaitable[tuple[dict[str, float], dict[str, Any]]]]
"""Where an element is now: its box (page CSS px) and the page's layout metrics."""

FORMATS = ("png", "jpeg")
MAX_SIDE_PX = 16_384
"""The tallest (and widest) image of a full page or element, in image pixels (CSS px times
the device pixel ratio): the largest texture side GPUs commonly allow, and far more than
an image model reads (vision APIs scale images down to 1,500 to 2,000 px on the long
side). A 1,280 x 16,384 capture takes 0.5 to 4 s."""
MAX_AREA_PX = 2_048 * MAX_SIDE_PX
"""The largest image in pixels (33.6 million: 128 MB of bitmap before encoding), so that a
very wide page, or a high pixel ratio, costs no more than a tall page does."""
_JOB_S = 60.0
"""How long a capture may go on once its call has given up (it finishes within seconds)."""
_RESTORE_S = 5.0
_SCROLL_BACK_S = 1.0
_SCROLL_TO = """(x, y) => {
  const there = () => Math.abs(scrollX - x) < 1 && Math.abs(scrollY - y) < 1;
  if (!there()) scrollTo({left: x, top: y, behavior: 'instant'});
  return there();
}"""
_VIEWPORT_CLIP = {"x": "pageX", "y": "pageY", "width": "clientWidth", "height": "clientHeight"}
_OVERLAY_ID = "__tabwarden_marks__"
_MAX_MARKS = 500

_DRAW_MARKS = """(marks) => {
  const old = document.getElementById(%(id)s);
  if (old) old.remove();
  const layer = document.createElement('div');
  layer.id = %(id)s;
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;' +
    'z-index:2147483647;pointer-events:none;';
  for (const m of marks) {
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:${m.x}px;top:${m.y}px;width:${m.w}px;` +
      `height:${m.h}px;outline:2px solid #e0245e;box-sizing:border-box;`;
    const tag = document.createElement('span');
    tag.textContent = m.ref;
    tag.style.cssText = 'position:absolute;left:-2px;top:-16px;background:#e0245e;' +
      'color:#fff;font:bold 11px/14px monospace;padding:0 3px;border-radius:2px;';
    box.appendChild(tag);
    layer.appendChild(box);
  }
  document.documentElement.appendChild(layer);
  return marks.length;
}"""

_REMOVE_MARKS = "() => { const m = document.getElementById(%(id)s); if (m) m.remove(); }"
DRAW_MARKS_JS = _DRAW_MARKS % {"id": json.dumps(_OVERLAY_ID)}
"""Draws the marks (``[{ref, x, y, w, h}]``, page CSS px) over the page; returns how many."""
REMOVE_MARKS_JS = _REMOVE_MARKS % {"id": json.dumps(_OVERLAY_ID)}


@dataclass(frozen=True)
class Screenshot:
    data: bytes
    format: str
    width: int
    height: int
    """CSS pixels of the captured area."""
    marks: int = 0
    """How many refs were drawn (annotate=True)."""
    path: Path | None = None
    """Where it was saved in the workspace (``save``/``path``), if it was."""
    kind: Literal["viewport", "page", "element"] = "viewport"
    """What was asked for: ``viewport``, ``page`` (full page) or ``element``."""
    left: int = 0
    top: int = 0
    """Where the image starts on the page (CSS px)."""
    full_width: int | None = None
    full_height: int | None = None
    """The page's (or element's) whole size: larger than the image when it was ``cut``."""

    @property
    def cut(self) -> bool:
        """Only part of the page or element is in the image: it was over the bounds."""
        if self.full_width is None or self.full_height is None:
            return False
        return self.width < self.full_width or self.height < self.full_height

    def note(self) -> str:
        """What a cut image shows and how to see the rest; "" when nothing was cut."""
        if not self.cut:
            return ""
        bounds = (
            f"an image stops at {MAX_SIDE_PX:,} px on a side and "
            f"{MAX_AREA_PX / 1e6:.1f} million pixels"
        )
        whole = f"{self.full_width:,} x {self.full_height:,} px"
        if self.kind == "element":
            return (
                f"cut: the element is {whole} and this image shows its top left "
                f"{self.width:,} x {self.height:,} px ({bounds}): capture a smaller element "
                "inside it, or scroll and capture the viewport"
            )
        where = f"y {self.top:,} to {self.top + self.height:,}"
        if self.width < (self.full_width or 0):
            where = f"x {self.left:,} to {self.left + self.width:,}, {where}"
        return (
            f"cut: the page is {whole} and this image shows {where} ({bounds}): scroll "
            "and capture again for the rest, or capture one element by ref"
        )

    def save(self, path: str | Path) -> Path:
        """Write the image to ``path`` (the caller's own choice of place; what an agent
        asks to save goes through :func:`save_screenshot` into the workspace)."""
        target = Path(path)
        target.write_bytes(self.data)
        return target

    def base64(self) -> str:
        return base64.b64encode(self.data).decode()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "width": self.width,
            "height": self.height,
            "bytes": len(self.data),
            "marks": self.marks,
            "path": None if self.path is None else str(self.path),
            "kind": self.kind,
            "left": self.left,
            "top": self.top,
            "full_width": self.full_width,
            "full_height": self.full_height,
            "cut": self.cut,
        }


def save_screenshot(shot: Screenshot, paths: WorkspacePaths, name: str | None) -> Screenshot:
    """Write the image into the workspace's screenshots folder: ``name`` is a file name
    there (or a path inside the workspace); None gives a fresh time-stamped name.
    Never overwrites a file, never writes outside the workspace (``PathNotAllowed``)."""
    jpg = shot.format == "jpeg" and name is not None and name.lower().endswith(".jpg")
    suffix = ".jpg" if jpg else f".{shot.format}"
    target = paths.output_path("screenshots", name, suffix=suffix, stem="screenshot")
    with target.open("xb") as file:
        file.write(shot.data)
    return replace(shot, path=target)


class Captures:
    """One tab's screenshots, taken one at a time, and the viewport they borrow.

    A capture runs as a task of the browser session's, which its call waits for within
    the call's budget. A call that gives up leaves the capture running in the browser: no
    CDP command stops a ``Page.captureScreenshot`` under way (neither clearing the
    viewport override nor ``Page.stopLoading`` shortens it: measured), and when it ends
    Chromium puts back the viewport it started with. So its task sees it to the end and
    then gives the page the session's viewport back; until then the tab's next calls wait
    (:meth:`settled`), so that none sees the borrowed viewport. Captures that overlap get
    each other's frame size and leave the enlarged viewport behind (with
    ``captureBeyondViewport`` on a very tall page, they crashed the browser).
    """

    def __init__(
        self,
        tasks: TaskOwner,
        emulation: Callable[[], EmulationState],
        own_viewport: Size | None,
    ) -> None:
        self._tasks = tasks
        self.emulation = emulation
        """The session's emulation now: the viewport a page gets back."""
        self.own_viewport = own_viewport
        """The session's viewport where the emulation sets none (None: the window's)."""
        self._lock = asyncio.Lock()
        self._running: asyncio.Task[Any] | None = None

    async def settled(self, budget: Budget) -> None:
        """Once no capture of this tab is under way (a given-up one included). Costs
        nothing when none is."""
        running = self._running
        if running is not None and not running.done():
            await budget.run(asyncio.wait({running}), on_timeout=_still_capturing(budget))

    @contextlib.asynccontextmanager
    async def turn(self, budget: Budget) -> AsyncIterator[None]:
        """This tab's turn to capture: no other capture of it runs or starts meanwhile."""
        await budget.run(self._lock.acquire(), on_timeout=_still_capturing(budget))
        try:
            await self.settled(budget)
            yield
        finally:
            self._lock.release()

    async def run(self, job: Coroutine[Any, Any, T], budget: Budget, *, what: str) -> T:
        """Run ``job`` as a task of the session's (which cancels it if it closes first) and
        wait for it within ``budget``; if the call gives up first, the job runs on."""
        task = self._tasks.spawn(job, what)
        task.add_done_callback(_consume)
        self._running = task
        return await budget.run(asyncio.shield(task), on_timeout=_timed_out(what, budget))

    async def restore_viewport(self, session: CDPSession) -> None:
        """Give the page the session's viewport again (its emulated one, its own, or the
        window's) after a capture borrowed one. Its own short budget: this runs after a
        call's budget has run out too."""
        commands = viewport_commands(self.emulation(), self.own_viewport, replacing=True)
        budget = Budget(_RESTORE_S)
        with contextlib.suppress(TabwardenError):  # the tab or browser is gone: nothing to undo
            for method, params in commands:
                await session.send(method, params, budget=budget)


@dataclass(frozen=True)
class Region:
    """What a full-page or element capture shows (CSS px), within the image bounds, and
    how the page is made to show it."""

    width: float
    height: float
    full_width: float
    full_height: float
    """The page's or element's whole size."""
    at: tuple[float, float] | None
    """Where it starts on the page (an element); None: where the viewport then shows the
    page (a full page: from its scroll position, the top when it is not scrolled)."""
    beyond: bool = False
    """Captured with ``captureBeyondViewport``: the page is within the bounds, so laying
    it all out again is bounded work too, and the page keeps its viewport (what is sized in
    vh keeps its size)."""
    viewport: Command | None = None
    """Else the viewport override that shows all of it at once (a page over the bounds)."""
    scroll: bool = False
    """The page must scroll to ``at`` first (part of the element is out of view)."""


def page_region(
    metrics: dict[str, Any], ratio: float, state: EmulationState, own_viewport: Size | None
) -> Region:
    """What a full-page capture shows, from ``Page.getLayoutMetrics`` and the device pixel
    ratio: the whole page when it fits :data:`MAX_SIDE_PX` and :data:`MAX_AREA_PX`, else as
    much as fits, through a viewport (``state``'s, else ``own_viewport``) made as large."""
    layout = metrics["cssLayoutViewport"]
    full_width, full_height = _page_size(metrics)
    width, height = bounded(full_width, full_height, ratio)
    region = Region(width, height, full_width, full_height, None)
    if (width, height) == (full_width, full_height):
        beyond = width > layout["clientWidth"] or height > layout["clientHeight"]
        return replace(region, beyond=beyond)
    return replace(region, viewport=_viewport(width, height, layout, state, own_viewport))


def element_region(
    clip: dict[str, float],
    metrics: dict[str, Any],
    ratio: float,
    state: EmulationState,
    own_viewport: Size | None,
) -> Region:
    """What an element capture shows: all of the element's box (``clip``, page CSS px) when
    it fits the image bounds, else its top left; and how the page shows it when the
    viewport does not (an element taller or wider than the viewport): beyond the viewport
    when the page is within the bounds, else through a taller viewport, never a wider one
    (which would lay the page out anew)."""
    layout = metrics["cssLayoutViewport"]
    x, y, full_width, full_height = clip["x"], clip["y"], clip["width"], clip["height"]
    width, height = bounded(full_width, full_height, ratio)
    region = Region(width, height, full_width, full_height, (x, y))
    if (
        x >= layout["pageX"]
        and y >= layout["pageY"]
        and x + width <= layout["pageX"] + layout["clientWidth"]
        and y + height <= layout["pageY"] + layout["clientHeight"]
    ):
        return region  # in view
    page = _page_size(metrics)
    if bounded(*page, ratio) == page:
        return replace(region, beyond=True)
    width = min(width, layout["clientWidth"])
    viewport = _viewport(width, height, layout, state, own_viewport)
    return replace(region, width=width, viewport=viewport, scroll=True)


def _page_size(metrics: dict[str, Any]) -> tuple[int, int]:
    content = metrics["cssContentSize"]
    return max(1, math.ceil(content["width"])), max(1, math.ceil(content["height"]))


def bounded(width: float, height: float, ratio: float) -> tuple[float, float]:
    """The largest top-left part of ``width`` x ``height`` (CSS px) whose image (``ratio``
    image px per CSS px) is within MAX_SIDE_PX and MAX_AREA_PX."""
    side = max(1, math.floor(MAX_SIDE_PX / ratio))
    width = min(width, side)
    return width, min(height, side, max(1, math.floor(MAX_AREA_PX / (width * ratio * ratio))))


def _viewport(
    width: float,
    height: float,
    layout: dict[str, float],
    state: EmulationState,
    own_viewport: Size | None,
) -> Command | None:
    """The override that makes the viewport at least ``width`` x ``height``, or None."""
    wider = width > layout["clientWidth"]
    taller = height > layout["clientHeight"]
    if not (wider or taller):
        return None
    # The page has the session's viewport now: a side left at 0 keeps it.
    (command,) = viewport_commands(
        state,
        own_viewport,
        width=math.ceil(width) if wider else None,
        height=math.ceil(height) if taller else None,
        replacing=False,
    )
    return command


def check_capture(*, ref: str | None, full_page: bool, format: str, quality: int | None) -> None:
    """Refuse a screenshot's arguments that do not go together (either engine)."""
    if format not in FORMATS:
        raise InvalidArgument(f"format={format!r} is not supported", hint="use 'png' or 'jpeg'")
    if quality is not None and (format != "jpeg" or not 0 <= quality <= 100):
        raise InvalidArgument("quality goes with format='jpeg' and is 0..100")
    if ref is not None and full_page:
        raise InvalidArgument("give either ref or full_page, not both")


async def capture(
    tab: Page,
    captures: Captures,
    budget: Budget,
    *,
    ref: str | None,
    full_page: bool,
    format: str,
    quality: int | None,
    annotate: bool,
) -> Screenshot:
    """Capture as asked; the caller holds the tab's operation (budget, dialog check)."""
    check_capture(ref=ref, full_page=full_page, format=format, quality=quality)
    main = tab.frames.main_session
    params: dict[str, Any] = {"format": format}
    if quality is not None:
        params["quality"] = quality
    async with captures.turn(budget):
        region = measure = None
        if ref is not None:
            # In view, shown and still; what lies over it is part of the picture.
            element, _ = await pointer.locate(
                tab, ref, budget, need_enabled=False, need_topmost=False
            )
            measure = functools.partial(_element_box, tab, element)
            box, metrics = await measure(budget)
            ratio = await _pixel_ratio(tab, budget)
            state = captures.emulation()
            region = element_region(box, metrics, ratio, state, captures.own_viewport)
        else:
            metrics = await main.send("Page.getLayoutMetrics", budget=budget)
            if full_page:
                ratio = await _pixel_ratio(tab, budget)
                state = captures.emulation()
                region = page_region(metrics, ratio, state, captures.own_viewport)
        viewport = metrics["cssVisualViewport"]
        marks = 0
        if annotate:
            # All of a region's marks: its capture may show more than the viewport does.
            marks = await _draw_marks(tab, budget, everywhere=region is not None, viewport=viewport)
        job = _capture_job(tab, captures, params, region, metrics, measure, annotate, budget)
        what = "full-page screenshot" if full_page else "screenshot"
        data, clip = await captures.run(job, budget, what=what)
    if clip is None:  # the viewport
        clip = {k: viewport[v] for k, v in _VIEWPORT_CLIP.items()}
    return Screenshot(
        data=base64.b64decode(data),
        format=format,
        width=round(clip["width"]),
        height=round(clip["height"]),
        marks=marks,
        kind="page" if full_page else "element" if ref is not None else "viewport",
        left=round(clip["x"]),
        top=round(clip["y"]),
        full_width=None if region is None else round(region.full_width),
        full_height=None if region is None else round(region.full_height),
    )


async def _capture_job(
    tab: Page,
    captures: Captures,
    params: dict[str, Any],
    region: Region | None,
    metrics: dict[str, Any],
    measure: Measure | None,
    annotate: bool,
    call: Budget,
) -> tuple[str, dict[str, float] | None]:
    """Take the capture and put the page back as it was; runs to its end even when its
    call gives up. Returns the image (base64) and its clip (None: the viewport)."""
    main = tab.frames.main_session
    budget = Budget(_JOB_S)
    try:
        async with _showing(tab, captures, region, metrics, measure, call, budget) as clip:
            if clip is not None:
                params = {**params, "clip": {**clip, "scale": 1}}
            if region is not None and region.beyond:
                params = {**params, "captureBeyondViewport": True}
            call.check("the screenshot")  # given up already: nothing to capture for
            reply = await main.send("Page.captureScreenshot", params, budget=budget)
        return reply["data"], clip
    finally:
        if annotate:
            with contextlib.suppress(TabwardenError):
                await _evaluate(tab, REMOVE_MARKS_JS, None, Budget(_RESTORE_S))


@contextlib.asynccontextmanager
async def _showing(
    tab: Page,
    captures: Captures,
    region: Region | None,
    metrics: dict[str, Any],
    measure: Measure | None,
    call: Budget,
    budget: Budget,
) -> AsyncIterator[dict[str, float] | None]:
    """The viewport made to show all of ``region`` (as large, scrolled to it), and given
    back after, scroll position included. Yields the clip to capture (page CSS px), None
    for the viewport."""
    layout: dict[str, float] = metrics["cssLayoutViewport"]
    if region is None or not (region.viewport or region.scroll):
        yield None if region is None else _clip(region, layout)
        return
    main = tab.frames.main_session
    try:
        if region.viewport is not None:
            method, override = region.viewport
            await main.send(method, override, budget=budget)
        call.check("the screenshot")
        if measure is not None:
            # Where the element is now (a taller viewport moves what is sized in vh),
            # scrolled to its top left.
            box, _ = await measure(budget)
            await _scroll_to(tab, box["x"], box["y"], budget)
            shown = await main.send("Page.getLayoutMetrics", budget=budget)
            yield _clip(replace(region, at=(box["x"], box["y"])), shown["cssLayoutViewport"])
        else:
            # A taller viewport scrolls the page back as far as it needs to (all the way
            # up when the whole page fits): the page shows what the viewport holds now.
            shown = await main.send("Page.getLayoutMetrics", budget=budget)
            yield _clip(region, shown["cssLayoutViewport"])
    finally:
        if region.viewport is not None:
            await captures.restore_viewport(main)
        await _scroll_back(tab, layout["pageX"], layout["pageY"])


def _clip(region: Region, layout: dict[str, float]) -> dict[str, float]:
    """The part of the page to capture: ``region`` where the viewport (``layout``) shows
    it, within what it shows."""
    if region.at is None:  # a full page: all of it, or from where it is scrolled to
        x = layout["pageX"] if region.width < region.full_width else 0
        y = layout["pageY"] if region.height < region.full_height else 0
        return {"x": x, "y": y, "width": region.width, "height": region.height}
    x, y = region.at
    if region.beyond:
        return {"x": x, "y": y, "width": region.width, "height": region.height}
    right = layout["pageX"] + layout["clientWidth"]
    bottom = layout["pageY"] + layout["clientHeight"]
    width = min(region.width, max(1, right - x))
    height = min(region.height, max(1, bottom - y))
    return {"x": x, "y": y, "width": width, "height": height}


async def _scroll_to(tab: Page, x: float, y: float, budget: Budget) -> bool:
    """Scroll the page to ``x``, ``y`` (as far as it goes) from tabwarden's own world;
    True when it is there."""
    context = await world(tab.frames, tab.target_id, budget)
    reply = await tab.frames.main_session.send(
        "Runtime.evaluate",
        {"expression": f"({_SCROLL_TO})({x}, {y})", "contextId": context, "returnByValue": True},
        budget=budget,
    )
    return reply.get("result", {}).get("value") is not False


async def _scroll_back(tab: Page, x: float, y: float) -> None:
    """Scroll the page back to where it was: a viewport made smaller again keeps the scroll
    position the larger one forced. Retried briefly, until the page has its own viewport
    again (the override's reply may come before that)."""
    budget = Budget(_SCROLL_BACK_S)
    with contextlib.suppress(TabwardenError):
        while not await _scroll_to(tab, x, y, budget) and not budget.expired:
            await budget.sleep(0.02)


async def _pixel_ratio(tab: Page, budget: Budget) -> float:
    """Image pixels per CSS pixel (the emulated or real scale, times the browser zoom),
    read in tabwarden's own world, where a page cannot redefine it."""
    context = await world(tab.frames, tab.target_id, budget)
    reply = await tab.frames.main_session.send(
        "Runtime.evaluate",
        {"expression": "devicePixelRatio", "contextId": context, "returnByValue": True},
        budget=budget,
    )
    value = reply.get("result", {}).get("value")
    return float(value) if isinstance(value, int | float) and value > 0 else 1.0


def _still_capturing(budget: Budget) -> Callable[[], BaseException]:
    return lambda: DeadlineExceeded(
        "this tab's previous screenshot was still being taken after "
        f"{budget.timeout_s * 1000:.0f} ms",
        hint="a capture the browser has begun cannot be stopped, and it ends within seconds: "
        "retry in a moment",
    )


def _timed_out(what: str, budget: Budget) -> Callable[[], BaseException]:
    return lambda: DeadlineExceeded(
        f"the {what} did not finish within {budget.timeout_s * 1000:.0f} ms",
        hint="the tab stays usable; retry with a larger timeout_ms, or capture less: the "
        "viewport, or one element by ref",
    )


def _consume(task: asyncio.Task[Any]) -> None:
    # A capture whose call gave up ends unobserved: its outcome is nobody's to raise.
    if not task.cancelled():
        task.exception()


async def _element_box(
    tab: Page, element: Element, budget: Budget
) -> tuple[dict[str, float], dict[str, Any]]:
    """The element's border box in page CSS px, and the page's layout metrics."""
    box = await element.session.send(
        "DOM.getBoxModel", {"backendNodeId": element.backend_node_id}, budget=budget
    )
    quad = box["model"]["border"]
    dx, dy = await pointer.frame_offset(tab, element.frame_id, budget)
    metrics = await tab.frames.main_session.send("Page.getLayoutMetrics", budget=budget)
    page = metrics["cssVisualViewport"]
    xs, ys = quad[0::2], quad[1::2]
    clip = {
        "x": min(xs) + dx + page["pageX"],
        "y": min(ys) + dy + page["pageY"],
        "width": max(xs) - min(xs),
        "height": max(ys) - min(ys),
    }
    return clip, metrics


async def _draw_marks(
    tab: Page, budget: Budget, *, everywhere: bool, viewport: dict[str, float]
) -> int:
    snapshot = await tab.read_view(budget.child(10.0))
    top, bottom = viewport["pageY"], viewport["pageY"] + viewport["clientHeight"]
    marks = marks_of(snapshot.root, None if everywhere else (top, bottom))
    drawn = await _evaluate(tab, DRAW_MARKS_JS, marks, budget)
    return int(drawn or 0)


def marks_of(root: SnapshotNode, rows: tuple[float, float] | None) -> list[dict[str, Any]]:
    """The ref marks to draw for a view's interactive elements (page CSS px): those
    between the ``rows`` (top, bottom) when given, at most ``_MAX_MARKS``."""
    marks = []
    for node in root.walk():
        if not _markable(node):
            continue
        assert node.bounds is not None
        box = node.bounds
        if rows is not None and (box.y + box.height < rows[0] or box.y > rows[1]):
            continue
        marks.append({"ref": node.ref, "x": box.x, "y": box.y, "w": box.width, "h": box.height})
    return marks[:_MAX_MARKS]


def _markable(node: SnapshotNode) -> bool:
    return bool(node.ref) and node.interactive and node.bounds is not None


async def _evaluate(tab: Page, function: str, argument: Any, budget: Budget) -> Any:
    expression = f"({function})({json.dumps(argument)})"
    reply = await tab.frames.main_session.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, budget=budget
    )
    return reply.get("result", {}).get("value")
