"""What a cloud browser provider is: how to ask its API for a browser, read the answer, and
give the browser back. Providers only describe HTTP calls; ``client.py`` makes them."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...errors import CloudAuthError, CloudServerError

__all__ = [
    "Capabilities",
    "CloudBrowser",
    "CloudProvider",
    "CloudSettings",
    "HttpCall",
    "api_key",
    "field_of",
    "unsupported",
]

logger = logging.getLogger("tabwarden.backends.cloud")


@dataclass(frozen=True, slots=True)
class CloudBrowser:
    """A browser the provider created for us (or, for a CDP template, the URL to reach one)."""

    id: str
    cdp_url: str
    """Where to connect: a ``wss://`` URL, or an ``https://`` DevTools base whose
    ``/json/version`` names the socket."""
    live_view_url: str | None = None
    """A page where a person can watch (and sometimes drive) the browser, when the provider
    gives one."""

    def __repr__(self) -> str:
        # The connect URL usually carries a key or a signed token: never shown whole.
        return f"CloudBrowser(id={self.id!r})"


@dataclass(frozen=True, slots=True)
class HttpCall:
    """One request to a provider's API."""

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    json: Any = None

    def __repr__(self) -> str:
        return f"HttpCall({self.method} {self.url})"  # headers hold the key


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What works through a provider, as tabwarden sees it (docs/backends-matrix.md)."""

    dialog_detect: bool = True
    """Native alert/confirm/prompt dialogs are seen (through the dialog bridge where the
    provider's proxy closes them itself)."""
    dialog_respond: bool = True
    """The agent's answer to a dialog reaches the page."""
    frame_tree: bool = True
    """The frame tree (iframes, their URLs) is read."""
    oopif_evaluate: bool = True
    """Scripts run inside cross-origin iframes (out-of-process frames)."""
    live_view: bool = False
    """The provider hands out a live view URL (``CloudBackend.browser.live_view_url``)."""
    profile_persistence: bool = False
    """``cloud.profile`` keeps cookies and storage across sessions."""
    dialog_bridge: bool = False
    """The provider's CDP proxy closes native dialogs within milliseconds, so tabwarden routes
    them through page script (``browser.dialog_bridge: auto`` turns it on)."""
    ends_on_disconnect: bool = False
    """The provider ends the browser when the CDP socket closes: a dropped connection is the
    end of that browser (the next call creates a new one); otherwise tabwarden reconnects
    within ``browser.reconnect_give_up_s`` and keeps the tabs."""


@dataclass(frozen=True, slots=True)
class CloudSettings:
    """The provider settings of one session (``cloud`` config section, key resolved)."""

    api_key: str = ""
    key_env: str = ""
    """Where the key came from (an environment variable name, or ``cloud.api_key``)."""
    api_url: str | None = None
    project_id: str | None = None
    region: str | None = None
    proxy: str | None = None
    stealth: bool = False
    timeout_s: float | None = None
    profile: str | None = None
    url_template: str | None = None

    def __repr__(self) -> str:
        return f"CloudSettings(key from {self.key_env or 'nowhere'}, api_url={self.api_url!r})"


class CloudProvider(Protocol):
    """A cloud browser service: one instance per session (it may keep what it created)."""

    name: str
    capabilities: Capabilities
    key_env: str
    """The environment variable its API key is read from by default."""

    def create_call(self, settings: CloudSettings) -> HttpCall | None:
        """The request that creates a browser; None when there is nothing to create (a CDP
        template: the URL itself starts the browser)."""
        ...

    def created(self, answer: Any, settings: CloudSettings) -> CloudBrowser:
        """The browser named by the create call's JSON answer (or, with no create call,
        ``answer`` is None)."""
        ...

    def release_call(self, browser: CloudBrowser, settings: CloudSettings) -> HttpCall | None:
        """The request that ends the browser; None when closing the socket ends it."""
        ...

    def live_view_call(self, browser: CloudBrowser, settings: CloudSettings) -> HttpCall | None:
        """A request whose answer names the live view, for a provider that does not give
        it with the browser; None otherwise."""
        ...

    def live_view(self, answer: Any) -> str | None:
        """The live view URL in the answer to ``live_view_call``."""
        ...


def api_key(settings: CloudSettings, provider: CloudProvider) -> str:
    """The key, or a CloudAuthError naming the environment variable to set."""
    if settings.api_key:
        return settings.api_key
    env = settings.key_env or provider.key_env
    raise CloudAuthError(
        f"no API key for {provider.name}: ${env} is not set",
        hint=f"set {env} (or cloud.api_key_env to the variable that holds the key)",
    )


def field_of(answer: Any, *names: str, provider: str) -> str:
    """The first of ``names`` the JSON answer has as a non-empty string, else a CloudServerError."""
    if isinstance(answer, dict):
        for name in names:
            value = answer.get(name)
            if isinstance(value, str) and value:
                return value
    shown = sorted(answer) if isinstance(answer, dict) else type(answer).__name__
    raise CloudServerError(
        f"{provider} answered the create call without {' or '.join(names)} (got {shown})"
    )


def unsupported(provider: str, setting: str) -> None:
    """A configured setting the provider has no use for: said once in the log, left out."""
    logger.warning("%s does not take cloud.%s: it is left out", provider, setting)
