"""Evaluate deadlines: how fast a hung evaluation comes back, and the next click after it.

Prints medians and p90 over --runs (default 20) for a busy loop (``while(true){}``,
terminated) and a promise that never settles (abandoned), each with a 500 ms
timeout; the target is timeout + 250 ms. Not a test.

    .venv/bin/python bench/bench_evaluate.py [--runs 20] [--timeout-ms 500]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

import tabwarden

PAGE = (
    "data:text/html,<title>bench</title>"
    "<button onclick=\"document.title = 'clicked ' + (++window.n)\">Click me</button>"
    "<script>window.n = 0</script>"
)


def _fmt(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[max(0, int(len(ordered) * 0.9) - 1)]
    median = statistics.median(values)
    return f"median {median:7.1f} ms   p90 {p90:7.1f} ms   max {ordered[-1]:7.1f} ms"


async def main(runs: int, timeout_ms: int) -> None:
    async with tabwarden.launch(isolated=True) as browser:
        tab = await browser.new_tab(PAGE)
        snapshot = await tab.snapshot()
        button = next(n.ref for n in snapshot.root.walk() if n.name == "Click me")
        print(f"tabwarden {tabwarden.__version__} evaluate bench — {browser.product}")
        print(f"{runs} runs each, timeout {timeout_ms} ms, target: back by {timeout_ms + 250} ms")
        for label, expression in (
            ("busy loop     ", "while (true) {}"),
            ("never settles ", "new Promise(() => {})"),
        ):
            back: list[float] = []
            click: list[float] = []
            for _ in range(runs):
                started = time.perf_counter()
                with contextlib.suppress(tabwarden.EvaluateTimeout):
                    await tab.evaluate(expression, timeout_ms=timeout_ms)
                back.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await tab.click(button)
                click.append((time.perf_counter() - started) * 1000)
            within = sum(b <= timeout_ms + 250 for b in back)
            print(f"{label} returned   {_fmt(back)}   ({within}/{runs} within target)")
            print(f"{label} next click {_fmt(click)}")
        count = (await tab.evaluate("window.n")).value
        print(f"clicks registered by the page: {count} of {2 * runs}")
        print(
            "metrics:",
            {k: v for k, v in browser.metrics.snapshot().items() if k != "evaluate_duration"},
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--timeout-ms", type=int, default=500)
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.timeout_ms))
