"""The reference docs, generated from the code: tools, configuration and the CLI.

``python -m tabwarden.reference`` rewrites ``docs/reference/``; a test fails when a
file there differs from what the code generates.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import typer

from .backends.cloud.matrix import MATRIX_PATH, matrix_markdown
from .config import Config, config_reference
from .engines import MATRIX_PATH as ENGINES_MATRIX_PATH
from .engines import matrix_markdown as engines_matrix_markdown
from .surfaces.mcp import tool_definition
from .tool_groups import CONFIG_KEY, DEFAULT_GROUPS, GROUPS
from .tools.catalog import TOOLS
from .tools.firefox import FIREFOX_HANDLERS
from .tools.registry import select_tools
from .tools.spec import ToolSpec

__all__ = [
    "cli_reference",
    "config_reference",
    "definitions_size",
    "generate",
    "tools_reference",
    "write",
]

_HEADER = "Generated from the code by `python -m tabwarden.reference`; do not edit by hand."


def definitions_size(tools: Iterable[ToolSpec]) -> tuple[int, int]:
    """What the tools' definitions cost a model: the characters of the JSON an MCP
    ``tools/list`` returns for them (compact, as sent), and tokens estimated as
    characters / 4, rounded up (no tokenizer is a dependency; this one is the usual
    rule of thumb for English and JSON)."""
    listed = [
        tool_definition(spec).model_dump(by_alias=True, mode="json", exclude_none=True)
        for spec in tools
    ]
    chars = len(json.dumps(listed, separators=(",", ":"), ensure_ascii=False))
    return chars, math.ceil(chars / 4)


def tools_reference() -> str:
    served = select_tools(DEFAULT_GROUPS, Config())
    chars, tokens = definitions_size(served)
    lines = [
        "# Tools reference",
        "",
        _HEADER,
        "",
        "Every surface serves these tools: the MCP server, the CLI (`tabwarden <tool>`, the",
        "`browser_` prefix dropped) and the Python API (`Tab`/`BrowserSession` methods).",
        f"Groups: {', '.join(f'`{g}`' for g in GROUPS)}; `all` selects every one; the default",
        f"is {', '.join(f'`{g}`' for g in DEFAULT_GROUPS)} (`{CONFIG_KEY}` in the configuration, "
        "`--tools` on the command line).",
        "",
        f"The default set is {len(served)} tools. Their definitions, the JSON an MCP `tools/list`",
        f"returns for them, are {chars:,} characters: about {tokens:,} tokens, counted as",
        "characters / 4 (a test keeps it at most 6,000).",
        "",
        "| tool | group | annotations | what it does |",
        "|---|---|---|---|",
    ]
    for spec in TOOLS:
        lines.append(
            f"| [`{spec.name}`](#{spec.name}) | {spec.group} | {_annotations(spec)} | "
            f"{spec.description} |"
        )
    for spec in TOOLS:
        lines += ["", f"## {spec.name}", "", spec.description, ""]
        if spec.aliases:
            lines += [f"Also callable as {', '.join(f'`{a}`' for a in spec.aliases)}.", ""]
        lines += [f"Group `{spec.group}`. {_annotations(spec)}.", ""]
        schema = spec.input_schema()
        required = set(schema.get("required", []))
        if not schema["properties"]:
            lines.append("No parameters.")
            continue
        lines += ["| parameter | type | default | description |", "|---|---|---|---|"]
        for name, prop in schema["properties"].items():
            default = (
                "required"
                if name in required
                else f"`{prop['default']!r}`"
                if ("default" in prop)
                else "—"
            )
            lines.append(
                f"| `{name}` | {_type(prop)} | {default} | {prop.get('description', '')} |"
            )
    return "\n".join(lines) + "\n"


def cli_reference() -> str:
    from .cli import app

    command = typer.main.get_command(app)
    lines = ["# CLI reference", "", _HEADER, ""]
    lines += _command_lines(command, "tabwarden")
    return "\n".join(lines).rstrip() + "\n"


def generate() -> dict[str, str]:
    """Relative path → content of every generated reference file."""
    return {
        "docs/reference/tools.md": tools_reference(),
        "docs/reference/config.md": config_reference(),
        "docs/reference/cli.md": cli_reference(),
        MATRIX_PATH: matrix_markdown(),
        ENGINES_MATRIX_PATH: engines_matrix_markdown(frozenset(FIREFOX_HANDLERS)),
    }


def write(root: Path) -> list[Path]:
    written = []
    for relative, content in generate().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        written.append(path)
    return written


def _annotations(spec: ToolSpec) -> str:
    if spec.read_only:
        return "read-only"
    return "destructive" if spec.destructive else "changes the page"


def _type(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " \\| ".join(f"`{v}`" for v in prop["enum"])
    kind = prop.get("type", "any")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        return f"list of {_type(prop.get('items', {}))}"
    return str(kind)


def _command_lines(command: Any, path: str) -> list[str]:
    """A click command (typer's) and its subcommands, duck-typed: typer vendors click."""
    lines = [f"## `{path}`", "", (command.help or "").strip().split("\n\n")[0], ""]
    params = [p for p in command.params if p.name != "help" and not getattr(p, "hidden", False)]
    if params:
        lines += ["| argument or option | description |", "|---|---|"]
        for param in params:
            if param.param_type_name == "argument":
                name = "`" + (param.metavar or param.name or "").upper() + "`"
                help_text = (getattr(param, "help", None) or "").replace("\n", " ")
                help_text += "" if param.required else " (optional)"
            else:
                name = ", ".join(f"`{o}`" for o in (*param.opts, *param.secondary_opts))
                help_text = (getattr(param, "help", None) or "").replace("\n", " ")
            lines.append(f"| {name} | {help_text} |")
        lines.append("")
    if hasattr(command, "commands"):
        for name in sorted(command.commands):
            if not getattr(command.commands[name], "hidden", False):  # aliases, old names
                lines += _command_lines(command.commands[name], f"{path} {name}")
    return lines


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    for written in write(root):
        print(written)
