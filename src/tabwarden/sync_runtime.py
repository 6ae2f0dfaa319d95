"""What the generated sync API (``sync.py``) runs on: one event-loop thread and the facades.

A facade wraps one async object; its blocking methods run the async object's coroutines
on the loop thread, and whatever async object they return comes back wrapped too.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, Generic, TypeVar

from .backends.reaper import reaper

__all__ = [
    "Facade",
    "adopt",
    "awaited",
    "run",
    "untyped",
    "unwrap",
    "unwrap_optional",
    "wrap",
    "wrap_list",
    "wrap_optional",
]

T = TypeVar("T")
AsyncT = TypeVar("AsyncT")
FacadeT = TypeVar("FacadeT", bound="Facade[Any]")


class _LoopThread:
    """One event loop on a daemon thread, started on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                ready = threading.Event()
                loop = asyncio.new_event_loop()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                threading.Thread(target=serve, name="tabwarden-loop", daemon=True).start()
                ready.wait()
                self._loop = loop
            return self._loop


_loop_thread = _LoopThread()


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on tabwarden's loop thread and wait for it.

    Ctrl-C cancels the coroutine before it propagates.
    """
    if threading.current_thread() is threading.main_thread():
        reaper.install_signal_handlers()
    future = asyncio.run_coroutine_threadsafe(coroutine, _loop_thread.loop())
    try:
        return future.result()
    except KeyboardInterrupt:
        future.cancel()
        with contextlib.suppress(BaseException):
            future.result(timeout=5)
        raise


async def awaited(awaitable: Awaitable[T]) -> T:
    """A coroutine for any awaitable (``run`` takes coroutines only)."""
    return await awaitable


class Facade(Generic[AsyncT]):
    """Base of the sync classes: one async object, compared by identity."""

    _async: AsyncT

    def __repr__(self) -> str:
        return f"sync {self._async!r}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Facade) and other._async is self._async

    def __hash__(self) -> int:
        return hash(self._async)


def adopt(facade: Facade[AsyncT], async_object: AsyncT) -> None:
    """Make ``facade`` the sync face of ``async_object`` (its constructor calls this)."""
    facade._async = async_object


def untyped(function: Callable[..., T]) -> Callable[..., Any]:
    """``function`` as a plain callable: an overloaded async entry point called from its
    twin's implementation, whose own overloads carry the types a caller sees."""
    return function


def wrap(facade_type: type[FacadeT], async_object: object) -> FacadeT:
    """The sync face of an async object the async API returned."""
    facade = object.__new__(facade_type)
    adopt(facade, async_object)
    return facade


def wrap_optional(facade_type: type[FacadeT], async_object: object | None) -> FacadeT | None:
    return None if async_object is None else wrap(facade_type, async_object)


def wrap_list(facade_type: type[FacadeT], async_objects: Iterable[object]) -> list[FacadeT]:
    return [wrap(facade_type, item) for item in async_objects]


def unwrap(facade: Facade[AsyncT]) -> AsyncT:
    """The async object behind a facade (what the async API takes)."""
    return facade._async


def unwrap_optional(facade: Facade[AsyncT] | None) -> AsyncT | None:
    return None if facade is None else facade._async
