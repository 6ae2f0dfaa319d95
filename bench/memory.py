"""Memory figures of processes: proportional set size (PSS), which splits shared pages
among the processes that share them, so summing it over processes is fair."""

from __future__ import annotations

import contextlib

import psutil

__all__ = ["pss_mb", "tree"]


def pss_mb(processes: list[psutil.Process]) -> float:
    """The PSS of ``processes`` together, in MB (RSS where PSS cannot be read)."""
    total = 0
    for proc in processes:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            info = proc.memory_full_info()
            total += getattr(info, "pss", info.rss)
    return total / 2**20


def tree(pid: int | None) -> list[psutil.Process]:
    """The process ``pid`` and all its descendants (none when it is gone)."""
    if pid is None:
        return []
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []
