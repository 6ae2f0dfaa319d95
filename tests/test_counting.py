"""Counts in text: one is singular, every other number plural."""

from __future__ import annotations

from tabwarden.counting import counted


def test_one_is_singular_and_other_numbers_plural() -> None:
    assert counted(1, "tab") == "1 tab"
    assert counted(0, "tab") == "0 tabs"
    assert counted(2, "more line") == "2 more lines"
    assert counted(2000, "row") == "2,000 rows"


def test_an_irregular_plural_is_given() -> None:
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(3, "entry", "entries") == "3 entries"
