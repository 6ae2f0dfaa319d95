"""Refs: short names (``e7``) for live elements, stable across snapshots, one space per tab.

A ref is grounded in the DOM: ``(frame, element handle)`` plus the frame's
document (loader id) it was seen in. The handle names one live element in
tabwarden's isolated world of that frame (see walker.py); actions turn it into
the element's backendDOMNodeId when they resolve it. The same live element keeps its ref; a
new element gets a new one; a ref is never reused for another element.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass

from ..errors import InvalidArgument

__all__ = ["RefEntry", "RefTable", "parse_ref"]

_REF = re.compile(r"^(?:ref=|@)?(e\d+)$")
_MAX_ENTRIES = 100_000


@dataclass(frozen=True, slots=True)
class RefEntry:
    ref: str
    frame_id: str
    handle: int
    world: str
    """Token of the isolated world the handle belongs to (see walker.py)."""
    loader_id: str
    """The frame's document when the ref was made: another one means it navigated away."""
    role: str
    name: str
    nth: int
    """Index among elements with the same role and name in that snapshot (for messages)."""

    def describe(self) -> str:
        name = f' "{self.name[:60]}"' if self.name else ""
        nth = f" (#{self.nth + 1})" if self.nth else ""
        return f"{self.ref} ({self.role}{name}{nth})"


def parse_ref(text: str) -> str | None:
    """``e7``, ``@e7`` or ``ref=e7`` → ``e7``; anything else (a CSS selector) → None."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument(
            "a ref or CSS selector is required",
            hint="pass a ref from the latest snapshot, such as e7",
        )
    match = _REF.match(text.strip())
    return match.group(1) if match else None


class RefTable:
    """The refs of one tab."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str, int], str] = {}
        self._entries: OrderedDict[str, RefEntry] = OrderedDict()
        self._next = 1

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, ref: str) -> RefEntry | None:
        return self._entries.get(ref)

    def assign(
        self,
        frame_id: str,
        handle: int,
        loader_id: str,
        role: str,
        name: str,
        nth: int,
        *,
        world: str = "",
    ) -> str:
        key = (frame_id, world, handle)
        ref = self._by_key.get(key)
        if ref is not None:
            old = self._entries[ref]
            if old.loader_id == loader_id or not old.loader_id or not loader_id:
                if old.role != role or old.name != name or old.nth != nth or not old.loader_id:
                    self._entries[ref] = RefEntry(
                        ref, frame_id, handle, world, loader_id or old.loader_id, role, name, nth
                    )
                self._entries.move_to_end(ref)
                return ref
        ref = f"e{self._next}"
        self._next += 1
        self._by_key[key] = ref
        self._entries[ref] = RefEntry(ref, frame_id, handle, world, loader_id, role, name, nth)
        if len(self._entries) > _MAX_ENTRIES:
            _, entry = self._entries.popitem(last=False)
            self._by_key.pop((entry.frame_id, entry.world, entry.handle), None)
        return ref

    def known(self, ref: str) -> bool:
        """True when the ref was ever issued by this table (even if evicted since)."""
        if not ref.startswith("e") or not ref[1:].isdigit():
            return False
        return 0 < int(ref[1:]) < self._next
