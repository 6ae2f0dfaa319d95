"""Storage and emulation tools (groups diagnostics and devtools)."""

from __future__ import annotations

from .spec import ToolSpec

__all__ = ["TOOLS"]

TOOLS: list[ToolSpec] = []
