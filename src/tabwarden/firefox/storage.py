"""Cookies, localStorage and sessionStorage of a Firefox tab, over WebDriver BiDi.

The same calls, checks and replies as the Chromium engine's (diagnostics/storage.py):
the cookie's fields are a ``CookieSpec``, the reply a ``StorageResult`` with cookies
in Playwright's shape.

Cookies go through BiDi's cookie store (``storage.getCookies``, ``setCookie``,
``deleteCookies``) with no partition given: the browser's own store, where a page's
first-party cookies live, as Chromium's ``Storage`` domain sees them.

Web storage is read and written by script in tabwarden's sandbox realm of the tab:
Firefox gives a sandbox the page's own ``localStorage`` and ``sessionStorage`` through
its wrappers, so the page's script neither sees the call nor can fool it (a page that
replaced ``localStorage`` or ``Storage.prototype`` changes only its own view), and all
entries come back in one reply.
"""

from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import urlsplit

from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..diagnostics.storage_request import (
    CookieSpec,
    StorageResult,
    check_request,
    check_web_storage,
    cookie_page_url,
    cookie_param,
    storage_origin,
)
from ..errors import BiDiError, InvalidArgument
from .values import local_value, remote_value

__all__ = ["StoragePage", "run"]

JSONObject = dict[str, Any]

_WEB_STORAGE = """(local, action, name, value) => {
  const area = local ? localStorage : sessionStorage;
  const entries = () => Array.from({length: area.length}, (_, i) => area.key(i))
    .map((key) => [key, area.getItem(key)]);
  if (action === "get") return entries();
  if (action === "set") { area.setItem(name, value); return 1; }
  if (action === "delete") {
    if (area.getItem(name) === null) return 0;
    area.removeItem(name); return 1;
  }
  const count = area.length; area.clear(); return count;
}"""
"""One storage action in the page's storage area, run in tabwarden's sandbox."""


class StoragePage(Protocol):
    """What the storage calls need of a tab (``FirefoxPage``)."""

    id: str
    context: str
    url: str

    def check_no_dialog(self) -> None: ...

    async def call_in(
        self, context: str, function: str, arguments: list[JSONObject], budget: Budget
    ) -> JSONObject: ...


async def run(
    page: StoragePage,
    connection: BiDiConnection,
    budget: Budget,
    *,
    action: str,
    kind: str,
    cookie: CookieSpec,
    all: bool,
) -> StorageResult:
    """get / set / delete / clear on cookies, localStorage or sessionStorage of ``page``
    (``connection``: its session's socket)."""
    check_request(action, kind)
    if kind == "cookies":
        return await _cookies(page, connection, budget, action=action, cookie=cookie, all=all)
    check_web_storage(kind, cookie, all)
    return await _web_storage(
        page, budget, action=action, local=kind == "local", name=cookie.name, value=cookie.value
    )


# ---- web storage ------------------------------------------------------------------------


async def _web_storage(
    page: StoragePage,
    budget: Budget,
    *,
    action: str,
    local: bool,
    name: str | None,
    value: str | None,
) -> StorageResult:
    kind = "local" if local else "session"
    origin = storage_origin(page.id, page.url)
    page.check_no_dialog()  # the page's script is stopped in a dialog, and so is its storage

    async def storage_call(verb: str) -> Any:
        arguments = [local_value(local), local_value(verb), local_value(name), local_value(value)]
        return remote_value(await page.call_in(page.context, _WEB_STORAGE, arguments, budget))

    if action == "get":
        entries = [{"name": str(k), "value": str(v)} for k, v in await storage_call("get")]
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
        await storage_call("set")
        return StorageResult("set", kind, origin, ({"name": name, "value": value},), changed=1)
    if action == "delete":
        if not name:
            raise InvalidArgument(
                f"deleting from {kind} storage needs the name of a key",
                hint="give name=…, or use action='clear' to remove every key",
            )
        removed = int(await storage_call("delete"))
        notes = () if removed else (f"there was no key {name!r}",)
        return StorageResult("delete", kind, origin, changed=removed, notes=notes)
    if action == "clear":
        return StorageResult("clear", kind, origin, changed=int(await storage_call("clear")))
    raise InvalidArgument(
        f"action={action!r} does not apply to {kind} storage",
        hint="use get, set, delete or clear; save_state and load_state take a file",
    )


# ---- cookies ----------------------------------------------------------------------------


async def _cookies(
    page: StoragePage,
    connection: BiDiConnection,
    budget: Budget,
    *,
    action: str,
    cookie: CookieSpec,
    all: bool,
) -> StorageResult:
    if action == "get":
        if all:
            cookies = await _all_cookies(connection, budget)
            scope = "all cookies of the browser"
        else:
            scope = cookie.url or cookie_page_url(page.id, page.url)
            cookies = [c for c in await _all_cookies(connection, budget) if _sent_to(c, scope)]
        if cookie.name is not None:
            cookies = [c for c in cookies if c["name"] == cookie.name]
        if cookie.domain is not None:
            wanted = cookie.domain.lstrip(".")
            cookies = [c for c in cookies if c["domain"].lstrip(".") == wanted]
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
            else cookie_page_url(page.id, page.url)
        )
        param = cookie_param({**cookie.playwright(), "url": url}, where="the cookie")
        try:
            await connection.send(
                "storage.setCookie", {"cookie": _bidi_cookie(param)}, budget=budget
            )
        except BiDiError as exc:
            raise InvalidArgument(
                f"the browser refused the cookie {cookie.name!r}: {_refusal(param, exc)}",
                hint="fix the cookie's attributes and set it again",
            ) from None
        stored = [
            c
            for c in await _all_cookies(connection, budget)
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
        every = await _all_cookies(connection, budget)
        if cookie.domain is not None:
            scope = cookie.domain
            wanted = cookie.domain.lstrip(".")
            matched = [c for c in every if c["domain"].lstrip(".") == wanted]
        else:
            scope = cookie.url or cookie_page_url(page.id, page.url)
            matched = [c for c in every if _sent_to(c, scope)]
        matched = [
            c
            for c in matched
            if c["name"] == cookie.name and (cookie.path is None or c["path"] == cookie.path)
        ]
        await _delete(connection, matched, budget)
        notes = () if matched else (f"no cookie named {cookie.name!r} matched",)
        return StorageResult("delete", "cookies", scope, changed=len(matched), notes=notes)
    if action == "clear":
        if all:
            count = len(await _all_cookies(connection, budget))
            await connection.send("storage.deleteCookies", {}, budget=budget)
            return StorageResult("clear", "cookies", "all cookies of the browser", changed=count)
        scope = cookie.url or cookie_page_url(page.id, page.url)
        cookies = [c for c in await _all_cookies(connection, budget) if _sent_to(c, scope)]
        await _delete(connection, cookies, budget)
        return StorageResult("clear", "cookies", scope, changed=len(cookies))
    raise InvalidArgument(
        f"action={action!r} does not apply to cookies",
        hint="use get, set, delete or clear; save_state and load_state take a file",
    )


async def _all_cookies(connection: BiDiConnection, budget: Budget) -> list[JSONObject]:
    """Every cookie of the browser's store, values as text."""
    reply = await connection.send("storage.getCookies", {}, budget=budget)
    cookies = []
    for raw in reply.get("cookies", []):
        value = raw.get("value") or {}
        text = value.get("value", "") if value.get("type") == "string" else ""
        cookies.append({**raw, "value": text})
    return cookies


async def _delete(connection: BiDiConnection, cookies: list[JSONObject], budget: Budget) -> None:
    for c in cookies:
        target = {"name": c["name"], "domain": c["domain"], "path": c["path"]}
        await connection.send("storage.deleteCookies", {"filter": target}, budget=budget)


def _bidi_cookie(param: JSONObject) -> JSONObject:
    """A validated cookie (``cookie_param``: Chromium's shape) as BiDi's ``PartialCookie``."""
    url = param.get("url")
    domain = param.get("domain") or (urlsplit(url).hostname if url else "")
    out: JSONObject = {
        "name": param["name"],
        "value": {"type": "string", "value": param["value"]},
        "domain": domain,
        "path": param.get("path", "/"),
        "httpOnly": bool(param.get("httpOnly")),
        "secure": bool(param.get("secure")),
    }
    if "sameSite" in param:
        out["sameSite"] = str(param["sameSite"]).lower()
    if "expires" in param:
        out["expiry"] = int(param["expires"])
    return out


def _refusal(param: JSONObject, exc: BiDiError) -> str:
    """Why Firefox refused a cookie, in the Chromium engine's words where they fit."""
    if param.get("sameSite") == "None" and not param.get("secure"):
        return "SameSite=None needs secure=true"
    if str(param["name"]).startswith(("__Host-", "__Secure-")):
        return "its name prefix needs secure=true (and __Host- needs path / and no domain)"
    return exc.bidi_message or exc.error


_SAME_SITE = {"strict": "Strict", "lax": "Lax", "none": "None"}


def _playwright_cookie(cookie: JSONObject) -> JSONObject:
    """A BiDi cookie in Playwright's shape. Firefox reports a cookie set without
    SameSite as ``default``, which it treats as None (it is not Lax by default)."""
    return {
        "name": cookie["name"],
        "value": cookie["value"],
        "domain": cookie["domain"],
        "path": cookie["path"],
        "expires": float(cookie["expiry"]) if "expiry" in cookie else -1,
        "httpOnly": bool(cookie.get("httpOnly")),
        "secure": bool(cookie.get("secure")),
        "sameSite": _SAME_SITE.get(str(cookie.get("sameSite", "")).lower(), "None"),
    }


def _sent_to(cookie: JSONObject, url: str) -> bool:
    """Whether a request to ``url`` carries the cookie (domain, path and secure rules)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    domain = str(cookie["domain"]).lower()
    if domain.startswith("."):
        bare = domain[1:]
        if host != bare and not host.endswith(domain):
            return False
    elif host != domain:
        return False
    path, own = str(cookie["path"]) or "/", parts.path or "/"
    if own != path and not own.startswith(path.rstrip("/") + "/"):
        return False
    return not cookie.get("secure") or parts.scheme == "https"
