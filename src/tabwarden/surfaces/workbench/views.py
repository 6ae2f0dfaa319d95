"""What the workbench page is sent about a session: JSON views built from the state the
tools read (the tab registry, the supervisor, the activity timeline), never from the
browser. The wire format is docs/workbench-protocol.md. Sessions and tabs of either
engine are read through one interface (source.py)."""

from __future__ import annotations

from typing import Any

from .source import WatchedSession, WatchedTab

__all__ = ["session_summary", "session_view", "tab_view", "tabs_view"]

_CALLS_SENT = 100
"""The newest calls a page gets when it opens a session (the rest follow as they come)."""


def tab_view(tab: WatchedTab, active: WatchedTab | None) -> dict[str, Any]:
    opener = tab.opener
    return {
        "id": tab.id,
        "url": tab.url,
        "title": tab.title,
        "opener": opener.id if opener is not None else None,
        "active": tab is active,
        "load": tab.load_state(),
    }


def tabs_view(session: WatchedSession) -> dict[str, Any]:
    active = session.active_tab
    return {
        "tabs": [tab_view(tab, active) for tab in session.known_tabs()],
        "active": active.id if active is not None else None,
    }


def session_summary(session: WatchedSession) -> dict[str, Any]:
    """One card of the sessions list."""
    active = session.active_tab
    last = session.activity.last_call
    return {
        "name": session.name,
        "engine": session.engine,
        "backend": session.backend.name,
        "profile": session.profile_kind,
        "product": session.product,
        "tabs": len(session.known_tabs()),
        "active": (
            {"id": active.id, "url": active.url, "title": active.title}
            if active is not None and not active.closed
            else None
        ),
        "busy": session.busy,
        "taken_over": session.activity.person_in_control is not None,
        "pending_dialogs": len(session.pending_dialogs()),
        "last_call": {"tool": last.tool, "at": last.started} if last is not None else None,
    }


def session_view(session: WatchedSession, watching: WatchedTab | None) -> dict[str, Any]:
    """Everything a page shows when it opens ``session`` (then events keep it current)."""
    activity = session.activity
    tab_id = watching.id if watching is not None else None
    return {
        "session": session.name,
        "engine": session.engine,
        "profile": session.profile_kind,
        "backend": session.backend.name,
        "product": session.product,
        **tabs_view(session),
        "watching": tab_id,
        "dialogs": [d.to_dict() for d in session.pending_dialogs()],
        "recent_dialogs": [d.to_dict() for d in session.recent_dialogs()],
        "calls": [c.to_dict() for c in activity.calls()[-_CALLS_SENT:]],
        "snapshot": activity.boxes_of(tab_id) if tab_id is not None else None,
        "console": session.console_entries(tab_id) if tab_id is not None else [],
        "network": session.network_entries(tab_id) if tab_id is not None else [],
        "downloads": [d.to_dict() for d in session.known_downloads()],
        "emulation": session.emulation_state().to_dict(),
        **{key: {"active": on} for key, on in session.watch_flags().items()},
        "taken_over": activity.person_in_control is not None,
    }
