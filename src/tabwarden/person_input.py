"""A person's mouse and keyboard, forwarded to a page (taking over from the agent).

Events go to the page's own CDP session (``Input.dispatchMouseEvent``,
``Input.dispatchKeyEvent``, ``Input.insertText``) with coordinates in CSS pixels of
the viewport: the caller converts from where the person pointed in the live view
(the frame's ``device_width``/``device_height`` and ``offset_top`` say how). Each event
takes the page's input lock, the one the agent's actions hold, so a person's click
never lands in the middle of an agent's action; and each one is noted on the page, so
the agent's next receipt or snapshot says that a person acted. The tab is not brought
to the front: the person sees and acts on the tab as it is.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator
from typing import Any, Literal

from .actions.keyboard import (
    MODIFIER_BITS,
    US_LAYOUT,
    Chord,
    KeyDefinition,
    commands_for_chord,
    lookup_key,
)
from .budget import Budget
from .cdp.session import CDPSession
from .errors import InvalidArgument
from .page import Page
from .person_activity import PersonActKind

__all__ = ["MouseButton", "PersonInput"]

MouseButton = Literal["left", "middle", "right", "back", "forward"]

_BUTTON_BITS: dict[str, int] = {"left": 1, "right": 2, "middle": 4, "back": 8, "forward": 16}
_ALL_MODIFIERS = sum(MODIFIER_BITS.values())
_SHORTCUT = MODIFIER_BITS["Control"] | MODIFIER_BITS["Meta"] | MODIFIER_BITS["Alt"]


class PersonInput:
    """One person's input to one page. Each call waits (within ``budget``) for the
    agent's running action to end, sends one event, and notes what kind of input it was.
    Pressed mouse buttons are remembered between calls (a drag's moves carry them)."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._pressed = 0
        """Bits of the mouse buttons held down now (CDP's ``buttons``)."""

    # ---- mouse ------------------------------------------------------------------------

    async def mouse_move(self, x: float, y: float, budget: Budget, *, modifiers: int = 0) -> None:
        await self._mouse("mouseMoved", x, y, budget, modifiers=modifiers)

    async def mouse_down(
        self,
        x: float,
        y: float,
        budget: Budget,
        *,
        button: MouseButton = "left",
        click_count: int = 1,
        modifiers: int = 0,
    ) -> None:
        bit = _button_bit(button)
        await self._mouse(
            "mousePressed",
            x,
            y,
            budget,
            button=button,
            click_count=click_count,
            modifiers=modifiers,
            buttons=self._pressed | bit,
            noted="clicked",
        )
        self._pressed |= bit

    async def mouse_up(
        self,
        x: float,
        y: float,
        budget: Budget,
        *,
        button: MouseButton = "left",
        click_count: int = 1,
        modifiers: int = 0,
    ) -> None:
        bit = _button_bit(button)
        self._pressed &= ~bit
        await self._mouse(
            "mouseReleased",
            x,
            y,
            budget,
            button=button,
            click_count=click_count,
            modifiers=modifiers,
        )

    async def click(
        self,
        x: float,
        y: float,
        budget: Budget,
        *,
        button: MouseButton = "left",
        click_count: int = 1,
        modifiers: int = 0,
    ) -> None:
        """Press and release ``button`` at (x, y) within one turn (``click_count`` 2 for
        the second click of a double click)."""
        bit = _button_bit(button)
        common: dict[str, Any] = {
            "x": _coordinate(x, "x"),
            "y": _coordinate(y, "y"),
            "button": button,
            "clickCount": _click_count(click_count),
            "modifiers": _modifiers(modifiers),
            "pointerType": "mouse",
        }
        presses = (("mousePressed", self._pressed | bit), ("mouseReleased", self._pressed & ~bit))
        async with self._turn(budget) as session:
            for kind, buttons in presses:
                params = {**common, "type": kind, "buttons": buttons}
                if not await self._send(session, "Input.dispatchMouseEvent", params, budget):
                    break  # a dialog opened on the press: the page is paused
            self._page.note_person_activity("clicked")

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
        """Turn the wheel over (x, y) by ``delta_x``/``delta_y`` CSS pixels (positive:
        right and down, as ``WheelEvent.deltaX/deltaY``)."""
        params = {
            "type": "mouseWheel",
            "x": _coordinate(x, "x"),
            "y": _coordinate(y, "y"),
            "deltaX": _coordinate(delta_x, "delta_x"),
            "deltaY": _coordinate(delta_y, "delta_y"),
            "modifiers": _modifiers(modifiers),
            "buttons": self._pressed,
            "pointerType": "mouse",
        }
        async with self._turn(budget) as session:
            await self._send(session, "Input.dispatchMouseEvent", params, budget)
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
        """Press ``key`` (DOM ``KeyboardEvent.key``; ``code`` the physical key, as the
        browser reported them). ``text``: what the key types; None types what it types
        on a US keyboard (the key itself for one character, a return for Enter), "" types
        nothing. With Control, Alt or Meta held it types nothing, and a well-known
        editing shortcut (select all, copy, paste…) runs its editing command."""
        bits = _modifiers(modifiers)
        definition = _definition(key, code)
        if text is None:
            text = key if len(key) == 1 else (definition.text if definition else None) or ""
        if bits & _SHORTCUT:
            text = ""
        params = _key_params("keyDown" if text else "rawKeyDown", key, code, definition, bits)
        if text:
            params["text"] = text
            params["unmodifiedText"] = text
        elif definition is not None and bits:
            held = tuple(name for name, bit in MODIFIER_BITS.items() if bits & bit)
            commands = commands_for_chord(Chord(held, definition))
            if commands:
                params["commands"] = commands
        kind: PersonActKind | None = "typed" if text else "pressed keys"
        if key in MODIFIER_BITS:
            kind = None  # a modifier alone does nothing to the page
        async with self._turn(budget) as session:
            await self._send(session, "Input.dispatchKeyEvent", params, budget)
            if kind is not None:
                self._page.note_person_activity(kind)

    async def key_up(self, key: str, budget: Budget, *, code: str = "", modifiers: int = 0) -> None:
        params = _key_params("keyUp", key, code, _definition(key, code), _modifiers(modifiers))
        async with self._turn(budget) as session:
            await self._send(session, "Input.dispatchKeyEvent", params, budget)

    async def insert_text(self, text: str, budget: Budget) -> None:
        """Type ``text`` as one input (``Input.insertText``: pasted or composed text, any
        script), into whatever has focus."""
        if not isinstance(text, str) or not text:
            raise InvalidArgument("text to insert must be a non-empty string")
        async with self._turn(budget) as session:
            await self._send(session, "Input.insertText", {"text": text}, budget)
            self._page.note_person_activity("typed")

    # ---- private ----------------------------------------------------------------------

    async def _mouse(
        self,
        kind: str,
        x: float,
        y: float,
        budget: Budget,
        *,
        button: str = "none",
        click_count: int = 0,
        modifiers: int = 0,
        buttons: int | None = None,
        noted: PersonActKind | None = None,
    ) -> None:
        params: dict[str, Any] = {
            "type": kind,
            "x": _coordinate(x, "x"),
            "y": _coordinate(y, "y"),
            "button": button,
            "buttons": self._pressed if buttons is None else buttons,
            "modifiers": _modifiers(modifiers),
            "pointerType": "mouse",
        }
        if click_count:
            params["clickCount"] = _click_count(click_count)
        async with self._turn(budget) as session:
            await self._send(session, "Input.dispatchMouseEvent", params, budget)
            if noted is not None:
                self._page.note_person_activity(noted)

    @contextlib.asynccontextmanager
    async def _turn(self, budget: Budget) -> AsyncIterator[CDPSession]:
        """The page's session, with its input lock held (waited for within ``budget``)."""
        page = self._page
        session = await page.ready_session(budget)
        page.check_no_dialog()
        lock = page.input_lock
        await budget.run(lock.acquire(), what=f"waiting for the action running in tab {page.id}")
        try:
            yield session
        finally:
            lock.release()

    async def _send(
        self, session: CDPSession, method: str, params: dict[str, Any], budget: Budget
    ) -> bool:
        """Send one event; False when a dialog it opened cut the wait for its reply short
        (the page is paused until the dialog is answered)."""
        done, _ = await self._page.until_dialog(session.send(method, params, budget=budget))
        return done


def _definition(key: str, code: str) -> KeyDefinition | None:
    if code in US_LAYOUT:
        return US_LAYOUT[code]
    try:
        return lookup_key(key)
    except InvalidArgument:
        return None  # a key a US keyboard lacks: sent by name only


def _key_params(
    kind: str, key: str, code: str, definition: KeyDefinition | None, modifiers: int
) -> dict[str, Any]:
    if not isinstance(key, str) or not key:
        raise InvalidArgument("key must be a non-empty string", hint="e.g. 'a', 'Enter'")
    key_code = definition.key_code if definition is not None else 0
    params: dict[str, Any] = {
        "type": kind,
        "key": key,
        "code": code or (definition.code if definition is not None else ""),
        "windowsVirtualKeyCode": key_code,
        "nativeVirtualKeyCode": key_code,
        "modifiers": modifiers,
    }
    if definition is not None and definition.location:
        params["location"] = definition.location
    return params


def _button_bit(button: str) -> int:
    if button not in _BUTTON_BITS:
        raise InvalidArgument(
            f"button={button!r} is not known", hint="left, middle, right, back or forward"
        )
    return _BUTTON_BITS[button]


def _coordinate(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidArgument(f"{name}={value!r} is not a finite number of CSS pixels")
    return float(value)


def _click_count(count: int) -> int:
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 3:
        raise InvalidArgument(f"click_count={count!r} is out of range", hint="give 1, 2 or 3")
    return count


def _modifiers(bits: int) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int) or bits & ~_ALL_MODIFIERS:
        raise InvalidArgument(
            f"modifiers={bits!r} is not a modifier bit field",
            hint="Alt 1, Control 2, Meta 4, Shift 8, added up",
        )
    return bits
