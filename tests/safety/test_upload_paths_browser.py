"""Uploads on a real file input take files only from the workspace or allowed folders."""

from __future__ import annotations

from pathlib import Path

import pytest

import tabwarden
from tabwarden.config import Config
from tabwarden.errors import PathNotAllowed
from tabwarden.safety.paths import WorkspacePaths


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("upload-ws")
    (root / "cv.txt").write_text("my cv")
    (root / "docs").mkdir()
    (root / "docs" / "letter.txt").write_text("a letter")
    return root


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("outside")
    (folder / "secret.txt").write_text("s3cret")
    return folder


@pytest.fixture(scope="module")
async def session(workspace, outside):
    config = Config()
    config.browser.workspace = workspace
    config.files.upload_dirs = [outside / "allowed"]
    (outside / "allowed").mkdir()
    (outside / "allowed" / "photo.txt").write_text("a photo")
    async with tabwarden.launch(isolated=True, config=config) as browser:
        yield browser


@pytest.fixture
async def tab(session, server):
    tab = await session.new_tab(server.url("/files_upload.html"))
    yield tab
    await tab.close()


async def _chosen(tab) -> list[str]:
    reply = await tab.evaluate("[...document.getElementById('file').files].map(f => f.name)")
    return reply.value


@pytest.mark.browser
async def test_files_in_the_workspace_and_allowed_folders_are_attached(tab, workspace, outside):
    receipt = await tab.upload_file(
        "#file",
        ["cv.txt", str(workspace / "docs" / "letter.txt"), str(outside / "allowed" / "photo.txt")],
    )
    assert receipt.detail == "attached cv.txt, letter.txt, photo.txt"
    assert await _chosen(tab) == ["cv.txt", "letter.txt", "photo.txt"]


@pytest.mark.browser
async def test_dot_dot_escape_is_refused_and_nothing_is_attached(tab):
    with pytest.raises(PathNotAllowed, match="outside the folders files may come from") as info:
        await tab.upload_file("#file", "../../etc/passwd")
    assert "upload_dirs" in info.value.hint
    with pytest.raises(PathNotAllowed):
        await tab.upload_file("#file", "docs/../../../../../../../etc/passwd")
    with pytest.raises(PathNotAllowed):
        await tab.upload_file("#file", "/etc/passwd")
    assert await _chosen(tab) == []


@pytest.mark.browser
async def test_a_symlink_leading_outside_is_refused(tab, workspace, outside):
    link = workspace / "innocent.txt"
    link.symlink_to(outside / "secret.txt")
    folder_link = workspace / "shared"
    folder_link.symlink_to(outside)
    with pytest.raises(PathNotAllowed, match=f"leads to {outside / 'secret.txt'}"):
        await tab.upload_file("#file", "innocent.txt")
    with pytest.raises(PathNotAllowed, match="outside the folders"):
        await tab.upload_file("#file", "shared/secret.txt")
    # One bad file refuses the whole call: the good one is not attached either.
    with pytest.raises(PathNotAllowed):
        await tab.upload_file("#file", ["cv.txt", "innocent.txt"])
    assert await _chosen(tab) == []


@pytest.mark.browser
async def test_missing_files_are_a_clear_error(tab):
    with pytest.raises(PathNotAllowed, match="does not exist"):
        await tab.upload_file("#file", "nope.txt")


def test_outside_paths_are_refused_before_their_existence_is_checked(workspace):
    paths = WorkspacePaths(workspace)
    for probe in ("../../no-such-file", "/etc/passwd", "/no/such/file"):
        with pytest.raises(PathNotAllowed, match="outside the folders"):
            paths.readable(probe)
