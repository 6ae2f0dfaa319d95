"""Finding the Chromium-based browser to launch."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import BrowserNotFound

__all__ = ["BROWSER_NAMES", "FIREFOX_NAMES", "find_browser", "find_firefox"]

BROWSER_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
)
FIREFOX_NAMES = ("firefox-esr", "firefox")


def find_browser(
    configured: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    path: str | None = None,
    names: Sequence[str] = BROWSER_NAMES,
    setting: str = "browser.executable",
    env_var: str | None = "TABWARDEN_CHROME",
    places: Sequence[Path] = (),
    kind: str = "Chromium-based browser",
) -> str:
    """The browser to run: ``$TABWARDEN_CHROME`` (``env_var``), then ``configured`` (the
    ``setting``), then the first of ``names`` on PATH, then the first of ``places`` (where
    installers put a browser that is not on PATH); another engine passes its own
    ``names``, variable and ``kind``."""
    env = os.environ if env is None else env
    search_path = path if path is not None else env.get("PATH", os.defpath)
    given = [(env_var, env.get(env_var))] if env_var else []
    for source, value in (*given, (setting, configured)):
        if value:
            found = _resolve(value, search_path)
            if found is None:
                raise BrowserNotFound(
                    f"{source} names {value!r}, which is not an executable file",
                    hint=f"fix {source} or unset it to search PATH for {', '.join(names)}",
                )
            return found
    for name in names:
        found = shutil.which(name, path=search_path)
        if found:
            return found
    for place in places:
        if place.is_file() and os.access(place, os.X_OK):
            return str(place)
    raise BrowserNotFound(
        f"no {kind} found on PATH (looked for {', '.join(names)})",
        hint=None if env_var else f"install Chrome, Edge or Chromium, or name one in {setting}",
    )


def find_firefox(
    configured: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    path: str | None = None,
) -> str:
    """Firefox to run: ``$TABWARDEN_FIREFOX``, then ``configured``, then PATH names."""
    return find_browser(
        configured,
        env=env,
        path=path,
        names=FIREFOX_NAMES,
        env_var="TABWARDEN_FIREFOX",
        kind="Firefox",
    )


def _resolve(value: str, search_path: str) -> str | None:
    candidate = Path(value).expanduser()
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    if os.sep not in value:
        return shutil.which(value, path=search_path)
    return None
