"""What the URL policy costs: navigation with its Fetch interception on and off.

Run from the project root (nothing leaves 127.0.0.1)::

    .venv/bin/python bench/bench_policy.py            # full runs
    .venv/bin/python bench/bench_policy.py --quick    # fewer runs, a rough look

Every page document is paused by ``Fetch`` and judged (metadata endpoints are
always blocked), which adds a round trip to each navigation. The same tab
navigates to a demo page with interception on (as shipped) and off
(``Fetch.disable``), in interleaved rounds; a third row pauses every request
(``policy.intercept_subresources``). The machine's noise can hide the difference,
so the hold itself is timed too: from the moment a paused document reaches
Python to the browser's reply to ``Fetch.continueRequest``. Also timed: one
``UrlPolicy.check`` alone.
This is a measurement script, not a test: it exits 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from figures import Row, Table, ms_since

import tabwarden
from tabwarden.cdp.protocol import Event
from tabwarden.config import Config, PolicyConfig
from tabwarden.demo.server import DemoSite
from tabwarden.safety.guard import PolicyDecision
from tabwarden.safety.url_policy import UrlPolicy

PAGES = ("products.html", "deals.html", "contact.html")


async def _navigations(tab: tabwarden.Tab, site: DemoSite, runs: int) -> list[float]:
    samples = []
    for i in range(runs):
        start = time.perf_counter_ns()
        await tab.navigate(site.url(PAGES[i % len(PAGES)]))
        samples.append(ms_since(start))
    return samples


async def bench_navigation(site: DemoSite, runs: int, rounds: int) -> Table:
    table = Table("Navigation (wait_until=load, a demo page on 127.0.0.1)")
    on: list[float] = []
    off: list[float] = []
    holds: list[float] = []
    async with tabwarden.launch(isolated=True) as session:
        _time_holds(session, holds)
        tab = await session.new_tab(site.url("index.html"))
        await _navigations(tab, site, 5)  # warm-up: caches, the renderer
        holds.clear()
        for _ in range(rounds):
            on += await _navigations(tab, site, runs)
            await tab.cdp("Fetch.disable")
            off += await _navigations(tab, site, runs)
            await tab.cdp("Fetch.enable", {"patterns": session.supervisor.guard.fetch_patterns()})
    every: list[float] = []
    config = Config(policy=PolicyConfig(intercept_subresources=True))
    async with tabwarden.launch(isolated=True, config=config) as session:
        tab = await session.new_tab(site.url("index.html"))
        await _navigations(tab, site, 5)
        every = await _navigations(tab, site, runs * rounds)
    a = table.add(Row("documents intercepted (default)", "ms", tuple(on)))
    b = table.add(Row("no interception (Fetch off)", "ms", tuple(off)))
    table.add(Row("every request intercepted", "ms", tuple(every)))
    table.add(Row("hold of one paused document", "ms", tuple(holds)))
    table.note(f"cost of document interception: {a.median - b.median:+.1f} ms median per load")
    return table


def _time_holds(session: tabwarden.BrowserSession, holds: list[float]) -> None:
    """Time each paused request from its event's arrival to the continue's reply."""
    supervisor = session.supervisor
    judge, release = supervisor.guard.judge, supervisor._release
    arrived: dict[str, int] = {}

    def timed_judge(event: Event) -> PolicyDecision:
        arrived[event.params.get("requestId", "")] = time.perf_counter_ns()
        return judge(event)

    async def timed_release(session_id: str | None, request_id: str, *, allow: bool) -> None:
        await release(session_id, request_id, allow=allow)
        if request_id in arrived:
            holds.append(ms_since(arrived.pop(request_id)))

    supervisor.guard.judge = timed_judge  # type: ignore[method-assign]
    supervisor._release = timed_release  # type: ignore[method-assign]


def bench_check(runs: int) -> Table:
    table = Table("One policy check (pure Python)")
    policy = UrlPolicy(deny=["*.tracker.test", "10.0.0.0/8"], allow=["*.example.com", "127.0.0.1"])
    urls = ("https://docs.example.com/a/b?c=d", "http://0xA9FEA9FE/", "http://127.0.0.1:8000/")
    samples = []
    for i in range(runs):
        start = time.perf_counter_ns()
        policy.check(urls[i % len(urls)])
        samples.append((time.perf_counter_ns() - start) / 1000)
    table.add(Row("UrlPolicy.check", "us", tuple(samples)))
    return table


async def main(quick: bool) -> None:
    runs, rounds = (10, 3) if quick else (20, 5)
    with DemoSite() as site:
        (await bench_navigation(site, runs, rounds)).print()
    bench_check(2_000 if quick else 20_000).print()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, a rough look")
    asyncio.run(main(parser.parse_args().quick))
