"""Finding the Chromium-based browser to launch."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..errors import BrowserNotFound

__all__ = ["BROWSER_NAMES", "find_browser"]

BROWSER_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
)


def find_browser(
    configured: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    path: str | None = None,
) -> str:
    """The browser to run: ``$TABWARDEN_CHROME``, then ``configured``, then PATH names."""
    env = os.environ if env is None else env
    search_path = path if path is not None else env.get("PATH", os.defpath)
    for source, value in (
        ("TABWARDEN_CHROME", env.get("TABWARDEN_CHROME")),
        ("browser.executable", configured),
    ):
        if value:
            found = _resolve(value, search_path)
            if found is None:
                raise BrowserNotFound(
                    f"{source} names {value!r}, which is not an executable file",
                    hint=f"fix {source} or unset it to search PATH for {', '.join(BROWSER_NAMES)}",
                )
            return found
    for name in BROWSER_NAMES:
        found = shutil.which(name, path=search_path)
        if found:
            return found
    raise BrowserNotFound(
        f"no Chromium-based browser found on PATH (looked for {', '.join(BROWSER_NAMES)})"
    )


def _resolve(value: str, search_path: str) -> str | None:
    candidate = Path(value).expanduser()
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    if os.sep not in value:
        return shutil.which(value, path=search_path)
    return None
