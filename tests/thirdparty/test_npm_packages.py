"""The npm packages of the tests are installed when missing or stale, and only then."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.npm_packages import NpmInstallError, ensure_installed, is_installed

# Stands in for npm: `npm ci` installs the one package the lock pins and counts its runs.
_FAKE_NPM = """#!/bin/sh
[ "$1 $2 $3" = "ci --no-audit --no-fund" ] || { echo "unexpected: $*" >&2; exit 2; }
echo run >> runs
mkdir -p node_modules/editor
echo '{"name": "editor", "version": "1.2.3"}' > node_modules/editor/package.json
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    lock = {
        "lockfileVersion": 3,
        "packages": {"": {"name": "t"}, "node_modules/editor": {"version": "1.2.3"}},
    }
    (tmp_path / "package-lock.json").write_text(json.dumps(lock))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(_FAKE_NPM)
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return tmp_path


def _runs(project: Path) -> int:
    runs = project / "runs"
    return len(runs.read_text().split()) if runs.exists() else 0


def test_installs_when_missing_then_not_again(project: Path):
    assert not is_installed(project)
    assert ensure_installed(project) == project / "node_modules"
    assert is_installed(project) and _runs(project) == 1
    ensure_installed(project)
    assert _runs(project) == 1


def test_installs_again_when_the_lock_or_a_package_changed(project: Path):
    ensure_installed(project)
    lock = json.loads((project / "package-lock.json").read_text())
    lock["packages"][""]["name"] = "renamed"  # another lock: another hash
    (project / "package-lock.json").write_text(json.dumps(lock))
    assert not is_installed(project)
    ensure_installed(project)
    assert _runs(project) == 2
    (project / "node_modules" / "editor" / "package.json").unlink()
    assert not is_installed(project)
    ensure_installed(project)
    assert _runs(project) == 3 and is_installed(project)


def test_says_what_to_do_without_npm(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", str(project / "nowhere"))
    with pytest.raises(NpmInstallError, match=r"npm is needed.*install Node.js"):
        ensure_installed(project)


def test_a_failed_install_says_why(project: Path):
    (project / "bin" / "npm").write_text("#!/bin/sh\necho 'ENOTFOUND registry' >&2\nexit 1\n")
    with pytest.raises(NpmInstallError, match=r"(?s)failed \(exit 1\).*ENOTFOUND registry"):
        ensure_installed(project)
