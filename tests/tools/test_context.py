"""ToolContext: a session the idle reaper closed is told to the next call, once."""

from __future__ import annotations

import pytest

import tabwarden
from tabwarden.config import Config
from tabwarden.errors import SessionClosed, SessionReaped
from tabwarden.tools.context import ToolContext

pytestmark = pytest.mark.browser


def _config() -> Config:
    config = Config()
    config.browser.isolated = True
    config.browser.inactivity_timeout_s = 3600  # reaped below by hand, not by the clock
    return config


async def _reap(manager: tabwarden.SessionManager, name: str) -> None:
    manager.get(name).last_used -= 7200
    assert await manager.reap_idle() == [name]


async def test_a_reaped_session_is_told_once_then_a_new_one_starts() -> None:
    async with tabwarden.SessionManager(_config()) as manager:
        ctx = ToolContext(manager, "task")
        other = ToolContext(manager, "task")  # a second user of the same session
        first = await ctx.session()
        assert await other.session() is first
        await _reap(manager, "task")

        with pytest.raises(SessionReaped) as told:
            await ctx.session()
        assert isinstance(told.value, SessionClosed)
        assert "session task was closed after 7200 s without a call" in told.value.message
        assert "browser.inactivity_timeout_s" in told.value.message
        assert "refs are gone" in told.value.message and "new snapshot" in told.value.hint
        assert manager.names() == []  # the told call started nothing

        second = await ctx.session()
        assert second is not first and not second.closed
        # Each user of the old session is told, even once a new one runs.
        with pytest.raises(SessionReaped):
            await other.session()
        assert await other.session() is second


async def test_a_session_closed_on_purpose_is_not_told() -> None:
    async with tabwarden.SessionManager(_config()) as manager:
        ctx = ToolContext(manager, "task")
        first = await ctx.session()
        await ctx.close()
        second = await ctx.session()  # no SessionReaped: the caller closed it
        assert second is not first
        # Nor is a session closed otherwise than by the reaper (here by the manager).
        await manager.close("task")
        assert (await ctx.session()) is not second
