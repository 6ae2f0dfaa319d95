"""Redaction: secrets never reach the model or a log.

Built-in patterns (tokens, vendor keys, private keys, credentials in URLs and in
``key=value`` fields) become ``[redacted:<kind>]``; the user's own secrets, read
from a dotenv-style file, become ``[secret:<NAME>]``.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..errors import ConfigError, TabwardenError

if TYPE_CHECKING:
    from ..config import SafetyConfig

__all__ = [
    "MIN_SECRET_CHARS",
    "Redactor",
    "install_log_redaction",
    "load_secrets",
    "parse_secrets",
    "process_redactor",
    "secret_kind",
    "share_secrets",
]

logger = logging.getLogger("tabwarden.safety")

MIN_SECRET_CHARS = 4
"""User secrets shorter than this are not replaced: they would match ordinary text."""

# ---- what a secret-bearing key looks like ----------------------------------------------

# One word of a key (``accessToken`` → access, token) and the kind it reveals.
_WORD_KINDS = {
    "password": "password",
    "passwd": "password",
    "pwd": "password",
    "passphrase": "password",
    "secret": "secret",
    "token": "token",
    "apikey": "api-key",
    "auth": "auth",
    "authorization": "auth",
    "credential": "credential",
    "credentials": "credential",
    "cookie": "cookie",
    "session": "session",
    "sessionid": "session",
    "sessid": "session",
    "sid": "session",
    "jwt": "jwt",
    "privatekey": "private-key",
}
# Two words that together name a secret (``api_key``, ``private-key``, ``accessKey``).
_PAIR_KINDS = {
    ("api", "key"): "api-key",
    ("private", "key"): "private-key",
    ("access", "key"): "api-key",
    ("secret", "key"): "secret",
}
# Keys written as one lowercase word (``csrftoken``, ``xapikey``) end like this.
_SUFFIX_KINDS = (
    ("password", "password"),
    ("passwd", "password"),
    ("apikey", "api-key"),
    ("sessionid", "session"),
    ("token", "token"),
    ("secret", "secret"),
)
_KEY_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@functools.lru_cache(maxsize=4096)
def secret_kind(key: str) -> str | None:
    """The kind of secret a field called ``key`` holds (``"token"``), or None.

    Matched by whole words so that ``author``, ``max_tokens`` or ``tokenizer``
    are not taken for secrets.
    """
    if not key or len(key) > 64:
        return None
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    for word in reversed(words):  # the last word names the thing: auth_token is a token
        if word in _WORD_KINDS:
            return _WORD_KINDS[word]
    for pair in itertools.pairwise(words):
        if pair in _PAIR_KINDS:
            return _PAIR_KINDS[pair]
    joined = "".join(words)
    for suffix, kind in _SUFFIX_KINDS:
        if joined.endswith(suffix):
            return kind
    return None


# ---- built-in patterns ---------------------------------------------------------------------

_PEM = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY((?: BLOCK)?)-----"
    # The whole block; or, when a cut left it without its end, the base64 lines.
    r"(?:.*?-----END \1PRIVATE KEY\2-----|[A-Za-z0-9+/=\r\n\\]*)",
    re.DOTALL,
)
# Header lines whose whole value is a credential.
_HEADER_LINE = re.compile(
    r"^(?P<pre>[ \t>*-]*(?P<key>Authorization|Proxy-Authorization|Cookie|Set-Cookie|"
    r"X-Api-Key|X-Auth-Token|X-Amz-Security-Token)[ \t]*:[ \t]*)(?P<val>\S[^\r\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
_URL_USERINFO = re.compile(
    r"(?P<pre>\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s/:@'\"<>]+:)(?P<val>[^\s/@'\"<>]+)(?=@)"
)
# Prefixed tokens: one alternation, the group name is the kind. It runs only on
# candidate runs of token characters (a cheap scan), not at every position of a text.
_VENDOR_PATTERNS = {
    "jwt": r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    "anthropic_key": r"\bsk-ant-[A-Za-z0-9_-]{20,}",
    "openai_key": r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    "github_token": r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
    "slack_token": r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    "stripe_key": r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}",
    "google_api_key": r"\bAIza[0-9A-Za-z_-]{35}",
    "gitlab_token": r"\bglpat-[A-Za-z0-9_-]{20,}",
    "npm_token": r"\bnpm_[A-Za-z0-9]{36}",
    "twilio_key": r"\bSK[0-9a-fA-F]{32}\b",
    "sendgrid_key": r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
    "huggingface_token": r"\bhf_[A-Za-z0-9]{30,}",
    "digitalocean_token": r"\bdo[por]_v1_[a-f0-9]{64}",
    "shopify_token": r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
    "aws_access_key_id": r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
}
_VENDOR = re.compile("|".join(f"(?P<{k}>{p})" for k, p in _VENDOR_PATTERNS.items()))
_CANDIDATE = re.compile(r"[A-Za-z0-9_.\-]{16,}")
_SLACK_WEBHOOK = re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_BEARER = re.compile(r"\b(?P<pre>[Bb]earer\s+)(?P<val>[A-Za-z0-9\-._~+/]{8,}=*)")
# Fields: the match is the key and its separator only, the value is in a look-ahead,
# so the key of an ordinary pair never swallows a secret pair right after it
# (?state=x#id_token=y); secret_kind decides which keys name secrets.
_KEY = r"[A-Za-z_$][\w$.-]{0,63}"
# "key": "value" (JSON, also escaped inside a JSON string) and 'key': 'value' (JS).
_QUOTED_FIELD = re.compile(
    rf"(?P<kq>\\?[\"'])(?P<key>{_KEY})(?P=kq)\s*:\s*"
    r"(?=(?P<vq>\\?[\"'])(?P<val>.*?)(?<!\\)(?P=vq))"
)
# key: "value" (a JS object literal).
_BARE_KEY_FIELD = re.compile(
    r"(?<![\w$\"'\\.-])(?P<key>[A-Za-z_$][\w$]{0,63})\s*:\s*"
    r"(?=(?P<vq>[\"'`])(?P<val>.*?)(?<!\\)(?P=vq))"
)
# key=value (query strings, cookies, env files, logs): no spaces around '='.
# (The snapshot's own [ref=e7] [level=2] [url=…] markers are no fields to judge.)
_EQUALS_FIELD = re.compile(
    r"(?<![\w.-])(?!(?:ref|level|url|checked|expanded|pressed)=)"
    rf"(?P<key>{_KEY})=(?=(?P<val>[^\s&;,\"'<>(){{}}\[\]`|]+))"
)
# key: value (YAML, logs, prose): only values that look like credentials.
_COLON_FIELD = re.compile(
    rf"(?<![\w.-])(?P<key>{_KEY}):[ \t]*(?=(?P<val>[^\s,;\"'<>(){{}}\[\]`|]+))"
)
_WHOLE_TOKEN = re.compile(r"\s*([A-Za-z0-9_\-+/=]{24,512})\s*")
# A random-looking token as a whole value: the whole text, a quoted string, or what
# follows name= or name: (storage listings, query strings).
_QUOTED_TOKEN = re.compile(r"(?<![\w\\])(\\?\")([A-Za-z0-9_\-+/=]{24,512})\1")
_ASSIGNED_TOKEN = re.compile(
    r"(?<=[\w\]][=:])([ \t]?)([A-Za-z0-9_\-+/=]{24,512})(?![A-Za-z0-9_\-+/=.:@])"
)
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-+/=]+")
_HEX_ID = re.compile(r"[0-9a-fA-F-]+")
_LOWER_RUN = re.compile(r"[a-z]{4,}")
_PLACEHOLDERS = frozenset(
    {"null", "none", "undefined", "true", "false", "bearer", "basic", "token", "xxx", "..."}
)
_MARKERS = ("[redacted:", "[secret:")
_SHORTEST_MATCH = 8
# Every built-in pattern needs one of these (a field's '=' or ':', a URL's '@', a
# bearer, a PEM block, or a long run of token characters): text without any — most
# names, labels and values on a page — is let through without running the patterns.
_MAYBE_SECRET = re.compile(r"[=:@]|[Bb]earer|-----BEGIN|[A-Za-z0-9_.\-+/]{16,}")
"""No built-in pattern matches fewer characters (``pwd=abcd``)."""
_Decide = Callable[[re.Match[str], str], "str | None"]


def _marker(kind: str) -> str:
    return f"[redacted:{kind}]"


def _is_placeholder(value: str) -> bool:
    """Values that carry nothing to hide: empty, null-ish, masks, templates."""
    text = value.strip()
    if len(text) < 3 or text.lower() in _PLACEHOLDERS or text.startswith(_MARKERS):
        return True
    if set(text) <= set("*•.xX-_ "):
        return True
    return (text[0], text[-1]) in (("<", ">"), ("{", "}")) or text.startswith(("${", "{{", "%"))


def _looks_random(token: str) -> bool:
    """A long token of mixed letters and digits with the entropy of a random string.

    Hex (frame and target ids, hashes) and UUIDs are left alone; so are identifiers
    made of words (long lowercase runs) and Subresource Integrity hashes.
    """
    n = len(token)
    if not 24 <= n <= 512 or not _TOKEN_CHARS.fullmatch(token) or _HEX_ID.fullmatch(token):
        return False
    if token.startswith(("sha256-", "sha384-", "sha512-")) or token.count("/") > 2:
        return False
    if not (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
    ):
        return False
    if sum(len(run) for run in _LOWER_RUN.findall(token)) / n > 0.5:
        return False
    counts = Counter(token)
    entropy = -sum(c / n * math.log2(c / n) for c in counts.values())
    return entropy >= min(0.83 * math.log2(n), 4.5)


def _credential_like(value: str) -> bool:
    """For ``key: value`` in free text: letters with digits, or a long mixed-case token.

    ``Password: required`` or ``session: active`` stay; ``password: hunter2`` goes.
    """
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if has_digit and has_alpha and len(value) >= 4:
        return True
    mixed = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return len(value) >= 20 and mixed and "." not in value


# ---- the redactor ------------------------------------------------------------------------


class Redactor:
    """Replaces secrets in text and in JSON-like values.

    ``builtin=False`` turns the built-in patterns off; the user's secrets (added with
    :meth:`add_secrets`) are replaced either way.
    """

    def __init__(self, *, builtin: bool = True, secrets: Mapping[str, str] | None = None) -> None:
        self.builtin = builtin
        self._lock = threading.Lock()
        self._secrets: dict[str, str] = {}  # value → name
        self._secret_pattern: re.Pattern[str] | None = None
        if secrets:
            self.add_secrets(secrets)

    @classmethod
    def from_config(cls, safety: SafetyConfig) -> Redactor:
        """The redactor a configuration asks for (``safety.redact``, ``safety.secrets_file``)."""
        redactor = cls(builtin=safety.redact)
        if safety.secrets_file is not None:
            redactor.add_secrets(load_secrets(safety.secrets_file))
        install_log_redaction()
        return redactor

    @property
    def secret_names(self) -> list[str]:
        """Names of the user's secrets this redactor replaces (never their values)."""
        return sorted(set(self._secrets.values()))

    def add_secrets(self, secrets: Mapping[str, str]) -> None:
        """Replace every occurrence of these values by ``[secret:NAME]`` from now on.

        Values shorter than :data:`MIN_SECRET_CHARS` are skipped (see
        :func:`load_secrets`, which warns about them). Logs learn them too.
        """
        added = {v: k for k, v in secrets.items() if len(v) >= MIN_SECRET_CHARS}
        if not added:
            return
        with self._lock:
            for value, name in added.items():
                for form in _encodings(value):
                    self._secrets.setdefault(form, name)
                self._secrets[value] = name
            # Longest first: a secret that contains another is named as itself.
            ordered = sorted(self._secrets, key=len, reverse=True)
            self._secret_pattern = re.compile("|".join(re.escape(v) for v in ordered))
        if self is not _PROCESS:
            _PROCESS.add_secrets(secrets)

    @property
    def has_secrets(self) -> bool:
        return self._secret_pattern is not None

    def add_secrets_file(self, path: str | Path) -> None:
        self.add_secrets(load_secrets(path))

    # ---- redaction -------------------------------------------------------------------

    def redact_text(self, text: str) -> str:
        """``text`` with user secrets named and built-in patterns replaced."""
        if not isinstance(text, str) or len(text) < MIN_SECRET_CHARS:
            return text
        if self is not _SHARED and _SHARED.has_secrets:
            text = _SHARED.redact_text(text)
        pattern = self._secret_pattern
        if pattern is not None:
            secrets = self._secrets
            text = pattern.sub(lambda m: f"[secret:{secrets[m.group(0)]}]", text)
        if not self.builtin or len(text) < _SHORTEST_MATCH or not _MAYBE_SECRET.search(text):
            return text
        text = _PEM.sub(_marker("private-key"), text)
        text = _HEADER_LINE.sub(_header_value, text)
        text = _URL_USERINFO.sub(lambda m: m.group("pre") + _marker("password"), text)
        aws_id = False

        def vendor(m: re.Match[str]) -> str:
            nonlocal aws_id
            kind = str(m.lastgroup)
            aws_id = aws_id or kind == "aws_access_key_id"
            return _marker(kind.replace("_", "-"))

        text = _CANDIDATE.sub(lambda m: _VENDOR.sub(vendor, m.group(0)), text)
        text = _SLACK_WEBHOOK.sub(_marker("slack-webhook"), text)
        if aws_id:  # a secret access key travels next to its key id
            text = _AWS_SECRET.sub(_aws_secret, text)
        text = _BEARER.sub(_bearer, text)
        text = _fields(text, _QUOTED_FIELD, _quoted_field)
        text = _fields(text, _BARE_KEY_FIELD, _quoted_field)
        text = _fields(text, _EQUALS_FIELD, _equals_field)
        text = _fields(text, _COLON_FIELD, _colon_field)
        text = _QUOTED_TOKEN.sub(_quoted_token, text)
        text = _ASSIGNED_TOKEN.sub(_assigned_token, text)
        whole = _WHOLE_TOKEN.fullmatch(text)
        if whole is not None and _looks_random(whole.group(1)):
            text = text.replace(whole.group(1), _marker("token"))
        return text

    def redact_value(self, value: Any) -> Any:
        """A copy of a JSON-like value (dict, list, tuple, str…) with secrets replaced.

        A dict key that names a secret (``password``, ``accessToken``, ``Cookie``…)
        has its value replaced whatever its shape; so has the ``value`` of a
        ``{"name": …, "value": …}`` pair (cookies, headers, storage items) whose name
        does. Strings pass through :meth:`redact_text`.
        """
        return self._redact_value(value, {})

    def _redact_value(self, value: Any, seen: dict[str, str]) -> Any:
        # ``seen``: strings already redacted in this value (frame ids, URLs and keys
        # repeat across the nodes of a snapshot).
        if isinstance(value, str):
            done = seen.get(value)
            if done is None:
                done = seen[value] = self.redact_text(value)
            return done
        if isinstance(value, dict):
            pair = self._pair_kind(value)
            out: dict[Any, Any] = {}
            for key, item in value.items():
                kind = secret_kind(key) if self.builtin and isinstance(key, str) else None
                if key == "value" and pair is not None:
                    kind = pair
                new_key = self._redact_value(key, seen) if isinstance(key, str) else key
                if kind is not None and not _nothing_to_hide(item):
                    out[new_key] = _marker(kind)
                else:
                    out[new_key] = self._redact_value(item, seen)
            return out
        if isinstance(value, list):
            return [self._redact_value(item, seen) for item in value]
        if isinstance(value, tuple):
            return tuple(self._redact_value(item, seen) for item in value)
        return value

    def redact_error(self, error: TabwardenError) -> TabwardenError:
        """The same error with its message and hint redacted (in place, so its type and
        attributes stay for whoever catches it)."""
        message = self.redact_text(error.message)
        hint = self.redact_text(error.hint)
        if (message, hint) != (error.message, error.hint):
            error.message, error.hint = message, hint
            error.args = (message, *error.args[1:])
        return error

    def _pair_kind(self, value: dict[Any, Any]) -> str | None:
        if not self.builtin or "value" not in value:
            return None
        name = value.get("name", value.get("key"))
        return secret_kind(name) if isinstance(name, str) else None


def _nothing_to_hide(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, str):
        return not value.strip() or value.startswith(_MARKERS)
    return isinstance(value, (list, dict, tuple)) and not value


def _encodings(value: str) -> Iterable[str]:
    """How a secret may also appear: URL-encoded, or escaped inside a JSON string."""
    yield quote(value, safe="")
    yield json.dumps(value)[1:-1]


def _header_value(m: re.Match[str]) -> str:
    if m.group("val").startswith(_MARKERS):
        return m.group(0)
    kind = secret_kind(m.group("key")) or "auth"
    return m.group("pre") + _marker(kind)


def _aws_secret(m: re.Match[str]) -> str:
    token = m.group(0)
    mixed = any(c.isupper() for c in token) and any(c.islower() for c in token)
    if mixed and any(c.isdigit() or c in "/+" for c in token):
        return _marker("aws-secret-key")
    return token


def _bearer(m: re.Match[str]) -> str:
    token = m.group("val")
    if len(token) >= 20 or any(not c.isalpha() for c in token):
        return m.group("pre") + _marker("bearer-token")
    return m.group(0)


def _fields(text: str, pattern: re.Pattern[str], decide: _Decide) -> str:
    """Replace the values of the fields ``pattern`` finds whose key ``decide`` says
    names a secret (by its kind); the key and its quotes stay."""
    if ("=" not in text) and (":" not in text):
        return text
    parts: list[str] = []
    done = 0
    for m in pattern.finditer(text):
        start, end = m.span("val")
        if start < done:  # inside a value already replaced
            continue
        kind = decide(m, text[end : end + 1])
        if kind is not None:
            parts += [text[done:start], _marker(kind)]
            done = end
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)


def _quoted_field(m: re.Match[str], following: str) -> str | None:
    kind = secret_kind(m.group("key"))
    return None if kind is None or _is_placeholder(m.group("val")) else kind


def _equals_field(m: re.Match[str], following: str) -> str | None:
    kind = secret_kind(m.group("key"))
    value = m.group("val")
    if kind is None or value.startswith("=") or _is_placeholder(value):
        return None
    return None if following == "(" else kind  # code: token=getToken()


def _colon_field(m: re.Match[str], following: str) -> str | None:
    kind = secret_kind(m.group("key"))
    value = m.group("val")
    if kind is None or _is_placeholder(value) or value.startswith("//") or following == "(":
        return None
    return kind if _credential_like(value) else None


def _quoted_token(m: re.Match[str]) -> str:
    if _looks_random(m.group(2)):
        return f"{m.group(1)}{_marker('token')}{m.group(1)}"
    return m.group(0)


def _assigned_token(m: re.Match[str]) -> str:
    if _looks_random(m.group(2)):
        return m.group(1) + _marker("token")
    return m.group(0)


# ---- the user's secrets file ------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}
_cache: dict[tuple[str, int, int], dict[str, str]] = {}
_cache_lock = threading.Lock()


def load_secrets(path: str | Path) -> dict[str, str]:
    """``NAME → value`` from a dotenv-style file; values too short to replace are dropped
    with a warning that names them (never their values).

    Raises :class:`ConfigError` when the file cannot be read or a line is not
    ``NAME=value``.
    """
    file = Path(path).expanduser()
    try:
        stat = file.stat()
        key = (str(file.resolve()), stat.st_mtime_ns, stat.st_size)
        with _cache_lock:
            cached = _cache.get(key)
        if cached is not None:
            return dict(cached)
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot read the secrets file {file}: {exc.strerror or exc}",
            hint="point safety.secrets_file (or --secrets) at a readable NAME=value file",
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(
            f"the secrets file {file} is not UTF-8 text",
            hint="write it as NAME=value lines in UTF-8",
        ) from None
    secrets = parse_secrets(text, source=str(file))
    short = sorted(name for name, value in secrets.items() if len(value) < MIN_SECRET_CHARS)
    if short:
        logger.warning(
            "secrets file %s: %s shorter than %d characters, not redacted (too likely to "
            "match ordinary text)",
            file,
            ", ".join(short),
            MIN_SECRET_CHARS,
        )
    kept = {name: value for name, value in secrets.items() if len(value) >= MIN_SECRET_CHARS}
    with _cache_lock:
        _cache[key] = kept
    return dict(kept)


def parse_secrets(text: str, *, source: str = "the secrets file") -> dict[str, str]:
    """Parse dotenv text: ``NAME=value``, ``export NAME=value``, ``# comments``, blank
    lines, 'single' (literal) and "double" (escapes, may span lines) quoted values, and
    `` # comments`` after unquoted values."""
    secrets: dict[str, str] = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        number = index + 1
        line = lines[index].strip()
        index += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith("export ") or line.startswith("export\t"):
            line = line[len("export") :].lstrip()
        name, sep, rest = line.partition("=")
        name = name.strip()
        if not sep or not _NAME.fullmatch(name):
            raise ConfigError(
                f"{source}: line {number} is not NAME=value",
                hint="write one NAME=value per line; # starts a comment",
            )
        rest = rest.strip()
        if rest[:1] in ("'", '"'):
            quote_char = rest[0]
            body = rest[1:]
            while _closing_quote(body, quote_char) < 0:
                if index >= len(lines):
                    raise ConfigError(
                        f"{source}: the quoted value of {name} (line {number}) never ends",
                        hint=f"close it with {quote_char}",
                    )
                body += "\n" + lines[index]
                index += 1
            end = _closing_quote(body, quote_char)
            value = body[:end]
            if quote_char == '"':
                value = re.sub(r"\\(.)", lambda e: _ESCAPES.get(e.group(1), e.group(0)), value)
        else:
            value = re.split(r"\s+#", rest, maxsplit=1)[0].strip()
        secrets[name] = value
    return secrets


def _closing_quote(body: str, quote_char: str) -> int:
    escaped = False
    for position, char in enumerate(body):
        if quote_char == '"' and char == "\\" and not escaped:
            escaped = True
            continue
        if char == quote_char and not escaped:
            return position
        escaped = False
    return -1


# ---- logs --------------------------------------------------------------------------------

_PROCESS = Redactor()
"""Built-in patterns plus every user secret any redactor of this process has learnt."""


_SHARED = Redactor(builtin=False)
"""Credentials tabwarden itself handles (a cloud provider's key, a connect URL's token):
every redactor of the process replaces them, whichever session or surface made it."""


def share_secrets(secrets: Mapping[str, str]) -> None:
    """Replace these values by ``[secret:NAME]`` in everything any redactor of this process
    redacts from now on, logs included (credentials known to tabwarden, not the user)."""
    _SHARED.add_secrets(secrets)


def process_redactor() -> Redactor:
    """What logs and errors outside a session are redacted with: the built-in patterns
    and every secret any redactor of this process knows."""
    return _PROCESS


class _LogRedaction(logging.Filter):
    """Redacts a record's message (its arguments merged in) and its exception text."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True  # a broken record is logging's to report
        redacted = _PROCESS.redact_text(message)
        if redacted != message or record.args:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = _PROCESS.redact_text(
                logging.Formatter().formatException(record.exc_info)
            )
        return True


_FILTER = _LogRedaction()


def install_log_redaction() -> None:
    """Put the redacting filter on the ``tabwarden`` logger and each of its children.

    A logger's filter does not see its children's records, so each gets its own;
    calling this again covers loggers created since (it is idempotent).
    """
    names = ["tabwarden"] + [
        name for name in list(logging.root.manager.loggerDict) if name.startswith("tabwarden.")
    ]
    for name in names:
        target = logging.getLogger(name)
        if _FILTER not in target.filters:
            target.addFilter(_FILTER)
