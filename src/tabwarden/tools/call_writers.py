"""How calls named in hints and results are written for a tool call or a command line
(``tabwarden.calls`` has the neutral :class:`~tabwarden.calls.Call` and the Python
spelling; these need the tools' parameters)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable

from ..calls import PYTHON, Arg, Call, CallWriter, OneOf, Surface, Value
from .catalog import TOOLS
from .spec import command_line_positionals, command_name

__all__ = ["CommandLineWriter", "ToolCallWriter", "writer_for"]

_SPECS = {spec.name: spec for spec in TOOLS}


class ToolCallWriter:
    """``browser_dialog {"action": "accept", "dialog_id": "d-1"}``; a tool outside
    ``enabled`` (when given) says so and names its group."""

    def __init__(self, enabled: Iterable[str] | None = None) -> None:
        self.enabled = frozenset(enabled) if enabled is not None else None

    def call(self, call: Call) -> str:
        name = call.tool_name
        args = _tool_args(call)
        body = ", ".join(f"{json.dumps(arg)}: {_json(value)}" for arg, value in args)
        written = f"{name} {{{body}}}" if args else name
        if self.enabled is not None and name not in self.enabled and name in _SPECS:
            written += f" (in the {_SPECS[name].group} group, not enabled here)"
        return written

    def arg(self, arg: Arg) -> str:
        return arg.name if arg.value is None else f"{json.dumps(arg.name)}: {_json(arg.value)}"


class CommandLineWriter:
    """``tabwarden dialog accept --dialog-id d-1`` (with ``--session`` for a session other
    than ``default``)."""

    def __init__(self, session: str = "default") -> None:
        self.session = session

    def call(self, call: Call) -> str:
        words = ["tabwarden", command_name(call.tool_name)]
        spec = _SPECS.get(call.tool_name)
        positionals = command_line_positionals(spec) if spec is not None else ()
        args = dict(_tool_args(call))
        words += [_word(args.pop(name)) for name in positionals if name in args]
        words += [self.arg(Arg(name, value)) for name, value in args.items()]
        if self.session != "default":
            words += ["--session", shlex.quote(self.session)]
        return " ".join(words)

    def arg(self, arg: Arg) -> str:
        option = "--" + arg.name.replace("_", "-")
        if arg.value is None:
            return option
        if isinstance(arg.value, bool):
            return option if arg.value else f"--no-{option[2:]}"
        return f"{option} {_word(arg.value)}"


def writer_for(
    surface: Surface, session: str = "default", enabled: Iterable[str] | None = None
) -> CallWriter:
    """The writer for a surface: ``session`` names the CLI's session, ``enabled`` the
    tools a tool-calling client has."""
    if surface == "tool":
        return ToolCallWriter(enabled)
    if surface == "cli":
        return CommandLineWriter(session)
    return PYTHON


def _tool_args(call: Call) -> list[tuple[str, Value]]:
    """The call's arguments in the tool's parameter order, ``tab_id`` included (an
    unknown one, ``""``, is left to the tool's default: the active tab)."""
    args = dict(call.args)
    if call.on_tab:
        args["tab_id"] = call.on_tab
    spec = _SPECS.get(call.tool_name)
    order = list(spec.params.model_fields) if spec is not None else []
    return sorted(args.items(), key=lambda a: order.index(a[0]) if a[0] in order else len(order))


def _json(value: Value) -> str:
    if isinstance(value, OneOf):
        return " or ".join(json.dumps(option) for option in value.options)
    return json.dumps(value, ensure_ascii=False)


def _word(value: Value) -> str:
    if isinstance(value, OneOf):
        return "|".join(shlex.quote(option) for option in value.options)
    if isinstance(value, bool):
        return "true" if value else "false"
    return shlex.quote(str(value))
