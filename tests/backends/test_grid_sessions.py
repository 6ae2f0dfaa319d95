"""The sessions a process holds on Grids: the client-side limit and deletion at exit
(a stand-in Grid, no browser; tests/backends/test_grid.py has the real one)."""

from __future__ import annotations

import pytest

from tabwarden.backends.grid_http import GridFull
from tabwarden.backends.grid_sessions import GridLedger, delete_session
from tests.backends.fake_grid import FakeGrid


def test_one_claim_past_the_limit_fails_at_once_saying_what_to_do():
    ledger = GridLedger()
    ledger.claim("http://grid-a:4444", 2)
    ledger.claim("http://grid-a:4444", 2)
    ledger.claim("http://grid-b:4444", 2)  # another Grid has its own count
    with pytest.raises(GridFull) as busy:
        ledger.claim("http://grid-a:4444", 2)
    assert "busy with the Grid at http://grid-a:4444: it holds 2 sessions there" in str(busy.value)
    assert "browser.grid.max_sessions" in busy.value.hint
    ledger.release("http://grid-a:4444")
    ledger.claim("http://grid-a:4444", 2)  # a released place is free again
    assert ledger.held("http://grid-a:4444") == 2


def test_sessions_left_open_are_deleted_at_exit_and_closed_ones_are_not():
    with FakeGrid() as grid:
        for session_id in ("s1", "s2", "s3"):
            grid.answers[("DELETE", f"/session/{session_id}")] = (200, None)
        ledger = GridLedger()
        ledger.opened(grid.url, "s1")
        ledger.opened(grid.url, "s2")
        ledger.opened(grid.url, "s3")
        ledger.closed(grid.url, "s2")
        ledger.delete_all()
        assert sorted(grid.requests) == [("DELETE", "/session/s1"), ("DELETE", "/session/s3")]
        assert ledger.open_sessions() == []


def test_a_session_the_grid_no_longer_knows_counts_as_deleted():
    with FakeGrid() as grid:  # every path unknown: 404
        assert delete_session(grid.url, "gone", 5.0) is True
