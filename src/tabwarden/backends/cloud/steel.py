"""Steel (docs.steel.dev): ``POST /v1/sessions`` creates a browser (``websocketUrl``, which
takes the key as ``apiKey``; ``sessionViewerUrl``), ``POST /v1/sessions/{id}/release`` ends
it. A session lives until it is released or times out, whatever happens to the socket."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .provider import (
    Capabilities,
    CloudBrowser,
    CloudSettings,
    HttpCall,
    api_key,
    field_of,
    unsupported,
)

__all__ = ["Steel"]

API_URL = "https://api.steel.dev/v1"


class Steel:
    name = "steel"
    key_env = "STEEL_API_KEY"
    capabilities = Capabilities(live_view=True)

    def create_call(self, settings: CloudSettings) -> HttpCall:
        body: dict[str, Any] = {}
        if settings.timeout_s is not None:
            body["timeout"] = math.ceil(settings.timeout_s * 1000)  # milliseconds
        if settings.proxy:
            if "://" in settings.proxy:
                body["proxyUrl"] = settings.proxy
            else:
                body["useProxy"] = True
        if settings.region:
            body["region"] = settings.region
        if settings.profile:
            unsupported(self.name, "profile")
        if settings.stealth:
            unsupported(self.name, "stealth")
        return HttpCall("POST", self._url(settings, "/sessions"), self._headers(settings), body)

    def created(self, answer: Any, settings: CloudSettings) -> CloudBrowser:
        socket = field_of(answer, "websocketUrl", provider=self.name)
        live = answer.get("sessionViewerUrl") or answer.get("debugUrl")
        return CloudBrowser(
            id=field_of(answer, "id", provider=self.name),
            cdp_url=_with_key(socket, api_key(settings, self)),
            live_view_url=live if isinstance(live, str) and live else None,
        )

    def release_call(self, browser: CloudBrowser, settings: CloudSettings) -> HttpCall:
        return HttpCall(
            "POST", self._url(settings, f"/sessions/{browser.id}/release"), self._headers(settings)
        )

    def live_view_call(self, browser: CloudBrowser, settings: CloudSettings) -> None:
        return None  # the create call's answer has it

    def live_view(self, answer: Any) -> str | None:
        return None

    def _headers(self, settings: CloudSettings) -> dict[str, str]:
        return {"steel-api-key": api_key(settings, self), "Content-Type": "application/json"}

    @staticmethod
    def _url(settings: CloudSettings, path: str) -> str:
        return (settings.api_url or API_URL).rstrip("/") + path


def _with_key(url: str, key: str) -> str:
    """The socket URL with ``apiKey`` in its query (Steel's gateway checks it there)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "apiKey"]
    query.append(("apiKey", key))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))
