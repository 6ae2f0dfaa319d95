"""CDP methods the raw ``cdp`` escape hatch may not send: they would undo a safety rule.

Fetch interception carries the URL policy and the dialog bridge (a second
``Fetch.enable`` replaces the patterns, ``Fetch.disable`` ends them, and
answering a paused request twice breaks the one dispatcher); the download
behaviour keeps files inside the workspace; auto-attach keeps every new page
paused until it is set up (policy, emulation, dialogs), and a tab's session
carries all of that. Some methods would carry commands past these checks (a
message to another session, CDP handed to page script or to a DevTools window),
and an unpacked extension would run with network access the policy never sees.
The commands that may go through but carry a URL or a file are judged in
``raw_cdp.py``.

A session in a shared browser (``browser.isolation: context``) may not reach past its
own browser context: the browser's life, other contexts, and targets that are not its
own tabs are refused (``check_context_raw``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidArgument

__all__ = ["RESERVED_METHODS", "SHARED_BROWSER_METHODS", "check_context_raw", "check_raw_method"]

RESERVED_METHODS = {
    "Fetch.enable": "the URL policy and the dialog bridge intercept requests with it",
    "Fetch.disable": "the URL policy and the dialog bridge intercept requests with it",
    "Fetch.continueRequest": "paused requests are answered by the URL policy",
    "Fetch.failRequest": "paused requests are answered by the URL policy",
    "Fetch.fulfillRequest": "paused requests are answered by the URL policy",
    "Fetch.continueResponse": "paused requests are answered by the URL policy",
    "Fetch.continueWithAuth": "paused requests are answered by the URL policy",
    "Browser.setDownloadBehavior": "downloads go only into the workspace",
    "Page.setDownloadBehavior": "downloads go only into the workspace",
    "Target.setAutoAttach": "new pages and frames are held until they are set up",
    "Target.setDiscoverTargets": "tabs are tracked through it",
    "Target.autoAttachRelated": "new pages and frames are held until they are set up",
    "Target.detachFromTarget": "a tab's session carries its URL policy, dialogs and emulation",
    "Target.sendMessageToTarget": "it would carry any command past these checks",
    "Target.exposeDevToolsProtocol": "it would hand the page's own script raw CDP",
    "Target.openDevTools": "a DevTools window drives the page outside tabwarden",
    "Network.setRequestInterception": "the URL policy intercepts requests (with Fetch)",
    "Network.continueInterceptedRequest": "the URL policy intercepts requests (with Fetch)",
    "Extensions.loadUnpacked": "an extension has network access the URL policy never sees",
}


def check_raw_method(method: str) -> None:
    """Refuse a raw CDP method that would switch a safety rule off."""
    reason = RESERVED_METHODS.get(method)
    if reason is not None:
        raise InvalidArgument(
            f"{method} cannot be sent through cdp: {reason}",
            hint="use the tools for this (navigate, network, downloads, emulate); the "
            "policy itself is set in the configuration",
        )


SHARED_BROWSER_METHODS = {
    "Browser.close": "it would end the browser every context session shares",
    "Browser.crash": "it would end the browser every context session shares",
    "Browser.crashGpuProcess": "it would break the browser every context session shares",
    "Target.createBrowserContext": "browser contexts are the sessions' own, made by tabwarden",
    "Target.disposeBrowserContext": "browser contexts are the sessions' own, made by tabwarden",
    "Target.getBrowserContexts": "it lists the other sessions' contexts",
    "Target.attachToBrowserTarget": "the browser target reaches every session's context",
    "Tracing.start": "a trace records every session's pages in the shared browser",
}
"""Raw methods refused to a session that shares its browser (context mode)."""

_CONTEXT_HINT = (
    "the session shares its browser with other sessions (browser.isolation: context); "
    "use browser.isolation: process for a browser of its own"
)


def check_context_raw(
    method: str,
    params: dict[str, Any] | None,
    context_id: str,
    is_own_target: Callable[[str], bool],
) -> None:
    """Refuse a raw CDP command that would reach past the session's browser context."""
    reason = SHARED_BROWSER_METHODS.get(method)
    if reason is not None:
        raise InvalidArgument(f"{method} cannot be sent through cdp: {reason}", hint=_CONTEXT_HINT)
    params = params or {}
    asked = params.get("browserContextId")
    if asked is not None and asked != context_id:
        raise InvalidArgument(
            f"{method}: browserContextId {asked!r} is another session's context",
            hint="leave browserContextId out: the session's own context is used",
        )
    target = params.get("targetId")
    if method.startswith("Target.") and isinstance(target, str) and not is_own_target(target):
        raise InvalidArgument(
            f"{method}: target {target!r} is not one of this session's tabs",
            hint="list the session's tabs (tabs) and use one of their targets",
        )
