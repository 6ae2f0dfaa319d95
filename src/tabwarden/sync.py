"""The synchronous API: the same names as the async API, run on a background event loop.

::

    with tabwarden.sync.launch(isolated=True) as browser:
        tab = browser.new_tab("http://localhost:8000/")
        print(tab.title)

Nothing here is written twice: each class is derived from its async twin (every
public coroutine becomes a blocking method, properties read through), and all
calls run on one event-loop thread that lives as long as the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from . import api
from .backends.reaper import reaper
from .manager import SessionManager as AsyncSessionManager
from .session import BrowserSession as AsyncBrowserSession
from .tab import Tab as AsyncTab

__all__ = ["BrowserSession", "SessionManager", "Tab", "attach", "launch", "run"]

T = TypeVar("T")


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


class _Facade:
    """Base of the derived sync classes; wraps one async object."""

    _async_type: type = object

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Wrap an async object, or build one from the async class's arguments.
        if len(args) == 1 and not kwargs and isinstance(args[0], self._async_type):
            wrapped = args[0]
        else:
            wrapped = self._async_type(*args, **kwargs)
        object.__setattr__(self, "_async", wrapped)

    def __getattr__(self, name: str) -> Any:
        # Plain attributes (id, name, config…) read through.
        return _wrap(getattr(self._async, name))

    def __repr__(self) -> str:
        return f"sync {self._async!r}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Facade) and other._async is self._async

    def __hash__(self) -> int:
        return hash(self._async)


_FACADES: dict[type, type[_Facade]] = {}


def _wrap(value: Any) -> Any:
    facade = _FACADES.get(type(value))
    if facade is not None:
        return facade(value)
    if isinstance(value, list):
        return [_wrap(item) for item in value]
    return value


def _blocking(name: str, coroutine_function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(coroutine_function)
    def method(self: _Facade, *args: Any, **kwargs: Any) -> Any:
        return _wrap(run(getattr(self._async, name)(*args, **kwargs)))

    return method


def _passthrough(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def method(self: _Facade, *args: Any, **kwargs: Any) -> Any:
        return _wrap(getattr(self._async, name)(*args, **kwargs))

    return method


def _reader(name: str, prop: property) -> property:
    return property(lambda self: _wrap(getattr(self._async, name)), doc=prop.__doc__)


def _derive(async_type: type, closer: str | None = None) -> type[_Facade]:
    """Build the sync twin of an async class from its public members."""
    namespace: dict[str, Any] = {"_async_type": async_type, "__doc__": async_type.__doc__}
    for name, member in inspect.getmembers(async_type):
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            namespace[name] = _reader(name, member)
        elif inspect.iscoroutinefunction(member):
            namespace[name] = _blocking(name, member)
        elif inspect.isfunction(member):
            namespace[name] = _passthrough(name, member)
    if closer is not None:
        namespace["__enter__"] = lambda self: self
        namespace["__exit__"] = lambda self, *exc: getattr(self, closer)()
    facade = type(async_type.__name__, (_Facade,), namespace)
    facade.__module__ = __name__
    _FACADES[async_type] = facade
    return facade


Tab = _derive(AsyncTab)
BrowserSession = _derive(AsyncBrowserSession, closer="close")
SessionManager = _derive(AsyncSessionManager, closer="close_all")


def _entry(start: Callable[..., api.SessionStart], doc: str) -> Callable[..., Any]:
    """The sync twin of ``launch``/``attach``: same parameters, returns the started session."""

    def entry(*args: Any, **kwargs: Any) -> Any:
        return _wrap(run(start(*args, **kwargs)._start()))

    entry.__name__ = entry.__qualname__ = start.__name__
    entry.__doc__ = doc
    entry.__signature__ = inspect.signature(start).replace(  # type: ignore[attr-defined]
        return_annotation="BrowserSession"
    )
    return entry


launch = _entry(
    api.launch,
    "Launch a local Chromium; returns its started session (use it with ``with``).\n\n"
    + (api.launch.__doc__ or ""),
)
attach = _entry(
    api.attach,
    "Attach to a running browser by its CDP endpoint; returns the started session.\n\n"
    + (api.attach.__doc__ or ""),
)
