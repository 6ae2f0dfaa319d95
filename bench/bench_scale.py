"""Figures for many agents at once: concurrent sessions in each isolation mode, and on
a local Selenium Grid.

Run from the project root (nothing leaves 127.0.0.1)::

    .venv/bin/python bench/bench_scale.py                      # 20 sessions per mode
    .venv/bin/python bench/bench_scale.py --sessions 50 --modes context
    .venv/bin/python bench/bench_scale.py --modes process,context,grid --grid-slots 20

Each agent session: launch (or start a context, or a Grid session), open a local page,
take a snapshot, click a button ``--clicks`` times (each click checked by the page's
counter at the end), evaluate an expression, close. All sessions of a mode start
together; the clicks begin once every session has its page, so click latency is that
of all sessions working at once, not of clicks beside other sessions' browser starts.
For each mode it prints:

* throughput: tool calls per second over the whole run, and sessions per minute;
* click latency, p50 and p95 over every click of every session;
* time to first page (launch to the page loaded), p50 and p95;
* memory per session by PSS, sampled while every session has its page open: what this
  Python process grew by, and the browsers (each launched browser's process tree; for the Grid,
  its Chromiums and chromedrivers); PSS splits shared pages, so sums are fair;
* errors, by type;
* in context mode, the time to open a tab alone and beside the other sessions, each
  idle with a page of its own.

The Grid mode needs Java 17, chromium-driver and the Selenium jar (``bash
scripts/test.sh`` installs them); it starts a standalone Grid with ``--grid-slots`` slots.
This is a measurement script, not a test: it exits 0 unless something breaks or a
browser it started is left running, whatever the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import http.server
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from leftovers import children_now, report_leftovers
from memory import pss_mb, tree

import tabwarden

ROOT = Path(__file__).resolve().parent.parent
CLICK_P95_GOAL_MS = 1000.0

PAGE = """<!doctype html>
<html><head><title>Scale bench</title></head>
<body>
<h1>Orders</h1>
<nav>{links}</nav>
<main>
<p>Clicks: <output id="count">0</output></p>
<button id="count-button" onclick="count.value = +count.value + 1">Count</button>
<table>{rows}</table>
</main>
</body></html>
"""


def _page() -> bytes:
    links = "".join(f'<a href="#s{i}">Section {i}</a> ' for i in range(20))
    rows = "".join(
        f"<tr><td>Order {i}</td><td>{i * 7 % 13} items</td><td><a href='#o{i}'>open</a></td></tr>"
        for i in range(60)
    )
    return PAGE.format(links=links, rows=rows).encode()


class _Site:
    """The bench page on 127.0.0.1 from a thread."""

    def __init__(self) -> None:
        body = _page()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/orders.html"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class AgentRun:
    first_page_ms: float | None = None
    clicks_ms: list[float] = field(default_factory=list)
    calls: int = 0
    error: str | None = None


@dataclass
class ModeResult:
    mode: str
    sessions: int
    wall_s: float
    runs: list[AgentRun]
    python_pss_mb: float
    browser_pss_mb: float
    browsers: int
    python_cpu_s: float

    def print(self) -> None:
        clicks = [ms for run in self.runs for ms in run.clicks_ms]
        firsts = [run.first_page_ms for run in self.runs if run.first_page_ms is not None]
        calls = sum(run.calls for run in self.runs)
        errors = Counter(run.error.split(":", 1)[0] for run in self.runs if run.error)
        done = sum(1 for run in self.runs if run.error is None)
        print(f"\n{self.mode}: {self.sessions} concurrent sessions, {self.wall_s:.1f} s")
        print(
            f"  throughput            {calls / self.wall_s:8.1f} calls/s, "
            f"{done / self.wall_s * 60:6.1f} sessions/min"
        )
        if clicks:
            p50, p95 = _p50_p95(clicks)
            goal = "ok" if p95 <= CLICK_P95_GOAL_MS else "OVER GOAL"
            print(
                f"  click                 p50 {p50:8.1f} ms   p95 {p95:8.1f} ms   "
                f"n={len(clicks)}  [goal p95 <= {CLICK_P95_GOAL_MS:.0f} ms: {goal}]"
            )
        if firsts:
            p50, p95 = _p50_p95(firsts)
            print(f"  time to first page    p50 {p50:8.1f} ms   p95 {p95:8.1f} ms")
        per = self.sessions or 1
        python_mb = max(0.0, self.python_pss_mb) / per  # below zero: the collector's noise
        print(
            f"  memory per session    Python {python_mb:6.2f} MB + browser "
            f"{self.browser_pss_mb / per:6.1f} MB PSS  ({self.browsers} browser process "
            f"tree(s): {self.browser_pss_mb:,.0f} MB in all)"
        )
        print(
            f"  this Python process   {self.python_cpu_s:8.1f} s of CPU "
            f"({self.python_cpu_s / self.wall_s:.2f} of a core over the run)"
        )
        print(
            f"  errors                {sum(errors.values())}"
            + (f"  {dict(errors)}" if errors else "")
        )


def _p50_p95(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    return statistics.median(values), statistics.quantiles(values, n=20, method="inclusive")[18]


# ---- memory ------------------------------------------------------------------------------


def _browser_processes(
    sessions: list[tabwarden.BrowserSession], extra_root: int | None
) -> tuple[list[psutil.Process], int]:
    """Every browser process of the sessions (each pid once: context sessions share one),
    and how many process trees that is."""
    found: dict[int, psutil.Process] = {}
    roots = {s.endpoint.pid for s in sessions if s.endpoint is not None and s.endpoint.pid}
    for pid in roots:
        for proc in tree(pid):
            found[proc.pid] = proc
    if extra_root is not None:  # the Grid: its Chromiums and chromedrivers, not Java
        for proc in tree(extra_root)[1:]:
            with contextlib.suppress(psutil.NoSuchProcess):
                if "java" not in proc.name().lower():
                    found[proc.pid] = proc
        roots = {p.pid for p in found.values() if "chromedriver" in _name(p)}
    return list(found.values()), len(roots)


def _name(proc: psutil.Process) -> str:
    try:
        return proc.name().lower()
    except psutil.NoSuchProcess:
        return ""


# ---- one agent ---------------------------------------------------------------------------

_COUNT_REF = re.compile(r'button "Count"[^\n]*?\[ref=([^\]]+)\]')


class _Phases:
    """Points every agent reaches before any goes on (a failed agent arrives at once)."""

    def __init__(self, parties: int) -> None:
        self.parties = parties
        self._arrived: Counter[str] = Counter()
        self._all: dict[str, asyncio.Event] = {}

    def _event(self, phase: str) -> asyncio.Event:
        return self._all.setdefault(phase, asyncio.Event())

    def arrive(self, phase: str) -> None:
        self._arrived[phase] += 1
        if self._arrived[phase] >= self.parties:
            self._event(phase).set()

    async def all_at(self, phase: str) -> None:
        await self._event(phase).wait()

    def open(self, phase: str) -> None:
        self._event(phase).set()


async def _agent(
    start: Callable[[], Any],
    url: str,
    clicks: int,
    run: AgentRun,
    opened: list[tabwarden.BrowserSession],
    phases: _Phases,
    think_s: float,
) -> None:
    started = time.perf_counter()
    browser: tabwarden.BrowserSession | None = None
    left = ["open", "done"]
    try:
        browser = await start()
        opened.append(browser)
        tab = await browser.new_tab(url)
        run.first_page_ms = (time.perf_counter() - started) * 1000
        run.calls += 1
        phases.arrive(left.pop(0))
        snapshot = await tab.snapshot()
        run.calls += 1
        found = _COUNT_REF.search(snapshot.text)
        if found is None:
            raise RuntimeError("no Count button in the snapshot")
        ref = found.group(1)
        # The clicks begin once every session has its page: click latency is measured
        # with all sessions working, not beside a storm of browser starts (which time to
        # first page measures).
        await phases.all_at("open")
        for _ in range(clicks):
            if think_s:
                # An agent's model thinking between calls, for as long as models do: half
                # to one and a half times the mean, so agents do not act in lockstep.
                await asyncio.sleep(think_s * random.uniform(0.5, 1.5))
            began = time.perf_counter()
            await tab.click(ref)
            run.clicks_ms.append((time.perf_counter() - began) * 1000)
            run.calls += 1
        counted = (await tab.evaluate("+document.getElementById('count').value")).value
        run.calls += 1
        if counted != clicks:
            raise RuntimeError(f"the page counted {counted} clicks of {clicks}")
        phases.arrive(left.pop(0))
        # Memory is read with every session open and none working; then they close.
        await phases.all_at("measured")
    except Exception as exc:
        run.error = f"{type(exc).__name__}: {exc}"
        for phase in left:
            phases.arrive(phase)
    finally:
        if browser is not None:
            with contextlib.suppress(Exception):
                await browser.close()


async def run_mode(
    mode: str,
    sessions: int,
    clicks: int,
    url: str,
    grid: Any | None = None,
    think_s: float = 0.0,
) -> ModeResult:
    def start() -> Any:
        if mode == "grid":
            config = tabwarden.load_config()
            config.browser.grid.url = grid.url
            config.browser.grid.max_sessions = max(config.browser.grid.max_sessions, sessions)
            return tabwarden.launch(backend="grid", config=config)
        if mode == "context":
            return tabwarden.launch(isolated=True, isolation="context")
        return tabwarden.launch(isolated=True)

    runs = [AgentRun() for _ in range(sessions)]
    opened: list[tabwarden.BrowserSession] = []
    phases = _Phases(sessions)
    measured: dict[str, Any] = {}
    gc.collect()
    python_before = pss_mb([psutil.Process()])

    async def measure() -> None:
        await phases.all_at("done")
        began = time.perf_counter()
        gc.collect()
        processes, trees = _browser_processes(
            [s for s in opened if not s.closed], grid.process.pid if grid is not None else None
        )
        measured.update(
            python=pss_mb([psutil.Process()]) - python_before,
            browser=pss_mb(processes),
            trees=trees,
            took_s=time.perf_counter() - began,
        )
        phases.open("measured")

    cpu_before = sum(psutil.Process().cpu_times()[:2])
    began = time.perf_counter()
    meter = asyncio.create_task(measure())
    await asyncio.gather(
        *(_agent(start, url, clicks, run, opened, phases, think_s) for run in runs)
    )
    await meter
    # The run's time, less the pause in which memory was read.
    wall = time.perf_counter() - began - measured.get("took_s", 0.0)
    python_cpu_s = sum(psutil.Process().cpu_times()[:2]) - cpu_before
    return ModeResult(
        mode=mode if mode != "grid" else f"grid ({grid.max_sessions} slots)",
        sessions=sessions,
        wall_s=wall,
        runs=runs,
        python_pss_mb=measured.get("python", 0.0),
        browser_pss_mb=measured.get("browser", 0.0),
        browsers=measured.get("trees", 0),
        python_cpu_s=python_cpu_s,
    )


async def new_tab_beside(idle: int, url: str, tries: int = 9) -> None:
    """Context mode: the median time to open a tab, alone and beside ``idle`` sessions
    that each hold a page of their own (every session's connection hears of every new
    page of the shared browser, and lets go of those not its own)."""

    async def median_new_tab(session: tabwarden.BrowserSession) -> float:
        took = []
        for _ in range(tries):
            began = time.perf_counter()
            tab = await session.new_tab(url)
            took.append((time.perf_counter() - began) * 1000)
            await tab.close()
        return statistics.median(took)

    async def open_session() -> tabwarden.BrowserSession:
        session = await tabwarden.launch(isolated=True, isolation="context")
        await session.new_tab(url)
        return session

    sessions = [await open_session()]
    try:
        alone = await median_new_tab(sessions[0])
        sessions += await asyncio.gather(*(open_session() for _ in range(idle)))
        beside = await median_new_tab(sessions[0])
    finally:
        await asyncio.gather(*(s.close() for s in sessions))
    print(
        f"context: new tab (open + load, then close), median of {tries}: alone {alone:.0f} ms, "
        f"beside {idle} idle sessions {beside:.0f} ms ({beside / alone:.2f}x)"
    )


@contextlib.contextmanager
def _grid(slots: int) -> Iterator[Any]:
    sys.path.insert(0, str(ROOT))
    from tests.grid_server import GridServer  # the tests' real Grid, started the same way

    with tempfile.TemporaryDirectory(prefix="tw-bench-grid-") as folder:
        server = GridServer(Path(folder), max_sessions=slots, session_request_timeout_s=120)
        server.start()
        try:
            yield server
        finally:
            server.stop()


async def main(args: argparse.Namespace) -> int:
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = set(modes) - {"process", "context", "grid"}
    if unknown:
        print(f"unknown mode(s) {sorted(unknown)}: give process, context or grid")
        return 2
    before = children_now()
    site = _Site()
    print(
        f"tabwarden {tabwarden.__version__} scale bench — {args.sessions} sessions per mode, "
        f"{args.clicks} clicks each, {args.think_ms:g} ms before each click, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"{psutil.virtual_memory().total / 2**30:.0f} GB"
    )
    try:
        for mode in modes:
            if mode == "grid":
                with _grid(args.grid_slots or args.sessions) as grid:
                    result = await run_mode(
                        mode, args.sessions, args.clicks, site.url, grid, args.think_ms / 1000
                    )
            else:
                result = await run_mode(
                    mode, args.sessions, args.clicks, site.url, None, args.think_ms / 1000
                )
            result.print()
            if mode == "context":
                await new_tab_beside(args.sessions - 1, site.url)
    finally:
        site.close()
    return report_leftovers(before)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=20, help="concurrent sessions per mode")
    parser.add_argument("--clicks", type=int, default=20, help="clicks per session")
    parser.add_argument(
        "--modes", default="process,context,grid", help="process, context and/or grid"
    )
    parser.add_argument(
        "--grid-slots", type=int, default=0, help="the Grid's slots (default: --sessions)"
    )
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="each agent's mean pause before each click, as a model's thinking (0: back to back)",
    )
    sys.exit(asyncio.run(main(parser.parse_args())))
