"""Supervisor figures: dialog detection latency and answer round trip (prints; not a test).

Detection latency: from the page calling ``alert()`` (its own clock, just before the
call) to the dialog being recorded in the supervisor's state (``opened_at``).
Round trip: from ``tab.dialog("accept")`` being called to the page running again.

    .venv/bin/python bench/bench_supervisor.py [--runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tabwarden
from tabwarden.budget import Budget

PAGE = (
    "data:text/html,<title>bench</title><script>"
    "window.fire = () => setTimeout(() => {"
    " window.__before = performance.timeOrigin + performance.now();"
    " alert('bench');"
    " window.__after = performance.timeOrigin + performance.now(); }, 0);"
    "</script>"
)


def _fmt(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[int(len(ordered) * 0.9) - 1] if len(ordered) >= 10 else ordered[-1]
    return f"median {statistics.median(values):7.2f} ms   p90 {p90:7.2f} ms   n={len(values)}"


async def _value(tab: tabwarden.Tab, expression: str) -> float:
    reply = await tab.cdp("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return float(reply["result"]["value"])


async def main(runs: int) -> None:
    detect: list[float] = []
    answer: list[float] = []
    async with tabwarden.launch(isolated=True) as browser:
        tab = await browser.new_tab(PAGE)
        for _ in range(runs):
            await tab.cdp("Runtime.evaluate", {"expression": "window.__after = 0; fire()"})
            budget = Budget(5)
            while not tab.pending_dialogs:  # the state is read without awaiting anything
                budget.check("waiting for the dialog")
                await asyncio.sleep(0.001)
            dialog = tab.pending_dialogs[0]
            called = time.time()
            await tab.dialog("accept")
            before = await _value(tab, "window.__before")
            after = await _value(tab, "window.__after")
            detect.append(dialog.opened_at * 1000 - before)
            answer.append(after - called * 1000)
        print(
            f"tabwarden {tabwarden.__version__} supervisor bench — {browser.product}, {runs} runs"
        )
    print(f"dialog detection (page alert() → supervisor state)  {_fmt(detect)}")
    print(f"answer round trip (dialog('accept') → page resumes) {_fmt(answer)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    asyncio.run(main(parser.parse_args().runs))
