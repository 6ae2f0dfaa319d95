"""Sans-I/O WebDriver BiDi: the CDP protocol's rules with BiDi's wire form.

Commands are matched to replies by id exactly as in CDP (the pending record, late
replies and stats are :class:`~tabwarden.cdp.protocol.CDPProtocol`'s); what differs is
the text: every command carries ``params``, a reply says ``"type": "success"`` or
``"type": "error"`` with a string error code, and an event says ``"type": "event"``.
BiDi has no sessions on the socket: events carry their browsing context in their
params, and are routed by method alone (session ``None``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..cdp.protocol import CDPProtocol, Command
from ..errors import BiDiError, TabwardenError

__all__ = ["BiDiProtocol"]

JSONObject = dict[str, Any]
W = TypeVar("W")


class BiDiProtocol(CDPProtocol[W]):
    """Encodes BiDi commands and matches their replies by id."""

    def _command_message(self, command: Command, params: JSONObject | None) -> JSONObject:
        # BiDi requires params on every command, empty or not.
        return {"id": command.id, "method": command.method, "params": params or {}}

    def _is_reply(self, message: JSONObject) -> bool:
        kind = message.get("type")
        if kind in ("success", "error"):
            return True
        return kind is None and "id" in message

    def _event_session(self, message: JSONObject) -> str | None:
        return None

    def _failure(self, command: Command, message: JSONObject) -> TabwardenError | None:
        if message.get("type") != "error":
            return None
        error = message.get("error")
        text = message.get("message")
        return BiDiError(
            command.method,
            error if isinstance(error, str) else "unknown error",
            text if isinstance(text, str) else "",
        )
