"""Console and network tools (group core: the snapshot header counts what went wrong,
these show it)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from ..engines import ENGINES
from .browser import TabId, Timeout
from .context import ToolContext
from .spec import Params, ToolResult, ToolSpec

__all__ = ["TOOLS"]


def _one_or_many(value: Any) -> Any:
    """A model may send ``"error"`` or ``"4xx,5xx"`` where a list is expected."""
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [part.strip() for part in str(value).split(",") if part.strip()]
    return value


class ConsoleParams(Params):
    level: list[str] | None = Field(
        None,
        description="Only these levels: debug, log, info, warning, error (errors and uncaught "
        "exceptions), exception; or console calls such as assert, trace",
    )
    since: Literal["all", "last_read"] = Field(
        "all", description="last_read: only what came since the previous console read"
    )
    clear: bool = Field(False, description="Empty the tab's console log after reading")
    max_entries: int = Field(50, ge=1, le=1000, description="Show at most this many (newest)")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout

    @field_validator("level", mode="before")
    @classmethod
    def _levels(cls, value: Any) -> Any:
        return _one_or_many(value)


async def console(ctx: ToolContext, p: ConsoleParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    report = await tab.console(
        level=p.level,
        since=p.since,
        clear=p.clear,
        max_entries=p.max_entries,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(report.text, report.to_dict(), untrusted=True)


class NetworkParams(Params):
    url: str | None = Field(None, description="Only URLs containing this text, or matching /regex/")
    type: list[str] | None = Field(
        None, description="Only these resource types: document, xhr, fetch, script, image…"
    )
    status: list[str] | None = Field(
        None, description="Only these statuses: a code (404), a class (4xx, 5xx), failed, pending"
    )
    request_id: str | None = Field(
        None, description="Show one request's headers and bodies instead (an id such as r12)"
    )
    max_entries: int = Field(50, ge=1, le=1000, description="List at most this many (newest)")
    clear: bool = Field(False, description="Empty the tab's network log after reading")
    tab_id: str | None = TabId
    timeout_ms: float | None = Timeout

    @field_validator("type", "status", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return _one_or_many(value)


async def network(ctx: ToolContext, p: NetworkParams) -> ToolResult:
    tab = await ctx.page(p.tab_id)
    report = await tab.network(
        url=p.url,
        type=p.type,
        status=p.status,
        request_id=p.request_id,
        max_entries=p.max_entries,
        clear=p.clear,
        timeout_ms=p.timeout_ms,
    )
    return ToolResult(report.text, report.to_dict(), untrusted=True)


TOOLS: list[ToolSpec] = [
    ToolSpec(
        "browser_console",
        "core",
        "A tab's console: messages by level and uncaught exceptions, with source and line; "
        "since=last_read for only new ones, clear=true to empty it.",
        ConsoleParams,
        console,
        read_only=True,
        open_world=False,
        engines=ENGINES,
    ),
    ToolSpec(
        "browser_network",
        "core",
        "A tab's requests (method, status, type, time, size, failure reason), filtered by url, "
        "type or status; request_id for one request's headers and bodies.",
        NetworkParams,
        network,
        read_only=True,
        engines=ENGINES,
    ),
]
