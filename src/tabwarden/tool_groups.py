"""Tool groups: their names, the default set, and the one parser of a group list.

The configuration (``tools.groups``, ``TABWARDEN_TOOLS__GROUPS``) and the command line
(``--tools``) both read group lists with :func:`parse_groups`, and every hint that says
how to turn a group on names them with :func:`how_to_enable`.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import InvalidArgument

__all__ = ["CONFIG_KEY", "DEFAULT_GROUPS", "ENV_VAR", "GROUPS", "how_to_enable", "parse_groups"]

GROUPS = ("core", "actions", "tabs", "diagnostics", "devtools", "files")
"""Tool groups; ``all`` selects every one."""

DEFAULT_GROUPS = ("core",)
"""What is served when nothing says otherwise: navigation, snapshot, actions, dialogs,
screenshots, tabs, and the console and network logs the snapshot header points to."""

CONFIG_KEY = "tools.groups"
ENV_VAR = "TABWARDEN_TOOLS__GROUPS"


def parse_groups(text: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"core,devtools"``, a list, ``"all"`` or None (the default) → group names, in
    the order of :data:`GROUPS`."""
    if text is None:
        return DEFAULT_GROUPS
    names = [n.strip() for n in (text.split(",") if isinstance(text, str) else text) if n.strip()]
    if "all" in names:
        return GROUPS
    unknown = [n for n in names if n not in GROUPS]
    if unknown or not names:
        raise InvalidArgument(
            f"unknown tool groups: {', '.join(unknown) or '(none given)'}",
            hint=f"use some of {', '.join(GROUPS)}, or all",
        )
    return tuple(g for g in GROUPS if g in names)


def how_to_enable(group: str, enabled: Iterable[str] = DEFAULT_GROUPS) -> str:
    """How to serve ``group`` too, next to the groups ``enabled`` now: the command-line
    flag, the configuration key and its environment variable."""
    wanted = ",".join(parse_groups([*enabled, group]))
    return (
        f"enable its group ({group}): tabwarden mcp --tools {wanted}, or {CONFIG_KEY}: "
        f"[{wanted.replace(',', ', ')}] in tabwarden.yaml, or {ENV_VAR}={wanted}"
    )
