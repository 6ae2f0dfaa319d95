"""Unit tests for the pure parts of the reaper: run folders, sweeping, killing a group."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tabwarden.backends.reaper import (
    RUN_DIR_PREFIX,
    group_alive,
    kill_process_group,
    make_run_dir,
    pid_alive,
    remove_tree,
    sweep_stale_run_dirs,
)


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll ``condition`` until it holds or the deadline passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)  # poll interval, not synchronisation
    return condition()


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer exists or is only a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    state = stat.rpartition(")")[2].split()[0]
    return state in ("Z", "X")


def make_owned_dir(root: Path, name: str, owner: object | None) -> Path:
    path = root / name
    path.mkdir()
    if owner is not None:
        (path / "owner.json").write_text(json.dumps(owner))
    (path / "profile").mkdir()
    (path / "profile" / "file.txt").write_text("data")
    return path


# ---- make_run_dir ------------------------------------------------------------------


@pytest.fixture
def private_tempdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_make_run_dir_writes_owner_json_with_this_pid(private_tempdir: Path) -> None:
    path = make_run_dir()
    assert path.is_dir()
    assert path.parent == private_tempdir
    assert path.name.startswith(f"{RUN_DIR_PREFIX}{os.getpid()}-")
    assert json.loads((path / "owner.json").read_text()) == {"pid": os.getpid()}


def test_make_run_dir_gives_a_fresh_folder_each_time(private_tempdir: Path) -> None:
    first = make_run_dir()
    second = make_run_dir()
    assert first != second
    assert first.is_dir() and second.is_dir()


def test_own_run_dir_survives_a_sweep(private_tempdir: Path) -> None:
    path = make_run_dir()
    removed = sweep_stale_run_dirs(root=private_tempdir, is_alive=lambda pid: False)
    assert removed == []
    assert path.is_dir()


# ---- sweep_stale_run_dirs ----------------------------------------------------------


def test_sweep_removes_dead_keeps_live_ours_and_ownerless(tmp_path: Path) -> None:
    dead_pid, live_pid = 4_000_001, 4_000_002
    dead = make_owned_dir(tmp_path, f"{RUN_DIR_PREFIX}dead", {"pid": dead_pid})
    live = make_owned_dir(tmp_path, f"{RUN_DIR_PREFIX}live", {"pid": live_pid})
    ours = make_owned_dir(tmp_path, f"{RUN_DIR_PREFIX}ours", {"pid": os.getpid()})
    ownerless = make_owned_dir(tmp_path, f"{RUN_DIR_PREFIX}ownerless", None)
    unrelated = make_owned_dir(tmp_path, "something-else", {"pid": dead_pid})

    asked: list[int] = []

    def is_alive(pid: int) -> bool:
        asked.append(pid)
        return pid == live_pid

    removed = sweep_stale_run_dirs(root=tmp_path, is_alive=is_alive)

    assert removed == [dead]
    assert not dead.exists()
    assert live.is_dir()
    assert ours.is_dir()
    assert ownerless.is_dir()
    assert unrelated.is_dir()
    assert os.getpid() not in asked  # our own folders are never in question
    assert sorted(asked) == [dead_pid, live_pid]


def test_sweep_removes_several_dead_folders(tmp_path: Path) -> None:
    folders = [
        make_owned_dir(tmp_path, f"{RUN_DIR_PREFIX}{n}", {"pid": 4_100_000 + n}) for n in range(3)
    ]
    removed = sweep_stale_run_dirs(root=tmp_path, is_alive=lambda pid: False)
    assert sorted(removed) == sorted(folders)
    assert not any(folder.exists() for folder in folders)


@pytest.mark.parametrize(
    "owner_text",
    [
        pytest.param("not json", id="not-json"),
        pytest.param('{"pid": "123"}', id="pid-string"),
        pytest.param('{"pid": null}', id="pid-null"),
        pytest.param("{}", id="no-pid"),
        pytest.param("[123]", id="json-list"),
    ],
)
def test_sweep_keeps_folders_with_unreadable_owner(tmp_path: Path, owner_text: str) -> None:
    path = tmp_path / f"{RUN_DIR_PREFIX}weird"
    path.mkdir()
    (path / "owner.json").write_text(owner_text)
    assert sweep_stale_run_dirs(root=tmp_path, is_alive=lambda pid: False) == []
    assert path.is_dir()


def test_sweep_ignores_plain_file_with_the_prefix(tmp_path: Path) -> None:
    path = tmp_path / f"{RUN_DIR_PREFIX}file"
    path.write_text("not a folder")
    assert sweep_stale_run_dirs(root=tmp_path, is_alive=lambda pid: False) == []
    assert path.is_file()


def test_sweep_uses_real_liveness_by_default(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    dead = make_owned_dir(tmp_path, f"{RUN_DIR_PREFIX}dead", {"pid": proc.pid})
    live = make_owned_dir(tmp_path, f"{RUN_DIR_PREFIX}live", {"pid": os.getppid()})
    assert sweep_stale_run_dirs(root=tmp_path) == [dead]
    assert live.is_dir()


def test_sweep_of_empty_root_removes_nothing(tmp_path: Path) -> None:
    assert sweep_stale_run_dirs(root=tmp_path, is_alive=lambda pid: False) == []


# ---- remove_tree -------------------------------------------------------------------


def test_remove_tree_removes_nested_folders(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "a" / "file").write_text("x")
    (root / "a" / "b" / "c" / "deep").write_text("y")
    os.symlink(tmp_path / "outside", root / "link")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("keep")

    assert remove_tree(root) is True
    assert not root.exists()
    assert (outside / "keep").read_text() == "keep"  # symlinks are not followed


def test_remove_tree_of_missing_folder_is_true(tmp_path: Path) -> None:
    assert remove_tree(tmp_path / "never-existed") is True


def test_remove_tree_reports_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "stubborn"
    root.mkdir()
    calls: list[Path] = []

    def fake_rmtree(path: Path, ignore_errors: bool = False) -> None:
        calls.append(path)

    monkeypatch.setattr("tabwarden.backends.reaper.shutil.rmtree", fake_rmtree)
    assert remove_tree(root, attempts=4) is False
    assert calls == [root] * 4
    assert root.exists()
    assert any("stubborn" in r.getMessage() for r in caplog.records)


# ---- pid_alive / kill_process_group ------------------------------------------------


def test_pid_alive_for_this_process() -> None:
    assert pid_alive(os.getpid())


def test_pid_alive_false_for_reaped_process() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert not pid_alive(proc.pid)


def test_kill_process_group_kills_the_leader() -> None:
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        assert proc.poll() is None
        kill_process_group(proc.pid)
        assert wait_until(lambda: proc.poll() is not None), "sleep survived kill_process_group"
        assert proc.returncode == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_kill_process_group_kills_children_in_the_group() -> None:
    proc = subprocess.Popen(
        ["sh", "-c", "sleep 60 & echo $!; wait"],
        start_new_session=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        grandchild = int(proc.stdout.readline())
        assert not process_gone(grandchild)
        assert os.getpgid(grandchild) == proc.pid

        kill_process_group(proc.pid)

        assert wait_until(lambda: proc.poll() is not None), "shell survived"
        assert wait_until(lambda: process_gone(grandchild)), "grandchild survived"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_kill_process_group_of_missing_process_is_harmless() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    kill_process_group(proc.pid)  # must not raise


def test_exit_actions_run_once_at_reap_and_removed_ones_never() -> None:
    from tabwarden.backends.reaper import Reaper

    ran: list[str] = []
    registry = Reaper()

    def failing() -> None:
        ran.append("failing")
        raise RuntimeError("the provider is down")

    registry.add_exit_action(lambda: ran.append("release a"))
    registry.add_exit_action(failing)
    removed = lambda: ran.append("removed")  # noqa: E731
    registry.add_exit_action(removed)
    registry.remove_exit_action(removed)
    registry.add_exit_action(lambda: ran.append("release b"))
    registry.reap_all()  # a failing action does not stop the others
    registry.reap_all()
    assert ran == ["release a", "failing", "release b"]


def test_a_group_is_alive_until_every_process_of_it_has_died():
    group = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30"], start_new_session=True)
    deadline = time.monotonic() + 10
    try:
        while len(_members(group.pid)) < 2:  # polled: the shell's child has started
            assert time.monotonic() < deadline, "the group's child never started"
            time.sleep(0.01)
        assert group_alive(group.pid)
        os.kill(group.pid, signal.SIGKILL)  # the leader alone: its child lives on
        group.wait()
        assert group_alive(group.pid)
        kill_process_group(group.pid)
        while group_alive(group.pid):  # the killed child's exit is seen a moment later
            assert time.monotonic() < deadline, "the group's last process never went"
            time.sleep(0.01)
    finally:
        kill_process_group(group.pid)


def _members(pgid: int) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.getpgid(int(pid)) == pgid:
                    found.append(int(pid))
            except OSError:
                continue
    return found
