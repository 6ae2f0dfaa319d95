"""Firecrawl Browser Sandbox (docs.firecrawl.dev): ``POST /v2/browser`` creates a browser
(``cdpUrl``, ``liveViewUrl``), ``DELETE /v2/browser/{id}`` ends it. A browser outlives a
dropped socket until its ``ttl`` (or its inactivity limit)."""

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

__all__ = ["Firecrawl"]

API_URL = "https://api.firecrawl.dev/v2"


class Firecrawl:
    name = "firecrawl"
    key_env = "FIRECRAWL_API_KEY"
    capabilities = Capabilities(live_view=True, profile_persistence=True)

    def create_call(self, settings: CloudSettings) -> HttpCall:
        body: dict[str, Any] = {}
        if settings.timeout_s is not None:
            body["ttl"] = min(max(30, math.ceil(settings.timeout_s)), 3600)
        if settings.profile:
            body["profile"] = {"name": settings.profile, "saveChanges": True}
        for name in ("proxy", "region"):
            if getattr(settings, name):
                unsupported(self.name, name)
        if settings.stealth:
            unsupported(self.name, "stealth")
        return HttpCall("POST", self._url(settings, "/browser"), self._headers(settings), body)

    def created(self, answer: Any, settings: CloudSettings) -> CloudBrowser:
        live = answer.get("liveViewUrl") if isinstance(answer, dict) else None
        return CloudBrowser(
            id=field_of(answer, "id", provider=self.name),
            cdp_url=field_of(answer, "cdpUrl", provider=self.name),
            live_view_url=live if isinstance(live, str) and live else None,
        )

    def release_call(self, browser: CloudBrowser, settings: CloudSettings) -> HttpCall:
        return HttpCall(
            "DELETE", self._url(settings, f"/browser/{browser.id}"), self._headers(settings)
        )

    def live_view_call(self, browser: CloudBrowser, settings: CloudSettings) -> None:
        return None  # the create call's answer has it

    def live_view(self, answer: Any) -> str | None:
        return None

    def _headers(self, settings: CloudSettings) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {api_key(settings, self)}",
            "Content-Type": "application/json",
        }

    @staticmethod
    def _url(settings: CloudSettings, path: str) -> str:
        return (settings.api_url or API_URL).rstrip("/") + path
