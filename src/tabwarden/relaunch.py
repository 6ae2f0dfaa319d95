"""What a session tells once after its browser went away and a new one took its place.

A launched browser that dies (killed, crashed) is relaunched by the next call on
its session; every tab of the old browser is gone with its page, refs and
dialogs. The first call after the relaunch says so — the snapshot's header, or
the first line of a tool's result — so an agent never mistakes the new blank tab
for its page.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from .clipping import clip_title, clip_url

__all__ = ["BrowserLoss", "LostTab", "Relaunch"]

_LISTED_TABS = 10


@dataclass(frozen=True, slots=True)
class LostTab:
    id: str
    url: str
    title: str

    def describe(self) -> str:
        title = f" {json.dumps(clip_title(self.title), ensure_ascii=False)}" if self.title else ""
        return f"{self.id} ({clip_url(self.url) or 'about:blank'}{title})"


@dataclass(frozen=True, slots=True)
class BrowserLoss:
    """The browser went away: why, when (wall clock), and the tabs open then."""

    reason: str
    """A clause: ``the browser was killed by SIGKILL``, ``the connection was lost (…)``."""
    at: float
    tabs: tuple[LostTab, ...]


@dataclass(frozen=True, slots=True)
class Relaunch:
    """A session's browser went away and the session started (or reached) a new one."""

    loss: BrowserLoss
    relaunched_at: float
    launched: bool
    """True: a new browser was launched; False: the session attached to its browser again."""

    def describe(self) -> str:
        """One sentence for an agent: what happened, when, and what was lost."""
        lost_at = time.strftime("%H:%M:%S", time.localtime(self.loss.at))
        again_at = time.strftime("%H:%M:%S", time.localtime(self.relaunched_at))
        again = "relaunched it" if self.launched else "connected to it again"
        text = f"{self.loss.reason} at {lost_at}, and tabwarden {again} at {again_at}"
        tabs = self.loss.tabs
        if not tabs:
            return f"{text}; no tab was open"
        listed = ", ".join(tab.describe() for tab in tabs[:_LISTED_TABS])
        if len(tabs) > _LISTED_TABS:
            listed += f" and {len(tabs) - _LISTED_TABS} more"
        if len(tabs) == 1:
            return f"{text}: tab {listed} was lost with its page, refs and dialogs; open it again"
        return (
            f"{text}: tabs {listed} were lost with their pages, refs and dialogs; open them again"
        )
