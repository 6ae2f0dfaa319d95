"""Figures for the workbench: how late the live view is, what a viewer costs, and whether
it slows the agent.

Run from the project root (nothing leaves 127.0.0.1)::

    .venv/bin/python bench/bench_workbench.py            # full runs
    .venv/bin/python bench/bench_workbench.py --quick    # fewer runs, a rough look

An agent session works on a local page while a second, headless Chromium opens the real
workbench page and watches it, as a person would:

- live-view latency: the agent changes the page's colour; the time until the viewer's
  page has drawn a frame of that colour (the page's own clock, read in the page);
- CPU of one viewer: the agent's side (this process and the agent's browser) over the
  same window of an animated page, watched and not; the viewer's browser apart;
- click median with and without a viewer watching, in alternating rounds (goal: at
  most 10% apart), at an agent's pace (each click 100 ms after the last one's receipt:
  a model reads a receipt before its next call, so that is a fast agent) and back to
  back (the worst case: the screencast still encodes the last click's repaint);
- Firefox: a Firefox session's live view (BiDi has no screencast: captures while
  watched) over the animated page: the interval between frames drawn in the viewer,
  and that no capture is taken once the viewer leaves (``--firefox-only`` runs this
  part alone).

It prints medians and p95s, and exits 0 whatever the figures: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.server
import itertools
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import psutil
from figures import Row, Table

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.surfaces.workbench import Workbench
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

PAGE = b"""<!doctype html><html><head><title>Bench page</title><style>
  body { margin: 0; }
  #swatch { position: fixed; inset: 0; background: rgb(0, 0, 0); }
  #spin { position: fixed; left: 40px; top: 40px; width: 80px; height: 80px; background: #fa0; }
  .spinning #spin { animation: spin 1s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
  #go { position: fixed; left: 200px; top: 60px; width: 120px; height: 40px; }
</style></head><body>
<div id="swatch"></div><div id="spin"></div>
<button id="go" onclick="window.clicks = (window.clicks || 0) + 1">Go</button>
</body></html>"""

# In the viewer's page: note when each frame is drawn, and the colour in its middle.
DRAW_HOOK = """(() => {
  if (window.__draws) return true;
  window.__draws = [];
  const draw = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (...args) {
    const result = draw.apply(this, args);
    const c = this.canvas;
    const [r, g, b] = this.getImageData(c.width >> 1, c.height >> 1, 1, 1).data;
    window.__draws.push([performance.timeOrigin + performance.now(), r, g, b]);
    if (window.__draws.length > 500) window.__draws.splice(0, 250);
    return result;
  };
  return true;
})()"""

AGENT_GAP_S = 0.1
"""Between an agent's calls: a model reads each receipt before its next call."""

COLOURS = [(220, 30, 30), (30, 200, 60), (40, 60, 230), (240, 220, 30), (200, 40, 200)]


@dataclass(frozen=True)
class Plan:
    latency_runs: int
    click_rounds: int
    clicks_per_round: int
    cpu_window_s: float


FULL = Plan(latency_runs=40, click_rounds=4, clicks_per_round=25, cpu_window_s=8.0)
QUICK = Plan(latency_runs=12, click_rounds=2, clicks_per_round=10, cpu_window_s=3.0)


@contextlib.contextmanager
def page_server() -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20, method="inclusive")[18] if len(samples) > 1 else 0


async def wait_until(check: object, what: str, seconds: float = 10.0) -> None:
    budget = Budget(seconds)
    while not await check():  # type: ignore[operator]
        if budget.expired:
            raise RuntimeError(f"{what}: not within {seconds} s")
        await budget.sleep(0.02)


class Viewer:
    """The workbench page, open in a headless Chromium of its own."""

    def __init__(self, browser: tabwarden.BrowserSession, bench: Workbench) -> None:
        self.browser = browser
        self.bench = bench
        self.tab: tabwarden.Tab | None = None

    async def open(self, session: str) -> None:
        if self.tab is not None:
            await self.watch(session)
            return
        self.tab = await self.browser.new_tab(f"{self.bench.url}#/s/{session}")
        await self.tab.evaluate(DRAW_HOOK)

    async def value(self, expression: str) -> object:
        assert self.tab is not None
        return (await self.tab.evaluate(expression)).value

    async def close(self) -> None:
        if self.tab is not None:
            await self.tab.close()
            self.tab = None

    async def watch(self, session: str | None) -> None:
        await self.value(f"location.hash = {('#/s/' + session) if session else '#/'!r}")


def cpu_seconds(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def tree(pid: int | None) -> list[psutil.Process]:
    if pid is None:
        return []
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


async def measure_cpu(
    agent_pid: int | None, viewer_pid: int | None, window_s: float
) -> tuple[float, float]:
    """CPU share (of one core) of the agent's side and of the viewer's browser."""
    agent = [psutil.Process(), *tree(agent_pid)]
    viewer = tree(viewer_pid)
    start = time.monotonic(), cpu_seconds(agent), cpu_seconds(viewer)
    await asyncio.sleep(window_s)  # a measuring window, not a synchronisation
    elapsed = time.monotonic() - start[0]
    return (cpu_seconds(agent) - start[1]) / elapsed, (cpu_seconds(viewer) - start[2]) / elapsed


async def run(plan: Plan) -> None:
    with page_server() as url:
        async with (
            tabwarden.SessionManager(Config(browser={"isolated": True})) as manager,
            Workbench() as bench,
            tabwarden.launch(isolated=True) as viewer_browser,
        ):
            bench.watch_manager(manager)
            ctx = ToolContext(manager, "agent")
            await call_tool(ctx, "browser_navigate", {"url": url})
            session = await ctx.session()
            tab = session.active_tab
            assert tab is not None
            snapshot = await call_tool(ctx, "browser_snapshot", {})
            (line,) = [line for line in snapshot.text.splitlines() if '"Go"' in line]
            ref = line.split("[ref=")[1].split("]")[0]
            viewer = Viewer(viewer_browser, bench)

            async def feeds() -> bool:
                return tab.page.screencast.feeds > 0

            async def no_feeds() -> bool:
                return tab.page.screencast.feeds == 0

            # ---- click median, with and without a viewer, in alternating rounds --------
            clicks: dict[tuple[bool, float], list[float]] = {}
            for round_ in range(plan.click_rounds * 4):
                watched, gap_s = round_ % 2 == 1, (AGENT_GAP_S, 0.0)[round_ // 2 % 2]
                if watched:
                    await viewer.open("agent")
                    await wait_until(feeds, "the viewer watching")
                else:
                    await viewer.close()  # no workbench page open at all
                    await wait_until(no_feeds, "the viewer gone")
                for _ in range(plan.clicks_per_round):
                    await asyncio.sleep(gap_s)  # the agent reading the last receipt
                    start = time.perf_counter()
                    await call_tool(ctx, "browser_click", {"ref": ref})
                    clicks.setdefault((watched, gap_s), []).append(
                        (time.perf_counter() - start) * 1000
                    )

            # ---- live-view latency -------------------------------------------------------
            await viewer.open("agent")
            await wait_until(feeds, "the viewer watching")
            latencies: list[float] = []
            for n in range(plan.latency_runs):
                r, g, b = COLOURS[n % len(COLOURS)]
                changed_at = time.time() * 1000
                await tab.evaluate(
                    f"document.getElementById('swatch').style.background = 'rgb({r},{g},{b})'"
                )
                found: list[float] = []

                async def drawn(
                    r: int = r,
                    g: int = g,
                    b: int = b,
                    at: float = changed_at,
                    found: list[float] = found,
                ) -> bool:
                    draws = await viewer.value(
                        f"(window.__draws || []).filter(d => d[0] >= {at}"
                        f" && Math.abs(d[1]-{r}) < 40 && Math.abs(d[2]-{g}) < 40"
                        f" && Math.abs(d[3]-{b}) < 40).map(d => d[0])"
                    )
                    if isinstance(draws, list) and draws:
                        found.append(min(float(d) for d in draws))
                        return True
                    return False

                await wait_until(drawn, "the changed frame drawn")
                latencies.append(found[0] - changed_at)

            # ---- CPU of one viewer ---------------------------------------------------------
            await tab.evaluate("document.body.classList.add('spinning')")
            agent_pid = session.endpoint.pid if session.endpoint else None
            viewer_pid = viewer_browser.endpoint.pid if viewer_browser.endpoint else None
            await viewer.watch(None)
            await wait_until(no_feeds, "the viewer leaving")
            idle = await measure_cpu(agent_pid, viewer_pid, plan.cpu_window_s)
            await viewer.watch("agent")
            await wait_until(feeds, "the viewer watching")
            watched_cpu = await measure_cpu(agent_pid, viewer_pid, plan.cpu_window_s)
            frames = await viewer.value("window.__workbench ? window.__workbench.frames : 0")

    table = Table("Live view")
    table.add(Row("page change → frame drawn in the viewer", "ms", tuple(latencies)))
    table.note(f"p95 {p95(latencies):.1f} ms over {len(latencies)} changes")
    table.print()

    for gap_s, pace in ((AGENT_GAP_S, "at an agent's pace"), (0.0, "back to back")):
        without, with_viewer = clicks[(False, gap_s)], clicks[(True, gap_s)]
        ratio = statistics.median(with_viewer) / statistics.median(without)
        table = Table(f"An agent's click (browser_click, receipt included), {pace}")
        table.add(Row("no viewer", "ms", tuple(without)))
        target = "at most 1.10 x no viewer" if gap_s else ""
        table.add(Row("a viewer watching the tab", "ms", tuple(with_viewer), target))
        table.note(f"ratio of medians: {ratio:.3f}")
        table.print()

    print("\nCPU (share of one core) over an animated page")
    print(f"  agent's side (Python + agent's browser), no viewer:   {idle[0]:.2f}")
    print(f"  agent's side (Python + agent's browser), one viewer:  {watched_cpu[0]:.2f}")
    print(f"  the viewer's own browser while watching:               {watched_cpu[1]:.2f}")
    print(f"  frames the viewer drew in all: {frames}")


async def run_firefox(plan: Plan) -> None:
    """The live view of a Firefox tab over an animated page: the interval between frames
    the viewer drew, while watched; and the captures taken after the viewer left."""
    config = Config(browser={"isolated": True, "engine": "firefox"})
    with page_server() as url:
        async with (
            tabwarden.SessionManager(config) as manager,
            Workbench() as bench,
            tabwarden.launch(isolated=True) as viewer_browser,
        ):
            bench.watch_manager(manager)
            ctx = ToolContext(manager, "firefox-agent")
            await call_tool(ctx, "browser_navigate", {"url": url})
            tab = await ctx.firefox_tab()
            await tab.evaluate("document.body.classList.add('spinning')")
            viewer = Viewer(viewer_browser, bench)
            await viewer.open("firefox-agent")

            async def capturing() -> bool:
                return tab.live_view.capturing

            async def stopped() -> bool:
                return not tab.live_view.capturing

            await wait_until(capturing, "the Firefox tab watched")
            await asyncio.sleep(1.0)  # past the first frames
            since = time.time() * 1000
            captures = tab.live_view.captures
            await asyncio.sleep(plan.cpu_window_s)
            draws = await viewer.value(
                f"(window.__draws || []).filter(d => d[0] >= {since}).map(d => d[0])"
            )
            captured = tab.live_view.captures - captures
            await viewer.watch(None)
            await wait_until(stopped, "the capture loop ended")
            left = tab.live_view.captures
            await asyncio.sleep(plan.cpu_window_s / 2)
            after = tab.live_view.captures - left
    times = sorted(float(d) for d in draws) if isinstance(draws, list) else []
    intervals = tuple(b - a for a, b in itertools.pairwise(times))
    table = Table("Firefox live view (captures while watched), animated page")
    table.add(Row("interval between frames drawn in the viewer", "ms", intervals or (0.0,)))
    table.note(
        f"{len(times)} frames drawn, {captured} captures in {plan.cpu_window_s:g} s;"
        f" captures after the viewer left: {after}"
    )
    table.print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, a rough look")
    parser.add_argument("--firefox-only", action="store_true", help="only the Firefox figures")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    if not args.firefox_only:
        asyncio.run(run(plan))
    asyncio.run(run_firefox(plan))


if __name__ == "__main__":
    main()
