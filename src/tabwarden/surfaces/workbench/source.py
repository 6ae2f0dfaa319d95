"""What the workbench reads from a session and a tab, whatever the engine.

``WatchedSession`` and ``WatchedTab`` are the one interface the workbench depends on.
Both engines implement them: ``BrowserSession`` and ``Tab`` (Chromium, CDP: the
screencast, ``Input.dispatch*``) and ``FirefoxSession`` and ``FirefoxPage`` (WebDriver
BiDi: captures while watched, ``input.performActions``). The live view's frames are
the same ``FrameFeed`` of ``ScreencastFrame``s on both, so the page gets the same
messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ...activity import SessionActivity
from ...budget import Budget
from ...diagnostics.downloads import Download
from ...diagnostics.emulation_state import EmulationState
from ...diagnostics.network import NetworkReport
from ...diagnostics.storage_request import StorageResult
from ...navigation import NavigationResult
from ...person_input import MouseButton
from ...safety.paths import WorkspacePaths
from ...safety.redaction import Redactor
from ...screencast import FrameFeed, ScreencastFrame, ScreencastParams
from ...supervisor.dialogs import ClosedBy, ClosedDialog, PendingDialog

__all__ = ["NamedBackend", "PersonInputPort", "WatchedSession", "WatchedTab"]


class PersonInputPort(Protocol):
    """A person's mouse and keyboard into one tab (CSS pixels of its viewport)."""

    async def mouse_move(
        self, x: float, y: float, budget: Budget, *, modifiers: int = 0
    ) -> None: ...

    async def mouse_down(
        self,
        x: float,
        y: float,
        budget: Budget,
        *,
        button: MouseButton = "left",
        click_count: int = 1,
        modifiers: int = 0,
    ) -> None: ...

    async def mouse_up(
        self,
        x: float,
        y: float,
        budget: Budget,
        *,
        button: MouseButton = "left",
        click_count: int = 1,
        modifiers: int = 0,
    ) -> None: ...

    async def wheel(
        self,
        x: float,
        y: float,
        delta_x: float,
        delta_y: float,
        budget: Budget,
        *,
        modifiers: int = 0,
    ) -> None: ...

    async def key_down(
        self,
        key: str,
        budget: Budget,
        *,
        code: str = "",
        text: str | None = None,
        modifiers: int = 0,
    ) -> None: ...

    async def key_up(
        self, key: str, budget: Budget, *, code: str = "", modifiers: int = 0
    ) -> None: ...

    async def insert_text(self, text: str, budget: Budget) -> None: ...


class WatchedTab(Protocol):
    """One tab as the workbench shows and drives it."""

    @property
    def id(self) -> str: ...

    @property
    def url(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def opener(self) -> WatchedTab | None: ...

    def load_state(self) -> str: ...

    async def navigate(
        self, url: str, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult: ...

    async def back(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult: ...

    async def forward(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult: ...

    async def reload(
        self, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult: ...

    async def network(
        self, *, request_id: str | None = None, timeout_ms: float | None = None
    ) -> NetworkReport: ...

    async def storage(
        self, action: str = "get", kind: str = "cookies", *, timeout_ms: float | None = None
    ) -> StorageResult: ...

    async def live_feed(self, params: ScreencastParams, budget: Budget) -> FrameFeed:
        """A latest-wins feed of what the tab shows (frames are made only while a feed is
        open)."""
        ...

    async def still_frame(self, budget: Budget) -> ScreencastFrame:
        """What the tab shows now, captured once, with its viewport and scroll offsets."""
        ...

    async def thumbnail_jpeg(self, budget: Budget, max_width: int) -> bytes: ...

    def person_input(self) -> PersonInputPort: ...


class NamedBackend(Protocol):
    @property
    def name(self) -> str: ...


class WatchedSession(Protocol):
    """One session as the workbench lists, shows and drives it."""

    @property
    def name(self) -> str: ...

    @property
    def engine(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def busy(self) -> bool: ...

    @property
    def redactor(self) -> Redactor: ...

    @property
    def activity(self) -> SessionActivity: ...

    @property
    def backend(self) -> NamedBackend: ...

    @property
    def profile_kind(self) -> str: ...

    @property
    def product(self) -> str: ...

    @property
    def paths(self) -> WorkspacePaths: ...

    @property
    def active_tab(self) -> WatchedTab | None: ...

    def known_tabs(self) -> Sequence[WatchedTab]: ...

    def get_tab(self, tab_id: str) -> WatchedTab: ...

    async def switch_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> WatchedTab: ...

    async def close_tab(self, tab_id: str, *, timeout_ms: float | None = None) -> None: ...

    def known_downloads(self) -> tuple[Download, ...]: ...

    def emulation_state(self) -> EmulationState: ...

    def watch_flags(self) -> dict[str, bool]: ...

    def pending_dialogs(self) -> list[PendingDialog]: ...

    def recent_dialogs(self, tab_id: str | None = None) -> list[ClosedDialog]: ...

    async def answer_pending_dialog(
        self,
        *,
        accept: bool,
        prompt_text: str | None,
        dialog_id: str | None,
        budget: Budget,
        closed_by: ClosedBy,
    ) -> ClosedDialog: ...

    def console_entries(self, tab_id: str) -> list[dict[str, Any]]: ...

    def network_entries(self, tab_id: str) -> list[dict[str, Any]]: ...
