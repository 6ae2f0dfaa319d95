"""Figures for tabwarden's snapshots and clicks against Playwright's, on generated pages,
on Chromium and on Firefox beside it, in one run.

Run from the project root (nothing leaves 127.0.0.1; needs the ``bench`` extra:
``.venv/bin/pip install -e '.[dev,bench]'``, and Chromium at /usr/bin/chromium,
which Playwright drives too, so both measure the same browser build)::

    .venv/bin/python bench/bench_snapshot.py                     # 100, 1,000, 10,000 elements
    .venv/bin/python bench/bench_snapshot.py --quick             # fewer runs, a rough look
    .venv/bin/python bench/bench_snapshot.py --sizes 100,1000    # only these page sizes
    .venv/bin/python bench/bench_snapshot.py --profile           # + cProfile of one snapshot
    .venv/bin/python bench/bench_snapshot.py --sizes 100 --table-rows 2000  # paging, mostly
    .venv/bin/python bench/bench_snapshot.py --engines chromium  # without Firefox

For each page size it measures, in interleaved rounds (the order alternates, so
neither library always goes first): tabwarden's interactive and full snapshots,
Playwright's ``locator("body").aria_snapshot()``, their sizes and how many of the
page's interactive elements each shows; then a click on a button in the middle of
the page by ref (tabwarden, with its receipt's diff and without it) against
Playwright's ``locator("#target").click()``. With Firefox (``--engines``, default
both; Debian's firefox-esr over WebDriver BiDi) tabwarden's interactive and full
snapshots and its click run on Firefox too, in the same interleaved rounds on the same
pages: the tables give the Firefox / Chromium ratios, and the snapshot text of the two
engines is compared line by line. Playwright runs on Chromium only (its own Firefox
build is not installed here). At the largest size it breaks one
interactive snapshot into its stages (the walker in the page, the walk with its CDP
calls and decoding, tree building, rendering) and traces the CDP commands of one
click. Then it reads every page of a long table (``--table-rows``, default 2,000)
with the default page size, cursor after cursor, against Playwright's one
``aria_snapshot()`` of it. It prints medians and p90s in tables, and checks at the
end that no browser process it started is left running. This is a measurement script, not a
test: it always exits 0 unless something breaks, whatever the figures.

The breakdown, the click trace and the paging are Chromium's (they reach into CDP).

The row marked "patched" changes tabwarden's behaviour inside this process only (a
private method swapped): it shows what turning the receipt's diff off gains.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import functools
import http.server
import io
import json
import os
import pstats
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

import psutil
from figures import Row, Table, ms_since
from pages import INTERACTIVE_KINDS, GeneratedPage, generate_page, generate_table_page
from playwright.async_api import Browser as PWBrowser
from playwright.async_api import Page as PWPage
from playwright.async_api import async_playwright

import tabwarden
from tabwarden.actions.receipt import ActionWatch
from tabwarden.backends.executable import find_firefox
from tabwarden.budget import Budget
from tabwarden.cdp.connection import CDPConnection
from tabwarden.firefox import FirefoxPage
from tabwarden.snapshot import DEFAULT_MAX_CHARS, Snapshot, page_lines
from tabwarden.snapshot.build import build_tree
from tabwarden.snapshot.render import render_lines
from tabwarden.snapshot.walker import world
from tabwarden.tab import Tab

CHROMIUM = "/usr/bin/chromium"
PLAYWRIGHT_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEFAULT_SIZES = (100, 1_000, 10_000)
NO_PAGING = 10_000_000
"""max_chars for tabwarden snapshots: the whole text in one page."""
CALL_TIMEOUT_MS = 300_000
TIME_TARGET = 0.5
TIME_TARGET_FROM = 1_000
"""The snapshot time target applies from this page size on."""
CHARS_TARGET = 0.6
CLICK_TARGET = 0.7
QUICK_SKIP_S = 20.0
"""--quick skips a page of 10,000+ elements whose warm-up round takes longer than this."""
PAGING_TARGET = 0.5
"""Reading every page of the long table, against Playwright's one aria_snapshot() of it."""
DEFAULT_TABLE_ROWS = 2_000
ENGINES = ("chromium", "firefox")
NO_PLAYWRIGHT_FIREFOX = (
    "playwright runs on Chromium only: its Firefox build is not installed here, so "
    "tabwarden's Firefox figures are set beside tabwarden's Chromium ones"
)
_REF = re.compile(r" ?\[ref=e\d+\]")

_PW_INTERACTIVE = re.compile(r"^\s*- (" + "|".join(INTERACTIVE_KINDS) + r")\b")
_TW_INTERACTIVE = re.compile(r"^\s*- (" + "|".join(INTERACTIVE_KINDS) + r")\b.*\[ref=e\d+\]")


@dataclass(frozen=True)
class Plan:
    snapshot_rounds: tuple[tuple[int, int], ...]
    """(up to this many elements, rounds) — the first that fits the page size."""
    warmup: int
    click_rounds: tuple[tuple[int, int], ...]
    click_warmup: int
    breakdown_runs: int

    def rounds(self, size: int, clicks: bool = False) -> int:
        table = self.click_rounds if clicks else self.snapshot_rounds
        return next(n for limit, n in table if size <= limit)


TW_INTERACTIVE = "tabwarden snapshot() interactive"
FF_INTERACTIVE = "tabwarden snapshot() interactive [firefox]"
FF_FULL = "tabwarden snapshot(full=True) [firefox]"
FF_CLICK = "tabwarden click(ref), receipt with diff [firefox]"

FULL = Plan(
    snapshot_rounds=((200, 25), (2_000, 15), (sys.maxsize, 7)),
    warmup=2,
    click_rounds=((200, 25), (2_000, 20), (sys.maxsize, 10)),
    click_warmup=3,
    breakdown_runs=5,
)
QUICK = Plan(
    snapshot_rounds=((200, 8), (2_000, 5), (sys.maxsize, 3)),
    warmup=1,
    click_rounds=((200, 8), (2_000, 6), (sys.maxsize, 4)),
    click_warmup=2,
    breakdown_runs=2,
)


def _verdict(ratio: float, target: float) -> str:
    return "ok" if ratio <= target else "OVER TARGET"


# ---- the local site -------------------------------------------------------------------


class PageServer:
    """Serves a folder of generated pages on 127.0.0.1 (a port the OS picks), in a thread."""

    def __init__(self, folder: Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(folder))
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, name: str) -> str:
        return f"{self.base}/{name}"

    def __enter__(self) -> PageServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


# ---- the two contenders ---------------------------------------------------------------


@dataclass
class Contenders:
    tab: Tab
    page: PWPage
    tw_pid: int | None
    pw_pids: set[int] = field(default_factory=set)
    firefox: FirefoxPage | None = None
    """tabwarden's tab on Firefox, when the run measures Firefox too."""


async def _goto(c: Contenders, url: str, page: GeneratedPage) -> None:
    await c.tab.navigate(url, timeout_ms=CALL_TIMEOUT_MS)
    await c.page.goto(url, wait_until="load", timeout=CALL_TIMEOUT_MS)
    count = "document.body.querySelectorAll('*').length"
    tw_count = await _tw_eval(c.tab, count)
    pw_count = await c.page.evaluate(count)
    ff_count = page.elements
    if c.firefox is not None:
        await c.firefox.navigate(url, timeout_ms=CALL_TIMEOUT_MS)
        ff_count = (await c.firefox.evaluate(count, timeout_ms=CALL_TIMEOUT_MS)).value
    if page.elements != tw_count or page.elements != pw_count or page.elements != ff_count:
        raise RuntimeError(
            f"page {page.size}: expected {page.elements} elements, "
            f"tabwarden sees {tw_count}, Playwright {pw_count}, tabwarden on Firefox {ff_count}"
        )


async def _tw_eval(tab: Tab, expression: str) -> Any:
    reply = await tab.cdp("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return reply["result"].get("value")


# ---- (1) snapshots --------------------------------------------------------------------


@dataclass
class SizeResult:
    size: int
    page: GeneratedPage
    interactive_ms: float = 0.0
    full_ms: float = 0.0
    pw_ms: float = 0.0
    interactive_chars: int = 0
    full_chars: int = 0
    pw_chars: int = 0
    click_diff_ms: float = 0.0
    click_nodiff_ms: float = 0.0
    pw_click_ms: float = 0.0
    ff_interactive_ms: float = 0.0
    ff_full_ms: float = 0.0
    ff_interactive_chars: int = 0
    ff_full_chars: int = 0
    ff_click_ms: float = 0.0


async def bench_snapshots(
    c: Contenders, page: GeneratedPage, plan: Plan, quick: bool
) -> tuple[Table, SizeResult] | None:
    result = SizeResult(page.size, page)
    snaps: dict[str, Snapshot] = {}
    aria = ""

    async def tw_interactive() -> None:
        snaps["interactive"] = await c.tab.snapshot(max_chars=NO_PAGING, timeout_ms=CALL_TIMEOUT_MS)

    async def tw_full() -> None:
        snaps["full"] = await c.tab.snapshot(
            full=True, max_chars=NO_PAGING, timeout_ms=CALL_TIMEOUT_MS
        )

    async def pw_aria() -> None:
        nonlocal aria
        aria = await c.page.locator("body").aria_snapshot(timeout=CALL_TIMEOUT_MS)

    calls: dict[str, Callable[[], Awaitable[None]]] = {
        "tabwarden snapshot() interactive": tw_interactive,
        "tabwarden snapshot(full=True)": tw_full,
        "playwright aria_snapshot()": pw_aria,
    }
    firefox = c.firefox
    if firefox is not None:

        async def ff_interactive() -> None:
            assert firefox is not None
            snaps["firefox interactive"] = await firefox.snapshot(
                max_chars=NO_PAGING, timeout_ms=CALL_TIMEOUT_MS
            )

        async def ff_full() -> None:
            assert firefox is not None
            snaps["firefox full"] = await firefox.snapshot(
                full=True, max_chars=NO_PAGING, timeout_ms=CALL_TIMEOUT_MS
            )

        calls[FF_INTERACTIVE] = ff_interactive
        calls[FF_FULL] = ff_full
    start = time.perf_counter_ns()
    for _ in range(plan.warmup):
        for call in calls.values():
            await call()
    warm_s = ms_since(start) / 1000
    if quick and page.size >= 10_000 and warm_s > QUICK_SKIP_S * plan.warmup:
        print(f"\n(--quick: {page.size:,} elements skipped, its warm-up round took {warm_s:.0f} s)")
        return None
    rounds = plan.rounds(page.size)
    samples = await _interleaved(calls, rounds)

    interactive, full = snaps["interactive"], snaps["full"]
    assert interactive.page.next_cursor is None and full.page.next_cursor is None, "paged"
    result.interactive_chars = interactive.page.chars
    result.full_chars = full.page.chars
    result.pw_chars = len(aria)
    table = Table(
        f"(1) snapshot, {page.size:,} elements — {rounds} interleaved rounds "
        f"after {plan.warmup} warm-up"
    )
    time_target = (
        f"tabwarden interactive <= {TIME_TARGET}x playwright"
        if page.size >= TIME_TARGET_FROM
        else ""
    )
    rows = {
        name: table.add(
            Row(name, "ms", tuple(values), time_target if name == TW_INTERACTIVE else "")
        )
        for name, values in samples.items()
    }
    result.interactive_ms = rows["tabwarden snapshot() interactive"].median
    result.full_ms = rows["tabwarden snapshot(full=True)"].median
    result.pw_ms = rows["playwright aria_snapshot()"].median
    ratio = result.interactive_ms / result.pw_ms
    verdict = f" [target <= {TIME_TARGET}: {_verdict(ratio, TIME_TARGET)}]" if time_target else ""
    table.note(
        f"time / playwright (medians): interactive {ratio:.2f}x{verdict}, "
        f"full {result.full_ms / result.pw_ms:.2f}x"
    )
    chars_ratio = result.interactive_chars / result.pw_chars
    table.note(
        f"chars: interactive {result.interactive_chars:,} ({len(interactive.lines):,} lines), "
        f"full {result.full_chars:,} ({len(full.lines):,} lines), "
        f"playwright {result.pw_chars:,} ({len(aria.splitlines()):,} lines)"
    )
    table.note(
        f"chars / playwright: interactive {chars_ratio:.2f}x "
        f"[target <= {CHARS_TARGET}: {_verdict(chars_ratio, CHARS_TARGET)}], "
        f"full {result.full_chars / result.pw_chars:.2f}x (for information)"
    )
    for line in _coverage(page, interactive, aria):
        table.note(line)
    if firefox is not None:
        result.ff_interactive_ms = rows[FF_INTERACTIVE].median
        result.ff_full_ms = rows[FF_FULL].median
        ff_interactive, ff_full = snaps["firefox interactive"], snaps["firefox full"]
        result.ff_interactive_chars = ff_interactive.page.chars
        result.ff_full_chars = ff_full.page.chars
        table.note(
            f"firefox / chromium (tabwarden, medians): interactive "
            f"{result.ff_interactive_ms / result.interactive_ms:.2f}x, "
            f"full {result.ff_full_ms / result.full_ms:.2f}x"
        )
        table.note(
            f"firefox chars: interactive {result.ff_interactive_chars:,} "
            f"({len(ff_interactive.lines):,} lines), full {result.ff_full_chars:,} "
            f"({len(ff_full.lines):,} lines)"
        )
        for view, ours, theirs in (
            ("interactive", interactive, ff_interactive),
            ("full", full, ff_full),
        ):
            table.note(_agreement(view, ours.lines, theirs.lines))
        table.note(NO_PLAYWRIGHT_FIREFOX)
    return table, result


def _agreement(view: str, chromium: list[str], firefox: list[str]) -> str:
    """Whether the two engines' snapshot texts agree: line counts, the lines only one of
    them has (refs aside, as each tab numbers its own), and the first such pair."""
    ours = [_REF.sub("", line) for line in chromium]
    theirs = [_REF.sub("", line) for line in firefox]
    counts = f"{len(chromium):,} lines on chromium, {len(firefox):,} on firefox"
    if ours == theirs:
        same_refs = "same refs" if chromium == firefox else "refs numbered apart"
        return f"snapshot text, {view}: the same on both engines ({counts}; {same_refs})"
    only_chromium = Counter(ours) - Counter(theirs)
    only_firefox = Counter(theirs) - Counter(ours)
    first = next(
        ((a, b) for a, b in zip([*ours, ""], [*theirs, ""], strict=False) if a != b), ("", "")
    )
    return (
        f"snapshot text, {view}: DIFFERS ({counts}; {sum(only_chromium.values()):,} lines "
        f"only on chromium, {sum(only_firefox.values()):,} only on firefox, refs aside); "
        f"first: chromium {first[0].strip()[:70]!r} / firefox {first[1].strip()[:70]!r}"
    )


def _coverage(page: GeneratedPage, interactive: Snapshot, aria: str) -> list[str]:
    """How many of the page's interactive elements each snapshot shows, by role."""
    tw = Counter(m.group(1) for line in interactive.lines if (m := _TW_INTERACTIVE.match(line)))
    pw = Counter(m.group(1) for line in aria.splitlines() if (m := _PW_INTERACTIVE.match(line)))
    total = page.interactive_total
    lines = [
        f"interactive coverage: page has {total:,} (buttons+links+textboxes+checkboxes+selects); "
        f"with a ref in tabwarden interactive: {sum(tw.values()):,}; "
        f"lines in playwright: {sum(pw.values()):,}"
    ]
    if tw != Counter(page.interactive) or pw != Counter(page.interactive):
        for kind in INTERACTIVE_KINDS:
            lines.append(
                f"  {kind:<9} page {page.interactive[kind]:>5}  tabwarden {tw[kind]:>5}  "
                f"playwright {pw[kind]:>5}"
            )
    return lines


async def _interleaved(
    calls: dict[str, Callable[[], Awaitable[Any]]], rounds: int
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for round_no in range(rounds):
        # Alternate the order so no contender always runs first or last in a round.
        names = list(calls) if round_no % 2 == 0 else list(reversed(calls))
        for name in names:
            start = time.perf_counter_ns()
            await calls[name]()
            samples[name].append(ms_since(start))
    return samples


# ---- (2) clicks -----------------------------------------------------------------------


@contextlib.contextmanager
def receipts_without_diff() -> Iterator[None]:
    """Bench-only: make receipts skip their snapshot diff, as ``browser.receipt_diff:
    off`` does, without a second browser: this swaps in ``diff=False`` on the private
    ``ActionWatch.receipt`` for the duration."""
    original = ActionWatch.receipt

    async def receipt(
        self: ActionWatch, action: str, target: str | None, detail: str, budget: Budget, **_: Any
    ) -> Any:
        return await original(self, action, target, detail, budget, diff=False)

    ActionWatch.receipt = receipt  # type: ignore[method-assign]
    try:
        yield
    finally:
        ActionWatch.receipt = original  # type: ignore[method-assign]


async def _target_ref(tab: Tab, element_id: str) -> str:
    """The ref of the element with this id, from one interactive snapshot."""
    snap = await tab.snapshot(max_chars=NO_PAGING, timeout_ms=CALL_TIMEOUT_MS)
    context = await world(tab.frames, tab.target_id, Budget(CALL_TIMEOUT_MS / 1000))
    reply = await tab.cdp(
        "Runtime.evaluate",
        {
            "expression": "globalThis.__tabwardenWalker.idOf("
            f"document.getElementById({json.dumps(element_id)}))",
            "contextId": context,
            "returnByValue": True,
        },
    )
    handle = reply["result"]["value"]
    for node in snap.root.walk():
        if node.handle == handle and node.ref:
            return node.ref
    raise RuntimeError(f"#{element_id} has no ref in the interactive snapshot")


async def _firefox_target_ref(tab: FirefoxPage, element_id: str) -> str:
    """The ref of the element with this id on Firefox, from one interactive snapshot."""
    snap = await tab.snapshot(max_chars=NO_PAGING, timeout_ms=CALL_TIMEOUT_MS)
    handle = await tab.evaluate_in(
        tab.context,
        f"globalThis.__tabwardenWalker.idOf(document.getElementById({json.dumps(element_id)}))",
        Budget(CALL_TIMEOUT_MS / 1000),
    )
    for node in snap.root.walk():
        if node.handle == handle and node.ref:
            return node.ref
    raise RuntimeError(f"#{element_id} has no ref in Firefox's interactive snapshot")


async def bench_clicks(c: Contenders, result: SizeResult, plan: Plan) -> Table:
    page = result.page
    ref = await _target_ref(c.tab, page.target_id)
    selector = f"#{page.target_id}"
    tw_clicks = 0
    pw_clicks = 0
    diff_seen: list[bool] = []
    diff_skipped: list[str] = []

    async def tw_diff() -> None:
        nonlocal tw_clicks
        receipt = await c.tab.click(ref, timeout_ms=CALL_TIMEOUT_MS)
        tw_clicks += 1
        if receipt.diff_skipped:
            diff_skipped.append(receipt.diff_skipped)
        else:
            diff_seen.append(receipt.diff is not None)

    async def tw_nodiff() -> None:
        nonlocal tw_clicks
        with receipts_without_diff():
            receipt = await c.tab.click(ref, timeout_ms=CALL_TIMEOUT_MS)
        tw_clicks += 1
        assert receipt.diff is None

    async def pw_click() -> None:
        nonlocal pw_clicks
        await c.page.locator(selector).click(timeout=CALL_TIMEOUT_MS)
        pw_clicks += 1

    calls: dict[str, Callable[[], Awaitable[None]]] = {
        "tabwarden click(ref), receipt with diff": tw_diff,
        "tabwarden click(ref), no diff (patched)": tw_nodiff,
        "playwright locator(#target).click()": pw_click,
    }
    firefox = c.firefox
    ff_clicks = 0
    if firefox is not None:
        ff_ref = await _firefox_target_ref(firefox, page.target_id)

        async def ff_click() -> None:
            nonlocal ff_clicks
            assert firefox is not None
            receipt = await firefox.click(ff_ref, timeout_ms=CALL_TIMEOUT_MS)
            assert receipt.diff is not None or receipt.diff_skipped
            ff_clicks += 1

        calls[FF_CLICK] = ff_click
    for _ in range(plan.click_warmup):
        for call in calls.values():
            await call()
    rounds = plan.rounds(page.size, clicks=True)
    samples = await _interleaved(calls, rounds)
    expression = f"window.__hits[{json.dumps(page.target_id)}] || 0"
    tw_count = await _tw_eval(c.tab, expression)
    pw_count = await c.page.evaluate(expression)
    ff_count = 0
    if firefox is not None:
        ff_count = (await firefox.evaluate(expression, timeout_ms=CALL_TIMEOUT_MS)).value
    table = Table(
        f"(2) click a button in the middle by ref ({ref} = {selector}), {page.size:,} elements"
        f" — {rounds} interleaved rounds after {plan.click_warmup} warm-up"
    )
    names = list(calls)
    for name in names:
        target = (
            f"<= {CLICK_TARGET}x playwright"
            if name.startswith("tabwarden") and name != FF_CLICK
            else ""
        )
        table.add(Row(name, "ms", tuple(samples[name]), target))
    result.click_diff_ms = statistics.median(samples[names[0]])
    result.click_nodiff_ms = statistics.median(samples[names[1]])
    result.pw_click_ms = statistics.median(samples[names[2]])
    with_diff = result.click_diff_ms / result.pw_click_ms
    without = result.click_nodiff_ms / result.pw_click_ms
    table.note(
        f"click / playwright (medians): with diff {with_diff:.2f}x "
        f"[target <= {CLICK_TARGET}: {_verdict(with_diff, CLICK_TARGET)}], "
        f"no diff {without:.2f}x [{_verdict(without, CLICK_TARGET)}]"
    )
    table.note(
        "the no-diff row patches ActionWatch.receipt(diff=False) in this process (the same as "
        "browser.receipt_diff: off)"
    )
    ok = tw_count == tw_clicks and pw_count == pw_clicks and ff_count == ff_clicks
    on_firefox = f", tabwarden firefox page {ff_count}/{ff_clicks}" if firefox else ""
    table.note(
        f"onclick counter: tabwarden page {tw_count}/{tw_clicks} clicks, "
        f"playwright page {pw_count}/{pw_clicks}{on_firefox} — {'ok' if ok else 'MISMATCH'}"
    )
    if firefox is not None:
        result.ff_click_ms = statistics.median(samples[FF_CLICK])
        table.note(
            f"firefox click / chromium click (tabwarden, medians): with diff "
            f"{result.ff_click_ms / result.click_diff_ms:.2f}x, no diff "
            f"{result.ff_click_ms / result.click_nodiff_ms:.2f}x; the Firefox click returns "
            "the same receipt, its diff from a new walk of the page (Chromium reads the view "
            "while the page settles)"
        )
        table.note(NO_PLAYWRIGHT_FIREFOX)
    missing = diff_seen.count(False)
    if diff_skipped:
        table.note(
            f"receipts without a diff by design: {len(diff_skipped)} "
            f"(receipt_diff=auto skips it on {diff_skipped[0]})"
        )
    table.note(
        f"receipts that should carry a diff and have none: {missing}/{len(diff_seen)}"
        + (" (the receipt's snapshot ran out of its 5 s share of the budget)" if missing else "")
    )
    if not ok:
        table.print()
        raise RuntimeError("click counts do not match")
    return table


# ---- (6) paging through a long table ---------------------------------------------------


async def read_every_page(tab: Tab, *, full: bool) -> list[Snapshot]:
    """Every page of one snapshot at the default page size, cursor after cursor."""
    pages = [await tab.snapshot(full=full, timeout_ms=CALL_TIMEOUT_MS)]
    while (cursor := pages[-1].page.next_cursor) is not None:
        pages.append(await tab.snapshot(full=full, cursor=cursor, timeout_ms=CALL_TIMEOUT_MS))
    return pages


@contextlib.contextmanager
def counted_walks() -> Iterator[list[int]]:
    """Bench-only: count the walker's runs (one CDP call per frame walked)."""
    count = [0]
    original = CDPConnection.send

    async def send(self: CDPConnection, method: str, params: Any = None, **kwargs: Any) -> Any:
        if method == "Runtime.callFunctionOn" and ".snapshot(options" in str(
            (params or {}).get("functionDeclaration", "")
        ):
            count[0] += 1
        return await original(self, method, params, **kwargs)

    CDPConnection.send = send  # type: ignore[method-assign]
    try:
        yield count
    finally:
        CDPConnection.send = original  # type: ignore[method-assign]


async def bench_paging(c: Contenders, page: GeneratedPage, plan: Plan) -> Table:
    """Reading every page of a long table: one walk, then pages cut from that capture."""
    read: dict[str, list[Snapshot]] = {}
    aria = ""

    async def tw_interactive() -> None:
        read["interactive"] = await read_every_page(c.tab, full=False)

    async def tw_full() -> None:
        read["full"] = await read_every_page(c.tab, full=True)

    async def tw_walk_per_page() -> None:
        # What reading the interactive pages cost when each page walked the page again.
        for _ in read["interactive"]:
            await c.tab.snapshot(timeout_ms=CALL_TIMEOUT_MS)

    async def pw_aria() -> None:
        nonlocal aria
        aria = await c.page.locator("body").aria_snapshot(timeout=CALL_TIMEOUT_MS)

    await tw_interactive()
    calls: dict[str, Callable[[], Awaitable[None]]] = {
        "tabwarden every page, interactive": tw_interactive,
        "tabwarden every page, full=True": tw_full,
        f"tabwarden {len(read['interactive'])} walks (a walk per page, as before)": (
            tw_walk_per_page
        ),
        "playwright aria_snapshot(), all at once": pw_aria,
    }
    for _ in range(plan.warmup):
        for call in calls.values():
            await call()
    rounds = plan.rounds(page.size)
    samples = await _interleaved(calls, rounds)
    with counted_walks() as walks:
        await tw_full()
    later: list[float] = []
    cursor = read["full"][0].page.next_cursor
    while cursor is not None:  # the cost of one later page (no walk) on its own
        start = time.perf_counter_ns()
        snap = await c.tab.snapshot(full=True, cursor=cursor, timeout_ms=CALL_TIMEOUT_MS)
        later.append(ms_since(start))
        cursor = snap.page.next_cursor
    rows = page.interactive["link"]
    table = Table(
        f"(6) read every page of a {rows:,}-row table ({page.size:,} elements, "
        f"max_chars={DEFAULT_MAX_CHARS:,}) — {rounds} interleaved rounds after "
        f"{plan.warmup} warm-up"
    )
    target = f"<= {PAGING_TARGET}x playwright"
    for name, values in samples.items():
        table.add(Row(name, "ms", tuple(values), target if name.endswith("interactive") else ""))
    table.add(Row("tabwarden one later page (full), no walk", "ms", tuple(later)))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    pw_ms = medians.pop("playwright aria_snapshot(), all at once")
    ratio = medians["tabwarden every page, interactive"] / pw_ms
    table.note(
        f"time / playwright (medians): every page interactive {ratio:.2f}x "
        f"[target <= {PAGING_TARGET}: {_verdict(ratio, PAGING_TARGET)}], "
        + ", ".join(
            f"{name.removeprefix('tabwarden ')} {ms / pw_ms:.2f}x"
            for name, ms in medians.items()
            if not name.endswith("interactive")
        )
    )
    for view, pages in read.items():
        whole = pages[0]
        joined = [line for p in pages for line in p.text.splitlines() if not line.startswith("#")]
        # A page's own lines, without the header and footer lines (#) each page adds;
        # the interactive view's last line (# not shown: …) is one of those.
        captured = [line for line in whole.lines if not line.startswith("#")]
        table.note(
            f"{view}: {len(pages)} pages, {len(whole.lines):,} lines, "
            f"{sum(p.page.chars for p in pages):,} chars; pages == the capture: "
            f"{'yes' if joined == captured else 'NO'}"
        )
    table.note(
        f"walks to read every page (full): {walks[0]}; playwright: "
        f"{len(aria):,} chars, {len(aria.splitlines()):,} lines"
    )
    return table


# ---- (4) where the time goes ----------------------------------------------------------


async def bench_breakdown(
    c: Contenders, browser: tabwarden.BrowserSession, page: GeneratedPage, runs: int
) -> Table:
    """One interactive snapshot of the largest page, stage by stage."""
    tab = c.tab
    stages: dict[str, list[float]] = {}
    tracker = tab.page.tracker()
    assert tracker is not None
    registry = tracker.registry
    context = await world(registry, tab.target_id, Budget(CALL_TIMEOUT_MS / 1000))
    sizes: dict[str, int] = {}
    for run in range(runs + 1):  # the first run warms up and is dropped
        timings: list[tuple[str, float]] = []

        def timed(name: str, ms: float, timings: list[tuple[str, float]] = timings) -> None:
            timings.append((name, ms))

        start = time.perf_counter_ns()
        snap = await tab.snapshot(max_chars=NO_PAGING, timeout_ms=CALL_TIMEOUT_MS)
        timed("tab.snapshot() interactive, whole", ms_since(start))
        start = time.perf_counter_ns()
        await c.page.locator("body").aria_snapshot(timeout=CALL_TIMEOUT_MS)
        timed("(playwright aria_snapshot(), whole)", ms_since(start))

        # The walker alone: in-page time, then the call with transfer and decoding.
        # (The snapshot above installed the walker in this world.)
        wrapped = (
            "function(o) { const t0 = performance.now();"
            " const r = globalThis.__tabwardenWalker.snapshot(o, []);"
            " return [performance.now() - t0, r.length]; }"
        )
        reply = await tab.cdp(
            "Runtime.callFunctionOn",
            {
                "functionDeclaration": wrapped,
                "executionContextId": context,
                "arguments": [{"value": {"all": False}}],
                "returnByValue": True,
            },
        )
        in_page, chars = reply["result"]["value"]
        timed("walker.js in the page (performance.now)", in_page)
        sizes["walker JSON (interactive)"] = chars

        # tabwarden's own pipeline, step by step (what Tab._snapshot does).
        budget = Budget(CALL_TIMEOUT_MS / 1000)
        start = time.perf_counter_ns()
        walks = await tab.page.walker.walk(registry, budget, all_nodes=False)
        timed("Walker.walk: listeners + walker call, decoded", ms_since(start))
        start = time.perf_counter_ns()
        root = build_tree(walks, tab.target_id, tab.refs)
        timed("build_tree: nodes and refs", ms_since(start))
        start = time.perf_counter_ns()
        lines = render_lines(root, full=False, page_url=tab.url)
        timed("render_lines (interactive)", ms_since(start))
        start = time.perf_counter_ns()
        page_lines(["# header"], lines, capture="s0", max_chars=NO_PAGING)
        timed("page_lines", ms_since(start))
        del walks
        if run > 0:
            for name, ms in timings:
                stages.setdefault(name, []).append(ms)
    table = Table(
        f"(4) where a {page.size:,}-element interactive snapshot's time goes — "
        f"{runs} runs after 1 warm-up (stages timed one by one: not additive)"
    )
    for name, values in stages.items():
        table.add(Row(name, "ms", tuple(values)))
    table.note(
        "reply sizes: "
        + ", ".join(f"{name} {chars / 2**20:.2f} MiB" for name, chars in sizes.items())
    )
    nodes = root.walk()
    table.note(
        f"built tree: {len(nodes):,} nodes, {sum(1 for n in nodes if n.ref):,} refs; "
        f"interactive view {len(snap.lines):,} lines"
    )
    return table


@contextlib.contextmanager
def cdp_trace() -> Iterator[list[tuple[str, float, float]]]:
    """Bench-only: record (method, start ms, duration ms) of every CDP command sent."""
    calls: list[tuple[str, float, float]] = []
    original = CDPConnection.send
    origin = time.perf_counter_ns()

    async def send(self: CDPConnection, method: str, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter_ns()
        try:
            return await original(self, method, *args, **kwargs)
        finally:
            calls.append((method, (start - origin) / 1e6, ms_since(start)))

    CDPConnection.send = send  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        CDPConnection.send = original  # type: ignore[method-assign]


async def trace_click(c: Contenders, page: GeneratedPage) -> Table:
    """The CDP commands of one click (no diff), in order, with their durations."""
    ref = await _target_ref(c.tab, page.target_id)
    with receipts_without_diff():
        await c.tab.click(ref, timeout_ms=CALL_TIMEOUT_MS)  # warm
        with cdp_trace() as calls:
            start = time.perf_counter_ns()
            await c.tab.click(ref, timeout_ms=CALL_TIMEOUT_MS)
            total = ms_since(start)
    table = Table(
        f"(5) one tabwarden click(ref) without diff, {page.size:,} elements, traced: "
        f"{total:.1f} ms, {len(calls)} CDP commands"
    )
    for method, at, ms in sorted(calls, key=lambda call: call[1]):
        table.note(f"at {at:6.1f} ms  {method:<32} {ms:6.1f} ms")
    return table


async def profile_snapshot(tab: Tab, top: int = 25) -> str:
    """cProfile of one interactive snapshot (the event loop included), by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    await tab.snapshot(max_chars=NO_PAGING, timeout_ms=CALL_TIMEOUT_MS)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


# ---- leftovers ------------------------------------------------------------------------


def _chromium_children() -> set[int]:
    found = set()
    for proc in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            if any(browser in proc.name().lower() for browser in ("chrom", "firefox")):
                found.add(proc.pid)
    return found


def leftover_browsers(pids: set[int]) -> list[str]:
    """Browser processes this run started that still exist: launched pids, our children,
    and any process whose command line names one of our profile folders."""
    found: dict[int, str] = {}
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc = psutil.Process(pid)
            if proc.status() != psutil.STATUS_ZOMBIE:
                found[pid] = proc.name()
    for pid in _chromium_children():
        with contextlib.suppress(psutil.NoSuchProcess):
            found[pid] = psutil.Process(pid).name()
    marker = f"tabwarden-run-{os.getpid()}-"
    for proc in psutil.process_iter(["pid", "name", "cmdline"]):
        cmdline = " ".join(proc.info.get("cmdline") or [])
        if marker in cmdline:
            found[proc.info["pid"]] = proc.info.get("name") or "?"
    return [f"{pid} ({name})" for pid, name in sorted(found.items())]


# ---- main -----------------------------------------------------------------------------


def print_summary(results: list[SizeResult]) -> None:
    print("\n(3) summary: tabwarden / playwright, medians")
    heads = "".join(f"{r.size:>12,}" for r in results)
    print(f"  {'elements':<34}{heads}  target")

    def line(name: str, values: list[float], target: str = "", unit: str = "x") -> None:
        cells = "".join(f"{v:>11.2f}{unit}" if unit == "x" else f"{v:>10.1f}{unit}" for v in values)
        print(f"  {name:<34}{cells}  {target}".rstrip())

    line(
        "snapshot time, interactive",
        [r.interactive_ms / r.pw_ms for r in results],
        f"<= {TIME_TARGET} at {TIME_TARGET_FROM:,}+",
    )
    line("snapshot time, full", [r.full_ms / r.pw_ms for r in results])
    line(
        "snapshot chars, interactive",
        [r.interactive_chars / r.pw_chars for r in results],
        f"<= {CHARS_TARGET}",
    )
    line("snapshot chars, full", [r.full_chars / r.pw_chars for r in results], "(information)")
    clicked = [r for r in results if r.pw_click_ms]
    if clicked:
        line(
            "click, receipt with diff",
            [r.click_diff_ms / r.pw_click_ms for r in clicked],
            f"<= {CLICK_TARGET}",
        )
        line(
            "click, no diff (patched)",
            [r.click_nodiff_ms / r.pw_click_ms for r in clicked],
            f"<= {CLICK_TARGET}",
        )
    print(f"  {'absolute medians (ms)':<34}")
    line("  tabwarden interactive", [r.interactive_ms for r in results], unit="ms")
    line("  tabwarden full", [r.full_ms for r in results], unit="ms")
    line("  playwright aria_snapshot", [r.pw_ms for r in results], unit="ms")
    if clicked:
        line("  tabwarden click with diff", [r.click_diff_ms for r in clicked], unit="ms")
        line("  tabwarden click no diff", [r.click_nodiff_ms for r in clicked], unit="ms")
        line("  playwright click", [r.pw_click_ms for r in clicked], unit="ms")
    ff = [r for r in results if r.ff_interactive_ms]
    if ff:
        print("\n(3) summary: tabwarden on firefox / tabwarden on chromium, medians")
        heads = "".join(f"{r.size:>12,}" for r in ff)
        print(f"  {'elements':<34}{heads}")
        line("snapshot time, interactive", [r.ff_interactive_ms / r.interactive_ms for r in ff])
        line("snapshot time, full", [r.ff_full_ms / r.full_ms for r in ff])
        line(
            "snapshot chars, interactive",
            [r.ff_interactive_chars / r.interactive_chars for r in ff],
        )
        line("snapshot chars, full", [r.ff_full_chars / r.full_chars for r in ff])
        line("click / click with diff", [r.ff_click_ms / r.click_diff_ms for r in ff])
        line("click / click no diff", [r.ff_click_ms / r.click_nodiff_ms for r in ff])
        print(f"  {'absolute medians on firefox (ms)':<34}")
        line("  tabwarden interactive", [r.ff_interactive_ms for r in ff], unit="ms")
        line("  tabwarden full", [r.ff_full_ms for r in ff], unit="ms")
        line("  tabwarden click, receipt with diff", [r.ff_click_ms for r in ff], unit="ms")
        print(f"  {NO_PLAYWRIGHT_FIREFOX}")


async def main(
    quick: bool, sizes: list[int], profile: bool, table_rows: int, engines: tuple[str, ...]
) -> int:
    plan = QUICK if quick else FULL
    pids: set[int] = set()
    results: list[SizeResult] = []
    pages = {size: generate_page(size) for size in sizes}
    long_table = generate_table_page(table_rows) if table_rows else None
    with tempfile.TemporaryDirectory(prefix="tabwarden-bench-pages-") as folder:
        for size, page in pages.items():
            Path(folder, f"page-{size}.html").write_text(page.html, encoding="utf-8")
        if long_table is not None:
            Path(folder, "table.html").write_text(long_table.html, encoding="utf-8")
        with PageServer(Path(folder)) as server:
            async with contextlib.AsyncExitStack() as stack:
                browser = await stack.enter_async_context(tabwarden.launch(isolated=True))
                pw = await stack.enter_async_context(async_playwright())
                firefox = None
                if "firefox" in engines:
                    firefox = await stack.enter_async_context(
                        tabwarden.launch(engine="firefox", isolated=True)
                    )
                    if firefox.backend.pid is not None:
                        pids.add(firefox.backend.pid)
                before = _chromium_children()
                pw_browser: PWBrowser = await pw.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=PLAYWRIGHT_ARGS
                )
                try:
                    assert browser.endpoint is not None
                    if browser.endpoint.pid is not None:
                        pids.add(browser.endpoint.pid)
                    pids |= _chromium_children() - before
                    print(
                        f"tabwarden {tabwarden.__version__} snapshot bench "
                        f"({'quick' if quick else 'full'}) — tabwarden: {browser.product}; "
                        f"playwright {package_version('playwright')}: Chrome/{pw_browser.version}"
                        f"; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
                        f"load average {_load()}"
                    )
                    print(
                        f"local site {server.base}, pages of {', '.join(f'{s:,}' for s in sizes)}"
                        " elements"
                    )
                    pw_page = await pw_browser.new_page(viewport={"width": 1280, "height": 720})
                    c = Contenders(await browser.new_tab(), pw_page, browser.endpoint.pid)
                    if firefox is not None:
                        c.firefox = await firefox.new_tab()
                        print(f"firefox: {_firefox_version()}; {NO_PLAYWRIGHT_FIREFOX}")
                    largest: GeneratedPage | None = None
                    for size, page in pages.items():
                        await _goto(c, server.url(f"page-{size}.html"), page)
                        measured = await bench_snapshots(c, page, plan, quick)
                        if measured is None:
                            continue
                        table, result = measured
                        table.print()
                        (await bench_clicks(c, result, plan)).print()
                        results.append(result)
                        largest = page
                    if results:
                        print_summary(results)
                    if largest is not None:
                        await _goto(c, server.url(f"page-{largest.size}.html"), largest)
                        (await bench_breakdown(c, browser, largest, plan.breakdown_runs)).print()
                        (await trace_click(c, largest)).print()
                        if profile:
                            print(
                                f"\ncProfile of one {largest.size:,}-element interactive "
                                "snapshot (by own time):"
                            )
                            print(await profile_snapshot(c.tab))
                    if long_table is not None:
                        await _goto(c, server.url("table.html"), long_table)
                        (await bench_paging(c, long_table, plan)).print()
                finally:
                    await pw_browser.close()
    leftovers = leftover_browsers(pids)
    print(f"\nload average at the end {_load()} (other work on the machine skews the figures)")
    if leftovers:
        print(f"leftover browser processes: {', '.join(leftovers)}  <- NOT CLEANED UP")
        return 1
    print(f"leftover browser processes: none ({len(pids)} browser processes watched, all gone)")
    return 0


def _firefox_version() -> str:
    """Firefox's version, as its executable says it (the BiDi session keeps none)."""
    executable = find_firefox(None)
    reply = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=30)
    return reply.stdout.strip() or "Firefox"


def _engines(text: str) -> tuple[str, ...]:
    chosen = tuple(part.strip() for part in text.split(",") if part.strip())
    if "chromium" not in chosen or any(engine not in ENGINES for engine in chosen):
        raise argparse.ArgumentTypeError(
            f"engines are chromium (always: Playwright's side) and firefox, not {text!r}"
        )
    return tuple(engine for engine in ENGINES if engine in chosen)


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of numbers") from None
    if not sizes or min(sizes) < 60:
        raise argparse.ArgumentTypeError("sizes are element counts of at least 60")
    return sizes


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a rough look")
    parser.add_argument(
        "--sizes",
        type=_sizes,
        default=list(DEFAULT_SIZES),
        help="comma-separated page sizes in elements (default 100,1000,10000)",
    )
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile one snapshot of the largest page"
    )
    parser.add_argument(
        "--table-rows",
        type=int,
        default=DEFAULT_TABLE_ROWS,
        help=f"rows of the table read page by page (default {DEFAULT_TABLE_ROWS:,}; 0: skip)",
    )
    parser.add_argument(
        "--engines",
        type=_engines,
        default=ENGINES,
        help="chromium, or chromium,firefox (default): tabwarden on Firefox beside it",
    )
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.quick, args.sizes, args.profile, args.table_rows, args.engines)))
