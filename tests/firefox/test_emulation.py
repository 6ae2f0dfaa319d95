"""Emulation on Firefox: what BiDi cannot apply is refused whole, never half done."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.diagnostics.emulation_state import EmulationState
from tabwarden.errors import EngineUnsupported
from tabwarden.firefox.emulation import UNSUPPORTED, refused
from tabwarden.firefox.session import FirefoxSession

_SEEN = "[innerWidth, innerHeight, navigator.userAgent]"


def test_each_setting_firefox_cannot_apply_is_named():
    assert refused(EmulationState()) == []
    assert refused(EmulationState(width=10, offline=True, timezone="UTC")) == []
    state = EmulationState(mobile=True, color_scheme="dark", cpu_throttling=4, network="4g")
    assert refused(state) == ["mobile", "color_scheme", "network", "cpu_throttling"]
    assert set(UNSUPPORTED) <= set(EmulationState.__dataclass_fields__)


@pytest.fixture(scope="module")
async def firefox() -> AsyncIterator[FirefoxSession]:
    async with tabwarden.launch(isolated=True, engine="firefox") as session:
        yield session


@pytest.mark.browser
async def test_an_unsupported_setting_refuses_the_whole_change(firefox, server):
    tab = firefox.active_tab
    await tab.navigate(server.url("/state_emulation.html"))
    before = (await tab.evaluate(_SEEN)).value
    with pytest.raises(EngineUnsupported) as caught:
        await firefox.emulate(width=400, height=300, user_agent="Half/1", color_scheme="dark")
    assert "color_scheme" in str(caught.value) and "media feature" in caught.value.hint
    with pytest.raises(EngineUnsupported) as preset:
        await firefox.emulate("pixel-8")
    assert "device='pixel-8'" in str(preset.value) and "mobile" in str(preset.value)
    assert firefox.emulation_state().is_default
    await tab.navigate(server.url("/state_emulation.html"))
    assert (await tab.evaluate(_SEEN)).value == before


@pytest.mark.browser
async def test_a_desktop_preset_then_one_side_then_reset_set_the_viewport(firefox, server):
    tab = firefox.active_tab
    await tab.navigate(server.url("/state_emulation.html"))
    try:
        result = await firefox.emulate("desktop-1080p")
        assert result.state.device == "desktop-1080p" and "device: desktop-1080p" in result.text
        assert (await tab.evaluate(_SEEN)).value[:2] == [1920, 1080]
        same = await firefox.emulate()
        assert same.state == result.state
        narrower = await firefox.emulate(width=800)
        assert narrower.state.height == 1080
        assert (await tab.evaluate(_SEEN)).value[:2] == [800, 1080]
    finally:
        reset = await firefox.emulate(reset=True)
    assert reset.state.is_default and "no emulation" in reset.text
    width, height = firefox.backend.viewport
    assert (await tab.evaluate(_SEEN)).value[:2] == [width, height]


@pytest.mark.browser
async def test_a_popup_starts_emulated_and_reset_withdraws_the_geolocation_grant(firefox, server):
    tab = firefox.active_tab
    await tab.navigate(server.url("/state_emulation.html"))
    permission = "navigator.permissions.query({name: 'geolocation'}).then(p => p.state)"
    assert (await tab.evaluate(permission)).value == "prompt"
    try:
        await firefox.emulate(width=480, height=360, timezone="Asia/Tokyo", latitude=1, longitude=2)
        assert (await tab.evaluate(permission)).value == "granted"
        await tab.evaluate("window.open(location.href, '_blank', 'popup'); 1")
        budget = Budget(10)
        while len(firefox.tabs) < 2 or firefox.tabs[-1].url == "about:blank":
            budget.check("waiting for the popup")
            await budget.sleep(0.05)
        popup = firefox.tabs[-1]
        seen = "[innerWidth, innerHeight, Intl.DateTimeFormat().resolvedOptions().timeZone]"
        assert (await popup.evaluate(seen)).value == [480, 360, "Asia/Tokyo"]
        await popup.close()
    finally:
        await firefox.emulate(reset=True)
    assert (await tab.evaluate(permission)).value == "prompt"


@pytest.mark.browser
async def test_a_relaunched_firefox_keeps_the_sessions_emulation(server):
    seen = "[Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.userAgent, innerWidth]"
    async with tabwarden.launch(isolated=True, engine="firefox") as session:
        tab = await session.new_tab(server.url("/engines.html"))
        await session.emulate(timezone="Asia/Tokyo", user_agent="Kept/1.0", width=640, height=480)
        assert (await tab.evaluate(seen)).value == ["Asia/Tokyo", "Kept/1.0", 640]
        os.killpg(session.backend.pid, signal.SIGKILL)
        budget = Budget(10)
        while not session.browser_lost:
            assert not budget.expired, "the browser's end was not seen"
            await budget.sleep(0.02)
        fresh = await session.new_tab(server.url("/engines.html"))  # relaunches Firefox
        assert session.take_relaunch_notice() is not None
        assert (await fresh.evaluate(seen)).value == ["Asia/Tokyo", "Kept/1.0", 640]
        assert session.emulation_state().timezone == "Asia/Tokyo"
