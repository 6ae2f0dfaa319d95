"""Filters given as names read the same whether a string, a list, or a repeated option."""

from __future__ import annotations

from tabwarden.diagnostics.console import parse_levels
from tabwarden.diagnostics.network import RequestFilter
from tabwarden.name_lists import split_names


def test_commas_split_in_a_string_and_in_each_item_of_a_list() -> None:
    assert split_names("4xx, failed") == ["4xx", "failed"]
    assert split_names(["4xx,failed", "pending"]) == ["4xx", "failed", "pending"]
    assert split_names([404, " ,5xx"]) == [404, "5xx"]
    assert split_names(404) == [404]


def test_network_and_console_filters_accept_what_a_repeated_option_gives() -> None:
    parsed = RequestFilter.parse(status=["4xx,failed", "pending"], type=["xhr,fetch"])
    assert parsed.statuses == ("4xx", "failed", "pending")
    assert parsed.types == ("xhr", "fetch")
    assert parse_levels(["warning,error"]) == ("warning", "error")
