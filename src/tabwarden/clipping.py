"""Text a page controls, clipped in one place and one way: a page never decides how big
a reply is.

A URL, a title, an error that quotes them: each can be as long as the page makes it (a
1.5 MB URL through ``history.replaceState``, a 500 KB title, a 10 MB URL asked for).
Every reply shows them through :func:`clip`, cut to a fixed size and saying how much
was cut; and no tool reply's text is longer than :data:`REPLY_CHARS`.
"""

from __future__ import annotations

import json

__all__ = [
    "HINT_CHARS",
    "MESSAGE_CHARS",
    "REPLY_CHARS",
    "TITLE_CHARS",
    "URL_CHARS",
    "clip",
    "clip_quoted",
    "clip_title",
    "clip_url",
]

URL_CHARS = 500
"""A URL as replies show it (tab lists, headers, receipts, navigation results)."""
TITLE_CHARS = 200
"""A page's title as replies show it."""
MESSAGE_CHARS = 4_000
"""An error's message."""
HINT_CHARS = 1_000
"""An error's hint."""
REPLY_CHARS = 1_100_000
"""The hard ceiling of a tool reply's text on every surface: the largest ``max_chars``
a tool takes (1,000,000), with room for its header and footer."""


def clip(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and how much was cut
    (``…[+1,499,700 chars]``), ``limit`` characters in all."""
    if len(text) <= limit:
        return text
    marker = _marker(len(text) - limit)
    keep = max(0, limit - len(marker))
    marker = _marker(len(text) - keep)  # the count of what is really cut
    return text[: max(0, limit - len(marker))] + marker


def clip_url(url: str) -> str:
    return clip(url, URL_CHARS)


def clip_title(title: str) -> str:
    return clip(title, TITLE_CHARS)


def _marker(cut: int) -> str:
    return f"…[+{cut:,} chars]"


def clip_quoted(value: str, limit: int = 80) -> str:
    """A short value as JSON quotes it, cut to ``limit`` characters (a field's text in a
    receipt)."""
    return json.dumps(
        value if len(value) <= limit else value[: limit - 1] + "…", ensure_ascii=False
    )
