"""The tools on the Firefox engine: the same tools, names and parameters, run on a
``FirefoxSession`` (``browser.engine: firefox``).

A tool Firefox does not do has no handler here: the registry hides it from a Firefox
session's tool list and refuses a call to it with ``EngineUnsupported``. A parameter
a handler cannot honour is refused the same way when it is not its default (never
half done); docs/engines-matrix.md lists both.
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..actions.receipt import Receipt
from ..errors import EngineUnsupported, EvaluateDisabled, InvalidArgument
from ..navigation import NavigationResult
from ..supervisor.dialogs import ClosedDialog, dialog_action
from . import browser, diagnostics
from .context import ToolContext
from .spec import Image, Params, ToolResult

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
    _refuse_set("browser_snapshot", p, ("scope",))
    page = await ctx.firefox_tab(p.tab_id)
    snap = await page.snapshot(
        full=p.full, find=p.find, max_chars=p.max_chars, cursor=p.cursor, timeout_ms=p.timeout_ms
    )
    data = snap.to_dict()
    data.pop("text", None)
    if not ctx.node_tree:
        data.pop("nodes", None)
    return ToolResult(snap.text, data, untrusted=True)


async def click(ctx: ToolContext, p: browser.ClickParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(
        await page.click(
            p.ref,
            button=p.button,
            click_count=p.click_count,
            modifiers=list(p.modifiers or ()),
            timeout_ms=p.timeout_ms,
        )
    )


async def drag(ctx: ToolContext, p: browser.DragParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(await page.drag(p.start_ref, p.end_ref, timeout_ms=p.timeout_ms))


async def select(ctx: ToolContext, p: browser.SelectParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(await page.select(p.ref, p.values, timeout_ms=p.timeout_ms))


async def check(ctx: ToolContext, p: browser.CheckParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(await page.check(p.ref, p.checked, timeout_ms=p.timeout_ms))


async def scroll(ctx: ToolContext, p: browser.ScrollParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    direction = None if p.direction == "into_view" else p.direction
    return _receipt(
        await page.scroll(p.ref, direction=direction, amount=p.amount, timeout_ms=p.timeout_ms)
    )


async def upload_file(ctx: ToolContext, p: browser.UploadParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    return _receipt(await page.upload_file(p.ref, p.paths, timeout_ms=p.timeout_ms))


async def wait(ctx: ToolContext, p: browser.WaitParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    said = await page.wait(
        text=p.text,
        text_gone=p.text_gone,
        exact=p.exact,
        ref=p.ref,
        state=p.state,
        load_state=p.load_state,
        time_ms=p.time_ms,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(said, {"tab_id": page.id})


async def act_batch(ctx: ToolContext, p: browser.BatchParams) -> ToolResult:
    page = await ctx.firefox_tab(p.tab_id)
    receipts = await page.act_batch(p.steps, timeout_ms=p.timeout_ms)
    text = "\n".join(f"{i + 1}. {r.text}" for i, r in enumerate(receipts))
    data = {"steps": [r.to_dict() for r in receipts]}
    return ToolResult(text, data, untrusted=any(r.carries_page_text for r in receipts))


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


def _png_size(data: bytes) -> tuple[int, int]:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    return 0, 0


async def screenshot(ctx: ToolContext, p: browser.ScreenshotParams) -> ToolResult:
    _refuse_set("browser_screenshot", p, ("ref", "full_page", "format", "annotate", "save", "path"))
    page = await ctx.firefox_tab(p.tab_id)
    data = await page.screenshot(timeout_ms=p.timeout_ms)
    width, height = _png_size(data)
    info = {"tab_id": page.id, "width": width, "height": height, "format": "png"}
    text = f"screenshot of tab {page.id}: {width}x{height} png"
    return ToolResult(text, info, [Image(data, "image/png")])


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
    if not ctx.manager.config.browser.evaluate_enabled:
        raise EvaluateDisabled("evaluating JavaScript is turned off for this session")
    _refuse_set("browser_evaluate", p, ("function", "ref", "frame_id", "args", "await_promise"))
    if p.expression is None:
        raise InvalidArgument("give an expression", hint="expression='document.title'")
    page = await ctx.firefox_tab(p.tab_id)
    started = time.monotonic()
    value, kind = await page.evaluate_typed(p.expression, timeout_ms=p.timeout_ms)
    shown = value if isinstance(value, str) else json.dumps(value)
    elapsed_ms = int((time.monotonic() - started) * 1000)
    data = {"value": value, "type": kind, "elapsed_ms": elapsed_ms, "truncated": False}
    return ToolResult(shown, data, untrusted=True)


_LEVELS = {"warning": "warn", "log": "info"}


async def console(ctx: ToolContext, p: diagnostics.ConsoleParams) -> ToolResult:
    _refuse_set("browser_console", p, ("since", "clear"))
    page = await ctx.firefox_tab(p.tab_id)
    wanted = {_LEVELS.get(level, level) for level in p.level} if p.level else None
    entries = [e for e in page.console() if wanted is None or e.level in wanted]
    shown = entries[-p.max_entries :]
    lines = [f"[{e.level}] {e.text}" + (f" ({e.url})" if e.url else "") for e in shown]
    data = {"tab_id": page.id, "total": len(entries), "entries": [_entry(e) for e in shown]}
    return ToolResult("\n".join(lines) or "no console messages", data, untrusted=True)


def _entry(entry: Any) -> dict[str, Any]:
    return {
        "level": entry.level,
        "text": entry.text,
        "url": entry.url,
        "timestamp": entry.timestamp,
    }


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
    "browser_select": select,
    "browser_check": check,
    "browser_scroll": scroll,
    "browser_drag": drag,
    "browser_upload_file": upload_file,
    "browser_wait": wait,
    "browser_act_batch": act_batch,
    "browser_dialog": dialog,
    "browser_screenshot": screenshot,
    "browser_get_text": get_text,
    "browser_tabs": tabs,
    "browser_switch_tab": switch_tab,
    "browser_close_tab": close_tab,
    "browser_close": close,
    "browser_evaluate": evaluate,
    "browser_console": console,
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
