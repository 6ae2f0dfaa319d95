"""``tabwarden attach`` with no URL, ``--port`` and ``--launch``, through the daemon."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.debug_browser import (
    CHROMIUM,
    DebugBrowser,
    chromium_test_flags,
    debug_browser,
    kill_browser,
)
from tests.local_server import LocalServer
from tests.surfaces.test_cli_daemon import Cli, cli  # noqa: F401 (the fixture)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def user_chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DebugBrowser]:
    with debug_browser(tmp_path_factory.mktemp("user") / "profile") as browser:
        yield browser


def attach_env(tmp_path: Path, *ports: int) -> dict[str, str]:
    """Discovery limited to these ports (no profile folder of the machine's own)."""
    empty = tmp_path / "no-profiles"
    empty.mkdir(exist_ok=True)
    return {
        "TABWARDEN_BROWSER__ATTACH__PORTS": ",".join(str(p) for p in ports),
        "TABWARDEN_BROWSER__ATTACH__PROFILE_DIRS": str(empty),
        "TABWARDEN_BROWSER__ATTACH__EXECUTABLE": CHROMIUM,
        "TABWARDEN_BROWSER__ATTACH__HEADLESS": "true",
        "TABWARDEN_BROWSER__ATTACH__ARGS": json.dumps(chromium_test_flags()),
    }


def test_attach_finds_the_running_browser(
    cli: Cli,  # noqa: F811
    user_chrome: DebugBrowser,
    server: LocalServer,
    tmp_path: Path,
    closed_port: int,
) -> None:
    cli.env.update(attach_env(tmp_path, user_chrome.port))
    refused = cli("attach")
    assert refused.returncode == 3, refused
    assert "needs the user's consent" in refused.stderr and "--allow-attach" in refused.stderr

    out = cli.ok("attach", "--allow-attach")
    assert out.startswith("attached to Chrome/") and f"port {user_chrome.port}" in out
    assert "Test home" in cli.ok("navigate", server.url("/index.html"))
    cli.ok("daemon", "stop")
    assert user_chrome.process.poll() is None

    by_port = cli.json("attach", "--port", str(user_chrome.port), "--allow-attach")
    assert by_port["cdp_url"] == user_chrome.cdp_url
    missing = cli("attach", "--port", str(closed_port), "--allow-attach")
    assert missing.returncode == 3
    assert "--remote-debugging-port=9222" in missing.stderr and "--launch" in missing.stderr


def test_attach_launch_starts_the_user_s_browser(
    cli: Cli,  # noqa: F811
    server: LocalServer,
    tmp_path: Path,
    closed_port: int,
) -> None:
    cli.env.update(attach_env(tmp_path, closed_port))
    profile = Path(cli.env["TABWARDEN_DATA_DIR"]) / "attach-profile"
    done = cli.json("attach", "--launch")
    pid = done["pid"]
    try:
        assert done["launched"] is True and done["profile"] == str(profile)
        args = psutil.Process(pid).cmdline()
        assert [a for a in args if "user-data-dir" in a] == [f"--user-data-dir={profile}"]
        assert "--remote-debugging-port=0" in args
        assert "Test home" in cli.ok("navigate", server.url("/index.html"))
        cli.ok("daemon", "stop")
        assert psutil.Process(pid).is_running(), "the browser stays open"
        again = cli.json("attach", "--launch")
        assert "launched" not in again and again["cdp_url"] == done["cdp_url"]
    finally:
        cli("daemon", "stop")
        kill_browser(pid, profile)
