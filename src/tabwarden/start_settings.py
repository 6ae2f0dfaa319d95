"""What the configuration asks of a browser as its session starts it: certificate errors
ignored, permissions granted, a device emulated, init scripts read, a storage state loaded.

The launch switches (proxy, user agent) are the local backend's (backends/local.py); these
go over CDP, so an attached browser gets them too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .budget import Budget
from .cdp.session import CDPSession
from .config import BrowserConfig
from .diagnostics import emulation, storage
from .diagnostics.emulation import EmulationChange, EmulationState
from .errors import ConfigError, InvalidArgument, PathNotAllowed
from .services import SessionServices

__all__ = [
    "StartSettings",
    "browser_commands",
    "load_storage_state",
    "read_init_scripts",
    "start_emulation",
]

_MAX_SCRIPT_BYTES = 5 * 1024 * 1024


def browser_commands(
    browser: BrowserConfig, granted: Sequence[str]
) -> list[tuple[str, dict[str, Any]]]:
    """Browser-wide commands sent on every new connection, before any page is set up
    (``granted``: protocol names of ``browser.grant_permissions``)."""
    commands: list[tuple[str, dict[str, Any]]] = []
    if browser.ignore_https_errors:
        commands.append(("Security.setIgnoreCertificateErrors", {"ignore": True}))
    if granted:
        # No origin: every site, in the context where the session's tabs are (the default
        # one; the session's own in context mode: its browser session is scoped).
        commands.append(("Browser.grantPermissions", {"permissions": list(granted)}))
    return commands


def read_init_scripts(paths: Sequence[Path]) -> tuple[str, ...]:
    """The text of each ``browser.init_scripts`` file; a missing or unreadable file is a
    ConfigError naming it."""
    sources = []
    for path in paths:
        file = Path(path).expanduser()
        try:
            if file.stat().st_size > _MAX_SCRIPT_BYTES:
                raise ConfigError(
                    f"the init script {file} is larger than {_MAX_SCRIPT_BYTES:,} bytes",
                    hint="an init script runs in every page before its own scripts: keep it small",
                )
            sources.append(file.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(
                f"cannot read the init script {file}: {exc.strerror or exc}",
                hint="fix the path in browser.init_scripts (or --init-script)",
            ) from None
        except UnicodeDecodeError:
            raise ConfigError(
                f"the init script {file} is not UTF-8 text", hint="give a JavaScript file"
            ) from None
    return tuple(sources)


def start_emulation(browser: BrowserConfig, browser_user_agent: str) -> EmulationState:
    """The emulation a session starts with: ``browser.device``'s preset (a configured
    ``browser.user_agent`` wins over the preset's)."""
    if browser.device is None:
        return EmulationState()
    change = EmulationChange(device=browser.device, user_agent=browser.user_agent)
    return emulation.updated(EmulationState(), change, browser_user_agent=browser_user_agent)


async def load_storage_state(services: SessionServices, budget: Budget, file: Path) -> None:
    """Load ``browser.storage_state`` into a browser just started."""
    try:
        await storage.load_state_file(services, budget, Path(file).expanduser())
    except (InvalidArgument, PathNotAllowed) as exc:
        raise ConfigError(
            f"browser.storage_state: {exc.message}",
            hint=exc.hint or "fix the path in browser.storage_state (or --storage-state)",
        ) from None


class StartSettings:
    """Applies the start settings each time a session's browser starts: what the
    session keeps from its first start (init scripts read, a device emulated), the
    browser-wide commands on every connection, and the storage state on each launch or
    relaunch (not on a reconnect to an attached browser, which kept its storage)."""

    def __init__(self, services: SessionServices, settings: BrowserConfig) -> None:
        self._services = services
        self._settings = settings
        self._first = True
        self._launch = 0
        """The launch the last start was for: a reconnect has the same one."""

    async def before_pages(self, browser: CDPSession, budget: Budget) -> None:
        """Before the browser reports its pages (they are set up with what this sets)."""
        services, settings = self._services, self._settings
        if self._first:  # the session's first start: what it keeps from then on
            services.init_scripts = read_init_scripts(settings.init_scripts)
            if settings.device is not None:
                agent = await services.browser_user_agent(budget)
                services.emulation = start_emulation(settings, agent)
        for method, params in browser_commands(settings, services.granted_permissions):
            await browser.send(method, params, budget=budget)

    async def after_pages(self, launches: int, budget: Budget) -> None:
        """Once pages attach: the storage state, on a new launch."""
        if launches != self._launch and self._settings.storage_state is not None:
            await load_storage_state(self._services, budget, self._settings.storage_state)
        self._first = False
        self._launch = launches
