"""A tab's bounded record of diagnostics: numbered entries in a ring, with read marks, so a
reader can ask for what came since its last read and learn how much was dropped unread."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..supervisor.buffers import Ring

__all__ = ["Journal", "JournalStatistics"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class JournalStatistics:
    size: int
    """Entries held now."""
    capacity: int
    dropped: int
    """Entries pushed out by newer ones since the journal was made."""


class Journal(Generic[T]):
    """The newest ``capacity`` entries of one tab, numbered from 1; safe to read from any thread."""

    def __init__(self, capacity: int) -> None:
        self._ring: Ring[tuple[int, T]] = Ring(capacity)
        self._lock = threading.Lock()
        self._last = 0
        self._cleared = 0
        self._marks: dict[str, int] = {}

    def append(self, entry: T) -> int:
        """Add an entry; returns its number."""
        with self._lock:
            self._last += 1
            number = self._last
        self._ring.append((number, entry))
        return number

    def entries(self, *, after: str | None = None) -> list[tuple[int, T]]:
        """Entries held, oldest first; with ``after``, only those newer than that mark."""
        items = self._ring.items()
        if after is None:
            return list(items)
        mark = self.mark_of(after)
        return [item for item in items if item[0] > mark]

    def mark(self, name: str) -> None:
        """Remember that everything up to now was seen by ``name`` (a reader)."""
        with self._lock:
            self._marks[name] = self._last

    def mark_of(self, name: str) -> int:
        with self._lock:
            return max(self._marks.get(name, 0), self._cleared)

    def missed(self, name: str) -> int:
        """Entries that came after ``name``'s mark but were dropped before it read them."""
        items = self._ring.items()
        with self._lock:
            first = items[0][0] if items else self._last + 1
        return max(0, first - 1 - self.mark_of(name))

    def clear(self) -> None:
        """Forget every entry (they count as read, not as dropped)."""
        with self._lock:
            self._cleared = self._last
        self._ring.clear()

    def statistics(self) -> JournalStatistics:
        stats = self._ring.statistics()
        return JournalStatistics(stats.size, stats.capacity, stats.dropped)

    def first_number(self) -> int:
        """The number of the oldest entry held (one past the last when empty)."""
        items = self._ring.items()
        return items[0][0] if items else self._last + 1
