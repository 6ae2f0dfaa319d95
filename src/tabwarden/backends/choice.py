"""Which backend a session uses: ``browser.backend`` names one, and this table makes it.
Adding a backend is one entry here."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from ..config import Config
from ..errors import ConfigError, EngineUnsupported
from ..safety.paths import WorkspacePaths
from ..safety.url_policy import UrlPolicy
from .base import Backend
from .cloud import cloud_backend
from .context import SharedContext
from .grid import grid_backend
from .local import LocalChromium, LocalOptions

__all__ = [
    "BACKENDS",
    "BackendFactory",
    "backend_for",
    "check_backend",
    "check_isolation",
    "local_backend",
    "local_options",
]

BackendFactory = Callable[[Config, str], Backend]
"""Makes a session's backend from its configuration and the session's name."""


def local_backend(config: Config, session_name: str = "default") -> Backend:
    """The local Chromium backend configured by ``config.browser``: a browser of the
    session's own, or (``browser.isolation: context``) a context of a shared one."""
    options = local_options(config, session_name)
    browser = config.browser
    if browser.isolation == "context":
        # Each session sets these on the whole browser: sessions that differ in them
        # get browsers of their own.
        workspace = WorkspacePaths.from_config(config).root
        # The workspace decides only which file: URLs may load: with those off, sessions
        # of other workspaces judge every document alike and may share.
        judged_files = str(workspace) if config.policy.allow_file else None
        browser_wide = json.dumps(
            [browser.ignore_https_errors, config.policy.model_dump(mode="json"), judged_files],
            sort_keys=True,
        )
        policy = UrlPolicy.from_config(config.policy, workspace)
        return SharedContext(
            options, browser_wide=browser_wide, gate=lambda url: policy.check(url).allowed
        )
    return LocalChromium(options)


def local_options(config: Config, session_name: str = "default") -> LocalOptions:
    """The options of a locally launched browser, from ``config.browser``."""
    browser = config.browser
    return LocalOptions(
        executable=browser.executable,
        headless=browser.headless,
        isolated=browser.isolated,
        workspace=browser.workspace,
        data_dir=browser.data_dir,
        session_name=session_name,
        extra_args=tuple(browser.extra_args),
        window_size=(browser.window_width, browser.window_height),
        proxy_server=browser.proxy_server,
        proxy_bypass=tuple(browser.proxy_bypass),
        user_agent=browser.user_agent,
        allow_foreign_profile=config.safety.allow_attach,
    )


def _cloud(name: str) -> BackendFactory:
    return lambda config, session_name: cloud_backend(name, config.cloud, os.environ)


BACKENDS: dict[str, BackendFactory] = {
    "local": local_backend,
    "browserbase": _cloud("browserbase"),
    "browser-use": _cloud("browser-use"),
    "firecrawl": _cloud("firecrawl"),
    "steel": _cloud("steel"),
    "cdp-template": _cloud("cdp-template"),
    "grid": grid_backend,
}
"""``browser.backend`` name → factory."""


def check_backend(name: str) -> str:
    """``name`` if a backend has it, else a ConfigError listing the names there are."""
    if name not in BACKENDS:
        raise ConfigError(
            f"unknown browser backend {name!r}",
            hint=f"browser.backend (--backend) is one of {', '.join(BACKENDS)}",
        )
    return name


def check_isolation(config: Config) -> None:
    """Context mode is the local backend's: another backend's browser is not shared."""
    browser = config.browser
    if browser.isolation == "context" and browser.backend != "local":
        raise ConfigError(
            f"browser.isolation: context needs the local backend, and browser.backend is "
            f"{browser.backend!r}",
            hint="set browser.isolation: process (--isolation process) for this backend, or "
            "use --backend local (docs/isolation.md)",
        )


def backend_for(config: Config, session_name: str = "default") -> Backend:
    """The backend ``config.browser.backend`` names, for session ``session_name``.

    The backends here serve Chromium (CDP) sessions: a Firefox session starts from
    ``firefox/start.py`` (the session manager's ``firefox()``), so asking for a CDP
    backend under ``browser.engine: firefox`` is refused rather than half done."""
    if config.browser.engine != "chromium":
        raise EngineUnsupported(
            "this Chromium (CDP) session",
            config.browser.engine,
            hint="on Firefox, the tools docs/engines-matrix.md marks served work; "
            "use engine chromium for the rest",
        )
    check_isolation(config)
    return BACKENDS[check_backend(config.browser.backend)](config, session_name)
