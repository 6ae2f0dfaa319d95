"""Calls on a tab that end at once when its page can no longer answer them.

A dialog that waits for an answer pauses the page's script, and a crashed
renderer never answers again: either way, whatever a call on that tab waits for
will not come before its deadline. Every call on a tab runs inside a
:class:`PageCall` (``BrowserSession._operation`` enters it). The tab's event
handlers, which never await, interrupt its running calls: the call's task is
cancelled, and leaving the scope turns that cancellation into the error the
interrupt carries (``DialogBlocking``, ``TabCrashed``), the way
``asyncio.timeout`` turns its own into ``TimeoutError``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import TracebackType
from typing import Literal

from .errors import TabwardenError

__all__ = ["OnDialog", "PageCall", "PageCalls"]

OnDialog = Literal["fail", "end", "go_on"]
"""What a dialog does to a call: ``fail`` — a pending one refuses it and one that opens
ends it; ``end`` — one that opens ends it; ``go_on`` — the call reports dialogs itself
(navigation results, receipts, snapshot headers) or does not need the page's script."""


class PageCall:
    """One running call on a tab (a scope around its body, entered in its task)."""

    __slots__ = ("_cancelling", "_error", "_running", "_task", "on_dialog")

    def __init__(self, running: list[PageCall], on_dialog: OnDialog) -> None:
        task = asyncio.current_task()
        assert task is not None, "a page call runs inside a task"
        self.on_dialog: OnDialog = on_dialog
        self._task = task
        self._running = running
        self._cancelling = 0
        self._error: TabwardenError | None = None

    def __enter__(self) -> PageCall:
        self._cancelling = self._task.cancelling()
        self._running.append(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._running.remove(self)
        if self._error is None:
            return
        # Only a cancellation this call asked for becomes its error; one requested
        # from outside as well (the caller went away) stays a cancellation.
        if self._task.uncancel() <= self._cancelling and isinstance(exc, asyncio.CancelledError):
            raise self._error from None

    def interrupt(self, error: TabwardenError) -> None:
        """End the call with ``error`` (the first interrupt wins), unless it has ended
        already. Never awaits."""
        if self._error is None and self in self._running and not self._task.done():
            self._error = error
            self._task.cancel()


class PageCalls:
    """The calls running on one tab."""

    def __init__(self) -> None:
        self._running: list[PageCall] = []

    def enter(self, on_dialog: OnDialog) -> PageCall:
        """A scope for the call running in the current task (use it with ``with``)."""
        return PageCall(self._running, on_dialog)

    def dialog_opened(self, error: Callable[[], TabwardenError]) -> None:
        """A dialog that waits for an answer opened: end the calls it stops."""
        self._interrupt([c for c in self._running if c.on_dialog != "go_on"], error)

    def crashed(self, error: Callable[[], TabwardenError]) -> None:
        """The page's renderer crashed: end every running call."""
        self._interrupt(list(self._running), error)

    def _interrupt(self, calls: list[PageCall], error: Callable[[], TabwardenError]) -> None:
        # Next in the loop's queue, after the tasks that replies read before this event
        # woke: a call whose answer came before the dialog (or the crash) keeps it.
        def interrupt() -> None:
            for call in calls:
                call.interrupt(error())

        if calls:
            asyncio.get_running_loop().call_soon(interrupt)
