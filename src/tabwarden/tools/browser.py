"""The browser tools: thin handlers over the domain code, one definition each."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..actions.receipt import Receipt
from ..content import ImageList, PageContent
from ..counting import counted
from ..engines import ENGINES
from ..errors import InvalidArgument
from ..navigation import NavigationResult
from ..screenshot import MAX_AREA_PX, MAX_SIDE_PX, Screenshot
from .context import ToolContext
from .spec import CommandLine, FlagAlias, Image, OptionAlias, Params, ToolResult, ToolSpec

__all__ = ["TOOLS", "content_result", "images_result", "screenshot_result"]

Ref = Field(description="Element ref from the latest snapshot (e7, @e7) or a CSS selector")
TabId = Field(None, description="Tab id (t2); default: the active tab")
Timeout = Field(None, gt=0, le=600_000, description="Deadline for the whole call, in ms")


def _receipt(receipt: Receipt) -> ToolResult:
    return ToolResult(receipt.text, receipt.to_dict(), untrusted=receipt.carries_page_text)


def _navigation(result: NavigationResult) -> ToolResult:
    # Held back by a dialog of the page being left: an error that has a result to show.
    return ToolResult(result.text, result.to_dict(), untrusted=True, is_error=not result.navigated)


# ---- navigation ---------------------------------------------------------------------


class NavigationOutput(BaseModel):
    """A navigation's structured data: where the tab is and how the load went."""

    tab_id: str
    url: str
    title: str
    status: int | None = None
    ok: bool
    navigated: bool = True


class NavigateParams(Params):
    url: str = Field(description="Where to go (http(s) URL; a bare host like localhost:8000 works)")
    wait_until: Literal["commit", "domcontentloaded", "load", "networkidle"] = "load"
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def navigate(ctx: ToolContext, p: NavigateParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _navigation(await tab.navigate(p.url, wait_until=p.wait_until, timeout_ms=p.timeout_ms))


class HistoryParams(Params):
    wait_until: Literal["commit", "domcontentloaded", "load", "networkidle"] = "load"
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def back(ctx: ToolContext, p: HistoryParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _navigation(await tab.back(wait_until=p.wait_until, timeout_ms=p.timeout_ms))


async def forward(ctx: ToolContext, p: HistoryParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _navigation(await tab.forward(wait_until=p.wait_until, timeout_ms=p.timeout_ms))


async def reload(ctx: ToolContext, p: HistoryParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _navigation(await tab.reload(wait_until=p.wait_until, timeout_ms=p.timeout_ms))


# ---- snapshot and page output ---------------------------------------------------------


class SnapshotParams(Params):
    full: bool = Field(False, description="All content, not only what can be acted on")
    scope: str | None = Field(None, description="Only this ref's subtree")
    find: str | None = Field(
        None,
        description="Only lines containing this text (case-insensitive, spaces collapsed) "
        "or matching this /regex/",
    )
    max_chars: int = Field(12_000, ge=200, le=1_000_000, description="Page size of the text")
    cursor: str = Field(
        "0",
        coerce_numbers_to_str=True,  # a client's 0 means the same as "0"
        description="The cursor a page ends with (s3:120): that snapshot's next page, "
        "without a new walk; 0: a new snapshot",
    )
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def snapshot(ctx: ToolContext, p: SnapshotParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    snap = await tab.snapshot(
        full=p.full,
        scope=p.scope,
        find=p.find,
        max_chars=p.max_chars,
        cursor=p.cursor,
        timeout_ms=p.timeout_ms,
    )
    data = snap.to_dict()
    data.pop("text", None)
    if not ctx.node_tree:
        data.pop("nodes", None)
    return ToolResult(snap.text, data, untrusted=True)


class ScreenshotParams(Params):
    ref: str | None = Field(None, description="Only this element")
    full_page: bool = False
    format: Literal["png", "jpeg"] = "png"
    annotate: bool = Field(False, description="Draw each interactive element's ref on it")
    save: bool = Field(False, description="Also save it in the workspace's screenshots folder")
    path: str | None = Field(None, description="Save it under this file name (in the workspace)")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def screenshot(ctx: ToolContext, p: ScreenshotParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    shot = await tab.screenshot(
        ref=p.ref,
        full_page=p.full_page,
        format=p.format,
        annotate=p.annotate,
        save=p.save,
        path=p.path,
        timeout_ms=p.timeout_ms,
    )
    return screenshot_result(tab.id, shot, p.annotate)


def screenshot_result(tab_id: str, shot: Screenshot, annotate: bool) -> ToolResult:
    """A screenshot as a tool's result (either engine)."""
    marks = f", {counted(shot.marks, 'ref')} marked" if annotate else ""
    text = f"screenshot of tab {tab_id}: {shot.width}x{shot.height} {shot.format}{marks}"
    if shot.cut:
        text += f"\n{shot.note()}"
    if shot.path is not None:
        text += f"\nsaved to {shot.path} ({len(shot.data):,} bytes)"
    return ToolResult(text, shot.to_dict(), [Image(shot.data, f"image/{shot.format}")])


class GetTextParams(Params):
    ref: str | None = Field(None, description="An element; default: the whole page")
    max_chars: int = Field(20_000, ge=100, le=1_000_000)
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def get_text(ctx: ToolContext, p: GetTextParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    text = await tab.get_text(p.ref, max_chars=p.max_chars, timeout_ms=p.timeout_ms)
    return ToolResult(text, {"tab_id": tab.id}, untrusted=True)


class GetContentParams(Params):
    format: Literal["markdown", "text"] = "markdown"
    max_chars: int = Field(20_000, ge=200, le=1_000_000)
    cursor: int = Field(0, ge=0, description="Character to resume from (from the last page)")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def get_content(ctx: ToolContext, p: GetContentParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    content = await tab.get_content(
        format=p.format, max_chars=p.max_chars, cursor=p.cursor, timeout_ms=p.timeout_ms
    )
    return content_result(content)


def content_result(content: PageContent) -> ToolResult:
    """A page's content as a tool's result (either engine)."""
    data = content.to_dict()
    data.pop("text", None)
    return ToolResult(content.text, data, untrusted=True)


class GetImagesParams(Params):
    max_images: int = Field(200, ge=1, le=10_000)
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def get_images(ctx: ToolContext, p: GetImagesParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return images_result(await tab.get_images(max_images=p.max_images, timeout_ms=p.timeout_ms))


def images_result(images: ImageList) -> ToolResult:
    """A page's images as a tool's result (either engine)."""
    data = images.to_dict()
    lines = [
        f"- {json.dumps(i.alt)} {i.src} {i.width}x{i.height}"
        + ("" if i.loaded in (True, None) else " [broken]")
        + ("" if i.visible else " [hidden]")
        for i in images.images
    ]
    more = " (more not listed)" if images.truncated else ""
    return ToolResult(
        f"{counted(images.total, 'image')}{more}\n" + "\n".join(lines), data, untrusted=True
    )


# ---- actions ------------------------------------------------------------------------


class ClickParams(Params):
    ref: str = Ref
    button: Literal["left", "right", "middle"] = "left"
    click_count: int = Field(1, ge=1, le=3)
    modifiers: list[Literal["Alt", "Control", "Meta", "Shift"]] | None = None
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def click(ctx: ToolContext, p: ClickParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(
        await tab.click(
            p.ref,
            button=p.button,
            click_count=p.click_count,
            modifiers=list(p.modifiers or ()),
            timeout_ms=p.timeout_ms,
        )
    )


class RefParams(Params):
    ref: str = Ref
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def hover(ctx: ToolContext, p: RefParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(await tab.hover(p.ref, timeout_ms=p.timeout_ms))


class DragParams(Params):
    start_ref: str = Field(description="What to drag (a ref)")
    end_ref: str = Field(description="Where to drop it (a ref)")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def drag(ctx: ToolContext, p: DragParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(await tab.drag(p.start_ref, p.end_ref, timeout_ms=p.timeout_ms))


class FillParams(Params):
    ref: str = Ref
    value: str = Field(description="The new text (replaces what is there)")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def fill(ctx: ToolContext, p: FillParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(await tab.fill(p.ref, p.value, timeout_ms=p.timeout_ms))


class TypeParams(Params):
    text: str
    ref: str | None = Field(None, description="Focus this first; default: what has focus")
    submit: bool = Field(False, description="Press Enter after typing")
    delay_ms: float = Field(0, ge=0, le=5000, description="Pause between keys")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def type_(ctx: ToolContext, p: TypeParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(
        await tab.type(
            p.text, ref=p.ref, submit=p.submit, delay_ms=p.delay_ms, timeout_ms=p.timeout_ms
        )
    )


class PressParams(Params):
    key: str = Field(description="A key or chord: Enter, Escape, Control+A, Shift+Tab, ArrowDown")
    ref: str | None = Field(None, description="Focus this first")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def press(ctx: ToolContext, p: PressParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(await tab.press(p.key, ref=p.ref, timeout_ms=p.timeout_ms))


class SelectParams(Params):
    ref: str = Ref
    values: list[str] = Field(description="Option values or labels (several for a multiple select)")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def select(ctx: ToolContext, p: SelectParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(await tab.select(p.ref, p.values, timeout_ms=p.timeout_ms))


class CheckParams(Params):
    ref: str = Ref
    checked: bool = Field(True, description="False to uncheck")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def check(ctx: ToolContext, p: CheckParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(await tab.check(p.ref, p.checked, timeout_ms=p.timeout_ms))


class ScrollParams(Params):
    ref: str | None = Field(None, description="Scroll this element; default: the page")
    direction: Literal["up", "down", "left", "right", "into_view"] = "down"
    amount: float | None = Field(None, gt=0, description="CSS px; default: most of a screen")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def scroll(ctx: ToolContext, p: ScrollParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    direction = None if p.direction == "into_view" else p.direction
    return _receipt(
        await tab.scroll(p.ref, direction=direction, amount=p.amount, timeout_ms=p.timeout_ms)
    )


class UploadParams(Params):
    ref: str = Field(
        description="A filechooser or dropzone, or a button that opens a file chooser (a ref)"
    )
    paths: list[str] = Field(description="Files to attach, from the workspace")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def upload_file(ctx: ToolContext, p: UploadParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    return _receipt(await tab.upload_file(p.ref, p.paths, timeout_ms=p.timeout_ms))


class WaitParams(Params):
    text: str | None = Field(
        None,
        description="Until this text shows, in any frame: case-insensitive, spaces collapsed, "
        "as rendered or as the snapshot shows it; or a /regex/",
    )
    text_gone: str | None = Field(None, description="Until this text shows nowhere")
    exact: bool = Field(False, description="Text must be an element's whole text, case-sensitive")
    ref: str | None = Field(None, description="Until this element is visible (or hidden)")
    state: Literal["visible", "hidden"] = "visible"
    load_state: Literal["domcontentloaded", "load", "networkidle"] | None = None
    time_ms: float | None = Field(None, ge=0, description="Just wait this long")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def wait(ctx: ToolContext, p: WaitParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    said = await tab.wait(
        text=p.text,
        text_gone=p.text_gone,
        exact=p.exact,
        ref=p.ref,
        state=p.state,
        load_state=p.load_state,
        time_ms=p.time_ms,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(said, {"tab_id": tab.id})


class BatchParams(Params):
    steps: list[dict[str, Any]] = Field(
        description='Actions in order, e.g. [{"action": "fill", "ref": "e4", "value": "x"}, '
        '{"action": "click", "ref": "e7"}]; stops at the first failure'
    )
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def act_batch(ctx: ToolContext, p: BatchParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    receipts = await tab.act_batch(p.steps, timeout_ms=p.timeout_ms)
    text = "\n".join(f"{i + 1}. {r.text}" for i, r in enumerate(receipts))
    data = {"steps": [r.to_dict() for r in receipts]}
    return ToolResult(text, data, untrusted=any(r.carries_page_text for r in receipts))


class PageParams(Params):
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def terminate_script(ctx: ToolContext, p: PageParams) -> ToolResult:
    tab = await ctx.tab(p.tab_id)
    stopped = await tab.terminate_script(timeout_ms=p.timeout_ms)
    text = (
        f"stopped the script that kept tab {tab.id} busy; the page is as the script left it"
        if stopped
        else f"tab {tab.id} was not busy: no script was stopped"
    )
    return ToolResult(text, {"tab_id": tab.id, "stopped": stopped})


# ---- dialogs, tabs, session -------------------------------------------------------------


class DialogParams(Params):
    action: Literal["accept", "dismiss"] = "accept"
    prompt_text: str | None = Field(None, description="The answer to a prompt()")
    dialog_id: str | None = Field(None, description="Which dialog, when several are open (d-3)")
    timeout_ms: float | None = Timeout


async def dialog(ctx: ToolContext, p: DialogParams) -> ToolResult:
    session = await ctx.session()
    closed = await session.dialog(
        p.action, prompt_text=p.prompt_text, dialog_id=p.dialog_id, timeout_ms=p.timeout_ms
    )
    verb = "accepted" if closed.accepted else "dismissed"
    return ToolResult(f"{verb} {closed.dialog.describe()}", closed.to_dict(), untrusted=True)


class TabsParams(Params):
    action: Literal["list", "new"] = "list"
    url: str | None = Field(None, description="With new: open this URL")
    timeout_ms: float | None = Timeout


async def tabs(ctx: ToolContext, p: TabsParams) -> ToolResult:
    session = await ctx.session()
    if p.action == "new":
        await session.new_tab(p.url, timeout_ms=p.timeout_ms)
    infos = await session.tab_infos(timeout_ms=p.timeout_ms)
    lines = [
        f"- {i.id} {json.dumps(i.title)} {i.url}"
        + (" [active]" if i.active else "")
        + (f" [opened by {i.opener}]" if i.opener else "")
        + (f" [dialog {i.dialog.id}]" if i.dialog else "")
        for i in infos
    ]
    data = {
        "tabs": [
            {"id": i.id, "url": i.url, "title": i.title, "active": i.active, "opener": i.opener}
            for i in infos
        ]
    }
    return ToolResult("\n".join(lines) or "no tabs", data, untrusted=True)


class TabParams(Params):
    tab_id: str = Field(description="Tab id (t2)")
    timeout_ms: float | None = Timeout


async def switch_tab(ctx: ToolContext, p: TabParams) -> ToolResult:
    session = await ctx.session()
    tab = await session.switch_tab(p.tab_id, timeout_ms=p.timeout_ms)
    text = f"active tab: {tab.id} {json.dumps(tab.title)} {tab.url}"
    return ToolResult(text, {"tab_id": tab.id}, untrusted=True)


class CloseTabParams(Params):
    tab_id: str | None = Field(None, description="Default: the active tab")
    timeout_ms: float | None = Timeout


async def close_tab(ctx: ToolContext, p: CloseTabParams) -> ToolResult:
    session = await ctx.session()
    await session.close_tab(p.tab_id, timeout_ms=p.timeout_ms)
    active = session.active_tab
    now = f"; active tab: {active.id}" if active else "; no tab is open"
    return ToolResult(f"closed tab {p.tab_id or 'the active tab'}{now}", {})


class NoParams(Params):
    pass


async def close(ctx: ToolContext, p: NoParams) -> ToolResult:
    await ctx.close()
    return ToolResult("closed the browser session; the next call starts a new one", {})


class AttachParams(Params):
    cdp_url: str | None = Field(
        None,
        description="http://host:9222 or ws://…/devtools/browser/…; unset: the browser "
        "running here with remote debugging",
    )
    port: int | None = Field(
        None,
        ge=1,
        le=65535,
        description="Unset cdp_url: the browser on this port of 127.0.0.1 (with launch: "
        "the port to launch it on)",
    )
    launch: bool = Field(
        False,
        description="Unset cdp_url and none runs: launch the user's Chrome, on a profile of "
        "tabwarden's own, and attach (the user asked for it: that is their consent)",
    )
    consent: bool = Field(False, description="True only once the user agreed to this attach")
    timeout_ms: float | None = Timeout


async def attach(ctx: ToolContext, p: AttachParams) -> ToolResult:
    if p.cdp_url is not None and (p.port is not None or p.launch):
        raise InvalidArgument(
            "cdp_url names the browser already; port and launch are for attaching without one",
            hint="give cdp_url alone, or port and launch without it",
        )
    session, target = await ctx.attach(
        p.cdp_url, p.consent, timeout_ms=p.timeout_ms, port=p.port, launch=p.launch
    )
    count = len(await session.tabs(timeout_ms=p.timeout_ms))
    text = f"attached to {session.product} at {target.cdp_url}: {counted(count, 'tab')}"
    data: dict[str, Any] = {"product": session.product, "tabs": count}
    if p.cdp_url is None:
        data["cdp_url"] = target.cdp_url
        text += f"\n{target.describe()}"
    if target.launched is not None:
        data.update(
            launched=True, pid=target.launched.pid, profile=str(target.launched.profile_dir)
        )
        text += "\nthe browser stays open when this session closes"
    return ToolResult(text, data)


# ---- diagnostics and devtools -----------------------------------------------------------


class EvaluateParams(Params):
    expression: str | None = Field(None, description="A JavaScript expression")
    function: str | None = Field(None, description="A function, e.g. (el) => el.value")
    ref: str | None = Field(None, description="Call the function with this element")
    frame_id: str | None = Field(None, description="Run in this frame")
    args: list[Any] | None = Field(None, description="JSON arguments for the function")
    await_promise: bool = True
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


class EvaluateOutput(BaseModel):
    """An evaluation's structured data: the value as JSON and its JavaScript type."""

    value: Any
    type: str
    truncated: bool = False


async def evaluate(ctx: ToolContext, p: EvaluateParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    result = await tab.evaluate(
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


class CDPParams(Params):
    method: str = Field(description="Domain.method, e.g. Page.getLayoutMetrics")
    params: dict[str, Any] | None = None
    tab_id: str | None = Field(None, description="Send to this tab; default: the browser")
    frame_id: str | None = Field(None, description="Send to this frame (OOPIFs included)")
    timeout_ms: float | None = Timeout


async def cdp(ctx: ToolContext, p: CDPParams) -> ToolResult:
    session = await ctx.session()
    reply = await session.cdp(
        p.method, p.params, target_id=p.tab_id, frame_id=p.frame_id, timeout_ms=p.timeout_ms
    )
    text = json.dumps(reply)
    if len(text) > 20_000:
        text = text[:20_000] + f"… [{len(text):,} chars in all]"
    return ToolResult(text, {"result": reply}, untrusted=True)


async def metrics(ctx: ToolContext, p: NoParams) -> ToolResult:
    session = await ctx.session()
    data = session.metrics.snapshot()
    return ToolResult(json.dumps(data, indent=1), data)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "browser_navigate",
        "core",
        "Open a URL in the tab; returns status, title and any dialog.",
        NavigateParams,
        navigate,
        output=NavigationOutput,
        cli=CommandLine(aliases=("open",)),
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_snapshot",
        "core",
        "Read the page: interactive elements with refs (e7) to act on. Use before acting "
        "and after big changes; full=true for all text. To find text or elements without "
        'the whole page: find="Sign in" (or /regex/) gives only the matching lines, with '
        "refs (with full=true, all text). A filechooser is a file input or the label that "
        "opens it ([hidden]: an input the page hides), a dropzone takes dropped files: give "
        "files to either with upload_file.",
        SnapshotParams,
        snapshot,
        read_only=True,
        aliases=("browser_find",),
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_click",
        "core",
        "Click an element by ref. Returns what changed.",
        ClickParams,
        click,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_fill",
        "core",
        "Replace the text of an input, textarea or editable element.",
        FillParams,
        fill,
        idempotent=True,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_type",
        "core",
        "Type text with real keys (into ref or the focused element); submit=true presses Enter.",
        TypeParams,
        type_,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_press",
        "core",
        "Press a key or chord (Enter, Escape, Control+A, Shift+Tab).",
        PressParams,
        press,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_hover",
        "core",
        "Move the pointer over an element.",
        RefParams,
        hover,
        idempotent=True,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_select",
        "core",
        "Choose options of a <select> by value or label.",
        SelectParams,
        select,
        idempotent=True,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_check",
        "core",
        "Check or uncheck a checkbox, radio or switch.",
        CheckParams,
        check,
        idempotent=True,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_scroll",
        "core",
        "Scroll the page or an element, or bring a ref into view.",
        ScrollParams,
        scroll,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_wait",
        "core",
        "Wait for text to appear or go (in any frame or open shadow root), an element to "
        "show or hide, a load state, or a time.",
        WaitParams,
        wait,
        read_only=True,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_back",
        "core",
        "Go back in the tab's history.",
        HistoryParams,
        back,
        output=NavigationOutput,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_terminate_script",
        "core",
        "Stop the script that keeps a page busy (calls on it time out with PageBusy); "
        "the page stays as it is.",
        PageParams,
        terminate_script,
        idempotent=True,
    ),
    ToolSpec(
        "browser_dialog",
        "core",
        "Answer an open alert/confirm/prompt/beforeunload dialog (they block the page "
        "until answered).",
        DialogParams,
        dialog,
        aliases=("browser_handle_dialog",),
        cli=CommandLine(positional=("action",)),
    ),
    ToolSpec(
        "browser_screenshot",
        "core",
        "Capture the viewport, full page or one element as an image; annotate=true labels refs. "
        f"An image stops at {MAX_SIDE_PX:,} px on a side and {MAX_AREA_PX / 1e6:.1f} million "
        "pixels: a larger full page is captured from where it is scrolled to, and the reply "
        "says which part it shows.",
        ScreenshotParams,
        screenshot,
        read_only=True,
        images=True,
        cli=CommandLine(
            option_aliases=(OptionAlias("--out", "path"),),
            defaults=(("save", True),),
        ),
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_get_text",
        "core",
        "The visible text of the page or of one element.",
        GetTextParams,
        get_text,
        read_only=True,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_tabs",
        "core",
        "List tabs (popups included), or open a new one (action=new).",
        TabsParams,
        tabs,
        cli=CommandLine(positional=("action",)),
    ),
    ToolSpec(
        "browser_drag",
        "actions",
        "Drag one element onto another (HTML5 drag and drop works).",
        DragParams,
        drag,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_act_batch",
        "actions",
        "Run several actions in one call; stops at the first failure.",
        BatchParams,
        act_batch,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_switch_tab",
        "tabs",
        "Make a tab the active one.",
        TabParams,
        switch_tab,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "browser_close_tab",
        "tabs",
        "Close a tab (default: the active one).",
        CloseTabParams,
        close_tab,
        destructive=True,
    ),
    ToolSpec(
        "browser_forward",
        "tabs",
        "Go forward in the tab's history.",
        HistoryParams,
        forward,
        output=NavigationOutput,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_reload",
        "tabs",
        "Reload the tab.",
        HistoryParams,
        reload,
        output=NavigationOutput,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_close",
        "tabs",
        "Close the browser session (a new one starts on the next call).",
        NoParams,
        close,
        destructive=True,
        idempotent=True,
        open_world=False,
    ),
    ToolSpec(
        "browser_get_content",
        "diagnostics",
        "The page as Markdown (or plain text), paged with cursor.",
        GetContentParams,
        get_content,
        read_only=True,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_get_images",
        "diagnostics",
        "The page's images: src, alt, size, broken or hidden.",
        GetImagesParams,
        get_images,
        read_only=True,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_evaluate",
        "devtools",
        "Run JavaScript in the page, a frame, or on an element (ref); cut off at timeout_ms.",
        EvaluateParams,
        evaluate,
        requires=lambda config: config.browser.evaluate_enabled,
        cli=CommandLine(positional=("expression",)),
        output=EvaluateOutput,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_cdp",
        "devtools",
        "Send a raw Chrome DevTools Protocol command (browser, tab or frame).",
        CDPParams,
        cdp,
        destructive=True,
    ),
    ToolSpec(
        "browser_metrics",
        "devtools",
        "Counters and timings of this session (evaluations, timeouts, busy pages).",
        NoParams,
        metrics,
        read_only=True,
        open_world=False,
    ),
    ToolSpec(
        "browser_attach",
        "devtools",
        "Drive an already running browser by its CDP URL, or with none the one running here "
        "with remote debugging. Needs the user's consent (consent=true); without it, says "
        "what the browser holds so you can ask them. launch=true (only when the user asks) "
        "starts their Chrome for it.",
        AttachParams,
        attach,
        destructive=True,
        idempotent=True,
        cli=CommandLine(
            positional=("cdp_url",),
            flag_aliases=(
                FlagAlias(
                    "--allow-attach",
                    "consent",
                    "The user consents to this attach (the same as --consent).",
                ),
            ),
        ),
    ),
    ToolSpec(
        "browser_upload_file",
        "files",
        "Attach files: to a filechooser of the snapshot (a file input, [hidden] ones too, or "
        "its label), through the chooser a button opens when clicked, or dropped on a "
        "dropzone. Fails, saying so, when the element opens no chooser.",
        UploadParams,
        upload_file,
        cli=CommandLine(local_paths=("paths",)),
        engines=ENGINES,
    ),
)
