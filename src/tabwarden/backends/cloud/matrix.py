"""The capability matrix of the backends: what each provider declares, as a Markdown table
(docs/backends-matrix.md; ``python -m tabwarden.backends.cloud.matrix`` writes it, and
``python -m tabwarden.reference`` does too)."""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

from . import PROVIDERS
from .provider import Capabilities

__all__ = ["GRID", "LOCAL", "MATRIX_PATH", "capability_rows", "matrix_markdown", "write"]

MATRIX_PATH = "docs/backends-matrix.md"

LOCAL = Capabilities(profile_persistence=True)
"""A Chromium launched here, for comparison: its workspace profile persists."""

GRID = Capabilities(ends_on_disconnect=True)
"""A Chrome of a Selenium Grid (backends/grid.py), checked against a real Grid
(tests/backends/test_grid.py): nothing is kept between sessions, the Grid hands out no
page to watch, and a lost connection is the end of that browser: the session deletes
its WebDriver session and asks the Grid for a new one on the next call."""

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
    """Backend name → its capabilities (``local`` first, then the cloud providers, then
    ``grid``)."""
    providers = {name: make().capabilities for name, make in PROVIDERS.items()}
    return {"local": LOCAL, **providers, "grid": GRID}


def matrix_markdown() -> str:
    names = [f.name for f in fields(Capabilities)]
    lines = [
        "# Backend capability matrix",
        "",
        "Generated from the backends' declared capabilities by",
        "`python -m tabwarden.backends.cloud.matrix`; do not edit by hand. The cloud rows",
        "are tested against a fake of each provider's API serving a real Chromium",
        "(tests/backends/cloud/), the `grid` row against a real Selenium Grid",
        "(tests/backends/test_grid.py). What each column means:",
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
    "ends_on_disconnect": "a closed CDP socket ends the browser (the provider ends it; "
    "for the Grid, the session deletes its WebDriver session) and the next call gets a new "
    "one; otherwise tabwarden reconnects within `browser.reconnect_give_up_s` and keeps "
    "the tabs",
}


if __name__ == "__main__":
    print(write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
