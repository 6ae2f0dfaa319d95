"""A Firefox tab's console messages as Chromium's are kept: BiDi's ``log.entryAdded``
made into the same ``ConsoleEntry`` (diagnostics/console.py), so both engines' logs are
read, filtered and reported by the same ``ConsoleStore``.

BiDi sends a console call (``type: console``, its ``method``: log, warn, error,
assert, trace…) and an uncaught exception (``type: javascript``), with the top of the
stack; the frame is the entry's browsing context.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics.console import ConsoleEntry, console_kind, stack_of

__all__ = ["console_entry", "receipt_line"]

_MAX_TEXT = 2_000
_RECEIPT_TEXT = 200


def console_entry(params: dict[str, Any], tab_id: str) -> ConsoleEntry:
    """One ``log.entryAdded`` event of a tab's (or one of its frames')."""
    source = params.get("source") or {}
    frame_id = str(source.get("context", "")) if isinstance(source, dict) else ""
    trace = params.get("stackTrace") or {}
    calls = trace.get("callFrames") if isinstance(trace, dict) else None
    calls = calls if isinstance(calls, list) else []
    top = calls[0] if calls else {}
    text = str(params.get("text") or "")
    at = float(params.get("timestamp", 0)) / 1000
    if params.get("type") == "javascript":
        return ConsoleEntry(
            level="exception",
            type="exception",
            source="exception",
            text=(text if text.startswith("Uncaught") else f"Uncaught {text}")[:_MAX_TEXT],
            url=str(top.get("url", "")),
            line=int(top.get("lineNumber", -1)) + 1,
            column=int(top.get("columnNumber", -1)) + 1,
            tab_id=tab_id,
            frame_id=frame_id,
            at=at,
            stack=stack_of(calls),
        )
    method = str(params.get("method") or params.get("level") or "log")
    level, kind = console_kind(method)
    if kind == "assert" and not text:
        text = "console.assert"
    return ConsoleEntry(
        level=level,
        type=kind,
        source="console",
        text=text[:_MAX_TEXT],
        url=str(top.get("url", "")),
        line=int(top.get("lineNumber", -1)) + 1,
        column=int(top.get("columnNumber", -1)) + 1,
        tab_id=tab_id,
        frame_id=frame_id,
        at=at,
        stack=stack_of(calls) if kind in ("trace", "error", "assert") else (),
    )


def receipt_line(entry: ConsoleEntry) -> str:
    """How a receipt names a console error (as Chromium's receipts do)."""
    text = entry.text.splitlines()[0][:_RECEIPT_TEXT] if entry.text else ""
    if entry.source == "exception":
        return f"{text} ({entry.url}:{entry.line})"
    return text
