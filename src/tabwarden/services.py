"""SessionServices: what one browser session lends to its tabs, supervisor and logs.

``BrowserSession`` builds one and hands it to every part that works for it (``Tab``,
``Supervisor``, the URL guard, the console and network logs, storage, emulation), so
none of them reaches into the session: config, metrics and paths; the connection and
the browser's own CDP session; the owner of background tasks; the page lookup (which
tab a CDP session or frame belongs to); downloads; and ``operation``, the edge of every
public call.

It holds no supervisor: the supervisor is built from it (the tab gets both).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .activity import SessionActivity
from .backends.base import Endpoint
from .budget import Budget
from .cdp.connection import CDPConnection
from .cdp.scoped import browser_session
from .cdp.session import CDPSession
from .config import Config
from .diagnostics.downloads import DownloadTracker
from .diagnostics.emulation import EmulationState, Size
from .diagnostics.permissions import protocol_permissions
from .diagnostics.recording import Recordings
from .errors import InvalidArgument
from .interrupts import OnDialog
from .metrics import Metrics
from .page import Page, PageLookup
from .safety.paths import WorkspacePaths
from .safety.redaction import Redactor
from .tasks import TaskOwner

if TYPE_CHECKING:
    import asyncio

__all__ = ["Operation", "PageOpener", "SessionServices"]

T = TypeVar("T")


class Operation(Protocol):
    """The edge of one public call: a budget, a live browser, busy marking; on a page,
    its closed, crashed and dialog checks (see ``BrowserSession.operation``)."""

    def __call__(
        self,
        timeout_ms: float | None,
        kind: str,
        page: Page | None = None,
        *,
        on_dialog: OnDialog = "fail",
    ) -> contextlib.AbstractAsyncContextManager[Budget]: ...


class PageOpener(Protocol):
    """Open a new tab of the session (``background``: without bringing it to the
    front), registered and set up, as the session's own (closed with it)."""

    async def __call__(self, budget: Budget, *, background: bool = False) -> Page: ...


class SessionServices:
    """One session's shared services; see the module docstring."""

    def __init__(
        self,
        name: str,
        config: Config,
        *,
        pages: PageLookup,
        downloads: DownloadTracker,
        connection: Callable[[], CDPConnection],
        connected: Callable[[], bool],
        endpoint: Callable[[], Endpoint | None],
        owns_browser: bool,
        browser_context: Callable[[], str | None],
        own_viewport: Size | None,
        paths: Callable[[], WorkspacePaths],
        operation: Operation,
        open_page: PageOpener,
        metrics: Metrics,
        redactor: Redactor,
        tasks: TaskOwner,
    ) -> None:
        self.name = name
        self.config = config
        self.pages = pages
        self.downloads = downloads
        self.metrics = metrics
        self.redactor = redactor
        self.tasks = tasks
        self.operation = operation
        self.open_page = open_page
        self.owns_browser = owns_browser
        """The session launched this browser (else it attached to someone's)."""
        self.user_agent = ""
        """The browser's own user agent (emulating a locale or platform keeps it)."""
        self.emulation = EmulationState()
        """What the session emulates, for every tab (new ones are set up with it)."""
        self.granted_permissions = protocol_permissions(config.browser.grant_permissions)
        """Permissions granted to every site (protocol names): ``browser.grant_permissions``."""
        self.init_scripts: tuple[str, ...] = ()
        """Scripts every page and frame runs before its own (``browser.init_scripts``, read
        when the session first starts)."""
        self.own_viewport = own_viewport
        """The viewport every page gets where the emulation sets none (a launched
        browser's configured size); None: each window's own."""
        self.recordings = Recordings(paths, config.files)
        """Screencasts in progress, by tab id (kept after their tab closed, until saved)."""
        self.front: str | None = None
        """Target id of the tab the browser shows (the others render no frames)."""
        self.activity = SessionActivity(name)
        """What the session does, pushed to its watchers (the workbench): activity.py."""
        self._connection = connection
        self._browser_context = browser_context
        self._connected = connected
        self._endpoint = endpoint
        self._paths = paths

    @property
    def connection(self) -> CDPConnection:
        """The session's one CDP connection (raises when it has none)."""
        return self._connection()

    @property
    def connected(self) -> bool:
        return self._connected()

    @property
    def endpoint(self) -> Endpoint | None:
        return self._endpoint()

    @property
    def paths(self) -> WorkspacePaths:
        """The workspace's folders (files saved, files that may be uploaded)."""
        return self._paths()

    def budget(self, timeout_ms: float | None, kind: str = "action") -> Budget:
        """A Budget for one call: ``timeout_ms`` or the configured default for ``kind``."""
        timeouts = self.config.timeouts
        if timeout_ms is None:
            timeout_ms = getattr(timeouts, f"{kind}_ms")
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, (int, float)):
            raise InvalidArgument(
                f"timeout_ms must be a number of milliseconds, got {timeout_ms!r}"
            )
        if not 0 < timeout_ms <= timeouts.max_ms:
            raise InvalidArgument(
                f"timeout_ms={timeout_ms} is out of range",
                hint=f"give a value above 0 and at most {timeouts.max_ms} ms",
            )
        return Budget.from_ms(timeout_ms)

    async def bring_to_front(self, page: Page, budget: Budget) -> None:
        """Show ``page`` (a background tab runs no animation frames, so pages that render
        on them would not react to an agent's actions)."""
        if self.front != page.target_id:
            session = await page.ready_session(budget)
            await session.send("Page.bringToFront", budget=budget)
            self.front = page.target_id

    async def browser_user_agent(self, budget: Budget) -> str:
        """The browser's own user agent (asked once; emulating a locale keeps it)."""
        if not self.user_agent:
            version = await self.browser_cdp().send("Browser.getVersion", budget=budget)
            self.user_agent = version.get("userAgent", "")
        return self.user_agent

    @property
    def browser_context_id(self) -> str | None:
        """The browser context the session's tabs live in when it shares its browser
        (``browser.isolation: context``); None: the whole browser is the session's."""
        return self._browser_context()

    def browser_cdp(self) -> CDPSession:
        """The browser target's session (``Target.*``, ``Browser.*``, ``Storage.*``),
        scoped to the session's browser context when it has one (cdp/scoped.py)."""
        return browser_session(self.connection, self._browser_context())

    def spawn(self, work: Coroutine[Any, Any, T], name: str | None = None) -> asyncio.Task[T]:
        """Run ``work`` in the background, owned by the session (ended when it closes)."""
        return self.tasks.spawn(work, name)
