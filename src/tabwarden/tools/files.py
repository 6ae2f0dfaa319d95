"""File tools: downloads, PDFs, traces and recordings (group files)."""

from __future__ import annotations

from .spec import ToolSpec

__all__ = ["TOOLS"]

TOOLS: list[ToolSpec] = []
