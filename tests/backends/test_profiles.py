"""Unit tests for persistent profile folders and the SingletonLock check."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tabwarden.backends.profiles import claim_profile, workspace_profile_dir
from tabwarden.errors import BrowserError, ProfileInUse


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "my-project"
    folder.mkdir()
    return folder


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# ---- workspace_profile_dir ---------------------------------------------------------


def test_profile_dir_is_stable_for_same_workspace_and_session(
    workspace: Path, data_dir: Path
) -> None:
    first = workspace_profile_dir(workspace, "main", data_dir)
    second = workspace_profile_dir(workspace, "main", data_dir)
    assert first == second


def test_profile_dir_is_the_same_for_relative_and_absolute_workspace(
    workspace: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace.parent)
    relative = workspace_profile_dir(Path(workspace.name), "main", data_dir)
    assert relative == workspace_profile_dir(workspace, "main", data_dir)


def test_profile_dir_defaults_to_current_directory(
    workspace: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    assert workspace_profile_dir(None, "main", data_dir) == workspace_profile_dir(
        workspace, "main", data_dir
    )


def test_profile_dir_differs_across_workspaces(tmp_path: Path, data_dir: Path) -> None:
    a = tmp_path / "a" / "project"
    b = tmp_path / "b" / "project"  # same folder name, different place
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    dir_a = workspace_profile_dir(a, "main", data_dir)
    dir_b = workspace_profile_dir(b, "main", data_dir)
    assert dir_a != dir_b
    assert dir_a.parent != dir_b.parent
    assert dir_a.name == dir_b.name == "main"


def test_profile_dir_differs_across_session_names(workspace: Path, data_dir: Path) -> None:
    main = workspace_profile_dir(workspace, "main", data_dir)
    other = workspace_profile_dir(workspace, "other", data_dir)
    assert main != other
    assert main.parent == other.parent  # same workspace folder


def test_profile_dir_lives_under_data_dir_profiles(workspace: Path, data_dir: Path) -> None:
    path = workspace_profile_dir(workspace, "main", data_dir)
    assert path.is_relative_to(data_dir / "profiles")
    assert path.parent.parent == data_dir / "profiles"
    assert path.parent.name.startswith("my-project-")


def test_profile_dir_does_not_create_anything(workspace: Path, data_dir: Path) -> None:
    workspace_profile_dir(workspace, "main", data_dir)
    assert not data_dir.exists()


def test_profile_dir_default_root_is_the_user_data_folder(workspace: Path) -> None:
    import platformdirs

    root = Path(platformdirs.user_data_dir("tabwarden", appauthor=False))
    path = workspace_profile_dir(workspace, "main")
    assert path.is_relative_to(root / "profiles")


@pytest.mark.parametrize(
    ("session", "expected"),
    [
        ("main", "main"),
        ("with space", "with-space"),
        ("a/b", "a-b"),
        ("../../etc", "etc"),
        ("x\\y:z", "x-y-z"),
        ("ünïcode", "n-code"),
        ("tab\tand\nnewline", "tab-and-newline"),
        ("keep_these.chars-ok", "keep_these.chars-ok"),
        ("", "default"),
    ],
)
def test_odd_session_names_are_sanitised(
    workspace: Path, data_dir: Path, session: str, expected: str
) -> None:
    path = workspace_profile_dir(workspace, session, data_dir)
    assert path.name == expected
    assert path.parent == workspace_profile_dir(workspace, "main", data_dir).parent


def test_long_session_names_are_truncated(workspace: Path, data_dir: Path) -> None:
    path = workspace_profile_dir(workspace, "s" * 200, data_dir)
    assert path.name == "s" * 60


def test_odd_workspace_folder_name_is_sanitised(tmp_path: Path, data_dir: Path) -> None:
    folder = tmp_path / "my project (copy) ü"
    folder.mkdir()
    path = workspace_profile_dir(folder, "main", data_dir)
    slug = path.parent.name
    assert slug.startswith("my-project-copy-")
    assert " " not in slug and "(" not in slug and "ü" not in slug
    assert path.parent.parent == data_dir / "profiles"


def test_long_workspace_folder_name_is_truncated(tmp_path: Path, data_dir: Path) -> None:
    folder = tmp_path / ("w" * 100)
    folder.mkdir()
    slug = workspace_profile_dir(folder, "main", data_dir).parent.name
    name, _, digest = slug.rpartition("-")
    assert name == "w" * 40
    assert len(digest) == 12


def test_filesystem_root_workspace_gets_root_slug(data_dir: Path) -> None:
    path = workspace_profile_dir(Path("/"), "main", data_dir)
    assert path.parent.name.startswith("root-")


@pytest.mark.parametrize("session", [".", ".."])
def test_dot_session_names_stay_inside_the_workspace_folder(
    workspace: Path, data_dir: Path, session: str
) -> None:
    workspace_folder = workspace_profile_dir(workspace, "main", data_dir).parent
    path = workspace_profile_dir(workspace, session, data_dir)
    assert path.name not in (".", "..")
    assert Path(os.path.normpath(path)).parent == workspace_folder


# ---- claim_profile -----------------------------------------------------------------


def test_claim_profile_creates_the_folder(tmp_path: Path) -> None:
    profile = tmp_path / "deep" / "profile"
    claim_profile(profile)
    assert profile.is_dir()


def test_claim_profile_without_lock_keeps_other_files(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "Cookies").write_text("keep me")
    claim_profile(profile)
    assert (profile / "Cookies").read_text() == "keep me"


def test_claim_profile_removes_stale_lock_of_dead_process(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    profile.mkdir()
    pid = dead_pid()
    os.symlink(f"{socket.gethostname()}-{pid}", profile / "SingletonLock")
    os.symlink(f"/tmp/does-not-matter-{pid}", profile / "SingletonSocket")
    (profile / "SingletonCookie").write_text("123")
    (profile / "Preferences").write_text("{}")

    claim_profile(profile)

    assert not os.path.lexists(profile / "SingletonLock")
    assert not os.path.lexists(profile / "SingletonSocket")
    assert not os.path.lexists(profile / "SingletonCookie")
    assert (profile / "Preferences").read_text() == "{}"


def test_claim_profile_refuses_a_profile_held_by_a_live_process(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    profile.mkdir()
    pid = os.getpid()
    os.symlink(f"{socket.gethostname()}-{pid}", profile / "SingletonLock")

    with pytest.raises(ProfileInUse) as info:
        claim_profile(profile)

    assert str(pid) in info.value.message
    assert str(profile) in info.value.message
    assert info.value.hint
    assert isinstance(info.value, BrowserError)
    # The live browser's lock is left alone.
    assert os.readlink(profile / "SingletonLock") == f"{socket.gethostname()}-{pid}"


def test_claim_profile_clears_lock_with_unparseable_target(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    profile.mkdir()
    os.symlink(f"{socket.gethostname()}-notapid", profile / "SingletonLock")
    claim_profile(profile)
    assert not os.path.lexists(profile / "SingletonLock")
