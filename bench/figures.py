"""Printing benchmark figures: rows of samples with their median and p90, in tables."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

__all__ = ["Row", "Table", "fmt", "ms_since"]


@dataclass(frozen=True)
class Row:
    name: str
    unit: str
    samples: tuple[float, ...]
    target: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p90(self) -> float:
        if len(self.samples) < 2:
            return self.samples[0]
        return statistics.quantiles(self.samples, n=10, method="inclusive")[8]


class Table:
    def __init__(self, title: str) -> None:
        self.title = title
        self.rows: list[Row] = []
        self.notes: list[str] = []

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        return row

    def note(self, line: str) -> None:
        self.notes.append(line)

    def print(self) -> None:
        print(f"\n{self.title}")
        if self.rows:
            width = max(len(r.name) for r in self.rows)
            print(f"  {'':<{width}}  {'median':>12}  {'p90':>12}  {'n':>4}  target")
            for r in self.rows:
                print(
                    f"  {r.name:<{width}}  {fmt(r.median, r.unit):>12}  "
                    f"{fmt(r.p90, r.unit):>12}  {len(r.samples):>4}  {r.target}".rstrip()
                )
        for line in self.notes:
            print(f"  {line}")


def fmt(value: float, unit: str) -> str:
    if unit == "ms":
        return f"{value:.1f} ms" if value < 1000 else f"{value:,.0f} ms"
    if unit == "us":
        return f"{value:.0f} µs"
    if unit == "chars":
        return f"{value:,.0f} ch"
    return f"{value:.1f} {unit}"


def ms_since(start_ns: int) -> float:
    return (time.perf_counter_ns() - start_ns) / 1e6
