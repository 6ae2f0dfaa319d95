"""The backend seam: something that starts a browser (or finds one) and gives a CDP endpoint."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..budget import Budget

__all__ = ["Backend", "Endpoint"]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where the browser's CDP socket is."""

    ws_url: str
    """``ws://host:port/devtools/browser/<id>``."""
    product: str = ""
    """Browser name and version as the browser reports it, e.g. ``Chrome/156.0…``."""
    pid: int | None = None
    """The browser process id, when tabwarden launched it."""
    secrets: tuple[str, ...] = field(default=(), repr=False, compare=False)
    """Parts of ``ws_url`` that are credentials (a key, a signed token): never shown."""

    @property
    def shown_url(self) -> str:
        """``ws_url`` as messages and logs may show it: its credentials replaced."""
        url = self.ws_url
        for secret in self.secrets:
            if secret:
                url = url.replace(secret, "[redacted]")
        return url

    def __repr__(self) -> str:
        return f"Endpoint(ws_url={self.shown_url!r}, product={self.product!r}, pid={self.pid!r})"


@runtime_checkable
class Backend(Protocol):
    """Starts or finds a browser. ``close()`` undoes whatever ``start()`` did."""

    name: str
    owns_browser: bool
    """True when closing the session ends the browser (a launched one); False when
    tabwarden only attached to it."""
    needs_dialog_bridge: bool
    """True when something between us and the browser auto-dismisses native dialogs."""
    viewport: tuple[int, int] | None
    """The viewport (CSS px) every page gets where emulation sets none: a launched
    browser's configured size; None keeps each window's own (an attached browser)."""

    @property
    def browser_context_id(self) -> str | None:
        """The browser context the session's tabs live in (``browser.isolation: context``,
        a browser shared with other sessions), or None: the browser is the session's
        whole (its default context)."""
        ...

    async def start(self, budget: Budget) -> Endpoint: ...

    async def reconnect(self, budget: Budget) -> Endpoint:
        """Where to reconnect after a dropped socket (the browser itself still runs)."""
        ...

    async def close(self) -> None: ...

    def exit_status(self) -> str | None:
        """A phrase saying how the browser process ended, or None while it runs (or unknown)."""
        ...
