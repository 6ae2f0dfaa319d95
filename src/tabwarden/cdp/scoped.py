"""The browser target as one browser context sees it (``isolation: context``).

Several sessions may share one browser, each in a browser context of its own. The
browser-wide commands that take a ``browserContextId`` (cookies, permissions,
downloads, new tabs) get the session's own context here, in one place, so no caller
can reach another session's context by forgetting it; the target list is cut to the
context's own targets.
"""

from __future__ import annotations

from typing import Any

from ..budget import Budget
from .connection import CDPConnection
from .session import CDPSession

__all__ = ["CONTEXT_SCOPED_METHODS", "ContextBrowser", "browser_session"]

JSONObject = dict[str, Any]

CONTEXT_SCOPED_METHODS = frozenset(
    {
        "Target.createTarget",
        "Storage.getCookies",
        "Storage.setCookies",
        "Storage.clearCookies",
        "Browser.grantPermissions",
        "Browser.resetPermissions",
        "Browser.setPermission",
        "Browser.setDownloadBehavior",
        "Browser.cancelDownload",
    }
)
"""Browser-wide commands that act on the default context unless given one."""


class ContextBrowser(CDPSession):
    """The browser target's session, scoped to the browser context ``context_id``."""

    def __init__(self, connection: CDPConnection, context_id: str) -> None:
        super().__init__(connection, None)
        self.context_id = context_id

    def __repr__(self) -> str:
        return f"ContextBrowser(context_id={self.context_id!r})"

    async def send(
        self, method: str, params: JSONObject | None = None, *, budget: Budget
    ) -> JSONObject:
        if method in CONTEXT_SCOPED_METHODS:
            params = {"browserContextId": self.context_id, **(params or {})}
        reply = await super().send(method, params, budget=budget)
        if method == "Target.getTargets":
            infos = reply.get("targetInfos", [])
            reply = {
                **reply,
                "targetInfos": [i for i in infos if i.get("browserContextId") == self.context_id],
            }
        return reply


def browser_session(connection: CDPConnection, context_id: str | None) -> CDPSession:
    """The browser target's session: scoped to ``context_id``, or the whole browser (None)."""
    if context_id is None:
        return CDPSession(connection, None)
    return ContextBrowser(connection, context_id)
