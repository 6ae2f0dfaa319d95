"""Browser Use Cloud (docs.browser-use.com, API v2): ``POST /api/v2/browsers`` creates a
browser; its ``cdpUrl`` is an HTTPS DevTools base whose ``/json/version`` names the socket;
``PATCH /api/v2/browsers/{id}`` with ``action: stop`` ends it (unused time is refunded).
A browser created this way keeps running when the socket drops, until its timeout.
"""

from __future__ import annotations

import math
from typing import Any

from .provider import (
    Capabilities,
    CloudBrowser,
    CloudSettings,
    HttpCall,
    api_key,
    field_of,
    unsupported,
)

__all__ = ["BrowserUse"]

API_URL = "https://api.browser-use.com/api/v2"


class BrowserUse:
    name = "browser-use"
    key_env = "BROWSER_USE_API_KEY"
    capabilities = Capabilities(live_view=True, profile_persistence=True)

    def create_call(self, settings: CloudSettings) -> HttpCall:
        body: dict[str, Any] = {}
        if settings.proxy:
            if len(settings.proxy) == 2 and settings.proxy.isalpha():
                body["proxyCountryCode"] = settings.proxy.lower()
            elif settings.proxy.lower() != "on":  # on: its default proxies
                unsupported(self.name, "proxy (a URL: it takes a country code)")
        if settings.timeout_s is not None:
            body["timeout"] = max(1, math.ceil(settings.timeout_s / 60))  # minutes
        if settings.profile:
            body["profileId"] = settings.profile
        if settings.region:
            unsupported(self.name, "region")
        return HttpCall("POST", self._url(settings, "/browsers"), self._headers(settings), body)

    def created(self, answer: Any, settings: CloudSettings) -> CloudBrowser:
        live = answer.get("liveUrl") if isinstance(answer, dict) else None
        return CloudBrowser(
            id=field_of(answer, "id", provider=self.name),
            cdp_url=field_of(answer, "cdpUrl", provider=self.name),
            live_view_url=live if isinstance(live, str) and live else None,
        )

    def release_call(self, browser: CloudBrowser, settings: CloudSettings) -> HttpCall:
        return HttpCall(
            "PATCH",
            self._url(settings, f"/browsers/{browser.id}"),
            self._headers(settings),
            {"action": "stop"},
        )

    def live_view_call(self, browser: CloudBrowser, settings: CloudSettings) -> None:
        return None  # the create call's answer has it

    def live_view(self, answer: Any) -> str | None:
        return None

    def _headers(self, settings: CloudSettings) -> dict[str, str]:
        return {
            "X-Browser-Use-API-Key": api_key(settings, self),
            "Content-Type": "application/json",
        }

    @staticmethod
    def _url(settings: CloudSettings, path: str) -> str:
        return (settings.api_url or API_URL).rstrip("/") + path
