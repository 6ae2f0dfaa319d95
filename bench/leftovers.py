"""Browsers a benchmark started and left running: the check every run ends with."""

from __future__ import annotations

import psutil

__all__ = ["children_now", "report_leftovers"]

_BROWSERS = ("chrom", "firefox")


def children_now() -> set[int]:
    """The pids of this process's descendants now (what a run did not start)."""
    return {proc.pid for proc in psutil.Process().children(recursive=True)}


def report_leftovers(before: set[int]) -> int:
    """Print the browser processes started since ``before`` that still run; 1 if any."""
    left = []
    for proc in psutil.Process().children(recursive=True):
        try:
            name = proc.name().lower()
        except psutil.NoSuchProcess:
            continue
        if proc.pid not in before and any(browser in name for browser in _BROWSERS):
            left.append(f"{proc.pid} ({name})")
    print()
    if left:
        print(f"leftover browser processes: {', '.join(left)}  <- NOT CLEANED UP")
        return 1
    print("leftover browser processes: none")
    return 0
