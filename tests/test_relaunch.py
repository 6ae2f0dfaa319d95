"""A browser that died between calls is relaunched by the next call, which says so once:
what went away, when, and which tabs were lost."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import TabNotFound, UnknownRef
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

pytestmark = pytest.mark.browser

_TOLD = "and tabwarden relaunched it at"


async def _kill(session: tabwarden.BrowserSession) -> None:
    """Kill the browser the way a crash would, and wait until the session noticed."""
    os.killpg(session.endpoint.pid, signal.SIGKILL)
    budget = Budget(10)
    while session.connected or session.backend.exit_status() is None:
        budget.check("the session noticing its browser is gone")
        await budget.sleep(0.01)


async def test_the_first_snapshot_after_a_relaunch_says_what_was_lost(server):
    async with tabwarden.launch(isolated=True) as session:
        first = await session.new_tab(server.url("/index.html"))
        second = await session.new_tab(server.url("/second.html"))
        await _kill(session)
        with pytest.raises(TabNotFound) as lost:
            session.get_tab(first.id)
        assert f"tab {first.id} was lost when the browser was killed by SIGKILL" in str(lost.value)
        tab = await session.current_tab()  # relaunches
        assert session.launches == 2 and tab.id not in (first.id, second.id)
        header = (await tab.snapshot()).text.splitlines()
        (told,) = [line for line in header if _TOLD in line]
        assert told.startswith("# the browser was killed by SIGKILL at ")
        assert f'{first.id} ({server.url("/index.html")} "Test home")' in told
        assert f'{second.id} ({server.url("/second.html")} "Second page")' in told
        assert "were lost with their pages" in told
        assert _TOLD not in (await tab.snapshot()).text  # told once
        relaunch = session.last_relaunch
        assert relaunch is not None and relaunch.launched
        assert [lost.id for lost in relaunch.loss.tabs] == [first.id, second.id]
        assert session.take_relaunch_notice() is None


async def test_concurrent_first_calls_relaunch_once_and_one_of_them_tells(server):
    config = Config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "relaunch")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/index.html")})
        session = manager.get("relaunch")
        await _kill(session)
        results = await asyncio.gather(
            *(call_tool(ctx, name, {}) for name in ("browser_snapshot", "browser_tabs") * 3)
        )
        assert session.launches == 2
        told = [r for r in results if _TOLD in r.final_text()]
        assert len(told) == 1
        text = told[0].final_text()
        assert "the browser was killed by SIGKILL" in text and "tab t1 (" in text
        if "notice" in told[0].to_dict():  # told by the tool result, not a snapshot header
            assert text.startswith(f"# {told[0].notice}\n")

        # A tool that fails right after a relaunch carries the notice in its error.
        await _kill(session)
        with pytest.raises(UnknownRef) as caught:
            await call_tool(ctx, "browser_click", {"ref": "e1"})
        assert _TOLD in str(caught.value) and "no ref e1" in str(caught.value)
        assert session.launches == 3
        after = await call_tool(ctx, "browser_tabs", {})
        assert _TOLD not in after.final_text() and "notice" not in after.to_dict()
