"""What an ``emulate`` call asks and answers, on either engine: its settings
(``EmulationChange``, the tool's parameters too), the device and network presets,
the session's state (``EmulationState``) and how a change updates it, checked, and
the reply (``EmulationResult``). The engines' own modules apply it:
diagnostics/emulation.py over CDP, firefox/emulation.py over WebDriver BiDi."""

from __future__ import annotations

import difflib
import functools
import re
import zoneinfo
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..arguments import model_from
from ..errors import InvalidArgument
from ..report_text import ReportText

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
    "emulation_change",
    "find_device",
    "updated",
]

Size = tuple[int, int]
"""Width and height in CSS pixels."""


@dataclass(frozen=True, slots=True)
class Device:
    """A device preset: its viewport in CSS pixels, pixel ratio, and browser."""

    name: str
    width: int
    height: int
    device_scale_factor: float
    mobile: bool
    touch: bool
    user_agent: str | None
    """``{chrome}`` stands for the browser's major version; None keeps the browser's own."""
    platform: str | None = None


_IOS_UA = (
    "Mozilla/5.0 ({device}; CPU {os} 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)
_ANDROID_UA = (
    "Mozilla/5.0 (Linux; Android {version}; {model}) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/{{chrome}}.0.0.0 Mobile Safari/537.36"
)

# Viewports are the page area a browser leaves visible in portrait, as browser
# developer tools list them; desktops keep the browser's own user agent.
DEVICES: dict[str, Device] = {
    d.name: d
    for d in (
        Device(
            "iphone-15",
            393,
            852,
            3,
            True,
            True,
            _IOS_UA.format(device="iPhone", os="iPhone OS"),
            "iPhone",
        ),
        Device(
            "iphone-se",
            375,
            667,
            2,
            True,
            True,
            _IOS_UA.format(device="iPhone", os="iPhone OS"),
            "iPhone",
        ),
        Device(
            "pixel-8",
            412,
            915,
            2.625,
            True,
            True,
            _ANDROID_UA.format(version="14", model="Pixel 8"),
            "Linux armv81",
        ),
        Device(
            "galaxy-s23",
            360,
            780,
            3,
            True,
            True,
            _ANDROID_UA.format(version="14", model="SM-S911B"),
            "Linux armv81",
        ),
        Device(
            "ipad-air", 820, 1180, 2, True, True, _IOS_UA.format(device="iPad", os="OS"), "iPad"
        ),
        Device(
            "ipad-pro", 1024, 1366, 2, True, True, _IOS_UA.format(device="iPad", os="OS"), "iPad"
        ),
        Device("desktop-1080p", 1920, 1080, 1, False, False, None),
        Device("desktop-1440p", 2560, 1440, 1, False, False, None),
    )
}


class EmulationChange(BaseModel):
    """What an ``emulate`` call changes, the one list of its settings (the tool's
    parameters too): None leaves a setting as it is; ``reset`` first returns everything
    to the browser's own."""

    model_config = ConfigDict(extra="forbid")

    device: str | None = Field(None, description=f"Preset: {', '.join(DEVICES)} ('' clears it)")
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


def emulation_change(
    change: EmulationChange | str | None, settings: Mapping[str, Any]
) -> EmulationChange:
    """The change an ``emulate`` call asks for: a model, a device preset's name, and
    settings as keyword arguments (these win); a bad value is an InvalidArgument."""
    if isinstance(change, str):
        settings = {"device": change, **settings}
        change = None
    return model_from(EmulationChange, change, settings, call="emulate")


@dataclass(frozen=True, slots=True)
class NetworkProfile:
    latency_ms: float
    download_kbps: float
    upload_kbps: float


# Chrome DevTools' throttling presets (kbit/s, with their 0.8 to 0.9 factor for real-world loss).
NETWORK_PRESETS: dict[str, NetworkProfile] = {
    "slow-3g": NetworkProfile(2000, 400, 400),
    "fast-3g": NetworkProfile(562.5, 1440, 675),
    "4g": NetworkProfile(165, 8100, 1350),
}


@dataclass(frozen=True, slots=True)
class Geolocation:
    latitude: float
    longitude: float
    accuracy: float = 10.0
    """Metres."""


@dataclass(frozen=True, slots=True)
class EmulationState:
    """What a session emulates; the defaults mean "as the browser is"."""

    device: str | None = None
    width: int | None = None
    height: int | None = None
    device_scale_factor: float | None = None
    mobile: bool = False
    touch: bool = False
    user_agent: str | None = None
    platform: str | None = None
    accept_language: str | None = None
    locale: str | None = None
    timezone: str | None = None
    geolocation: Geolocation | None = None
    color_scheme: str | None = None
    reduced_motion: str | None = None
    offline: bool = False
    network: str | None = None
    """A preset name, ``custom`` (latency and throughput below), or None: unthrottled."""
    latency_ms: float = 0
    download_kbps: float | None = None
    upload_kbps: float | None = None
    cpu_throttling: float = 1.0
    """How many times slower the CPU runs (1: full speed)."""

    @property
    def is_default(self) -> bool:
        return self == EmulationState()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self, own_viewport: Size | None = None) -> str:
        """One line per setting that differs from the browser's own (``own_viewport``:
        the session's viewport, where the emulation sets none)."""
        own_width, own_height = own_viewport or ("window", "window")
        if self.is_default:
            viewport = (
                f"viewport {own_width}x{own_height}" if own_viewport else "the window's viewport"
            )
            return f"no emulation: {viewport}, the browser's own user agent, locale and network"
        lines = []
        if self.device:
            lines.append(f"device: {self.device}")
        if self.width or self.height or self.device_scale_factor:
            size = f"{self.width or own_width}x{self.height or own_height}"
            lines.append(f"viewport: {size} at {self.device_scale_factor or 1:g}x")
        flags = [name for name in ("mobile", "touch", "offline") if getattr(self, name)]
        if flags:
            lines.append("on: " + ", ".join(flags))
        for name in ("user_agent", "platform", "accept_language", "locale", "timezone"):
            value = getattr(self, name)
            if value is not None:
                lines.append(f"{name}: {value}")
        if self.geolocation is not None:
            g = self.geolocation
            lines.append(f"geolocation: {g.latitude:g}, {g.longitude:g} (±{g.accuracy:g} m)")
        for name in ("color_scheme", "reduced_motion"):
            value = getattr(self, name)
            if value is not None:
                lines.append(f"{name}: {value}")
        if self.network is not None:
            down = "unlimited" if self.download_kbps is None else f"{self.download_kbps:g} kbit/s"
            up = "unlimited" if self.upload_kbps is None else f"{self.upload_kbps:g} kbit/s"
            lines.append(
                f"network: {self.network} ({self.latency_ms:g} ms latency, {down} down, {up} up)"
            )
        if self.cpu_throttling != 1:
            lines.append(f"cpu: {self.cpu_throttling:g}x slower")
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class EmulationResult:
    """The state after an ``emulate`` call, and anything that did not take at once."""

    state: EmulationState
    notes: tuple[str, ...] = ()
    own_viewport: Size | None = None
    """The session's own viewport (None: the window's), which the state's size replaces."""

    @property
    def text(self) -> ReportText:
        described = self.state.describe(self.own_viewport)
        return ReportText("\n".join([described, *(f"note: {n}" for n in self.notes)]))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state.to_dict(), "notes": list(self.notes)}


def updated(
    state: EmulationState, change: EmulationChange, *, browser_user_agent: str
) -> EmulationState:
    """The state with this change (validated); None leaves a setting as it is.

    ``reset`` starts from the browser's defaults. A device preset sets the viewport,
    pixel ratio, mobile, touch and user agent; explicit values win over it. An empty
    text clears a text setting; ``default`` clears color_scheme or reduced_motion.
    The model bounds numbers and choices; the checks here need more than a range.
    """
    new = EmulationState() if change.reset else state
    changes: dict[str, Any] = {}
    if change.device is not None:
        if change.device == "":
            changes.update(
                device=None,
                width=None,
                height=None,
                device_scale_factor=None,
                mobile=False,
                touch=False,
                user_agent=None,
                platform=None,
            )
        else:
            preset = find_device(change.device)
            changes.update(
                device=preset.name,
                width=preset.width,
                height=preset.height,
                device_scale_factor=preset.device_scale_factor,
                mobile=preset.mobile,
                touch=preset.touch,
                user_agent=_resolve_ua(preset.user_agent, browser_user_agent),
                platform=preset.platform,
            )
    for name in ("width", "height", "device_scale_factor", "mobile", "touch", "offline"):
        if getattr(change, name) is not None:
            changes[name] = getattr(change, name)
    for name in ("user_agent", "platform", "accept_language"):
        if getattr(change, name) is not None:
            changes[name] = _text(name, getattr(change, name))
    if change.locale is not None:
        changes["locale"] = _locale(change.locale)
    if change.timezone is not None:
        changes["timezone"] = _timezone(change.timezone)
    if change.latitude is not None or change.longitude is not None or change.accuracy is not None:
        changes["geolocation"] = _geolocation(
            new.geolocation, change.latitude, change.longitude, change.accuracy
        )
    for name in ("color_scheme", "reduced_motion"):
        value = getattr(change, name)
        if value is not None:
            changes[name] = None if value == "default" else value
    changes.update(
        _network(change.network, change.latency_ms, change.download_kbps, change.upload_kbps)
    )
    if change.cpu_throttling is not None:
        changes["cpu_throttling"] = change.cpu_throttling
    return replace(new, **changes)


def find_device(name: str) -> Device:
    """A preset by name: ``iPhone 15``, ``iphone-15`` and ``iphone_15`` all work."""
    key = re.sub(r"[\s_]+", "-", name.strip().lower())
    device = DEVICES.get(key)
    if device is None:
        close = difflib.get_close_matches(key, list(DEVICES), n=2)
        guess = f"did you mean {' or '.join(close)}? " if close else ""
        raise InvalidArgument(
            f"there is no device preset {name!r}",
            hint=f"{guess}presets: {', '.join(DEVICES)}; or give width, height, "
            "device_scale_factor, mobile and touch yourself",
        )
    return device


# ---- private ------------------------------------------------------------------------


def _resolve_ua(template: str | None, browser_user_agent: str) -> str | None:
    if template is None:
        return None
    found = re.search(r"Chrome/(\d+)", browser_user_agent)
    return template.replace("{chrome}", found.group(1) if found else "130")


def _network(
    network: str | None,
    latency_ms: float | None,
    download_kbps: float | None,
    upload_kbps: float | None,
) -> dict[str, Any]:
    custom = {"latency_ms": latency_ms, "download_kbps": download_kbps, "upload_kbps": upload_kbps}
    given = {k: v for k, v in custom.items() if v is not None}
    if network is None and not given:
        return {}
    if network == "none":
        if given:
            raise InvalidArgument(
                "network='none' turns throttling off; it takes no latency or throughput",
                hint="leave latency_ms, download_kbps and upload_kbps out, or pick a preset",
            )
        return {"network": None, "latency_ms": 0, "download_kbps": None, "upload_kbps": None}
    if network is not None and network != "custom":
        profile = NETWORK_PRESETS[network]  # EmulationChange takes only these names
        base = {
            "latency_ms": profile.latency_ms,
            "download_kbps": profile.download_kbps,
            "upload_kbps": profile.upload_kbps,
        }
        out: dict[str, Any] = {"network": network, **base}
        if given:
            out.update({k: _bounded(k, v, 0, 10_000_000) for k, v in given.items()})
            out["network"] = "custom"
        return out
    out = {"network": "custom", "latency_ms": 0, "download_kbps": None, "upload_kbps": None}
    out.update({k: _bounded(k, v, 0, 10_000_000) for k, v in given.items()})
    return out


def _geolocation(
    old: Geolocation | None,
    latitude: float | None,
    longitude: float | None,
    accuracy: float | None,
) -> Geolocation:
    latitude = latitude if latitude is not None else (old.latitude if old else None)
    longitude = longitude if longitude is not None else (old.longitude if old else None)
    if latitude is None or longitude is None:
        raise InvalidArgument(
            "a geolocation needs both latitude and longitude",
            hint="e.g. latitude=48.8584, longitude=2.2945 (accuracy in metres is optional)",
        )
    return Geolocation(
        _bounded("latitude", latitude, -90, 90),
        _bounded("longitude", longitude, -180, 180),
        _bounded("accuracy", accuracy, 0, 1_000_000)
        if accuracy is not None
        else (old.accuracy if old else 10.0),
    )


_LOCALE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


def _locale(value: str) -> str | None:
    if value == "":
        return None
    if not isinstance(value, str) or not _LOCALE.match(value):
        raise InvalidArgument(
            f"locale={value!r} is not a language tag",
            hint="use a BCP 47 tag such as en-US, de-DE, fr, ja-JP or pt-BR ('' clears it)",
        )
    return value


@functools.cache
def _timezones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def _timezone(value: str) -> str | None:
    if value == "":
        return None
    known = _timezones()
    if value in known:
        return value
    by_case = {name.lower(): name for name in known}
    if isinstance(value, str) and value.lower() in by_case:
        return by_case[value.lower()]
    close = difflib.get_close_matches(str(value), sorted(known), n=3)
    regions = sorted({name.split("/")[0] for name in known if "/" in name})[:12]
    guess = f"did you mean {', '.join(close)}? " if close else ""
    raise InvalidArgument(
        f"timezone={value!r} is not an IANA time zone",
        hint=f"{guess}use Region/City such as Europe/Paris, America/New_York, Asia/Tokyo or "
        f"UTC (regions: {', '.join(regions)}); '' clears it",
    )


def _text(name: str, value: str) -> str | None:
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be text, got {value!r}")
    if any(ord(ch) < 32 for ch in value):
        raise InvalidArgument(f"{name} must be one line without control characters")
    return value or None


def _bounded(name: str, value: float, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise InvalidArgument(f"{name} must be a number, got {value!r}")
    if not low <= value <= high:
        raise InvalidArgument(f"{name}={value} is out of range", hint=f"give {low:g}..{high:g}")
    return float(value)
