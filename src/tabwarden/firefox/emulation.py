"""Emulation shared by every tab of a Firefox session, over WebDriver BiDi.

The same calls, settings, checks and replies as the Chromium engine's
(diagnostics/emulation.py): an ``EmulationChange`` in, an ``EmulationResult`` with the
session's ``EmulationState`` out, for every tab (open ones now, new tabs and popups
from their start).

What Firefox 153 can apply: the viewport and pixel ratio (``browsingContext.setViewport``,
per tab; a new tab gets it at set-up), and, for the session's user context (so new
tabs, popups and iframes have them before their first script runs), the user agent,
locale (Intl, navigator.language and Accept-Language), timezone, geolocation and
offline (``emulation.set*Override``, ``emulation.setNetworkConditions``). An emulated
geolocation is granted to each page's origin as it is loaded (``permissions.
setPermission``: Firefox grants per origin), and the grants are withdrawn with it.

What it cannot (BiDi has no command for it) is refused before anything is sent, with
``EngineUnsupported`` naming the settings: mobile, touch, platform, accept_language
(apart from the locale), color_scheme, reduced_motion, network throttling and CPU
throttling; so is a device preset that needs one of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..diagnostics.emulation_state import (
    EmulationChange,
    EmulationResult,
    EmulationState,
    Size,
    updated,
)
from ..errors import BiDiError, EngineUnsupported, InvalidArgument

__all__ = ["UNSUPPORTED", "FirefoxEmulation", "refused"]

JSONObject = dict[str, Any]

UNSUPPORTED: dict[str, str] = {
    "mobile": "BiDi has no mobile (meta viewport) emulation",
    "touch": "Firefox 153 has no touch emulation over BiDi",
    "platform": "BiDi cannot override navigator.platform",
    "accept_language": "BiDi sets the language only with the locale (use locale)",
    "color_scheme": "BiDi has no media feature emulation",
    "reduced_motion": "BiDi has no media feature emulation",
    "network": "BiDi has no network throttling (offline works)",
    "cpu_throttling": "BiDi has no CPU throttling",
}
"""Settings of ``EmulationState`` Firefox cannot apply → why."""
_USER_CONTEXTS = ["default"]
"""The user context a Firefox session opens its tabs in (a launched browser's own)."""


def refused(state: EmulationState) -> list[str]:
    """The settings of ``state`` Firefox cannot apply (those not at the browser's own)."""
    default = EmulationState()
    return [name for name in UNSUPPORTED if getattr(state, name) != getattr(default, name)]


class FirefoxEmulation:
    """A session's emulation: its state, and the commands that put tabs in it."""

    def __init__(self, own_viewport: Size | None) -> None:
        self.own_viewport = own_viewport
        """The session's viewport where the emulation sets none (None: the window's)."""
        self.state = EmulationState()
        self._granted: set[str] = set()
        """Origins granted geolocation for the emulated position."""

    def viewport(self, context: str) -> JSONObject | None:
        """``browsingContext.setViewport`` for a tab: the emulated size and pixel ratio,
        else the session's own size; None when neither is set (the window's)."""
        s = self.state
        own_width, own_height = self.own_viewport or (None, None)
        width, height = s.width or own_width, s.height or own_height
        if width is None or height is None:
            if s.device_scale_factor is None:
                return None
            size = None
        else:
            size = {"width": width, "height": height}
        return {"context": context, "viewport": size, "devicePixelRatio": s.device_scale_factor}

    async def change(
        self,
        connection: BiDiConnection,
        pages: Sequence[tuple[str, str]],
        change: EmulationChange,
        budget: Budget,
    ) -> EmulationResult:
        """Apply ``change`` to the session (``pages``: each open tab's context and URL).
        A setting Firefox cannot apply refuses the whole change, before anything is sent."""
        old = self.state
        new = _updated(old, change)
        cannot = refused(new)
        if cannot:
            given = f"device={change.device!r} (needs {', '.join(cannot)})" if change.device else ""
            raise EngineUnsupported(
                f"browser_emulate with {given or ', '.join(cannot)}",
                "firefox",
                hint="; ".join(f"{name}: {UNSUPPORTED[name]}" for name in cannot)
                + "; leave these out on Firefox, or use engine chromium for them",
            )
        if (new.width is None) != (new.height is None) and self.own_viewport is None:
            raise InvalidArgument(
                "this session has no viewport of its own to take the other side from",
                hint="give both width and height",
            )
        if new == old:
            return EmulationResult(new, own_viewport=self.own_viewport)
        self.state = new  # new tabs set up from now on get it
        notes = await self._apply(connection, pages, old, new, budget)
        return EmulationResult(new, tuple(notes), own_viewport=self.own_viewport)

    async def restore(self, connection: BiDiConnection, budget: Budget) -> list[str]:
        """Put a new browser of the session (a relaunch) in the session's emulation: what
        the old one had is gone with it. Its tabs get their viewport as they open."""
        self._granted = set()
        return await self._apply(connection, [], EmulationState(), self.state, budget)

    def grant_for(self, url: str) -> JSONObject | None:
        """``permissions.setPermission`` that lets a page loading ``url`` read the emulated
        position, when it needs one."""
        origin = _origin(url)
        if self.state.geolocation is None or origin is None or origin in self._granted:
            return None
        self._granted.add(origin)
        return _permission(origin, "granted")

    async def _apply(
        self,
        connection: BiDiConnection,
        pages: Sequence[tuple[str, str]],
        old: EmulationState,
        new: EmulationState,
        budget: Budget,
    ) -> list[str]:
        """Send what changed; returns what Firefox did not take (as Chromium's notes)."""
        problems: list[str] = []

        async def send(method: str, params: JSONObject) -> None:
            try:
                await connection.send(method, params, budget=budget)
            except BiDiError as exc:
                if exc.error != "no such frame":  # a tab closed meanwhile
                    problems.append(f"{method}: {exc.bidi_message or exc.error}")

        def every(params: JSONObject) -> JSONObject:
            return {**params, "userContexts": _USER_CONTEXTS}

        if new.user_agent != old.user_agent:
            await send("emulation.setUserAgentOverride", every({"userAgent": new.user_agent}))
        if new.locale != old.locale:
            await send("emulation.setLocaleOverride", every({"locale": new.locale}))
        if new.timezone != old.timezone:
            await send("emulation.setTimezoneOverride", every({"timezone": new.timezone}))
        if new.offline != old.offline:
            conditions = {"type": "offline"} if new.offline else None
            await send("emulation.setNetworkConditions", every({"networkConditions": conditions}))
        if new.geolocation != old.geolocation:
            g = new.geolocation
            coordinates = (
                None
                if g is None
                else {"latitude": g.latitude, "longitude": g.longitude, "accuracy": g.accuracy}
            )
            if g is None:
                # Granted for the emulated position only: the browser asks again from now on.
                granted, self._granted = self._granted, set()
                for origin in sorted(granted):
                    await send("permissions.setPermission", _permission(origin, "prompt"))
            else:
                for _, url in pages:
                    grant = self.grant_for(url)
                    if grant is not None:
                        await send("permissions.setPermission", grant)
            await send("emulation.setGeolocationOverride", every({"coordinates": coordinates}))
        sized = ("width", "height", "device_scale_factor")
        if any(getattr(new, name) != getattr(old, name) for name in sized):
            for context, _ in pages:
                viewport = self.viewport(context)
                if viewport is None:  # back to the window's own
                    viewport = {"context": context, "viewport": None, "devicePixelRatio": None}
                await send("browsingContext.setViewport", viewport)
        return problems


def _updated(state: EmulationState, change: EmulationChange) -> EmulationState:
    """The state with this change, validated by the same rules as on Chromium."""
    # The presets whose user agent names the browser's version are mobile ones, which
    # Firefox refuses; the desktop presets keep the browser's own user agent.
    return updated(state, change, browser_user_agent="")


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}"


def _permission(origin: str, state: str) -> JSONObject:
    return {
        "descriptor": {"name": "geolocation"},
        "state": state,
        "origin": origin,
        "userContext": _USER_CONTEXTS[0],
    }
