"""Budget: the deadline and cancellation of one call, passed down to every CDP command.

A Budget is created at the edge of a call (a tool call, an API method) and handed
explicitly to everything below it. Nothing in tabwarden waits without one.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .errors import Cancelled, DeadlineExceeded, InvalidArgument

__all__ = ["Budget"]

T = TypeVar("T")


class Budget:
    """A deadline on the monotonic clock plus a cancellation flag.

    ``child(max_s)`` gives a budget that ends at the earlier of the parent's
    deadline and ``max_s`` from now; cancelling a parent cancels its children.
    ``cancel()`` is safe to call from any thread.
    """

    __slots__ = (
        "__weakref__",
        "_callbacks",
        "_cancel_reason",
        "_children",
        "_lock",
        "deadline",
        "started_at",
        "timeout_s",
    )

    def __init__(self, timeout_s: float, *, _parent: Budget | None = None) -> None:
        _check_seconds(timeout_s, "timeout_s")
        self.started_at = time.monotonic()
        self.timeout_s = float(timeout_s)
        self.deadline = self.started_at + self.timeout_s
        self._lock = threading.Lock()
        self._cancel_reason: str | None = None
        self._callbacks: list[Callable[[], None]] = []
        self._children: weakref.WeakSet[Budget] = weakref.WeakSet()
        if _parent is not None:
            _parent._adopt(self)

    @classmethod
    def from_ms(cls, timeout_ms: float) -> Budget:
        _check_seconds(timeout_ms, "timeout_ms")
        return cls(timeout_ms / 1000.0)

    # ---- reading -------------------------------------------------------------------

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.deadline - time.monotonic())

    def elapsed(self) -> float:
        return time.monotonic() - self.started_at

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    @property
    def cancelled(self) -> bool:
        return self._cancel_reason is not None

    @property
    def cancel_reason(self) -> str | None:
        return self._cancel_reason

    def __repr__(self) -> str:
        state = "cancelled" if self.cancelled else f"{self.remaining():.3f}s left"
        return f"Budget({self.timeout_s:.3f}s, {state})"

    # ---- deriving ------------------------------------------------------------------

    def child(self, max_s: float | None = None) -> Budget:
        """A budget ending at the earlier of this one's deadline and ``max_s`` from now."""
        left = self.remaining()
        if max_s is not None:
            _check_seconds(max_s, "max_s")
            left = min(left, max_s)
        return Budget(left, _parent=self)

    # ---- cancelling ----------------------------------------------------------------

    def cancel(self, reason: str = "cancelled by the caller") -> None:
        with self._lock:
            if self._cancel_reason is not None:
                return
            self._cancel_reason = reason
            callbacks, self._callbacks = self._callbacks, []
            children = list(self._children)
        for callback in callbacks:
            callback()
        for child in children:
            child.cancel(reason)

    def check(self, what: str = "call") -> None:
        """Raise if the budget is cancelled or spent."""
        if self._cancel_reason is not None:
            raise Cancelled(f"{what} was aborted: {self._cancel_reason}")
        if self.expired:
            raise DeadlineExceeded(f"{what} ran out of its {self.timeout_s * 1000:.0f} ms budget")

    async def run(
        self,
        awaitable: Awaitable[T],
        *,
        what: str = "call",
        on_timeout: Callable[[], BaseException] | None = None,
    ) -> T:
        """Await ``awaitable`` within this budget.

        On expiry the wait is cancelled and ``on_timeout()`` (default: a
        DeadlineExceeded naming ``what``) is raised; on ``cancel()`` it is
        cancelled and :class:`Cancelled` is raised. The awaitable runs in the
        calling task (no extra task per call: this sits under every CDP command).
        """
        if self._cancel_reason is not None:
            _discard(awaitable)
            raise Cancelled(f"{what} was aborted: {self._cancel_reason}")
        task = asyncio.current_task()
        assert task is not None, "Budget.run must be awaited inside a task"
        loop = asyncio.get_running_loop()
        state = {"waiting": True, "cancelled_here": False}

        def cancel_in_loop() -> None:
            # Runs on the loop thread; the wait may have ended meanwhile.
            if state["waiting"]:
                state["cancelled_here"] = True
                task.cancel()

        def cancel_task() -> None:
            loop.call_soon_threadsafe(cancel_in_loop)

        registered = self._on_cancel(cancel_task)
        scope = asyncio.timeout(self.remaining())
        try:
            async with scope:
                return await awaitable
        except TimeoutError:
            if not scope.expired():
                raise  # a deeper budget's timeout: not ours to rename
            if on_timeout is not None:
                raise on_timeout() from None
            raise DeadlineExceeded(
                f"{what} did not finish within {self.timeout_s * 1000:.0f} ms"
            ) from None
        except asyncio.CancelledError:
            if state["cancelled_here"]:
                task.uncancel()
                raise Cancelled(f"{what} was aborted: {self._cancel_reason}") from None
            raise
        finally:
            state["waiting"] = False
            if registered:
                self._remove_callback(cancel_task)

    async def sleep(self, seconds: float) -> None:
        """Sleep at most ``seconds`` and never past the deadline (for polling loops)."""
        await asyncio.sleep(min(seconds, self.remaining()))

    # ---- private -------------------------------------------------------------------

    def _adopt(self, child: Budget) -> None:
        with self._lock:
            if self._cancel_reason is None:
                self._children.add(child)
                return
            reason = self._cancel_reason
        child.cancel(reason)

    def _on_cancel(self, callback: Callable[[], None]) -> bool:
        with self._lock:
            if self._cancel_reason is None:
                self._callbacks.append(callback)
                return True
        callback()
        return False

    def _remove_callback(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


def _discard(awaitable: Awaitable[object]) -> None:
    """Dispose of an awaitable that will never be awaited (no 'never awaited' warning)."""
    if asyncio.iscoroutine(awaitable):
        awaitable.close()
    elif isinstance(awaitable, asyncio.Future):
        awaitable.cancel()


def _check_seconds(value: float, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"{name} must be a number, got {value!r}")
    if math.isnan(value) or math.isinf(value):
        raise InvalidArgument(f"{name} must be a finite number, got {value!r}")
    if value < 0:
        raise InvalidArgument(f"{name} must not be negative, got {value!r}")
