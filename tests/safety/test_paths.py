"""Where files may be read from and written to: the workspace rules, symlinks and '..'."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tabwarden.errors import PathNotAllowed
from tabwarden.safety.paths import WorkspacePaths, safe_file_name


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "cv.pdf").write_bytes(b"%PDF-1.4")
    return root


def test_uploads_come_from_the_workspace(workspace: Path) -> None:
    paths = WorkspacePaths(workspace)
    assert paths.readable("cv.pdf") == workspace / "cv.pdf"
    assert paths.readable(workspace / "cv.pdf") == workspace / "cv.pdf"


def test_dot_dot_escape_is_refused(workspace: Path) -> None:
    paths = WorkspacePaths(workspace)
    with pytest.raises(PathNotAllowed, match="outside the folders") as info:
        paths.readable("../../../../../../etc/passwd")
    assert "upload_dirs" in info.value.hint


def test_symlink_escape_is_refused_and_named(workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    (workspace / "innocent.txt").symlink_to(secret)
    with pytest.raises(PathNotAllowed, match=f"leads to {secret}"):
        WorkspacePaths(workspace).readable("innocent.txt")


def test_allowed_folders_extend_the_workspace(workspace: Path, tmp_path: Path) -> None:
    extra = tmp_path / "shared"
    extra.mkdir()
    (extra / "a.txt").write_text("a")
    assert WorkspacePaths(workspace, upload_dirs=[extra]).readable(extra / "a.txt").is_file()


def test_missing_files_and_folders_are_clear_errors(workspace: Path) -> None:
    paths = WorkspacePaths(workspace)
    with pytest.raises(PathNotAllowed, match="does not exist"):
        paths.readable("nope.txt")
    (workspace / "dir").mkdir()
    with pytest.raises(PathNotAllowed, match="not a regular file"):
        paths.readable("dir")


def test_outputs_stay_in_the_output_folder(workspace: Path) -> None:
    paths = WorkspacePaths(workspace)
    first = paths.output_path("pdf", "report", suffix=".pdf")
    assert first == workspace / "tabwarden-output" / "pdf" / "report.pdf"
    first.write_bytes(b"x")
    assert paths.output_path("pdf", "report.pdf", suffix=".pdf").name == "report-2.pdf"
    fresh = paths.output_path("traces", None, suffix=".json")
    assert fresh.parent == workspace / "tabwarden-output" / "traces"
    assert fresh.suffix == ".json"


def test_outputs_outside_the_workspace_are_refused(workspace: Path, tmp_path: Path) -> None:
    paths = WorkspacePaths(workspace)
    with pytest.raises(PathNotAllowed, match="outside the workspace"):
        paths.output_path("pdf", str(tmp_path / "elsewhere.pdf"), suffix=".pdf")
    with pytest.raises(PathNotAllowed, match=r"'\.\.'"):
        paths.output_path("pdf", "../../x.pdf", suffix=".pdf")
    inside = paths.output_path("pdf", str(workspace / "out" / "x.pdf"), suffix=".pdf")
    assert inside == workspace / "out" / "x.pdf"


def test_output_folder_must_be_inside_the_workspace(workspace: Path, tmp_path: Path) -> None:
    with pytest.raises(PathNotAllowed, match="outside the workspace"):
        WorkspacePaths(workspace, output_dir=tmp_path / "out")
    assert WorkspacePaths(workspace, output_dir="o").output_root == workspace / "o"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Windows\\evil.exe", "evil.exe"),
        (".bashrc", "bashrc"),
        ("a;rm -rf $HOME.sh", "a_rm -rf _HOME.sh"),
        ("", "file"),
        ("x" * 300 + ".tar", "x" * 116 + ".tar"),
    ],
)
def test_page_suggested_names_become_plain_names(given: str, expected: str) -> None:
    assert safe_file_name(given) == expected
    assert os.sep not in safe_file_name(given)
