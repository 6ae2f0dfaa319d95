"""Browserbase (docs.browserbase.com): ``POST /v1/sessions`` creates a browser, its
``connectUrl`` is the CDP socket (connect within 5 minutes), and ``POST /v1/sessions/{id}``
with ``status: REQUEST_RELEASE`` ends it; ``GET /v1/sessions/{id}/debug`` names its live
view.

Its CDP proxy closes native dialogs about 10 ms after they open, so sessions route them
through page script (the dialog bridge). Without ``keepAlive`` a session ends when its
socket closes.
"""

from __future__ import annotations

import math
import os
from typing import Any

from .provider import Capabilities, CloudBrowser, CloudSettings, HttpCall, api_key, field_of

__all__ = ["Browserbase"]

API_URL = "https://api.browserbase.com"


class Browserbase:
    name = "browserbase"
    key_env = "BROWSERBASE_API_KEY"
    project_env = "BROWSERBASE_PROJECT_ID"
    capabilities = Capabilities(
        live_view=True,
        profile_persistence=True,
        dialog_bridge=True,
        ends_on_disconnect=True,
    )

    def create_call(self, settings: CloudSettings) -> HttpCall:
        body: dict[str, Any] = {}
        project = self._project(settings)
        if project:
            body["projectId"] = project
        if settings.region:
            body["region"] = settings.region
        if settings.timeout_s is not None:
            body["timeout"] = max(60, math.ceil(settings.timeout_s))
        if settings.proxy:
            body["proxies"] = (
                [{"type": "external", "server": settings.proxy}]
                if "://" in settings.proxy
                else True
            )
        browser_settings: dict[str, Any] = {}
        if settings.profile:
            browser_settings["context"] = {"id": settings.profile, "persist": True}
        if settings.stealth:
            browser_settings["advancedStealth"] = True
        if browser_settings:
            body["browserSettings"] = browser_settings
        return HttpCall("POST", self._url(settings, "/v1/sessions"), self._headers(settings), body)

    def created(self, answer: Any, settings: CloudSettings) -> CloudBrowser:
        return CloudBrowser(
            id=field_of(answer, "id", provider=self.name),
            cdp_url=field_of(answer, "connectUrl", provider=self.name),
        )

    def release_call(self, browser: CloudBrowser, settings: CloudSettings) -> HttpCall:
        body: dict[str, Any] = {"status": "REQUEST_RELEASE"}
        project = self._project(settings)
        if project:
            body["projectId"] = project
        return HttpCall(
            "POST", self._url(settings, f"/v1/sessions/{browser.id}"), self._headers(settings), body
        )

    def live_view_call(self, browser: CloudBrowser, settings: CloudSettings) -> HttpCall:
        return HttpCall(
            "GET", self._url(settings, f"/v1/sessions/{browser.id}/debug"), self._headers(settings)
        )

    def live_view(self, answer: Any) -> str | None:
        url = answer.get("debuggerFullscreenUrl") if isinstance(answer, dict) else None
        return url if isinstance(url, str) and url else None

    # ---- private -------------------------------------------------------------------

    def _project(self, settings: CloudSettings) -> str:
        return settings.project_id or os.environ.get(self.project_env, "").strip()

    def _headers(self, settings: CloudSettings) -> dict[str, str]:
        return {"X-BB-API-Key": api_key(settings, self), "Content-Type": "application/json"}

    @staticmethod
    def _url(settings: CloudSettings, path: str) -> str:
        return (settings.api_url or API_URL).rstrip("/") + path
