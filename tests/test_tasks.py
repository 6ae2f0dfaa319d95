"""TaskOwner: spawned work is kept, ended by close, and refused once the owner is gone."""

from __future__ import annotations

import asyncio

from tabwarden.tasks import TaskOwner


async def test_close_cancels_and_waits_for_what_still_runs() -> None:
    owner = TaskOwner("test")
    started = asyncio.Event()
    ended: list[str] = []

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            ended.append("cleaned up")

    task = owner.spawn(forever(), name="forever")
    await asyncio.wait_for(started.wait(), 5)
    assert len(owner) == 1
    await asyncio.wait_for(owner.close(), 5)
    assert task.cancelled()
    assert ended == ["cleaned up"]  # close returned only after the task's own clean-up
    assert len(owner) == 0


async def test_finished_tasks_are_let_go_and_a_failure_is_not_left_unretrieved() -> None:
    owner = TaskOwner("test")

    async def fail() -> None:
        raise RuntimeError("boom")

    task = owner.spawn(fail())
    await asyncio.wait({task}, timeout=5)
    assert len(owner) == 0
    assert isinstance(task.exception(), RuntimeError)


async def test_work_spawned_after_close_never_runs() -> None:
    owner = TaskOwner("test")
    await owner.close()
    ran: list[bool] = []

    async def work() -> None:
        ran.append(True)

    task = owner.spawn(work())
    await asyncio.wait({task}, timeout=5)
    assert task.cancelled()
    assert ran == []
