"""Enforcing the URL policy in the browser, on every path a page can take.

Two checks: before tabwarden itself navigates (``Tab.navigate``, ``new_tab``, the
raw ``cdp`` commands that carry a URL), and in the browser, where ``Fetch`` pauses
every document request (pages, frames, popups, each redirect hop; every request
with ``policy.intercept_subresources``) on every page and OOPIF session, set up
before the target runs. A denied request fails with ``BlockedByClient`` (the tab
shows Chromium's "blocked" page); an allowed one continues. Each decision is
logged (logger ``tabwarden.policy``, credentials and query stripped) and kept in
a bounded ring; actions report the blocks they caused in their receipts.

A page the browser creates with a URL (``Target.createTarget``, a link opened in a
new tab by Ctrl/Shift/middle click, an extension) starts loading before it is
attached, so its page session's ``Fetch`` comes too late for that first load. One
more ``Fetch.enable`` on the browser target, for documents, pauses those requests
before they leave: each document request is judged by whichever interceptor
pauses it first (the pair share a network id), the other lets it through.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..budget import Budget
from ..cdp.protocol import Event
from ..counting import counted
from ..errors import NavigationFailed, PolicyDenied
from ..navigation import navigation_failure
from ..supervisor.buffers import Ring, RingStatistics
from .url_policy import ParsedURL, UrlPolicy, Verdict, parse_url

if TYPE_CHECKING:
    from ..page import Page
    from ..services import SessionServices

__all__ = ["BLOCKED_ERROR", "PolicyDecision", "PolicyGuard"]

logger = logging.getLogger("tabwarden.policy")

BLOCKED_ERROR = "net::ERR_BLOCKED_BY_CLIENT"
"""What Chromium reports for a request the guard failed."""
RECENT_DECISIONS = 100
RECENT_BLOCKS = 50
_POPUP_WAIT_S = 2.0
_RECEIPT_LINES = 5
_SIGHTINGS = 256
"""Document requests paused by one interceptor whose pause by the other is still to come."""
_HOST_OR_FILE = ("http", "https", "file")

Kind = Literal["navigation", "frame", "subresource"]


@dataclass(frozen=True, slots=True)
class PolicyDecision:
    """One URL the policy judged: where, what for, and the rule that decided."""

    allowed: bool
    url: str
    """Without credentials, query or fragment."""
    rule: str
    kind: Kind
    """``navigation`` (a tab's page, popups included), ``frame`` (an iframe's document)
    or ``subresource`` (any other request)."""
    resource_type: str
    tab_id: str
    """The tab it happened in; "" when the request came from no known tab."""
    frame_id: str
    """The frame whose document or request it was (a tab's main frame id is its target id)."""
    opener_tab_id: str | None
    """For a popup: the tab that opened it."""
    at: float
    """Wall-clock time (``time.time()``)."""
    sequence: int
    hint: str = ""

    def describe(self) -> str:
        return f"{self.url} ({self.rule})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "url": self.url,
            "rule": self.rule,
            "kind": self.kind,
            "resource_type": self.resource_type,
            "tab_id": self.tab_id,
            "frame_id": self.frame_id,
            "opener_tab_id": self.opener_tab_id,
            "at": self.at,
        }


class PolicyGuard:
    """The URL policy of one browser session, with its recent decisions."""

    def __init__(self, services: SessionServices) -> None:
        self._services = services
        self._policy: UrlPolicy | None = None
        self._recent: Ring[PolicyDecision] = Ring(RECENT_DECISIONS)
        self._blocked: Ring[PolicyDecision] = Ring(RECENT_BLOCKS)
        self._sequence = 0
        self._sightings: OrderedDict[tuple[str, str], bool] = OrderedDict()
        """(network id, URL) of a document request → whether the browser-wide
        interceptor paused it (rather than a page's)."""

    @property
    def policy(self) -> UrlPolicy:
        """The rules, read from ``config.policy`` and the workspace on first use."""
        if self._policy is None:
            self._policy = UrlPolicy.from_config(
                self._services.config.policy, self._services.paths.root
            )
        return self._policy

    def fetch_patterns(self) -> list[dict[str, Any]]:
        """``Fetch.enable`` patterns: documents always (metadata endpoints are always
        blocked), every request with ``policy.intercept_subresources``."""
        if self._services.config.policy.intercept_subresources:
            return [{"urlPattern": "*", "requestStage": "Request"}]
        return [dict(_DOCUMENTS)]

    def browser_fetch_commands(self) -> list[tuple[str, dict[str, Any]]]:
        """The browser target's ``Fetch.enable``: every document request, whichever page
        it is for, including the first load of a page created with a URL. None in a
        shared browser (context mode): its launcher judges documents browser-wide once
        for all its sessions (backends/shared_browser.py), with the same policy."""
        if self._services.browser_context_id is not None:
            return []
        return [("Fetch.enable", {"patterns": [dict(_DOCUMENTS)]})]

    # ---- reading -------------------------------------------------------------------

    def decisions(
        self, *, tab: Page | None = None, blocked_only: bool = False
    ) -> list[PolicyDecision]:
        """Recent decisions, oldest first: every page, frame and popup document, and
        every blocked request (allowed subresources are only logged)."""
        ring = self._blocked if blocked_only else self._recent
        return [d for d in ring.items() if tab is None or tab.id in (d.tab_id, d.opener_tab_id)]

    def statistics(self) -> RingStatistics:
        return self._recent.statistics()

    def mark(self) -> int:
        """A point in the decision sequence: decisions after it are newer."""
        return self._sequence

    async def receipt_lines(
        self, tab: Page, since: float, popups: Sequence[str], budget: Budget
    ) -> list[str]:
        """What an action's receipt says about requests the policy blocked since ``since``
        (wall clock): in the tab, its frames, or a popup it opened. A popup (target id in
        ``popups``) whose first page is not blocked or committed yet is waited for, briefly."""
        wait = budget.child(_POPUP_WAIT_S) if popups else budget
        while any(self._undecided(target_id, since) for target_id in popups) and not wait.expired:
            await wait.sleep(0.01)  # the popup is being set up or loaded; a block comes next
        blocked = [d for d in self.decisions(tab=tab, blocked_only=True) if d.at >= since]
        lines = []
        for decision in blocked[:_RECEIPT_LINES]:
            if decision.tab_id != tab.id and decision.kind == "navigation":
                what = f"popup {decision.tab_id}"
            else:
                what = {"navigation": "navigation", "frame": "frame"}.get(
                    decision.kind, f"request ({decision.resource_type})"
                )
            lines.append(f"{what} blocked by policy: {decision.describe()}")
        if len(blocked) > _RECEIPT_LINES:
            lines.append(
                f"{counted(len(blocked) - _RECEIPT_LINES, 'more request')} blocked by policy"
            )
        return lines

    # ---- tabwarden's own navigations -----------------------------------------------

    def check_navigation(self, url: str, tab: Page | None = None) -> None:
        """Refuse a page the policy does not allow, before anything is sent.

        An allowed URL is recorded when its request reaches the browser."""
        verdict = self.policy.check(url)
        if verdict.allowed:
            return
        frame_id = tab.target_id if tab is not None else ""
        raise self.denied(self._record(verdict, "navigation", "Document", tab, frame_id))

    def check_command(
        self, method: str, url: str, tab: Page | None, *, kind: Kind = "navigation"
    ) -> None:
        """Refuse a raw CDP command that would load a URL the policy does not allow."""
        verdict = self.policy.check(url)
        if verdict.allowed:
            return
        frame_id = tab.target_id if tab is not None else ""
        resource_type = "Document" if kind != "subresource" else "Other"
        decision = self._record(verdict, kind, resource_type, tab, frame_id)
        raise PolicyDenied(
            f"{method} to {decision.url} blocked by policy: {decision.rule}",
            hint=decision.hint or None,
        )

    def navigation_failure(
        self, tab: Page, url: str, error: str, mark: int
    ) -> PolicyDenied | NavigationFailed:
        """The error for a failed navigation of ``tab``: ``PolicyDenied`` when the guard
        blocked its document (a redirect hop, say) after ``mark``."""
        if error == BLOCKED_ERROR:
            decision = self.blocked_navigation(tab, mark)
            if decision is not None:
                return self.denied(decision)
        return navigation_failure(url, error)

    def blocked_navigation(self, tab: Page, mark: int) -> PolicyDecision | None:
        """The latest page load of ``tab`` (not a frame, not a popup) the guard blocked
        after ``mark``, if any."""
        for decision in reversed(self._blocked.items()):
            if decision.sequence <= mark:
                break
            if decision.tab_id == tab.id and decision.kind == "navigation":
                return decision
        return None

    def blocked_since(self, tab: Page | None, mark: int) -> PolicyDecision | None:
        """The latest document (page or frame) of ``tab`` (None: of no known tab) the
        guard blocked after ``mark``, if any."""
        tab_id = tab.id if tab is not None else ""
        for decision in reversed(self._blocked.items()):
            if decision.sequence <= mark:
                break
            if decision.tab_id == tab_id and decision.kind != "subresource":
                return decision
        return None

    @staticmethod
    def denied(decision: PolicyDecision) -> PolicyDenied:
        what = "navigation" if decision.kind == "navigation" else "request"
        return PolicyDenied(
            f"{what} to {decision.url} blocked by policy: {decision.rule}",
            hint=decision.hint or None,
        )

    # ---- requests paused by Fetch (on the reader: never awaits) ----------------------

    def judge(self, event: Event) -> PolicyDecision:
        """Decide on a ``Fetch.requestPaused`` request and record it: paused by a page or
        frame session, or browser-wide (no session; a document of a page not set up yet,
        or one its page session already judged)."""
        params = event.params
        url = params.get("request", {}).get("url", "")
        resource_type = params.get("resourceType", "Other")
        frame_id = params.get("frameId", "")
        browser_wide = event.session_id is None
        if resource_type == "Document" and self._judged_by_the_other(params, url, browser_wide):
            return self._pass(url, resource_type, frame_id)
        if browser_wide:
            tab = self._tab_of_frame(frame_id)
            if tab is None and (parse_url(url) or _NO_URL).scheme not in _HOST_OR_FILE:
                # Not a tab's: the browser's own pages (DevTools, an extension's) reach
                # no host and no file; the policy is for the pages agents drive.
                return self._pass(url, resource_type, frame_id)
        else:
            owner = self._services.pages.of_session(event.session_id)
            tab = owner[0] if owner is not None else None
        kind: Kind = "subresource"
        if resource_type == "Document":
            main = tab is None or frame_id == tab.target_id
            kind = "navigation" if main else "frame"
        verdict = self.policy.check(
            url, resource="navigation" if kind != "subresource" else "subresource"
        )
        if verdict.allowed and kind == "subresource":
            self._sequence += 1
            logger.debug("allowed %s %s: %s", resource_type, verdict.url, verdict.rule)
            return _allowed_subresource(verdict, resource_type, tab, frame_id, self._sequence)
        return self._record(verdict, kind, resource_type, tab, frame_id)

    # ---- private -------------------------------------------------------------------

    def _judged_by_the_other(self, params: dict[str, Any], url: str, browser_wide: bool) -> bool:
        """Whether the other interceptor (the browser's, or the page's) already paused,
        and so judged, this hop of this document request: a page's document requests
        are paused by both, its page session's first. A hop denied there never gets here."""
        network_id = params.get("networkId", "")
        if not network_id:
            return False
        key = (network_id, url)
        first = self._sightings.pop(key, None)
        if first is not None and first != browser_wide:
            return True
        self._sightings[key] = browser_wide
        if len(self._sightings) > _SIGHTINGS:
            self._sightings.popitem(last=False)
        return False

    def _tab_of_frame(self, frame_id: str) -> Page | None:
        return self._services.pages.of_frame(frame_id)

    def _pass(self, url: str, resource_type: str, frame_id: str) -> PolicyDecision:
        """Let a request through unrecorded (judged elsewhere, or not the policy's)."""
        verdict = Verdict(True, url, "judged elsewhere")
        return _allowed_subresource(verdict, resource_type, None, frame_id, self._sequence)

    def _undecided(self, target_id: str, since: float) -> bool:
        """A new tab that shows nothing yet and whose first page is neither blocked nor
        committed: an allowed hop may redirect on to a blocked one."""
        tab = self._services.pages.by_target(target_id)
        if tab is None or tab.closed or tab.url:
            return False  # about:blank, data: or a page that committed: nothing to wait for
        return not any(d.tab_id == tab.id and d.at >= since for d in self._blocked.items())

    def _record(
        self, verdict: Verdict, kind: Kind, resource_type: str, tab: Page | None, frame_id: str
    ) -> PolicyDecision:
        self._sequence += 1
        opener = tab.opener if tab is not None else None
        decision = PolicyDecision(
            allowed=verdict.allowed,
            url=verdict.url,
            rule=verdict.rule,
            kind=kind,
            resource_type=resource_type,
            tab_id=tab.id if tab is not None else "",
            frame_id=frame_id,
            opener_tab_id=opener.id if opener is not None else None,
            at=time.time(),
            sequence=self._sequence,
            hint=verdict.hint,
        )
        self._recent.append(decision)
        where = f" in tab {decision.tab_id}" if decision.tab_id else ""
        if verdict.allowed:
            logger.debug("allowed %s %s%s: %s", kind, verdict.url, where, verdict.rule)
        else:
            self._blocked.append(decision)
            logger.warning("blocked %s %s%s: %s", kind, verdict.url, where, verdict.rule)
        return decision


_DOCUMENTS = {"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}
_NO_URL = ParsedURL("", "", None, None, "")


def _allowed_subresource(
    verdict: Verdict, resource_type: str, tab: Page | None, frame_id: str, sequence: int
) -> PolicyDecision:
    return PolicyDecision(
        allowed=True,
        url=verdict.url,
        rule=verdict.rule,
        kind="subresource",
        resource_type=resource_type,
        tab_id=tab.id if tab is not None else "",
        frame_id=frame_id,
        opener_tab_id=None,
        at=time.time(),
        sequence=sequence,
    )
