"""Storage and emulation tools (groups diagnostics and devtools)."""

from __future__ import annotations

from pydantic import Field

from ..diagnostics.emulation import EmulationChange
from ..diagnostics.storage_request import CookieSpec, StorageAction, StorageKind
from ..engines import ENGINES
from .context import ToolContext
from .spec import CommandLine, Params, ToolResult, ToolSpec

__all__ = ["TOOLS"]

TabId = Field(None, description="Tab id (t2); default: the active tab")
Timeout = Field(None, gt=0, le=600_000, description="Deadline for the whole call, in ms")


# ---- storage ------------------------------------------------------------------------


class _StorageRequest(Params):
    """What a storage call does, to which storage: declared before the cookie's fields
    so that these lead (the command line takes the action by position)."""

    action: StorageAction = Field(
        "get",
        description="save_state/load_state: all cookies plus each open origin's "
        "localStorage, to or from a JSON file (Playwright's storage state format)",
    )
    kind: StorageKind = Field(
        "cookies", description="cookies, localStorage (local) or sessionStorage (session)"
    )


class StorageParams(CookieSpec, _StorageRequest):
    all: bool = Field(False, description="get/clear every cookie of the browser, not the page's")
    file: str | None = Field(
        None, description="State file: a name in the workspace (save) or a path in it (load)"
    )
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def storage(ctx: ToolContext, p: StorageParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    result = await tab.storage(p.action, p.kind, p, all=p.all, file=p.file, timeout_ms=p.timeout_ms)
    data = result.to_dict()
    return ToolResult(result.text, data, untrusted=bool(result.items))


# ---- emulation ----------------------------------------------------------------------


class EmulateParams(EmulationChange, Params):
    timeout_ms: float | None = Timeout


async def emulate(ctx: ToolContext, p: EmulateParams) -> ToolResult:
    session = await ctx.session()
    result = await session.emulate(p, timeout_ms=p.timeout_ms)
    return ToolResult(result.text, result.to_dict())


TOOLS: list[ToolSpec] = [
    ToolSpec(
        "browser_storage",
        "diagnostics",
        "Cookies, localStorage or sessionStorage of the page: get, set, delete, clear; "
        "save_state/load_state move logins between sessions as a file.",
        StorageParams,
        storage,
        destructive=True,
        cli=CommandLine(positional=("action",)),
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_emulate",
        "devtools",
        "Resize the viewport (width, height) or emulate a device, user agent, locale, "
        "timezone, geolocation, color scheme, reduced motion, offline or slow network, slow "
        "CPU in every tab; only given settings change. With no arguments: the current "
        "emulation.",
        EmulateParams,
        emulate,
        aliases=("browser_resize",),
    ),
]
