"""Typed configuration: defaults, then a YAML file, then environment variables.

Every key is documented by its field description (docs/reference/config.md lists them).
File: the ``path`` given, else ``$TABWARDEN_CONFIG``, else ``./tabwarden.yaml`` when
present. Environment: ``TABWARDEN_<SECTION>__<KEY>`` (e.g.
``TABWARDEN_BROWSER__HEADLESS=false``) plus the short ``TABWARDEN_CHROME`` for
``browser.executable`` and ``TABWARDEN_DATA_DIR`` for ``browser.data_dir``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ConfigError

__all__ = [
    "BrowserConfig",
    "Config",
    "DiagnosticsConfig",
    "FilesConfig",
    "PolicyConfig",
    "SafetyConfig",
    "TimeoutConfig",
    "config_reference",
    "load_config",
]

_MAX_TIMEOUT_MS = 600_000


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class BrowserConfig(_Section):
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
    window_width: int = Field(1280, ge=200, le=7680, description="Window width in CSS pixels.")
    window_height: int = Field(720, ge=200, le=4320, description="Window height in CSS pixels.")
    inactivity_timeout_s: float = Field(
        120,
        ge=0,
        description="A managed session unused this long is closed (0 = never).",
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

    # Fields owned by the redaction/consent work (safety/redaction.py).


class PolicyConfig(_Section):
    """Where pages may go: schemes, allow/deny lists, blocked networks (safety/url_policy.py)."""

    # Fields owned by the URL policy work.


class DiagnosticsConfig(_Section):
    """Console and network buffers (diagnostics/console.py, diagnostics/network.py)."""

    # Fields owned by the console/network work.


class FilesConfig(_Section):
    """Files that cross the browser boundary: uploads, downloads, PDFs, traces, recordings."""

    output_dir: Path | None = Field(
        None,
        description="Where downloads, PDFs, screenshots, traces, recordings and state files "
        "are written, one sub-folder per kind; must lie inside the workspace (default: "
        "<workspace>/tabwarden-output).",
    )
    upload_dirs: list[Path] = Field(
        default_factory=list,
        description="Folders besides the workspace that uploads and state files may be read from.",
    )


class Config(_Section):
    browser: BrowserConfig = Field(default_factory=BrowserConfig)
    timeouts: TimeoutConfig = Field(default_factory=TimeoutConfig)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    diagnostics: DiagnosticsConfig = Field(default_factory=DiagnosticsConfig)
    files: FilesConfig = Field(default_factory=FilesConfig)


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
        target[key] = _env_list(name, value) if key == "extra_args" else value


def _env_list(name: str, value: str) -> Any:
    """A list in an environment variable, written as YAML: ``["--a", "--b"]``."""
    try:
        return yaml.safe_load(value)
    except yaml.YAMLError:
        raise ConfigError(
            f"{name} (browser.extra_args) is not a valid YAML list: {value!r}",
            hint='write it as ["--flag-one", "--flag-two"]',
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
        "Unknown keys are errors.",
    ]
    for section, field_info in Config.model_fields.items():
        model = field_info.default_factory
        assert isinstance(model, type) and issubclass(model, BaseModel)
        lines += ["", f"## `{section}`", "", "| key | default | meaning |", "|---|---|---|"]
        for key, info in model.model_fields.items():
            default = info.get_default(call_default_factory=True)
            lines.append(f"| `{key}` | `{default!r}` | {info.description or ''} |")
    return "\n".join(lines) + "\n"
