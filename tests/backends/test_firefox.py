"""The local Firefox backend: command line, profile, the BiDi port, and no orphans."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tabwarden
from tabwarden.backends.choice import backend_for
from tabwarden.backends.firefox import PREFS, LocalFirefox, firefox_args
from tabwarden.backends.local import LocalOptions
from tabwarden.backends.reaper import sweep_stale_run_dirs
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import BrowserNotFound, ConfigError, EngineUnsupported
from tests.conftest import browser_processes

ROOT = Path(__file__).resolve().parents[2]


async def _gone(marker: str | Path, seconds: float = 15.0) -> bool:
    """Poll until no process mentions ``marker`` (or the deadline passes)."""
    budget = Budget(seconds)
    while browser_processes(marker):
        if budget.expired:
            return False
        await budget.sleep(0.05)
    return True


def test_the_command_line_picks_a_free_port_and_the_profile(tmp_path):
    args = firefox_args(LocalOptions(window_size=(800, 600)), tmp_path)
    assert args[:5] == ["--no-remote", "--profile", str(tmp_path), "--remote-debugging-port", "0"]
    assert "--headless" in args
    assert args[args.index("--width") + 1] == "800"
    assert "--headless" not in firefox_args(LocalOptions(headless=False), tmp_path)
    # Firefox needs no sandbox switch as root (Chromium's --no-sandbox has no twin here).
    assert not any("sandbox" in arg for arg in args)


def test_prefs_keep_firefox_off_the_network_and_let_pages_open_popups():
    assert PREFS["app.update.disabledForTesting"] is True
    assert PREFS["dom.disable_open_during_load"] is False


def test_no_firefox_on_path_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("TABWARDEN_FIREFOX", raising=False)
    with pytest.raises(BrowserNotFound) as caught:
        asyncio.run(LocalFirefox(LocalOptions(isolated=True)).start(Budget(5)))
    assert "firefox-esr" in str(caught.value)


def test_firefox_runs_with_the_local_backend_only():
    with pytest.raises(ConfigError) as caught:
        tabwarden.launch(engine="firefox", backend="browserbase")
    assert "local backend only" in str(caught.value)


def test_firefox_sessions_are_not_browser_contexts():
    with pytest.raises(ConfigError) as caught:
        tabwarden.launch(engine="firefox", isolation="context")
    assert "Firefox of its own" in str(caught.value)
    assert "--isolation" in caught.value.hint


def test_no_cdp_backend_is_made_for_a_firefox_session():
    config = Config()
    config.browser.engine = "firefox"
    with pytest.raises(EngineUnsupported) as caught:
        backend_for(config)
    assert "not on this engine (firefox)" in str(caught.value)
    assert "engines-matrix.md" in caught.value.hint


@pytest.mark.browser
async def test_the_bidi_session_starts_and_closes_leaving_nothing():
    session = await tabwarden.launch(isolated=True, engine="firefox")
    profile = session.backend.profile_dir
    assert profile is not None and (profile / "user.js").is_file()
    assert session.backend.engine == "firefox"
    assert [tab.id for tab in session.tabs] == ["t1"]
    assert browser_processes(profile)
    connection = session.connection
    await session.close()
    assert connection.closed
    assert await _gone(profile), "Firefox outlived its session"
    assert not profile.parent.exists(), "the throwaway profile was left behind"


@pytest.mark.browser
async def test_a_workspace_profile_is_kept_apart_from_chromiums(tmp_path):
    async with tabwarden.launch(engine="firefox", workspace=tmp_path) as session:
        profile = session.backend.profile_dir
        assert profile is not None and profile.name == "default.firefox"
    assert profile.is_dir(), "a workspace profile is kept"
    assert await _gone(profile)


_CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {root!r})
    import tabwarden

    async def main():
        session = await tabwarden.launch(isolated=True, engine="firefox")
        print(session.backend.pid, session.backend.profile_dir, flush=True)
        if sys.argv[1] == "raise":
            raise RuntimeError("the agent crashed")
        await asyncio.sleep(60)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("how", ["raise", "sigterm", "sigkill"])
@pytest.mark.browser
async def test_no_orphan_firefox_or_profile_when_python_dies(how, tmp_path):
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(root=str(ROOT / "src")))
    child = subprocess.Popen(
        [sys.executable, str(script), "raise" if how == "raise" else "wait"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = await asyncio.wait_for(asyncio.to_thread(child.stdout.readline), 60)
        _pid, profile_text = line.split()
        profile = Path(profile_text)
        if how == "sigterm":
            child.send_signal(signal.SIGTERM)
        elif how == "sigkill":
            child.send_signal(signal.SIGKILL)
        await asyncio.wait_for(asyncio.to_thread(child.wait), 30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert await _gone(profile), "Firefox outlived the Python process"
    if how == "sigkill":
        sweep_stale_run_dirs()  # nothing in the dead process could clean up: the next launch does
    assert not profile.parent.exists(), "the temporary profile was left behind"
