"""Cloud browser providers: a browser created through a provider's HTTP API (or reached by
a templated CDP URL), then driven like any other (docs/backends.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...config import CloudConfig
from .backend import CloudBackend, cloud_settings
from .browser_use import BrowserUse
from .browserbase import Browserbase
from .firecrawl import Firecrawl
from .provider import Capabilities, CloudBrowser, CloudProvider, CloudSettings
from .steel import Steel
from .template import CdpTemplate

__all__ = [
    "PROVIDERS",
    "Capabilities",
    "CloudBackend",
    "CloudBrowser",
    "CloudProvider",
    "CloudSettings",
    "cloud_backend",
]

PROVIDERS: dict[str, Callable[[], CloudProvider]] = {
    "browserbase": Browserbase,
    "browser-use": BrowserUse,
    "firecrawl": Firecrawl,
    "steel": Steel,
    "cdp-template": CdpTemplate,
}
"""Provider name (``browser.backend``) → the provider."""


def cloud_backend(name: str, cloud: CloudConfig, environ: Mapping[str, str]) -> CloudBackend:
    """The backend of provider ``name`` with the settings of ``cloud`` (key from ``environ``)."""
    provider = PROVIDERS[name]()
    return CloudBackend(provider, cloud_settings(provider, cloud, environ))
