"""The names generated code uses: where each is defined, and the imports that bring them.

Annotations and defaults are copied from the async modules as written; every name in
them is followed through the package's imports to the module that defines it, and
imported from there (the async classes themselves become their sync twins).
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import importlib.util
import inspect
import io
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field

from .layout import INDENT, LINE_LENGTH

__all__ = ["GenerationError", "Names", "Origin", "isort_key", "union_members"]

_PACKAGE = __name__.partition(".")[0]
_CODEGEN = __name__.rpartition(".")[0]
_SYNC = f"{_PACKAGE}.sync"
_RUNTIME = f"{_PACKAGE}.sync_runtime"


class GenerationError(Exception):
    """The async API has something the generator cannot turn into typed sync code."""


@dataclass(frozen=True)
class Origin:
    """Where a name is defined: ``module.name``, or the module itself (``name`` None)."""

    module: str
    name: str | None


@dataclass
class Names:
    """The names ``sync.py`` uses, each imported from where it is defined, none twice."""

    bound: dict[str, Origin] = field(default_factory=dict)
    facades: dict[Origin, str] = field(default_factory=dict)
    """Async classes with a sync twin, and the twin's name."""

    def add_facade(self, async_type: type) -> str:
        name = async_type.__name__
        self.facades[Origin(async_type.__module__, name)] = name
        self._bind(name, Origin(_SYNC, name))
        return name

    def facade_name(self, async_type: type) -> str:
        return self.facades[Origin(async_type.__module__, async_type.__name__)]

    def async_alias(self, async_type: type) -> str:
        """The async class under another name (its own is the sync twin's)."""
        alias = "Async" + async_type.__name__
        self._bind(alias, Origin(async_type.__module__, async_type.__name__))
        return alias

    def use_runtime(self, name: str) -> str:
        return self.use(name, _RUNTIME)

    def use(self, name: str, module: str) -> str:
        self._bind(name, Origin(module, name))
        return name

    def use_module(self, module: str) -> str:
        local = module.rpartition(".")[2]
        self._bind(local, Origin(module, None))
        return local

    def annotation(self, source: object, module: str) -> str:
        if not isinstance(source, str):
            raise GenerationError(
                f"an annotation in {module} is not a string: the module needs "
                "`from __future__ import annotations`"
            )
        return self.expression(source, module)

    def expression(self, source: str, module: str) -> str:
        """``source`` (an expression in ``module``'s namespace) in ``sync.py``'s namespace,
        written as it was (``20_000`` stays so) but for the names and the quotes."""
        renamed = []
        for name in ast.walk(ast.parse(source, mode="eval")):
            if isinstance(name, ast.Name):
                local = self._local_name(name.id, module)
                if local != name.id:
                    renamed.append((_offset(source, name), len(name.id), local))
        for start, length, local in sorted(renamed, reverse=True):
            source = source[:start] + local + source[start + length :]
        return _double_quoted(source)

    def wrapping(self, annotation: str, value: str) -> str:
        """``value`` (what the async API returned) as the sync API returns it."""
        facade, shape = self._facade_shape(annotation)
        if facade is None:
            return value
        helper = {"single": "wrap", "optional": "wrap_optional", "list": "wrap_list"}[shape]
        return f"{self.use_runtime(helper)}({facade}, {value})"

    def unwrapping(self, annotation: str, value: str) -> str:
        """``value`` (what the sync API was given) as the async API takes it."""
        facade, shape = self._facade_shape(annotation)
        if facade is None:
            return value
        helper = {"single": "unwrap", "optional": "unwrap_optional"}.get(shape)
        if helper is None:
            raise GenerationError(
                f"the sync API cannot take a {annotation}: teach {_CODEGEN} to unwrap it"
            )
        return f"{self.use_runtime(helper)}({value})"

    def import_sections(self) -> list[str]:
        """The import statements, in sections and order as ruff's isort sorts them."""
        sections: dict[str, list[str]] = {"stdlib": [], "third": [], "local": []}
        grouped: dict[tuple[str, str], list[str]] = {}
        for local, origin in self.bound.items():
            if origin.module == _SYNC:
                continue
            section = _section(origin.module)
            if origin.name is None and _in_package(origin.module):
                parent, _, name = origin.module.rpartition(".")
                grouped.setdefault((section, _module_text(parent)), []).append(name)
            elif origin.name is None:
                alias = "" if origin.module.endswith(local) else f" as {local}"
                sections[section].append(f"import {origin.module}{alias}")
            elif origin.name != local:
                # An `as` import gets a statement of its own, as ruff's isort writes it.
                text = _module_text(origin.module)
                sections[section].append(f"from {text} import {origin.name} as {local}")
            else:
                grouped.setdefault((section, _module_text(origin.module)), []).append(local)
        for (section, module), imported in grouped.items():
            sections[section].append(_from_import(module, sorted(imported, key=isort_key)))
        return [
            "\n".join(sorted(lines, key=_import_sort_key)) for lines in sections.values() if lines
        ]

    def _local_name(self, name: str, module: str) -> str:
        origin = _origin(name, module)
        if origin is None:
            return name
        if origin in self.facades:
            return self.facades[origin]
        if origin.name is None:
            self._bind(name, origin)
            return name
        if origin.name.startswith("_"):
            raise GenerationError(
                f"{name} (used in {module}) is private to {origin.module}: "
                "the sync API cannot name it"
            )
        self._bind(origin.name, origin)
        return origin.name

    def _facade_shape(self, annotation: str) -> tuple[str | None, str]:
        """The facade an annotation names, and how: ``F``, ``F | None`` or ``list[F]``."""
        node = ast.parse(annotation, mode="eval").body
        named = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        facades = named & set(self.facades.values())
        if not facades:
            return None, ""
        members = sorted(union_members(annotation))
        if len(facades) == 1:
            (facade,) = facades
            if members == [facade]:
                return facade, "single"
            if members == sorted([facade, "None"]):
                return facade, "optional"
            if members == [f"list[{facade}]"]:
                return facade, "list"
        raise GenerationError(
            f"the sync API cannot convert a {annotation}: teach {_CODEGEN} to convert it"
        )

    def _bind(self, local: str, origin: Origin) -> None:
        known = self.bound.setdefault(local, origin)
        if known != origin:
            raise GenerationError(
                f"two things are called {local} in the sync API: {known} and {origin}"
            )


def union_members(annotation: str) -> list[str]:
    """``A | B | None`` → ``["A", "B", "None"]``."""

    def flatten(node: ast.expr) -> Iterator[ast.expr]:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            yield from flatten(node.left)
            yield from flatten(node.right)
        else:
            yield node

    return [ast.unparse(node) for node in flatten(ast.parse(annotation, mode="eval").body)]


def isort_key(name: str) -> tuple[int, str]:
    """ruff's isort order of imported names: CONSTANTS, then Classes, then the rest."""
    if name.isupper() and len(name) > 1:
        return 0, name
    return (1 if name[:1].isupper() else 2), name


# ---- where a name comes from ---------------------------------------------------------


def _origin(name: str, module: str) -> Origin | None:
    """Where ``name`` in ``module`` is defined (imports followed within the package);
    None for a builtin."""
    for node in _module_level(_module_tree(module).body):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) != name:
                    continue
                source = _absolute(node, module)
                submodule = f"{source}.{alias.name}"
                if _is_package(source) and importlib.util.find_spec(submodule):
                    return Origin(submodule, None)
                if _in_package(source):
                    return _origin(alias.name, source)
                return Origin(source, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname == name:
                    return Origin(alias.name, None)
                if alias.asname is None and alias.name.partition(".")[0] == name:
                    return Origin(name, None)
        elif name in _defined_names(node):
            return Origin(module, name)
    if hasattr(builtins, name):
        return None
    raise GenerationError(f"cannot find where {name} (used in {module}) comes from")


@functools.cache
def _module_tree(module: str) -> ast.Module:
    return ast.parse(inspect.getsource(importlib.import_module(module)))


def _module_level(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements run at import time (and under ``if TYPE_CHECKING``), not in functions."""
    for node in statements:
        yield node
        if isinstance(node, ast.If):
            yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _module_level(block)
            for handler in node.handlers:
                yield from _module_level(handler.body)


def _defined_names(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def _absolute(node: ast.ImportFrom, module: str) -> str:
    if node.level == 0:
        return node.module or ""
    package = module if _is_package(module) else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _is_package(module: str) -> bool:
    return hasattr(importlib.import_module(module), "__path__")


def _in_package(module: str) -> bool:
    return module == _PACKAGE or module.startswith(_PACKAGE + ".")


# ---- writing imports and expressions -------------------------------------------------


def _section(module: str) -> str:
    if _in_package(module):
        return "local"
    return "stdlib" if module.partition(".")[0] in sys.stdlib_module_names else "third"


def _module_text(module: str) -> str:
    """A module of the package relative to it (``.tab``), as the package's modules write it."""
    if not _in_package(module):
        return module
    return "." + module.removeprefix(_PACKAGE).removeprefix(".")


def _from_import(module: str, imported: list[str]) -> str:
    line = f"from {module} import {', '.join(imported)}"
    if len(line) <= LINE_LENGTH:
        return line
    return f"from {module} import (\n" + "".join(f"{INDENT}{n},\n" for n in imported) + ")"


def _import_sort_key(line: str) -> tuple[int, str, str]:
    words = line.split()
    if words[0] == "import":
        return 0, words[1].lower(), ""
    return 1, words[1].lower(), words[3].lower()


def _offset(source: str, node: ast.expr) -> int:
    lines = source.splitlines(keepends=True)
    return sum(len(line) for line in lines[: node.lineno - 1]) + node.col_offset


def _double_quoted(source: str) -> str:
    """``source`` with its string literals in double quotes (ruff's style)."""
    pieces: list[str] = []
    position = 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.STRING or not token.string.startswith("'"):
            continue
        if '"' in ast.literal_eval(token.string):
            continue
        start, end = token.start[1], token.end[1]
        pieces += [source[position:start], '"' + token.string[1:-1].replace("\\'", "'") + '"']
        position = end
    return "".join(pieces) + source[position:]
