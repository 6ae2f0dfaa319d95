"""A bounded ring buffer that says how much it dropped."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Ring", "RingStatistics"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RingStatistics:
    size: int
    capacity: int
    dropped: int
    """Items pushed out by newer ones since the ring was made."""


class Ring(Generic[T]):
    """The last ``capacity`` items; safe to read from another thread."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._items: deque[T] = deque(maxlen=capacity)
        self._dropped = 0
        self._lock = threading.Lock()

    def append(self, item: T) -> None:
        with self._lock:
            if len(self._items) == self._items.maxlen:
                self._dropped += 1
            self._items.append(item)

    def items(self) -> tuple[T, ...]:
        with self._lock:
            return tuple(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items())

    def statistics(self) -> RingStatistics:
        with self._lock:
            capacity = self._items.maxlen or 0
            return RingStatistics(len(self._items), capacity, self._dropped)
