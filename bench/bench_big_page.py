"""Figures for screenshots of a huge page: a full-page capture, and the tab's next calls
after a full-page capture that ran out of time.

Run from the project root (nothing leaves 127.0.0.1)::

    .venv/bin/python bench/bench_big_page.py            # 200,000 elements, 5 rounds
    .venv/bin/python bench/bench_big_page.py --quick    # 3 rounds, one get_content pair
    .venv/bin/python bench/bench_big_page.py --elements 50000

The page holds N small elements, ten to a line (a <p> of nine <span>s): 200,000 make
it 680,000 px tall. Each round measures, in this order: a full-page capture with time
enough to finish; ``evaluate("1+1")`` on the idle tab; then a full-page capture given
up after ``--give-up-ms`` (200), and right after it ``evaluate("1+1")``, a viewport
screenshot, and whether the page has its own viewport size back. Then ``get_content()``
on the idle tab and right after another given-up capture. A call that fails is counted
with the time it took and named in a note (a browser that crashed is relaunched and the
page opened again). It prints medians and p90s; not a test: it exits 0 whatever the
figures.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from figures import Row, Table

import tabwarden
from tabwarden.tab import Tab

T = TypeVar("T")
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota")
ENOUGH_MS = 60_000
"""The timeout of every call that is meant to finish."""


@dataclass(frozen=True)
class Plan:
    rounds: int
    content_rounds: int


FULL = Plan(rounds=5, content_rounds=2)
QUICK = Plan(rounds=3, content_rounds=1)


def big_page(elements: int) -> str:
    lines = "\n".join(
        "<p>" + "".join(f"<span>{word}{i}</span> " for word in WORDS) + "</p>"
        for i in range(elements // 10)
    )
    head = "<!doctype html><html><head><meta charset=utf-8><title>Big</title></head>"
    return f"{head}<body>{lines}</body></html>"


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class Bench:
    def __init__(self, browser: tabwarden.BrowserSession, url: str, give_up_ms: int) -> None:
        self.browser = browser
        self.url = url
        self.give_up_ms = give_up_ms
        self.tab: Tab | None = None
        self.samples: dict[str, list[float]] = {}
        self.failures: Counter[str] = Counter()
        self.view: list[Any] = []

    async def open(self) -> Tab:
        self.tab = await self.browser.new_tab(self.url, timeout_ms=300_000)
        self.view = (
            await self.tab.evaluate("[innerWidth, innerHeight]", timeout_ms=ENOUGH_MS)
        ).value
        return self.tab

    async def timed(self, name: str, call: Awaitable[T]) -> T | None:
        """Time ``call`` under ``name``; a failure counts with its time and is named."""
        started = time.perf_counter()
        try:
            return await call
        except tabwarden.TabwardenError as exc:
            self.failures[f"{name}: {type(exc).__name__}"] += 1
            if isinstance(exc, tabwarden.ConnectionLost | tabwarden.TabClosed):
                await self.open()  # the browser crashed: a new one, the page again
            return None
        finally:
            self.samples.setdefault(name, []).append((time.perf_counter() - started) * 1000)

    async def give_up(self) -> None:
        """A full-page capture given up after ``give_up_ms`` (timed: it should return then)."""
        started = time.perf_counter()
        try:
            await self.tab_now().screenshot(full_page=True, timeout_ms=self.give_up_ms)
            self.failures["capture to give up: finished in time"] += 1
        except tabwarden.DeadlineExceeded:
            pass
        except tabwarden.TabwardenError as exc:
            self.failures[f"capture to give up: {type(exc).__name__}"] += 1
            if isinstance(exc, tabwarden.ConnectionLost | tabwarden.TabClosed):
                await self.open()
        finally:
            self.samples.setdefault("capture given up", []).append(
                (time.perf_counter() - started) * 1000
            )

    async def round(self) -> None:
        tab = self.tab_now()
        shot = await self.timed(
            "full-page capture", tab.screenshot(full_page=True, timeout_ms=ENOUGH_MS)
        )
        if shot is not None:
            self.failures[f"full-page image: {shot.width} x {shot.height} CSS px"] += 1
        await self.timed("evaluate 1+1, idle tab", tab.evaluate("1+1", timeout_ms=ENOUGH_MS))
        await self.give_up()
        await self.timed("evaluate 1+1 after", self.tab_now().evaluate("1+1", timeout_ms=ENOUGH_MS))
        await self.timed(
            "viewport screenshot after", self.tab_now().screenshot(timeout_ms=ENOUGH_MS)
        )
        view = await self.timed(
            "evaluate viewport size after",
            self.tab_now().evaluate("[innerWidth, innerHeight]", timeout_ms=ENOUGH_MS),
        )
        if view is not None and view.value != self.view:
            self.failures[f"viewport after: {view.value}, not {self.view}"] += 1

    async def content_round(self) -> None:
        await self.timed("get_content, idle tab", self.tab_now().get_content(timeout_ms=ENOUGH_MS))
        await self.give_up()
        await self.timed("get_content after", self.tab_now().get_content(timeout_ms=ENOUGH_MS))

    def tab_now(self) -> Tab:
        """The tab (a new one after a crash)."""
        assert self.tab is not None
        return self.tab


async def main(plan: Plan, elements: int, give_up_ms: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "big.html").write_text(big_page(elements))
        handler = functools.partial(Quiet, directory=folder)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/big.html"
        try:
            async with tabwarden.launch(isolated=True) as browser:
                bench = Bench(browser, url, give_up_ms)
                started = time.perf_counter()
                await bench.open()
                load_s = time.perf_counter() - started
                height = (
                    await bench.tab_now().evaluate(
                        "document.documentElement.scrollHeight", timeout_ms=ENOUGH_MS
                    )
                ).value
                for _ in range(plan.rounds):
                    await bench.round()
                for _ in range(plan.content_rounds):
                    await bench.content_round()
        finally:
            server.shutdown()
            server.server_close()
    table = Table(
        f"tabwarden {tabwarden.__version__}: a page of {elements:,} elements, {height:,} px "
        f"tall (loaded in {load_s:.1f} s); captures given up after {give_up_ms} ms"
    )
    for name, samples in bench.samples.items():
        table.add(Row(name, "ms", tuple(samples)))
    for what, count in sorted(bench.failures.items()):
        table.note(f"{count} x {what}")
    table.print()
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, a rough look")
    parser.add_argument("--elements", type=int, default=200_000)
    parser.add_argument("--give-up-ms", type=int, default=200)
    args = parser.parse_args()
    sys.exit(asyncio.run(main(QUICK if args.quick else FULL, args.elements, args.give_up_ms)))
