"""BiDi's script values and plain JSON, both ways: what a script returned (a remote
value) as Python, and a Python value as an argument of ``script.callFunction``."""

from __future__ import annotations

import json
from typing import Any

from ..errors import InvalidArgument, ScriptError

__all__ = ["JS_TYPES", "JSONObject", "local_value", "remote_result", "remote_value"]

JSONObject = dict[str, Any]

JS_TYPES = {
    "array": "object",
    "map": "object",
    "set": "object",
    "node": "object",
    "window": "object",
    "date": "object",
    "regexp": "object",
    "null": "object",
    "promise": "object",
    "error": "object",
    "proxy": "object",
    "weakmap": "object",
    "weakset": "object",
    "generator": "object",
    "typedarray": "object",
    "arraybuffer": "object",
    "nodelist": "object",
    "htmlcollection": "object",
}
"""BiDi's value types → JavaScript's ``typeof`` (as the Chromium engine reports it)."""


def remote_result(reply: JSONObject) -> JSONObject:
    """The remote value of a script reply; a thrown exception is a ``ScriptError``."""
    if reply.get("type") == "exception":
        details = reply.get("exceptionDetails") or {}
        text = str(details.get("text", "the script threw"))
        raise ScriptError(
            f"the script threw: {text}",
            text=text,
            line=int(details.get("lineNumber", 0)),
            column=int(details.get("columnNumber", 0)),
            url="",
        )
    result = reply.get("result")
    return result if isinstance(result, dict) else {}


def remote_value(remote: JSONObject) -> Any:
    """A BiDi remote value as plain JSON (objects as dicts, nodes by their shared id)."""
    kind = remote.get("type")
    value = remote.get("value")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return value
    if kind == "number":
        if isinstance(value, str):  # NaN, Infinity, -0
            return {"NaN": float("nan"), "-0": -0.0, "Infinity": float("inf")}.get(
                value, float("-inf")
            )
        return value
    if kind == "bigint":
        return int(str(value))
    if kind in ("array", "set"):
        return [remote_value(item) for item in value or []]
    if kind in ("object", "map"):
        out: dict[str, Any] = {}
        for key, item in value or []:
            out[key if isinstance(key, str) else json.dumps(remote_value(key))] = remote_value(item)
        return out
    if kind == "window":
        return value if isinstance(value, dict) else {}
    if kind == "node":
        return {"sharedId": remote.get("sharedId")}
    return value


def local_value(value: Any) -> JSONObject:
    """A plain JSON value as a BiDi local value (an argument of ``script.callFunction``)."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, (int, float)):
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, (list, tuple)):
        return {"type": "array", "value": [local_value(v) for v in value]}
    if isinstance(value, dict):
        return {"type": "object", "value": [[str(k), local_value(v)] for k, v in value.items()]}
    raise InvalidArgument(f"cannot pass {type(value).__name__} to the page")
