"""The raw ``cdp`` escape hatch under the safety rules: what a command may carry.

Methods that would switch a rule off are refused outright (``reserved.py``). Of the
rest, those that carry a URL or a file are judged before they are sent:

* A URL a command would load is judged by the URL policy, as ``navigate`` judges
  its own: ``Page.navigate`` could reach pages ``Fetch`` never pauses
  (``chrome:``, ``view-source:``), ``Target.createTarget`` opens a tab with it,
  ``Network.loadNetworkResource`` fetches it for the agent. A refused URL is
  ``PolicyDenied`` naming the rule, and so is a ``Page.navigate`` the guard
  blocked on the way (a redirect hop). ``Page.navigateToHistoryEntry`` is judged
  by the URL of the entry it goes to.
* Files a command hands to a page (``DOM.setFileInputFiles``, files dropped by
  ``Input.dispatchDragEvent``, files launched in a web app) must be ones
  ``upload_file`` would take (``safety/paths.py``); they are sent resolved.
* A browser context may not get its own proxy: the proxy is a host no rule
  judges, and every request of the context would go to it.

What raw CDP can still do that the policy cannot see is listed in
docs/architecture.md (Safety).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgument, PathNotAllowed
from .guard import BLOCKED_ERROR, Kind
from .reserved import check_raw_method

if TYPE_CHECKING:
    from ..budget import Budget
    from ..cdp.session import CDPSession
    from ..frames import FrameRegistry
    from ..page import Page
    from .guard import PolicyGuard
    from .paths import WorkspacePaths

__all__ = ["FILE_PARAMETERS", "REFUSED_PARAMETERS", "URL_PARAMETERS", "route_to_frame", "send_raw"]

URL_PARAMETERS: dict[str, tuple[str, Kind]] = {
    "Page.navigate": ("url", "navigation"),
    "Target.createTarget": ("url", "navigation"),
    "PWA.launch": ("url", "navigation"),
    "PWA.install": ("installUrlOrBundleUrl", "navigation"),
    "Network.loadNetworkResource": ("url", "subresource"),
}
"""Commands that load a URL: the parameter that holds it, and what the load is."""

FILE_PARAMETERS: dict[str, tuple[str, ...]] = {
    "DOM.setFileInputFiles": ("files",),
    "Input.dispatchDragEvent": ("data", "files"),
    "PWA.launchFilesInApp": ("files",),
}
"""Commands that hand files to a page: where their list of paths is."""

_PROXY = "a proxy is a host no rule judges, and every request of the context would go to it"
REFUSED_PARAMETERS: dict[str, dict[str, str]] = {
    "Target.createBrowserContext": {"proxyServer": _PROXY, "proxyBypassList": _PROXY},
}
"""Parameters a command may not take through ``cdp``, with the reason."""


async def send_raw(
    session: CDPSession,
    method: str,
    params: dict[str, Any] | None,
    budget: Budget,
    *,
    guard: PolicyGuard,
    paths: WorkspacePaths,
    tab: Page | None,
) -> dict[str, Any]:
    """Send a raw command on ``session`` (``tab``'s, or the browser's with ``tab=None``)
    once the safety rules allow what it carries."""
    check_raw_method(method)
    params = dict(params or {})
    for name, reason in REFUSED_PARAMETERS.get(method, {}).items():
        if params.get(name):
            raise InvalidArgument(
                f"{method} cannot take {name} through cdp: {reason}",
                hint=f"leave {name} out; where pages may go is the URL policy's "
                "(policy.allow, policy.deny in the configuration)",
            )
    if method in URL_PARAMETERS:
        name, kind = URL_PARAMETERS[method]
        url = params.get(name)
        if url is not None:
            if not isinstance(url, str):
                raise InvalidArgument(f"{method}: {name} must be a URL string, got {url!r}")
            guard.check_command(method, url, tab, kind=kind)
    if method in FILE_PARAMETERS:
        params = _with_allowed_files(method, params, paths)
    if method == "Page.navigateToHistoryEntry":
        await _check_history_entry(session, params, budget, guard, tab)
    mark = guard.mark()
    reply = await session.send(method, params, budget=budget)
    if method == "Page.navigate" and reply.get("errorText") == BLOCKED_ERROR:
        decision = guard.blocked_since(tab, mark)
        if decision is not None:
            raise guard.denied(decision)  # a redirect hop, say
    return reply


def _with_allowed_files(
    method: str, params: dict[str, Any], paths: WorkspacePaths
) -> dict[str, Any]:
    """``params`` with its file paths checked like ``upload_file`` checks them, and
    resolved (a link swapped in later cannot lead elsewhere)."""
    *outer, key = FILE_PARAMETERS[method]
    holder = params
    for name in outer:
        inner = holder.get(name)
        if not isinstance(inner, dict):
            return params  # no files to hand over (Chromium judges the rest)
        inner = dict(inner)  # the caller's dict stays as it was
        holder[name] = inner
        holder = inner
    files = holder.get(key)
    if files is None:
        return params
    where = ".".join(FILE_PARAMETERS[method])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise InvalidArgument(f"{method}: {where} must be a list of file paths, got {files!r}")
    resolved = []
    for path in files:
        try:
            resolved.append(str(paths.readable(path, what="file to upload")))
        except PathNotAllowed as exc:
            raise PathNotAllowed(
                f"{method}: {exc.message}",
                hint=f"{exc.hint}; upload_file attaches files to a file input by ref",
            ) from None
    holder[key] = resolved
    return params


async def _check_history_entry(
    session: CDPSession,
    params: dict[str, Any],
    budget: Budget,
    guard: PolicyGuard,
    tab: Page | None,
) -> None:
    """Judge the URL of the history entry a ``Page.navigateToHistoryEntry`` goes to."""
    history = await session.send("Page.getNavigationHistory", budget=budget)
    for entry in history.get("entries", []):
        if entry.get("id") == params.get("entryId"):
            guard.check_command("Page.navigateToHistoryEntry", entry.get("url", ""), tab)
            return


def route_to_frame(
    registry: FrameRegistry, tab_id: str, frame_id: str, method: str, params: dict[str, Any]
) -> tuple[CDPSession, dict[str, Any]]:
    """Where a raw command aimed at ``frame_id`` goes: a cross-origin frame's own
    session; ``Runtime.evaluate`` in a same-origin frame's JavaScript context."""
    frame = registry.get(frame_id)
    if frame is None:
        known = ", ".join(f.frame_id for f in registry.frames())
        raise InvalidArgument(
            f"tab {tab_id} has no frame {frame_id!r}",
            hint=f"use a frame_id from the frame tree: {known}",
        )
    session = registry.session_for(frame_id)
    if frame.is_oopif:
        return session, params
    if method in ("Runtime.evaluate",) and "contextId" not in params:
        context = registry.context_of(frame_id)
        if context is None:
            raise InvalidArgument(
                f"frame {frame_id} has no JavaScript context yet", hint="retry once it loaded"
            )
        params["contextId"] = context
        return session, params
    if method.startswith(("Page.", "DOM.", "Runtime.")) and "frameId" not in params:
        raise InvalidArgument(
            f"{method} cannot be aimed at a same-origin iframe by frame_id",
            hint="it runs in the tab's session: pass the frame's ids in params, or use "
            "Runtime.evaluate, which runs in the frame's context",
        )
    return session, params
