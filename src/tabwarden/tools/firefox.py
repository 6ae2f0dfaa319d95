"""The tools on the Firefox engine: the same tools, names and parameters, run on a
``FirefoxSession`` (``browser.engine: firefox``).

A tool Firefox does not do has no handler here: the registry hides it from a Firefox
session's tool list and refuses a call to it with ``EngineUnsupported``. A parameter
a handler cannot honour is refused the same way when it is not its default (never
half done); docs/engines-matrix.md lists both.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..actions.receipt import Receipt
from ..errors import EngineUnsupported, InvalidArgument
from ..navigation import NavigationResult
from ..supervisor.dialogs import ClosedDialog, dialog_action
from . import browser, diagnostics, files
from .context import ToolContext
from .spec import Params, ToolResult

__all__ = ["FIREFOX_HANDLERS", "firefox_handler"]

Handler = Callable[[ToolContext, Any], Awaitable[ToolResult]]


def _refuse_set(tool: str, p: Params, names: tuple[str, ...]) -> None:
    """``EngineUnsupported`` for a parameter given another value than its default."""
    for name in names:
        field = type(p).model_fields[name]
        value = getattr(p, name)
        if value != field.default:
            raise EngineUnsupported(
                f"{tool} with {name}={value!r}",
                "firefox",
                hint=f"leave {name} out on Firefox, or use engine chromium for it",
            )


def _navigation(result: NavigationResult) -> ToolResult:
    return ToolResult(result.text, result.to_dict(), untrusted=True, is_error=not result.navigated)


def _receipt(receipt: Receipt) -> ToolResult:
    return ToolResult(receipt.text, receipt.to_dict(), untrusted=receipt.carries_page_text)


async def navigate(ctx: ToolContext, p: browser.NavigateParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _navigation(await page.navigate(p.url, wait_until=p.wait_until, timeout_ms=p.timeout_ms))


async def back(ctx: ToolContext, p: browser.HistoryParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _navigation(await page.back(wait_until=p.wait_until, timeout_ms=p.timeout_ms))


async def forward(ctx: ToolContext, p: browser.HistoryParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _navigation(await page.forward(wait_until=p.wait_until, timeout_ms=p.timeout_ms))


async def reload(ctx: ToolContext, p: browser.HistoryParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _navigation(await page.reload(wait_until=p.wait_until, timeout_ms=p.timeout_ms))


async def snapshot(ctx: ToolContext, p: browser.SnapshotParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    snap = await page.snapshot(
        full=p.full,
        find=p.find,
        scope=p.scope,
        max_chars=p.max_chars,
        cursor=p.cursor,
        timeout_ms=p.timeout_ms,
    )
    data = snap.to_dict()
    data.pop("text", None)
    if not ctx.node_tree:
        data.pop("nodes", None)
    return ToolResult(snap.text, data, untrusted=True)


async def click(ctx: ToolContext, p: browser.ClickParams) -> ToolResult:
    _refuse_set("browser_click", p, ("button", "click_count", "modifiers"))
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(await page.click(p.ref, timeout_ms=p.timeout_ms))


async def hover(ctx: ToolContext, p: browser.RefParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(await page.hover(p.ref, timeout_ms=p.timeout_ms))


async def fill(ctx: ToolContext, p: browser.FillParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(await page.fill(p.ref, p.value, timeout_ms=p.timeout_ms))


async def type_(ctx: ToolContext, p: browser.TypeParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(
        await page.type(
            p.text, ref=p.ref, submit=p.submit, delay_ms=p.delay_ms, timeout_ms=p.timeout_ms
        )
    )


async def press(ctx: ToolContext, p: browser.PressParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(await page.press(p.key, ref=p.ref, timeout_ms=p.timeout_ms))


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


async def screenshot(ctx: ToolContext, p: browser.ScreenshotParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    shot = await page.screenshot(
        ref=p.ref,
        full_page=p.full_page,
        format=p.format,
        annotate=p.annotate,
        save=p.save,
        path=p.path,
        timeout_ms=p.timeout_ms,
    )
    return browser.screenshot_result(page.id, shot, p.annotate)


async def get_text(ctx: ToolContext, p: browser.GetTextParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    text = await page.get_text(p.ref, max_chars=p.max_chars, timeout_ms=p.timeout_ms)
    return ToolResult(text, {"tab_id": page.id}, untrusted=True)


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


async def evaluate(ctx: ToolContext, p: browser.EvaluateParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    result = await page.evaluate(
        p.expression,
        function=p.function,
        ref=p.ref,
        frame_id=p.frame_id,
        args=p.args,
        await_promise=p.await_promise,
        timeout_ms=p.timeout_ms,
    )
    shown = result.value if isinstance(result.value, str) else json.dumps(result.value)
    more = f" [truncated: {result.total_chars:,} chars in all]" if result.truncated else ""
    return ToolResult(f"{shown}{more}", result.to_dict(), untrusted=True)


async def console(ctx: ToolContext, p: diagnostics.ConsoleParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    report = await page.console(
        level=p.level,
        since=p.since,
        clear=p.clear,
        max_entries=p.max_entries,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(report.text, report.to_dict(), untrusted=True)


async def get_content(ctx: ToolContext, p: browser.GetContentParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    content = await page.get_content(
        format=p.format, max_chars=p.max_chars, cursor=p.cursor, timeout_ms=p.timeout_ms
    )
    return browser.content_result(content)


async def get_images(ctx: ToolContext, p: browser.GetImagesParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return browser.images_result(
        await page.get_images(max_images=p.max_images, timeout_ms=p.timeout_ms)
    )


async def metrics(ctx: ToolContext, p: browser.NoParams) -> ToolResult:
    session = await ctx.firefox()
    data = session.metrics.snapshot()
    return ToolResult(json.dumps(data, indent=1), data)


async def network(ctx: ToolContext, p: diagnostics.NetworkParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    report = await page.network(
        url=p.url,
        type=p.type,
        status=p.status,
        request_id=p.request_id,
        max_entries=p.max_entries,
        clear=p.clear,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(report.text, report.to_dict(), untrusted=True)


async def downloads(ctx: ToolContext, p: files.DownloadsParams) -> ToolResult:
    session = await ctx.firefox()
    listing = await session.downloads(wait=p.wait, guid=p.guid, timeout_ms=p.timeout_ms)
    # File names and URLs come from pages.
    return ToolResult(listing.text, listing.to_dict(), untrusted=True)


FIREFOX_HANDLERS: dict[str, Handler] = {
    "browser_navigate": navigate,
    "browser_back": back,
    "browser_forward": forward,
    "browser_reload": reload,
    "browser_snapshot": snapshot,
    "browser_click": click,
    "browser_hover": hover,
    "browser_fill": fill,
    "browser_type": type_,
    "browser_press": press,
    "browser_dialog": dialog,
    "browser_screenshot": screenshot,
    "browser_get_text": get_text,
    "browser_tabs": tabs,
    "browser_switch_tab": switch_tab,
    "browser_close_tab": close_tab,
    "browser_close": close,
    "browser_evaluate": evaluate,
    "browser_console": console,
    "browser_get_content": get_content,
    "browser_get_images": get_images,
    "browser_metrics": metrics,
    "browser_network": network,
    "browser_downloads": downloads,
}
"""Tool name → its handler on a Firefox session."""


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
