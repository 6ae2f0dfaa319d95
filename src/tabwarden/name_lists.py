"""Filters given as names, read the same on every surface: one string of comma-separated
names, or a list whose items may be such strings (``"4xx,failed"``, ``["4xx", "failed"]``,
``["4xx,failed"]`` — the last is what a repeated command-line option gives)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["split_names"]


def split_names(value: str | int | Iterable[str | int]) -> list[str | int]:
    """The names in ``value``, in order, commas split, blanks dropped; non-strings (a
    status code given as a number) are kept as they are for the caller to judge."""
    items: Iterable[str | int] = [value] if isinstance(value, (str, int)) else value
    names: list[str | int] = []
    for item in items:
        if isinstance(item, str):
            names += [part.strip() for part in item.split(",") if part.strip()]
        else:
            names.append(item)
    return names
