"""Any CDP service reached by one URL (Browserless, Hyperbrowser, Anchor, Kernel…):
``cloud.url_template`` with ``{token}`` for the key, e.g.
``wss://production-sfo.browserless.io/?token={token}``. Nothing is created beforehand: the
connection starts the browser and closing it ends the browser."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ...errors import ConfigError
from .provider import Capabilities, CloudBrowser, CloudSettings, HttpCall, api_key

__all__ = ["CdpTemplate"]


class CdpTemplate:
    name = "cdp-template"
    key_env = "TABWARDEN_CDP_TOKEN"
    capabilities = Capabilities(ends_on_disconnect=True)

    def create_call(self, settings: CloudSettings) -> HttpCall | None:
        return None

    def created(self, answer: Any, settings: CloudSettings) -> CloudBrowser:
        template = settings.url_template
        if not template:
            raise ConfigError(
                "the cdp-template backend needs cloud.url_template",
                hint="set cloud.url_template, e.g. wss://production-sfo.browserless.io/?token={token}",
            )
        if "{token}" in template:
            template = template.replace("{token}", quote(api_key(settings, self), safe=""))
        if not template.startswith(("ws://", "wss://", "http://", "https://")):
            raise ConfigError(
                "cloud.url_template must be a ws://, wss://, http:// or https:// URL",
                hint="e.g. wss://production-sfo.browserless.io/?token={token}",
            )
        return CloudBrowser(id="", cdp_url=template)

    def release_call(self, browser: CloudBrowser, settings: CloudSettings) -> None:
        return None

    def live_view_call(self, browser: CloudBrowser, settings: CloudSettings) -> None:
        return None  # a URL alone has none

    def live_view(self, answer: Any) -> str | None:
        return None
