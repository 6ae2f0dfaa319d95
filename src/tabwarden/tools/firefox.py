"""The tools on the Firefox engine (``browser.engine: firefox``): the same tools, names,
parameters and replies as on Chromium.

Most tools have one handler for both engines (``ToolSpec.engines``): it asks the
context for the call's page (``ctx.page()``: a Chromium ``Tab`` or a ``FirefoxPage``,
whose calls and results are the same). The handlers here are those whose session
calls differ (tabs, dialogs, downloads, metrics, closing). A tool Firefox does not do
has no handler: the registry hides it from a Firefox session's tool list and refuses
a call to it with ``EngineUnsupported``; so is a parameter a handler cannot honour
(never half done). docs/engines-matrix.md lists both.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import EngineUnsupported, InvalidArgument
from ..supervisor.dialogs import ClosedDialog, dialog_action
from . import browser, files, state
from .catalog import TOOLS
from .context import ToolContext
from .spec import ToolResult

__all__ = ["FIREFOX_HANDLERS", "firefox_handler"]

Handler = Callable[[ToolContext, Any], Awaitable[ToolResult]]


async def dialog(ctx: ToolContext, p: browser.DialogParams) -> ToolResult:
    session = await ctx.firefox()
    waiting = [t for t in session.tabs if t.pending_dialog is not None]
    if p.dialog_id is not None:
        waiting = [t for t in waiting if t.pending_dialog and t.pending_dialog.id == p.dialog_id]
    if not waiting:
        raise InvalidArgument(
            "no dialog waits for an answer" + (f" with id {p.dialog_id}" if p.dialog_id else ""),
            hint="take a snapshot to see the page",
        )
    page = waiting[0]
    accept = dialog_action(p.action)
    answered = await page.dialog(p.action, prompt_text=p.prompt_text, timeout_ms=p.timeout_ms)
    closed = ClosedDialog(answered, time.time(), "agent", accept)
    verb = "accepted" if accept else "dismissed"
    return ToolResult(f"{verb} {answered.describe()}", closed.to_dict(), untrusted=True)


async def tabs(ctx: ToolContext, p: browser.TabsParams) -> ToolResult:
    session = await ctx.firefox(timeout_ms=p.timeout_ms)
    if p.action == "new":
        await session.new_tab(p.url, timeout_ms=p.timeout_ms)
    active = session.active_tab
    lines, listed = [], []
    for tab in session.tabs:
        opener = tab.opener.id if tab.opener is not None else None
        line = f"- {tab.id} {json.dumps(tab.title)} {tab.url}"
        line += " [active]" if tab is active else ""
        line += f" [opened by {opener}]" if opener else ""
        line += f" [dialog {tab.pending_dialog.id}]" if tab.pending_dialog else ""
        lines.append(line)
        listed.append(
            {
                "id": tab.id,
                "url": tab.url,
                "title": tab.title,
                "active": tab is active,
                "opener": opener,
            }
        )
    return ToolResult("\n".join(lines) or "no tabs", {"tabs": listed}, untrusted=True)


async def switch_tab(ctx: ToolContext, p: browser.TabParams) -> ToolResult:
    session = await ctx.firefox()
    page = await session.switch_tab(p.tab_id, timeout_ms=p.timeout_ms)
    text = f"active tab: {page.id} {json.dumps(page.title)} {page.url}"
    return ToolResult(text, {"tab_id": page.id}, untrusted=True)


async def close_tab(ctx: ToolContext, p: browser.CloseTabParams) -> ToolResult:
    session = await ctx.firefox()
    page = session.get_tab(p.tab_id) if p.tab_id is not None else session.active_tab
    if page is None:
        raise InvalidArgument("no tab is open", hint="open one with browser_tabs action=new")
    await page.close(timeout_ms=p.timeout_ms)
    active = session.active_tab
    now = f"; active tab: {active.id}" if active else "; no tab is open"
    return ToolResult(f"closed tab {page.id}{now}", {})


async def close(ctx: ToolContext, p: browser.NoParams) -> ToolResult:
    await ctx.close()
    return ToolResult("closed the browser session; the next call starts a new one", {})


async def metrics(ctx: ToolContext, p: browser.NoParams) -> ToolResult:
    session = await ctx.firefox()
    data = session.metrics.snapshot()
    return ToolResult(json.dumps(data, indent=1), data)


async def downloads(ctx: ToolContext, p: files.DownloadsParams) -> ToolResult:
    session = await ctx.firefox()
    listing = await session.downloads(wait=p.wait, guid=p.guid, timeout_ms=p.timeout_ms)
    # File names and URLs come from pages.
    return ToolResult(listing.text, listing.to_dict(), untrusted=True)


async def emulate(ctx: ToolContext, p: state.EmulateParams) -> ToolResult:
    session = await ctx.firefox(timeout_ms=p.timeout_ms)
    result = await session.emulate(p, timeout_ms=p.timeout_ms)
    return ToolResult(result.text, result.to_dict())


FIREFOX_HANDLERS: dict[str, Handler] = {
    **{spec.name: spec.handler for spec in TOOLS if "firefox" in spec.engines},
    "browser_dialog": dialog,
    "browser_tabs": tabs,
    "browser_switch_tab": switch_tab,
    "browser_close_tab": close_tab,
    "browser_close": close,
    "browser_metrics": metrics,
    "browser_downloads": downloads,
    "browser_emulate": emulate,
}
"""Tool name → its handler on a Firefox session: the tool's own where it serves both
engines (``ToolSpec.engines``), else the one here (the session's calls differ)."""


def firefox_handler(tool: str) -> Handler:
    """The tool's handler on Firefox, or ``EngineUnsupported`` saying why there is none."""
    handler = FIREFOX_HANDLERS.get(tool)
    if handler is None:
        raise EngineUnsupported(
            tool,
            "firefox",
            hint="docs/engines-matrix.md lists the tools a Firefox session serves; use engine "
            "chromium for this one",
        )
    return handler
