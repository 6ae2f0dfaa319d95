"""Screenshots of the workbench for the docs: docs/workbench/*.png.

Starts the bundled demo shop, two agent sessions driven through the tool registry (as an
MCP client would drive them), and the workbench watching them; then opens the workbench
in a separate headless Chromium, through tabwarden itself, and captures:

- sessions.png   the grid of live sessions
- live.png       one session: the live view with the boxes and refs the agent saw
- timeline.png   a call's receipt opened in the timeline, the network drawer open
- dialog.png     a pending confirm() waiting for the person's answer

Run it again at will: ``.venv/bin/python scripts/workbench_screenshots.py [--out DIR]``.
Nothing is left running: the sessions, browsers and servers close on exit.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import tabwarden
from tabwarden.config import Config, load_config
from tabwarden.demo.server import DemoSite
from tabwarden.manager import SessionManager
from tabwarden.session import BrowserSession
from tabwarden.surfaces.workbench import Workbench
from tabwarden.tab import Tab
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

ROOT = Path(__file__).resolve().parents[1]
WAIT_S = 30.0
VIEWER_SIZE = (1440, 900)


def headless_config(width: int = 1280, height: int = 800) -> Config:
    config = load_config().model_copy(deep=True)
    config.browser.headless = True
    config.browser.isolated = True
    config.browser.window_width = width
    config.browser.window_height = height
    return config


async def until(tab: Tab, expression: str, what: str, timeout_s: float = WAIT_S) -> Any:
    """Poll ``expression`` in the workbench page until it is truthy (or fail saying what)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = (await tab.evaluate(expression)).value
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"the workbench never showed {what} within {timeout_s:.0f} s")
        await asyncio.sleep(0.1)


async def shoot(tab: Tab, path: Path) -> None:
    shot = await tab.screenshot()
    path.write_bytes(shot.data)
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


async def click_testid(tab: Tab, testid: str, extra: str = "") -> None:
    await tab.evaluate(f"document.querySelector('[data-testid=\"{testid}\"]{extra}').click()")


@asynccontextmanager
async def viewer_browser() -> AsyncIterator[BrowserSession]:
    width, height = VIEWER_SIZE
    async with tabwarden.launch(
        config=headless_config(width, height), name="workbench-viewer"
    ) as s:
        yield s


async def agent(ctx: ToolContext, tool: str, **arguments: Any) -> str:
    result = await call_tool(ctx, f"browser_{tool}", arguments)
    return result.text


async def run(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with DemoSite() as site:
        async with SessionManager(headless_config()) as manager, Workbench() as bench:
            bench.watch_manager(manager)
            shop = ToolContext(manager, "demo-shop")
            research = ToolContext(manager, "research")
            await agent(shop, "navigate", url=site.url("index.html"))
            await agent(research, "navigate", url=site.url("products.html"))
            await agent(shop, "snapshot")
            await agent(shop, "click", ref=await ref_named(shop, "Contact"))
            await agent(research, "snapshot")

            async with viewer_browser() as viewer:
                page = await viewer.current_tab()
                await page.navigate(bench.url)
                await until(
                    page,
                    "document.querySelectorAll('[data-testid=session-thumbnail]').length >= 2",
                    "a thumbnail on both session cards",
                )
                await shoot(page, out / "sessions.png")

                await page.navigate(f"{bench.url}#/s/demo-shop")
                await until(page, "window.__workbench && __workbench.frames > 0", "a frame")
                await agent(shop, "snapshot")
                await until(page, "__workbench.overlayBoxes().length > 0", "the agent's boxes")
                await agent(shop, "fill", ref=await ref_named(shop, "Name"), value="Ada Lovelace")
                await until(
                    page, "document.querySelector('[data-testid=action-mark]')", "an action mark"
                )
                await shoot(page, out / "live.png")

                await click_testid(page, "timeline-entry", "[data-tool=browser_snapshot]")
                await click_testid(page, "diag-tab-network")
                await until(
                    page,
                    "document.querySelector('[data-testid=call-receipt]').textContent.length > 0",
                    "a receipt",
                )
                await shoot(page, out / "timeline.png")
                await click_testid(page, "timeline-detail-close")
                await click_testid(page, "diag-tab-network")  # closes the drawer again

                await agent(
                    shop,
                    "evaluate",
                    expression="setTimeout(() => confirm('Send the message without a topic?'), 50)",
                )
                await until(
                    page,
                    "!document.querySelector('[data-testid=dialog-banner]').hidden",
                    "the pending dialog",
                )
                await shoot(page, out / "dialog.png")
                await click_testid(page, "dialog-dismiss")
                await until(
                    page,
                    "document.querySelector('[data-testid=dialog-banner]').hidden",
                    "the dialog closed",
                )


async def ref_named(ctx: ToolContext, name: str) -> str:
    """The ref of the first element whose accessible name is ``name`` in a fresh snapshot."""
    text = await agent(ctx, "snapshot")
    for line in text.splitlines():
        if f'"{name}"' in line and "[ref=" in line:
            return line.split("[ref=", 1)[1].split("]", 1)[0]
    raise LookupError(f"no element named {name!r} in the snapshot:\n{text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "workbench")
    args = parser.parse_args()
    asyncio.run(run(args.out))


if __name__ == "__main__":
    main()
