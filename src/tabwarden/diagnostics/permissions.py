"""Browser permissions by their web names, and the names the DevTools protocol gives them."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ..errors import InvalidArgument

__all__ = ["PERMISSIONS", "protocol_permissions"]

PERMISSIONS: dict[str, str] = {
    "geolocation": "geolocation",
    "notifications": "notifications",
    "clipboard-read": "clipboardReadWrite",
    "clipboard-write": "clipboardSanitizedWrite",
    "camera": "videoCapture",
    "microphone": "audioCapture",
    "midi": "midi",
    "midi-sysex": "midiSysex",
    "background-sync": "backgroundSync",
    "accelerometer": "sensors",
    "gyroscope": "sensors",
    "magnetometer": "sensors",
    "ambient-light-sensor": "sensors",
    "payment-handler": "paymentHandler",
    "storage-access": "storageAccess",
    "local-fonts": "localFonts",
    "idle-detection": "idleDetection",
    "window-management": "windowManagement",
}
"""Web permission names (as ``navigator.permissions.query`` and Playwright take them) →
``Browser.PermissionType``."""


def protocol_permissions(names: Iterable[str]) -> tuple[str, ...]:
    """The protocol's names for web permission names, each once, in order; an unknown
    name is an InvalidArgument that lists the known ones."""
    found: list[str] = []
    for name in names:
        key = name.strip().lower().replace("_", "-")
        if key not in PERMISSIONS:
            close = difflib.get_close_matches(key, list(PERMISSIONS), n=2)
            guess = f"did you mean {' or '.join(close)}? " if close else ""
            raise InvalidArgument(
                f"there is no permission {name!r}",
                hint=f"{guess}known permissions: {', '.join(PERMISSIONS)}",
            )
        if PERMISSIONS[key] not in found:
            found.append(PERMISSIONS[key])
    return tuple(found)
