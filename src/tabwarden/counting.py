"""Counts in text people read: "1 tab", "2 tabs", "1 entry", "2,000 entries"."""

from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` (thousands separated) and ``noun``, or its plural unless ``n`` is one;
    ``plural`` where adding "s" does not make it (``entry``, ``entries``)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
