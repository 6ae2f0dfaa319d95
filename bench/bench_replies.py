"""Reply size over MCP: a 10-step form task on the demo site's contact page.

Each call's reply is counted as what a client may hand its model: the characters of its
text blocks plus its ``structuredContent`` as compact JSON (``_meta`` is left out: it is
for the harness). The task runs through the SDK's in-process client, as the tests drive
the server, in a fresh Python process per code base:

* before: the ``--before`` commit (default 1fe9e67), checked out into a temporary
  ``git worktree`` and imported from there (``PYTHONPATH`` at its ``src``): measured,
  not reconstructed;
* after: this checkout's code.

    .venv/bin/python bench/bench_replies.py [--before 1fe9e67]

Timings inside receipts ("(31 ms)") make a figure move by a character or two between
runs. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

STEPS = 10


async def measure() -> list[dict[str, Any]]:
    """Run the task with whichever tabwarden this process imports; one row per call."""
    from mcp import Client
    from mcp_types import CallToolResult, TextContent

    from tabwarden.demo.server import DemoSite
    from tabwarden.surfaces.mcp import MCPOptions, build_server

    rows: list[dict[str, Any]] = []

    def count(tool: str, what: str, result: CallToolResult) -> str:
        if result.is_error:
            raise SystemExit(f"{tool} failed: {result.content}")
        text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
        structured = result.structured_content
        rows.append(
            {
                "step": f"{tool.removeprefix('browser_')} {what}".strip(),
                "text": sum(len(c.text) for c in result.content if isinstance(c, TextContent)),
                "structured": 0
                if structured is None
                else len(json.dumps(structured, separators=(",", ":"), ensure_ascii=False)),
            }
        )
        return text

    with DemoSite() as site:
        server = build_server(MCPOptions(groups=("all",)))
        async with Client(server, mode="legacy") as client:

            async def call(tool: str, what: str, arguments: dict[str, Any]) -> str:
                return count(tool, what, await client.call_tool(tool, arguments))

            await call("browser_navigate", "contact", {"url": site.url("contact.html")})
            snapshot = await call("browser_snapshot", "", {})
            refs = dict(re.findall(r'"([^"]*)" \[ref=(e\d+)\]', snapshot))
            await call("browser_fill", "name", {"ref": refs["Name"], "value": "Ada Lovelace"})
            await call("browser_fill", "email", {"ref": refs["Email"], "value": "ada@example.com"})
            await call("browser_select", "topic", {"ref": refs["Topic"], "values": ["A product"]})
            await call(
                "browser_fill",
                "message",
                {"ref": refs["Message"], "value": "Does the tent fit four?"},
            )
            await call("browser_check", "newsletter", {"ref": refs["Send me the newsletter"]})
            await call("browser_click", "send", {"ref": refs["Send"]})
            await call("browser_get_text", "thanks", {})
            await call("browser_evaluate", "query", {"expression": "location.search"})
    assert len(rows) == STEPS
    return rows


def run_measure(pythonpath: Path | None) -> tuple[list[dict[str, Any]], str]:
    """``measure()`` in a fresh process importing tabwarden from ``pythonpath`` (None:
    the installed one); its rows and the tabwarden file it imported."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, __file__, "--measure"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if done.returncode != 0:
        raise SystemExit(f"the task failed ({done.returncode}):\n{done.stderr[-3000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["rows"], found["imported"]


def before_rows(commit: str) -> tuple[list[dict[str, Any]], str]:
    """The task on ``commit``'s code, from a temporary worktree removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="tabwarden-before-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), commit],
            check=True,
        )
        try:
            return run_measure(tree / "src")
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False
            )


def report(commit: str) -> None:
    before, before_from = before_rows(commit)
    after, after_from = run_measure(None)
    print(
        f"MCP reply characters, {STEPS}-step form task (text + structuredContent as compact JSON)"
    )
    print(f"  before: commit {commit}, measured from a worktree ({before_from})")
    print(f"  after:  this checkout ({after_from})")
    head = f"{'text':>9} + {'struct':>7} = {'total':>6}"
    print(f"  {'':<22} {'before':^28}   {'after':^28}")
    print(f"  {'call':<22} {head}   {head}")
    sums = {"before": [0, 0], "after": [0, 0]}
    for old, new in zip(before, after, strict=True):
        cells = []
        for side, row in (("before", old), ("after", new)):
            sums[side][0] += row["text"]
            sums[side][1] += row["structured"]
            total = row["text"] + row["structured"]
            cells.append(f"{row['text']:>9,} + {row['structured']:>7,} = {total:>6,}")
        print(f"  {new['step']:<22} {cells[0]}   {cells[1]}")
    totals = []
    for side in ("before", "after"):
        text, structured = sums[side]
        totals.append(f"{text:>9,} + {structured:>7,} = {text + structured:>6,}")
    print(f"  {'total':<22} {totals[0]}   {totals[1]}")
    old_total, new_total = sum(sums["before"]), sum(sums["after"])
    print(
        f"  saved {old_total - new_total:,} characters of {old_total:,} "
        f"({(old_total - new_total) / old_total:.0%}); text alone: "
        f"{sums['before'][0] - sums['after'][0]:,} of {sums['before'][0]:,}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="1fe9e67", help="the commit to compare with")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        import tabwarden

        rows = asyncio.run(measure())
        print(json.dumps({"rows": rows, "imported": tabwarden.__file__}))
    else:
        report(args.before)


if __name__ == "__main__":
    main()
