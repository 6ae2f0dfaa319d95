"""Which browser an attach with no URL goes to: the one found, an error naming several
or saying how to start one, or one launched on tabwarden's own profile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tabwarden.backends.attach_target import AttachTarget, find_attach_target, own_profile_dir
from tabwarden.budget import Budget
from tabwarden.config import AttachConfig
from tabwarden.errors import EndpointError
from tests.conftest import browser_processes
from tests.debug_browser import CHROMIUM, DebugBrowser, chromium_test_flags, debug_browser


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DebugBrowser, DebugBrowser]]:
    root = tmp_path_factory.mktemp("two")
    with debug_browser(root / "a") as first, debug_browser(root / "b") as second:
        yield first, second


def settings(tmp_path: Path, ports: list[int], folders: list[Path] | None = None) -> AttachConfig:
    """Discovery limited to these ports and folders (never the machine's own browsers)."""
    return AttachConfig(
        ports=ports,
        profile_dirs=folders or [],
        executable=CHROMIUM,
        headless=True,
        args=chromium_test_flags(),
        profile_dir=tmp_path / "attach-profile",
    )


@pytest.mark.browser
async def test_one_browser_found_is_the_one(
    two: tuple[DebugBrowser, DebugBrowser], tmp_path: Path, closed_port: int
) -> None:
    first, _ = two
    target = await find_attach_target(settings(tmp_path, [closed_port, first.port]), Budget(10))
    assert target.cdp_url == first.cdp_url and target.found is not None
    assert target.launched is None and not target.consented
    assert target.describe().startswith("found Chrome/")


@pytest.mark.browser
async def test_several_found_is_an_error_listing_them(
    two: tuple[DebugBrowser, DebugBrowser], tmp_path: Path
) -> None:
    first, second = two
    config = settings(tmp_path, [first.port], [second.profile])
    with pytest.raises(EndpointError) as caught:
        await find_attach_target(config, Budget(10))
    message = caught.value.message
    assert message.startswith("2 browsers with remote debugging run on this machine:")
    assert f"on port {first.port} (port {first.port})" in message
    assert f"on port {second.port} (DevToolsActivePort in {second.profile})" in message
    assert message.count("Chrome/") == 2
    hint = caught.value.hint
    assert f"cdp_url='{first.cdp_url}'" in hint and f"port={first.port}" in hint
    # A port picks one of them.
    target = await find_attach_target(config, Budget(10), port=second.port)
    assert target.cdp_url == second.cdp_url


async def test_none_found_says_how_to_start_one(tmp_path: Path, closed_port: int) -> None:
    with pytest.raises(EndpointError) as caught:
        await find_attach_target(settings(tmp_path, [closed_port]), Budget(10))
    assert f"asked port {closed_port} on 127.0.0.1" in caught.value.message
    hint = caught.value.hint
    assert "--remote-debugging-port=9222" in hint and "--user-data-dir=<a separate folder>" in hint
    assert "Chrome 136" in hint and "default profile" in hint
    assert "launch=True" in hint
    with pytest.raises(EndpointError) as caught:
        await find_attach_target(settings(tmp_path, [9222]), Budget(10), port=closed_port)
    assert f"asked port {closed_port} " in caught.value.message


@pytest.mark.browser
async def test_launch_starts_one_on_tabwarden_s_profile_then_finds_it_again(
    tmp_path: Path, closed_port: int
) -> None:
    config = settings(tmp_path, [closed_port])
    own = own_profile_dir(config, None)
    target = await find_attach_target(config, Budget(30), launch=True)
    try:
        assert target.launched is not None and target.consented
        assert target.launched.profile_dir == own
        assert f"--user-data-dir={own}" in target.launched.command
        assert target.cdp_url == target.launched.cdp_url
        assert "launched /usr/bin/chromium" in target.describe()
        # Running now: asked again with launch, it is found on its profile, not launched again.
        again = await find_attach_target(config, Budget(10), launch=True)
        assert again.launched is None and again.consented
        assert again.cdp_url == target.cdp_url
        assert again.found is not None and own in again.found.profile_dirs
        # Without launch, it is a browser like any other: consent is the caller's to get.
        plain = await find_attach_target(config, Budget(10))
        assert plain.cdp_url == target.cdp_url and not plain.consented
    finally:
        if target.launched is not None:
            await target.launched.kill()
    assert browser_processes(f"--user-data-dir={own}") == []


@pytest.mark.browser
async def test_a_launched_browser_is_ended_when_the_attach_fails(
    tmp_path: Path, closed_port: int
) -> None:
    config = settings(tmp_path, [closed_port])
    target = await find_attach_target(config, Budget(30), launch=True)
    assert target.launched is not None
    with pytest.raises(RuntimeError):
        async with target.until_attached():
            raise RuntimeError("the attach failed")
    assert target.launched.process.poll() is not None
    assert browser_processes(f"--user-data-dir={own_profile_dir(config, None)}") == []
    # A found browser is never touched.
    found = AttachTarget("http://127.0.0.1:1")
    with pytest.raises(RuntimeError):
        async with found.until_attached():
            raise RuntimeError("the attach failed")
