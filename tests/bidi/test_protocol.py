"""The sans-I/O BiDi protocol: wire form of commands, replies, errors and events."""

from __future__ import annotations

import json

from tabwarden.bidi.protocol import BiDiProtocol
from tabwarden.cdp.protocol import ErrorReply, Event, LateReply, Reply
from tabwarden.errors import BiDiError, TabwardenError


def test_every_command_carries_params_and_ids_count_up():
    protocol: BiDiProtocol[str] = BiDiProtocol()
    first, text = protocol.encode_command("session.status", waiter="a")
    second, text2 = protocol.encode_command("browsingContext.getTree", {"maxDepth": 0}, waiter="b")
    assert json.loads(text) == {"id": first.id, "method": "session.status", "params": {}}
    assert json.loads(text2)["params"] == {"maxDepth": 0}
    assert second.id == first.id + 1
    assert protocol.pending_count == 2


def test_a_success_reply_reaches_its_waiter():
    protocol: BiDiProtocol[str] = BiDiProtocol()
    command, _ = protocol.encode_command("session.status", waiter="w")
    message = protocol.receive(
        json.dumps({"type": "success", "id": command.id, "result": {"ready": True}})
    )
    assert isinstance(message, Reply)
    assert message.waiter == "w" and message.result == {"ready": True}
    assert protocol.pending_count == 0


def test_an_error_reply_becomes_a_bidi_error_in_the_one_tree():
    protocol: BiDiProtocol[str] = BiDiProtocol()
    command, _ = protocol.encode_command("browsingContext.navigate", waiter="w")
    message = protocol.receive(
        json.dumps({"type": "error", "id": command.id, "error": "no such frame", "message": "gone"})
    )
    assert isinstance(message, ErrorReply)
    assert isinstance(message.error, BiDiError) and isinstance(message.error, TabwardenError)
    assert message.error.error == "no such frame"
    assert message.error.method == "browsingContext.navigate"
    assert "no such frame" in str(message.error) and "gone" in str(message.error)


def test_events_route_by_method_with_no_session():
    protocol: BiDiProtocol[str] = BiDiProtocol()
    message = protocol.receive(
        json.dumps({"type": "event", "method": "log.entryAdded", "params": {"text": "hi"}})
    )
    assert message == Event("log.entryAdded", {"text": "hi"}, None)


def test_a_reply_to_a_forgotten_command_is_late_and_an_error_without_id_too():
    protocol: BiDiProtocol[str] = BiDiProtocol()
    command, _ = protocol.encode_command("script.evaluate", waiter="w")
    protocol.forget(command.id)
    late = protocol.receive(json.dumps({"type": "success", "id": command.id, "result": {}}))
    assert isinstance(late, LateReply)
    unparsed = protocol.receive(
        json.dumps({"type": "error", "id": None, "error": "invalid argument", "message": "x"})
    )
    assert isinstance(unparsed, LateReply)
    assert protocol.stats.late_replies == 2


def test_frames_that_are_not_bidi_are_counted_and_dropped():
    protocol: BiDiProtocol[str] = BiDiProtocol()
    assert protocol.receive("not json") is None
    assert protocol.receive("[1, 2]") is None
    assert protocol.receive(json.dumps({"type": "event"})) is None
    assert protocol.stats.malformed == 3
