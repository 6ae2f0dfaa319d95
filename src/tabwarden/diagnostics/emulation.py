"""Emulation shared by every tab of a session: device, locale, place, media, network, CPU.

The settings, presets, state and reply are engine-neutral (emulation_state.py, also
the Firefox engine's); this module applies them over CDP.

The state lives on the browser session. Setting it sends the CDP commands to every
open tab (and its cross-origin iframes, where a setting is per target: user agent,
locale, timezone, media, network, CPU); new tabs, popups and iframes get the same
commands while they are paused at set-up, before their first script runs.

A launched browser's pages have the session's own viewport (the configured size) as
an override whatever their window's size: a window's size includes what the browser
draws around the page (headless Chromium's too), and a popup's window is sized by the
page that opened it. An attached browser's pages keep their window's.

Touch emulation gives pages touch support, but mouse input stays mouse input
(``Emulation.setEmitTouchEventsForMouse`` is not used): the agent's clicks, hovers
and drags are mouse events, and as touches hover and drag would be lost.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from ..budget import Budget
from ..cdp.session import CDPSession
from ..errors import CDPError, TabwardenError
from .emulation_state import (
    DEVICES,
    NETWORK_PRESETS,
    Device,
    EmulationChange,
    EmulationResult,
    EmulationState,
    Geolocation,
    NetworkProfile,
    Size,
    emulation_change,
    find_device,
    updated,
)

if TYPE_CHECKING:
    from ..page import Page

__all__ = [
    "DEVICES",
    "NETWORK_PRESETS",
    "Device",
    "EmulationChange",
    "EmulationResult",
    "EmulationState",
    "Geolocation",
    "NetworkProfile",
    "Size",
    "apply",
    "change_notes",
    "commands",
    "emulation_change",
    "find_device",
    "updated",
    "viewport_commands",
]

Command = tuple[str, dict[str, Any]]
_LATE_S = 60.0
_RELEASE_S = 1.0
"""How long a page may take to show its own size again once the override is cleared."""


def commands(
    state: EmulationState,
    browser_user_agent: str,
    own_viewport: Size | None,
    *,
    top_level: bool,
    full: bool,
    granted: Sequence[str] = (),
    context_id: str | None = None,
) -> list[Command]:
    """CDP commands that put a target in ``state`` (``own_viewport``: the session's
    viewport where ``state`` sets none; None: the window's). ``granted``: the
    permissions the session grants anyway (protocol names; ``Browser.grantPermissions``
    denies every permission it is not given).

    ``full`` also sends the commands that undo settings at their default (for targets
    already running); without it only what differs is sent (a new target starts at
    the defaults). ``top_level`` is a page; iframes get only per-target settings.
    ``context_id``: the browser context the page is in (a browser shared by sessions,
    context mode): a grant sent on the page's session acts on the default context
    unless it names the page's own.
    """
    s = state
    out: list[Command] = []
    if top_level:
        if s.width or s.height or s.device_scale_factor or s.mobile or own_viewport or full:
            out += viewport_commands(s, own_viewport, replacing=full)
        if s.geolocation is not None:
            g = s.geolocation
            # The page's own session grants it, so a relaunched browser gets it again too.
            permissions = ["geolocation", *(p for p in granted if p != "geolocation")]
            grant: dict[str, Any] = {"permissions": permissions}
            if context_id is not None:
                grant["browserContextId"] = context_id
            out.append(("Browser.grantPermissions", grant))
            out.append(
                (
                    "Emulation.setGeolocationOverride",
                    {"latitude": g.latitude, "longitude": g.longitude, "accuracy": g.accuracy},
                )
            )
        elif full:
            out.append(("Emulation.clearGeolocationOverride", {}))
    if s.touch or full:
        touch: dict[str, Any] = {"enabled": s.touch}
        if s.touch:
            touch["maxTouchPoints"] = 5
        out.append(("Emulation.setTouchEmulationEnabled", touch))
    if s.user_agent or s.platform or s.accept_language or s.locale:
        agent: dict[str, Any] = {"userAgent": s.user_agent or browser_user_agent}
        language = s.accept_language or s.locale
        if language:
            agent["acceptLanguage"] = language  # navigator.language and Accept-Language
        if s.platform:
            agent["platform"] = s.platform
        out.append(("Emulation.setUserAgentOverride", agent))
    elif full:
        out.append(("Emulation.setUserAgentOverride", {"userAgent": ""}))
    if s.locale or full:
        out.append(("Emulation.setLocaleOverride", {"locale": s.locale} if s.locale else {}))
    if s.timezone or full:
        out.append(("Emulation.setTimezoneOverride", {"timezoneId": s.timezone or ""}))
    features = [
        {"name": name, "value": value}
        for name, value in (
            ("prefers-color-scheme", s.color_scheme),
            ("prefers-reduced-motion", s.reduced_motion),
        )
        if value is not None
    ]
    if features or full:
        out.append(("Emulation.setEmulatedMedia", {"features": features}))
    if s.offline or s.network is not None or full:
        out.append(("Network.emulateNetworkConditions", _network_conditions(s)))
    if s.cpu_throttling != 1 or full:
        out.append(("Emulation.setCPUThrottlingRate", {"rate": s.cpu_throttling}))
    return out


def viewport_commands(
    state: EmulationState,
    own_viewport: Size | None,
    *,
    width: int | None = None,
    height: int | None = None,
    replacing: bool,
) -> list[Command]:
    """The commands that give a page the session's viewport: the emulated one, else the
    session's own (``own_viewport``), else the window's; ``width`` or ``height`` (CSS px)
    replace that one dimension alone. ``replacing``: the page may have an override
    already (a running page, a borrowed viewport).

    ``Emulation.setDeviceMetricsOverride`` takes 0 as "the window's own" for a
    dimension, but a dimension overridden before keeps its value: a page that may have
    one gets the override cleared first.
    """
    s = state
    emulated = width or height or s.width or s.height or s.device_scale_factor or s.mobile
    if not emulated and own_viewport is None:
        return [("Emulation.clearDeviceMetricsOverride", {})]
    own_width, own_height = own_viewport or (0, 0)
    override = {
        "width": width or s.width or own_width,
        "height": height or s.height or own_height,
        "deviceScaleFactor": s.device_scale_factor or 0,  # 0: the screen's own
        "mobile": s.mobile,
    }
    out: list[Command] = [("Emulation.setDeviceMetricsOverride", override)]
    if replacing and not (override["width"] and override["height"]):
        out.insert(0, ("Emulation.clearDeviceMetricsOverride", {}))
    return out


async def apply(
    browser: CDPSession,
    pages: Sequence[Page],
    user_agent: str,
    spawn: Callable[[Coroutine[Any, Any, None]], object],
    old: EmulationState,
    new: EmulationState,
    own_viewport: Size | None,
    budget: Budget,
    granted: Sequence[str] = (),
    context_id: str | None = None,
) -> list[str]:
    """Send ``new`` to every open tab and its iframes (``own_viewport``: the session's
    viewport where ``new`` sets none; ``granted``: the permissions the session grants
    anyway; ``context_id``: the session's browser context in a shared browser); returns
    what did not take."""
    ua = user_agent
    problems: list[str] = []
    if old.geolocation is not None and new.geolocation is None:
        # Granted for the emulated position only; the browser asks again from now on.
        await browser.send("Browser.resetPermissions", budget=budget)
        if granted:
            grant = {"permissions": list(granted)}
            await browser.send("Browser.grantPermissions", grant, budget=budget)
    sends: list[tuple[str, CDPSession, Command]] = []
    released: list[CDPSession] = []  # pages whose emulated size is being cleared
    for tab in [t for t in pages if not t.closed]:
        page = await tab.ready_session(budget)
        top = commands(
            new,
            ua,
            own_viewport,
            top_level=True,
            full=True,
            granted=granted,
            context_id=context_id,
        )
        targets = [(page, top)]
        frame_commands = commands(new, ua, own_viewport, top_level=False, full=True)
        targets += [(s, frame_commands) for s in tab.frames.sessions() if s is not page]
        if tab.pending_dialogs:
            # A page paused in a dialog answers once the dialog is: the commands are
            # delivered then, so they are sent without waiting for replies.
            for target, batch in targets:
                for method, params in batch:
                    later = target.send(method, params, budget=Budget(_LATE_S))
                    spawn(_quietly(later))
            problems.append(f"tab {tab.id} is paused by a dialog: it changes once answered")
            continue
        sends += [(tab.id, target, c) for target, batch in targets for c in batch]
        if (old.width or old.height) and not (new.width or new.height or own_viewport):
            released.append(page)
    results = await asyncio.gather(
        *(target.send(method, params, budget=budget) for _, target, (method, params) in sends),
        return_exceptions=True,
    )
    for (tab_id, _, (method, _)), result in zip(sends, results, strict=True):
        if isinstance(result, CDPError) and "already in effect" in result.cdp_message:
            # Locale and timezone belong to a renderer process: another tab in the same
            # process set them already, to the same value.
            continue
        if isinstance(result, TabwardenError):
            problems.append(f"tab {tab_id}: {method}: {result}")
        elif isinstance(result, BaseException):
            raise result
    await asyncio.gather(*(_until_released(page, old, budget) for page in released))
    return problems


async def _until_released(page: CDPSession, old: EmulationState, budget: Budget) -> None:
    """Until the page no longer shows the emulated size: clearing the override is
    answered before the renderer has laid the page out at its own size again. Bounded
    (the window's own size may equal the emulated one)."""
    wait = budget.child(_RELEASE_S)
    with contextlib.suppress(TabwardenError):
        while not wait.expired:
            reply = await page.send(
                "Runtime.evaluate",
                {"expression": "[innerWidth, innerHeight]", "returnByValue": True},
                budget=wait,
            )
            width, height = reply.get("result", {}).get("value") or (0, 0)
            if (old.width and width != old.width) or (old.height and height != old.height):
                return
            await wait.sleep(0.02)


def change_notes(old: EmulationState, new: EmulationState) -> tuple[str, ...]:
    """What an agent should know about when a change shows in pages already open."""
    if old.touch != new.touch:
        return (
            "pages already open report the new touch support ('ontouchstart') after "
            "their next load; navigator.maxTouchPoints changes at once",
        )
    return ()


# ---- private ------------------------------------------------------------------------


async def _quietly(command: Awaitable[Any]) -> None:
    with contextlib.suppress(TabwardenError):
        await command


def _network_conditions(s: EmulationState) -> dict[str, Any]:
    def throughput(kbps: float | None) -> float:
        return -1 if kbps is None else kbps * 1000 / 8  # bytes per second

    return {
        "offline": s.offline,
        "latency": s.latency_ms,
        "downloadThroughput": throughput(s.download_kbps),
        "uploadThroughput": throughput(s.upload_kbps),
    }
