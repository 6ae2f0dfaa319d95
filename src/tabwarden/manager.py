"""SessionManager: several named browser sessions in one process, each isolated.

One session per agent task; each has its own browser process and profile. An
idle session is closed after ``browser.inactivity_timeout_s`` by a background
reaper, and every session is closed when the manager closes. At most
``browser.max_sessions`` are open (or starting) at once: one more fails at once with
SessionLimitReached rather than waiting for a slot, since a wait would spend the caller's
budget without telling it anything, and only the caller knows whether to retry, close a
session of its own or give up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from .backends.base import Backend
from .backends.choice import backend_for
from .backends.external import AttachRequest, CDPEndpoint, ConsentCheck
from .budget import Budget
from .config import Config, load_config
from .counting import counted
from .errors import InvalidArgument, SessionClosed, SessionLimitReached, SessionNotFound
from .firefox.session import FirefoxSession
from .firefox.start import firefox_session
from .session import BrowserSession

__all__ = ["Reaped", "SessionManager"]

logger = logging.getLogger("tabwarden.manager")

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_REAP_INTERVAL_MAX_S = 30.0
_REAP_RECORDS_KEPT = 256

BackendFactory = Callable[[str, Config], Backend]

AskPerson = Callable[[AttachRequest, Budget], Awaitable[bool | None]]
"""Shows a person an attach request and returns their answer: True (allow), False
(deny), or None when nobody answered within the budget (or nobody watches)."""


@dataclass(frozen=True)
class Reaped:
    """A session the idle reaper closed: when, and after how long without a call."""

    name: str
    idle_s: float
    timeout_s: float
    at: float
    """Wall-clock time (``time.time()``) it was closed."""
    session: weakref.ref[BrowserSession | FirefoxSession] = field(repr=False, compare=False)
    """The closed session itself, while anyone holds it (to tell it from a later one of
    the same name)."""

    def describe(self) -> str:
        return (
            f"session {self.name} was closed after {self.idle_s:.0f} s without a call "
            f"(browser.inactivity_timeout_s is {self.timeout_s:g} s); its browser, tabs and "
            "refs are gone"
        )


class SessionManager:
    """Named sessions with idle cleanup. Use as ``async with SessionManager() as manager``."""

    def __init__(
        self, config: Config | None = None, *, backend_factory: BackendFactory | None = None
    ) -> None:
        self.config = config or load_config()
        self._backend_factory = backend_factory or _default_backend
        self._sessions: dict[str, BrowserSession] = {}
        self._firefox: dict[str, FirefoxSession] = {}
        """Sessions of the Firefox engine (``browser.engine: firefox``), by name."""
        self._creating: dict[str, asyncio.Lock] = {}
        self._starting: set[str] = set()
        """Sessions whose browser is starting: they count toward ``browser.max_sessions``."""
        self._reap_records: dict[str, Reaped] = {}
        self._reaper: asyncio.Task[None] | None = None
        self._reaping: set[asyncio.Task[None]] = set()
        """Closes the reaper started: they finish even when the manager closes meanwhile
        (a browser half closed would stay running, a cloud browser unreleased)."""
        self._closed = False
        self.reaped: list[str] = []
        """Names of sessions closed for inactivity, oldest first (for logs and tests)."""
        self.ask_person: AskPerson | None = None
        """Where an attach request without consent is shown to a person (the workbench
        sets it); None: it is refused at once with what the browser holds."""
        self.on_change: list[Callable[[], None]] = []
        """Told when a session starts or closes (the workbench's session list)."""

    async def __aenter__(self) -> SessionManager:
        self._start_reaper()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close_all()

    # ---- sessions ------------------------------------------------------------------

    async def get_or_create(
        self,
        name: str = "default",
        *,
        isolated: bool | None = None,
        cdp_url: str | None = None,
        consent: ConsentCheck | None = None,
        dialog_bridge: bool = False,
        timeout_ms: float | None = None,
    ) -> BrowserSession:
        """The live session called ``name``, started now if it does not exist (idempotent)."""
        async with self._starting_lock(name):
            session = self._sessions.get(name)
            if session is not None and not session.closed:
                if _same_endpoint(session, cdp_url):
                    return session
                # Another endpoint for the same task: never reuse state across browsers.
                logger.info("session %r moves to %s: closing the old one", name, cdp_url)
                del self._sessions[name]
                await session.close()
            self._check_limit(name)
            config = self.config.model_copy(deep=True)
            if isolated is not None:
                config.browser.isolated = isolated
            if consent is None:
                consent = config.safety.allow_attach  # the user's standing consent, if given
            backend = (
                CDPEndpoint(cdp_url, consent=consent, needs_dialog_bridge=dialog_bridge)
                if cdp_url
                else self._backend_factory(name, config)
            )
            session = BrowserSession(backend, name=name, config=config)
            self._starting.add(name)
            try:
                await session.start(timeout_ms=timeout_ms)
            except BaseException:
                await session.close()
                raise
            finally:
                self._starting.discard(name)
            self._sessions[name] = session
            self._changed()
            return session

    def _starting_lock(self, name: str) -> asyncio.Lock:
        """The lock under which session ``name`` is looked up or started (one start per
        name at a time), once the manager is known to be open and the name valid."""
        if self._closed:
            raise SessionClosed("this session manager is closed")
        _check_name(name)
        self._start_reaper()
        return self._creating.setdefault(name, asyncio.Lock())

    def _check_limit(self, name: str) -> None:
        """SessionLimitReached when starting ``name`` would pass ``browser.max_sessions``."""
        limit = self.config.browser.max_sessions
        if limit <= 0:
            return
        taken = {n for n in (*self.names(), *self.firefox_names()) if n != name} | (
            self._starting - {name}
        )
        if len(taken) < limit:
            return
        logger.warning(
            "refused session %r: %d open (browser.max_sessions = %d)",
            name,
            len(taken),
            limit,
        )
        timeout = self.config.browser.inactivity_timeout_s
        closes = f" or after {timeout:g} s without a call" if timeout > 0 else ""
        raise SessionLimitReached(
            f"no new session: {counted(len(taken), 'session')} open, the limit of this process "
            f"(browser.max_sessions = {limit})",
            open_count=len(taken),
            limit=limit,
            hint=f"retry later: a session closes when its client disconnects{closes}; or "
            "close a session that is no longer needed, or raise browser.max_sessions "
            "(0 = no limit)",
        )

    async def firefox(
        self, name: str = "default", *, timeout_ms: float | None = None
    ) -> FirefoxSession:
        """The live Firefox session called ``name``, started now if need be."""
        async with self._starting_lock(name):
            session = self._firefox.get(name)
            if session is not None and not session.closed:
                await session.relaunch_if_lost(timeout_ms)
                return session
            self._check_limit(name)
            self._starting.add(name)
            try:
                session = firefox_session(self.config.model_copy(deep=True), name)
                try:
                    await session.start(timeout_ms=timeout_ms)
                except BaseException:
                    await session.close()
                    raise
            finally:
                self._starting.discard(name)
            self._firefox[name] = session
        self._changed()
        return session

    def get_firefox(self, name: str = "default") -> FirefoxSession | None:
        """The open Firefox session called ``name`` (None: there is none)."""
        session = self._firefox.get(name)
        return session if session is not None and not session.closed else None

    def firefox_names(self) -> list[str]:
        return [name for name, session in self._firefox.items() if not session.closed]

    def firefox_sessions(self) -> list[FirefoxSession]:
        """The open Firefox sessions, in the order they started."""
        return [session for session in self._firefox.values() if not session.closed]

    async def close_firefox(self, name: str) -> None:
        session = self._firefox.pop(name, None)
        if session is not None:
            await session.close()
            self._changed()

    def _changed(self) -> None:
        for callback in list(self.on_change):
            try:
                callback()
            except Exception:
                logger.exception("a session-list watcher failed")

    def sessions(self) -> list[BrowserSession]:
        """The open sessions, in the order they started."""
        return [s for s in self._sessions.values() if not s.closed]

    def get(self, name: str = "default") -> BrowserSession:
        session = self._sessions.get(name)
        if session is None or session.closed:
            known = ", ".join(self.names()) or "none"
            raise SessionNotFound(f"no open session {name!r} (open: {known})")
        return session

    def names(self) -> list[str]:
        return [name for name, s in self._sessions.items() if not s.closed]

    def reaped_session(self, name: str) -> Reaped | None:
        """The last time the idle reaper closed a session called ``name`` (None: never, or
        too long ago to be remembered)."""
        return self._reap_records.get(name)

    async def close(self, name: str) -> None:
        session = self._sessions.pop(name, None)
        if session is None:
            raise SessionNotFound(f"no open session {name!r}")
        try:
            await session.close()
        finally:
            self._changed()

    async def close_all(self) -> None:
        self._closed = True
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        if self._reaping:
            await asyncio.gather(*self._reaping, return_exceptions=True)
        firefox, self._firefox = list(self._firefox.values()), {}
        await asyncio.gather(*(f.close() for f in firefox), return_exceptions=True)
        sessions, self._sessions = list(self._sessions.values()), {}
        results = await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
        for session, result in zip(sessions, results, strict=True):
            if isinstance(result, BaseException):
                logger.warning("closing session %r failed: %s", session.name, result)
        if sessions:
            self._changed()

    # ---- idle cleanup --------------------------------------------------------------

    async def reap_idle(self) -> list[str]:
        """Close sessions unused for longer than the inactivity timeout; returns their names."""
        timeout = self.config.browser.inactivity_timeout_s
        if timeout <= 0:
            return []
        now = time.monotonic()
        idle = [
            name
            for name, session in self._sessions.items()
            if not session.busy and now - session.last_used >= timeout
        ]
        idle_firefox = [
            name
            for name, firefox in self._firefox.items()
            if not firefox.busy and now - firefox.last_used >= timeout
        ]
        for name in idle_firefox:
            firefox = self._firefox.pop(name)
            logger.info("closing Firefox session %r after %.0f s without use", name, timeout)
            self.reaped.append(name)
            self._remember_reaped(firefox, now - firefox.last_used, timeout)
            closing = asyncio.get_running_loop().create_task(
                firefox.close(), name=f"tabwarden-reap-{name}"
            )
            self._reaping.add(closing)
            closing.add_done_callback(self._reaping.discard)
            await asyncio.shield(closing)
        for name in idle:
            session = self._sessions.pop(name)
            logger.info(
                "closing session %r after %.0f s without use", name, now - session.last_used
            )
            self.reaped.append(name)
            self._remember_reaped(session, now - session.last_used, timeout)
            closing = asyncio.get_running_loop().create_task(
                session.close(), name=f"tabwarden-reap-{name}"
            )
            self._reaping.add(closing)
            closing.add_done_callback(self._reaping.discard)
            await asyncio.shield(closing)
        if idle or idle_firefox:
            self._changed()
        return idle + idle_firefox

    def _remember_reaped(
        self, session: BrowserSession | FirefoxSession, idle_s: float, timeout_s: float
    ) -> None:
        self._reap_records.pop(session.name, None)  # the newest last
        self._reap_records[session.name] = Reaped(
            session.name, idle_s, timeout_s, time.time(), weakref.ref(session)
        )
        while len(self._reap_records) > _REAP_RECORDS_KEPT:
            del self._reap_records[next(iter(self._reap_records))]

    def _start_reaper(self) -> None:
        if self._reaper is None and self.config.browser.inactivity_timeout_s > 0:
            self._reaper = asyncio.get_running_loop().create_task(
                self._reap_forever(), name="tabwarden-session-reaper"
            )

    async def _reap_forever(self) -> None:
        interval = min(self.config.browser.inactivity_timeout_s / 4, _REAP_INTERVAL_MAX_S)
        while True:
            await asyncio.sleep(interval)
            try:
                await self.reap_idle()
            except Exception:
                logger.exception("the idle-session reaper failed")


def _same_endpoint(session: BrowserSession, cdp_url: str | None) -> bool:
    backend = session.backend
    if cdp_url is None:
        return not isinstance(backend, CDPEndpoint)
    return isinstance(backend, CDPEndpoint) and backend.cdp_url == cdp_url


def _default_backend(name: str, config: Config) -> Backend:
    """The backend ``browser.backend`` names (backends/choice.py)."""
    return backend_for(config, name)


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidArgument(
            f"session name {name!r} is not valid",
            hint="use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        )
