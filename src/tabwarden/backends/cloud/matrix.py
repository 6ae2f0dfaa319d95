"""The capability matrix of the backends: what each provider declares, as a Markdown table
(docs/backends-matrix.md; ``python -m tabwarden.backends.cloud.matrix`` writes it, and
``python -m tabwarden.reference`` does too)."""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

from . import PROVIDERS
from .provider import Capabilities

__all__ = ["LOCAL", "MATRIX_PATH", "capability_rows", "matrix_markdown", "write"]

MATRIX_PATH = "docs/backends-matrix.md"

LOCAL = Capabilities(profile_persistence=True)
"""A Chromium launched here, for comparison: its workspace profile persists."""

_COLUMNS = {
    "dialog_detect": "dialogs seen",
    "dialog_respond": "dialogs answered",
    "frame_tree": "frame tree",
    "oopif_evaluate": "evaluate in OOPIFs",
    "live_view": "live view URL",
    "profile_persistence": "persistent profile",
    "dialog_bridge": "dialog bridge",
    "ends_on_disconnect": "socket loss ends it",
}


def capability_rows() -> dict[str, Capabilities]:
    """Backend name → its capabilities (``local`` first, then the cloud providers)."""
    return {"local": LOCAL, **{name: make().capabilities for name, make in PROVIDERS.items()}}


def matrix_markdown() -> str:
    names = [f.name for f in fields(Capabilities)]
    lines = [
        "# Backend capability matrix",
        "",
        "Generated from the providers' declared capabilities by",
        "`python -m tabwarden.backends.cloud.matrix`; do not edit by hand. Rows checked",
        "locally are tested against a fake of each provider's API serving a real Chromium",
        "(tests/backends/cloud/). What each column means:",
        "",
    ]
    for name in names:
        lines.append(f"- **{_COLUMNS[name]}** (`{name}`): {_DOCS[name]}")
    lines += [
        "",
        "| backend | " + " | ".join(_COLUMNS[n] for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for backend, caps in capability_rows().items():
        cells = ["yes" if getattr(caps, n) else "no" for n in names]
        lines.append(f"| `{backend}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write(root: Path) -> Path:
    path = root / MATRIX_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(matrix_markdown(), encoding="utf-8")
    return path


_DOCS = {
    "dialog_detect": "native alert/confirm/prompt dialogs are seen, through the dialog "
    "bridge where the provider's proxy closes them itself",
    "dialog_respond": "the agent's answer to a dialog reaches the page",
    "frame_tree": "the frame tree (iframes and their URLs) is read",
    "oopif_evaluate": "scripts run inside cross-origin iframes (out-of-process frames)",
    "live_view": "the provider hands out a page where a person can watch the browser "
    "(`session.backend.browser.live_view_url`)",
    "profile_persistence": "cookies and storage persist across sessions (`cloud.profile`; "
    "local: the workspace profile)",
    "dialog_bridge": "the provider's proxy closes native dialogs within milliseconds, so "
    "dialogs go through page script (`browser.dialog_bridge: auto`)",
    "ends_on_disconnect": "the provider ends the browser when the CDP socket closes; "
    "otherwise tabwarden reconnects within `browser.reconnect_give_up_s` and keeps the tabs",
}


if __name__ == "__main__":
    print(write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
