"""One launched Chromium shared by many sessions, each in a browser context of its own
(``browser.isolation: context``).

``SharedBrowsers`` (one per process: ``shared_browsers``) keeps one browser per event
loop and launch settings, launched with a throwaway profile on the first lease, and
hands out leases: a browser context made for the lease (``Target.createBrowserContext``)
over the pool's own connection to that browser. Releasing a lease disposes its context
(``Target.disposeBrowserContext``); the last release ends the browser and removes its
profile. A browser that died is replaced by the next lease, once for all its sessions:
the leases of the dead one are only counted down. The browser process is a
``LocalChromium``'s, so the reaper ends it at exit like any launched browser.

The first load of a page created with a URL starts before any session has attached to
it, so only a browser-wide interceptor can judge it (safety/guard.py). In a shared
browser that is the pool's ``DocumentGate``, once for all its sessions: were each
session's own, Chromium would pause every document request once per session, one
after the other, and each page load would cost a round trip per session (their
policies are the same: sessions share a browser only then).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..budget import Budget
from ..cdp.connection import CDPConnection
from ..cdp.protocol import Event
from ..errors import (
    BrowserLaunchError,
    CDPError,
    ConnectionLost,
    DeadlineExceeded,
    TabwardenError,
)
from ..tasks import TaskOwner
from .base import Endpoint
from .local import LocalChromium, LocalOptions

__all__ = ["ContextLease", "DocumentGate", "SharedBrowser", "SharedBrowsers", "shared_browsers"]

logger = logging.getLogger("tabwarden.backends")

_DISPOSE_S = 5.0
_ANSWER_S = 10.0

DocumentGate = Callable[[str], bool]
"""Whether a document (a page's or a frame's) at this URL may load: the sessions' URL
policy, applied browser-wide by the shared browser itself."""
_DOCUMENTS = {"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}


@dataclass(frozen=True, slots=True)
class _Key:
    """What two sessions' launch settings must share to share a browser."""

    executable: str | None
    headless: bool
    extra_args: tuple[str, ...]
    window_size: tuple[int, int]
    proxy_server: str | None
    proxy_bypass: tuple[str, ...]
    user_agent: str | None
    browser_wide: str
    """The settings each session applies to the whole browser (the URL policy on
    document requests, certificate errors): sessions share a browser only if they agree."""

    @classmethod
    def of(cls, options: LocalOptions, browser_wide: str) -> _Key:
        return cls(
            options.executable,
            options.headless,
            tuple(options.extra_args),
            options.window_size,
            options.proxy_server,
            tuple(options.proxy_bypass),
            options.user_agent,
            browser_wide,
        )


class SharedBrowser:
    """One launched browser and the pool's connection to it (it makes the contexts)."""

    def __init__(self, options: LocalOptions, gate: DocumentGate | None = None) -> None:
        # The shared browser's profile is always a throwaway one: the sessions' data
        # lives in their contexts, which keep nothing on disk.
        self.local = LocalChromium(dataclasses.replace(options, isolated=True))
        self._gate = gate
        self._answers = TaskOwner("shared browser: document gate")
        self.endpoint: Endpoint | None = None
        self.leases = 0
        self.retired = False
        self._connection: CDPConnection | None = None
        self._ended: str | None = None
        """How the process ended, kept once it is retired (its sessions ask later)."""

    @property
    def pid(self) -> int | None:
        return self.local.pid

    def exit_status(self) -> str | None:
        """How the browser process ended, or None while it runs."""
        return self.local.exit_status() if self.local.pid is not None else self._ended

    @property
    def alive(self) -> bool:
        connection = self._connection
        return (
            not self.retired
            and connection is not None
            and not connection.closed
            and self.exit_status() is None
        )

    async def start(self, budget: Budget) -> None:
        self.endpoint = await self.local.start(budget)
        try:
            self._connection = await CDPConnection.connect(self.endpoint.ws_url, budget)
            if self._gate is not None:
                connection = self._connection
                connection.subscribe(
                    "Fetch.requestPaused", lambda event: self._on_paused(connection, event), None
                )
                await connection.send("Fetch.enable", {"patterns": [_DOCUMENTS]}, budget=budget)
        except BaseException:
            await self.retire()
            raise

    async def create_context(self, budget: Budget) -> str:
        """A new browser context (its own cookies, storage, cache, permissions)."""
        connection = self._require_connection()
        reply = await connection.send("Target.createBrowserContext", budget=budget)
        return str(reply["browserContextId"])

    async def dispose_context(self, context_id: str, budget: Budget) -> None:
        """Dispose a context: its pages close, its data is dropped."""
        if not self.alive:
            return
        with contextlib.suppress(CDPError, ConnectionLost, DeadlineExceeded):
            await self._require_connection().send(
                "Target.disposeBrowserContext", {"browserContextId": context_id}, budget=budget
            )

    def _on_paused(self, connection: CDPConnection, event: Event) -> None:
        """On the reader: judge the document, answer on an owned task."""
        assert self._gate is not None
        request_id = event.params.get("requestId")
        if not request_id:
            return
        url = str(event.params.get("request", {}).get("url", ""))
        answer: tuple[str, dict[str, Any]] = (
            ("Fetch.continueRequest", {"requestId": request_id})
            if self._gate(url)
            else ("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})
        )
        self._answers.spawn(_answer(connection, *answer), name=f"gate {request_id}")

    async def retire(self) -> None:
        """End the browser (whatever state it is in) and remove its profile."""
        self.retired = True
        self._answers.cancel()
        if self.local.pid is not None:
            self._ended = self.local.exit_status() or "was ended by tabwarden"
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()
        await self.local.close()

    def _require_connection(self) -> CDPConnection:
        if self._connection is None or self._connection.closed:
            raise BrowserLaunchError(
                "the shared browser is not running",
                hint="retry: the next call launches it again",
            )
        return self._connection


@dataclass(frozen=True, slots=True)
class ContextLease:
    """A session's browser context in a shared browser."""

    browser: SharedBrowser
    context_id: str
    endpoint: Endpoint


@dataclass
class _LoopBrowsers:
    """The shared browsers of one event loop (a connection serves the loop it was made on)."""

    browsers: dict[_Key, SharedBrowser] = field(default_factory=dict)
    locks: dict[_Key, asyncio.Lock] = field(default_factory=dict)


class SharedBrowsers:
    """The shared browsers of this process, by event loop and launch settings."""

    def __init__(self) -> None:
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopBrowsers] = (
            weakref.WeakKeyDictionary()
        )
        self.launches = 0
        """How many shared browsers were launched (replacements of dead ones included)."""

    def running(self) -> list[SharedBrowser]:
        """The shared browsers in use now (of every event loop)."""
        return [
            b
            for loop in list(self._loops.values())
            for b in loop.browsers.values()
            if not b.retired
        ]

    async def lease(
        self,
        options: LocalOptions,
        budget: Budget,
        *,
        browser_wide: str = "",
        gate: DocumentGate | None = None,
    ) -> ContextLease:
        """A new context in the browser these settings share (launched, or replaced when
        it died, first). ``browser_wide``: the browser-wide settings the session applies,
        as text; only sessions with the same text share a browser. ``gate``: the URL
        policy on documents, which those settings include, applied by the browser's
        launcher (the first lease's; the others' are the same)."""
        mine = self._loops.setdefault(asyncio.get_running_loop(), _LoopBrowsers())
        key = _Key.of(options, browser_wide)
        async with mine.locks.setdefault(key, asyncio.Lock()):
            shared = mine.browsers.get(key)
            if shared is not None and not shared.alive:
                logger.warning(
                    "the shared browser (pid %s) went away; launching another", shared.pid
                )
                del mine.browsers[key]
                await shared.retire()
                shared = None
            if shared is None:
                shared = SharedBrowser(options, gate)
                await shared.start(budget)
                self.launches += 1
                mine.browsers[key] = shared
            try:
                context_id = await shared.create_context(budget)
            except BaseException:
                if shared.leases == 0:
                    del mine.browsers[key]
                    await shared.retire()
                raise
            shared.leases += 1
            assert shared.endpoint is not None
            return ContextLease(shared, context_id, shared.endpoint)

    async def release(self, lease: ContextLease) -> None:
        """Dispose the lease's context; the browser's last lease ends the browser."""
        shared = lease.browser
        mine = self._loops.setdefault(asyncio.get_running_loop(), _LoopBrowsers())
        key = next((k for k, b in mine.browsers.items() if b is shared), None)
        lock = mine.locks.get(key) if key is not None else None
        async with lock or contextlib.nullcontext():
            shared.leases -= 1
            await shared.dispose_context(lease.context_id, Budget(_DISPOSE_S))
            if shared.leases > 0:
                return
            if key is not None and mine.browsers.get(key) is shared:
                del mine.browsers[key]
            await shared.retire()


async def _answer(connection: CDPConnection, method: str, params: dict[str, Any]) -> None:
    with contextlib.suppress(TabwardenError):  # the page or the browser went away meanwhile
        await connection.send(method, params, budget=Budget(_ANSWER_S))


shared_browsers = SharedBrowsers()
"""The process's shared browsers."""
