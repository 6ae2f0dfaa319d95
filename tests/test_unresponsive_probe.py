"""The browser probe of unresponsive.py is asked ahead of a call's deadline, so a call
that runs out of time says why at its deadline, not a probe later (a stand-in for the
session's services times the browser's answer; the real browser is in
test_unresponsive.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any

from tabwarden.budget import Budget
from tabwarden.errors import CDPTimeout
from tabwarden.unresponsive import BrowserProbe


class _Connection:
    def __init__(self, answer_after_s: float | None) -> None:
        self.answer_after_s = answer_after_s
        self.asked_at: list[float] = []

    async def send(self, method: str, params: Any = None, *, budget: Budget) -> dict[str, Any]:
        assert method == "Browser.getVersion"
        self.asked_at.append(time.monotonic())
        if self.answer_after_s is None or self.answer_after_s > budget.remaining():
            await budget.sleep(budget.remaining())  # a browser that answers nothing
            raise CDPTimeout(method, budget.timeout_s * 1000)
        await budget.sleep(self.answer_after_s)
        return {}


class _Services:
    """What the probe uses of SessionServices."""

    connected = True

    def __init__(self, connection: _Connection) -> None:
        self.connection = connection
        self.tasks: list[asyncio.Task[Any]] = []

    def spawn(self, work: Coroutine[Any, Any, Any], name: str | None = None) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.tasks.append(task)
        return task


async def _run_out(budget: Budget) -> None:
    """The call's work: it takes all of its time."""
    await budget.sleep(budget.remaining())


async def test_the_browser_is_asked_before_the_deadline_and_its_answer_is_ready_at_it() -> None:
    connection = _Connection(answer_after_s=0.2)
    budget = Budget(0.8)
    probe = BrowserProbe(_Services(connection), budget)  # type: ignore[arg-type]
    await _run_out(budget)
    at_deadline = time.monotonic()
    assert await probe.answers()
    assert time.monotonic() - at_deadline < 0.15
    (asked,) = connection.asked_at
    assert asked <= budget.deadline - 0.3  # half the call's time before its end
    probe.close()


async def test_a_call_that_ends_in_time_never_asks() -> None:
    connection = _Connection(answer_after_s=0.0)
    services = _Services(connection)
    probe = BrowserProbe(services, Budget(0.3))  # type: ignore[arg-type]
    probe.close()
    await Budget(0.5).sleep(0.5)  # past the moment the probe would have gone out
    assert connection.asked_at == [] and services.tasks == []


async def test_a_silent_browser_is_known_within_the_probe_s_own_second() -> None:
    connection = _Connection(answer_after_s=None)
    budget = Budget(0.8)
    probe = BrowserProbe(_Services(connection), budget)  # type: ignore[arg-type]
    await _run_out(budget)
    at_deadline = time.monotonic()
    assert not await probe.answers()
    # Asked 0.4 s ahead with a second to answer: known 0.6 s after the deadline, not 1 s.
    assert time.monotonic() - at_deadline < 0.85
    probe.close()
