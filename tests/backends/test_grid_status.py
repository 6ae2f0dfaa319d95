"""A Grid's capacity from its /status answer (the shape Selenium Grid 4 answers with)."""

from __future__ import annotations

from tabwarden.backends.grid_status import read_capacity


def _slot(browser: str, session: str | None = None) -> dict:
    return {
        "stereotype": {"browserName": browser, "platformName": "linux"},
        "session": {"sessionId": session} if session else None,
    }


def _node(slots: list[dict], max_sessions: int, availability: str = "UP") -> dict:
    return {"availability": availability, "maxSessions": max_sessions, "slots": slots}


def test_slots_of_the_browser_capped_by_each_nodes_max_sessions():
    # A standalone server lists two slots per driver, but runs max-sessions at once.
    node = _node(
        [_slot("chrome", "a"), _slot("chrome"), _slot("firefox"), _slot("firefox")],
        max_sessions=2,
    )
    other = _node([_slot("chrome", "b"), _slot("chrome", "c")], max_sessions=4)
    capacity = read_capacity({"ready": True, "nodes": [node, other]}, "chrome")
    assert (capacity.nodes, capacity.slots, capacity.in_use, capacity.free) == (2, 4, 3, 1)
    assert capacity.describe() == "3 of 4 sessions in use on 2 nodes"


def test_a_full_grid_is_not_ready_but_still_has_slots():
    node = _node([_slot("chrome", "a"), _slot("chrome", "b")], max_sessions=2)
    capacity = read_capacity(
        {"ready": False, "message": "Selenium Grid not ready.", "nodes": [node]}, "chrome"
    )
    assert (capacity.ready, capacity.slots, capacity.free) == (False, 2, 0)


def test_nodes_down_or_without_the_browser_offer_no_slot():
    down = _node([_slot("chrome")], max_sessions=1, availability="DOWN")
    capacity = read_capacity({"ready": False, "message": "no nodes", "nodes": [down]}, "chrome")
    assert (capacity.nodes, capacity.slots) == (0, 0)
    assert capacity.describe() == "no node is up (no nodes)"
    firefox_only = read_capacity({"ready": True, "nodes": [_node([_slot("firefox")], 1)]}, "chrome")
    assert firefox_only.describe() == "none of its 1 node offers one"
    assert read_capacity("not a status", "chrome").slots == 0
