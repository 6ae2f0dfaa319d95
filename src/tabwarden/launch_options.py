"""Launch options: the command line's flags and ``tabwarden.launch()``'s keywords that set
configuration fields, one table for both (the configuration is the one mechanism)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from .backends.choice import check_backend, check_isolation
from .config import Config
from .errors import ConfigError

__all__ = ["LAUNCH_OPTIONS", "LaunchOption", "apply_launch_options"]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True, slots=True)
class LaunchOption:
    """A keyword of ``launch()`` (and flag ``--<name with dashes>``, or ``flag``) and the
    configuration field it sets."""

    name: str
    section: str
    key: str
    flag: str = ""

    @property
    def option(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def field(self) -> str:
        return f"{self.section}.{self.key}"


LAUNCH_OPTIONS: tuple[LaunchOption, ...] = (
    LaunchOption("proxy_server", "browser", "proxy_server"),
    LaunchOption("proxy_bypass", "browser", "proxy_bypass"),
    LaunchOption("ignore_https_errors", "browser", "ignore_https_errors"),
    LaunchOption("device", "browser", "device"),
    LaunchOption("user_agent", "browser", "user_agent"),
    LaunchOption("storage_state", "browser", "storage_state"),
    LaunchOption("init_scripts", "browser", "init_scripts", "--init-script"),
    LaunchOption("grant_permissions", "browser", "grant_permissions"),
    LaunchOption("allowed_origins", "policy", "allow"),
    LaunchOption("blocked_origins", "policy", "deny"),
    LaunchOption("output_dir", "files", "output_dir"),
    LaunchOption("backend", "browser", "backend"),
    LaunchOption("isolation", "browser", "isolation"),
    LaunchOption("engine", "browser", "engine"),
)
_BY_NAME = {option.name: option for option in LAUNCH_OPTIONS}


def apply_launch_options(
    config: Config,
    *,
    proxy_server: str | None = None,
    proxy_bypass: str | Sequence[str] | None = None,
    ignore_https_errors: bool | None = None,
    device: str | None = None,
    user_agent: str | None = None,
    storage_state: PathLike | None = None,
    init_scripts: PathLike | Sequence[PathLike] | None = None,
    grant_permissions: str | Sequence[str] | None = None,
    allowed_origins: str | Sequence[str] | None = None,
    blocked_origins: str | Sequence[str] | None = None,
    output_dir: PathLike | None = None,
    backend: str | None = None,
    isolation: str | None = None,
    engine: str | None = None,
) -> None:
    """Set the configuration fields of the options given (None: leave it as configured).

    Lists take a list, or text with words separated by commas or semicolons (as the
    environment does); ``init_scripts`` a file or a list of files. Files are resolved
    from the current folder. A value replaces the configured one. A bad value is a
    ConfigError naming the option."""
    given: dict[str, object] = {
        "proxy_server": proxy_server,
        "proxy_bypass": proxy_bypass,
        "ignore_https_errors": ignore_https_errors,
        "device": device,
        "user_agent": user_agent,
        "storage_state": storage_state,
        "init_scripts": init_scripts,
        "grant_permissions": grant_permissions,
        "allowed_origins": allowed_origins,
        "blocked_origins": blocked_origins,
        "output_dir": output_dir,
        "backend": backend,
        "isolation": isolation,
        "engine": engine,
    }
    for name, value in given.items():
        if value is not None:
            _set(config, _BY_NAME[name], _plain(name, value))
    if backend is not None or isolation is not None:
        check_isolation(config)


def _plain(name: str, value: object) -> object:
    """The value as the configuration takes it: files resolved from the current folder,
    a backend name known."""
    if name == "backend" and isinstance(value, str):
        return check_backend(value.strip().lower().replace("_", "-"))
    if name in ("isolation", "engine") and isinstance(value, str):
        return value.strip().lower()
    if name == "storage_state":
        return _resolved(value)
    if name == "init_scripts":
        files = [value] if isinstance(value, (str, os.PathLike)) else value
        return [_resolved(v) for v in files] if isinstance(files, (list, tuple)) else files
    if isinstance(value, os.PathLike):
        return Path(value).expanduser()
    if isinstance(value, tuple):
        return list(value)
    return value


def _set(config: Config, option: LaunchOption, value: object) -> None:
    try:
        setattr(getattr(config, option.section), option.key, value)
    except ValidationError as exc:
        problems = "; ".join(str(error["msg"]) for error in exc.errors())
        raise ConfigError(
            f"{option.option} ({option.field}): {problems}",
            hint=f"see docs/reference/config.md for {option.field}",
        ) from None


def _resolved(value: object) -> object:
    if isinstance(value, (str, os.PathLike)):
        return Path(value).expanduser().resolve()
    return value
