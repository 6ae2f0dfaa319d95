"""TaskOwner: every background task has an owner that ends it.

A session, its supervisor, a tab's frames and its snapshot walker each start work that
outlives the call that started it (setting up a popup, releasing remote objects,
detaching an evaluation's session). Such a task belongs to one owner: the owner keeps a
reference (so the loop cannot lose it), logs a failure nobody awaited, and at its own end
cancels what is still running and waits for it, so nothing outlives the session that
made it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["TaskOwner"]

T = TypeVar("T")

logger = logging.getLogger("tabwarden.tasks")


class TaskOwner:
    """The tasks one object started: ``spawn`` them here, ``close`` ends them all."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def __len__(self) -> int:
        return len(self._tasks)

    @property
    def closed(self) -> bool:
        return self._closed

    def spawn(self, work: Coroutine[Any, Any, T], name: str | None = None) -> asyncio.Task[T]:
        """Run ``work`` in the background, owned here. After ``close`` it is cancelled at
        once (its owner is gone: nothing may start on its behalf)."""
        task = asyncio.get_running_loop().create_task(work, name=name or f"{self.name} task")
        if self._closed:
            task.cancel()
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def cancel(self) -> None:
        """Cancel everything still running (from a callback that cannot await); ``close``
        waits for it."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()

    async def close(self) -> None:
        """Cancel what still runs and wait until all of it has ended."""
        self.cancel()
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.debug("%s: %s failed: %r", self.name, task.get_name(), task.exception())
