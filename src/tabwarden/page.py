"""Page: what the actions, the supervisor and the diagnostics need from a page.

This is the seam under every action. ``CdpPage`` implements it over CDP. Its
engine-neutral part, ``PageBasics``, is also what the Firefox engine's page (WebDriver
BiDi, firefox/page.py) implements. Modules below the session layer (actions/,
diagnostics/, safety/guard.py, supervisor/, screenshot.py) take a ``Page`` and never
import ``Tab``, so the layers import downward only.

``PageLookup`` is the read side of the session's tab registry: which page a CDP
session, a target or a frame belongs to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar

from .budget import Budget
from .cdp.session import CDPSession
from .errors import DialogBlocking, TabClosed, TabCrashed
from .frames import FrameRegistry
from .interrupts import PageCalls
from .navigation import NavigationResult
from .person_activity import PersonActKind, PersonActs
from .screencast import FrameSource
from .snapshot.model import SnapshotNode
from .snapshot.refs import RefTable
from .supervisor.dialogs import PendingDialog

__all__ = [
    "Page",
    "PageBasics",
    "PageLookup",
    "PageView",
    "engine_side",
    "is_engine_side",
]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

_ENGINE_SIDE = "__tabwarden_engine_side__"


def engine_side(member: F) -> F:
    """Mark a public member that the layers below call (the ``Page`` side of a tab, the
    session's edge of a call), not part of the user's API: the generated sync API
    leaves it out. Under ``@property``, mark the getter."""
    setattr(member, _ENGINE_SIDE, True)
    return member


def is_engine_side(member: object) -> bool:
    """Whether ``member`` (a function, or a property by its getter) is marked."""
    target = member.fget if isinstance(member, property) else member
    return bool(getattr(target, _ENGINE_SIDE, False))


class PageView(NamedTuple):
    """The interactive view of a page as just read: its tree and its text lines."""

    root: SnapshotNode
    lines: list[str]


class PageBasics(Protocol):
    """What every engine's page is, whatever its protocol: ids, URL and title, refs,
    dialogs, load state and navigation. ``Page`` (CDP: ``CdpPage``) and the Firefox
    engine's ``FirefoxPage`` (WebDriver BiDi) both implement it; what needs a CDP
    session, the frame registry or the supervisor is in ``Page`` alone."""

    @property
    def id(self) -> str:
        """The short tab id (``t3``)."""
        ...

    @property
    def target_id(self) -> str:
        """The engine's id of the page, which is also its main frame's id."""
        ...

    @property
    def url(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def opener(self) -> PageBasics | None:
        """The page that opened this one (``window.open``, ``target=_blank``)."""
        ...

    @property
    def refs(self) -> RefTable:
        """The page's refs: one space across all its frames."""
        ...

    @property
    def pending_dialog(self) -> PendingDialog | None: ...

    @property
    def last_view(self) -> Sequence[str]:
        """The lines of the last interactive view read (what a receipt diffs against)."""
        ...

    def load_state(self) -> str:
        """How far the current document has loaded: loading, interactive or complete."""
        ...

    def check_no_dialog(self) -> None:
        """Raise ``DialogBlocking`` when a dialog waits for an answer."""
        ...

    navigated: bool
    """True once anything loaded in this page beyond its first blank page."""

    async def navigate(
        self, url: str, *, wait_until: str = "load", timeout_ms: float | None = None
    ) -> NavigationResult:
        """Load ``url`` (a public call: the URL policy and deadlines hold)."""
        ...


class Page(PageBasics, Protocol):
    """One page of a browser over CDP: its frames, sessions and state, read without
    awaiting; ``ready_session`` and ``read_view`` talk to it."""

    @property
    def crashed(self) -> bool:
        """The page's renderer crashed; only a load brings a new one."""
        ...

    @property
    def opener(self) -> Page | None:
        """The page that opened this one (``window.open``, ``target=_blank``)."""
        ...

    @property
    def frames(self) -> FrameRegistry:
        """The page's frames and the sessions rendering them (raises while detached)."""
        ...

    @property
    def attached_frames(self) -> FrameRegistry | None:
        """The frames, or None while the page has no session (never raises)."""
        ...

    @property
    def session(self) -> CDPSession | None:
        """The page's own CDP session now (None while detached)."""
        ...

    @property
    def object_group(self) -> str:
        """The remote-object group of the running action (released when it ends)."""
        ...

    @property
    def calls(self) -> PageCalls:
        """The calls running on this page (ended at once by a crash or a dialog)."""
        ...

    @property
    def setup_error(self) -> str:
        """What failed while the page's session was set up ("" when nothing did)."""
        ...

    @property
    def pending_dialogs(self) -> list[PendingDialog]: ...

    @property
    def input_lock(self) -> asyncio.Lock:
        """Held while input goes to the page: an agent's action from its first event to
        its receipt, a person's forwarded event while it is sent."""
        ...

    @property
    def screencast(self) -> FrameSource:
        """The page's one screencast, shared by its viewers and recordings (made when
        first asked for)."""
        ...

    def note_person_activity(self, kind: PersonActKind) -> None:
        """A person's input was forwarded to the page (the agent is told once)."""
        ...

    def take_person_activity(self) -> PersonActs | None:
        """What a person did here since the last take (None: nothing), then forget it."""
        ...

    def network_idle(self) -> bool:
        """The current document reached network idle."""
        ...

    def halted(self) -> bool:
        """The page cannot run script now: its renderer crashed, or a dialog waits."""
        ...

    def blocked_by(self, dialog: PendingDialog, *, opened_now: bool = False) -> DialogBlocking: ...

    def dialog_opened(self, dialog: PendingDialog) -> None:
        """A dialog that waits for an answer opened in this page (the supervisor says)."""
        ...

    def closed_error(self) -> TabClosed: ...

    def crashed_error(self, doing: str = "") -> TabCrashed: ...

    def saw_title(self, title: str) -> None:
        """The page's own title, read just now (the browser's copy can lag)."""
        ...

    async def ready_session(self, budget: Budget) -> CDPSession:
        """The page's session once it is set up (attached again if it detached)."""
        ...

    async def until_dialog(self, work: Awaitable[T]) -> tuple[bool, T | None]:
        """Run ``work`` unless a dialog opens first: (True, result) or (False, None)."""
        ...

    async def read_view(self, budget: Budget) -> PageView:
        """Read the interactive view now (a receipt's diff, a screenshot's marks)."""
        ...

    async def refresh_info(self, budget: Budget) -> None:
        """URL and title from the browser's target info (never waits on the page)."""
        ...


class PageLookup(Protocol):
    """Which page a CDP session, a target, a tab id or a frame belongs to; the session
    map is kept as sessions attach and detach, so a lookup on every event costs no scan."""

    def by_id(self, tab_id: str) -> Page | None: ...

    def by_target(self, target_id: str) -> Page | None: ...

    def of_session(self, session_id: str | None) -> tuple[Page, str] | None:
        """The page, and the frame, that a CDP session renders (OOPIF sessions too)."""
        ...

    def of_frame(self, frame_id: str) -> Page | None:
        """The page whose main frame, or one of its frames, is ``frame_id``."""
        ...

    def session_attached(self, session_id: str, page: Page, frame_id: str) -> None:
        """A CDP session now renders ``frame_id`` of ``page`` (its own, or an OOPIF's)."""
        ...

    def session_detached(self, session_id: str) -> None: ...

    def active(self) -> Page | None:
        """The session's active tab (the agent's default), if any."""
        ...

    def all(self) -> Sequence[Page]:
        """The open pages, in creation order."""
        ...
