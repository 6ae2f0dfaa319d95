"""Writes ``sync.py``, the typed synchronous API, from the public members of the async classes.

``python -m tabwarden.sync_codegen`` rewrites it; a test fails when it differs from what
``generate()`` returns. Each public coroutine becomes a blocking method with the same
signature and docstring, each other public method a method, each property and public
attribute a read-only property; async objects going in or out (a ``Tab``, a
``list[Tab]``…) are unwrapped or wrapped.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import api
from ..firefox.page import FirefoxPage
from ..firefox.session import FirefoxSession
from ..manager import SessionManager
from ..page import is_engine_side
from ..session import BrowserSession
from ..tab import Tab
from .attributes import public_attributes
from .layout import INDENT, LINE_LENGTH, call_statement, docstring
from .names import GenerationError, Names, isort_key
from .signatures import Signature

__all__ = [
    "COMMAND",
    "ENTRY_POINTS",
    "FACADES",
    "TARGET",
    "EntryPoint",
    "FacadeSpec",
    "GenerationError",
    "generate",
    "write",
]

COMMAND = "python -m tabwarden.sync_codegen"
TARGET = Path(__file__).resolve().parent.parent / "sync.py"


@dataclass(frozen=True)
class FacadeSpec:
    """An async class that gets a sync twin of the same name."""

    async_type: type
    closer: str | None = None
    """The method ``with`` calls on exit (None: not a context manager)."""
    hidden: frozenset[str] = frozenset()
    """Public attributes the layers below use, left out of the twin (methods and
    properties say so themselves: ``page.engine_side``)."""


@dataclass(frozen=True)
class EntryPoint:
    """An async-API function returning a ``SessionStart``; its twin returns the session."""

    function: Callable[..., api.SessionStart | api.FirefoxStart]
    summary: str


FACADES = (
    FacadeSpec(Tab),
    FacadeSpec(BrowserSession, closer="close"),
    FacadeSpec(FirefoxPage, hidden=frozenset({"session", "context", "navigated", "last_view"})),
    FacadeSpec(
        FirefoxSession,
        closer="close",
        hidden=frozenset({"config", "policy", "network_log", "emulation"}),
    ),
    FacadeSpec(SessionManager, closer="close_all"),
)
ENTRY_POINTS = (
    EntryPoint(
        api.launch,
        "Launch a browser (local or cloud); returns its started session (use it with ``with``).",
    ),
    EntryPoint(
        api.attach,
        "Attach to a running browser by its CDP endpoint; returns the started session.",
    ),
)

_MODULE_DOC = f'''"""The synchronous API: the same names as the async API, on a background loop.

::

    with tabwarden.sync.launch(isolated=True) as browser:
        tab = browser.new_tab("http://localhost:8000/")
        print(tab.title)

Generated from the async classes by ``{COMMAND}``; do not edit by hand.
Every call runs on one event-loop thread that lives as long as the process
(``sync_runtime.py``).
"""'''


def generate(
    facades: Sequence[FacadeSpec] = FACADES, entry_points: Sequence[EntryPoint] = ENTRY_POINTS
) -> str:
    """The source of ``sync.py`` for the async API as it is now."""
    names = Names()
    for spec in facades:
        names.add_facade(spec.async_type)
    blocks = [_facade_class(spec, names) for spec in facades]
    blocks += [_entry_point(entry, names) for entry in entry_points]
    exported = [names.facade_name(spec.async_type) for spec in facades]
    exported += [entry.function.__name__ for entry in entry_points]
    exported.append(names.use_runtime("run"))  # tabwarden.sync.run, for any coroutine
    head = [
        _MODULE_DOC,
        "from __future__ import annotations",
        *names.import_sections(),
        _all_line(sorted(exported, key=isort_key)),
    ]
    return "\n\n".join(head) + "\n\n\n" + "\n\n\n".join(blocks) + "\n"


def _all_line(exported: list[str]) -> str:
    """``__all__``, on one line when it fits, else a name a line (as ruff writes it)."""
    line = "__all__ = [" + ", ".join(f'"{name}"' for name in exported) + "]"
    if len(line) <= LINE_LENGTH:
        return line
    return "__all__ = [\n" + "".join(f'{INDENT}"{name}",\n' for name in exported) + "]"


def write(path: Path = TARGET) -> Path:
    path.write_text(generate(), encoding="utf-8")
    return path


# ---- classes -------------------------------------------------------------------------


def _facade_class(spec: FacadeSpec, names: Names) -> str:
    cls = spec.async_type
    async_alias = names.async_alias(cls)
    header = [f"class {names.facade_name(cls)}({names.use_runtime('Facade')}[{async_alias}]):"]
    header += docstring(cls.__doc__, 1)
    members: list[list[str]] = []
    if _constructor_of(cls) is not object.__init__:
        members.append(_constructor(cls, async_alias, names))
    if spec.closer is not None:
        members += _context_manager(spec.closer, names)
    properties, methods = _public_members(cls)
    readable = {name: _property(cls, name, prop, names) for name, prop in properties.items()}
    for name, attribute in public_attributes(cls, names, set(readable) | spec.hidden).items():
        readable[name] = _read_through(name, attribute.annotation, attribute.doc, names)
    members += [readable[name] for name in sorted(readable)]
    members += [_method(cls, name, methods[name], names) for name in sorted(methods)]
    return "\n".join(header) + "\n\n" + "\n\n".join("\n".join(member) for member in members)


def _public_members(cls: type) -> tuple[dict[str, property], dict[str, Callable[..., Any]]]:
    properties: dict[str, property] = {}
    methods: dict[str, Callable[..., Any]] = {}
    for name, member in inspect.getmembers(cls):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(cls, name)
        if is_engine_side(static):
            continue  # the layers below call it; not the user's API
        where = f"{cls.__name__}.{name}"
        if isinstance(static, property):
            if static.fset is not None or static.fdel is not None:
                raise GenerationError(f"{where} can be set: the sync API reads properties only")
            properties[name] = static
        elif isinstance(static, staticmethod | classmethod):
            raise GenerationError(f"{where} is a static or class method: not supported")
        elif inspect.isasyncgenfunction(member):
            raise GenerationError(f"{where} is an async generator: not supported")
        elif inspect.isfunction(member):
            methods[name] = member
    return properties, methods


def _constructor_of(cls: type) -> Callable[..., Any]:
    init: Callable[..., Any] = next(
        vars(owner)["__init__"] for owner in cls.__mro__ if "__init__" in vars(owner)
    )
    return init


def _constructor(cls: type, async_alias: str, names: Names) -> list[str]:
    """The async class's constructor: the sync object makes its async one."""
    init = _constructor_of(cls)
    signature = Signature(init, names, f"{cls.__name__}.__init__")
    adopt = names.use_runtime("adopt")
    return [
        *signature.def_lines("__init__", 1),
        *docstring(init.__doc__, 2),
        *call_statement(
            lambda call: f"{adopt}(self, {call})",
            async_alias,
            signature.arguments(),
            2,
            signature.free_name("async_object"),
        ),
    ]


def _context_manager(closer: str, names: Names) -> list[list[str]]:
    self_type = names.use("Self", "typing")
    return [
        [f"{INDENT}def __enter__(self) -> {self_type}:", f"{INDENT * 2}return self"],
        [f"{INDENT}def __exit__(self, *exc: object) -> None:", f"{INDENT * 2}self.{closer}()"],
    ]


def _property(cls: type, name: str, prop: property, names: Names) -> list[str]:
    getter = prop.fget
    assert getter is not None
    returns = inspect.signature(getter).return_annotation
    if returns is inspect.Signature.empty:
        raise GenerationError(f"{cls.__name__}.{name} has no return annotation")
    annotation = names.annotation(returns, getter.__module__)
    return _read_through(name, annotation, getter.__doc__, names)


def _read_through(name: str, annotation: str, doc: str | None, names: Names) -> list[str]:
    """A read-only property that reads the async object's (on the caller's thread)."""
    value = names.wrapping(annotation, f"{names.use_runtime('unwrap')}(self).{name}")
    return [
        f"{INDENT}@property",
        f"{INDENT}def {name}(self) -> {annotation}:",
        *docstring(doc, 2),
        f"{INDENT * 2}return {value}",
    ]


def _method(cls: type, name: str, function: Callable[..., Any], names: Names) -> list[str]:
    """A coroutine runs on the loop thread; a plain method on the caller's thread."""
    signature = Signature(function, names, f"{cls.__name__}.{name}")
    coroutine = inspect.iscoroutinefunction(function)

    def statement(call: str) -> str:
        value = f"{names.use_runtime('run')}({call})" if coroutine else call
        if signature.returns == "None":
            return value
        return f"return {names.wrapping(signature.returns, value)}"

    return [
        *signature.def_lines(name, 1),
        *docstring(function.__doc__, 2),
        *call_statement(
            statement,
            f"{names.use_runtime('unwrap')}(self).{name}",
            signature.arguments(),
            2,
            signature.free_name("coroutine" if coroutine else "result"),
        ),
    ]


# ---- entry points --------------------------------------------------------------------


def _entry_point(entry: EntryPoint, names: Names) -> str:
    function = entry.function
    overloads = typing.get_overloads(function)
    if not overloads:
        return _single_entry_point(entry, names)
    twins = [_overload(shape, function.__name__, names) for shape in overloads]
    return "\n\n\n".join([*twins, _engine_entry_point(entry, names)])


def _started_facade(shape: Callable[..., Any]) -> type:
    """The session class an entry point's overload starts (by its return annotation)."""
    returns = str(inspect.signature(shape).return_annotation)
    return FirefoxSession if "FirefoxStart" in returns else BrowserSession


def _overload(shape: Callable[..., Any], name: str, names: Names) -> str:
    facade = names.facade_name(_started_facade(shape))
    signature = Signature(shape, names, name, returns=facade)
    lines = signature.def_lines(name, 0)
    lines[-1] += " ..."  # as ruff writes an overload's body
    return "\n".join([f"@{names.use('overload', 'typing')}", *lines])


def _engine_entry_point(entry: EntryPoint, names: Names) -> str:
    """The twin of an entry point with an overload per engine: the session it starts is
    the engine's (``BrowserSession`` or ``FirefoxSession``). The overloads above it are
    what a type checker sees; this one takes every parameter and passes them on."""
    function = entry.function
    chromium = names.facade_name(BrowserSession)
    firefox = names.facade_name(FirefoxSession)
    signature = Signature(function, names, function.__name__, returns=f"{chromium} | {firefox}")
    module = names.use_module(function.__module__)
    firefox_start = names.use("FirefoxStart", api.FirefoxStart.__module__)
    wrap, run, awaited, untyped = (
        names.use_runtime(n) for n in ("wrap", "run", "awaited", "untyped")
    )
    start = signature.free_name("start")
    call = call_statement(
        lambda called: f"{start} = {called}",
        f"{untyped}({module}.{function.__name__})",
        signature.arguments(),
        1,
        start,
    )
    if len(call) > 1:
        call = call[:-1]  # a long call is assigned to ``start`` already
    return "\n".join(
        [
            *signature.def_lines(function.__name__, 0),
            *docstring(entry.summary + "\n\n" + inspect.cleandoc(function.__doc__ or ""), 1),
            *call,
            f"{INDENT}if isinstance({start}, {firefox_start}):",
            f"{INDENT * 2}return {wrap}({firefox}, {run}({awaited}({start})))",
            f"{INDENT}return {wrap}({chromium}, {run}({awaited}({start})))",
        ]
    )


def _single_entry_point(entry: EntryPoint, names: Names) -> str:
    function = entry.function
    session = names.facade_name(BrowserSession)
    signature = Signature(entry.function, names, function.__name__, returns=session)
    module = names.use_module(function.__module__)
    wrap, run, awaited = (names.use_runtime(n) for n in ("wrap", "run", "awaited"))
    lines = [
        *signature.def_lines(function.__name__, 0),
        *docstring(entry.summary + "\n\n" + inspect.cleandoc(function.__doc__ or ""), 1),
        *call_statement(
            lambda call: f"return {wrap}({session}, {run}({awaited}({call})))",
            f"{module}.{function.__name__}",
            signature.arguments(),
            1,
            signature.free_name("start"),
        ),
    ]
    return "\n".join(lines)
