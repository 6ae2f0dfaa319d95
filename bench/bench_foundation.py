"""Figures for tabwarden's foundation: launch, CDP round trips, session and tab costs, memory.

Run from the project root (nothing leaves 127.0.0.1)::

    .venv/bin/python bench/bench_foundation.py            # full runs
    .venv/bin/python bench/bench_foundation.py --quick    # fewer runs, a rough look

It prints medians and p90s in a table, and checks at the end that no browser
process it started is left running. This is a measurement script, not a test:
it always exits 0 unless something breaks, whatever the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import psutil
import websockets
from figures import Row, Table, ms_since
from memory import pss_mb, tree

import tabwarden
from tabwarden.budget import Budget
from tabwarden.demo.server import DemoSite

EVALUATE = "Runtime.evaluate"
EVALUATE_PARAMS: dict[str, Any] = {"expression": "1"}
OVERHEAD_TARGET = 1.3
RSS_TARGET_MB = 15.0
EXTRA_SESSIONS = 5


@dataclass(frozen=True)
class Plan:
    launch_runs: int
    session_runs: int
    round_trips: int
    warmup: int
    rounds: int
    """Round trips are measured in this many interleaved rounds (less drift between clients)."""


FULL = Plan(launch_runs=5, session_runs=5, round_trips=500, warmup=50, rounds=5)
QUICK = Plan(launch_runs=3, session_runs=3, round_trips=200, warmup=20, rounds=4)


# ---- (a) launch to first navigation ----------------------------------------------------


async def bench_launch_to_navigation(site: DemoSite, plan: Plan, pids: set[int]) -> Table:
    table = Table("(a) launch to first navigation (launch isolated + new_tab(url), load)")
    samples: list[float] = []
    for _ in range(plan.launch_runs):
        start = time.perf_counter_ns()
        browser = await tabwarden.launch(isolated=True)
        try:
            await browser.new_tab(site.url("products.html"))
            samples.append(ms_since(start))
            _remember(browser, pids)
        finally:
            await browser.close()
    table.add(Row("launch + new_tab(url)", "ms", tuple(samples)))
    return table


# ---- (b) CDP round trips ---------------------------------------------------------------


class BareClient:
    """A bare websockets CDP client: one socket, one attached page, await each reply by id."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.next_id = 0
        self.session_id = ""

    @classmethod
    async def attach(cls, ws_url: str, target_id: str) -> BareClient:
        ws = await websockets.connect(
            ws_url, max_size=None, ping_interval=None, compression=None, proxy=None
        )
        client = cls(ws)
        reply = await client.call("Target.attachToTarget", {"targetId": target_id, "flatten": True})
        client.session_id = reply["sessionId"]
        return client

    async def call(
        self, method: str, params: dict[str, Any], session_id: str | None = None
    ) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session_id:
            message["sessionId"] = session_id
        await self.ws.send(json.dumps(message, separators=(",", ":")))
        while True:
            data = json.loads(await self.ws.recv())
            if data.get("id") == self.next_id:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                result: dict[str, Any] = data["result"]
                return result

    async def close(self) -> None:
        await self.ws.close()


async def bench_round_trips(site: DemoSite, plan: Plan, pids: set[int]) -> tuple[Table, str]:
    table = Table(
        f"(b) CDP round trip {EVALUATE} {json.dumps(EVALUATE_PARAMS)}, one page, "
        f"{plan.round_trips} sequential after {plan.warmup} warm-up"
    )
    async with tabwarden.launch(isolated=True) as browser:
        _remember(browser, pids)
        tab = await browser.new_tab(site.url())
        connection = browser.connection
        # The tab's own CDP session id.
        session = tab.page.session
        assert session is not None and session.session_id is not None
        session_id = session.session_id
        assert browser.endpoint is not None
        bare = await BareClient.attach(browser.endpoint.ws_url, tab.target_id)
        try:

            async def via_tab() -> None:
                await tab.cdp(EVALUATE, EVALUATE_PARAMS)

            async def via_connection() -> None:
                await connection.send(
                    EVALUATE, EVALUATE_PARAMS, budget=Budget(10.0), session_id=session_id
                )

            async def via_bare() -> None:
                await bare.call(EVALUATE, EVALUATE_PARAMS, bare.session_id)

            clients: dict[str, Callable[[], Awaitable[None]]] = {
                "bare websockets client": via_bare,
                "tabwarden connection.send()": via_connection,
                "tabwarden tab.cdp()": via_tab,
            }
            for call in clients.values():
                for _ in range(plan.warmup):
                    await call()
            samples: dict[str, list[float]] = {name: [] for name in clients}
            per_round = plan.round_trips // plan.rounds
            for round_no in range(plan.rounds):
                # Alternate the order so no client always runs first or last in a round.
                names = list(clients) if round_no % 2 == 0 else list(reversed(clients))
                for name in names:
                    call = clients[name]
                    for _ in range(per_round):
                        start = time.perf_counter_ns()
                        await call()
                        samples[name].append((time.perf_counter_ns() - start) / 1e3)
        finally:
            await bare.close()
    targets = {"tabwarden tab.cdp()": f"<= {OVERHEAD_TARGET}x bare"}
    rows = {
        name: table.add(Row(name, "us", tuple(values), targets.get(name, "")))
        for name, values in samples.items()
    }
    bare_median = rows["bare websockets client"].median
    api = rows["tabwarden tab.cdp()"].median / bare_median
    conn = rows["tabwarden connection.send()"].median / bare_median
    verdict = "ok" if api <= OVERHEAD_TARGET else "OVER TARGET"
    summary = (
        f"  overhead (median / bare median): tab.cdp() {api:.2f}x "
        f"[target <= {OVERHEAD_TARGET}: {verdict}], connection.send() {conn:.2f}x"
    )
    return table, summary


# ---- (c) session and tab creation -----------------------------------------------------


async def bench_session_and_tab(plan: Plan, pids: set[int]) -> Table:
    table = Table("(c) creating a session and a tab")
    launches: list[float] = []
    first_tabs: list[float] = []
    new_tabs: list[float] = []
    for _ in range(plan.session_runs):
        start = time.perf_counter_ns()
        browser = await tabwarden.launch(isolated=True)
        launches.append(ms_since(start))
        _remember(browser, pids)
        try:
            start = time.perf_counter_ns()
            await browser.new_tab()
            first_tabs.append(ms_since(start))
            start = time.perf_counter_ns()
            await browser.new_tab()
            new_tabs.append(ms_since(start))
        finally:
            await browser.close()
    table.add(Row("session (launch isolated)", "ms", tuple(launches)))
    table.add(Row("first new_tab() (reuses the startup tab)", "ms", tuple(first_tabs)))
    table.add(Row("next new_tab() (Target.createTarget)", "ms", tuple(new_tabs)))
    return table


# ---- (d) memory per session -----------------------------------------------------------


def _rss_mb() -> float:
    gc.collect()
    return float(psutil.Process().memory_info().rss) / 2**20


def _browser_tree_pss_mb(pid: int | None) -> float:
    """Proportional set size of a browser's process tree (shared pages split, not summed)."""
    return pss_mb(tree(pid))


async def bench_memory(pids: set[int]) -> list[str]:
    lines = ["(d) Python RSS per extra session (SessionManager, isolated sessions)"]
    async with tabwarden.SessionManager() as manager:
        first = await manager.get_or_create("bench-0", isolated=True)
        _remember(first, pids)
        rss_one = _rss_mb()
        for i in range(1, EXTRA_SESSIONS + 1):
            _remember(await manager.get_or_create(f"bench-{i}", isolated=True), pids)
        rss_more = _rss_mb()
        browsers_mb = [
            _browser_tree_pss_mb(manager.get(name).endpoint.pid)  # type: ignore[union-attr]
            for name in manager.names()
        ]
    per_session = (rss_more - rss_one) / EXTRA_SESSIONS
    verdict = "ok" if per_session <= RSS_TARGET_MB else "OVER TARGET"
    lines += [
        f"  RSS with 1 session:            {rss_one:8.1f} MB",
        f"  RSS with {1 + EXTRA_SESSIONS} sessions:           {rss_more:8.1f} MB",
        f"  per extra session:             {per_session:8.2f} MB  "
        f"[target <= {RSS_TARGET_MB:.0f} MB: {verdict}]",
        f"  (for scale, each browser process tree: median "
        f"{statistics.median(browsers_mb):.0f} MB PSS, not counted above)",
    ]
    return lines


# ---- leftovers ------------------------------------------------------------------------


def _remember(browser: tabwarden.BrowserSession, pids: set[int]) -> None:
    if browser.endpoint is not None and browser.endpoint.pid is not None:
        pids.add(browser.endpoint.pid)


def leftover_browsers(pids: set[int]) -> list[str]:
    """Browser processes this run started that still exist: launched pids, our children,
    and any process whose command line names one of our run folders."""
    found: dict[int, str] = {}
    marker = f"tabwarden-run-{os.getpid()}-"
    for pid in pids:
        if psutil.pid_exists(pid):
            try:
                proc = psutil.Process(pid)
                if proc.status() != psutil.STATUS_ZOMBIE:
                    found[pid] = proc.name()
            except psutil.NoSuchProcess:
                pass
    for proc in psutil.Process().children(recursive=True):
        try:
            if "chrom" in proc.name().lower():
                found[proc.pid] = proc.name()
        except psutil.NoSuchProcess:
            pass
    for proc in psutil.process_iter(["pid", "name", "cmdline"]):
        cmdline = " ".join(proc.info.get("cmdline") or [])
        if marker in cmdline:
            found[proc.info["pid"]] = proc.info.get("name") or "?"
    return [f"{pid} ({name})" for pid, name in sorted(found.items())]


# ---- main -----------------------------------------------------------------------------


async def main(quick: bool) -> int:
    plan = QUICK if quick else FULL
    pids: set[int] = set()
    product = ""
    async with tabwarden.launch(isolated=True) as probe:
        product = probe.product
        _remember(probe, pids)
    print(
        f"tabwarden {tabwarden.__version__} bench ({'quick' if quick else 'full'}) — "
        f"{product}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
    )
    with DemoSite() as site:
        print(f"local site {site.base_url}")
        (await bench_launch_to_navigation(site, plan, pids)).print()
        table, summary = await bench_round_trips(site, plan, pids)
        table.print()
        print(summary)
        (await bench_session_and_tab(plan, pids)).print()
        print()
        for line in await bench_memory(pids):
            print(line)
    leftovers = leftover_browsers(pids)
    print()
    if leftovers:
        print(f"leftover browser processes: {', '.join(leftovers)}  <- NOT CLEANED UP")
        return 1
    print(f"leftover browser processes: none ({len(pids)} browsers launched, all gone)")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a rough look")
    sys.exit(asyncio.run(main(parser.parse_args().quick)))
