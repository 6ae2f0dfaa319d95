"""Figures for the two engines side by side, in one run: Chromium over CDP and Firefox
over WebDriver BiDi, driven through the same calls.

Run from the project root (nothing leaves 127.0.0.1; Firefox is Debian's firefox-esr,
which ``bash scripts/test.sh`` installs)::

    .venv/bin/python bench/bench_engines.py            # full runs
    .venv/bin/python bench/bench_engines.py --quick    # fewer runs, a rough look

On generated pages of 100 and 1,000 elements (bench/pages.py), for each engine:
launch to the first page loaded, an interactive snapshot, a click on the button in the
middle of the page by its ref (checked by the page's counter), and an evaluation round
trip. The engines take turns, round after round, so drift on a shared machine falls on
both. It prints medians and p90s, the ratio Firefox / Chromium, and checks that no
browser it started is left running. A measurement script, not a test: it exits 0 unless
something breaks or a browser is left running.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from figures import Row, Table
from leftovers import children_now, report_leftovers
from pages import generate_page

import tabwarden

ENGINES = ("chromium", "firefox")
SIZES = (100, 1_000)
TARGET_LABEL = "Bench target"


@dataclass(frozen=True)
class Plan:
    launches: int
    rounds: int


FULL = Plan(launches=5, rounds=15)
QUICK = Plan(launches=2, rounds=5)


class _Pages:
    """The generated pages on 127.0.0.1, from a thread."""

    def __init__(self, folder: Path) -> None:
        handler = functools.partial(_Quiet, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        return f"{self.base}/{name}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def _target_ref(text: str, label: str) -> str:
    found = re.search(rf'button "{re.escape(label)}"[^\n]*?\[ref=([^\]]+)\]', text)
    if found is None:
        raise RuntimeError(f"no button {label!r} in the snapshot")
    return found.group(1)


def _launch(engine: str) -> Any:
    return tabwarden.launch(isolated=True, engine=engine)  # type: ignore[call-overload]


async def bench_launch(engine: str, url: str, plan: Plan) -> list[float]:
    samples = []
    for _ in range(plan.launches):
        began = time.perf_counter()
        session = await _launch(engine)
        try:
            await session.new_tab(url)
            samples.append(_ms(began))
        finally:
            await session.close()
    return samples


async def bench_page(
    sessions: dict[str, Any], url: str, plan: Plan
) -> dict[str, dict[str, list[float]]]:
    """Snapshot, click and evaluate on each engine, the engines taking turns."""
    tabs = {engine: await session.new_tab(url) for engine, session in sessions.items()}
    refs = {}
    for engine, tab in tabs.items():
        refs[engine] = _target_ref((await tab.snapshot()).text, TARGET_LABEL)
    samples: dict[str, dict[str, list[float]]] = {
        engine: {"snapshot": [], "click": [], "evaluate": []} for engine in tabs
    }
    for round_ in range(plan.rounds):
        order = list(tabs) if round_ % 2 == 0 else list(reversed(tabs))
        for engine in order:
            tab = tabs[engine]
            began = time.perf_counter()
            await tab.snapshot()
            samples[engine]["snapshot"].append(_ms(began))
            began = time.perf_counter()
            await tab.click(refs[engine])
            samples[engine]["click"].append(_ms(began))
            began = time.perf_counter()
            await tab.evaluate("1")
            samples[engine]["evaluate"].append(_ms(began))
    for engine, tab in tabs.items():
        hits = await tab.evaluate("window.__hits.target || 0")
        value = getattr(hits, "value", hits)
        if value != plan.rounds:
            raise RuntimeError(f"{engine}: the page counted {value} clicks of {plan.rounds}")
        await tab.close()
    return samples


def _ratio_note(table: Table, rows: dict[str, Row]) -> None:
    chromium, firefox = rows["chromium"].median, rows["firefox"].median
    if chromium > 0:
        table.note(f"{rows['firefox'].name}: Firefox / Chromium = {firefox / chromium:.2f}")


async def main(quick: bool) -> int:
    plan = QUICK if quick else FULL
    before = children_now()
    with tempfile.TemporaryDirectory(prefix="tw-bench-engines-") as folder:
        for size in SIZES:
            (Path(folder) / f"page{size}.html").write_text(_with_target(generate_page(size).html))
        site = _Pages(Path(folder))
        try:
            print(
                f"tabwarden {tabwarden.__version__} engines bench "
                f"({'quick' if quick else 'full'}), Python {sys.version.split()[0]}"
            )
            launch = Table("launch to the first page loaded (throwaway profile, headless)")
            rows = {}
            for engine in ENGINES:
                samples = await bench_launch(engine, site.url("page100.html"), plan)
                rows[engine] = launch.add(Row(f"{engine}", "ms", tuple(samples)))
            _ratio_note(launch, rows)
            launch.print()
            sessions = {engine: await _launch(engine) for engine in ENGINES}
            try:
                for size in SIZES:
                    samples = await bench_page(sessions, site.url(f"page{size}.html"), plan)
                    table = Table(f"a page of {size:,} elements")
                    for what in ("snapshot", "click", "evaluate"):
                        rows = {
                            engine: table.add(
                                Row(f"{what} {engine}", "ms", tuple(samples[engine][what]))
                            )
                            for engine in ENGINES
                        }
                        _ratio_note(table, rows)
                    table.note(
                        "both clicks wait for and return the same receipt of what changed; "
                        "Firefox's diff walks the whole page again (bench_snapshot.py)"
                    )
                    table.print()
            finally:
                for session in sessions.values():
                    await session.close()
        finally:
            site.close()
    return report_leftovers(before)


def _with_target(html: str) -> str:
    """The page with its middle card's button (``id="target"``) named uniquely."""
    named, count = re.subn(
        r'(<button[^>]*id="target"[^>]*>)[^<]+(</button>)', rf"\g<1>{TARGET_LABEL}\g<2>", html
    )
    if count != 1:
        raise RuntimeError("the generated page has no target button")
    return named


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a rough look")
    sys.exit(asyncio.run(main(parser.parse_args().quick)))
