"""When text matches: one definition for every text match (``wait``, snapshot ``find``).

Text is compared **normalised**: every run of whitespace, Unicode spaces included
(no-break, thin, ideographic…), is one space, and the ends are trimmed. By default a
match is **case-insensitive** and a **substring**: both sides are *folded*, upper-cased
then lower-cased (``"Straße"`` and ``"STRASSE"`` both fold to ``"strasse"``). Python's
``casefold`` has no JavaScript twin; upper-then-lower is exactly the same on both sides
(full Unicode case mappings, no locale), so the page and Python agree (up to the
Unicode version each one knows).
``exact=True`` is case-sensitive and whole: the needle must equal all of an element's
text (still with whitespace normalised). A needle written ``/like this/`` is a regular
expression searched in the normalised text, case-insensitive unless ``exact``.

The page-side twin is :data:`NORMALISE_JS`, built from the same whitespace set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from .errors import InvalidArgument

__all__ = ["NORMALISE_JS", "WHITESPACE", "TextPattern", "collapse", "fold", "text_pattern"]

WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""The body of a regex character class: what JavaScript's ``\\s`` matches, plus U+0085
(a line break to Python). The same string builds the pattern on both sides."""

_SPACE_RUN = re.compile(f"[{WHITESPACE}]+")


def collapse(text: str) -> str:
    """Every whitespace run one space, the ends trimmed."""
    return _SPACE_RUN.sub(" ", text).strip(" ")


def fold(text: str) -> str:
    """The case-insensitive form (see the module's docstring)."""
    return text.lower() if text.isascii() else text.upper().lower()


NORMALISE_JS = f"""
const twSpaceRun = new RegExp({json.dumps(f"[{WHITESPACE}]+")}, "g");
const twCollapse = (text) => String(text).replace(twSpaceRun, " ").replace(/^ | $/g, "");
const twFold = (text) => text.toUpperCase().toLowerCase();
"""
"""``twCollapse`` and ``twFold``: :func:`collapse` and :func:`fold` for page script."""


@dataclass(frozen=True, slots=True)
class TextPattern:
    """What a user asked to find, checked once; matches here or in the page (``spec``)."""

    text: str
    """Normalised (whitespace collapsed); the regex's source for a ``/regex/``."""
    exact: bool
    regex: bool
    name: str = "text"
    """The parameter it came from, for errors."""

    def spec(self) -> dict[str, object]:
        """The pattern for page script (see ``_FIND_TEXT_JS`` in actions/waiting.py)."""
        return {"text": self.text, "exact": self.exact, "regex": self.regex}

    def searcher(self, *, collapsed: bool = False) -> Callable[[str], bool]:
        """Whether the pattern occurs in a text (exact: is all of it), in Python.
        ``collapsed``: the texts have no whitespace but single spaces (snapshot lines,
        indentation aside), so normalising them would only cost time."""
        normal = _same if collapsed else collapse
        if self.regex:
            try:
                pattern = re.compile(self.text, 0 if self.exact else re.IGNORECASE)
            except re.error as exc:
                raise InvalidArgument(
                    f"{self.name}=/{self.text}/ is not a valid regular expression: {exc}",
                    hint="fix the pattern, or pass plain text without the slashes",
                ) from None
            return lambda text: pattern.search(normal(text)) is not None
        if self.exact:
            return lambda text: normal(text) == self.text
        needle = fold(self.text)
        return lambda text: needle in fold(normal(text))


def _same(text: str) -> str:
    return text


def text_pattern(value: str, *, exact: bool = False, name: str = "text") -> TextPattern:
    """Check what the user passed as ``name`` and make it a pattern. A ``/regex/`` is
    compiled where it runs: by Python's ``re`` in :meth:`TextPattern.searcher`, by
    JavaScript in the page."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be text, not {type(value).__name__}")
    if len(value) > 2 and value.startswith("/") and value.endswith("/"):
        return TextPattern(value[1:-1], exact, regex=True, name=name)
    text = collapse(value)
    if not text:
        raise InvalidArgument(
            f"{name}={value!r} has no text to match",
            hint="pass some text, or a /regular expression/",
        )
    return TextPattern(text, exact, regex=False, name=name)
