"""Cookies, localStorage and sessionStorage of a tab's origin, and storage state files.

The request's model, checks and reply are engine-neutral (storage_request.py, also
the Firefox engine's); this module does them over CDP.

Web storage goes through the ``DOMStorage`` domain, keyed by the frame's storage key
(``Storage.getStorageKeyForFrame``), rather than through page script: no script runs
in the page (it cannot see or intercept the read, and a page that replaced
``localStorage`` or ``Storage.prototype`` cannot fool it), all entries come back in
one reply, and the storage key names exactly the partition the page itself uses.

State files have Playwright's shape, so state moves between tools::

    {"cookies": [{"name", "value", "domain", "path", "expires", "httpOnly", "secure",
                  "sameSite"}],
     "origins": [{"origin": "https://example.com",
                  "localStorage": [{"name": "k", "value": "v"}]}]}
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..budget import Budget
from ..cdp.protocol import Event
from ..cdp.session import CDPSession
from ..counting import counted
from ..errors import CDPError, DeadlineExceeded, InvalidArgument, TabwardenError
from .storage_request import (
    STATE_HINT,
    CookieSpec,
    StorageAction,
    StorageKind,
    StorageResult,
    check_request,
    check_web_storage,
    cookie_page_url,
    cookie_param,
    cookie_spec,
    storage_origin,
)

if TYPE_CHECKING:
    from ..page import Page
    from ..services import SessionServices

__all__ = [
    "CookieSpec",
    "StorageAction",
    "StorageKind",
    "StorageResult",
    "StorageState",
    "check_request",
    "cookie_param",
    "cookie_spec",
    "load_state",
    "load_state_file",
    "parse_state",
    "run",
    "save_state",
]

logger = logging.getLogger("tabwarden.storage")

_MAX_STATE_BYTES = 20 * 1024 * 1024
_EMPTY_PAGE = base64.b64encode(b"<!doctype html><title></title>").decode("ascii")


# ---- one tab's storage ----------------------------------------------------------------


async def run(
    tab: Page,
    browser: CDPSession,
    budget: Budget,
    *,
    action: str,
    kind: str,
    cookie: CookieSpec,
    all: bool,
) -> StorageResult:
    """get / set / delete / clear on cookies, localStorage or sessionStorage of ``tab``."""
    check_request(action, kind)
    if kind == "cookies":
        return await _cookies(tab, browser, budget, action=action, cookie=cookie, all=all)
    check_web_storage(kind, cookie, all)
    return await _web_storage(
        tab, budget, action=action, local=kind == "local", name=cookie.name, value=cookie.value
    )


# ---- storage state files ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StorageState:
    """A validated state file: cookies ready for ``Storage.setCookies``, and origins."""

    cookies: tuple[dict[str, Any], ...]
    origins: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]


async def save_state(services: SessionServices, budget: Budget, file: str | None) -> StorageResult:
    """Write every cookie of the browser plus the localStorage of each open origin."""
    browser = services.browser_cdp()
    notes: list[str] = []
    cookies = await _all_cookies(browser, budget)
    partitioned = [c for c in cookies if c.get("partitionKey")]
    if partitioned:
        notes.append(
            f"{counted(len(partitioned), 'partitioned (third-party) cookie')} "
            f"{'is' if len(partitioned) == 1 else 'are'} not saved: the file "
            "format has no place for their partition"
        )
    saved = [_playwright_cookie(c) for c in cookies if not c.get("partitionKey")]
    origins = await _open_origins(services, budget, notes)
    target = services.paths.output_path("state", file, suffix=".json", stem="storage-state")
    state = {
        "cookies": saved,
        "origins": [
            {"origin": origin, "localStorage": [{"name": k, "value": v} for k, v in entries]}
            for origin, entries in origins.items()
        ],
    }
    _write_private(target, json.dumps(state, indent=2, ensure_ascii=False) + "\n")
    items = sum(len(entries) for entries in origins.values())
    scope = (
        f"{counted(len(saved), 'cookie')} and "
        f"{counted(items, 'localStorage entry', 'localStorage entries')} "
        f"of {counted(len(origins), 'origin')}"
    )
    return StorageResult(
        "save_state",
        "state",
        scope,
        changed=len(saved) + items,
        file=str(target),
        notes=tuple(notes),
    )


async def load_state(services: SessionServices, budget: Budget, file: str) -> StorageResult:
    """Set the cookies and each origin's localStorage from a state file (added to, and
    overwriting, what the browser holds)."""
    if not isinstance(file, str) or not file.strip():
        raise InvalidArgument(
            "load_state needs the path of a storage state file",
            hint="give file=… (a path inside the workspace), e.g. one save_state wrote",
        )
    source = services.paths.readable(file, what="storage state file")
    return await load_state_file(services, budget, source)


async def load_state_file(services: SessionServices, budget: Budget, source: Path) -> StorageResult:
    """``load_state`` from a file the user named (configuration: ``browser.storage_state``),
    which need not lie in the workspace."""
    try:
        size = source.stat().st_size
    except OSError as exc:
        raise InvalidArgument(
            f"cannot read the storage state file {source}: {exc.strerror or exc}",
            hint="give the path of a file save_storage_state wrote (or Playwright's)",
        ) from None
    if size > _MAX_STATE_BYTES:
        raise InvalidArgument(
            f"the storage state file {source} is {size:,} bytes, more than {_MAX_STATE_BYTES:,}",
            hint="a state file holds cookies and localStorage; this one is not such a file",
        )
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidArgument(
            f"cannot read the storage state file {source}: {exc.strerror or exc}",
            hint=STATE_HINT,
        ) from None
    except UnicodeDecodeError:
        raise InvalidArgument(
            f"the storage state file {source} is not UTF-8 text", hint=STATE_HINT
        ) from None
    state = parse_state(text, str(source))
    browser = services.browser_cdp()
    notes: list[str] = []
    refused = await _set_cookies(browser, list(state.cookies), budget) if state.cookies else []
    notes += [f"the browser refused {problem}" for problem in refused]
    items = 0
    with_items = [(origin, entries) for origin, entries in state.origins if entries]
    if with_items:
        async with _origin_pages(services, budget) as visit:
            for origin, entries in with_items:
                page = await visit(origin)
                key = await page.send(
                    "Storage.getStorageKeyForFrame", {"frameId": page.target_id}, budget=budget
                )
                storage_id = {"storageKey": key["storageKey"], "isLocalStorage": True}
                await asyncio.gather(
                    *(
                        page.send(
                            "DOMStorage.setDOMStorageItem",
                            {"storageId": storage_id, "key": k, "value": v},
                            budget=budget,
                        )
                        for k, v in entries
                    )
                )
                items += len(entries)
    cookies = len(state.cookies) - len(refused)
    scope = (
        f"{counted(cookies, 'cookie')} and "
        f"{counted(items, 'localStorage entry', 'localStorage entries')} "
        f"of {counted(len(with_items), 'origin')}"
    )
    return StorageResult(
        "load_state", "state", scope, changed=cookies + items, file=str(source), notes=tuple(notes)
    )


def parse_state(text: str, source: str = "the storage state file") -> StorageState:
    """Validate a state file's text; errors name the entry and field that is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            hint=STATE_HINT,
        ) from None
    if not isinstance(data, dict) or not ({"cookies", "origins"} & set(data)):
        raise InvalidArgument(
            f"{source} is not a storage state: it needs a 'cookies' or an 'origins' list",
            hint=STATE_HINT,
        )
    raw_cookies = data.get("cookies", [])
    raw_origins = data.get("origins", [])
    if not isinstance(raw_cookies, list) or not isinstance(raw_origins, list):
        raise InvalidArgument(f"{source}: 'cookies' and 'origins' must be lists", hint=STATE_HINT)
    cookies = tuple(
        cookie_param(c, where=f"{source}: cookies[{i}]") for i, c in enumerate(raw_cookies)
    )
    origins = tuple(_parse_origin(o, f"{source}: origins[{i}]") for i, o in enumerate(raw_origins))
    return StorageState(cookies, origins)


# ---- private ------------------------------------------------------------------------


async def _web_storage(
    tab: Page, budget: Budget, *, action: str, local: bool, name: str | None, value: str | None
) -> StorageResult:
    kind = "local" if local else "session"
    origin = storage_origin(tab.id, tab.url)
    tab.check_no_dialog()  # DOMStorage runs on the page's thread, paused by a dialog
    session = tab.frames.main_session
    key = await session.send(
        "Storage.getStorageKeyForFrame", {"frameId": tab.target_id}, budget=budget
    )
    storage_id = {"storageKey": key["storageKey"], "isLocalStorage": local}
    if action == "get":
        entries = await _entries(session, storage_id, budget)
        if name is not None:
            entries = [e for e in entries if e["name"] == name]
            notes = () if entries else (f"there is no key {name!r}",)
            return StorageResult("get", kind, origin, tuple(entries), notes=notes)
        return StorageResult("get", kind, origin, tuple(entries))
    if action == "set":
        if not name or value is None:
            raise InvalidArgument(
                f"setting {kind} storage needs a name and a value",
                hint="e.g. action='set', kind='local', name='theme', value='dark'",
            )
        await session.send(
            "DOMStorage.setDOMStorageItem",
            {"storageId": storage_id, "key": name, "value": value},
            budget=budget,
        )
        return StorageResult("set", kind, origin, ({"name": name, "value": value},), changed=1)
    if action == "delete":
        if not name:
            raise InvalidArgument(
                f"deleting from {kind} storage needs the name of a key",
                hint="give name=…, or use action='clear' to remove every key",
            )
        present = any(e["name"] == name for e in await _entries(session, storage_id, budget))
        if present:
            await session.send(
                "DOMStorage.removeDOMStorageItem",
                {"storageId": storage_id, "key": name},
                budget=budget,
            )
        notes = () if present else (f"there was no key {name!r}",)
        return StorageResult("delete", kind, origin, changed=int(present), notes=notes)
    if action == "clear":
        count = len(await _entries(session, storage_id, budget))
        await session.send("DOMStorage.clear", {"storageId": storage_id}, budget=budget)
        return StorageResult("clear", kind, origin, changed=count)
    raise InvalidArgument(
        f"action={action!r} does not apply to {kind} storage",
        hint="use get, set, delete or clear; save_state and load_state take a file",
    )


async def _cookies(
    tab: Page, browser: CDPSession, budget: Budget, *, action: str, cookie: CookieSpec, all: bool
) -> StorageResult:
    if action == "get":
        if all:
            cookies = await _all_cookies(browser, budget)
            scope = "all cookies of the browser"
        else:
            page = cookie.url or cookie_page_url(tab.id, tab.url)
            cookies = await _cookies_for(tab, page, budget)
            scope = page
        if cookie.name is not None:
            cookies = [c for c in cookies if c["name"] == cookie.name]
        if cookie.domain is not None:
            cookies = [c for c in cookies if c["domain"].lstrip(".") == cookie.domain.lstrip(".")]
        return StorageResult("get", "cookies", scope, tuple(_playwright_cookie(c) for c in cookies))
    if action == "set":
        if not cookie.name or cookie.value is None:
            raise InvalidArgument(
                "setting a cookie needs a name and a value",
                hint="e.g. action='set', kind='cookies', name='consent', value='yes'",
            )
        url = (
            cookie.url
            if cookie.url is not None or cookie.domain is not None
            else cookie_page_url(tab.id, tab.url)
        )
        param = cookie_param({**cookie.playwright(), "url": url}, where="the cookie")
        refused = await _set_cookies(browser, [param], budget)
        if refused:
            raise InvalidArgument(f"the browser refused the cookie {cookie.name!r}: {refused[0]}")
        stored = [
            c
            for c in await _all_cookies(browser, budget)
            if c["name"] == cookie.name and c["value"] == cookie.value
        ]
        scope = param.get("url") or param.get("domain", "")
        return StorageResult(
            "set", "cookies", scope, tuple(_playwright_cookie(c) for c in stored[:1]), changed=1
        )
    if action == "delete":
        if not cookie.name:
            raise InvalidArgument(
                "deleting a cookie needs its name",
                hint="give name=…, or use action='clear' to remove the page's cookies",
            )
        target: dict[str, Any] = {"name": cookie.name}
        if cookie.domain is not None:
            target["domain"] = cookie.domain
        else:
            target["url"] = cookie.url or cookie_page_url(tab.id, tab.url)
        if cookie.path is not None:
            target["path"] = cookie.path
        before = len(await _all_cookies(browser, budget))
        await tab.frames.main_session.send("Network.deleteCookies", target, budget=budget)
        removed = before - len(await _all_cookies(browser, budget))
        notes = () if removed else (f"no cookie named {cookie.name!r} matched",)
        scope = target.get("url") or target.get("domain", "")
        return StorageResult("delete", "cookies", scope, changed=removed, notes=notes)
    if action == "clear":
        if all:
            count = len(await _all_cookies(browser, budget))
            await browser.send("Storage.clearCookies", budget=budget)
            return StorageResult("clear", "cookies", "all cookies of the browser", changed=count)
        page = cookie.url or cookie_page_url(tab.id, tab.url)
        cookies = await _cookies_for(tab, page, budget)
        await asyncio.gather(
            *(
                tab.frames.main_session.send(
                    "Network.deleteCookies",
                    {"name": c["name"], "domain": c["domain"], "path": c["path"]},
                    budget=budget,
                )
                for c in cookies
            )
        )
        return StorageResult("clear", "cookies", page, changed=len(cookies))
    raise InvalidArgument(
        f"action={action!r} does not apply to cookies",
        hint="use get, set, delete or clear; save_state and load_state take a file",
    )


def _parse_origin(entry: Any, where: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    if not isinstance(entry, dict) or not isinstance(entry.get("origin"), str):
        raise InvalidArgument(f"{where} must be an object with an 'origin'", hint=STATE_HINT)
    origin = entry["origin"].rstrip("/")
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
        raise InvalidArgument(
            f"{where}: 'origin' must be scheme://host[:port] such as https://example.com, "
            f"got {entry['origin']!r}",
            hint=STATE_HINT,
        )
    raw = entry.get("localStorage", [])
    if not isinstance(raw, list):
        raise InvalidArgument(f"{where} ({origin}): 'localStorage' must be a list", hint=STATE_HINT)
    items = []
    for i, item in enumerate(raw):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("name"), str)
            or not isinstance(item.get("value"), str)
        ):
            raise InvalidArgument(
                f"{where} ({origin}): localStorage[{i}] must be "
                '{"name": "<text>", "value": "<text>"}',
                hint=STATE_HINT,
            )
        items.append((item["name"], item["value"]))
    return origin, tuple(items)


def _playwright_cookie(cookie: dict[str, Any]) -> dict[str, Any]:
    """A CDP cookie in Playwright's shape (SameSite unset means Lax to Chromium)."""
    return {
        "name": cookie["name"],
        "value": cookie["value"],
        "domain": cookie["domain"],
        "path": cookie["path"],
        "expires": -1 if cookie.get("session") else cookie.get("expires", -1),
        "httpOnly": bool(cookie.get("httpOnly")),
        "secure": bool(cookie.get("secure")),
        "sameSite": cookie.get("sameSite", "Lax"),
    }


async def _entries(
    session: CDPSession, storage_id: dict[str, Any], budget: Budget
) -> list[dict[str, str]]:
    reply = await session.send(
        "DOMStorage.getDOMStorageItems", {"storageId": storage_id}, budget=budget
    )
    return [{"name": k, "value": v} for k, v in reply.get("entries", [])]


async def _all_cookies(browser: CDPSession, budget: Budget) -> list[dict[str, Any]]:
    reply = await browser.send("Storage.getCookies", budget=budget)
    cookies: list[dict[str, Any]] = reply.get("cookies", [])
    return cookies


async def _cookies_for(tab: Page, url: str, budget: Budget) -> list[dict[str, Any]]:
    """The cookies a request to ``url`` would carry (parent-domain cookies included)."""
    session = await tab.ready_session(budget)
    reply = await session.send("Network.getCookies", {"urls": [url]}, budget=budget)
    cookies: list[dict[str, Any]] = reply.get("cookies", [])
    return cookies


async def _set_cookies(
    browser: CDPSession, cookies: list[dict[str, Any]], budget: Budget
) -> list[str]:
    """Set cookies; returns what the browser refused, each named with its reason.

    Chromium drops some cookies without an error (SameSite=None without Secure, a
    bad prefix), so each one is looked for afterwards."""
    try:
        await browser.send("Storage.setCookies", {"cookies": cookies}, budget=budget)
    except CDPError:
        # One invalid cookie fails the whole call without saying which: set them one by one.
        refused = []
        for cookie in cookies:
            try:
                await browser.send("Storage.setCookies", {"cookies": [cookie]}, budget=budget)
            except CDPError as exc:
                refused.append(f"cookie {cookie['name']!r}: {exc.cdp_message}")
        return refused + await _missing(browser, cookies, refused, budget)
    return await _missing(browser, cookies, [], budget)


async def _missing(
    browser: CDPSession, cookies: list[dict[str, Any]], refused: list[str], budget: Budget
) -> list[str]:
    stored = {(c["name"], c["value"]) for c in await _all_cookies(browser, budget)}
    missing = []
    for cookie in cookies:
        if (cookie["name"], cookie["value"]) in stored:
            continue
        if any(r.startswith(f"cookie {cookie['name']!r}:") for r in refused):
            continue
        reason = "dropped by the browser"
        if cookie.get("sameSite") == "None" and not cookie.get("secure"):
            reason = "SameSite=None needs secure=true"
        elif cookie["name"].startswith(("__Host-", "__Secure-")):
            reason = "its name prefix needs secure=true (and __Host- needs path / and no domain)"
        missing.append(f"cookie {cookie['name']!r}: {reason}")
    return missing


async def _open_origins(
    services: SessionServices, budget: Budget, notes: list[str]
) -> dict[str, list[tuple[str, str]]]:
    """localStorage of every first-party origin open in a tab or frame."""
    found: dict[str, list[tuple[str, str]]] = {}
    for tab in [t for t in services.pages.all() if not t.closed]:
        if tab.pending_dialogs:
            notes.append(f"tab {tab.id} is paused by a dialog; its localStorage is not saved")
            continue
        try:
            registry = tab.frames
        except TabwardenError:
            continue
        for frame in registry.frames():
            parts = urlsplit(frame.url)
            origin = f"{parts.scheme}://{parts.netloc}"
            if parts.scheme not in ("http", "https") or origin in found:
                continue
            page = registry.session_for(frame.frame_id)
            try:
                key = await page.send(
                    "Storage.getStorageKeyForFrame",
                    {"frameId": frame.frame_id},
                    budget=budget.child(3.0),
                )
                if "^" in key["storageKey"]:
                    continue  # a third-party iframe's partition: not the origin's own storage
                storage_id = {"storageKey": key["storageKey"], "isLocalStorage": True}
                entries = await _entries(page, storage_id, budget.child(3.0))
            except (CDPError, DeadlineExceeded) as exc:
                notes.append(f"the localStorage of {origin} (tab {tab.id}) was not read: {exc}")
                continue
            found[origin] = [(e["name"], e["value"]) for e in entries]
    return found


@contextlib.asynccontextmanager
async def _origin_pages(
    services: SessionServices, budget: Budget
) -> AsyncIterator[Callable[[str], Awaitable[CDPSession]]]:
    """A background tab that opens origins on an empty page of our own.

    Web storage can only be written from a document of its origin. The tab's requests
    are answered with an empty page by ``Fetch`` on a session of our own (so no site
    is contacted and none of its script runs); the tab is a normal tab otherwise, so
    navigation rules hold for it too. Closed at the end.
    """
    browser = services.browser_cdp()
    tab = await services.open_page(budget, background=True)
    target_id = tab.target_id
    interceptor: CDPSession | None = None
    try:
        interceptor = await browser.attach(target_id, budget=budget)

        def on_paused(event: Event) -> None:
            assert interceptor is not None
            fulfil = interceptor.send(
                "Fetch.fulfillRequest",
                {
                    "requestId": event.params["requestId"],
                    "responseCode": 200,
                    "responseHeaders": [
                        {"name": "Content-Type", "value": "text/html; charset=utf-8"},
                        {"name": "Cache-Control", "value": "no-store"},
                    ],
                    "body": _EMPTY_PAGE,
                },
                budget=Budget(5.0),
            )
            services.spawn(_quietly(fulfil), "answering a storage page request")

        interceptor.subscribe("Fetch.requestPaused", on_paused)
        await interceptor.send(
            "Fetch.enable",
            {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]},
            budget=budget,
        )

        async def visit(origin: str) -> CDPSession:
            budget.check("loading a storage state")
            # The public call, so the navigation rules apply to these origins too.
            await tab.navigate(origin + "/", timeout_ms=max(budget.remaining() * 1000, 1))
            return tab.frames.main_session

        yield visit
    finally:
        closing = Budget(3.0)
        if interceptor is not None:
            with contextlib.suppress(TabwardenError):
                await interceptor.detach(budget=closing)
        with (
            contextlib.suppress(TabwardenError),
            services.connection.event_queue(["Target.targetDestroyed"], None) as destroyed,
        ):
            await browser.send("Target.closeTarget", {"targetId": target_id}, budget=closing)
            while not tab.closed:  # gone from tab lists before the call returns
                await destroyed.get(closing, what="closing the storage tab")


async def _quietly(command: Awaitable[Any]) -> None:
    try:
        await command
    except TabwardenError as exc:
        logger.debug("answering a storage page request failed: %s", exc)


def _write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read: a state file holds logins."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
