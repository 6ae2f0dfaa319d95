"""The local backend in context mode (``browser.isolation: context``): a session is a
browser context of a Chromium shared with the process's other context sessions
(shared_browser.py), not a browser of its own."""

from __future__ import annotations

from ..budget import Budget
from ..errors import BrowserLaunchError, ConfigError
from .base import Endpoint
from .local import LocalOptions, profile_switches
from .shared_browser import ContextLease, DocumentGate, SharedBrowsers, shared_browsers

__all__ = ["SharedContext"]


class SharedContext:
    """A browser context of a shared local Chromium; ``close()`` disposes the context
    (and ends the browser when it was the last)."""

    name = "local"
    owns_browser = True
    """The browser was launched by tabwarden: when it goes away, the next call launches
    another (shared again)."""
    needs_dialog_bridge = False

    def __init__(
        self,
        options: LocalOptions,
        *,
        browser_wide: str = "",
        gate: DocumentGate | None = None,
        pool: SharedBrowsers | None = None,
    ) -> None:
        self.options = options
        self.viewport: tuple[int, int] | None = options.window_size
        self._browser_wide = browser_wide
        """The settings the session applies browser-wide (shared_browser.py)."""
        self._gate = gate
        self._pool = pool or shared_browsers
        self._lease: ContextLease | None = None

    @property
    def browser_context_id(self) -> str | None:
        """The session's browser context while started."""
        return self._lease.context_id if self._lease is not None else None

    @property
    def pid(self) -> int | None:
        """The shared browser's process id."""
        return self._lease.browser.pid if self._lease is not None else None

    @property
    def profile_dir(self) -> None:
        """No profile of its own: the context keeps its data in memory."""
        return None

    def exit_status(self) -> str | None:
        if self._lease is None:
            return None
        status = self._lease.browser.exit_status()
        return f"{status} (a browser shared by the sessions in context mode)" if status else None

    async def start(self, budget: Budget) -> Endpoint:
        if self._lease is not None:
            await self.close()
        check_context_options(self.options)
        self._lease = await self._pool.lease(
            self.options, budget, browser_wide=self._browser_wide, gate=self._gate
        )
        return self._lease.endpoint

    async def reconnect(self, budget: Budget) -> Endpoint:
        raise BrowserLaunchError("a launched browser is relaunched, not reconnected")

    async def close(self) -> None:
        lease, self._lease = self._lease, None
        if lease is not None:
            await self._pool.release(lease)


def check_context_options(options: LocalOptions) -> None:
    """Context mode keeps no profile: a switch choosing one is an error, not ignored."""
    switches = profile_switches(options.extra_args)
    if switches:
        raise ConfigError(
            f"browser.isolation is context, and browser.extra_args choose a profile "
            f"({', '.join(switches)}); sessions in context mode share one browser with a "
            "throwaway profile and keep their data in memory",
            hint="drop the switch, or set browser.isolation: process for a profile of its own",
        )
