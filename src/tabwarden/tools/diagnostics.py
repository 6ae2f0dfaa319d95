"""Console, network and page-state diagnostics tools (group diagnostics)."""

from __future__ import annotations

from .spec import ToolSpec

__all__ = ["TOOLS"]

TOOLS: list[ToolSpec] = []
