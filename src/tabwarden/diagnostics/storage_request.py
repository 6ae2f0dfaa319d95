"""What a storage call asks and answers, on either engine: the cookie's fields
(``CookieSpec``, the storage tool's parameters too), the checks of a request and of
a cookie, and the reply (``StorageResult``). The engines' own modules do the work:
diagnostics/storage.py over CDP, firefox/storage.py over WebDriver BiDi."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..arguments import model_from
from ..errors import InvalidArgument
from ..report_text import ReportText

__all__ = [
    "STATE_HINT",
    "CookieSpec",
    "StorageAction",
    "StorageKind",
    "StorageResult",
    "check_request",
    "check_web_storage",
    "cookie_page_url",
    "cookie_param",
    "cookie_spec",
    "storage_origin",
]

StorageAction = Literal["get", "set", "delete", "clear", "save_state", "load_state"]
StorageKind = Literal["cookies", "local", "session"]
_SAME_SITE = ("Strict", "Lax", "None")
STATE_HINT = (
    'a storage state file is JSON: {"cookies": [{"name", "value", "domain", "path", '
    '"expires", "httpOnly", "secure", "sameSite"}], "origins": [{"origin": '
    '"https://example.com", "localStorage": [{"name", "value"}]}]}'
)


class CookieSpec(BaseModel):
    """A cookie's fields, the one list of them (the storage tool's parameters too): the
    cookie to set, or what to get or delete by. ``name`` and ``value`` are also a
    localStorage or sessionStorage entry's key and value."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="Cookie name or storage key")
    value: str | None = Field(None, description="Value to set")
    domain: str | None = Field(None, description="Cookie domain (default: the page's)")
    url: str | None = Field(None, description="Cookies for this URL instead of the page's")
    path: str | None = Field(None, description="Cookie path (default /)")
    expires: float | None = Field(
        None, description="Cookie expiry, Unix seconds (default: a session cookie)"
    )
    # Serialised under Playwright's names, a state file's cookie shape (cookie_param).
    http_only: bool = Field(False, serialization_alias="httpOnly")
    secure: bool = False
    same_site: Literal["Strict", "Lax", "None"] | None = Field(None, serialization_alias="sameSite")

    @field_validator("same_site", mode="before")
    @classmethod
    def _any_case(cls, value: Any) -> Any:
        return value.capitalize() if isinstance(value, str) else value  # lax → Lax

    def playwright(self) -> dict[str, Any]:
        """This cookie in Playwright's shape (``httpOnly``, ``sameSite``), its own fields
        only (a model built on this one has more)."""
        return self.model_dump(by_alias=True, include=set(CookieSpec.model_fields))


def cookie_spec(cookie: CookieSpec | None, fields: Mapping[str, Any]) -> CookieSpec:
    """The cookie a storage call names: a model and fields as keyword arguments (these
    win); a bad value is an InvalidArgument."""
    return model_from(CookieSpec, cookie, fields, call="storage")


_LISTED_ITEMS = 100
_LISTED_VALUE_CHARS = 300


@dataclass(frozen=True, slots=True)
class StorageResult:
    """What a storage call read or changed."""

    action: str
    kind: str
    scope: str
    """The origin or URL acted on, ``all cookies``, or the state file."""
    items: tuple[dict[str, Any], ...] = ()
    """Cookies (Playwright's shape) or ``{"name", "value"}`` entries."""
    changed: int = 0
    """How many entries were set or removed."""
    file: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def text(self) -> ReportText:
        """A bounded listing for a model: values clipped, long lists cut."""
        max_items, max_value_chars = _LISTED_ITEMS, _LISTED_VALUE_CHARS
        lines = [self._headline()]
        for item in self.items[:max_items]:
            value = str(item.get("value", ""))
            if len(value) > max_value_chars:
                value = value[:max_value_chars] + f"… [{len(value):,} chars]"
            line = f"- {item.get('name', '')}={value}"
            if self.kind == "cookies" and "domain" in item:
                flags = [item["domain"] + item.get("path", "")]
                flags += [f for f in ("httpOnly", "secure") if item.get(f)]
                flags.append(f"SameSite={item.get('sameSite', 'Lax')}")
                expires = item.get("expires", -1)
                flags.append("session" if expires in (-1, None) else f"expires {expires:.0f}")
                line += f" ({', '.join(flags)})"
            lines.append(line)
        if len(self.items) > max_items:
            lines.append(f"… {len(self.items) - max_items} more not listed")
        lines += [f"note: {note}" for note in self.notes]
        return ReportText("\n".join(lines))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "kind": self.kind,
            "scope": self.scope,
            "items": [dict(i) for i in self.items],
            "changed": self.changed,
            "file": self.file,
            "notes": list(self.notes),
        }

    def _headline(self) -> str:
        area = {"local": "localStorage", "session": "sessionStorage"}.get(self.kind)
        what = f"{area} entries" if area else "cookies"
        if self.action == "get":
            return f"{len(self.items)} {what} of {self.scope}"
        if self.action == "save_state":
            return f"saved {self.scope} to {self.file}"
        if self.action == "load_state":
            return f"loaded {self.scope} from {self.file}"
        verb = {"set": "set", "delete": "deleted", "clear": "cleared"}[self.action]
        return f"{verb} {self.changed} {what} of {self.scope}"


def check_request(action: str, kind: str) -> None:
    actions, kinds = get_args(StorageAction), get_args(StorageKind)
    if action not in actions:
        raise InvalidArgument(
            f"action={action!r} is not a storage action", hint=f"use one of {', '.join(actions)}"
        )
    if kind not in kinds:
        raise InvalidArgument(
            f"kind={kind!r} is not a kind of storage", hint=f"use one of {', '.join(kinds)}"
        )


def cookie_param(cookie: Any, *, where: str) -> dict[str, Any]:
    """A ``Storage.setCookies`` entry from Playwright's cookie shape, validated."""
    if not isinstance(cookie, dict):
        raise InvalidArgument(f"{where} must be an object", hint=STATE_HINT)
    name, value = cookie.get("name"), cookie.get("value")
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"{where}: 'name' must be a non-empty string", hint=STATE_HINT)
    if not isinstance(value, str):
        raise InvalidArgument(f"{where} ({name}): 'value' must be a string", hint=STATE_HINT)
    out: dict[str, Any] = {"name": name, "value": value}
    url, domain, path = cookie.get("url"), cookie.get("domain"), cookie.get("path")
    if url is not None:
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
            raise InvalidArgument(
                f"{where} ({name}): 'url' must be an http(s) URL, got {url!r}", hint=STATE_HINT
            )
        out["url"] = url
    if domain is not None:
        if not isinstance(domain, str) or not domain.strip(".") or "/" in domain:
            raise InvalidArgument(
                f"{where} ({name}): 'domain' must be a host name such as example.com, "
                f"got {domain!r}",
                hint=STATE_HINT,
            )
        out["domain"] = domain
    if url is None and domain is None:
        raise InvalidArgument(
            f"{where} ({name}) needs a 'domain' (with 'path') or a 'url'", hint=STATE_HINT
        )
    if path is not None:
        if not isinstance(path, str) or not path.startswith("/"):
            raise InvalidArgument(
                f"{where} ({name}): 'path' must start with '/', got {path!r}", hint=STATE_HINT
            )
        out["path"] = path
    elif domain is not None or url is not None:
        out["path"] = "/"
    expires = cookie.get("expires")
    if expires is not None and expires != -1:
        if isinstance(expires, bool) or not isinstance(expires, (int, float)) or expires < 0:
            raise InvalidArgument(
                f"{where} ({name}): 'expires' must be a Unix time in seconds, or -1 for a "
                f"session cookie; got {expires!r}",
                hint=STATE_HINT,
            )
        if expires <= time.time():
            raise InvalidArgument(
                f"{where} ({name}): 'expires' {expires:.0f} lies in the past, so the cookie "
                "would be deleted at once",
                hint="give a time in the future, or -1 for a session cookie; to remove a "
                "cookie use action='delete'",
            )
        out["expires"] = float(expires)
    for field in ("httpOnly", "secure"):
        flag = cookie.get(field, False)
        if not isinstance(flag, bool):
            raise InvalidArgument(
                f"{where} ({name}): '{field}' must be true or false, got {flag!r}",
                hint=STATE_HINT,
            )
        out[field] = flag
    same_site = cookie.get("sameSite")
    if same_site is not None:
        normal = str(same_site).capitalize()
        if normal not in _SAME_SITE:
            raise InvalidArgument(
                f"{where} ({name}): 'sameSite' must be Strict, Lax or None, got {same_site!r}",
                hint=STATE_HINT,
            )
        out["sameSite"] = normal
    return out


def check_web_storage(kind: str, cookie: CookieSpec, all: bool) -> None:
    """Refuse cookie-only fields (domain, path, expires…, ``all``) given for web storage."""
    given = {name: getattr(cookie, name) for name in CookieSpec.model_fields}
    cookie_only = [
        name
        for name, value in given.items()
        if name not in ("name", "value") and value is not None and value is not False
    ]
    if all:
        cookie_only.append("all")
    if cookie_only:
        raise InvalidArgument(
            f"{', '.join(cookie_only)} only apply to cookies, not to kind={kind!r}",
            hint="leave them out, or use kind='cookies'",
        )


def cookie_page_url(tab_id: str, url: str) -> str:
    """The URL whose cookies a tab's cookie call is about: the page it shows (http or
    https only: another page has no cookies of its own)."""
    if urlsplit(url).scheme not in ("http", "https"):
        raise InvalidArgument(
            f"tab {tab_id} shows {url or 'nothing'}, which has no cookies of its own",
            hint="navigate to the site first, or give url= or domain=",
        )
    return url


def storage_origin(tab_id: str, url: str) -> str:
    """The origin whose web storage a tab's storage call is about (the page it shows)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "file"):
        raise InvalidArgument(
            f"tab {tab_id} shows {url or 'nothing'}, which has no storage of its own",
            hint="navigate to a page of the site first",
        )
    return f"{parts.scheme}://{parts.netloc}"
