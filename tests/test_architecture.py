"""The house rules of src/, checked on the source: layers import downward only (no
import circle, imports under ``TYPE_CHECKING`` counted), and no module uses another
module's private members."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SOURCE / "tabwarden"

PRIVATE_USES_ALLOWED: dict[tuple[str, str], str] = {
    # (module, "expression") → why it is fine. Keep this list short.
}


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SOURCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules of the package that ``module`` imports anywhere (TYPE_CHECKING too)."""
    is_package = path.name == "__init__.py"
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            candidates = [target] + [f"{target}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found |= {name for name in candidates if name in known and name != module}
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_counting_type_checking_imports() -> None:
    modules = dict(_modules())
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert _cycles(graph) == []


# The layers at the top, highest first; every other module is below them all. A module
# may import from its own rank and those after it, never from one before it.
UPPER_RANKS: list[tuple[str, ...]] = [
    (
        "tabwarden",
        "tabwarden.__main__",
        "tabwarden.cli",
        "tabwarden.reference",
        "tabwarden.sync",
        "tabwarden.sync_runtime",
        "tabwarden.sync_codegen",
        "tabwarden.surfaces",
        "tabwarden.tools",
        "tabwarden.demo",
    ),
    ("tabwarden.manager", "tabwarden.api", "tabwarden.session"),
    ("tabwarden.link", "tabwarden.tabs"),
    ("tabwarden.tab",),
    ("tabwarden.cdp_page",),
]


def _rank(module: str) -> int:
    for rank, prefixes in enumerate(UPPER_RANKS):
        if any(module == p or (p != "tabwarden" and module.startswith(p + ".")) for p in prefixes):
            return rank
    return len(UPPER_RANKS)


def test_layers_import_downward_only() -> None:
    """Nothing below the tab imports the CDP page, the tab, the registry or the session
    (they take a Page and the services instead); the tab never imports the session."""
    modules = dict(_modules())
    upward = [
        f"{name} imports {other}"
        for name, path in modules.items()
        for other in sorted(_imports(name, path, set(modules)))
        if _rank(other) < _rank(name)
    ]
    assert upward == []


def test_the_ranks_put_each_layer_where_it_belongs() -> None:
    assert _rank("tabwarden.surfaces.mcp") == 0
    assert _rank("tabwarden.session") < _rank("tabwarden.tab") < _rank("tabwarden.cdp_page")
    assert _rank("tabwarden.cdp_page") < _rank("tabwarden.actions.receipt")
    assert _rank("tabwarden.tasks") == _rank("tabwarden.page") == len(UPPER_RANKS)


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _own_private_names(tree: ast.Module) -> set[str]:
    """Private names a module defines itself: its functions, classes and module names,
    and the attributes and methods of its classes (``self._x``, ``def _x``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return {name for name in names if _is_private(name)}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(source: str) -> list[tuple[int, str]]:
    """Uses of private names a module did not define: ``thing._name`` on anything but
    ``self``/``cls``, and ``from module import _name``."""
    tree = ast.parse(source)
    own = _own_private_names(tree)
    uses: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if node.attr not in own:
                uses.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom):
            uses += [
                (node.lineno, f"from {node.module} import {alias.name}")
                for alias in node.names
                if _is_private(alias.name)
            ]
    return uses


def test_no_module_uses_another_modules_private_members() -> None:
    found = []
    for module, path in _modules():
        for line, expression in private_uses(path.read_text(encoding="utf-8")):
            if (module, expression) not in PRIVATE_USES_ALLOWED:
                found.append(f"{module}:{line} {expression}")
    assert found == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(tab):\n    return tab._session\n", [(2, "tab._session")]),
        ("from .tab import _dialog_action\n", [(1, "from tab import _dialog_action")]),
        (
            "def f(tab):\n    return tab._browser._spawn\n",
            [(2, "tab._browser._spawn"), (2, "tab._browser")],
        ),
        # A class reading its own attribute of another instance is its own business.
        (
            "class A:\n    def __init__(self):\n        self._x = 1\n    def same(self, other):\n"
            "        return other._x == self._x\n",
            [],
        ),
        ("def f(self):\n    return self._thing\n", []),
    ],
)
def test_private_uses_are_found(source: str, expected: list[tuple[int, str]]) -> None:
    assert sorted(private_uses(source)) == sorted(expected)


def test_the_allowlist_has_no_stale_entries() -> None:
    uses = {
        (module, expression)
        for module, path in _modules()
        for _, expression in private_uses(path.read_text(encoding="utf-8"))
    }
    assert set(PRIVATE_USES_ALLOWED) <= uses
