"""Metrics of a browser session: evaluation durations and outcomes, and call counts."""

from __future__ import annotations

import bisect
import logging
import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Histogram", "Metrics"]

logger = logging.getLogger("tabwarden.metrics")

_BOUNDS_MS = (1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000)


@dataclass
class Histogram:
    """Counts of durations by upper bound (milliseconds); the last bucket is +inf."""

    bounds_ms: tuple[int, ...] = _BOUNDS_MS
    counts: list[int] = field(default_factory=lambda: [0] * (len(_BOUNDS_MS) + 1))
    total: int = 0
    sum_ms: float = 0.0
    max_ms: float = 0.0

    def observe(self, ms: float) -> None:
        self.counts[bisect.bisect_left(self.bounds_ms, ms)] += 1
        self.total += 1
        self.sum_ms += ms
        self.max_ms = max(self.max_ms, ms)

    def to_dict(self) -> dict[str, Any]:
        buckets = {f"le_{b}ms": c for b, c in zip(self.bounds_ms, self.counts, strict=False)}
        buckets["le_inf"] = self.counts[-1]
        return {
            "count": self.total,
            "mean_ms": round(self.sum_ms / self.total, 2) if self.total else 0.0,
            "max_ms": round(self.max_ms, 2),
            "buckets": buckets,
        }


class Metrics:
    """Thread-safe counters for one session (read them with ``snapshot()``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.evaluate_ms = Histogram()
        self.counters: dict[str, int] = {
            "evaluations": 0,
            "evaluate_timeouts": 0,
            "evaluate_cancellations": 0,
            "evaluate_interruptions": 0,
            "evaluate_terminations": 0,
            "evaluate_errors": 0,
            "evaluate_fallbacks": 0,
            "page_busy": 0,
            "browser_not_responding": 0,
        }

    def evaluated(self, ms: float, outcome: str) -> None:
        """``outcome``: ok, error, timeout, cancelled, interrupted (a dialog or a crash)."""
        logger.debug("evaluation %s after %.1f ms", outcome, ms)
        with self._lock:
            self.evaluate_ms.observe(ms)
            self.counters["evaluations"] += 1
            if outcome == "error":
                self.counters["evaluate_errors"] += 1
            elif outcome == "timeout":
                self.counters["evaluate_timeouts"] += 1
            elif outcome == "cancelled":
                self.counters["evaluate_cancellations"] += 1
            elif outcome == "interrupted":
                self.counters["evaluate_interruptions"] += 1

    def count(self, name: str, by: int = 1) -> None:
        with self._lock:
            self.counters[name] = self.counters.get(name, 0) + by

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {**self.counters, "evaluate_duration": self.evaluate_ms.to_dict()}
