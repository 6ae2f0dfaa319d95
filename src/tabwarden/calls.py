"""Calls named once and written the way the surface in use takes them.

Text that tells the agent what to call next ("stop it with …", "answer it with …")
holds a :class:`Call` (or an :class:`Arg`), not a spelling of it. The call is written
when the text is made, for the surface whose call is in progress:

* Python API: ``tab.terminate_script()``, ``browser.dialog(action='accept', …)``
* a tool call (MCP, or any harness calling the registry): ``browser_terminate_script
  {"tab_id": "t1"}``
* the command line: ``tabwarden terminate-script --tab-id t1``

The registry's ``call_tool`` sets the writer for each tool call (:func:`writing_calls`,
from the ``ToolContext``'s surface); outside a tool call the Python spelling is used.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "PYTHON",
    "Arg",
    "Call",
    "CallWriter",
    "OneOf",
    "Surface",
    "Value",
    "call",
    "writing_calls",
]

Surface = Literal["python", "tool", "cli"]
"""Who makes the calls: the Python API, a tool-calling model (MCP), the command line."""


@dataclass(frozen=True, slots=True)
class OneOf:
    """Alternatives for one argument (``accept`` or ``dismiss``)."""

    options: tuple[str, ...]


Value = str | int | float | bool | OneOf


@dataclass(frozen=True, slots=True)
class Call:
    """A call of the API: a method of a tab (``on_tab``) or of the browser session, with
    the tool that does the same (``browser_<method>`` unless ``tool`` says)."""

    method: str
    """The Python method: ``terminate_script``."""
    args: tuple[tuple[str, Value], ...] = ()
    """Arguments by name, in the order to write them (tool parameters share the names)."""
    on_tab: str | None = None
    """A call on this tab (its id): the receiver ``tab`` in Python, a tool's ``tab_id``
    (``""``: the tab is not known, the tool's default tab is meant)."""
    tool: str = ""

    @property
    def tool_name(self) -> str:
        return self.tool or f"browser_{self.method}"

    def __str__(self) -> str:
        return _WRITER.get().call(self)


@dataclass(frozen=True, slots=True)
class Arg:
    """One parameter (``value`` None: just its name), as the surface in use spells it."""

    name: str
    value: Value | None = None

    def __str__(self) -> str:
        return _WRITER.get().arg(self)


def call(method: str, /, *, on_tab: str | None = None, tool: str = "", **args: Value) -> Call:
    """``call("terminate_script", on_tab="t1")``, ``call("switch_tab", tab_id="t2")``."""
    return Call(method, tuple(args.items()), on_tab, tool)


class CallWriter(Protocol):
    """Writes calls and parameters for one surface."""

    def call(self, call: Call) -> str: ...

    def arg(self, arg: Arg) -> str: ...


class _PythonWriter:
    def call(self, call: Call) -> str:
        receiver = "browser" if call.on_tab is None else "tab"
        args = ", ".join(f"{name}={_python(value)}" for name, value in call.args)
        return f"{receiver}.{call.method}({args})"

    def arg(self, arg: Arg) -> str:
        return arg.name if arg.value is None else f"{arg.name}={_python(arg.value)}"


def _python(value: Value) -> str:
    if isinstance(value, OneOf):
        return " or ".join(repr(option) for option in value.options)
    return repr(value)


PYTHON: CallWriter = _PythonWriter()

_WRITER: ContextVar[CallWriter] = ContextVar("tabwarden_call_writer", default=PYTHON)


@contextlib.contextmanager
def writing_calls(writer: CallWriter) -> Iterator[None]:
    """Calls and parameters formatted in this context (tasks started in it too) are
    written by ``writer``."""
    token = _WRITER.set(writer)
    try:
        yield
    finally:
        _WRITER.reset(token)
