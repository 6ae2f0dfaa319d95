"""Storage and emulation tools (groups diagnostics and devtools)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .context import ToolContext
from .spec import Params, ToolResult, ToolSpec

__all__ = ["TOOLS"]

TabId = Field(None, description="Tab id (t2); default: the active tab")
Timeout = Field(None, gt=0, le=600_000, description="Deadline for the whole call, in ms")


# ---- storage ------------------------------------------------------------------------


class StorageParams(Params):
    action: Literal["get", "set", "delete", "clear", "save_state", "load_state"] = Field(
        "get",
        description="save_state/load_state: all cookies plus each open origin's "
        "localStorage, to or from a JSON file (Playwright's storage state format)",
    )
    kind: Literal["cookies", "local", "session"] = Field(
        "cookies", description="cookies, localStorage (local) or sessionStorage (session)"
    )
    name: str | None = Field(None, description="Cookie name or storage key")
    value: str | None = Field(None, description="Value to set")
    domain: str | None = Field(None, description="Cookie domain (default: the page's)")
    url: str | None = Field(None, description="Cookies for this URL instead of the page's")
    path: str | None = Field(None, description="Cookie path (default /)")
    expires: float | None = Field(
        None, description="Cookie expiry, Unix seconds (default: a session cookie)"
    )
    http_only: bool = False
    secure: bool = False
    same_site: Literal["Strict", "Lax", "None"] | None = None
    all: bool = Field(False, description="get/clear every cookie of the browser, not the page's")
    file: str | None = Field(
        None, description="State file: a name in the workspace (save) or a path in it (load)"
    )
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout


async def storage(ctx: ToolContext, p: StorageParams) -> ToolResult:
    tab = await ctx.tab(p.tab_id)
    result = await tab.storage(
        p.action,
        p.kind,
        name=p.name,
        value=p.value,
        domain=p.domain,
        url=p.url,
        path=p.path,
        expires=p.expires,
        http_only=p.http_only,
        secure=p.secure,
        same_site=p.same_site,
        all=p.all,
        file=p.file,
        timeout_ms=p.timeout_ms,
    )
    data = result.to_dict()
    return ToolResult(result.text(), data, untrusted=bool(result.items))


# ---- emulation ----------------------------------------------------------------------


class EmulateParams(Params):
    device: str | None = Field(
        None,
        description="Preset: iphone-15, iphone-se, pixel-8, galaxy-s23, ipad-air, ipad-pro, "
        "desktop-1080p, desktop-1440p ('' clears it)",
    )
    width: int | None = Field(None, ge=1, le=10_000, description="Viewport width, CSS px")
    height: int | None = Field(None, ge=1, le=10_000, description="Viewport height, CSS px")
    device_scale_factor: float | None = Field(None, ge=0.1, le=10)
    mobile: bool | None = None
    touch: bool | None = None
    user_agent: str | None = None
    platform: str | None = Field(
        None, description="navigator.platform (Chromium may drop it on a same-site navigation)"
    )
    accept_language: str | None = Field(None, description="e.g. fr-FR,fr;q=0.9")
    locale: str | None = Field(None, description="e.g. de-DE (Intl and navigator.language)")
    timezone: str | None = Field(None, description="IANA name, e.g. Asia/Tokyo")
    latitude: float | None = Field(None, ge=-90, le=90)
    longitude: float | None = Field(None, ge=-180, le=180)
    accuracy: float | None = Field(None, ge=0, description="Geolocation accuracy, metres")
    color_scheme: Literal["light", "dark", "no-preference", "default"] | None = None
    reduced_motion: Literal["reduce", "no-preference", "default"] | None = None
    offline: bool | None = None
    network: Literal["slow-3g", "fast-3g", "4g", "custom", "none"] | None = Field(
        None, description="Throttling preset; custom uses latency_ms/download_kbps/upload_kbps"
    )
    latency_ms: float | None = Field(None, ge=0)
    download_kbps: float | None = Field(None, ge=0)
    upload_kbps: float | None = Field(None, ge=0)
    cpu_throttling: float | None = Field(
        None, ge=1, le=20, description="CPU slowdown factor (1 = full speed)"
    )
    reset: bool = Field(False, description="First return everything to the browser's own")
    timeout_ms: float | None = Timeout


async def emulate(ctx: ToolContext, p: EmulateParams) -> ToolResult:
    session = await ctx.session()
    result = await session.emulate(
        p.device,
        width=p.width,
        height=p.height,
        device_scale_factor=p.device_scale_factor,
        mobile=p.mobile,
        touch=p.touch,
        user_agent=p.user_agent,
        platform=p.platform,
        accept_language=p.accept_language,
        locale=p.locale,
        timezone=p.timezone,
        latitude=p.latitude,
        longitude=p.longitude,
        accuracy=p.accuracy,
        color_scheme=p.color_scheme,
        reduced_motion=p.reduced_motion,
        offline=p.offline,
        network=p.network,
        latency_ms=p.latency_ms,
        download_kbps=p.download_kbps,
        upload_kbps=p.upload_kbps,
        cpu_throttling=p.cpu_throttling,
        reset=p.reset,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(result.text(), result.to_dict())


TOOLS: list[ToolSpec] = [
    ToolSpec(
        "browser_storage",
        "diagnostics",
        "Cookies, localStorage or sessionStorage of the page: get, set, delete, clear; "
        "save_state/load_state move logins between sessions as a file.",
        StorageParams,
        storage,
        destructive=True,
    ),
    ToolSpec(
        "browser_emulate",
        "devtools",
        "Emulate a device, viewport, user agent, locale, timezone, geolocation, color "
        "scheme, reduced motion, offline or slow network, slow CPU in every tab; only "
        "given settings change. With no arguments: the current emulation.",
        EmulateParams,
        emulate,
    ),
]
