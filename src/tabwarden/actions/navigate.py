"""Navigating a page: load a URL, reload, go back or forward, and follow it to a stage.

Each triggers the load and follows it with a ``NavigationWatch`` (navigation.py) to the
stage asked for. A dialog that opens on the way (an alert while loading, a
``beforeunload``) ends the wait at once and is reported; a URL the policy refuses is
never sent, and a redirect or history step to one fails with the rule that refused it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..budget import Budget
from ..clipping import clip_title, clip_url
from ..errors import CDPTimeout, DeadlineExceeded, NavigationFailed, NoHistoryEntry
from ..navigation import (
    NavigationOutcome,
    NavigationResult,
    NavigationWatch,
    WaitUntil,
    navigation_timeout,
)
from .evaluate import is_busy

if TYPE_CHECKING:
    from ..cdp.session import CDPSession
    from ..metrics import Metrics
    from ..page import Page
    from ..supervisor.supervisor import Supervisor

__all__ = ["Navigator"]

# Chromium commits an error page for an HTTP error with an empty body; the
# status is what matters, not this code.
_HTTP_STATUS_FAILURE = "net::ERR_HTTP_RESPONSE_CODE_FAILURE"
_TERMINATE_S = 0.5

Trigger = Callable[[], Awaitable[str | None]]
"""Starts a navigation; returns its loader id when the browser says it."""


class Navigator:
    """Navigations of one page."""

    def __init__(self, page: Page, supervisor: Supervisor, metrics: Metrics) -> None:
        self._page = page
        self._supervisor = supervisor
        self._metrics = metrics

    async def load(self, url: str, stage: WaitUntil, budget: Budget) -> NavigationResult:
        """Load ``url`` (already normalised) and follow it to ``stage``."""
        page = self._page
        guard = self._supervisor.guard
        guard.check_navigation(url, page)  # a URL the policy refuses is never sent
        session = await page.ready_session(budget)
        mark = guard.mark()

        async def trigger() -> str | None:
            reply = await session.send("Page.navigate", {"url": url}, budget=budget)
            error = reply.get("errorText", "")
            if error and error != _HTTP_STATUS_FAILURE:
                raise guard.navigation_failure(page, url, error, mark)  # a redirect hop, say
            if reply.get("isDownload"):
                raise NavigationFailed(
                    f"{url} is a download, not a page",
                    url=url,
                    net_error="download",
                    hint="downloads are saved by the browser; navigate to a page instead",
                )
            page.navigated = True
            loader: str | None = reply.get("loaderId")
            return loader

        return await self.follow(session, url, stage, budget, trigger)

    async def reload(self, stage: WaitUntil, budget: Budget) -> NavigationResult:
        session = await self._page.ready_session(budget)

        async def trigger() -> str | None:
            await session.send("Page.reload", budget=budget)
            return None

        return await self.follow(session, self._page.url, stage, budget, trigger)

    async def go_history(self, step: int, stage: WaitUntil, budget: Budget) -> NavigationResult:
        """Go ``step`` entries back (negative) or forward in the page's history."""
        session = await self._page.ready_session(budget)
        history = await session.send("Page.getNavigationHistory", budget=budget)
        index = history["currentIndex"] + step
        entries = history["entries"]
        if not 0 <= index < len(entries):
            direction = "back" if step < 0 else "forward"
            raise NoHistoryEntry(f"tab {self._page.id} cannot go {direction}: no page there")
        entry = entries[index]

        async def trigger() -> str | None:
            await session.send(
                "Page.navigateToHistoryEntry", {"entryId": entry["id"]}, budget=budget
            )
            return None

        return await self.follow(session, entry.get("url", ""), stage, budget, trigger)

    async def follow(
        self, session: CDPSession, url: str, stage: WaitUntil, budget: Budget, trigger: Trigger
    ) -> NavigationResult:
        """Trigger a navigation and follow it to ``stage``; a dialog that opens on the way
        (alert during load, beforeunload) ends it at once and is reported."""
        page = self._page
        if not page.pending_dialogs and await is_busy(session):
            # A page stuck in script would hold the navigation (and, once one is pending,
            # every command) hostage: stop the script first; the page is being left anyway.
            # (A dialog also stops the page's script, but the navigation closes it.)
            with contextlib.suppress(DeadlineExceeded):
                await session.send("Runtime.terminateExecution", budget=budget.child(_TERMINATE_S))
                self._metrics.count("terminated_before_navigation")
        guard = self._supervisor.guard
        mark = guard.mark()
        with NavigationWatch(session, page.target_id) as watch:

            async def follow() -> NavigationOutcome:
                try:
                    loader = await trigger()
                except CDPTimeout:
                    raise navigation_timeout(url, stage, (), budget.timeout_s) from None
                return await watch.wait(url=url, wait_until=stage, budget=budget, loader_id=loader)

            finished, outcome = await page.until_dialog(follow())
            if not finished or outcome is None:
                outcome = watch.partial(stage)
            blocked = guard.blocked_navigation(page, mark)
            if blocked is not None and outcome.status is None:
                # A reload or history step led where the policy forbids (no page came
                # back); a page that loaded and then moved on by itself is not that.
                raise guard.denied(blocked)
            # Cut short by a dialog: a new document that committed opened it (an alert
            # while loading: navigated); else the page being left did (a beforeunload).
            navigated = finished or "commit" in outcome.reached or outcome.same_document
            return await self._finish(outcome, budget, navigated=navigated, requested_url=url)

    async def _finish(
        self, outcome: NavigationOutcome, budget: Budget, *, navigated: bool, requested_url: str
    ) -> NavigationResult:
        page = self._page
        await page.refresh_info(budget)
        return NavigationResult(
            tab_id=page.id,
            url=clip_url(page.url or outcome.url),
            title=clip_title(page.title),
            status=outcome.status,
            status_text=outcome.status_text,
            wait_until=outcome.wait_until,
            reached=outcome.reached,
            elapsed_ms=outcome.elapsed_ms,
            same_document=outcome.same_document,
            dialog=page.pending_dialog,
            navigated=navigated,
            requested_url=clip_url(requested_url),
        )
