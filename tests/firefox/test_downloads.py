"""Firefox downloads (firefox/downloads.py): the BiDi events fed into the shared list,
safe names and places, partial files removed, and a throwaway session that leaves only
its finished downloads, in the downloads folder."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.firefox import FirefoxSession
from tabwarden.firefox.downloads import FirefoxDownloads
from tabwarden.safety.paths import WorkspacePaths
from tests.conftest import browser_processes


def _downloads(workspace: Path) -> tuple[FirefoxDownloads, Path]:
    paths = WorkspacePaths(workspace)
    downloads = FirefoxDownloads(lambda: paths, capacity=3, tab_of=lambda c: f"t-{c}")
    folder = paths.output_dir("downloads")
    downloads.tracker.use_folder(folder)
    return downloads, folder


def _begin(downloads: FirefoxDownloads, navigation: str, name: str) -> None:
    downloads.on_event(
        "browsingContext.downloadWillBegin",
        {"context": "c1", "navigation": navigation, "suggestedFilename": name, "url": "http://x/"},
    )


def _end(downloads: FirefoxDownloads, navigation: str, status: str, path: Path | None) -> None:
    params = {"context": "c1", "navigation": navigation, "status": status, "url": "http://x/"}
    if path is not None:
        params["filepath"] = str(path)
    downloads.on_event("browsingContext.downloadEnd", params)


def test_a_completed_download_keeps_firefox_s_safe_name_and_loses_exec_bits(tmp_path):
    downloads, folder = _downloads(tmp_path)
    _begin(downloads, "n1", "tool.sh")
    assert [d.state for d in downloads.items()] == ["in_progress"]
    saved = folder / "tool.sh"
    saved.write_bytes(b"#!/bin/sh\necho hi\n")
    saved.chmod(0o755)
    _end(downloads, "n1", "complete", saved)
    (done,) = downloads.items()
    assert (done.state, done.path, done.size, done.tab_id) == ("completed", saved, 18, "t-c1")
    assert done.received_bytes == done.total_bytes == 18
    assert done.executable and saved.stat().st_mode & 0o111 == 0
    assert any("#!" in reason for reason in done.reasons)


def test_an_unsafe_name_is_moved_to_a_safe_one_in_the_folder(tmp_path):
    downloads, folder = _downloads(tmp_path)
    _begin(downloads, "n1", ".bashrc")
    saved = folder / ".bashrc"
    saved.write_text("alias ls=rm\n")
    _end(downloads, "n1", "complete", saved)
    (done,) = downloads.items()
    assert done.path is not None and done.path.parent == folder
    assert not done.path.name.startswith(".") and not saved.exists()


def test_a_canceled_download_leaves_no_partial_file_and_a_file_elsewhere_is_left_alone(tmp_path):
    downloads, folder = _downloads(tmp_path)
    _begin(downloads, "n1", "big.bin")
    partial = folder / "big.bin"
    partial.write_bytes(b"half")
    _end(downloads, "n1", "canceled", partial)
    (ended,) = downloads.items()
    assert ended.state == "failed" and "interrupted" in ended.error
    assert not partial.exists()
    elsewhere = tmp_path / "elsewhere.exe"
    elsewhere.write_bytes(b"MZ....")
    _begin(downloads, "n2", "elsewhere.exe")
    _end(downloads, "n2", "canceled", elsewhere)
    assert elsewhere.exists()  # not in the downloads folder: not ours to remove


def test_events_of_unknown_downloads_are_ignored_and_the_list_is_bounded(tmp_path):
    downloads, folder = _downloads(tmp_path)
    _end(downloads, "nobody", "complete", folder / "x")
    _begin(downloads, "", "no-navigation.txt")
    assert downloads.items() == ()
    for n in range(5):
        _begin(downloads, f"n{n}", f"{n}.txt")
    listing = downloads.tracker.listing()
    assert listing.statistics.size == 3 and listing.statistics.dropped == 2


def test_a_file_shorter_than_its_content_length_is_a_failed_download(tmp_path):
    paths = WorkspacePaths(tmp_path)
    folder = paths.output_dir("downloads")
    downloads = FirefoxDownloads(
        lambda: paths, capacity=3, tab_of=lambda c: "t1", promised_size={"n1": 100}.get
    )
    downloads.tracker.use_folder(folder)
    _begin(downloads, "n1", "cut.zip")
    cut = folder / "cut.zip"
    cut.write_bytes(b"x" * 40)
    _end(downloads, "n1", "complete", cut)
    (ended,) = downloads.items()
    assert ended.state == "failed" and ended.path is None and not cut.exists()


@pytest.mark.browser
async def test_a_throwaway_session_leaves_only_finished_downloads_in_the_folder(server):
    async with tabwarden.launch(isolated=True, engine="firefox") as session:
        folder = WorkspacePaths.from_config(session.config).output_dir("downloads", create=False)
        before = set(folder.iterdir()) if folder.exists() else set()
        profile = session.backend.profile_dir
        tab = session.active_tab
        await tab.navigate(server.url("/files_downloads.html"))
        for link in ("broken", "sneaky"):
            await tab.evaluate(f"document.getElementById('{link}').click()")
            budget = Budget(15)
            while len([d for d in session.known_downloads() if d.state != "in_progress"]) < (
                1 if link == "broken" else 2
            ):
                assert not budget.expired, (await session.downloads()).text
                await budget.sleep(0.05)
        broken, sneaky = session.known_downloads()
        assert broken.state == "failed" and broken.path is None
        assert sneaky.state == "completed" and sneaky.path is not None
        assert sneaky.path.parent == folder and not sneaky.path.name.startswith(".")
    assert not browser_processes(profile) and not profile.exists()
    assert set(folder.iterdir()) - before == {sneaky.path}  # no partial file of the broken one


def test_the_session_method_mirrors_the_chromium_session_s():
    chromium = inspect.signature(tabwarden.BrowserSession.downloads)
    firefox = inspect.signature(FirefoxSession.downloads)
    assert firefox.parameters == chromium.parameters
    assert firefox.return_annotation == chromium.return_annotation
    assert hasattr(FirefoxSession, "known_downloads")
