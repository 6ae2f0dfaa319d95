"""WebDriver BiDi: the sans-I/O protocol and the connection (Firefox's remote protocol)."""

from __future__ import annotations

from .connection import BiDiConnection
from .protocol import BiDiProtocol

__all__ = ["BiDiConnection", "BiDiProtocol"]
