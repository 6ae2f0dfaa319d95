"""Screening of what an MCP client sends, so every malformed request gets a JSON-RPC answer.

The SDK's stdio transport drops a line it cannot validate (invalid JSON, a batch, a
message nested too deep) without a reply, and answers a malformed ``tools/call`` with a
bare -32602; the client then waits for an answer that never comes, or learns nothing.
Each message is checked here first, on stdio and over HTTP: a rejected one is answered
with the standard code, what is wrong and the limits, and never reaches the SDK.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from pydantic import BaseModel, ValidationError

__all__ = ["MAX_DEPTH", "MAX_MESSAGE_BYTES", "Rejection", "screen_message", "too_large"]

MAX_DEPTH = 64
"""How deep objects and arrays may nest in one message (tool arguments need a handful)."""
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The largest message a client may send."""

_LIMITS = {"max_depth": MAX_DEPTH, "max_bytes": MAX_MESSAGE_BYTES}
_PARAMS: dict[str, type[BaseModel]] = {
    "tools/call": types.CallToolRequestParams,
    "tools/list": types.PaginatedRequestParams,
    "initialize": types.InitializeRequestParams,
}
"""Requests whose parameters are checked here, to say what is wrong with them (the SDK
answers a bare "Invalid request parameters")."""
_MAX_PROBLEMS = 5


@dataclass(frozen=True, slots=True)
class Rejection:
    """A message refused: the JSON-RPC error to answer it with (``reply`` False for a
    notification, which gets no answer)."""

    code: int
    message: str
    id: str | int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    reply: bool = True

    def to_json(self) -> str:
        error = {"code": self.code, "message": self.message, "data": self.data}
        return json.dumps({"jsonrpc": "2.0", "id": self.id, "error": error})


def screen_message(raw: str | bytes) -> Rejection | None:
    """Why ``raw`` (one message) is refused, or None when the SDK may take it."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE_BYTES:
        return too_large(size)
    try:
        message = json.loads(raw)
    except RecursionError:
        return _too_deep(None)
    except (ValueError, UnicodeDecodeError) as exc:
        return Rejection(
            types.PARSE_ERROR,
            f"the message is not valid JSON: {exc}",
            data={"hint": "send one JSON-RPC object per line (stdio) or per request (HTTP)"},
        )
    if isinstance(message, list):
        return Rejection(
            types.INVALID_REQUEST,
            "a batch (a JSON array) is not part of MCP",
            data={"hint": "send each request as a message of its own"},
        )
    if not isinstance(message, dict):
        return Rejection(
            types.INVALID_REQUEST,
            f"a JSON-RPC message is an object, not {_json_type(message)}",
            data={"hint": 'send {"jsonrpc": "2.0", "id": 1, "method": …, "params": {…}}'},
        )
    ident = message.get("id")
    ident = ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None
    if _depth_exceeds(message, MAX_DEPTH):
        return _too_deep(ident)
    envelope = _envelope_problem(message)
    if envelope:
        return Rejection(types.INVALID_REQUEST, envelope, id=ident, data={"hint": _ENVELOPE})
    try:
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as exc:
        return Rejection(
            types.INVALID_REQUEST,
            f"not a valid JSON-RPC 2.0 message: {_problems(exc)}",
            id=ident,
            data={"hint": _ENVELOPE},
        )
    method = str(message.get("method", ""))
    model = _PARAMS.get(method)
    if model is None:
        return None
    params = message.get("params")
    try:
        model.model_validate({} if params is None else params, by_name=False)
    except ValidationError as exc:
        return Rejection(
            types.INVALID_PARAMS,
            f"invalid params for {method}: {_problems(exc)}",
            id=ident,
            data={"hint": _PARAMS_HINTS.get(method, "")},
            reply="id" in message,
        )
    return None


_ENVELOPE = 'a request is {"jsonrpc": "2.0", "id": 1, "method": "…", "params": {…}}'


def _envelope_problem(message: dict[str, Any]) -> str:
    if message.get("jsonrpc") != "2.0":
        return 'the message needs "jsonrpc": "2.0"'
    if "method" in message:
        return "" if isinstance(message["method"], str) else '"method" must be a string'
    if "result" in message or "error" in message:
        return ""
    return 'the message has no "method" (a request or notification) and no "result" or "error"'


_PARAMS_HINTS = {
    "tools/call": 'params are {"name": "<tool>", "arguments": {…}}: arguments is an object '
    "of the tool's parameters (tools/list gives each tool's schema)",
    "tools/list": 'params are {} or {"cursor": "…"}',
    "initialize": 'params are {"protocolVersion": …, "capabilities": {…}, "clientInfo": {…}}',
}


def too_large(size: int) -> Rejection:
    """The answer to a message of ``size`` bytes, over the limit."""
    return Rejection(
        types.INVALID_REQUEST,
        f"the message is {size:,} bytes; at most {MAX_MESSAGE_BYTES:,} are accepted",
        data={"hint": "send large content in several calls", **_LIMITS},
    )


def _too_deep(ident: str | int | None) -> Rejection:
    return Rejection(
        types.INVALID_REQUEST,
        f"the message nests objects or arrays more than {MAX_DEPTH} levels deep",
        id=ident,
        data={"hint": "flatten the arguments", **_LIMITS},
    )


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether containers nest more than ``limit`` levels (without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _problems(exc: ValidationError) -> str:
    """Pydantic's errors in a line: where and what (``params.arguments: expected an object``)."""
    said: list[str] = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"] if not _is_model_name(part))
        problem = f"{where or 'the message'}: {error['msg']}"
        if problem not in said:
            said.append(problem)
    more = len(said) - _MAX_PROBLEMS
    said = said[:_MAX_PROBLEMS]
    return "; ".join(said) + (f" (and {more} more)" if more > 0 else "")


def _is_model_name(part: object) -> bool:
    """Union members appear in pydantic locations by class name (``JSONRPCRequest``)."""
    return isinstance(part, str) and part[:1].isupper()


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__
