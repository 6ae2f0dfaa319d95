"""Every tool, in the order surfaces list them: the browser tools, then each topic's."""

from __future__ import annotations

from . import browser, diagnostics, files, state
from .spec import ToolSpec

__all__ = ["TOOLS"]

TOOLS: list[ToolSpec] = [*browser.TOOLS, *diagnostics.TOOLS, *files.TOOLS, *state.TOOLS]
