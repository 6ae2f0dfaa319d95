"""Key names, chords and text turned into CDP ``Input.dispatchKeyEvent`` parameters.

A pure module: no I/O, no awaits. It knows a US keyboard (the layout Chromium
assumes when a CDP client sends key events without a real keyboard behind
them) and produces the exact parameter dicts a caller sends, in order:

* :func:`lookup_key` finds a :class:`KeyDefinition` by DOM ``key`` ("a", "A",
  "Enter", "ArrowLeft"), by ``code`` ("KeyA", "Digit1", "Numpad0") or by a
  common alias ("Ctrl", "Cmd", "Esc", "PgDn", "Plus"…; aliases and multi-letter
  names are case-insensitive, single characters are not: "a" and "A" differ).
* :func:`parse_chord` reads "Control+Shift+ArrowLeft", "Meta+c", "Control++"
  into a :class:`Chord`.
* :func:`chord_events` gives the keyDown/keyUp sequence that presses a chord,
  with the editing ``commands`` of well-known shortcuts (see
  :func:`commands_for_chord`).
* :func:`text_events` types a string key by key; characters a US keyboard
  cannot type come back as ``{"insertText": ch}`` markers for
  ``Input.insertText``.

The event model follows Puppeteer's ``USKeyboardLayout`` / ``Keyboard``: a key
that produces text is sent as ``keyDown`` with ``text`` (Chromium then fires
keydown, keypress and the input), any other key as ``rawKeyDown`` (keydown
only); keyUp never carries text.
"""

from __future__ import annotations

import difflib
import functools
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..errors import InvalidArgument

__all__ = [
    "LOCATION_LEFT",
    "LOCATION_NUMPAD",
    "LOCATION_RIGHT",
    "LOCATION_STANDARD",
    "MODIFIER_BITS",
    "US_LAYOUT",
    "Chord",
    "KeyDefinition",
    "character_events",
    "chord_events",
    "commands_for_chord",
    "lookup_key",
    "parse_chord",
    "text_events",
]

# KeyboardEvent.location values (DOM Level 3).
LOCATION_STANDARD = 0
LOCATION_LEFT = 1
LOCATION_RIGHT = 2
LOCATION_NUMPAD = 3

#: CDP's ``modifiers`` bit field of ``Input.dispatchKeyEvent``.
MODIFIER_BITS: Mapping[str, int] = MappingProxyType({"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8})

# The order modifiers are named in when a chord is printed; matches how people write them.
_MODIFIER_ORDER = ("Control", "Alt", "Shift", "Meta")


@dataclass(frozen=True, slots=True)
class KeyDefinition:
    """One key of the layout, as the DOM and CDP describe it.

    ``key`` is the DOM ``KeyboardEvent.key`` ("a", "A", "Enter"), ``code`` the
    physical key ("KeyA", "Enter"), ``key_code`` the Windows virtual key code
    CDP wants as ``windowsVirtualKeyCode``. ``text`` is what the key types
    (``"\\r"`` for Enter, ``None`` for keys that type nothing), ``location``
    0 normal, 1 left, 2 right, 3 numpad. ``shift_key`` is the DOM key the same
    physical key produces with Shift held ("A" for "a", "!" for "1"), if any.
    """

    key: str
    code: str
    key_code: int
    text: str | None = None
    location: int = LOCATION_STANDARD
    shift_key: str | None = None


@dataclass(frozen=True, slots=True)
class Chord:
    """Modifiers held (canonical names: Alt, Control, Meta, Shift) while ``key`` is pressed."""

    modifiers: tuple[str, ...]
    key: KeyDefinition

    def __post_init__(self) -> None:
        # A Chord built by hand must be as sound as one from parse_chord, or
        # chord_events would fail later with a bare KeyError.
        seen: set[str] = set()
        for name in self.modifiers:
            if name not in MODIFIER_BITS:
                raise InvalidArgument(
                    f"{name!r} is not a modifier",
                    hint="modifiers are 'Alt', 'Control', 'Meta' and 'Shift'",
                )
            if name in seen:
                raise InvalidArgument(
                    f"modifier {name!r} is listed twice",
                    hint="name each modifier once, e.g. ('Control', 'Shift')",
                )
            seen.add(name)

    @property
    def modifier_bits(self) -> int:
        """The CDP ``modifiers`` bits of the held modifiers."""
        return _bits(self.modifiers)

    def __str__(self) -> str:
        names = sorted(self.modifiers, key=_MODIFIER_ORDER.index)
        key = "Space" if self.key.key == " " else self.key.key
        return "+".join([*names, key])


# ---- the US layout -----------------------------------------------------------------

# (code, key, key_code, shift_key) of the printable keys that are not letters or digits.
_PUNCTUATION = (
    ("Backquote", "`", 192, "~"),
    ("Minus", "-", 189, "_"),
    ("Equal", "=", 187, "+"),
    ("BracketLeft", "[", 219, "{"),
    ("BracketRight", "]", 221, "}"),
    ("Backslash", "\\", 220, "|"),
    ("Semicolon", ";", 186, ":"),
    ("Quote", "'", 222, '"'),
    ("Comma", ",", 188, "<"),
    ("Period", ".", 190, ">"),
    ("Slash", "/", 191, "?"),
)
_DIGIT_SHIFTS = ")!@#$%^&*("  # Shift+0 … Shift+9 on a US keyboard

# (code, key, key_code, text) of the named keys off the numpad.
_NAMED = (
    ("Space", " ", 32, " "),
    ("Enter", "Enter", 13, "\r"),  # Chromium expects "\r" for Enter, as Windows sends it
    ("Tab", "Tab", 9, None),  # no text: Tab moves focus, it does not type "\t"
    ("Backspace", "Backspace", 8, None),
    ("Delete", "Delete", 46, None),
    ("Escape", "Escape", 27, None),
    ("Insert", "Insert", 45, None),
    ("Home", "Home", 36, None),
    ("End", "End", 35, None),
    ("PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", 34, None),
    ("ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowUp", "ArrowUp", 38, None),
    ("ArrowRight", "ArrowRight", 39, None),
    ("ArrowDown", "ArrowDown", 40, None),
    ("CapsLock", "CapsLock", 20, None),
    ("NumLock", "NumLock", 144, None),
    ("ScrollLock", "ScrollLock", 145, None),
    ("Pause", "Pause", 19, None),
    ("PrintScreen", "PrintScreen", 44, None),
    ("ContextMenu", "ContextMenu", 93, None),
)

# (key, left key_code, right key_code): left and right modifiers share a code on
# Windows except Meta (VK_LWIN / VK_RWIN).
_MODIFIER_KEYS = (
    ("Shift", 16, 16),
    ("Control", 17, 17),
    ("Alt", 18, 18),
    ("Meta", 91, 92),
)

# (code, key, key_code, text) of the numpad with NumLock on, the usual state:
# the digits type digits (Puppeteer models NumLock off, where Numpad4 is an arrow).
_NUMPAD = (
    *((f"Numpad{d}", str(d), 96 + d, str(d)) for d in range(10)),
    ("NumpadMultiply", "*", 106, "*"),
    ("NumpadAdd", "+", 107, "+"),
    ("NumpadSubtract", "-", 109, "-"),
    ("NumpadDecimal", ".", 110, "."),
    ("NumpadDivide", "/", 111, "/"),
    ("NumpadEqual", "=", 187, "="),
    ("NumpadEnter", "Enter", 13, "\r"),
)


def _physical_keys() -> list[KeyDefinition]:
    # Order matters: when two physical keys share a DOM key ("+", "Enter",
    # "Shift"), look-up by key returns the first, so the main block comes
    # before the numpad and left modifiers before right ones.
    keys = [
        KeyDefinition(chr(c), f"Key{chr(c).upper()}", c - 32, chr(c), shift_key=chr(c).upper())
        for c in range(ord("a"), ord("z") + 1)
    ]
    keys += [
        KeyDefinition(str(d), f"Digit{d}", 48 + d, str(d), shift_key=_DIGIT_SHIFTS[d])
        for d in range(10)
    ]
    keys += [KeyDefinition(k, code, kc, k, shift_key=s) for code, k, kc, s in _PUNCTUATION]
    keys += [KeyDefinition(k, code, kc, text) for code, k, kc, text in _NAMED]
    keys += [KeyDefinition(f"F{n}", f"F{n}", 111 + n) for n in range(1, 25)]
    keys += [
        KeyDefinition(name, f"{name}Left", left, location=LOCATION_LEFT)
        for name, left, _ in _MODIFIER_KEYS
    ]
    keys += [
        KeyDefinition(name, f"{name}Right", right, location=LOCATION_RIGHT)
        for name, _, right in _MODIFIER_KEYS
    ]
    keys += [
        KeyDefinition(k, code, kc, text, location=LOCATION_NUMPAD) for code, k, kc, text in _NUMPAD
    ]
    return keys


_PHYSICAL = _physical_keys()

#: Every physical key of the US layout by ``code``, in its unshifted form.
US_LAYOUT: Mapping[str, KeyDefinition] = MappingProxyType({k.code: k for k in _PHYSICAL})

# The characters Shift produces ("A", "!", "+"…) as definitions of their own, so
# that looking up "A" gives key "A" / code "KeyA" and typing "A" knows to hold Shift.
_SHIFTED = [
    KeyDefinition(k.shift_key, k.code, k.key_code, k.shift_key, k.location)
    for k in _PHYSICAL
    if k.shift_key is not None
]
_NEEDS_SHIFT = frozenset((k.key, k.code) for k in _SHIFTED)

# Look-up by DOM key prefers the main block, then the shifted characters, then
# the numpad: "+" is Shift+Equal and "5" is Digit5, as when a person types them.
_BY_KEY: dict[str, KeyDefinition] = {}
for _k in sorted((*_PHYSICAL, *_SHIFTED), key=lambda k: k.location == LOCATION_NUMPAD):
    _BY_KEY.setdefault(_k.key, _k)

# Control characters that stand for a key when typed or named.
_CHAR_KEYS = {"\n": "Enter", "\r": "Enter", "\t": "Tab"}

# Case-insensitive names: every multi-character DOM key and code…
_BY_LOWER: dict[str, KeyDefinition] = {}
for _name, _k in (*_BY_KEY.items(), *US_LAYOUT.items()):
    if len(_name) > 1:
        _BY_LOWER.setdefault(_name.lower(), _k)
del _name, _k

# …and the aliases people write in shortcuts (lower case → DOM key).
_ALIASES = {
    "ctrl": "Control",
    "cmd": "Meta",
    "command": "Meta",
    "option": "Alt",
    "opt": "Alt",
    "esc": "Escape",
    "return": "Enter",
    "del": "Delete",
    "ins": "Insert",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "pgup": "PageUp",
    "pgdn": "PageDown",
    "pgdown": "PageDown",
    "space": " ",
    "spacebar": " ",
    "plus": "+",
}
_CONTROL_OR_META = "controlormeta"

_EXAMPLE_KEYS = (
    "a, A, 1, !, Enter, Tab, Escape, Backspace, Delete, ArrowLeft, Home, PageDown, "
    "F5, Space, KeyA, Digit1, Numpad0"
)
_KEY_HINT = (
    f"name a key by its DOM key or code, e.g. {_EXAMPLE_KEYS}; "
    "aliases such as Ctrl, Cmd, Esc, Return, Del, Up, PgDn and Plus work too"
)
_CHORD_HINT = (
    "write a chord as Key or Modifier+…+Key, e.g. 'Enter', 'a', 'Control+A', 'Shift+Tab', "
    "'Control+Shift+ArrowLeft', 'Control++'; modifiers are Shift, Control, Alt, Meta and "
    f"ControlOrMeta; keys include {_EXAMPLE_KEYS}"
)


def _is_mac(platform: str | None) -> bool:
    return (platform if platform is not None else sys.platform) == "darwin"


def _bits(modifiers: Iterable[str]) -> int:
    bits = 0
    for name in modifiers:
        bits |= MODIFIER_BITS[name]
    return bits


def _suggestions(name: str) -> str:
    names = [*_BY_LOWER, *_ALIASES, _CONTROL_OR_META]
    close = difflib.get_close_matches(name.lower(), names, n=5, cutoff=0.75)
    spelled = {k.lower(): k for k in (*_BY_KEY, *US_LAYOUT)}
    shown: list[str] = []
    keys: set[KeyDefinition] = set()
    for candidate in close:
        definition = _find(candidate, None)
        if definition is None or definition in keys:  # "ctrl" and "control" are one
            continue
        keys.add(definition)
        shown.append(repr(spelled.get(candidate, candidate)))
    if not shown:
        return ""
    return f"; did you mean {' or '.join(shown)}?"


def _find(name: str, platform: str | None) -> KeyDefinition | None:
    if name in _BY_KEY:
        return _BY_KEY[name]
    if name in US_LAYOUT:
        return US_LAYOUT[name]
    if name in _CHAR_KEYS:
        return _BY_KEY[_CHAR_KEYS[name]]
    lower = name.lower()
    if lower == _CONTROL_OR_META:
        # The primary shortcut modifier: Command on macOS, Control elsewhere.
        return _BY_KEY["Meta" if _is_mac(platform) else "Control"]
    if lower in _ALIASES:
        return _BY_KEY[_ALIASES[lower]]
    if len(name) > 1:
        # Single characters stay case-sensitive: "a" and "A" are different keys.
        return _BY_LOWER.get(lower)
    return None


def lookup_key(name: str, *, platform: str | None = None) -> KeyDefinition:
    """The definition of a key named by DOM key, code or alias.

    ``"ControlOrMeta"`` is Meta on macOS and Control elsewhere; ``platform``
    (default :data:`sys.platform`) says which. Raises :class:`InvalidArgument`
    for an unknown name.
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgument(f"key name must be a non-empty string, not {name!r}", hint=_KEY_HINT)
    found = _find(name, platform)
    if found is None:
        raise InvalidArgument(f"unknown key {name!r}", hint=_KEY_HINT + _suggestions(name))
    return found


def _is_modifier(definition: KeyDefinition) -> bool:
    return definition.key in MODIFIER_BITS


def _split_chord(chord: str) -> list[str]:
    # "+" is both the separator and a key: a lone "+" is the key, and a trailing
    # "++" is "…plus the + key" ("Control++"). Any other empty part is a typo.
    if chord == "+":
        return ["+"]
    if chord.endswith("++") and len(chord) > 2:
        parts = [*chord[:-2].split("+"), "+"]
    else:
        parts = chord.split("+")
    # Tolerate "Control + A", but a part made only of spaces is the space key.
    return [part.strip() or part for part in parts]


def parse_chord(chord: str, *, platform: str | None = None) -> Chord:
    """Parse a key chord such as ``"Enter"``, ``"Control+A"`` or ``"Control+Shift+ArrowLeft"``.

    Every part but the last must be a modifier (Shift, Control, Alt, Meta or
    ControlOrMeta, which is Meta on macOS and Control elsewhere: ``platform``
    defaults to :data:`sys.platform`). The last part is the key; it may itself be
    a modifier ("Shift", "Control+Shift" press that modifier). ``"+"`` and
    ``"Control++"`` press the plus key; ``"Plus"`` names it too.

    With modifiers held, a letter names the physical key and Shift decides its
    case, as on a real keyboard: "Control+A" and "Control+a" both send key "a",
    "Control+Shift+a" sends "A". Alone, "A" stays the capital letter.

    Raises :class:`InvalidArgument` naming the bad part.
    """
    if not isinstance(chord, str) or not chord:
        raise InvalidArgument(
            f"key chord must be a non-empty string, not {chord!r}", hint=_CHORD_HINT
        )
    parts = _split_chord(chord)
    if "" in parts:
        raise InvalidArgument(
            f"key chord {chord!r} has an empty part",
            hint=_CHORD_HINT + "; the plus key is 'Control++' or 'Control+Plus'",
        )
    definitions: list[KeyDefinition] = []
    for part in parts:
        found = _find(part, platform)
        if found is None:
            raise InvalidArgument(
                f"unknown key {part!r} in chord {chord!r}",
                hint=_CHORD_HINT + _suggestions(part),
            )
        definitions.append(found)

    *held, key = definitions
    modifiers: list[str] = []
    for part, definition in zip(parts, held, strict=False):
        if not _is_modifier(definition):
            keys = [p for p, d in zip(parts, definitions, strict=True) if not _is_modifier(d)]
            raise InvalidArgument(
                f"key chord {chord!r} has more than one non-modifier key: "
                + " and ".join(repr(k) for k in keys)
                + f" ({part!r} is not a modifier)",
                hint=_CHORD_HINT + "; to press keys one after another, send one chord per key",
            )
        if definition.key in modifiers or (definition.key == key.key and _is_modifier(key)):
            raise InvalidArgument(
                f"modifier {definition.key!r} appears twice in key chord {chord!r}",
                hint=_CHORD_HINT,
            )
        modifiers.append(definition.key)

    if modifiers and len(key.key) == 1 and key.key.isascii() and key.key.isalpha():
        # A shortcut names the physical key; Shift (if held) makes it a capital.
        key = US_LAYOUT[f"Key{key.key.upper()}"]
    return Chord(tuple(modifiers), key)


# ---- editing commands --------------------------------------------------------------

_CommandTable = dict[tuple[frozenset[str], str], str]


def _command_table(mac: bool) -> _CommandTable:
    # Chromium's renderer runs these editor commands when the keyDown carries
    # them, instead of (not on top of) its default key handling. On macOS the
    # key-to-command mapping lives in Cocoa's key bindings, which synthetic CDP
    # events bypass, so without commands Meta+A and friends do nothing there.
    # On Linux and Windows Blink maps these keys itself; sending the commands
    # anyway keeps the behaviour the same on every platform.
    primary = "Meta" if mac else "Control"  # the shortcut modifier
    word = "Alt" if mac else "Control"  # the move-by-word modifier
    none: frozenset[str] = frozenset()
    shift = frozenset({"Shift"})
    p = frozenset({primary})
    ps = frozenset({primary, "Shift"})
    w = frozenset({word})
    ws = frozenset({word, "Shift"})
    table: _CommandTable = {
        (p, "KeyA"): "selectAll",
        (p, "KeyC"): "copy",
        (p, "KeyX"): "cut",
        (p, "KeyV"): "paste",
        (p, "KeyZ"): "undo",
        (ps, "KeyZ"): "redo",
        (none, "Backspace"): "deleteBackward",
        (shift, "Backspace"): "deleteBackward",
        (none, "Delete"): "deleteForward",
        (w, "Backspace"): "deleteWordBackward",
        (w, "Delete"): "deleteWordForward",
        (none, "Home"): "moveToBeginningOfLine",
        (shift, "Home"): "moveToBeginningOfLineAndModifySelection",
        (none, "End"): "moveToEndOfLine",
        (shift, "End"): "moveToEndOfLineAndModifySelection",
        (p, "Home"): "moveToBeginningOfDocument",
        (ps, "Home"): "moveToBeginningOfDocumentAndModifySelection",
        (p, "End"): "moveToEndOfDocument",
        (ps, "End"): "moveToEndOfDocumentAndModifySelection",
        (w, "ArrowLeft"): "moveWordLeft",
        (ws, "ArrowLeft"): "moveWordLeftAndModifySelection",
        (w, "ArrowRight"): "moveWordRight",
        (ws, "ArrowRight"): "moveWordRightAndModifySelection",
    }
    for direction in ("Left", "Right", "Up", "Down"):
        table[(none, f"Arrow{direction}")] = f"move{direction}"
        table[(shift, f"Arrow{direction}")] = f"move{direction}AndModifySelection"
    if mac:
        table[(p, "ArrowLeft")] = "moveToBeginningOfLine"
        table[(ps, "ArrowLeft")] = "moveToBeginningOfLineAndModifySelection"
        table[(p, "ArrowRight")] = "moveToEndOfLine"
        table[(ps, "ArrowRight")] = "moveToEndOfLineAndModifySelection"
        table[(p, "ArrowUp")] = "moveToBeginningOfDocument"
        table[(ps, "ArrowUp")] = "moveToBeginningOfDocumentAndModifySelection"
        table[(p, "ArrowDown")] = "moveToEndOfDocument"
        table[(ps, "ArrowDown")] = "moveToEndOfDocumentAndModifySelection"
        table[(p, "Backspace")] = "deleteToBeginningOfLine"
    else:
        table[(p, "KeyY")] = "redo"
    return table


_COMMANDS = {False: _command_table(False), True: _command_table(True)}


def commands_for_chord(chord: Chord, *, platform: str | None = None) -> list[str]:
    """Chromium editing commands for a well-known shortcut, ``[]`` for any other chord.

    The primary modifier is Meta on macOS and Control elsewhere (``platform``
    defaults to :data:`sys.platform`): Control+A is ``selectAll`` on Linux and
    Windows, Meta+A on macOS. Shift turns a move into its
    ``…AndModifySelection`` variant. Chromium runs the commands only when the
    page does not cancel the keydown, and falls back to the key's default
    action when a command does not apply (an arrow key outside a text field
    still scrolls).
    """
    table = _COMMANDS[_is_mac(platform)]
    command = table.get((frozenset(chord.modifiers), chord.key.code))
    return [command] if command is not None else []


# ---- events ------------------------------------------------------------------------


def _key_params(
    type_: str, definition: KeyDefinition, modifiers: int, key: str | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "type": type_,
        "key": key if key is not None else definition.key,
        "code": definition.code,
        "windowsVirtualKeyCode": definition.key_code,
        # CDP wants a native code too; Puppeteer and Playwright send the
        # Windows one, which Chromium accepts on every platform.
        "nativeVirtualKeyCode": definition.key_code,
        "modifiers": modifiers,
        "autoRepeat": False,
        "isKeypad": definition.location == LOCATION_NUMPAD,
    }
    if definition.location:
        params["location"] = definition.location
    return params


def _modifier_definition(name: str) -> KeyDefinition:
    return US_LAYOUT[f"{name}Left"]


def chord_events(chord: Chord | str, *, platform: str | None = None) -> list[dict[str, Any]]:
    """The ``Input.dispatchKeyEvent`` params, in order, that press and release ``chord``.

    keyDown for each modifier (its ``modifiers`` include the bits held so far,
    its own too, as a browser reports them), then the key: ``keyDown`` with
    ``text`` and ``unmodifiedText`` when it types something, ``rawKeyDown``
    when not. With Shift held the key becomes its shifted form ("a" → "A");
    with Control, Alt or Meta held it types nothing (a shortcut is not text).
    A character that needs Shift on a US keyboard ("A", "!") carries the Shift
    bit even when the chord does not name Shift. The key's keyDown carries
    ``commands`` for a well-known editing shortcut (:func:`commands_for_chord`).
    Then keyUp for the key, and for the modifiers in reverse order.

    A string is parsed with :func:`parse_chord` first.
    """
    if isinstance(chord, str):
        chord = parse_chord(chord, platform=platform)
    events: list[dict[str, Any]] = []
    held = 0
    for name in chord.modifiers:
        held |= MODIFIER_BITS[name]
        events.append(_key_params("rawKeyDown", _modifier_definition(name), held))

    definition = chord.key
    key_bits = held
    if (definition.key, definition.code) in _NEEDS_SHIFT:
        key_bits |= MODIFIER_BITS["Shift"]
    shift = bool(key_bits & MODIFIER_BITS["Shift"])
    key = definition.key
    text = definition.text
    if shift and definition.shift_key is not None:
        key = definition.shift_key
        text = definition.shift_key
    if key_bits & (MODIFIER_BITS["Control"] | MODIFIER_BITS["Alt"] | MODIFIER_BITS["Meta"]):
        text = None  # a shortcut types nothing
    own_bit = MODIFIER_BITS.get(definition.key, 0)  # a modifier pressed as the key

    down = _key_params("keyDown" if text else "rawKeyDown", definition, key_bits | own_bit, key)
    if text:
        down["text"] = text
        down["unmodifiedText"] = text
    commands = commands_for_chord(chord, platform=platform)
    if commands:
        down["commands"] = commands
    events.append(down)
    events.append(_key_params("keyUp", definition, key_bits & ~own_bit, key))

    for name in reversed(chord.modifiers):
        held &= ~MODIFIER_BITS[name]
        events.append(_key_params("keyUp", _modifier_definition(name), held))
    return events


def text_events(text: str) -> list[dict[str, Any]]:
    """Params to type ``text`` character by character on a US keyboard.

    A character the layout has becomes its keyDown/keyUp pair (from
    :func:`chord_events`): "A" and "!" with the Shift bit, ``"\\n"`` (and
    ``"\\r"``, ``"\\r\\n"``) as Enter, ``"\\t"`` as Tab (which moves focus).

    A character the layout lacks ("é", "中", an emoji) becomes a marker
    ``{"insertText": ch}``: send it as ``Input.insertText`` with
    ``{"text": ch}``, not as ``Input.dispatchKeyEvent``. A key event cannot
    type it faithfully in Chromium (there is no key for it, and a bare ``char``
    event skips the keydown/beforeinput path pages rely on); insertText commits
    it like an input method does, firing ``beforeinput``/``input``. Every other
    entry goes to ``Input.dispatchKeyEvent`` as is.

    Raises :class:`InvalidArgument` for a control character other than
    newline and tab: press such keys as chords ("Backspace", "Escape").
    """
    return [dict(event) for _, events in character_events(text) for event in events]


def character_events(text: str) -> Iterator[tuple[int, tuple[dict[str, Any], ...]]]:
    """:func:`text_events` one typed character at a time (``"\\r\\n"`` is one), with
    the index in ``text`` just past it; made as they are consumed, so a long text starts
    typing at once. The text is checked first (the same errors). The event dicts are
    shared between equal characters: read them, do not change them."""
    if not isinstance(text, str):
        raise InvalidArgument(
            f"text must be a string, not {type(text).__name__}",
            hint="pass the characters to type as a str",
        )
    bad = _CONTROL.search(text)
    if bad is not None:
        raise InvalidArgument(
            f"text has control character {bad.group()!r} at index {bad.start()}",
            hint="press keys such as Backspace or Escape as chords, not as text",
        )
    return _character_events(text)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""Control characters other than newline, carriage return and tab."""


def _character_events(text: str) -> Iterator[tuple[int, tuple[dict[str, Any], ...]]]:
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char == "\r" and text[index : index + 1] == "\n":
            index += 1  # "\r\n" is one Enter, not two
        yield index, _events_of(char)


@functools.lru_cache(maxsize=1024)
def _events_of(char: str) -> tuple[dict[str, Any], ...]:
    if char in _CHAR_KEYS:
        definition = _BY_KEY[_CHAR_KEYS[char]]
    elif char.isascii() and char.isprintable():
        definition = _BY_KEY[char]
    else:
        return ({"insertText": char},)
    return tuple(chord_events(Chord((), definition)))
