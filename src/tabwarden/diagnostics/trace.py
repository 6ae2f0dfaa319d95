"""Performance traces: ``Tracing.start`` on the browser, then a JSON trace file that
Chrome DevTools (Performance panel) and Perfetto open.

One trace at a time per session. ``Tracing.end`` is answered by
``Tracing.tracingComplete{stream}``; the stream is read with ``IO.read`` straight
into ``traces/`` in the workspace's output folder.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..budget import Budget
from ..cdp.connection import CDPConnection
from ..cdp.session import CDPSession
from ..counting import counted
from ..errors import ActionError, CDPError, InvalidArgument, TabwardenError
from ..report_text import ReportText
from ..safety.paths import WorkspacePaths
from .streams import save_stream

__all__ = ["DEFAULT_CATEGORIES", "TraceFile", "TraceRecorder", "TraceStarted"]

logger = logging.getLogger("tabwarden.trace")
_SAVE_ON_CLOSE_S = 30.0

DEFAULT_CATEGORIES = (
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.stack",
    "disabled-by-default-v8.cpu_profiler",
    "v8.execute",
    "blink.console",
    "blink.user_timing",
    "latencyInfo",
    "loading",
    "toplevel",
)
"""What the DevTools Performance panel records: main-thread tasks, layout and paint,
frames, JavaScript samples, console and user timing marks, loading."""

SCREENSHOT_CATEGORY = "disabled-by-default-devtools.screenshot"
_CATEGORY = re.compile(r"^-?[\w.\-:*]+$")
_COUNT_EVENTS_UP_TO = 256 * 1024 * 1024


@dataclass(frozen=True)
class TraceStarted:
    categories: tuple[str, ...]
    screenshots: bool

    @property
    def text(self) -> ReportText:
        shots = " with screenshots" if self.screenshots else ""
        return ReportText(
            f"tracing started{shots} ({counted(len(self.categories), 'category', 'categories')}); "
            "do what should be measured, then call trace_stop"
        )

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {"categories": list(self.categories), "screenshots": self.screenshots}


@dataclass(frozen=True)
class TraceFile:
    path: Path
    bytes: int
    events: int | None
    """Trace events in the file; None when too large to count cheaply."""
    duration_ms: int
    data_loss: bool
    """The browser's trace buffer filled up and dropped events."""

    @property
    def text(self) -> ReportText:
        events = "" if self.events is None else f", {counted(self.events, 'event')}"
        lines = [
            f"trace of {self.duration_ms:,} ms saved to {self.path} ({self.bytes:,} bytes"
            f"{events}); open it in Chrome DevTools (Performance panel) or Perfetto "
            "(ui.perfetto.dev)"
        ]
        if self.data_loss:
            lines.append("the browser's trace buffer filled up: some events were dropped")
        return ReportText("\n".join(lines))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "bytes": self.bytes,
            "events": self.events,
            "duration_ms": self.duration_ms,
            "data_loss": self.data_loss,
        }


@dataclass
class _Run:
    connection: CDPConnection
    started: float
    settings: TraceStarted


class TraceRecorder:
    """The one trace a session may be recording."""

    def __init__(self) -> None:
        self._run: _Run | None = None

    @property
    def active(self) -> bool:
        return self._run is not None

    async def start(
        self,
        browser: CDPSession,
        budget: Budget,
        *,
        categories: list[str] | None = None,
        screenshots: bool = False,
    ) -> TraceStarted:
        if self._run is not None:
            if self._run.connection is browser.connection and not browser.connection.closed:
                raise ActionError(
                    "a trace is already being recorded in this session",
                    hint="stop it first with trace_stop (one trace at a time)",
                )
            self._run = None  # the browser that recorded it went away, and the trace with it
        chosen = _check_categories(categories)
        if screenshots and SCREENSHOT_CATEGORY not in chosen:
            chosen = (*chosen, SCREENSHOT_CATEGORY)
        params = {
            "traceConfig": {"recordMode": "recordUntilFull", "includedCategories": list(chosen)},
            "transferMode": "ReturnAsStream",
            "streamFormat": "json",
            "streamCompression": "none",
        }
        try:
            await browser.send("Tracing.start", params, budget=budget)
        except CDPError as exc:
            raise ActionError(
                f"the browser refused to start tracing: {exc.cdp_message}",
                hint="another client may be tracing this browser; stop that trace first",
            ) from None
        settings = TraceStarted(chosen, screenshots)
        self._run = _Run(browser.connection, time.monotonic(), settings)
        return settings

    async def save_if_running(self, browser: CDPSession, paths: WorkspacePaths, name: str) -> None:
        """Save a trace still running when session ``name`` closes (logged, never raised)."""
        if not self.active or browser.connection.closed:
            return
        try:
            trace = await self.stop(browser, paths, None, Budget(_SAVE_ON_CLOSE_S))
            logger.warning("session %r closed mid-trace: saved to %s", name, trace.path)
        except (TabwardenError, OSError) as exc:
            logger.warning("session %r closed mid-trace; saving it failed: %s", name, exc)

    async def stop(
        self, browser: CDPSession, paths: WorkspacePaths, path: str | None, budget: Budget
    ) -> TraceFile:
        run = self._run
        if run is None:
            raise ActionError(
                "no trace is being recorded in this session",
                hint="start one with trace_start, do what should be measured, then stop it",
            )
        if run.connection is not browser.connection or browser.connection.closed:
            self._run = None
            raise ActionError(
                "the trace was lost: the browser went away while it was being recorded",
                hint="start a new trace with trace_start",
            )
        target = paths.output_path("traces", path, suffix=".json", stem="trace")
        with browser.event_queue(["Tracing.tracingComplete"]) as complete:
            await browser.send("Tracing.end", budget=budget)
            self._run = None  # the browser stopped recording: whatever happens next
            event = await complete.get(budget, what="waiting for the trace data")
        duration_ms = int((time.monotonic() - run.started) * 1000)
        handle = event.params.get("stream")
        if not handle:
            raise ActionError(
                "the browser ended the trace without its data", hint="start a new trace"
            )
        size = await save_stream(browser, handle, target, budget)
        return TraceFile(
            target,
            size,
            _count_events(target, size),
            duration_ms,
            bool(event.params.get("dataLossOccurred")),
        )


def _check_categories(categories: list[str] | None) -> tuple[str, ...]:
    if categories is None:
        return DEFAULT_CATEGORIES
    if isinstance(categories, str) or not categories:
        raise InvalidArgument(
            "categories must be a non-empty list of trace categories",
            hint='e.g. ["devtools.timeline", "v8.execute"]; leave it out for the defaults',
        )
    for category in categories:
        if not isinstance(category, str) or not _CATEGORY.match(category):
            raise InvalidArgument(
                f"{category!r} is not a trace category",
                hint="names like devtools.timeline or disabled-by-default-v8.cpu_profiler",
            )
    return tuple(categories)


def _count_events(path: Path, size: int) -> int | None:
    """Each trace event has one ``"ph":`` (its phase) in Chromium's compact JSON."""
    if size > _COUNT_EVENTS_UP_TO:
        return None
    return path.read_bytes().count(b'"ph":')
