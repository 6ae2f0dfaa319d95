"""File tools: downloads, PDFs, traces and recordings (group files).

Every file is written into the workspace's output folder; results say where, how
large, and anything flagged (an executable download).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..engines import ENGINES
from .context import ToolContext
from .spec import Params, ToolResult, ToolSpec

__all__ = ["TOOLS"]

TabId = Field(None, description="Tab id (t2); default: the active tab")
Timeout = Field(None, gt=0, le=600_000, description="Deadline for the whole call, in ms")
OutPath = Field(
    None,
    description="File name (saved in the workspace's output folder) or a path inside the "
    "workspace; default: a time-stamped name",
)


# ---- downloads ------------------------------------------------------------------------


class DownloadsParams(Params):
    wait: bool = Field(
        False, description="Wait until the downloads in progress finish (within timeout_ms)"
    )
    guid: str | None = Field(None, description="With wait: only this download")
    timeout_ms: float | None = Timeout


async def downloads(ctx: ToolContext, p: DownloadsParams) -> ToolResult:
    session = await ctx.session()
    listing = await session.downloads(wait=p.wait, guid=p.guid, timeout_ms=p.timeout_ms)
    # File names and URLs come from pages.
    return ToolResult(listing.text, listing.to_dict(), untrusted=True)


# ---- PDF ------------------------------------------------------------------------------


class SavePdfParams(Params):
    path: str | None = OutPath
    landscape: bool = False
    print_background: bool = Field(True, description="Print background colours and images")
    scale: float = Field(1.0, ge=0.1, le=2.0)
    paper_format: Literal[
        "Letter", "Legal", "Tabloid", "Ledger", "A0", "A1", "A2", "A3", "A4", "A5", "A6"
    ] = "Letter"
    page_ranges: str | None = Field(None, description="Pages to print, e.g. '1-3, 5'")
    margins: str | None = Field(
        None, description="CSS-like: '1cm', '10mm 5mm' or '1in 0.5in 1in 0.5in'"
    )
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def save_pdf(ctx: ToolContext, p: SavePdfParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    pdf = await tab.save_pdf(
        p.path,
        landscape=p.landscape,
        print_background=p.print_background,
        scale=p.scale,
        paper_format=p.paper_format,
        page_ranges=p.page_ranges,
        margins=p.margins,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(f"tab {tab.id}: {pdf.text}", {"tab_id": tab.id, **pdf.to_dict()})


# ---- traces ---------------------------------------------------------------------------


class TraceStartParams(Params):
    categories: list[str] | None = Field(
        None, description="Trace categories; default: those of the DevTools Performance panel"
    )
    screenshots: bool = Field(False, description="Also record a filmstrip of screenshots")
    timeout_ms: float | None = Timeout


async def trace_start(ctx: ToolContext, p: TraceStartParams) -> ToolResult:
    session = await ctx.session()
    started = await session.trace_start(
        categories=p.categories, screenshots=p.screenshots, timeout_ms=p.timeout_ms
    )
    return ToolResult(started.text, started.to_dict())


class TraceStopParams(Params):
    path: str | None = OutPath
    timeout_ms: float | None = Timeout


async def trace_stop(ctx: ToolContext, p: TraceStopParams) -> ToolResult:
    session = await ctx.session()
    trace = await session.trace_stop(p.path, timeout_ms=p.timeout_ms)
    return ToolResult(trace.text, trace.to_dict())


# ---- recording ------------------------------------------------------------------------


class RecordStartParams(Params):
    quality: int = Field(70, ge=0, le=100, description="JPEG quality of the frames")
    max_width: int | None = Field(None, ge=16, description="Scale frames down to this width")
    max_height: int | None = Field(None, ge=16, description="Scale frames down to this height")
    every_nth_frame: int = Field(1, ge=1, le=60, description="Keep one frame in this many")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def record_start(ctx: ToolContext, p: RecordStartParams) -> ToolResult:
    tab = await ctx.tab(p.tab_id)
    started = await tab.record_start(
        quality=p.quality,
        max_width=p.max_width,
        max_height=p.max_height,
        every_nth_frame=p.every_nth_frame,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(started.text, started.to_dict())


class RecordStopParams(Params):
    path: str | None = OutPath
    format: Literal["auto", "webm", "html"] = Field(
        "auto", description="auto: WebM when ffmpeg is available, else an HTML player"
    )
    tab_id: str | None = Field(
        None, description="The recorded tab (t2); default: the only recording, else the active tab"
    )
    timeout_ms: float | None = Timeout


async def record_stop(ctx: ToolContext, p: RecordStopParams) -> ToolResult:
    session = await ctx.session()
    saved = await session.record_stop(p.tab_id, p.path, format=p.format, timeout_ms=p.timeout_ms)
    return ToolResult(saved.text, saved.to_dict())


TOOLS: list[ToolSpec] = [
    ToolSpec(
        "browser_downloads",
        "files",
        "List downloads (saved into the workspace): state, size, path; executables are "
        "flagged and never opened. wait=true waits for those in progress.",
        DownloadsParams,
        downloads,
        read_only=True,
    ),
    ToolSpec(
        "browser_save_pdf",
        "files",
        "Save the page as a PDF in the workspace (paper format, landscape, margins, pages).",
        SavePdfParams,
        save_pdf,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_trace_start",
        "files",
        "Start a performance trace of the browser (DevTools Performance categories).",
        TraceStartParams,
        trace_start,
    ),
    ToolSpec(
        "browser_trace_stop",
        "files",
        "Stop the trace and save it as JSON in the workspace (DevTools/Perfetto open it).",
        TraceStopParams,
        trace_stop,
    ),
    ToolSpec(
        "browser_record_start",
        "files",
        "Start recording a tab's screen (frames as the page repaints).",
        RecordStartParams,
        record_start,
    ),
    ToolSpec(
        "browser_record_stop",
        "files",
        "Stop recording and save it in the workspace: WebM with ffmpeg, else an HTML player.",
        RecordStopParams,
        record_stop,
    ),
]
