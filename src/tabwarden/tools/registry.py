"""The one tool registry: lookup, group selection, validation, calls and schema export.

Every surface (MCP server, CLI, Python API, reference docs) is derived from it.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import ValidationError

from ..activity import CallRecord, current_call
from ..arguments import problems
from ..calls import writing_calls
from ..clipping import REPLY_CHARS, clip
from ..config import Config
from ..errors import InvalidArgument, TabwardenError
from ..tool_groups import DEFAULT_GROUPS, how_to_enable, parse_groups
from .call_writers import writer_for
from .catalog import TOOLS
from .context import ToolContext
from .firefox import FIREFOX_HANDLERS, firefox_handler
from .spec import ToolResult, ToolSpec

__all__ = [
    "DEFAULT_GROUPS",
    "call_tool",
    "get_tool",
    "parse_groups",
    "schema",
    "select_tools",
]

_BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}
_ALIASES: dict[str, ToolSpec] = {a: t for t in TOOLS for a in t.aliases}


def select_tools(
    groups: Iterable[str] = DEFAULT_GROUPS, config: Config | None = None
) -> list[ToolSpec]:
    """The tools of these groups, minus those configuration turns off."""
    wanted = set(parse_groups(list(groups)))
    return [
        t
        for t in TOOLS
        if t.group in wanted
        and (config is None or t.requires is None or t.requires(config))
        # A Firefox session serves only the tools that have a handler on Firefox.
        and (config is None or config.browser.engine != "firefox" or t.name in FIREFOX_HANDLERS)
    ]


def get_tool(name: str, tools: Iterable[ToolSpec] | None = None) -> ToolSpec:
    """A tool by name or alias, among ``tools`` (default: every tool)."""
    available = {t.name: t for t in (tools if tools is not None else TOOLS)}
    spec = available.get(name) or _ALIASES.get(name)
    if spec is not None and spec.name in available:
        return spec
    known = _BY_NAME.get(name) or _ALIASES.get(name)
    if known is not None:
        also = "" if known.name == name else f" (it is {known.name})"
        served = {t.group for t in available.values()}
        hint = (
            f"its group ({known.group}) is served, but the configuration turns it off"
            if known.group in served
            else how_to_enable(known.group, served)
        )
        raise InvalidArgument(f"the tool {name}{also} is not enabled here", hint=hint)
    close = difflib.get_close_matches(name, list(available), n=3)
    raise InvalidArgument(
        f"there is no tool {name!r}",
        hint=("did you mean " + ", ".join(close) + "?") if close else "list the tools first",
    )


def validate(spec: ToolSpec, arguments: dict[str, Any] | None) -> Any:
    """The tool's parameter model from raw arguments, or an error naming the parameter."""
    try:
        return spec.params.model_validate(arguments or {})
    except ValidationError as exc:
        fields = ", ".join(spec.params.model_fields)
        raise InvalidArgument(
            f"{spec.name}: invalid arguments — {problems(exc)}",
            hint=f"{spec.name} takes: {fields}",
        ) from None


async def call_tool(
    ctx: ToolContext,
    name: str,
    arguments: dict[str, Any] | None,
    tools: Iterable[ToolSpec] | None = None,
) -> ToolResult:
    """Validate the arguments, run the tool, and redact what it returns.

    The one way every surface calls a tool, so the one place secrets are removed:
    a result's text and data, and an error's message and hint, pass through the
    context's redactor (images are left as they are), the text cut at the hard ceiling
    of every reply (``REPLY_CHARS``). Calls named in that text are
    written for the context's surface (``browser_close_tab {"tab_id": "t2"}`` for a
    tool call, ``tabwarden close-tab --tab-id t2`` on the command line).
    """
    redactor = ctx.redactor
    tools = None if tools is None else list(tools)
    enabled = None if tools is None else [t.name for t in tools]
    record = _call_record(ctx, name, arguments)
    token = current_call.set(record)
    try:
        with writing_calls(writer_for(ctx.surface, ctx.name, enabled)):
            known = _BY_NAME.get(name) or _ALIASES.get(name)
            if known is not None and ctx.engine == "firefox":
                firefox_handler(known.name)  # hidden on Firefox: say so, not "not enabled"
            spec = get_tool(name, tools)
            record.tool = spec.name
            params = validate(spec, arguments)
            _started(ctx, record)
            handler = firefox_handler(spec.name) if ctx.engine == "firefox" else spec.handler
            result = await handler(ctx, params)
    except TabwardenError as exc:
        notice = ctx.relaunch_notice()
        if notice:
            exc.message = f"{exc.message} — note: {notice}"
            exc.args = (exc.message, *exc.args[1:])
        redactor.redact_error(exc)  # in place: its type and attributes stay
        record.finish(ok=False, error={"message": exc.message, "hint": exc.hint or ""})
        _ended(ctx, record)
        raise
    finally:
        current_call.reset(token)
    notice = ctx.relaunch_notice()  # unless the result (a snapshot's header) told it
    notice = "\n".join(n for n in (notice, ctx.person_notice()) if n)
    done = dataclasses.replace(
        result,
        text=redactor.redact_text(clip(result.text, REPLY_CHARS)),
        data=redactor.redact_value(result.data),
        notice=redactor.redact_text(notice),
    )
    record.finish(ok=True, text="\n".join(t for t in (done.text, done.notice) if t))
    _ended(ctx, record)
    return done


def _call_record(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> CallRecord:
    """The timeline entry of a call (its arguments redacted, as a watcher may read them)."""
    args = ctx.redactor.redact_value(dict(arguments or {}))
    tab_id = args.get("tab_id") if isinstance(args, dict) else None
    return CallRecord(
        tool=name,
        args=args if isinstance(args, dict) else {},
        tab_id=tab_id if isinstance(tab_id, str) else None,
    )


def _started(ctx: ToolContext, record: CallRecord) -> None:
    activity = ctx.activity()
    if activity is not None:
        activity.call_started(record)


def _ended(ctx: ToolContext, record: CallRecord) -> None:
    activity = ctx.activity()  # a call that started the session is recorded in it
    if activity is not None:
        activity.call_ended(record)


def schema(
    tools: Iterable[ToolSpec], format: Literal["mcp", "openai", "anthropic"] = "mcp"
) -> list[dict[str, Any]]:
    """Tool definitions for other harnesses."""
    out = []
    for spec in tools:
        parameters = spec.input_schema()
        if format == "mcp":
            out.append(
                {"name": spec.name, "description": spec.description, "inputSchema": parameters}
            )
        elif format == "openai":
            out.append(
                {
                    "type": "function",
                    "function": {
                        "name": spec.name,
                        "description": spec.description,
                        "parameters": parameters,
                    },
                }
            )
        elif format == "anthropic":
            out.append(
                {"name": spec.name, "description": spec.description, "input_schema": parameters}
            )
        else:
            raise InvalidArgument(
                f"format={format!r} is not supported", hint="use mcp, openai or anthropic"
            )
    return out
