"""What a tool is: a name, a group, typed parameters, a description for a model, a handler,
and every other fact surfaces need about it (behaviour hints, requirements, command-line
extras): surfaces read these, never a tool's name."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.fields import FieldInfo

from ..config import Config
from ..tool_groups import GROUPS

if TYPE_CHECKING:
    from .context import ToolContext

__all__ = [
    "GROUPS",
    "UNTRUSTED_MARK",
    "CommandLine",
    "CommandLineKind",
    "FlagAlias",
    "Image",
    "OptionAlias",
    "Params",
    "ToolResult",
    "ToolSpec",
    "command_line_kind",
    "command_line_positionals",
    "command_name",
    "flat_schema",
    "text_for_people",
]

UNTRUSTED_MARK = "[untrusted page data]"
"""The line that opens a reply whose text carries page content (after a notice, if
any): what follows was written by web pages, data and never instructions. Short,
since it rides on many replies; surfaces explain it once (the MCP server's
instructions)."""


class Params(BaseModel):
    """Base of every tool's parameter model: unknown parameters are an error."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Image:
    data: bytes
    mime_type: str


@dataclass
class ToolResult:
    """A tool's outcome: text for the model, data for programs, images when any."""

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    images: list[Image] = field(default_factory=list)
    untrusted: bool = False
    """The text carries page content (page text, titles, messages, script results): data
    from the web, never instructions. Only then is the text marked (``UNTRUSTED_MARK``)."""
    is_error: bool = False
    """The call did not do what it was asked (a navigation a dialog held back), though it
    has a result to show: surfaces flag it as an error (MCP ``isError``, CLI exit 3)."""
    notice: str = ""
    """Something the caller must learn first, said once (the browser was relaunched)."""

    def final_text(self) -> str:
        """The text with its size stated (and marked when it carries page content)."""
        body = self.text
        if self.untrusted:
            body = f"{UNTRUSTED_MARK}\n{body}"
        if self.notice:
            body = f"# {self.notice}\n{body}"
        if body.rstrip().splitlines()[-1:] and " chars" in body.rstrip().splitlines()[-1]:
            return body  # the domain already stated its size (snapshots, receipts)
        return f"{body}\n# {len(body):,} chars"

    def to_dict(self) -> dict[str, Any]:
        data = {**self.data, "text": self.final_text(), "untrusted": self.untrusted}
        if self.is_error:
            data["is_error"] = True
        if self.notice:
            data["notice"] = self.notice
        return data


_SIZE_LINE = re.compile(r"# [\d,]+ chars( ≈ [\d,]+ tokens)?")


def text_for_people(text: str) -> str:
    """A reply's text for a person at a terminal: without the lines written for models,
    the untrusted-data marker and the closing size line (``# 1,234 chars``)."""
    lines = text.split("\n")
    for index in range(min(2, len(lines))):  # after the notice, when there is one
        if lines[index] == UNTRUSTED_MARK:
            del lines[index]
            break
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and _SIZE_LINE.fullmatch(lines[-1]):
        lines.pop()
    return "\n".join(lines)


Handler = Callable[["ToolContext", Any], Awaitable[ToolResult]]


@dataclass(frozen=True)
class FlagAlias:
    """A command-line flag that sets a boolean parameter under a second name, one that
    other commands use too (``--allow-attach`` for ``consent``)."""

    option: str
    """The flag, ``--allow-attach``."""
    parameter: str
    """The parameter it sets to true."""
    help: str


@dataclass(frozen=True)
class OptionAlias:
    """A second, hidden name of a parameter's option, kept for scripts written before the
    option took the name every command uses (``--out`` for ``--path``)."""

    option: str
    parameter: str


@dataclass(frozen=True)
class CommandLine:
    """How the command line presents a tool, beyond what its parameters say."""

    positional: tuple[str, ...] = ()
    """Optional parameters still taken by position when they lead: ``dialog dismiss``."""
    local_paths: tuple[str, ...] = ()
    """Parameters listing local files: made absolute by the command line, since the
    daemon that runs the call may run in another folder."""
    flag_aliases: tuple[FlagAlias, ...] = ()
    option_aliases: tuple[OptionAlias, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()
    """Arguments the command line gives unless told otherwise, where its use differs from
    a model's: a terminal cannot show an image, so a screenshot is saved (``save``)."""
    aliases: tuple[str, ...] = ()
    """Other command names (``open`` for navigate), left out of the command list."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    group: str
    description: str
    params: type[Params]
    handler: Handler
    read_only: bool = False
    """Changes nothing (MCP ``readOnlyHint``; read-only tools are idempotent too)."""
    destructive: bool = False
    """May destroy state: a tab, a session, cookies (MCP ``destructiveHint``)."""
    idempotent: bool = False
    """Repeated with the same arguments it changes nothing more (MCP ``idempotentHint``)."""
    open_world: bool = True
    """Reaches pages or the network, not only this browser's own state (MCP
    ``openWorldHint``)."""
    aliases: tuple[str, ...] = ()
    """Other names it answers to."""
    requires: Callable[[Config], bool] | None = None
    """What the configuration must allow for the tool to be served (None: nothing)."""
    images: bool = False
    """Its results carry images (the command line leaves them out: it prints where the
    file was saved)."""
    cli: CommandLine = CommandLine()
    engines: tuple[str, ...] = ("chromium",)
    """The engines whose sessions ``handler`` serves: with ``firefox``, it works on a
    Firefox page as on a Chromium tab (``ctx.page()``); a Firefox session's handler
    for another tool is in ``tools/firefox.py``, else Firefox does not serve it."""
    output: type[BaseModel] | None = None
    """The shape of its structured data, for tools whose data programs read (MCP
    ``outputSchema`` and ``structuredContent``): the result's data cut to these fields.
    None: its reply is the text (and images) only."""

    def input_schema(self) -> dict[str, Any]:
        """A flat JSON Schema (no root unions, no nested anyOf): every vendor accepts it."""
        return flat_schema(self.params)

    def output_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of its structured data; None when it has none."""
        return None if self.output is None else flat_schema(self.output)

    def structured(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """A result's data as its output schema has it: only the declared fields, and of
        those with a default only the ones that differ from it (None: no output schema)."""
        if self.output is None:
            return None
        return self.output.model_validate(data).model_dump(mode="json", exclude_defaults=True)


def command_name(tool: str) -> str:
    """The command line's name for a tool: ``browser_get_text`` → ``get-text``."""
    return tool.removeprefix("browser_").replace("_", "-")


CommandLineKind = Literal["text", "number", "choice", "flag", "list", "json"]


def command_line_kind(info: FieldInfo) -> tuple[CommandLineKind, Any]:
    """How a parameter is given on the command line, and its Python type there (str,
    int, float, bool, a Literal, list[str]); objects and anything else are JSON text."""
    annotation = info.annotation
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        annotation = rest[0] if len(rest) == 1 else Any
    origin = typing.get_origin(annotation)
    if annotation is bool:
        return "flag", bool
    if annotation in (int, float):
        return "number", annotation
    if annotation is str:
        return "text", str
    if origin is Literal:
        return "choice", annotation
    if origin is list:
        (item,) = typing.get_args(annotation) or (Any,)
        if item is str or typing.get_origin(item) is Literal:
            return "list", list[str]
    return "json", str


def command_line_positionals(spec: ToolSpec) -> tuple[str, ...]:
    """The leading parameters the command line takes by position (the others are
    ``--options``): required ones, and those the spec names positional, up to the first
    flag or other optional one; a list of words takes the rest of the positions."""
    names: list[str] = []
    for name, info in spec.params.model_fields.items():
        kind, _ = command_line_kind(info)
        if kind == "flag" or not (info.is_required() or name in spec.cli.positional):
            break
        names.append(name)
        if kind == "list":
            break
    return tuple(names)


def flat_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    properties: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        properties[name] = _flatten(prop, schema.get("$defs", {}))
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        out["required"] = schema["required"]
    out["additionalProperties"] = False
    return out


def _flatten(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """Optional[X] → X (optional by not being required); $ref → inlined; no titles."""
    prop = dict(prop)
    if "$ref" in prop:
        prop = {**defs[prop.pop("$ref").split("/")[-1]], **prop}
    if "anyOf" in prop:
        options = [o for o in prop.pop("anyOf") if o.get("type") != "null"]
        if len(options) == 1:
            prop = {**_flatten(options[0], defs), **prop}
        else:
            types = [o.get("type") for o in options if "type" in o]
            prop = {**prop, "type": types}
    if prop.get("type") == "array" and "items" in prop:
        prop["items"] = _flatten(prop["items"], defs)
    if prop.get("type") == "object" and "properties" in prop:
        prop["properties"] = {k: _flatten(v, defs) for k, v in prop["properties"].items()}
    prop.pop("title", None)
    if prop.get("default", ...) is None:
        prop.pop("default")
    return prop
