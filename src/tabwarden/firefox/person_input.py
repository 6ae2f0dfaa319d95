"""A person's mouse and keyboard, forwarded to a Firefox tab (taking over from the agent).

The same calls as the Chromium engine's ``PersonInput`` (person_input.py), sent as
WebDriver BiDi ``input.performActions`` on input sources of the person's own (BiDi
keeps a source's pressed buttons and keys between calls, so a drag's moves carry the
button). Coordinates are CSS pixels of the viewport. Each input is noted on the page, so
the agent's next reply says a person acted in that tab.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol

from ..budget import Budget
from ..errors import InvalidArgument
from ..person_activity import PersonActKind
from ..supervisor.dialogs import PendingDialog

__all__ = ["FirefoxPersonInput", "PersonInputPage"]

JSONObject = dict[str, Any]

_BUTTONS = {"left": 0, "middle": 1, "right": 2, "back": 3, "forward": 4}
_MODIFIER_KEYS = frozenset({"Shift", "Control", "Alt", "Meta"})
_POINTER = {"type": "pointer", "id": "tabwarden-person", "parameters": {"pointerType": "mouse"}}
_WHEEL = {"type": "wheel", "id": "tabwarden-person-wheel"}
_KEYS = {"type": "key", "id": "tabwarden-person-keys"}


class PersonInputPage(Protocol):
    """What forwarding needs of its tab (``FirefoxPage``)."""

    context: str

    @property
    def input_lock(self) -> asyncio.Lock: ...

    async def perform(
        self, context: str, actions: list[JSONObject], budget: Budget
    ) -> PendingDialog | None: ...

    def note_person_activity(self, kind: PersonActKind) -> None: ...


class FirefoxPersonInput:
    """One person's input to one Firefox tab; ``keys`` maps key names (``Enter``) to
    WebDriver key values."""

    def __init__(self, page: PersonInputPage, keys: Mapping[str, str]) -> None:
        self._page = page
        self._keys = keys

    # ---- mouse ------------------------------------------------------------------------

    async def mouse_move(self, x: float, y: float, budget: Budget, *, modifiers: int = 0) -> None:
        await self._pointer([_move(x, y)], budget)

    async def mouse_down(
        self,
        x: float,
        y: float,
        budget: Budget,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: int = 0,
    ) -> None:
        down = {"type": "pointerDown", "button": _button(button)}
        await self._pointer([_move(x, y), down], budget)
        self._page.note_person_activity("clicked")

    async def mouse_up(
        self,
        x: float,
        y: float,
        budget: Budget,
        *,
        button: str = "left",
        click_count: int = 1,
        modifiers: int = 0,
    ) -> None:
        up = {"type": "pointerUp", "button": _button(button)}
        await self._pointer([_move(x, y), up], budget)

    async def wheel(
        self,
        x: float,
        y: float,
        delta_x: float,
        delta_y: float,
        budget: Budget,
        *,
        modifiers: int = 0,
    ) -> None:
        scroll = {
            "type": "scroll",
            "x": _whole(x, "x"),
            "y": _whole(y, "y"),
            "deltaX": _whole(delta_x, "delta_x"),
            "deltaY": _whole(delta_y, "delta_y"),
        }
        await self._send({**_WHEEL, "actions": [scroll]}, budget)
        self._page.note_person_activity("scrolled")

    # ---- keyboard ---------------------------------------------------------------------

    async def key_down(
        self,
        key: str,
        budget: Budget,
        *,
        code: str = "",
        text: str | None = None,
        modifiers: int = 0,
    ) -> None:
        """Press ``key`` (DOM ``KeyboardEvent.key``): Firefox types what the key types."""
        if await self._key("keyDown", key, budget) and key not in _MODIFIER_KEYS:
            typed = text if text is not None else (key if len(key) == 1 else "")
            self._page.note_person_activity("typed" if typed else "pressed keys")

    async def key_up(self, key: str, budget: Budget, *, code: str = "", modifiers: int = 0) -> None:
        await self._key("keyUp", key, budget)

    async def insert_text(self, text: str, budget: Budget) -> None:
        """Type ``text`` (pasted or composed) into whatever has focus, one character at
        a time (BiDi has no insertion of text as one input)."""
        if not isinstance(text, str) or not text:
            raise InvalidArgument("text to insert must be a non-empty string")
        actions = [{"type": kind, "value": char} for char in text for kind in ("keyDown", "keyUp")]
        await self._send({**_KEYS, "actions": actions}, budget)
        self._page.note_person_activity("typed")

    # ---- private ----------------------------------------------------------------------

    async def _send(self, source: JSONObject, budget: Budget) -> None:
        """One input source's actions, under the page's input lock (an agent's action in
        progress ends first, within ``budget``)."""
        lock = self._page.input_lock
        await budget.run(lock.acquire(), what="waiting for the agent's action to end")
        try:
            await self._page.perform(self._page.context, [source], budget)
        finally:
            lock.release()

    async def _pointer(self, actions: list[JSONObject], budget: Budget) -> None:
        await self._send({**_POINTER, "actions": actions}, budget)

    async def _key(self, kind: str, key: str, budget: Budget) -> bool:
        """Send one key; False for a key WebDriver has no value for (a function key, a
        dead key): it is left out, as a key the page would not see anyway."""
        value = self._keys.get(key, key)
        if len(value) != 1:
            return False
        action = {"type": kind, "value": value}
        await self._send({**_KEYS, "actions": [action]}, budget)
        return True


def _move(x: float, y: float) -> JSONObject:
    return {"type": "pointerMove", "x": _whole(x, "x"), "y": _whole(y, "y"), "origin": "viewport"}


def _button(button: str) -> int:
    if button not in _BUTTONS:
        raise InvalidArgument(
            f"button={button!r} is not a mouse button", hint="left, middle or right"
        )
    return _BUTTONS[button]


def _whole(value: float, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise InvalidArgument(f"{name} must be a number, got {value!r}", hint="CSS pixels")
    return round(value)
