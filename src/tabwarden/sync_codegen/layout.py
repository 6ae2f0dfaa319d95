"""How generated code is laid out: already as ruff formats it, so the file stays as written."""

from __future__ import annotations

import inspect
from collections.abc import Callable

__all__ = ["INDENT", "LINE_LENGTH", "call_statement", "def_lines", "docstring"]

LINE_LENGTH = 100
INDENT = "    "


def def_lines(name: str, parameters: list[str], returns: str, depth: int) -> list[str]:
    """A ``def`` line; one parameter a line (a trailing comma keeps it so) when it is long."""
    indent = INDENT * depth
    one_line = f"{indent}def {name}({', '.join(parameters)}) -> {returns}:"
    if len(one_line) <= LINE_LENGTH:
        return [one_line]
    return [
        f"{indent}def {name}(",
        *(f"{indent}{INDENT}{parameter}," for parameter in parameters),
        f"{indent}) -> {returns}:",
    ]


def call_statement(
    statement: Callable[[str], str],
    callee: str,
    arguments: list[str],
    depth: int,
    held: str,
) -> list[str]:
    """``statement(call)`` on one line if it fits; else the call, one argument a line,
    held in a variable called ``held`` that the statement then uses."""
    indent = INDENT * depth
    line = indent + statement(f"{callee}({', '.join(arguments)})")
    if len(line) <= LINE_LENGTH:
        return [line]
    return [
        f"{indent}{held} = {callee}(",
        *(f"{indent}{INDENT}{argument}," for argument in arguments),
        f"{indent})",
        indent + statement(held),
    ]


def docstring(doc: str | None, depth: int) -> list[str]:
    """``doc`` as a docstring whose value is ``doc`` cleaned (``inspect.cleandoc``)."""
    if not doc:
        return []
    indent = INDENT * depth
    text = inspect.cleandoc(doc).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = [line.rstrip() for line in text.splitlines()]
    if lines[-1].endswith('"'):
        lines[-1] += " "  # as ruff writes it: four quotes in a row would end the string
    written = [f'{indent}"""{lines[0]}'] + [f"{indent}{line}" if line else "" for line in lines[1:]]
    if len(written[-1]) + 3 <= LINE_LENGTH:
        written[-1] += '"""'
    else:
        written.append(f'{indent}"""')
    return written
