"""The action runner: one input action at a time per page, each with its receipt.

An action (click, fill, type…) takes the page's input lock, brings the page to the
front, gets a fresh remote-object group (released when it ends), runs under an
``ActionWatch`` and returns the watch's ``Receipt``. A dialog the action opens pauses
the page, and with it the replies to whatever the action was still sending: the action
then ends at once and its receipt reports the dialog.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..activity import gathering_pointer
from ..budget import Budget
from ..errors import TabwardenError
from ..snapshot.refs import parse_ref
from .receipt import ActionWatch, Receipt
from .text_changes import TextWatch

if TYPE_CHECKING:
    from ..cdp.session import CDPSession
    from ..page import Page
    from ..services import SessionServices
    from ..supervisor.supervisor import Supervisor

__all__ = ["ActionBody", "ActionRunner"]

ActionBody = Callable[[Budget], Awaitable[tuple[str | None, str]]]
"""An action's work: returns the label of what it acted on and a detail line."""

_RELEASE_S = 2.0


class ActionRunner:
    """Runs one page's input actions, one at a time; owns their remote-object groups."""

    def __init__(self, page: Page, services: SessionServices, supervisor: Supervisor) -> None:
        self._page = page
        self._services = services
        self._supervisor = supervisor
        self.input_lock = asyncio.Lock()
        """Held from an action's first input to its receipt; a person's forwarded input
        takes it too, so the two never interleave."""
        self._actions = 0
        self.object_group = "tabwarden-action-0"
        """The remote-object group of the running action (or the last one)."""
        self.text_watch = TextWatch()
        """Watches the text an action makes appear or go away."""

    def new_group(self) -> str:
        """Start a new remote-object group for the call about to run."""
        self._actions += 1
        self.object_group = f"tabwarden-action-{self._actions}"
        return self.object_group

    def release(self, group: str) -> None:
        """Free the remote objects a call made (in the background, bounded)."""
        registry = self._page.attached_frames
        if registry is None:
            return
        for session in registry.sessions():
            self._services.spawn(_release_group(session, group), f"release {group}")

    async def act(
        self,
        name: str,
        body: ActionBody | Callable[[Budget], Awaitable[Any]],
        target: str | None,
        budget: Budget,
    ) -> Receipt:
        """Run ``body`` as the input action ``name`` on ``target`` (a ref or selector)."""
        page = self._page
        await page.ready_session(budget)
        page.check_no_dialog()
        await self._services.activity.until_handed_back(budget)
        async with self.input_lock:
            await self._services.bring_to_front(page, budget)
            group = self.new_group()
            with (
                self._services.activity.acting(),
                page.screencast.quiet(),
                ActionWatch(page, self._services, self._supervisor, self.text_watch) as watch,
                gathering_pointer() as points,
            ):
                watch.start(budget)
                try:
                    _, done = await page.until_dialog(body(budget))
                finally:
                    self.release(group)
                label, detail = (
                    done if done is not None else (self._describe(target), "a dialog opened")
                )
                receipt = await watch.receipt(name, label, detail, budget)
            ref = parse_ref(target) if target else None
            self._services.activity.action(page.id, name, ref=ref, label=label, points=list(points))
            return receipt

    def _describe(self, target: str | None) -> str | None:
        """How a receipt names a ref or selector it did not get to resolve."""
        if target is None:
            return None
        ref = parse_ref(target)
        entry = self._page.refs.get(ref) if ref else None
        return entry.describe() if entry else target


async def _release_group(session: CDPSession, group: str) -> None:
    with contextlib.suppress(TabwardenError):
        await session.send(
            "Runtime.releaseObjectGroup", {"objectGroup": group}, budget=Budget(_RELEASE_S)
        )
