"""Unit tests of tabwarden.actions.keyboard: layout, look-up, chords, event params."""

from __future__ import annotations

import string
import time

import pytest

from tabwarden.actions.keyboard import (
    MODIFIER_BITS,
    US_LAYOUT,
    Chord,
    KeyDefinition,
    character_events,
    chord_events,
    commands_for_chord,
    lookup_key,
    parse_chord,
    text_events,
)
from tabwarden.errors import InvalidArgument

LINUX = "linux"
MAC = "darwin"


def _downs(events):
    return [e for e in events if e.get("type") in ("keyDown", "rawKeyDown")]


def _typed(events):
    """What the events type: the text of every keyDown plus insertText markers."""
    out = []
    for e in events:
        if "insertText" in e:
            out.append(e["insertText"])
        elif e["type"] == "keyDown":
            out.append(e["text"])
    return "".join(out)


# ---- layout and look-up -------------------------------------------------------------


def test_every_letter_round_trips_through_lookup_by_key_and_code():
    for lower in string.ascii_lowercase:
        upper = lower.upper()
        by_key = lookup_key(lower)
        assert by_key == KeyDefinition(lower, f"Key{upper}", ord(upper), lower, 0, upper)
        assert lookup_key(f"Key{upper}") == by_key
        assert US_LAYOUT[f"Key{upper}"] == by_key
        capital = lookup_key(upper)
        assert (capital.key, capital.code, capital.key_code, capital.text) == (
            upper,
            f"Key{upper}",
            ord(upper),
            upper,
        )


def test_every_digit_round_trips_through_lookup_with_its_shifted_symbol():
    shifted = ")!@#$%^&*("
    for digit in range(10):
        key, code, symbol = str(digit), f"Digit{digit}", shifted[digit]
        by_key = lookup_key(key)
        assert by_key == KeyDefinition(key, code, 48 + digit, key, 0, symbol)
        assert lookup_key(code) == by_key
        by_symbol = lookup_key(symbol)
        assert (by_symbol.key, by_symbol.code, by_symbol.text) == (symbol, code, symbol)


def test_every_printable_ascii_character_is_a_key_that_types_itself():
    for char in map(chr, range(0x20, 0x7F)):
        definition = lookup_key(char)
        assert definition.key == char
        assert definition.text == char
        assert definition.location == 0, f"{char!r} should come from the main block"


@pytest.mark.parametrize(
    ("key", "code", "key_code", "shift_key"),
    [
        ("`", "Backquote", 192, "~"),
        ("-", "Minus", 189, "_"),
        ("=", "Equal", 187, "+"),
        ("[", "BracketLeft", 219, "{"),
        ("]", "BracketRight", 221, "}"),
        ("\\", "Backslash", 220, "|"),
        (";", "Semicolon", 186, ":"),
        ("'", "Quote", 222, '"'),
        (",", "Comma", 188, "<"),
        (".", "Period", 190, ">"),
        ("/", "Slash", 191, "?"),
    ],
)
def test_punctuation_keys_and_their_shifted_forms(key, code, key_code, shift_key):
    definition = lookup_key(key)
    assert (definition.code, definition.key_code, definition.shift_key) == (
        code,
        key_code,
        shift_key,
    )
    shifted = lookup_key(shift_key)
    assert (shifted.key, shifted.code, shifted.key_code) == (shift_key, code, key_code)


@pytest.mark.parametrize(
    ("name", "key", "code", "key_code", "text"),
    [
        ("Space", " ", "Space", 32, " "),
        ("Enter", "Enter", "Enter", 13, "\r"),
        ("Tab", "Tab", "Tab", 9, None),
        ("Backspace", "Backspace", "Backspace", 8, None),
        ("Delete", "Delete", "Delete", 46, None),
        ("Escape", "Escape", "Escape", 27, None),
        ("Insert", "Insert", "Insert", 45, None),
        ("Home", "Home", "Home", 36, None),
        ("End", "End", "End", 35, None),
        ("PageUp", "PageUp", "PageUp", 33, None),
        ("PageDown", "PageDown", "PageDown", 34, None),
        ("ArrowLeft", "ArrowLeft", "ArrowLeft", 37, None),
        ("ArrowUp", "ArrowUp", "ArrowUp", 38, None),
        ("ArrowRight", "ArrowRight", "ArrowRight", 39, None),
        ("ArrowDown", "ArrowDown", "ArrowDown", 40, None),
        ("F1", "F1", "F1", 112, None),
        ("F12", "F12", "F12", 123, None),
        ("F24", "F24", "F24", 135, None),
        ("CapsLock", "CapsLock", "CapsLock", 20, None),
        ("NumLock", "NumLock", "NumLock", 144, None),
        ("ScrollLock", "ScrollLock", "ScrollLock", 145, None),
        ("Pause", "Pause", "Pause", 19, None),
        ("PrintScreen", "PrintScreen", "PrintScreen", 44, None),
        ("ContextMenu", "ContextMenu", "ContextMenu", 93, None),
    ],
)
def test_named_keys_have_their_codes_and_text(name, key, code, key_code, text):
    definition = lookup_key(name)
    assert (definition.key, definition.code, definition.key_code, definition.text) == (
        key,
        code,
        key_code,
        text,
    )
    assert definition.location == 0


def test_all_function_keys_f1_to_f24_exist_with_consecutive_key_codes():
    assert [lookup_key(f"F{n}").key_code for n in range(1, 25)] == list(range(112, 136))


@pytest.mark.parametrize(
    ("name", "key", "code", "key_code", "location"),
    [
        ("Shift", "Shift", "ShiftLeft", 16, 1),
        ("ShiftRight", "Shift", "ShiftRight", 16, 2),
        ("Control", "Control", "ControlLeft", 17, 1),
        ("ControlRight", "Control", "ControlRight", 17, 2),
        ("Alt", "Alt", "AltLeft", 18, 1),
        ("AltRight", "Alt", "AltRight", 18, 2),
        ("Meta", "Meta", "MetaLeft", 91, 1),
        ("MetaRight", "Meta", "MetaRight", 92, 2),
    ],
)
def test_modifier_keys_have_left_and_right_codes(name, key, code, key_code, location):
    definition = lookup_key(name)
    assert (definition.key, definition.code, definition.key_code, definition.location) == (
        key,
        code,
        key_code,
        location,
    )


@pytest.mark.parametrize(
    ("alias", "key"),
    [
        ("Ctrl", "Control"),
        ("ctrl", "Control"),
        ("CONTROL", "Control"),
        ("Cmd", "Meta"),
        ("command", "Meta"),
        ("META", "Meta"),
        ("Option", "Alt"),
        ("alt", "Alt"),
        ("Esc", "Escape"),
        ("escape", "Escape"),
        ("Return", "Enter"),
        ("enter", "Enter"),
        ("Del", "Delete"),
        ("DELETE", "Delete"),
        ("Up", "ArrowUp"),
        ("down", "ArrowDown"),
        ("Left", "ArrowLeft"),
        ("RIGHT", "ArrowRight"),
        ("arrowleft", "ArrowLeft"),
        ("PgUp", "PageUp"),
        ("pgdn", "PageDown"),
        ("pageup", "PageUp"),
        ("Space", " "),
        ("space", " "),
        ("Plus", "+"),
        ("f5", "F5"),
    ],
)
def test_aliases_resolve_case_insensitively(alias, key):
    assert lookup_key(alias).key == key


def test_plus_alias_and_plus_character_are_the_shifted_equal_key():
    assert lookup_key("Plus") == lookup_key("+")
    assert lookup_key("+").code == "Equal"


def test_single_characters_stay_case_sensitive_and_codes_ignore_case():
    assert lookup_key("a").key == "a"
    assert lookup_key("A").key == "A"
    assert lookup_key("keya") == lookup_key("KeyA") == lookup_key("a")
    assert lookup_key("numpad0").code == "Numpad0"


def test_newline_carriage_return_and_tab_characters_name_their_keys():
    assert lookup_key("\n").code == "Enter"
    assert lookup_key("\r").code == "Enter"
    assert lookup_key("\t").code == "Tab"


@pytest.mark.parametrize(
    ("code", "key", "key_code", "text"),
    [
        *((f"Numpad{d}", str(d), 96 + d, str(d)) for d in range(10)),
        ("NumpadMultiply", "*", 106, "*"),
        ("NumpadAdd", "+", 107, "+"),
        ("NumpadSubtract", "-", 109, "-"),
        ("NumpadDecimal", ".", 110, "."),
        ("NumpadDivide", "/", 111, "/"),
        ("NumpadEnter", "Enter", 13, "\r"),
    ],
)
def test_numpad_keys_have_location_3_and_are_sent_as_keypad(code, key, key_code, text):
    definition = lookup_key(code)
    assert (definition.key, definition.code, definition.key_code, definition.text) == (
        key,
        code,
        key_code,
        text,
    )
    assert definition.location == 3
    down, up = chord_events(Chord((), definition))
    assert down["location"] == up["location"] == 3
    assert down["isKeypad"] is up["isKeypad"] is True
    assert down["text"] == text


def test_main_block_keys_are_not_keypad_and_omit_location():
    down, up = chord_events("a")
    assert "location" not in down and "location" not in up
    assert down["isKeypad"] is False


def test_unknown_key_raises_invalid_argument_with_a_hint_and_suggestion():
    with pytest.raises(InvalidArgument) as caught:
        lookup_key("Escap")
    assert "'Escap'" in caught.value.message
    assert "Enter" in caught.value.hint and "ArrowLeft" in caught.value.hint
    assert "did you mean 'Escape'" in caught.value.hint


def test_empty_key_name_is_invalid():
    with pytest.raises(InvalidArgument):
        lookup_key("")


def test_modifier_bits_are_cdps():
    assert dict(MODIFIER_BITS) == {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}


# ---- chord parsing ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chord", "modifiers", "key", "code"),
    [
        ("Enter", (), "Enter", "Enter"),
        ("a", (), "a", "KeyA"),
        ("A", (), "A", "KeyA"),
        ("Control+A", ("Control",), "a", "KeyA"),
        ("Control+a", ("Control",), "a", "KeyA"),
        ("Shift+Tab", ("Shift",), "Tab", "Tab"),
        ("Control+Shift+ArrowLeft", ("Control", "Shift"), "ArrowLeft", "ArrowLeft"),
        ("Meta+c", ("Meta",), "c", "KeyC"),
        ("F5", (), "F5", "F5"),
        ("+", (), "+", "Equal"),
        ("Control++", ("Control",), "+", "Equal"),
        ("Control+Plus", ("Control",), "+", "Equal"),
        ("Ctrl+Alt+Del", ("Control", "Alt"), "Delete", "Delete"),
        ("Cmd+Shift+z", ("Meta", "Shift"), "z", "KeyZ"),
        ("Control + A", ("Control",), "a", "KeyA"),
        ("Space", (), " ", "Space"),
        ("Shift+Numpad5", ("Shift",), "5", "Numpad5"),
    ],
)
def test_parse_chord_examples(chord, modifiers, key, code):
    parsed = parse_chord(chord, platform=LINUX)
    assert parsed.modifiers == modifiers
    assert (parsed.key.key, parsed.key.code) == (key, code)


@pytest.mark.parametrize(
    ("chord", "modifiers", "key_code"),
    [
        ("Shift", (), "ShiftLeft"),
        ("Control", (), "ControlLeft"),
        ("Control+Shift", ("Control",), "ShiftLeft"),
        ("Alt+Meta", ("Alt",), "MetaLeft"),
    ],
)
def test_chord_of_only_modifiers_presses_the_last_one(chord, modifiers, key_code):
    parsed = parse_chord(chord)
    assert parsed.modifiers == modifiers
    assert parsed.key.code == key_code


def test_control_or_meta_is_meta_on_darwin_and_control_on_linux():
    assert parse_chord("ControlOrMeta+a", platform=MAC).modifiers == ("Meta",)
    assert parse_chord("ControlOrMeta+a", platform=LINUX).modifiers == ("Control",)
    assert parse_chord("controlormeta+a", platform="win32").modifiers == ("Control",)
    assert lookup_key("ControlOrMeta", platform=MAC).code == "MetaLeft"
    assert lookup_key("ControlOrMeta", platform=LINUX).code == "ControlLeft"
    mac_down = _downs(chord_events("ControlOrMeta+a", platform=MAC))
    linux_down = _downs(chord_events("ControlOrMeta+a", platform=LINUX))
    assert (mac_down[1]["modifiers"], mac_down[1]["commands"]) == (4, ["selectAll"])
    assert (linux_down[1]["modifiers"], linux_down[1]["commands"]) == (2, ["selectAll"])


def test_control_or_meta_defaults_to_the_running_platform(monkeypatch):
    monkeypatch.setattr("sys.platform", MAC)
    assert parse_chord("ControlOrMeta+c").modifiers == ("Meta",)
    monkeypatch.setattr("sys.platform", LINUX)
    assert parse_chord("ControlOrMeta+c").modifiers == ("Control",)


def _assert_chord_hint(error: InvalidArgument) -> None:
    assert "Modifier+" in error.hint  # the accepted form
    for example in ("Control+Shift+ArrowLeft", "Enter", "Escape", "ArrowLeft", "F5"):
        assert example in error.hint


@pytest.mark.parametrize(
    ("chord", "named"),
    [
        ("", "empty"),
        ("Foo", "'Foo'"),
        ("Control+Foo", "'Foo'"),
        ("Foo+a", "'Foo'"),
        ("A+B", "'A' and 'B'"),
        ("Control+a+b", "'a' and 'b'"),
        ("Control+", "empty part"),
        ("Control++Shift", "empty part"),
        ("++", "empty part"),
        ("Ctrl+Control+a", "'Control' appears twice"),
        ("Shift+Shift", "'Shift' appears twice"),
    ],
)
def test_bad_chords_raise_invalid_argument_naming_the_bad_part(chord, named):
    with pytest.raises(InvalidArgument) as caught:
        parse_chord(chord)
    assert named in caught.value.message
    _assert_chord_hint(caught.value)


def test_unknown_key_in_chord_suggests_a_close_name():
    with pytest.raises(InvalidArgument) as caught:
        parse_chord("Contrl+a")
    assert "did you mean 'Control'" in caught.value.hint


def test_empty_part_hint_says_how_to_write_the_plus_key():
    with pytest.raises(InvalidArgument) as caught:
        parse_chord("Control+")
    assert "'Control++'" in caught.value.hint


def test_chord_built_by_hand_rejects_unknown_or_repeated_modifiers():
    key = lookup_key("a")
    with pytest.raises(InvalidArgument) as unknown:
        Chord(("Ctrl",), key)
    assert "'Ctrl'" in unknown.value.message and "Control" in unknown.value.hint
    with pytest.raises(InvalidArgument):
        Chord(("Shift", "Shift"), key)


def test_chord_prints_as_a_chord_string():
    assert str(parse_chord("Shift+Control+ArrowLeft")) == "Control+Shift+ArrowLeft"
    assert str(parse_chord("Control++")) == "Control++"
    assert str(parse_chord("Space")) == "Space"
    assert parse_chord("Control+Shift+a").modifier_bits == 10


# ---- chord events -------------------------------------------------------------------


def _key(type_, key, code, key_code, modifiers, location=0, **extra):
    params = {
        "type": type_,
        "key": key,
        "code": code,
        "windowsVirtualKeyCode": key_code,
        "nativeVirtualKeyCode": key_code,
        "modifiers": modifiers,
        "autoRepeat": False,
        "isKeypad": False,
    }
    if location:
        params["location"] = location
    params.update(extra)
    return params


def test_control_shift_arrowleft_event_sequence_is_exact():
    assert chord_events(parse_chord("Control+Shift+ArrowLeft"), platform=LINUX) == [
        _key("rawKeyDown", "Control", "ControlLeft", 17, 2, 1),
        _key("rawKeyDown", "Shift", "ShiftLeft", 16, 2 | 8, 1),
        _key(
            "rawKeyDown",
            "ArrowLeft",
            "ArrowLeft",
            37,
            2 | 8,
            commands=["moveWordLeftAndModifySelection"],
        ),
        _key("keyUp", "ArrowLeft", "ArrowLeft", 37, 2 | 8),
        _key("keyUp", "Shift", "ShiftLeft", 16, 2, 1),
        _key("keyUp", "Control", "ControlLeft", 17, 0, 1),
    ]


def test_shift_a_types_capital_a():
    events = chord_events("Shift+a")
    assert [(e["type"], e["key"], e["modifiers"]) for e in events] == [
        ("rawKeyDown", "Shift", 8),
        ("keyDown", "A", 8),
        ("keyUp", "A", 8),
        ("keyUp", "Shift", 0),
    ]
    assert events[1]["text"] == events[1]["unmodifiedText"] == "A"
    assert events[1]["code"] == "KeyA"
    assert _typed(events) == "A"


def test_shift_with_a_digit_types_its_symbol():
    events = chord_events("Shift+1")
    assert (events[1]["key"], events[1]["code"], events[1]["text"]) == ("!", "Digit1", "!")


def test_control_a_types_nothing_and_carries_select_all():
    events = chord_events("Control+a", platform=LINUX)
    key_down = events[1]
    assert key_down["type"] == "rawKeyDown"
    assert "text" not in key_down and "unmodifiedText" not in key_down
    assert key_down["key"] == "a" and key_down["modifiers"] == 2
    assert key_down["commands"] == ["selectAll"]
    assert _typed(events) == ""
    # Only the key's keyDown carries the commands.
    assert [e for e in events if "commands" in e] == [key_down]


def test_capital_letter_in_a_shortcut_names_the_key_and_shift_decides_case():
    assert chord_events("Control+A", platform=LINUX) == chord_events("Control+a", platform=LINUX)
    key_down = chord_events("Control+Shift+z", platform=LINUX)[2]
    assert (key_down["key"], key_down["modifiers"], key_down["commands"]) == ("Z", 10, ["redo"])
    assert "text" not in key_down


@pytest.mark.parametrize("chord", ["Alt+a", "Meta+a", "Control+Shift+a", "Control+Enter"])
def test_any_non_shift_modifier_suppresses_text(chord):
    events = chord_events(chord)
    assert _typed(events) == ""
    assert all(e["type"] != "keyDown" for e in events)


def test_select_all_is_meta_a_on_mac_and_not_control_a():
    assert commands_for_chord(parse_chord("Meta+a"), platform=MAC) == ["selectAll"]
    assert commands_for_chord(parse_chord("Control+a"), platform=MAC) == []
    assert commands_for_chord(parse_chord("Meta+a"), platform=LINUX) == []


def test_enter_types_carriage_return():
    events = chord_events("Enter")
    assert [e["type"] for e in events] == ["keyDown", "keyUp"]
    assert events[0]["text"] == events[0]["unmodifiedText"] == "\r"
    assert events[0]["windowsVirtualKeyCode"] == 13
    assert "text" not in events[1]


def test_keys_without_text_are_raw_key_downs():
    for name in ("Tab", "Escape", "Backspace", "F5", "ArrowUp", "Shift"):
        events = chord_events(name)
        assert events[0]["type"] == "rawKeyDown", name
        assert "text" not in events[0]


def test_modifier_pressed_as_the_key_reports_its_own_bit_on_keydown_only():
    events = chord_events("Control+Shift")
    assert [(e["type"], e["key"], e["modifiers"]) for e in events] == [
        ("rawKeyDown", "Control", 2),
        ("rawKeyDown", "Shift", 10),
        ("keyUp", "Shift", 2),
        ("keyUp", "Control", 0),
    ]


def test_a_character_that_needs_shift_carries_the_shift_bit():
    down = chord_events("!")[0]
    assert (down["key"], down["code"], down["modifiers"], down["text"]) == ("!", "Digit1", 8, "!")
    shortcut = chord_events("Control++")[1]
    assert (shortcut["key"], shortcut["modifiers"]) == ("+", 2 | 8)
    assert "text" not in shortcut


@pytest.mark.parametrize(
    ("chord", "commands"),
    [
        ("Control+a", ["selectAll"]),
        ("Control+c", ["copy"]),
        ("Control+x", ["cut"]),
        ("Control+v", ["paste"]),
        ("Control+z", ["undo"]),
        ("Shift+Control+Z", ["redo"]),
        ("Control+y", ["redo"]),
        ("Backspace", ["deleteBackward"]),
        ("Delete", ["deleteForward"]),
        ("Control+Backspace", ["deleteWordBackward"]),
        ("ArrowLeft", ["moveLeft"]),
        ("ArrowRight", ["moveRight"]),
        ("ArrowUp", ["moveUp"]),
        ("ArrowDown", ["moveDown"]),
        ("Shift+ArrowLeft", ["moveLeftAndModifySelection"]),
        ("Shift+ArrowDown", ["moveDownAndModifySelection"]),
        ("Control+ArrowRight", ["moveWordRight"]),
        ("Home", ["moveToBeginningOfLine"]),
        ("End", ["moveToEndOfLine"]),
        ("Shift+End", ["moveToEndOfLineAndModifySelection"]),
        ("Control+Home", ["moveToBeginningOfDocument"]),
        ("a", []),
        ("Enter", []),
        ("Control+b", []),
        ("Alt+ArrowLeft", []),
    ],
)
def test_editing_shortcuts_carry_their_commands_on_linux(chord, commands):
    parsed = parse_chord(chord, platform=LINUX)
    assert commands_for_chord(parsed, platform=LINUX) == commands
    key_down = _downs(chord_events(parsed, platform=LINUX))[-1]
    assert key_down.get("commands", []) == commands


@pytest.mark.parametrize(
    ("chord", "commands"),
    [
        ("Meta+z", ["undo"]),
        ("Meta+Shift+z", ["redo"]),
        ("Alt+ArrowLeft", ["moveWordLeft"]),
        ("Alt+Shift+ArrowRight", ["moveWordRightAndModifySelection"]),
        ("Meta+ArrowLeft", ["moveToBeginningOfLine"]),
        ("Meta+ArrowDown", ["moveToEndOfDocument"]),
        ("Control+ArrowLeft", []),
        ("Meta+y", []),
    ],
)
def test_editing_shortcuts_follow_mac_conventions_on_darwin(chord, commands):
    assert commands_for_chord(parse_chord(chord), platform=MAC) == commands


def test_key_up_never_carries_text_or_commands():
    for chord in ("a", "Shift+a", "Enter", "Control+a", "Backspace", "Numpad1"):
        for event in chord_events(chord):
            if event["type"] == "keyUp":
                assert not {"text", "unmodifiedText", "commands"} & event.keys(), chord


def test_chord_events_accepts_a_string_or_a_chord():
    assert chord_events("Shift+Tab") == chord_events(parse_chord("Shift+Tab"))


# ---- text events --------------------------------------------------------------------


def test_text_events_for_hi_bang_newline():
    assert text_events("Hi!\n") == [
        _key("keyDown", "H", "KeyH", 72, 8, text="H", unmodifiedText="H"),
        _key("keyUp", "H", "KeyH", 72, 8),
        _key("keyDown", "i", "KeyI", 73, 0, text="i", unmodifiedText="i"),
        _key("keyUp", "i", "KeyI", 73, 0),
        _key("keyDown", "!", "Digit1", 49, 8, text="!", unmodifiedText="!"),
        _key("keyUp", "!", "Digit1", 49, 8),
        _key("keyDown", "Enter", "Enter", 13, 0, text="\r", unmodifiedText="\r"),
        _key("keyUp", "Enter", "Enter", 13, 0),
    ]


def test_text_events_for_a_character_off_the_layout_is_an_insert_text_marker():
    assert text_events("é") == [{"insertText": "é"}]
    assert text_events("a中😀") == [*text_events("a"), {"insertText": "中"}, {"insertText": "😀"}]


def test_text_events_type_every_printable_ascii_character_with_keys():
    text = "".join(map(chr, range(0x20, 0x7F)))
    events = text_events(text)
    assert not any("insertText" in e for e in events)
    assert len(events) == 2 * len(text)
    assert _typed(events) == text


def test_text_events_treat_crlf_as_one_enter_and_tab_as_the_tab_key():
    events = text_events("a\r\nb\rc\td")
    assert [e["key"] for e in _downs(events)] == ["a", "Enter", "b", "Enter", "c", "Tab", "d"]
    assert _downs(events)[5]["type"] == "rawKeyDown"  # Tab moves focus, types nothing


def test_text_events_of_empty_text_is_empty():
    assert text_events("") == []


@pytest.mark.parametrize("text", ["a\x08", "\x1b", "x\x00y", "\x7f"])
def test_text_events_reject_control_characters_with_a_hint(text):
    with pytest.raises(InvalidArgument) as caught:
        text_events(text)
    assert "control character" in caught.value.message
    assert "Backspace" in caught.value.hint


def test_a_long_text_is_checked_at_once_and_its_keys_made_as_they_are_sent():
    started = time.monotonic()
    keys = character_events("x" * 2_000_000 + "\r\nÉ")
    end, first = next(keys)
    assert time.monotonic() - started < 1.0  # not seconds of events made up front
    assert end == 1 and [e["type"] for e in first] == ["keyDown", "keyUp"]
    with pytest.raises(InvalidArgument) as caught:
        character_events("x" * 2_000_000 + "\x1b")  # before a single key is sent
    assert "at index 2000000" in caught.value.message
    tail = list(character_events("a\r\nÉ"))
    assert [end for end, _ in tail] == [1, 3, 4]
    assert tail[2][1] == ({"insertText": "É"},)
