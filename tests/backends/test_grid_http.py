"""Requests to a Selenium Grid and what its answers mean (a stand-in Grid, no browser)."""

from __future__ import annotations

import pytest

from tabwarden.backends.grid_http import GridUnreachable, grid_request
from tests.backends.fake_grid import FakeGrid


def test_an_error_status_is_a_reply_with_the_w3c_error_and_its_first_line():
    with FakeGrid() as grid:
        grid.answers[("POST", "/session")] = (
            500,
            {"error": "session not created", "message": "No nodes support it\nBuild info: …"},
        )
        reply = grid_request("POST", grid.url, "/session", 5.0, {"capabilities": {}})
    assert (reply.ok, reply.status, reply.error) == (False, 500, "session not created")
    assert reply.message == "No nodes support it"
    assert grid.requests == [("POST", "/session")]


def test_no_grid_at_the_address_says_so_and_how_to_start_one(closed_port):
    url = f"http://127.0.0.1:{closed_port}"
    with pytest.raises(GridUnreachable) as gone:
        grid_request("GET", url, "/status", 5.0)
    assert str(gone.value.message) == f"no Selenium Grid at {url}: connection refused"
    assert "start it with" in gone.value.hint and "standalone" in gone.value.hint
