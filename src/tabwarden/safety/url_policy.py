"""The URL policy: which URLs pages may load, judged by pure, fast rules.

A URL is parsed the way Chromium parses it (the WHATWG URL standard: ``\\`` ends
the authority of http(s) URLs, hosts are percent-decoded and NFKC-mapped, and
``0xA9FEA9FE``, ``2852039166``, ``0251.0376.0251.0376`` or ``169.254.43518`` are
all the IPv4 address 169.254.169.254), so a spelling cannot slip past a rule.
Rules, first match wins:

1. **Scheme.** ``http``/``https`` (and ``ws``/``wss`` for requests) go on to the
   host rules. ``about:blank`` and ``about:srcdoc`` (Chromium's empty and inline
   frames) are allowed, other ``about:`` pages are not. ``data:`` and ``blob:``
   are allowed: their content is inline or made by the page itself, reaches no
   host, and whatever that content requests is judged like any other request.
   ``file:`` only with ``policy.allow_file`` and only inside the workspace
   (symlinks resolved). ``javascript:`` is never a navigation. Anything else
   (``chrome:``, ``ftp:``, ``view-source:``…) is refused.
2. **Cloud metadata endpoints**, always, whatever the lists say: the names and
   addresses in :data:`METADATA_HOSTS` and :data:`METADATA_ADDRESSES`, in any
   spelling, IPv4-mapped, -compatible and NAT64 IPv6 forms included.
3. **Deny list** entries.
4. **Loopback** (``policy.block_loopback``): 127.0.0.0/8, ::1, 0.0.0.0/8, ``localhost``
   and ``*.localhost``.
5. **Private networks** (``policy.block_private_networks``): RFC 1918, link-local,
   CGNAT (100.64.0.0/10), unique-local and site-local IPv6, and intranet names
   (one label without a dot, ``.local``, ``.internal``, ``.lan``, ``.home.arpa``…).
6. **Allow list**: when it has entries, only hosts on it.

Hosts are judged as written, not as resolved: a public name that resolves to a
private address is not caught here (Chromium does the resolving).
"""

from __future__ import annotations

import ipaddress
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol
from urllib.parse import unquote, unquote_to_bytes

__all__ = [
    "METADATA_ADDRESSES",
    "METADATA_HOSTS",
    "HostPattern",
    "ParsedURL",
    "PolicySettings",
    "UrlPolicy",
    "Verdict",
    "parse_host_pattern",
    "parse_url",
    "strip_url",
]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resource = Literal["navigation", "subresource"]

METADATA_HOSTS = frozenset(
    {
        "metadata",  # GCP's short name
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",  # AWS
        "instance-data.ec2.internal",
        "metadata.tencentyun.com",
    }
)
"""Host names of cloud instance metadata services."""

METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack…
        "169.254.170.2",  # AWS ECS task metadata and credentials
        "169.254.170.23",  # AWS EKS pod identity
        "169.254.0.23",  # Tencent Cloud
        "100.100.100.200",  # Alibaba Cloud
        "168.63.129.16",  # Azure WireServer
        "192.0.0.192",  # Oracle Cloud (classic)
        "fd00:ec2::254",  # AWS over IPv6
        "fd00:ec2::23",  # AWS EKS pod identity over IPv6
    )
)
"""Addresses of cloud instance metadata services."""

_LOOPBACK: tuple[Network, ...] = tuple(
    ipaddress.ip_network(n) for n in ("127.0.0.0/8", "0.0.0.0/8", "::1/128", "::/128")
)
_PRIVATE: tuple[Network, ...] = tuple(
    ipaddress.ip_network(n)
    for n in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "169.254.0.0/16",  # link-local
        "100.64.0.0/10",  # carrier-grade NAT
        "192.0.0.0/24",  # IETF protocol assignments
        "fc00::/7",  # unique-local
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated, still routed in places)
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_INTRANET_SUFFIXES = (
    ".local",
    ".localdomain",
    ".internal",
    ".intranet",
    ".lan",
    ".home",
    ".corp",
    ".home.arpa",
)
_SPECIAL = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": None}
_WEB = ("http", "https", "ws", "wss")
_ABOUT_ALLOWED = ("blank", "srcdoc")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_C0_OR_SPACE = "".join(chr(i) for i in range(0x21))
_FORBIDDEN_HOST = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")
_DIGITS = re.compile(r"^[0-9]+$")
_CREDENTIALS = re.compile(r"^(/*)[^/?#]*@")
_MAX_SHOWN = 200


# ---- URLs as Chromium reads them -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParsedURL:
    """The parts of a URL the policy judges."""

    scheme: str
    host: str
    """The host as written (lowercased, percent-decoded, NFKC-mapped); "" when none."""
    address: Address | None
    """The host as an IP address, whatever its spelling; None for a name."""
    port: int | None
    """The port, or the scheme's default."""
    path: str
    """The path (for opaque URLs such as ``data:``, everything after the scheme)."""
    valid_host: bool = True


def parse_url(url: str) -> ParsedURL | None:
    """Split ``url`` like the WHATWG URL parser does; None when it has no scheme."""
    url = url.strip(_C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
    match = _SCHEME.match(url)
    if match is None:
        return None
    scheme = match[1].lower()
    rest = url[match.end() :]
    if scheme not in _SPECIAL:
        if not rest.startswith("//"):
            return ParsedURL(scheme, "", None, None, rest, valid_host=True)
        authority, tail = _authority(rest[2:])
        host, port_text = _host_and_port(authority)
        return ParsedURL(scheme, host.lower(), None, _port(port_text, None), tail)
    rest = rest.replace("\\", "/")
    if scheme == "file":
        if rest.startswith("//"):
            authority, tail = _authority(rest[2:])
        else:
            authority, tail = "", rest
        host = authority.lower()
        return ParsedURL(scheme, "" if host == "localhost" else host, None, None, tail)
    authority, tail = _authority(rest.lstrip("/"))
    host_text, port_text = _host_and_port(authority)
    port = _port(port_text, _SPECIAL[scheme])
    host, address, valid = _canonical_host(host_text)
    return ParsedURL(scheme, host, address, port, tail, valid_host=valid and port != -1)


def strip_url(url: str) -> str:
    """``url`` without credentials, query or fragment, bounded: safe to log and show."""
    parsed = parse_url(url)
    if parsed is None:
        shown = _CREDENTIALS.sub(r"\1", url.strip().split("?", 1)[0].split("#", 1)[0])
    elif parsed.scheme == "data":
        shown = "data:" + parsed.path.split(",", 1)[0][:60] + ",…"
    elif parsed.scheme == "javascript":
        shown = "javascript:…"
    elif parsed.scheme == "blob":
        shown = "blob:" + strip_url(parsed.path)
    elif parsed.scheme in _SPECIAL or parsed.host:
        path = parsed.path.split("?", 1)[0].split("#", 1)[0]
        port = "" if parsed.port in (None, -1, _SPECIAL.get(parsed.scheme)) else f":{parsed.port}"
        host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
        shown = f"{parsed.scheme}://{host}{port}{path}"
    else:
        shown = f"{parsed.scheme}:" + _CREDENTIALS.sub(
            r"\1", parsed.path.split("?", 1)[0].split("#", 1)[0]
        )
    return shown if len(shown) <= _MAX_SHOWN else shown[: _MAX_SHOWN - 1] + "…"


def _authority(rest: str) -> tuple[str, str]:
    """The authority (up to the first ``/``, ``?`` or ``#``) and what follows it."""
    end = len(rest)
    for stop in "/?#":
        index = rest.find(stop)
        if index != -1:
            end = min(end, index)
    return rest[:end], rest[end:]


def _host_and_port(authority: str) -> tuple[str, str]:
    hostport = authority.rpartition("@")[2]  # credentials end at the last @
    if hostport.startswith("["):
        close = hostport.find("]")
        if close == -1:
            return hostport, ""
        after = hostport[close + 1 :]
        return hostport[: close + 1], after[1:] if after.startswith(":") else after
    host, _, port = hostport.partition(":")
    return host, port


def _port(text: str, default: int | None) -> int | None:
    """The port number, the default when empty, -1 when invalid."""
    if not text:
        return default
    if not _DIGITS.match(text) or int(text) > 65535:
        return -1
    return int(text)


def _canonical_host(text: str) -> tuple[str, Address | None, bool]:
    """(host, address, valid) for an http(s)/ws(s) host, as the URL standard reads it."""
    if text.startswith("["):
        if not text.endswith("]"):
            return text, None, False
        try:
            return text[1:-1].lower(), ipaddress.IPv6Address(text[1:-1]), True
        except ValueError:
            return text, None, False
    try:
        decoded = unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        return text, None, False
    host = unicodedata.normalize("NFKC", decoded).replace("\u3002", ".").lower()
    if not host or _FORBIDDEN_HOST.search(host):
        return host, None, False
    try:
        address = _ipv4(host)
    except ValueError:
        return host, None, False
    return host, address, True


def _ipv4(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a host spells (any WHATWG form), None for a domain name;
    ValueError for a host that ends in a number but is no address (Chromium refuses it)."""
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    if not (_DIGITS.match(last) or _ipv4_number(last) is not None):
        return None
    if len(parts) > 4:
        raise ValueError(host)
    numbers = [_ipv4_number(part) for part in parts]
    if any(n is None for n in numbers):
        raise ValueError(host)
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise ValueError(host)
    address = values[-1] + sum(n * 256 ** (3 - i) for i, n in enumerate(values[:-1]))
    return ipaddress.IPv4Address(address)


def _ipv4_number(text: str) -> int | None:
    if not text:
        return None
    radix = 10
    if text[:2] in ("0x", "0X"):
        text, radix = text[2:], 16
    elif len(text) > 1 and text.startswith("0"):
        text, radix = text[1:], 8
    if not text:
        return 0
    digits = {10: "0123456789", 8: "01234567", 16: "0123456789abcdefABCDEF"}[radix]
    if any(c not in digits for c in text):
        return None
    return int(text, radix)


def _embedded_ipv4(address: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4)."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    value = int(address)
    if address in _NAT64 or (value >> 32 == 0 and value > 1):
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    return None


def _addresses(address: Address | None) -> tuple[Address, ...]:
    if address is None:
        return ()
    embedded = _embedded_ipv4(address)
    return (address,) if embedded is None else (address, embedded)


def _name(host: str) -> str:
    """A host name for matching: one trailing dot dropped, in ASCII (punycode)."""
    host = host[:-1] if host.endswith(".") else host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


# ---- allow and deny list entries -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HostPattern:
    """An allow or deny list entry: ``example.com`` (itself), ``*.example.com`` (it and
    its subdomains), ``*`` (every host), an IP address or CIDR range, each with an
    optional ``scheme://`` in front and ``:port`` after."""

    text: str
    host: str | None
    """The host name in ASCII; None for ``*`` and for addresses."""
    subdomains: bool
    network: Network | None
    port: int | None
    scheme: str | None

    def matches(self, url: ParsedURL) -> bool:
        if self.scheme is not None and url.scheme != self.scheme:
            return False
        if self.port is not None and url.port != self.port:
            return False
        if self.network is not None:
            return any(
                a.version == self.network.version and a in self.network
                for a in _addresses(url.address)
            )
        if self.host is None:
            return True
        if url.address is not None:
            return False
        name = _name(url.host)
        return name == self.host or (self.subdomains and name.endswith("." + self.host))


def parse_host_pattern(text: str) -> HostPattern:
    """Read one allow/deny list entry; ValueError says what is wrong with it."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("an empty entry matches nothing")
    original = text
    text = text.strip().lower()
    scheme = None
    if "://" in text:
        scheme, _, text = text.partition("://")
        if scheme not in _WEB:
            raise ValueError(f"{original!r}: scheme {scheme}: cannot be listed (http, https)")
    text = text.rstrip("/")
    try:
        return HostPattern(
            original, None, False, ipaddress.ip_network(text, strict=False), None, scheme
        )
    except ValueError:
        pass
    host, port_text = _host_and_port(text)
    port = _port(port_text, None)
    if port == -1 or "/" in host:
        raise ValueError(f"{original!r} is not a host, host:port or CIDR range")
    if host.startswith("["):
        try:
            network = ipaddress.ip_network(host[1:-1])
        except ValueError:
            raise ValueError(f"{original!r}: {host} is not an IPv6 address") from None
        return HostPattern(original, None, False, network, port, scheme)
    if host == "*":
        return HostPattern(original, None, True, None, port, scheme)
    subdomains = host.startswith("*.")
    if subdomains:
        host = host[2:]
    if "*" in host:
        raise ValueError(f"{original!r}: a wildcard may only start an entry, as in *.example.com")
    name, address, valid = _canonical_host(host)
    if not valid or not name:
        raise ValueError(f"{original!r} is not a valid host")
    if address is not None:
        return HostPattern(original, None, False, ipaddress.ip_network(address), port, scheme)
    return HostPattern(original, _name(name), subdomains, None, port, scheme)


# ---- the policy ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the policy says about one URL, and the rule that said it."""

    allowed: bool
    url: str
    """The URL without credentials, query or fragment."""
    rule: str
    hint: str = ""
    """For a refusal: what the agent can do instead."""


class PolicySettings(Protocol):
    """What the rules read from configuration (``config.PolicyConfig`` has it). Named
    here, so the rules need not import the configuration, which validates its list
    entries with :func:`parse_host_pattern`."""

    @property
    def allow(self) -> list[str]: ...
    @property
    def deny(self) -> list[str]: ...
    @property
    def allow_file(self) -> bool: ...
    @property
    def block_private_networks(self) -> bool: ...
    @property
    def block_loopback(self) -> bool: ...


class UrlPolicy:
    """The rules of one session (see the module docstring); :meth:`check` is pure."""

    def __init__(
        self,
        *,
        allow: tuple[str, ...] | list[str] = (),
        deny: tuple[str, ...] | list[str] = (),
        allow_file: bool = False,
        workspace: str | os.PathLike[str] | None = None,
        block_private_networks: bool = False,
        block_loopback: bool = False,
    ) -> None:
        self.allow = tuple(parse_host_pattern(p) for p in allow)
        self.deny = tuple(parse_host_pattern(p) for p in deny)
        self.allow_file = allow_file
        self.workspace = Path(workspace).resolve() if workspace is not None else None
        self.block_private_networks = block_private_networks
        self.block_loopback = block_loopback

    @classmethod
    def from_config(
        cls, config: PolicySettings, workspace: str | os.PathLike[str] | None
    ) -> UrlPolicy:
        return cls(
            allow=config.allow,
            deny=config.deny,
            allow_file=config.allow_file,
            workspace=workspace,
            block_private_networks=config.block_private_networks,
            block_loopback=config.block_loopback,
        )

    def check(self, url: str, *, resource: Resource = "navigation") -> Verdict:
        """Judge ``url`` as a page (``navigation``) or as a request a page makes."""
        shown = strip_url(url)
        parsed = parse_url(url)
        if parsed is None:
            return _deny(shown, "a URL without a scheme", "give a full URL such as https://…")
        scheme = parsed.scheme
        if scheme in _WEB and (scheme in ("http", "https") or resource == "subresource"):
            return self._check_host(parsed, shown)
        if scheme == "javascript":
            return _deny(
                shown, "scheme javascript: is never allowed", "run script with evaluate instead"
            )
        if scheme == "about":
            page = re.split(r"[?#]", parsed.path, maxsplit=1)[0].lower()
            if page in _ABOUT_ALLOWED:
                return Verdict(True, shown, f"about:{page}")
            return _deny(shown, f"about:{page} is not allowed (only about:blank and about:srcdoc)")
        if scheme == "data":
            return Verdict(True, shown, "data: URL (inline content)")
        if scheme == "blob":
            return Verdict(True, shown, "blob: URL (content the page made)")
        if scheme == "file":
            return self._check_file(parsed, shown)
        return _deny(
            shown,
            f"scheme {scheme}: is not allowed",
            "use http:, https:, about:blank or data: (file: when policy.allow_file is on)",
        )

    # ---- private -------------------------------------------------------------------

    def _check_host(self, url: ParsedURL, shown: str) -> Verdict:
        if not url.valid_host or not url.host:
            return _deny(shown, "the URL has no valid host", "check the URL")
        addresses = _addresses(url.address)
        name = _name(url.host) if url.address is None else ""
        if name in METADATA_HOSTS or any(a in METADATA_ADDRESSES for a in addresses):
            return _deny(
                shown,
                "cloud metadata endpoint",
                "cloud metadata endpoints are always blocked; no setting allows them",
            )
        for pattern in self.deny:
            if pattern.matches(url):
                return _deny(
                    shown,
                    f"deny list entry {pattern.text}",
                    "the user's policy.deny list blocks this host; pick another URL",
                )
        if self.block_loopback and _is_loopback(name, addresses):
            return _deny(
                shown,
                "loopback address (policy.block_loopback)",
                "this machine's own servers are blocked by the user's policy",
            )
        if self.block_private_networks and _is_private(name, addresses):
            return _deny(
                shown,
                "private network address (policy.block_private_networks)",
                "hosts on private networks are blocked by the user's policy",
            )
        if self.allow:
            for pattern in self.allow:
                if pattern.matches(url):
                    return Verdict(True, shown, f"allow list entry {pattern.text}")
            listed = ", ".join(p.text for p in self.allow[:10])
            return _deny(
                shown,
                "not on the allow list",
                f"only these hosts may be loaded (policy.allow): {listed}",
            )
        return Verdict(True, shown, "no rule blocks it")

    def _check_file(self, url: ParsedURL, shown: str) -> Verdict:
        where = f" {self.workspace}" if self.workspace is not None else ""
        if not self.allow_file:
            return _deny(
                shown,
                "file: URLs are off (policy.allow_file)",
                f"serve the file over http, or ask the user to turn on policy.allow_file "
                f"(files inside the workspace{where} only)",
            )
        if url.host:
            return _deny(shown, "file: URL on another host", "only local files can be opened")
        if self.workspace is None:
            return _deny(shown, "file: URLs need a workspace", "set browser.workspace")
        path = Path(unquote(url.path.split("?", 1)[0].split("#", 1)[0]) or "/")
        try:
            real = path.resolve()
        except (OSError, RuntimeError):  # a symlink loop
            return _deny(shown, "file outside the workspace", f"open files inside{where}")
        if real == self.workspace or self.workspace in real.parents:
            return Verdict(True, shown, "file inside the workspace")
        return _deny(
            shown, f"file outside the workspace{where}", f"copy it into the workspace{where}"
        )


def _deny(url: str, rule: str, hint: str = "") -> Verdict:
    return Verdict(False, url, rule, hint)


def _is_loopback(name: str, addresses: tuple[Address, ...]) -> bool:
    if name == "localhost" or name.endswith(".localhost"):
        return True
    return any(a in n for a in addresses for n in _LOOPBACK if a.version == n.version)


def _is_private(name: str, addresses: tuple[Address, ...]) -> bool:
    if addresses:
        return any(a in n for a in addresses for n in _PRIVATE if a.version == n.version)
    if name in ("localhost",) or name.endswith(".localhost"):
        return False  # loopback has its own switch
    return "." not in name or name.endswith(_INTRANET_SUFFIXES)
