"""Every fact about a tool lives on its ToolSpec: surfaces read the spec, never a name."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

import tabwarden
from tabwarden.config import Config
from tabwarden.diagnostics.emulation import EmulationChange
from tabwarden.diagnostics.storage import CookieSpec
from tabwarden.tools.catalog import TOOLS
from tabwarden.tools.registry import get_tool, select_tools
from tabwarden.tools.spec import CommandLine, command_line_positionals
from tabwarden.tools.state import EmulateParams, StorageParams

SOURCE = Path(tabwarden.__file__).parent
SURFACES = (
    "surfaces/mcp.py",
    "surfaces/daemon.py",
    "cli.py",
    "reference.py",
    "tools/registry.py",
    "tools/call_writers.py",
    "tools/context.py",
)
NAMES = {spec.name for spec in TOOLS} | {alias for spec in TOOLS for alias in spec.aliases}
# Text that names a tool to a reader, never a test of a name: (module, tool) and why.
PROSE = {
    ("surfaces/mcp.py", "browser_snapshot"): "the server's instructions name the first call",
    ("surfaces/daemon.py", "browser_snapshot"): "an example request in an error's hint",
    ("cli.py", "browser_attach"): "option help names the MCP tool that attaches",
}


def _strings(module: str) -> list[str]:
    """The module's string literals (f-string parts too), docstrings and other bare
    strings that document left out."""
    tree = ast.parse((SOURCE / module).read_text(encoding="utf-8"))
    documentation = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in documentation
    ]


@pytest.mark.parametrize("module", SURFACES)
def test_surfaces_name_no_tool(module):
    strings = _strings(module)
    keyed = sorted(NAMES & set(strings))
    assert not keyed, f"{module} tests or keys tool names {keyed}: make it a ToolSpec field"
    named = {word for text in strings for word in re.findall(r"\b\w+\b", text) if word in NAMES}
    unexplained = sorted(name for name in named if (module, name) not in PROSE)
    assert not unexplained, f"{module} names tools {unexplained}: read the spec instead"
    stale = [name for (where, name) in PROSE if where == module and name not in named]
    assert not stale, f"PROSE allows {stale} in {module}, which no longer names them"


def test_requirements_on_the_spec_decide_what_is_served():
    config = Config()
    config.browser.evaluate_enabled = False
    served = {spec.name for spec in select_tools(("all",), config)}
    required = {spec.name for spec in TOOLS if spec.requires is not None}
    assert required and not required & served
    assert served | required == {spec.name for spec in TOOLS}


def test_command_line_positionals_come_from_the_spec():
    dialog, tabs = get_tool("browser_dialog"), get_tool("browser_tabs")
    assert dialog.cli.positional == ("action",)
    assert command_line_positionals(dialog) == ("action",)
    assert command_line_positionals(tabs) == ("action",)
    assert command_line_positionals(get_tool("browser_storage")) == ("action",)
    assert command_line_positionals(get_tool("browser_evaluate")) == ("expression",)
    assert command_line_positionals(get_tool("browser_fill")) == ("ref", "value")
    # Without the spec saying so, an optional parameter is an option.
    assert command_line_positionals(dataclasses.replace(dialog, cli=CommandLine())) == ()


def test_shared_parameter_sets_are_one_model_each():
    """The tools are built on the models the API takes: the fields are written once."""
    assert list(EmulateParams.model_fields) == [*EmulationChange.model_fields, "timeout_ms"]
    assert len(EmulationChange.model_fields) == 23
    assert list(StorageParams.model_fields) == [
        "action",
        "kind",
        *CookieSpec.model_fields,
        "all",
        "file",
        "tab_id",
        "timeout_ms",
    ]
    assert issubclass(EmulateParams, EmulationChange) and issubclass(StorageParams, CookieSpec)


def test_structured_data_is_cut_to_the_output_model():
    navigate, snapshot = get_tool("browser_navigate"), get_tool("browser_snapshot")
    assert snapshot.output is None and snapshot.structured({"tab_id": "t1"}) is None
    assert snapshot.output_schema() is None
    data = {"tab_id": "t1", "url": "http://a.test/", "title": "A", "status": None, "ok": True}
    extra = {"text": "[untrusted page data]\n…", "reached": ["load"], "navigated": True}
    # Undeclared fields, and declared ones at their default, are left out.
    assert navigate.structured({**data, **extra}) == {
        "tab_id": "t1",
        "url": "http://a.test/",
        "title": "A",
        "ok": True,
    }
    schema = navigate.output_schema()
    assert schema is not None and schema["additionalProperties"] is False
    assert set(schema["required"]) == {"tab_id", "url", "title", "ok"}
