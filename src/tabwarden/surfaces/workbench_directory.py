"""Where this user's running workbenches are: one small file each in the runtime folder
(the daemons' folder, private to the user), so ``tabwarden workbench --list`` finds the
workbench of an MCP server that a desktop app started, as well as the daemons'."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from ..backends.reaper import pid_alive

__all__ = ["WorkbenchEntry", "listed", "register", "unregister"]

WorkbenchEntry = dict[str, Any]


def register(url: str, kind: str, *, root: Path) -> Path:
    """Note that this process serves a workbench at ``url`` (its token included: the file
    is readable by its owner only, in a folder that is too)."""
    path = root / f"workbench-{os.getpid()}.json"
    entry = {"url": url, "kind": kind, "pid": os.getpid(), "started": time.time()}
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(entry, file)
    return path


def unregister(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def listed(root: Path) -> list[WorkbenchEntry]:
    """The workbenches of live processes, oldest first (files of dead ones are removed)."""
    folder = root
    entries: list[WorkbenchEntry] = []
    for path in sorted(folder.glob("workbench-*.json")) if folder.is_dir() else []:
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            pid = int(entry["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not pid_alive(pid):
            unregister(path)
            continue
        entries.append(entry)
    return sorted(entries, key=lambda e: float(e.get("started", 0)))
