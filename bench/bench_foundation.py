"""Figures for tabwarden's foundation: launch, protocol round trips, session and tab costs,
memory; for Chromium (CDP) and Firefox (WebDriver BiDi) beside it, in one run.

Run from the project root (nothing leaves 127.0.0.1; Firefox is Debian's firefox-esr)::

    .venv/bin/python bench/bench_foundation.py            # full runs, both engines
    .venv/bin/python bench/bench_foundation.py --quick    # fewer runs, a rough look
    .venv/bin/python bench/bench_foundation.py --engines chromium   # one engine only

Launches take turns between the engines, run after run, so drift on a shared machine
falls on both. It prints medians and p90s in tables, the ratio Firefox / Chromium, and
checks at the end that no browser process it started is left running. This is a
measurement script, not a test: it always exits 0 unless something breaks, whatever
the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
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
from tabwarden.backends.executable import find_firefox
from tabwarden.budget import Budget
from tabwarden.config import load_config
from tabwarden.demo.server import DemoSite
from tabwarden.firefox import FirefoxSession

ENGINES = ("chromium", "firefox")
EVALUATE = "Runtime.evaluate"
EVALUATE_PARAMS: dict[str, Any] = {"expression": "1"}
STATUS = "session.status"
BIDI_EVALUATE = "script.evaluate"
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


async def bench_launch_to_navigation(
    site: DemoSite, plan: Plan, pids: set[int], engines: tuple[str, ...]
) -> Table:
    table = Table("(a) launch to first navigation (launch isolated + new_tab(url), load)")
    samples: dict[str, list[float]] = {engine: [] for engine in engines}
    for run in range(plan.launch_runs):
        # The engines take turns, the order alternating run after run.
        for engine in engines if run % 2 == 0 else tuple(reversed(engines)):
            start = time.perf_counter_ns()
            browser = await _launch(engine)
            try:
                await browser.new_tab(site.url("products.html"))
                samples[engine].append(ms_since(start))
                _remember(browser, pids)
            finally:
                await browser.close()
    rows = {
        engine: table.add(Row(_named("launch + new_tab(url)", engine), "ms", tuple(values)))
        for engine, values in samples.items()
    }
    _ratio_note(table, rows)
    return table


def _launch(engine: str) -> Any:
    return tabwarden.launch(isolated=True, engine=engine)  # type: ignore[call-overload]


def _named(name: str, engine: str) -> str:
    """Chromium's rows keep their names; Firefox's say so."""
    return name if engine == "chromium" else f"{name} [firefox]"


def _ratio_note(table: Table, rows: dict[str, Row]) -> None:
    if "chromium" in rows and "firefox" in rows and rows["chromium"].median > 0:
        ratio = rows["firefox"].median / rows["chromium"].median
        table.note(f"{rows['firefox'].name}: Firefox / Chromium (medians) = {ratio:.2f}")


# ---- (b) CDP round trips ---------------------------------------------------------------


class BareClient:
    """A bare websockets CDP client: one socket, one attached page, await each reply by id."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.next_id = 0
        self.session_id = ""

    @classmethod
    async def connect(cls, ws_url: str) -> BareClient:
        ws = await websockets.connect(
            ws_url, max_size=None, ping_interval=None, compression=None, proxy=None
        )
        return cls(ws)

    @classmethod
    async def attach(cls, ws_url: str, target_id: str) -> BareClient:
        client = await cls.connect(ws_url)
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


async def _round_trips(
    clients: dict[str, Callable[[], Awaitable[None]]], plan: Plan
) -> dict[str, list[float]]:
    """Each client's round trips in µs, the clients taking turns in interleaved rounds."""
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
    return samples


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
            samples = await _round_trips(clients, plan)
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


async def bench_bidi_round_trips(
    site: DemoSite, plan: Plan, pids: set[int]
) -> tuple[Table, list[str]]:
    """Firefox's round trips. Firefox serves one WebDriver BiDi session at a time, on the
    socket that created it (a second ``session.new`` fails with "Maximum number of
    active sessions"; a BiDi-made session has no ``/session/<id>`` path to join), so a
    bare client cannot send ``script.evaluate`` beside tabwarden's session. What a
    second socket to the same browser can send with no session is ``session.status``:
    the client overhead is measured on it, both clients asking the same browser in
    interleaved rounds; ``script.evaluate`` is measured on tabwarden's side."""
    table = Table(
        f"(b) BiDi round trips [firefox], one page, {plan.round_trips} sequential after "
        f"{plan.warmup} warm-up"
    )
    async with _launch("firefox") as browser:
        _remember(browser, pids)
        tab = await browser.new_tab(site.url())
        connection = browser.connection
        evaluate_params: dict[str, Any] = {
            # What FirefoxPage.evaluate sends, bar the realm: the page's own.
            "expression": "1",
            "target": {"context": tab.context},
            "awaitPromise": True,
            "resultOwnership": "none",
        }
        bare = await BareClient.connect(connection.url)
        try:

            async def status_bare() -> None:
                await bare.call(STATUS, {})

            async def status_connection() -> None:
                await connection.send(STATUS, {}, budget=Budget(10.0))

            async def evaluate_connection() -> None:
                await connection.send(BIDI_EVALUATE, evaluate_params, budget=Budget(10.0))

            async def evaluate_tab() -> None:
                await tab.evaluate("1")

            clients: dict[str, Callable[[], Awaitable[None]]] = {
                f"bare websockets client, {STATUS}": status_bare,
                f"tabwarden connection.send(), {STATUS}": status_connection,
                f'tabwarden connection.send(), {BIDI_EVALUATE} "1"': evaluate_connection,
                'tabwarden tab.evaluate("1")': evaluate_tab,
            }
            samples = await _round_trips(clients, plan)
        finally:
            await bare.close()
    rows = {name: table.add(Row(name, "us", tuple(values))) for name, values in samples.items()}
    medians = [row.median for row in rows.values()]
    bare_status, conn_status, conn_evaluate, tab_evaluate = medians
    summary = [
        f"  overhead on {STATUS} (median / bare median): connection.send() "
        f"{conn_status / bare_status:.2f}x (the {OVERHEAD_TARGET}x target is CDP's tab.cdp(); "
        "for information here)",
        f"  tab.evaluate() / connection.send({BIDI_EVALUATE}): "
        f"{tab_evaluate / conn_evaluate:.2f}x (the page layer: dialog watch, value decoding)",
        f"  why {STATUS}: Firefox allows one BiDi session, held by tabwarden's socket; a bare "
        f"second socket has no session, so it cannot send {BIDI_EVALUATE}, but may ask "
        f"{STATUS} (answered by the browser, no page involved) of the same browser",
    ]
    return table, summary


# ---- (c) session and tab creation -----------------------------------------------------


async def bench_session_and_tab(plan: Plan, pids: set[int], engines: tuple[str, ...]) -> Table:
    table = Table("(c) creating a session and a tab")
    launches: dict[str, list[float]] = {engine: [] for engine in engines}
    first_tabs: dict[str, list[float]] = {engine: [] for engine in engines}
    new_tabs: dict[str, list[float]] = {engine: [] for engine in engines}
    for run in range(plan.session_runs):
        for engine in engines if run % 2 == 0 else tuple(reversed(engines)):
            start = time.perf_counter_ns()
            browser = await _launch(engine)
            launches[engine].append(ms_since(start))
            _remember(browser, pids)
            try:
                start = time.perf_counter_ns()
                await browser.new_tab()
                first_tabs[engine].append(ms_since(start))
                start = time.perf_counter_ns()
                await browser.new_tab()
                new_tabs[engine].append(ms_since(start))
            finally:
                await browser.close()
    names = {
        "chromium": (
            "session (launch isolated)",
            "first new_tab() (reuses the startup tab)",
            "next new_tab() (Target.createTarget)",
        ),
        "firefox": (
            "session (launch isolated) [firefox]",
            "first new_tab() (browsingContext.create) [firefox]",
            "next new_tab() (browsingContext.create) [firefox]",
        ),
    }
    for index, samples in enumerate((launches, first_tabs, new_tabs)):
        rows = {
            engine: table.add(Row(names[engine][index], "ms", tuple(samples[engine])))
            for engine in engines
        }
        if index != 1:  # Chromium's first tab is no new tab: no ratio
            _ratio_note(table, rows)
    if "firefox" in engines:
        table.note(
            "a Firefox session lists its startup tab as a tab already, so each new_tab() "
            "there creates one (browsingContext.create); Chromium's first reuses its own"
        )
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
    return lines + _memory_lines(rss_one, rss_more, browsers_mb)


async def bench_firefox_memory(pids: set[int]) -> list[str]:
    lines = ["(d) Python RSS per extra session [firefox] (SessionManager.firefox(), isolated)"]
    config = load_config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        first = await manager.firefox("bench-0")
        _remember(first, pids)
        rss_one = _rss_mb()
        for i in range(1, EXTRA_SESSIONS + 1):
            _remember(await manager.firefox(f"bench-{i}"), pids)
        rss_more = _rss_mb()
        sessions = [await manager.firefox(name) for name in manager.firefox_names()]
        browsers_mb = [_browser_tree_pss_mb(session.backend.pid) for session in sessions]
    return lines + _memory_lines(rss_one, rss_more, browsers_mb)


def _memory_lines(rss_one: float, rss_more: float, browsers_mb: list[float]) -> list[str]:
    per_session = (rss_more - rss_one) / EXTRA_SESSIONS
    verdict = "ok" if per_session <= RSS_TARGET_MB else "OVER TARGET"
    return [
        f"  RSS with 1 session:            {rss_one:8.1f} MB",
        f"  RSS with {1 + EXTRA_SESSIONS} sessions:           {rss_more:8.1f} MB",
        f"  per extra session:             {per_session:8.2f} MB  "
        f"[target <= {RSS_TARGET_MB:.0f} MB: {verdict}]",
        f"  (for scale, each browser process tree: median "
        f"{statistics.median(browsers_mb):.0f} MB PSS, not counted above)",
    ]


# ---- leftovers ------------------------------------------------------------------------


def _remember(browser: tabwarden.BrowserSession | FirefoxSession, pids: set[int]) -> None:
    if isinstance(browser, FirefoxSession):
        if browser.backend.pid is not None:
            pids.add(browser.backend.pid)
    elif browser.endpoint is not None and browser.endpoint.pid is not None:
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
            if any(browser in proc.name().lower() for browser in ("chrom", "firefox")):
                found[proc.pid] = proc.name()
        except psutil.NoSuchProcess:
            pass
    for proc in psutil.process_iter(["pid", "name", "cmdline"]):
        cmdline = " ".join(proc.info.get("cmdline") or [])
        if marker in cmdline:
            found[proc.info["pid"]] = proc.info.get("name") or "?"
    return [f"{pid} ({name})" for pid, name in sorted(found.items())]


# ---- main -----------------------------------------------------------------------------


async def main(quick: bool, engines: tuple[str, ...]) -> int:
    plan = QUICK if quick else FULL
    pids: set[int] = set()
    products = []
    for engine in engines:
        async with _launch(engine) as probe:
            products.append(probe.product if engine == "chromium" else _firefox_version())
            _remember(probe, pids)
    print(
        f"tabwarden {tabwarden.__version__} bench ({'quick' if quick else 'full'}) — "
        f"{', '.join(products)}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
    )
    with DemoSite() as site:
        print(f"local site {site.base_url}")
        (await bench_launch_to_navigation(site, plan, pids, engines)).print()
        if "chromium" in engines:
            table, summary = await bench_round_trips(site, plan, pids)
            table.print()
            print(summary)
        if "firefox" in engines:
            table, lines = await bench_bidi_round_trips(site, plan, pids)
            table.print()
            for line in lines:
                print(line)
        (await bench_session_and_tab(plan, pids, engines)).print()
        if "chromium" in engines:
            print()
            for line in await bench_memory(pids):
                print(line)
        if "firefox" in engines:
            print()
            for line in await bench_firefox_memory(pids):
                print(line)
    leftovers = leftover_browsers(pids)
    print()
    if leftovers:
        print(f"leftover browser processes: {', '.join(leftovers)}  <- NOT CLEANED UP")
        return 1
    print(f"leftover browser processes: none ({len(pids)} browsers launched, all gone)")
    return 0


def _firefox_version() -> str:
    """Firefox's version, as its executable says it (the BiDi session keeps none)."""
    executable = find_firefox(None)
    reply = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=30)
    return reply.stdout.strip() or "Firefox"


def _engines(text: str) -> tuple[str, ...]:
    chosen = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [engine for engine in chosen if engine not in ENGINES]
    if not chosen or unknown:
        raise argparse.ArgumentTypeError(f"engines are {' and '.join(ENGINES)}, not {text!r}")
    return tuple(engine for engine in ENGINES if engine in chosen)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a rough look")
    parser.add_argument(
        "--engines",
        type=_engines,
        default=ENGINES,
        help="comma-separated engines to measure (default chromium,firefox)",
    )
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.quick, args.engines)))
