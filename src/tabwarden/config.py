"""Typed configuration: defaults, then a YAML file, then environment variables.

Every key is documented by its field description (docs/reference/config.md lists them).
File: the ``path`` given, else ``$TABWARDEN_CONFIG``, else ``./tabwarden.yaml`` when
present. Environment: ``TABWARDEN_<SECTION>__<KEY>`` (e.g.
``TABWARDEN_BROWSER__HEADLESS=false``) plus the short ``TABWARDEN_CHROME`` for
``browser.executable`` and ``TABWARDEN_DATA_DIR`` for ``browser.data_dir``. A list in the
environment is YAML (``["--a", "--b"]``); the other lists also take words separated by
commas or semicolons (``TABWARDEN_TOOLS__GROUPS=core,devtools``,
``TABWARDEN_POLICY__ALLOW="example.com;*.example.org"``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from .diagnostics.emulation import find_device
from .diagnostics.permissions import protocol_permissions
from .errors import ConfigError
from .safety.url_policy import parse_host_pattern
from .tool_groups import DEFAULT_GROUPS, GROUPS, parse_groups

__all__ = [
    "AttachConfig",
    "BrowserConfig",
    "CloudConfig",
    "Config",
    "DiagnosticsConfig",
    "FilesConfig",
    "GridConfig",
    "PolicyConfig",
    "SafetyConfig",
    "TimeoutConfig",
    "ToolsConfig",
    "WorkbenchConfig",
    "config_reference",
    "load_config",
]

_MAX_TIMEOUT_MS = 600_000


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def _words(value: object) -> object:
    """A list given as text (the environment, a command-line flag): a YAML/JSON list, or
    words separated by commas or semicolons; the texts of a list are read the same way."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        return value
    words: list[object] = []
    for item in value:
        words += _text_words(item) if isinstance(item, str) else [item]
    return words


def _text_words(text: str) -> list[object]:
    if text.lstrip().startswith("["):
        try:
            parsed = yaml.safe_load(text)
        except yaml.YAMLError:
            parsed = None
        if isinstance(parsed, list):
            return parsed
    return [word.strip() for word in text.replace(";", ",").split(",") if word.strip()]


class GridConfig(_Section):
    """A Selenium Grid 4 that browsers come from (backends/grid.py; docs/grid.md)."""

    url: str | None = Field(
        None,
        description="The Grid's address (`http://grid-host:4444`, with its sub-path if it "
        "has one). Sessions on it ask the Grid for a Chrome, drive it over the Grid's CDP "
        "proxy and give it back on close.",
    )
    capabilities: dict[str, Any] = Field(
        default_factory=dict,
        description="More W3C capabilities for each new session, merged into tabwarden's own "
        "(`browserName: chrome`, `webSocketUrl: true`, `goog:chromeOptions` with headless "
        "and window-size switches): mappings are merged, `goog:chromeOptions.args` appended, "
        "other values replace tabwarden's (`platformName`, `browserVersion`, "
        "`goog:chromeOptions.binary`, `se:…` keys).",
    )
    max_sessions: int = Field(
        4,
        ge=1,
        le=1000,
        description="Sessions this process may hold on the Grid at once; one more fails at "
        "once, saying so, instead of queueing behind the others.",
    )
    session_timeout: float = Field(
        300,
        gt=0,
        le=3600,
        description="Seconds a new-session request may stay unanswered. A start waits "
        "for it within its own timeout (timeouts.launch_ms); one the start gave up on is "
        "still awaited this long, so a session the Grid creates late is deleted at once. "
        "Set it at least to the Grid's --session-request-timeout.",
    )

    @field_validator("url", mode="before")
    @classmethod
    def _url(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip().rstrip("/")
            if not value:
                return None
            if not value.startswith(("http://", "https://")):
                raise ValueError("must be an http:// or https:// URL, e.g. http://localhost:4444")
        return value


class AttachConfig(_Section):
    """Attaching without a URL: the browsers found on this machine, and the one
    ``attach --launch`` starts (backends/discovery.py, backends/user_browser.py)."""

    ports: list[int] = Field(
        default_factory=lambda: [9222, 9223, 9224, 9229],
        description="Ports on 127.0.0.1 asked for a browser with remote debugging "
        "(GET /json/version) when attach is given no URL, in this order.",
    )
    profile_dirs: list[Path] | None = Field(
        None,
        description="Profile folders whose DevToolsActivePort file names a running "
        "browser's port. Unset: the usual folders of Chrome (stable, Beta, Dev, Canary), "
        "Chromium and Edge on this system; a list replaces them (list the folder you start "
        "Chrome with, --user-data-dir). The attach --launch profile is always read.",
    )
    discovery_ms: int = Field(
        1_500,
        gt=0,
        le=60_000,
        description="How long looking for running browsers may take in all (ports and "
        "files are asked at once; a port that does not answer is given up).",
    )
    executable: str | None = Field(
        None,
        description="The browser attach --launch starts (a path or a name on PATH). Unset: "
        "the first of google-chrome, google-chrome-stable, chrome, microsoft-edge, msedge, "
        "chromium, chromium-browser on PATH, then the usual install places.",
    )
    headless: bool = Field(
        False,
        description="Start the attach --launch browser without a window (it is the user's "
        "browser: a window by default).",
    )
    profile_dir: Path | None = Field(
        None,
        description="The profile folder of the attach --launch browser, kept between launches "
        "(default: attach-profile in browser.data_dir). Never the user's own profile.",
    )
    args: list[str] = Field(
        default_factory=list,
        description="More command-line switches for the attach --launch browser "
        "(profile switches are refused: it always runs on its own folder).",
    )

    @field_validator("ports", mode="before")
    @classmethod
    def _ports(cls, value: object) -> object:
        value = _words(value)
        if isinstance(value, list):
            for port in value:
                if not str(port).strip().isdigit() or not 0 < int(str(port).strip()) < 65536:
                    raise ValueError(f"{port!r} is not a port number (1-65535)")
        return value

    @field_validator("profile_dirs", mode="before")
    @classmethod
    def _folders(cls, value: object) -> object:
        return _words(value) if isinstance(value, str) else value


class BrowserConfig(_Section):
    backend: str = Field(
        "local",
        description="Where the browser comes from: local (launch Chromium here), "
        "browserbase, browser-use, firecrawl, steel (a cloud browser created through the "
        "provider's API), cdp-template (any CDP service reached by `cloud.url_template`), or "
        "grid (a Chrome from the Selenium Grid 4 at `browser.grid.url`, docs/grid.md). "
        "The cloud section holds the providers' settings (docs/backends.md). Also --backend.",
    )
    engine: Literal["chromium", "firefox"] = Field(
        "chromium",
        description="The browser engine: chromium (over CDP), or firefox (Firefox over "
        "WebDriver BiDi, local backend only; browser.executable then "
        "names Firefox, and $TABWARDEN_FIREFOX wins over it; docs/firefox.md and "
        "docs/engines-matrix.md say what works). Also --engine.",
    )
    executable: str | None = Field(
        None,
        description="Path or name of the Chromium-based browser to launch ($TABWARDEN_CHROME "
        "wins over it). Unset: the first of chromium, chromium-browser, google-chrome, "
        "google-chrome-stable, microsoft-edge on PATH.",
    )
    headless: bool = Field(True, description="Run without a window. A window needs a display.")
    isolated: bool = Field(
        False,
        description="Use a throwaway profile removed on close, instead of the persistent "
        "workspace profile.",
    )
    isolation: Literal["process", "context"] = Field(
        "process",
        description="How sessions are kept apart (docs/isolation.md): process (each session "
        "is a Chromium of its own) or context (the sessions of one process share one local "
        "Chromium, each in a browser context of its own: cheaper, no persistent profile). "
        "Also --isolation.",
    )
    workspace: Path | None = Field(
        None,
        description="The workspace folder the persistent profile belongs to "
        "(default: the current directory).",
    )
    data_dir: Path | None = Field(
        None,
        description="Where persistent profiles live (default: the platform's user data "
        "folder for tabwarden).",
    )
    extra_args: list[str] = Field(
        default_factory=list, description="More command-line switches for the browser."
    )
    window_width: int = Field(
        1280, ge=200, le=7680, description="Viewport width pages see, in CSS pixels."
    )
    window_height: int = Field(
        720, ge=200, le=4320, description="Viewport height pages see, in CSS pixels."
    )
    inactivity_timeout_s: float = Field(
        120,
        ge=0,
        description="A managed session unused this long is closed (0 = never); its client's "
        "next call fails once with SessionReaped, saying so, and the call after starts anew.",
    )
    max_sessions: int = Field(
        16,
        ge=0,
        le=10_000,
        description="Sessions (one browser each) one process may have open at once: an MCP "
        "server's clients, a SessionManager's sessions. One more fails at once with "
        "SessionLimitReached, saying how many are open, instead of waiting for a slot "
        "(0 = no limit).",
    )
    max_daemons: int = Field(
        16,
        ge=0,
        le=10_000,
        description="Command-line daemons (one per session, one browser each) that may run "
        "at once for this user (in one runtime folder). Starting one more fails with "
        "SessionLimitReached naming the running ones (0 = no limit).",
    )
    dialog_policy: Literal["must_respond", "auto_dismiss", "auto_accept"] = Field(
        "must_respond",
        description="What happens to alert/confirm/prompt/beforeunload dialogs: wait for the "
        "agent's answer, or answer at once (dismiss or accept) and record it.",
    )
    receipt_diff: Literal["auto", "on", "off"] = Field(
        "auto",
        description="Whether action receipts carry a diff of the interactive view (it costs a "
        "snapshot): auto skips it on large pages (over 1,500 lines).",
    )
    receipt_settle_ms: int = Field(
        1_000,
        ge=0,
        le=_MAX_TIMEOUT_MS,
        description="How long an action's receipt waits for the requests the action started "
        "(fetch, XHR, scripts) to answer and the page to act on them; still open past it, "
        "they are named in the receipt. An action that started none does not wait "
        "(0 = never wait).",
    )
    evaluate_enabled: bool = Field(
        True, description="Allow evaluating JavaScript in pages (evaluate tool and API)."
    )
    dialog_bridge: Literal["auto", "on", "off"] = Field(
        "auto",
        description="Route alert/confirm/prompt through page script and Fetch interception, "
        "for backends whose proxy auto-dismisses native dialogs (auto: on for such backends).",
    )
    reconnect_give_up_s: float = Field(
        300,
        ge=0,
        le=3600,
        description="An attached browser whose socket dropped is reconnected with backoff "
        "(0.5 s doubling to 10 s) for this long, then given up (0 = never reconnect).",
    )
    dialog_timeout_s: float = Field(
        300,
        gt=0,
        le=3600,
        description="With must_respond, a dialog left unanswered this long is dismissed "
        "by the watchdog.",
    )
    # What a session asks of its browser as it starts (start_settings.py); also command-line
    # flags and tabwarden.launch() keywords of the same names (launch_options.py).
    proxy_server: str | None = Field(
        None,
        description="Send a launched browser's traffic through this proxy "
        "(`http://host:3128`, `socks5://host:1080`): Chromium's --proxy-server.",
    )
    proxy_bypass: list[str] = Field(
        default_factory=list,
        description="Hosts reached without the proxy (`.example.com`, `localhost`, "
        "`<-loopback>` to proxy loopback too): Chromium's --proxy-bypass-list.",
    )
    ignore_https_errors: bool = Field(
        False,
        description="Load HTTPS pages whose certificate is invalid (self-signed, expired, "
        "wrong host) instead of failing with net::ERR_CERT_*.",
    )
    device: str | None = Field(
        None,
        description="Emulate this device preset from the start (`iphone-15`, `pixel-8`, "
        "`desktop-1080p`…: the emulate tool's presets); browser_emulate changes it later.",
    )
    user_agent: str | None = Field(
        None, description="The User-Agent a launched browser sends and pages see."
    )
    storage_state: Path | None = Field(
        None,
        description="A storage state file (Playwright's format: cookies and localStorage) "
        "loaded each time the session starts its browser.",
    )
    init_scripts: list[Path] = Field(
        default_factory=list,
        description="JavaScript files run in every page and frame before the page's own "
        "scripts (popups too); read once, when the session first starts.",
    )
    grant_permissions: list[str] = Field(
        default_factory=list,
        description="Permissions granted to every site without a prompt: geolocation, "
        "notifications, clipboard-read, clipboard-write, camera, microphone, midi…",
    )
    grid: GridConfig = Field(
        default_factory=GridConfig,
        description="A Selenium Grid to take browsers from (its keys follow).",
    )
    attach: AttachConfig = Field(
        default_factory=AttachConfig,
        description="Attaching with no URL: browsers found here, attach --launch (its keys "
        "follow).",
    )

    @field_validator("backend", mode="before")
    @classmethod
    def _backend(cls, value: object) -> object:
        if isinstance(value, str):
            name = value.strip().lower().replace("_", "-")
            if not name or any(not (c.isalnum() or c == "-") for c in name):
                raise ValueError("must be a backend name such as local or browserbase")
            return name
        return value

    @field_validator("proxy_bypass", "init_scripts", mode="before")
    @classmethod
    def _list(cls, value: object) -> object:
        return _words(value)

    @field_validator("grant_permissions", mode="before")
    @classmethod
    def _permissions(cls, value: object) -> object:
        value = _words(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            protocol_permissions(value)  # an InvalidArgument is a ValueError: named
            return [v.strip().lower().replace("_", "-") for v in value]
        return value

    @field_validator("device", mode="before")
    @classmethod
    def _device(cls, value: object) -> object:
        if isinstance(value, str):
            return find_device(value).name if value.strip() else None
        return value

    @field_validator("proxy_server", "user_agent", mode="before")
    @classmethod
    def _one_line(cls, value: object) -> object:
        if isinstance(value, str):
            if any(ord(ch) < 32 for ch in value):
                raise ValueError("must be one line without control characters")
            return value.strip() or None
        return value


class TimeoutConfig(_Section):
    launch_ms: int = Field(
        30_000, gt=0, le=_MAX_TIMEOUT_MS, description="Starting or reaching a browser."
    )
    action_ms: int = Field(
        15_000, gt=0, le=_MAX_TIMEOUT_MS, description="Default for one tab or browser call."
    )
    navigation_ms: int = Field(
        30_000, gt=0, le=_MAX_TIMEOUT_MS, description="Default for navigate, back, forward, reload."
    )
    wait_ms: int = Field(
        30_000, gt=0, le=_MAX_TIMEOUT_MS, description="Default for wait (text, element, state)."
    )
    evaluate_ms: int = Field(10_000, gt=0, le=_MAX_TIMEOUT_MS, description="Default for evaluate.")
    max_ms: int = Field(
        _MAX_TIMEOUT_MS,
        gt=0,
        le=_MAX_TIMEOUT_MS,
        description="No call may ask for more than this (10 minutes at most).",
    )


class SafetyConfig(_Section):
    """Redaction of what reaches the model or a log, and consent to attach."""

    redact: bool = Field(
        True,
        description="Replace tokens, API keys, private keys, passwords and session values "
        "in what reaches the model with [redacted:<kind>] (the secrets file is applied "
        "either way; logs are always redacted).",
    )
    secrets_file: Path | None = Field(
        None,
        description="A dotenv-style file (NAME=value lines) of your own secrets: every "
        "value found in what reaches the model or a log is replaced by [secret:NAME]. "
        "Values under 4 characters are ignored. Also --secrets FILE.",
    )
    allow_attach: bool = Field(
        False,
        description="Consent, given once, to drive a browser or profile that is not "
        "tabwarden's own: attaching to a running browser by its CDP URL, or "
        "--user-data-dir/--profile-directory in browser.extra_args. Also --allow-attach. "
        "Off: each attach needs consent=True.",
    )


class PolicyConfig(_Section):
    """Where pages may go: schemes, allow/deny lists, blocked networks (safety/url_policy.py)."""

    allow: list[str] = Field(
        default_factory=list,
        description="Hosts pages may load; empty: every host the deny list and the network "
        "switches leave. `example.com` is that host only, `*.example.com` it and its "
        "subdomains, `*` every host; an IP address or CIDR range (`10.0.0.0/8`) matches "
        "addresses; `:port` and `https://` narrow an entry. Cloud metadata endpoints stay "
        "blocked whatever it says. Also --allowed-origins.",
    )
    deny: list[str] = Field(
        default_factory=list,
        description="Hosts pages may never load, written like allow entries; checked before "
        "the allow list. Also --blocked-origins.",
    )
    allow_file: bool = Field(
        False,
        description="Allow file: URLs, only for files inside the workspace (symlinks resolved).",
    )
    block_private_networks: bool = Field(
        False,
        description="Block private network hosts: RFC 1918, link-local, CGNAT, unique-local "
        "IPv6, and intranet names (no dot, .local, .internal, .lan…). Hosts are judged as "
        "written, not as resolved.",
    )
    block_loopback: bool = Field(
        False,
        description="Block this machine's own addresses: 127.0.0.0/8, ::1, 0.0.0.0, "
        "localhost and *.localhost.",
    )
    intercept_subresources: bool = Field(
        False,
        description="Judge every request a page makes (images, scripts, XHR/fetch…), not "
        "only the documents of pages, frames and popups. Costs a round trip per request.",
    )

    @field_validator("allow", "deny", mode="before")
    @classmethod
    def _host_list(cls, value: object) -> object:
        value = _words(value)  # from the environment or a flag: a YAML list or words
        if isinstance(value, list):
            for entry in value:
                parse_host_pattern(entry)  # a ValueError names the bad entry
        return value


class ToolsConfig(_Section):
    """Which tools the MCP server offers (and ``tabwarden schema`` prints)."""

    groups: list[str] = Field(
        default_factory=lambda: list(DEFAULT_GROUPS),
        description=f"Tool groups to serve: some of {', '.join(GROUPS)}, or all. Core has "
        "navigation, snapshot, actions, dialogs, screenshots, tabs, console and network. "
        "Environment: TABWARDEN_TOOLS__GROUPS=core,devtools (or a YAML list); the "
        "command line's --tools wins over both.",
    )

    @field_validator("groups", mode="before")
    @classmethod
    def _groups(cls, value: object) -> object:
        value = _words(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(parse_groups(value))  # an InvalidArgument is a ValueError: named
        return value


class DiagnosticsConfig(_Section):
    """Console and network buffers (diagnostics/console.py, diagnostics/network.py)."""

    console_entries: int = Field(
        500,
        ge=10,
        le=100_000,
        description="Console messages, uncaught exceptions and browser notices kept per tab "
        "(a ring: the oldest go first, and reads say how many were dropped).",
    )
    network_entries: int = Field(
        500,
        ge=10,
        le=100_000,
        description="Network requests kept per tab (a ring: the oldest go first, and "
        "listings say how many were dropped).",
    )
    body_max_bytes: int = Field(
        20_000,
        ge=256,
        le=10_000_000,
        description="A request's post data and response body, when asked for, are cut at "
        "this many bytes; binary bodies are summarised by type and size.",
    )


class FilesConfig(_Section):
    """Files that cross the browser boundary: uploads, downloads, PDFs, traces, recordings."""

    output_dir: Path | None = Field(
        None,
        description="Where downloads, PDFs, screenshots, traces, recordings and state files "
        "are written, one sub-folder per kind; must lie inside the workspace (default: "
        "<workspace>/tabwarden-output). Also --output-dir.",
    )
    upload_dirs: list[Path] = Field(
        default_factory=list,
        description="Folders besides the workspace that uploads and state files may be read from.",
    )
    max_downloads: int = Field(
        100,
        ge=1,
        le=10_000,
        description="Downloads remembered per session (a ring: the oldest finished ones are "
        "forgotten first; the files stay on disk).",
    )
    recording_max_frames: int = Field(
        1_800,
        ge=10,
        le=100_000,
        description="Screencast frames a recording keeps (a ring: older frames are dropped "
        "and counted).",
    )
    recording_max_bytes: int = Field(
        64 * 1024 * 1024,
        ge=1024 * 1024,
        le=2 * 1024**3,
        description="Bytes of JPEG frames a recording keeps in memory (older frames are "
        "dropped and counted).",
    )
    ffmpeg: str = Field(
        "ffmpeg",
        description="The ffmpeg that turns recordings into WebM (a name on PATH or a path); "
        "the default, when no ffmpeg is on PATH, is the one of the imageio-ffmpeg package "
        "if it is installed (the video extra). When it is missing or fails, recordings are "
        "written as a self-contained HTML player. Empty: always the HTML player.",
    )


class WorkbenchConfig(_Section):
    """The workbench: a local web page where a person follows and takes over the sessions
    of the MCP server or the daemon (surfaces/workbench/)."""

    enabled: bool = Field(
        True,
        description="Serve the workbench from the MCP server and the daemon (they say where "
        "once, at start).",
    )
    host: str = Field(
        "127.0.0.1",
        description="Where it listens. Another host is an explicit choice; every request "
        "still needs the per-run token.",
    )
    port: int = Field(0, ge=0, le=65535, description="Its port (0: any free one).")
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Browser origins allowed besides its own (``http://host:*`` for any port).",
    )


class CloudConfig(_Section):
    """Settings of a cloud browser provider (``browser.backend``; docs/backends.md). A
    setting the chosen provider does not take is logged and left out."""

    api_key: SecretStr | None = Field(
        None,
        description="The provider's API key (or a CDP service's token). Better left unset: "
        "it is read from the environment variable `api_key_env` names.",
    )
    api_key_env: str | None = Field(
        None,
        description="The environment variable holding the key. Unset: the provider's own "
        "(BROWSERBASE_API_KEY, BROWSER_USE_API_KEY, FIRECRAWL_API_KEY, STEEL_API_KEY, "
        "TABWARDEN_CDP_TOKEN for cdp-template).",
    )
    api_url: str | None = Field(
        None,
        description="The provider's API base URL, for a self-hosted or regional API "
        "(default: the provider's public one).",
    )
    project_id: str | None = Field(
        None,
        description="Browserbase: the project (default: $BROWSERBASE_PROJECT_ID, else the "
        "one of the API key).",
    )
    region: str | None = Field(
        None, description="Where the browser runs (Browserbase: us-west-2…; Steel: lax…)."
    )
    proxy: str | None = Field(
        None,
        description="`on`: the provider's own proxies; a two-letter country code: its proxies "
        "in that country (Browser Use); an http(s) URL: your proxy (Browserbase, Steel).",
    )
    stealth: bool = Field(
        False,
        description="Ask for the provider's anti-bot measures (Browserbase advanced "
        "stealth, Steel's stealth settings).",
    )
    timeout_s: float | None = Field(
        None,
        gt=0,
        le=86_400,
        description="How long the provider keeps the browser at most, in seconds (default: "
        "the provider's).",
    )
    profile: str | None = Field(
        None,
        description="A persistent profile kept by the provider: a Browserbase context id, a "
        "Browser Use profile id, a Firecrawl profile name.",
    )
    url_template: str | None = Field(
        None,
        description="cdp-template: the CDP URL with `{token}` for the key, e.g. "
        "`wss://production-sfo.browserless.io/?token={token}`.",
    )

    @field_validator("api_url", "url_template", "proxy", "profile", "region", "project_id")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is not None and any(ord(ch) < 32 for ch in value):
            raise ValueError("must be one line without control characters")
        return value.strip() or None if value is not None else None


class Config(_Section):
    browser: BrowserConfig = Field(default_factory=BrowserConfig)
    cloud: CloudConfig = Field(default_factory=CloudConfig)
    timeouts: TimeoutConfig = Field(default_factory=TimeoutConfig)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    diagnostics: DiagnosticsConfig = Field(default_factory=DiagnosticsConfig)
    files: FilesConfig = Field(default_factory=FilesConfig)
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    workbench: WorkbenchConfig = Field(default_factory=WorkbenchConfig)


def load_config(
    path: str | os.PathLike[str] | None = None, *, env: Mapping[str, str] | None = None
) -> Config:
    """Build the configuration from defaults, a YAML file and the environment."""
    env = os.environ if env is None else env
    data = _read_file(_config_path(path, env))
    _merge_env(data, env)
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid configuration: {problems}") from None


def _config_path(path: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path | None:
    if path is not None:
        return Path(path)
    if env.get("TABWARDEN_CONFIG"):
        return Path(env["TABWARDEN_CONFIG"])
    local = Path("tabwarden.yaml")
    return local if local.is_file() else None


def _read_file(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not UTF-8 text") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ConfigError(f"config file {path} must hold a mapping of sections")
    return loaded


def _merge_env(data: dict[str, Any], env: Mapping[str, str]) -> None:
    aliases = {
        "TABWARDEN_CHROME": ("browser", "executable"),
        "TABWARDEN_DATA_DIR": ("browser", "data_dir"),
    }
    for name, value in env.items():
        if name in aliases:
            section, key = aliases[name]
        elif name.startswith("TABWARDEN_") and "__" in name:
            section, _, key = name[len("TABWARDEN_") :].lower().partition("__")
        else:
            continue
        if not value:
            continue
        target = data.setdefault(section, {})
        if not isinstance(target, dict):
            raise ConfigError(f"config section {section!r} must be a mapping")
        # A key of a sub-section: TABWARDEN_BROWSER__GRID__URL is browser.grid.url.
        while "__" in key:
            part, _, key = key.partition("__")
            section = f"{section}.{part}"
            target = target.setdefault(part, {})
            if not isinstance(target, dict):
                raise ConfigError(f"config section {section!r} must be a mapping")
        if key in ("extra_args", "args"):
            target[key] = _env_list(name, value)
        elif key == "capabilities":
            target[key] = _env_mapping(name, value)
        else:
            target[key] = value


def _env_list(name: str, value: str) -> Any:
    """A list in an environment variable, written as YAML: ``["--a", "--b"]``."""
    try:
        return yaml.safe_load(value)
    except yaml.YAMLError:
        raise ConfigError(
            f"{name} (browser.extra_args) is not a valid YAML list: {value!r}",
            hint='write it as ["--flag-one", "--flag-two"]',
        ) from None


def _env_mapping(name: str, value: str) -> Any:
    """A mapping in an environment variable, written as YAML or JSON: ``{"a": 1}``."""
    try:
        return yaml.safe_load(value)
    except yaml.YAMLError:
        raise ConfigError(
            f"{name} is not a valid YAML mapping: {value!r}",
            hint='write it as {"platformName": "linux"}',
        ) from None


def config_reference() -> str:
    """docs/reference/config.md, generated from the field descriptions (a test keeps it true)."""
    lines = [
        "# Configuration reference",
        "",
        "Generated from the code by `python -m tabwarden.reference`; do not edit by hand.",
        "",
        "Sources, later ones winning: defaults; a YAML file (the path given to",
        "`load_config`, else `$TABWARDEN_CONFIG`, else `./tabwarden.yaml`);",
        "environment variables `TABWARDEN_<SECTION>__<KEY>` (e.g.",
        "`TABWARDEN_BROWSER__HEADLESS=false`), plus `TABWARDEN_CHROME` for",
        "`browser.executable` and `TABWARDEN_DATA_DIR` for `browser.data_dir`.",
        "A list in the environment is YAML (`TABWARDEN_BROWSER__EXTRA_ARGS='[--a, --b]'`);",
        "the other lists also take words separated by commas or semicolons, as their",
        "command-line flags do (`TABWARDEN_TOOLS__GROUPS=core,devtools`,",
        "`TABWARDEN_POLICY__ALLOW='example.com;*.example.org'`).",
        "Unknown keys are errors.",
    ]
    sections = [(name, _section_model(info)) for name, info in Config.model_fields.items()]
    while sections:
        section, model = sections.pop(0)
        lines += ["", f"## `{section}`", "", "| key | default | meaning |", "|---|---|---|"]
        inner = []
        for key, info in model.model_fields.items():
            if _is_section(info.default_factory):
                inner.append((f"{section}.{key}", _section_model(info)))
                lines.append(f"| `{key}` | (section) | {info.description or ''} |")
                continue
            default = info.get_default(call_default_factory=True)
            lines.append(f"| `{key}` | `{default!r}` | {info.description or ''} |")
        sections[:0] = inner
    return "\n".join(lines) + "\n"


def _is_section(factory: object) -> bool:
    return isinstance(factory, type) and issubclass(factory, BaseModel)


def _section_model(info: Any) -> type[BaseModel]:
    model = info.default_factory
    assert _is_section(model)
    result: type[BaseModel] = model
    return result
