"""The same short agent tasks over MCP, against tabwarden and against Playwright MCP.

Each server is started over stdio, as an MCP client starts it, and driven by the same
scripted agent: five tasks on local pages (a form, a confirm dialog, a cross-origin
iframe, a popup, a large page). For each server it reports, side by side and in one
run: the size of its default tool definitions, each call's latency (median and p95),
the characters of every reply (text and structured content), and whether the task
succeeded, read from the page afterwards (that read is not counted). It writes a
Markdown table and an SVG chart (``--out``) that anyone can make again::

    .venv/bin/python bench/bench_peers.py                          # tabwarden only
    .venv/bin/python bench/bench_peers.py --with-playwright         # + Playwright MCP
    .venv/bin/python bench/bench_peers.py --with-playwright --out docs/bench

``--with-playwright`` installs ``@playwright/mcp`` (the version in PLAYWRIGHT_MCP) from
npm into a cache folder the first time, and points it at the same Chromium
(``/usr/bin/chromium`` or ``TABWARDEN_CHROME``), headless and isolated, as tabwarden
runs it. Nothing here is timed as a test: run it on a quiet machine, several rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import tabwarden

PLAYWRIGHT_MCP = "0.0.83"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tabwarden-bench"
CALL_TIMEOUT_S = 60.0
LARGE_ROWS = 3_000
TARGET_ROW = 1_500

# ---- the pages ------------------------------------------------------------------------

_FORM = """<!doctype html><title>Order</title><h1>Order a shirt</h1>
<form onsubmit="event.preventDefault(); result.textContent = 'Order placed for ' +
  who.value + ': ' + size.selectedOptions[0].text + (gift.checked ? ', gift wrapped' : '')">
<label>Name <input id="who"></label>
<label>Size <select id="size"><option value="s">Small</option><option value="l">Large</option>
</select></label>
<label><input type="checkbox" id="gift"> Gift wrap</label>
<button>Place order</button></form><p id="result">nothing yet</p>"""

_DIALOG = """<!doctype html><title>Files</title><h1>report.pdf</h1>
<button onclick="result.textContent = confirm('Delete report.pdf?') ? 'deleted' : 'kept'">
Delete</button><p id="result">nothing yet</p>"""

_IFRAME = """<!doctype html><title>News</title><h1>Newsletter</h1>
<iframe src="{child}" title="signup" width="400" height="120"></iframe>
<p id="result">nothing yet</p>
<script>addEventListener('message', e => {{ result.textContent = e.data; }});</script>"""

_IFRAME_CHILD = """<!doctype html><title>Signup</title>
<button onclick="parent.postMessage('subscribed', '*')">Subscribe</button>"""

_POPUP = """<!doctype html><title>Shop</title><h1>Shop</h1>
<a href="/help" target="_blank">Open help</a>"""

_HELP = """<!doctype html><title>Help</title><h1>Help</h1>
<button onclick="result.textContent = 'thanks'">Got it</button><p id="result">nothing yet</p>"""


def _large() -> str:
    rows = "\n".join(
        f"<tr><td>Item {i}</td><td>{i * 3 % 97}.99</td>"
        f"<td><button onclick=\"result.textContent='bought {i}'\">Buy item {i}</button></td></tr>"
        for i in range(1, LARGE_ROWS + 1)
    )
    return (
        f"<!doctype html><title>Catalogue</title><h1>Catalogue</h1>"
        f'<p id="result">nothing yet</p><table>{rows}</table>'
    )


class Site:
    """The pages, on 127.0.0.1, and the iframe's child on localhost (another site)."""

    def __init__(self) -> None:
        self._servers = [self._serve("127.0.0.1"), self._serve("localhost")]
        self.base = f"http://127.0.0.1:{self._servers[0].server_port}"
        self.other = f"http://localhost:{self._servers[1].server_port}"
        self.pages = {
            "/form": _FORM,
            "/dialog": _DIALOG,
            "/iframe": _IFRAME.format(child=f"{self.other}/signup"),
            "/signup": _IFRAME_CHILD,
            "/popup": _POPUP,
            "/help": _HELP,
            "/large": _large(),
        }

    def _serve(self, host: str) -> ThreadingHTTPServer:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = site.pages.get(self.path.split("?")[0])
                data = (body or "not found").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer((host, 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def close(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()


# ---- one MCP server, as an agent sees it ----------------------------------------------


@dataclass
class Call:
    task: str
    tool: str
    ms: float
    chars: int
    error: bool


@dataclass
class Run:
    server: str
    version: str
    tool_chars: int = 0
    tools: int = 0
    calls: list[Call] = field(default_factory=list)
    success: dict[str, bool] = field(default_factory=dict)


_REF = re.compile(r'- (\w+) "([^"]*)"[^\n]*?\[ref=(\w+)\]')


def find_ref(snapshot: str, role: str, name: str) -> str:
    """The ref of the element with this role and name in a snapshot's text (both servers
    write ``- role "name" … [ref=e7]``)."""
    for found_role, found_name, ref in _REF.findall(snapshot):
        if found_role == role and found_name.strip() == name:
            return ref
    raise LookupError(f"no {role} {name!r} in the snapshot:\n{snapshot[:2000]}")


class Agent:
    """Calls one server's tools and keeps what each call cost."""

    def __init__(self, session: ClientSession, run: Run) -> None:
        self.session = session
        self.run = run
        self.task = ""

    async def call(self, tool: str, args: dict[str, Any], *, counted: bool = True) -> str:
        started = time.perf_counter()
        result = await asyncio.wait_for(self.session.call_tool(tool, args), CALL_TIMEOUT_S)
        ms = (time.perf_counter() - started) * 1000
        text = "\n".join(c.text for c in result.content if c.type == "text")
        structured = result.structured_content
        chars = len(text) + (len(json.dumps(structured, ensure_ascii=False)) if structured else 0)
        if counted:
            self.run.calls.append(Call(self.task, tool, ms, chars, bool(result.is_error)))
        return text


class Driver:
    """How one server's tools do each step (their names and arguments differ)."""

    name = ""

    def params(self) -> StdioServerParameters:
        raise NotImplementedError

    async def navigate(self, agent: Agent, url: str) -> None:
        await agent.call("browser_navigate", {"url": url})

    async def snapshot(self, agent: Agent, tab: str | None = None) -> str:
        raise NotImplementedError

    async def click(self, agent: Agent, ref: str, what: str, tab: str | None = None) -> str:
        raise NotImplementedError

    async def fill(self, agent: Agent, ref: str, what: str, value: str) -> None:
        raise NotImplementedError

    async def select(self, agent: Agent, ref: str, what: str, label: str) -> None:
        raise NotImplementedError

    async def check(self, agent: Agent, ref: str, what: str) -> None:
        raise NotImplementedError

    async def accept_dialog(self, agent: Agent) -> None:
        raise NotImplementedError

    async def to_new_tab(self, agent: Agent, click_reply: str) -> str | None:
        raise NotImplementedError

    async def read(self, agent: Agent, selector: str, tab: str | None = None) -> str:
        raise NotImplementedError

    async def find(self, agent: Agent, text: str) -> str:
        """The part of the page that shows ``text``, with refs (each server's own way to
        look for something on a large page)."""
        raise NotImplementedError


class Tabwarden(Driver):
    name = "tabwarden"

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable, args=["-m", "tabwarden", "mcp", "--isolated", "--headless"]
        )

    async def snapshot(self, agent: Agent, tab: str | None = None) -> str:
        return await agent.call("browser_snapshot", {"tab_id": tab} if tab else {})

    async def click(self, agent: Agent, ref: str, what: str, tab: str | None = None) -> str:
        return await agent.call("browser_click", {"ref": ref} | ({"tab_id": tab} if tab else {}))

    async def fill(self, agent: Agent, ref: str, what: str, value: str) -> None:
        await agent.call("browser_fill", {"ref": ref, "value": value})

    async def select(self, agent: Agent, ref: str, what: str, label: str) -> None:
        await agent.call("browser_select", {"ref": ref, "values": [label]})

    async def check(self, agent: Agent, ref: str, what: str) -> None:
        await agent.call("browser_check", {"ref": ref})

    async def accept_dialog(self, agent: Agent) -> None:
        await agent.call("browser_dialog", {"action": "accept"})

    async def to_new_tab(self, agent: Agent, click_reply: str) -> str | None:
        # A receipt names the tabs the action opened ("new tab t2"): no call needed.
        found = re.search(r"\bt\d+\b", click_reply.split("new tab", 1)[-1])
        return found.group(0) if found and "new tab" in click_reply else None

    async def read(self, agent: Agent, selector: str, tab: str | None = None) -> str:
        args = {"ref": selector} | ({"tab_id": tab} if tab else {})
        return await agent.call("browser_get_text", args, counted=False)

    async def find(self, agent: Agent, text: str) -> str:
        return await agent.call("browser_snapshot", {"find": text})


class PlaywrightMcp(Driver):
    name = "playwright-mcp"

    def __init__(self, folder: Path, output: Path) -> None:
        self.cli = folder / "node_modules" / "@playwright" / "mcp" / "cli.js"
        self.output = output

    def params(self) -> StdioServerParameters:
        chrome = os.environ.get("TABWARDEN_CHROME") or shutil.which("chromium") or "chromium"
        args = [str(self.cli), "--headless", "--isolated", "--executable-path", chrome]
        args += ["--output-dir", str(self.output)]
        if os.geteuid() == 0:
            args.append("--no-sandbox")
        return StdioServerParameters(command="node", args=args, cwd=str(self.output))

    async def snapshot(self, agent: Agent, tab: str | None = None) -> str:
        return await agent.call("browser_snapshot", {})

    async def click(self, agent: Agent, ref: str, what: str, tab: str | None = None) -> str:
        return await agent.call("browser_click", {"element": what, "target": ref})

    async def fill(self, agent: Agent, ref: str, what: str, value: str) -> None:
        await agent.call("browser_type", {"element": what, "target": ref, "text": value})

    async def select(self, agent: Agent, ref: str, what: str, label: str) -> None:
        await agent.call(
            "browser_select_option", {"element": what, "target": ref, "values": [label]}
        )

    async def check(self, agent: Agent, ref: str, what: str) -> None:
        await agent.call("browser_click", {"element": what, "target": ref})

    async def accept_dialog(self, agent: Agent) -> None:
        await agent.call("browser_handle_dialog", {"accept": True})

    async def to_new_tab(self, agent: Agent, click_reply: str) -> str | None:
        await agent.call("browser_tabs", {"action": "select", "index": 1})
        return None

    async def read(self, agent: Agent, selector: str, tab: str | None = None) -> str:
        function = f"() => document.querySelector({json.dumps(selector)})?.textContent ?? ''"
        return await agent.call("browser_evaluate", {"function": function}, counted=False)

    async def find(self, agent: Agent, text: str) -> str:
        return await agent.call("browser_find", {"text": text})


# ---- the tasks --------------------------------------------------------------------------


async def task_form(d: Driver, a: Agent, site: Site) -> bool:
    await d.navigate(a, f"{site.base}/form")
    snap = await d.snapshot(a)
    await d.fill(a, find_ref(snap, "textbox", "Name"), "Name textbox", "Ada")
    await d.select(a, find_ref(snap, "combobox", "Size"), "Size select", "Large")
    await d.check(a, find_ref(snap, "checkbox", "Gift wrap"), "Gift wrap checkbox")
    await d.click(a, find_ref(snap, "button", "Place order"), "Place order button")
    return "Order placed for Ada: Large, gift wrapped" in await d.read(a, "#result")


async def task_dialog(d: Driver, a: Agent, site: Site) -> bool:
    await d.navigate(a, f"{site.base}/dialog")
    snap = await d.snapshot(a)
    await d.click(a, find_ref(snap, "button", "Delete"), "Delete button")
    await d.accept_dialog(a)
    return "deleted" in await d.read(a, "#result")


async def task_iframe(d: Driver, a: Agent, site: Site) -> bool:
    await d.navigate(a, f"{site.base}/iframe")
    snap = await d.snapshot(a)
    await d.click(a, find_ref(snap, "button", "Subscribe"), "Subscribe button in the iframe")
    return "subscribed" in await d.read(a, "#result")


async def task_popup(d: Driver, a: Agent, site: Site) -> bool:
    await d.navigate(a, f"{site.base}/popup")
    snap = await d.snapshot(a)
    reply = await d.click(a, find_ref(snap, "link", "Open help"), "Open help link")
    tab = await d.to_new_tab(a, reply)
    snap = await d.snapshot(a, tab)
    await d.click(a, find_ref(snap, "button", "Got it"), "Got it button", tab)
    return "thanks" in await d.read(a, "#result", tab)


async def task_large(d: Driver, a: Agent, site: Site) -> bool:
    await d.navigate(a, f"{site.base}/large")
    snap = await d.find(a, f"Buy item {TARGET_ROW}")
    await d.click(a, find_ref(snap, "button", f"Buy item {TARGET_ROW}"), "Buy button")
    return f"bought {TARGET_ROW}" in await d.read(a, "#result")


TASKS: dict[str, Callable[[Driver, Agent, Site], Awaitable[bool]]] = {
    "form": task_form,
    "dialog": task_dialog,
    "iframe": task_iframe,
    "popup": task_popup,
    "large page": task_large,
}


async def run_server(driver: Driver, site: Site, rounds: int) -> Run:
    async with stdio_client(driver.params()) as (read, write), ClientSession(read, write) as s:
        init = await s.initialize()
        tools = await s.list_tools()
        run = Run(driver.name, f"{init.server_info.name} {init.server_info.version}")
        definitions = [t.model_dump(exclude_none=True, by_alias=True) for t in tools.tools]
        # As a client receives them: compact JSON (the token figures of the docs use the same).
        run.tool_chars = len(json.dumps(definitions, ensure_ascii=False, separators=(",", ":")))
        run.tools = len(tools.tools)
        agent = Agent(s, run)
        for round_ in range(rounds):
            for name, task in TASKS.items():
                agent.task = name
                try:
                    ok = await task(driver, agent, site)
                except (LookupError, TimeoutError) as exc:
                    print(f"  {driver.name} {name}: {exc!s:.300}", file=sys.stderr)
                    ok = False
                run.success[name] = run.success.get(name, True) and ok if round_ else ok
                if name == "popup":
                    await _close_extra_tabs(driver, agent)
        return run


async def _close_extra_tabs(driver: Driver, agent: Agent) -> None:
    """Back to one tab, so every round starts alike (not counted)."""
    if isinstance(driver, PlaywrightMcp):
        await agent.call("browser_tabs", {"action": "close", "index": 1}, counted=False)
        await agent.call("browser_tabs", {"action": "select", "index": 0}, counted=False)
    else:
        await agent.call("browser_tabs", {"action": "close"}, counted=False)


# ---- installing the peer -----------------------------------------------------------------


def install_playwright_mcp() -> Path:
    folder = CACHE / f"playwright-mcp-{PLAYWRIGHT_MCP}"
    if not (folder / "node_modules" / "@playwright" / "mcp" / "cli.js").exists():
        if shutil.which("npm") is None:
            sys.exit("--with-playwright needs node and npm (Debian: apt-get install nodejs npm)")
        folder.mkdir(parents=True, exist_ok=True)
        print(f"installing @playwright/mcp@{PLAYWRIGHT_MCP} into {folder} …", file=sys.stderr)
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--silent",
                "--prefix",
                str(folder),
                f"@playwright/mcp@{PLAYWRIGHT_MCP}",
            ],
            check=True,
        )
    return folder


# ---- figures -----------------------------------------------------------------------------


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def table(runs: list[Run], rounds: int) -> str:
    lines = [
        "| | " + " | ".join(r.server for r in runs) + " |",
        "|---|" + "---|" * len(runs),
        "| server | " + " | ".join(r.version for r in runs) + " |",
        "| default tools | " + " | ".join(f"{r.tools}" for r in runs) + " |",
        "| tool definitions, characters (≈ tokens) | "
        + " | ".join(f"{r.tool_chars:,} (≈ {r.tool_chars // 4:,})" for r in runs)
        + " |",
    ]
    for name in TASKS:
        cells = []
        for r in runs:
            calls = [c for c in r.calls if c.task == name]
            per_round = len(calls) // rounds if rounds else 0
            chars = sum(c.chars for c in calls) // max(1, rounds)
            ms = [c.ms for c in calls]
            ok = "✓" if r.success.get(name) else "✗"
            cells.append(
                f"{ok} {per_round} calls, {chars:,} chars, "
                f"{statistics.median(ms):.0f} / {_p95(ms):.0f} ms"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for label, pick in (
        ("all calls: median / p95 ms", "ms"),
        ("reply characters, all tasks", "chars"),
    ):
        cells = []
        for r in runs:
            if pick == "ms":
                ms = [c.ms for c in r.calls]
                cells.append(f"{statistics.median(ms):.0f} / {_p95(ms):.0f}")
            else:
                cells.append(f"{sum(c.chars for c in r.calls) // max(1, rounds):,}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def chart(runs: list[Run], rounds: int) -> str:
    """Two bar groups per task: reply characters and median latency, one colour a server."""
    colours = ["#2f6fdf", "#e8833a", "#3aa660"]
    width, row, left = 760, 26, 110
    names = list(TASKS)
    height = 70 + 2 * (len(names) * (row * len(runs) + 10) + 40)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    y = 24
    for i, r in enumerate(runs):
        parts.append(
            f'<rect x="{left + i * 180}" y="{y - 10}" width="12" height="12" fill="{colours[i]}"/>'
            f'<text x="{left + i * 180 + 18}" y="{y}">{html.escape(r.server)}</text>'
        )
    y += 26
    for title, value, unit in (
        ("reply characters per task (fewer is cheaper)", "chars", ""),
        ("median latency per call (ms)", "ms", " ms"),
    ):
        parts.append(f'<text x="10" y="{y}" font-weight="bold">{title}</text>')
        y += 14
        figures = {
            (r.server, n): (
                sum(c.chars for c in r.calls if c.task == n) / max(1, rounds)
                if value == "chars"
                else statistics.median([c.ms for c in r.calls if c.task == n] or [0])
            )
            for r in runs
            for n in names
        }
        top = max(figures.values()) or 1
        for n in names:
            parts.append(f'<text x="10" y="{y + row - 8}">{html.escape(n)}</text>')
            for i, r in enumerate(runs):
                v = figures[(r.server, n)]
                w = max(1, (width - left - 90) * v / top)
                parts.append(
                    f'<rect x="{left}" y="{y + 2}" width="{w:.0f}" height="{row - 6}" '
                    f'fill="{colours[i]}"/><text x="{left + w + 4:.0f}" y="{y + row - 8}">'
                    f"{v:,.0f}{unit}</text>"
                )
                y += row
            y += 10
        y += 30
    parts.append("</svg>")
    return "\n".join(parts)


def machine() -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    chrome = os.environ.get("TABWARDEN_CHROME") or shutil.which("chromium") or "chromium"
    try:
        browser = subprocess.run(
            [chrome, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
    except OSError:
        browser = "browser version unknown"
    return (
        f"{platform.system()} {platform.release()}, {os.cpu_count()} CPUs, {browser}, Python "
        f"{platform.python_version()}, tabwarden {tabwarden.__version__}, load {load}"
    )


async def main(args: argparse.Namespace) -> int:
    site = Site()
    drivers: list[Driver] = [Tabwarden()]
    with contextlib.ExitStack() as stack:
        if args.with_playwright:
            output = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pw-mcp-")))
            drivers.append(PlaywrightMcp(install_playwright_mcp(), output))
        runs = []
        try:
            for driver in drivers:
                print(f"running {driver.name} ({args.rounds} rounds) …", file=sys.stderr)
                runs.append(await run_server(driver, site, args.rounds))
        finally:
            site.close()
    when = time.strftime("%Y-%m-%d")
    report = (
        f"Agent tasks over MCP, {args.rounds} rounds, {when}: {machine()}.\n"
        "Cells: task succeeded (read from the page), calls per round, reply characters per "
        "round (text + structured content), median / p95 latency per call. Both servers "
        "drive the same Chromium, headless, with a throwaway profile.\n\n"
        + table(runs, args.rounds)
        + "\n\nPlaywright MCP writes the page snapshot that follows a navigation or a click "
        "to a file and links it in the reply; an agent that opens those files reads more "
        "than its replies count here. tabwarden's replies carry the change an action made "
        "(a diff of the view) instead.\n\nMade by `bench/bench_peers.py --with-playwright "
        f"--rounds {args.rounds} --out docs/bench` (Playwright MCP {PLAYWRIGHT_MCP}, "
        "installed from npm into a cache folder by that flag)."
    )
    print(report)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "peers.md").write_text(report + "\n\n![figures](peers.svg)\n", encoding="utf-8")
        (out / "peers.svg").write_text(chart(runs, args.rounds) + "\n", encoding="utf-8")
        print(f"wrote {out / 'peers.md'} and {out / 'peers.svg'}", file=sys.stderr)
    return 0 if all(all(r.success.values()) for r in runs) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-playwright", action="store_true", help="also Playwright MCP")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of all tasks per server")
    parser.add_argument("--out", help="folder for peers.md and peers.svg")
    sys.exit(asyncio.run(main(parser.parse_args())))
