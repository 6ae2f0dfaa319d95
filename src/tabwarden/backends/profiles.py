"""Where browser profiles live: persistent per workspace and session, or throwaway."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
from pathlib import Path

import platformdirs

from ..errors import ProfileInUse
from .reaper import pid_alive

__all__ = ["claim_profile", "data_root", "workspace_profile_dir"]

_SINGLETON_FILES = ("SingletonLock", "SingletonSocket", "SingletonCookie")


def data_root(data_dir: Path | None = None) -> Path:
    """Where tabwarden keeps profiles: ``data_dir`` (``browser.data_dir``), else the
    platform's user data folder for tabwarden."""
    return data_dir or Path(platformdirs.user_data_dir("tabwarden", appauthor=False))


def workspace_profile_dir(
    workspace: Path | None, session_name: str, data_dir: Path | None = None
) -> Path:
    """The persistent profile of one session in one workspace folder.

    Kept under the user data folder (never the user's own browser profile), keyed
    by the workspace's resolved path so two projects never share cookies.
    """
    root = data_root(data_dir)
    workspace = (workspace or Path.cwd()).resolve()
    digest = hashlib.sha256(str(workspace).encode()).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", workspace.name)[:40] or "root"
    # No leading dot: "." or ".." must never step outside the workspace folder.
    safe_session = re.sub(r"[^A-Za-z0-9_.-]+", "-", session_name)[:60].lstrip(".-") or "default"
    return root / "profiles" / f"{slug}-{digest}" / safe_session


def claim_profile(path: Path) -> None:
    """Make sure no live browser holds the profile; clear a dead browser's lock.

    Chromium marks a profile in use with a ``SingletonLock`` symlink to
    ``<hostname>-<pid>``. A second browser on the same profile would hand its
    work to the first and exit, so refuse early instead.
    """
    path.mkdir(parents=True, exist_ok=True)
    lock = path / "SingletonLock"
    try:
        target = os.readlink(lock)
    except OSError:
        return
    host, _, pid_text = target.rpartition("-")
    if host == socket.gethostname() and pid_text.isdigit() and pid_alive(int(pid_text)):
        raise ProfileInUse(f"the profile {path} is in use by browser process {pid_text}")
    for name in _SINGLETON_FILES:
        with contextlib.suppress(OSError):
            (path / name).unlink()
