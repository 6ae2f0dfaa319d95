"""The Firefox engine: a browser session and its pages over WebDriver BiDi."""

from __future__ import annotations

from .page import FirefoxPage
from .session import FirefoxSession

__all__ = ["FirefoxPage", "FirefoxSession"]
