"""Unit tests for finding the browser executable (fake executables, no real browser)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tabwarden.backends.executable import BROWSER_NAMES, find_browser
from tabwarden.errors import BrowserError, BrowserNotFound


def make_exe(folder: Path, name: str, *, executable: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\necho fake browser\n")
    path.chmod(0o755 if executable else 0o644)
    return path


@pytest.fixture
def empty_bin(tmp_path: Path) -> Path:
    folder = tmp_path / "empty-bin"
    folder.mkdir()
    return folder


def test_browser_names_order() -> None:
    assert BROWSER_NAMES == (
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
        "microsoft-edge",
    )


# ---- precedence --------------------------------------------------------------------


def test_tabwarden_chrome_wins_over_configured_and_path(tmp_path: Path) -> None:
    from_env = make_exe(tmp_path / "env", "my-chrome")
    configured = make_exe(tmp_path / "conf", "configured-chrome")
    bin_dir = tmp_path / "bin"
    make_exe(bin_dir, "chromium")
    found = find_browser(
        str(configured), env={"TABWARDEN_CHROME": str(from_env)}, path=str(bin_dir)
    )
    assert found == str(from_env)


def test_configured_wins_over_path(tmp_path: Path) -> None:
    configured = make_exe(tmp_path / "conf", "configured-chrome")
    bin_dir = tmp_path / "bin"
    make_exe(bin_dir, "chromium")
    assert find_browser(str(configured), env={}, path=str(bin_dir)) == str(configured)


def test_empty_tabwarden_chrome_is_ignored(tmp_path: Path) -> None:
    configured = make_exe(tmp_path / "conf", "configured-chrome")
    found = find_browser(str(configured), env={"TABWARDEN_CHROME": ""}, path=str(tmp_path))
    assert found == str(configured)


def test_empty_configured_is_ignored(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    chromium = make_exe(bin_dir, "chromium")
    assert find_browser("", env={}, path=str(bin_dir)) == str(chromium)


def test_tabwarden_chrome_bare_name_is_looked_up_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    brave = make_exe(bin_dir, "brave-browser")
    make_exe(bin_dir, "chromium")
    found = find_browser(env={"TABWARDEN_CHROME": "brave-browser"}, path=str(bin_dir))
    assert found == str(brave)


def test_configured_bare_name_is_looked_up_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    edge = make_exe(bin_dir, "microsoft-edge")
    make_exe(bin_dir, "chromium")
    assert find_browser("microsoft-edge", env={}, path=str(bin_dir)) == str(edge)


@pytest.mark.parametrize("name", BROWSER_NAMES)
def test_each_browser_name_is_found_on_path(tmp_path: Path, name: str) -> None:
    exe = make_exe(tmp_path / "bin", name)
    assert find_browser(env={}, path=str(tmp_path / "bin")) == str(exe)


def test_path_search_prefers_earlier_browser_name(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    make_exe(bin_dir, "google-chrome")
    make_exe(bin_dir, "microsoft-edge")
    chromium_browser = make_exe(bin_dir, "chromium-browser")
    assert find_browser(env={}, path=str(bin_dir)) == str(chromium_browser)


def test_browser_name_order_beats_path_folder_order(tmp_path: Path) -> None:
    first_dir = tmp_path / "first"
    second_dir = tmp_path / "second"
    make_exe(first_dir, "google-chrome")
    chromium = make_exe(second_dir, "chromium")
    search = os.pathsep.join([str(first_dir), str(second_dir)])
    assert find_browser(env={}, path=search) == str(chromium)


def test_earlier_path_folder_wins_for_the_same_name(tmp_path: Path) -> None:
    first = make_exe(tmp_path / "first", "chromium")
    make_exe(tmp_path / "second", "chromium")
    search = os.pathsep.join([str(tmp_path / "first"), str(tmp_path / "second")])
    assert find_browser(env={}, path=search) == str(first)


def test_non_executable_file_on_path_is_skipped(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    make_exe(bin_dir, "chromium", executable=False)
    chrome = make_exe(bin_dir, "google-chrome")
    assert find_browser(env={}, path=str(bin_dir)) == str(chrome)


def test_path_comes_from_env_when_not_given(tmp_path: Path) -> None:
    chromium = make_exe(tmp_path / "bin", "chromium")
    assert find_browser(env={"PATH": str(tmp_path / "bin")}) == str(chromium)


def test_explicit_path_wins_over_env_path(tmp_path: Path) -> None:
    env_bin = tmp_path / "env-bin"
    make_exe(env_bin, "chromium")
    arg_bin = tmp_path / "arg-bin"
    arg_chromium = make_exe(arg_bin, "chromium")
    found = find_browser(env={"PATH": str(env_bin)}, path=str(arg_bin))
    assert found == str(arg_chromium)


# ---- errors ------------------------------------------------------------------------


def test_configured_file_not_executable_raises_naming_the_source(
    tmp_path: Path, empty_bin: Path
) -> None:
    not_exe = make_exe(tmp_path / "conf", "chrome", executable=False)
    with pytest.raises(BrowserNotFound) as info:
        find_browser(str(not_exe), env={}, path=str(empty_bin))
    assert "browser.executable" in info.value.message
    assert str(not_exe) in info.value.message
    assert "browser.executable" in info.value.hint


def test_tabwarden_chrome_missing_file_raises_naming_the_source(
    tmp_path: Path, empty_bin: Path
) -> None:
    missing = tmp_path / "nowhere" / "chrome"
    with pytest.raises(BrowserNotFound) as info:
        find_browser(env={"TABWARDEN_CHROME": str(missing)}, path=str(empty_bin))
    assert "TABWARDEN_CHROME" in info.value.message
    assert str(missing) in info.value.message
    assert "TABWARDEN_CHROME" in info.value.hint


def test_bad_tabwarden_chrome_does_not_fall_back(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    make_exe(bin_dir, "chromium")
    configured = make_exe(tmp_path / "conf", "chrome")
    with pytest.raises(BrowserNotFound, match="TABWARDEN_CHROME"):
        find_browser(
            str(configured), env={"TABWARDEN_CHROME": "no-such-browser"}, path=str(bin_dir)
        )


def test_bad_configured_name_does_not_fall_back_to_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    make_exe(bin_dir, "chromium")
    with pytest.raises(BrowserNotFound, match=r"browser\.executable"):
        find_browser("no-such-browser", env={}, path=str(bin_dir))


def test_configured_directory_is_not_an_executable(tmp_path: Path, empty_bin: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(BrowserNotFound, match=r"browser\.executable"):
        find_browser(str(folder), env={}, path=str(empty_bin))


def test_nothing_found_raises_with_install_hint(empty_bin: Path) -> None:
    with pytest.raises(BrowserNotFound) as info:
        find_browser(env={}, path=str(empty_bin))
    assert "apt-get install" in info.value.hint
    assert "apt-get install" in str(info.value)
    for name in BROWSER_NAMES:
        assert name in info.value.message


def test_nothing_found_with_only_non_executables(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    for name in BROWSER_NAMES:
        make_exe(bin_dir, name, executable=False)
    with pytest.raises(BrowserNotFound, match="apt-get install"):
        find_browser(env={}, path=str(bin_dir))


def test_browser_not_found_is_a_browser_error(empty_bin: Path) -> None:
    with pytest.raises(BrowserError):
        find_browser(env={}, path=str(empty_bin))
