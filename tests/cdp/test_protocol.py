"""Unit tests for the sans-I/O CDP protocol: ids, replies, errors, events and routing."""

from __future__ import annotations

import gc
import json
import logging
import weakref

import pytest

from tabwarden.cdp.protocol import (
    ANY_SESSION,
    CDPProtocol,
    Command,
    ErrorReply,
    Event,
    EventRouter,
    LateReply,
    Reply,
)
from tabwarden.errors import CDPError


def frame(**message: object) -> str:
    return json.dumps(message)


# ---- encoding ----------------------------------------------------------------------


def test_command_ids_start_at_one_and_increase() -> None:
    protocol = CDPProtocol()
    ids = [protocol.encode_command("Page.enable", waiter=None)[0].id for _ in range(5)]
    assert ids == [1, 2, 3, 4, 5]


def test_encode_returns_compact_json_with_id_and_method() -> None:
    protocol = CDPProtocol()
    command, text = protocol.encode_command(
        "Page.navigate", {"url": "https://example.com"}, waiter=None
    )
    assert command == Command(1, "Page.navigate", None)
    assert json.loads(text) == {
        "id": 1,
        "method": "Page.navigate",
        "params": {"url": "https://example.com"},
    }
    assert ", " not in text and ": " not in text


@pytest.mark.parametrize("params", [None, {}])
def test_encode_omits_empty_params(params: dict[str, object] | None) -> None:
    _, text = CDPProtocol().encode_command("Page.enable", params, waiter=None)
    assert json.loads(text) == {"id": 1, "method": "Page.enable"}


def test_encode_includes_session_id() -> None:
    command, text = CDPProtocol().encode_command("Runtime.enable", session_id="S1", waiter=None)
    assert command.session_id == "S1"
    assert json.loads(text) == {"id": 1, "method": "Runtime.enable", "sessionId": "S1"}


def test_encode_without_session_has_no_session_key() -> None:
    _, text = CDPProtocol().encode_command("Target.getTargets", waiter=None)
    assert "sessionId" not in json.loads(text)


def test_encode_registers_pending_and_counts_sent() -> None:
    protocol = CDPProtocol()
    protocol.encode_command("A.a", waiter=None)
    protocol.encode_command("B.b", waiter=None)
    assert protocol.pending_count == 2
    assert protocol.stats.sent == 2


# ---- replies -----------------------------------------------------------------------


def test_reply_is_matched_to_its_command_by_id() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("Runtime.evaluate", {"expression": "1"}, "S1", waiter=None)
    message = protocol.receive(frame(id=command.id, result={"value": 1}, sessionId="S1"))
    assert message == Reply(command, {"value": 1}, None)
    assert protocol.pending_count == 0
    assert protocol.stats.replies == 1


def test_reply_accepts_bytes() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("Page.enable", waiter=None)
    message = protocol.receive(frame(id=command.id, result={}).encode())
    assert isinstance(message, Reply)
    assert message.command is command


def test_out_of_order_replies_are_matched_correctly() -> None:
    protocol = CDPProtocol()
    first, _ = protocol.encode_command("First.method", waiter=None)
    second, _ = protocol.encode_command("Second.method", waiter=None)
    third, _ = protocol.encode_command("Third.method", waiter=None)

    got_third = protocol.receive(frame(id=third.id, result={"n": 3}))
    got_first = protocol.receive(frame(id=first.id, result={"n": 1}))
    got_second = protocol.receive(frame(id=second.id, result={"n": 2}))

    assert got_third == Reply(third, {"n": 3}, None)
    assert got_first == Reply(first, {"n": 1}, None)
    assert got_second == Reply(second, {"n": 2}, None)
    assert protocol.pending_count == 0


def test_reply_without_result_has_empty_result() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("Page.enable", waiter=None)
    assert protocol.receive(frame(id=command.id)) == Reply(command, {}, None)


def test_reply_with_non_object_result_has_empty_result() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("Page.enable", waiter=None)
    assert protocol.receive(frame(id=command.id, result=[1, 2])) == Reply(command, {}, None)


def test_error_reply_becomes_cdp_error_with_method_code_message_and_session() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("DOM.querySelector", {"nodeId": 0}, "S9", waiter=None)
    message = protocol.receive(
        frame(
            id=command.id,
            sessionId="S9",
            error={"code": -32000, "message": "Could not find node"},
        )
    )
    assert isinstance(message, ErrorReply)
    assert message.command is command
    error = message.error
    assert isinstance(error, CDPError)
    assert error.method == "DOM.querySelector"
    assert error.code == -32000
    assert error.cdp_message == "Could not find node"
    assert error.session_id == "S9"
    assert "DOM.querySelector" in str(error)
    assert "S9" in str(error)
    assert "-32000" in str(error)
    assert protocol.stats.replies == 1
    assert protocol.pending_count == 0


def test_error_reply_appends_data_to_message() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("Page.navigate", waiter=None)
    message = protocol.receive(
        frame(
            id=command.id,
            error={"code": -32602, "message": "Invalid parameters", "data": "url: string expected"},
        )
    )
    assert isinstance(message, ErrorReply)
    assert message.error.cdp_message == "Invalid parameters: url: string expected"
    assert message.error.code == -32602
    assert message.error.session_id is None


def test_error_reply_that_is_not_an_object_still_becomes_cdp_error() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("X.y", waiter=None)
    message = protocol.receive(frame(id=command.id, error="boom"))
    assert isinstance(message, ErrorReply)
    assert message.error.code == 0
    assert message.error.cdp_message == "boom"
    assert message.error.method == "X.y"


# ---- late replies ------------------------------------------------------------------


def test_reply_after_forget_is_a_late_reply_and_counted() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("Slow.call", waiter=None)
    protocol.forget(command.id)
    assert protocol.pending_count == 0
    message = protocol.receive(frame(id=command.id, result={"too": "late"}))
    assert message == LateReply(command.id)
    assert protocol.stats.late_replies == 1
    assert protocol.stats.replies == 0


def test_forget_leaves_other_commands_pending() -> None:
    protocol = CDPProtocol()
    first, _ = protocol.encode_command("A.a", waiter=None)
    second, _ = protocol.encode_command("B.b", waiter=None)
    protocol.forget(first.id)
    assert protocol.receive(frame(id=second.id, result={})) == Reply(second, {}, None)


def test_forget_unknown_id_is_harmless() -> None:
    protocol = CDPProtocol()
    protocol.forget(12345)
    assert protocol.pending_count == 0


def test_duplicate_reply_is_late() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("A.a", waiter=None)
    assert isinstance(protocol.receive(frame(id=command.id, result={})), Reply)
    assert protocol.receive(frame(id=command.id, result={})) == LateReply(command.id)
    assert protocol.stats.late_replies == 1


def test_reply_to_unknown_id_is_late() -> None:
    protocol = CDPProtocol()
    assert protocol.receive(frame(id=777, result={})) == LateReply(777)
    assert protocol.stats.late_replies == 1


def test_reply_with_non_integer_id_is_late_with_minus_one() -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("A.a", waiter=None)
    assert protocol.receive(frame(id=str(command.id), result={})) == LateReply(-1)
    assert protocol.pending_count == 1  # the real command is still waiting
    assert protocol.stats.late_replies == 1


# ---- waiters: the one record of the commands in flight ---------------------------------


def test_each_reply_hands_back_the_waiter_its_command_was_sent_with() -> None:
    protocol: CDPProtocol[str] = CDPProtocol()
    first, _ = protocol.encode_command("A.a", waiter="first's")
    second, _ = protocol.encode_command("B.b", waiter="second's")
    failed = protocol.receive(frame(id=second.id, error={"code": -32000, "message": "no"}))
    assert isinstance(failed, ErrorReply) and failed.waiter == "second's"
    assert protocol.receive(frame(id=first.id, result={})) == Reply(first, {}, "first's")


def test_pending_commands_of_a_session_come_with_their_waiters() -> None:
    protocol: CDPProtocol[str] = CDPProtocol()
    on_s1, _ = protocol.encode_command("A.a", session_id="S1", waiter="a")
    protocol.encode_command("B.b", session_id="S2", waiter="b")
    assert protocol.pending_of("S1") == [(on_s1, "a")]


def test_a_forgotten_command_keeps_no_hold_on_its_waiter() -> None:
    class Waiter:
        pass

    protocol: CDPProtocol[Waiter] = CDPProtocol()
    waiter = Waiter()
    gone = weakref.ref(waiter)
    command, _ = protocol.encode_command("Slow.call", waiter=waiter)
    protocol.forget(command.id)
    del waiter
    gc.collect()
    assert gone() is None
    assert protocol.receive(frame(id=command.id, result={})) == LateReply(command.id)


# ---- events ------------------------------------------------------------------------


def test_event_is_parsed_with_session_id() -> None:
    protocol = CDPProtocol()
    message = protocol.receive(
        frame(method="Page.loadEventFired", params={"timestamp": 1.5}, sessionId="S2")
    )
    assert message == Event("Page.loadEventFired", {"timestamp": 1.5}, "S2")
    assert protocol.stats.events == 1


def test_browser_level_event_has_no_session() -> None:
    message = CDPProtocol().receive(frame(method="Target.targetCreated", params={"a": 1}))
    assert message == Event("Target.targetCreated", {"a": 1}, None)


@pytest.mark.parametrize("params", [None, [1, 2], "text"])
def test_event_with_missing_or_bad_params_has_empty_params(params: object) -> None:
    raw: dict[str, object] = {"method": "Page.frameStartedLoading"}
    if params is not None:
        raw["params"] = params
    message = CDPProtocol().receive(json.dumps(raw))
    assert message == Event("Page.frameStartedLoading", {}, None)


# ---- malformed frames --------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        pytest.param("not json at all", id="not-json"),
        pytest.param(b"\xff\xfe garbage", id="bad-bytes"),
        pytest.param("[1, 2, 3]", id="json-list"),
        pytest.param('"string"', id="json-string"),
        pytest.param("42", id="json-number"),
        pytest.param('{"params": {}}', id="event-without-method"),
        pytest.param('{"method": 5}', id="event-with-non-string-method"),
    ],
)
def test_malformed_frame_returns_none_and_is_counted(data: str | bytes) -> None:
    protocol = CDPProtocol()
    command, _ = protocol.encode_command("A.a", waiter=None)
    assert protocol.receive(data) is None
    assert protocol.stats.malformed == 1
    assert protocol.stats.events == 0
    assert protocol.stats.replies == 0
    assert protocol.pending_count == 1
    # The protocol keeps working after a bad frame.
    assert protocol.receive(frame(id=command.id, result={})) == Reply(command, {}, None)


def test_malformed_frames_accumulate_in_stats() -> None:
    protocol = CDPProtocol()
    for data in ("{", "[]", "{}"):
        assert protocol.receive(data) is None
    assert protocol.stats.malformed == 3


# ---- drain -------------------------------------------------------------------------


def test_drain_returns_and_clears_pending_commands_with_their_waiters() -> None:
    protocol: CDPProtocol[str] = CDPProtocol()
    first, _ = protocol.encode_command("A.a", waiter="first")
    second, _ = protocol.encode_command("B.b", session_id="S1", waiter="second")
    drained = protocol.drain()
    assert sorted(drained, key=lambda entry: entry[0].id) == [(first, "first"), (second, "second")]
    assert protocol.pending_count == 0
    assert protocol.drain() == []
    # Replies to drained commands are late.
    assert protocol.receive(frame(id=first.id, result={})) == LateReply(first.id)


def test_ids_keep_increasing_after_drain() -> None:
    protocol = CDPProtocol()
    protocol.encode_command("A.a", waiter=None)
    protocol.drain()
    command, _ = protocol.encode_command("B.b", waiter=None)
    assert command.id == 2


# ---- EventRouter -------------------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)


def test_router_routes_by_method_and_session() -> None:
    router = EventRouter()
    s1, s2, browser = Recorder(), Recorder(), Recorder()
    router.subscribe("Page.loadEventFired", s1, session_id="S1")
    router.subscribe("Page.loadEventFired", s2, session_id="S2")
    router.subscribe("Page.loadEventFired", browser, session_id=None)

    event = Event("Page.loadEventFired", {}, "S1")
    assert router.dispatch(event) == 1
    assert s1.events == [event]
    assert s2.events == []
    assert browser.events == []

    browser_event = Event("Page.loadEventFired", {}, None)
    assert router.dispatch(browser_event) == 1
    assert browser.events == [browser_event]
    assert s1.events == [event]


def test_router_ignores_other_methods() -> None:
    router = EventRouter()
    recorder = Recorder()
    router.subscribe("Page.loadEventFired", recorder, session_id="S1")
    assert router.dispatch(Event("Page.domContentEventFired", {}, "S1")) == 0
    assert recorder.events == []


def test_router_default_subscription_is_any_session() -> None:
    router = EventRouter()
    recorder = Recorder()
    subscription = router.subscribe("Network.requestWillBeSent", recorder)
    assert subscription.key == ("Network.requestWillBeSent", ANY_SESSION)
    events = [
        Event("Network.requestWillBeSent", {}, "S1"),
        Event("Network.requestWillBeSent", {}, "S2"),
        Event("Network.requestWillBeSent", {}, None),
    ]
    for event in events:
        assert router.dispatch(event) == 1
    assert recorder.events == events


def test_router_wildcard_method_gets_every_event_of_its_session() -> None:
    router = EventRouter()
    all_s1, everything = Recorder(), Recorder()
    router.subscribe("*", all_s1, session_id="S1")
    router.subscribe("*", everything, session_id=ANY_SESSION)
    a = Event("Page.a", {}, "S1")
    b = Event("Runtime.b", {}, "S1")
    c = Event("Page.a", {}, "S2")
    for event in (a, b, c):
        router.dispatch(event)
    assert all_s1.events == [a, b]
    assert everything.events == [a, b, c]


def test_router_calls_every_matching_subscriber_once() -> None:
    router = EventRouter()
    calls: list[str] = []
    router.subscribe("Page.x", lambda e: calls.append("exact"), session_id="S1")
    router.subscribe("Page.x", lambda e: calls.append("exact-2"), session_id="S1")
    router.subscribe("Page.x", lambda e: calls.append("any"))
    router.subscribe("*", lambda e: calls.append("star-session"), session_id="S1")
    router.subscribe("*", lambda e: calls.append("star-any"))
    assert router.dispatch(Event("Page.x", {}, "S1")) == 5
    assert calls == ["exact", "exact-2", "any", "star-session", "star-any"]


def test_subscription_close_stops_delivery_and_is_idempotent() -> None:
    router = EventRouter()
    recorder = Recorder()
    other = Recorder()
    subscription = router.subscribe("Page.x", recorder)
    router.subscribe("Page.x", other)
    assert router.subscriber_count() == 2

    subscription.close()
    assert not subscription.active
    assert router.subscriber_count() == 1
    subscription.close()
    assert router.subscriber_count() == 1

    assert router.dispatch(Event("Page.x", {}, None)) == 1
    assert recorder.events == []
    assert len(other.events) == 1


def test_subscription_as_context_manager_closes_on_exit() -> None:
    router = EventRouter()
    recorder = Recorder()
    with router.subscribe("Page.x", recorder, session_id="S1") as subscription:
        assert subscription.active
        router.dispatch(Event("Page.x", {}, "S1"))
    assert not subscription.active
    assert router.subscriber_count() == 0
    router.dispatch(Event("Page.x", {}, "S1"))
    assert len(recorder.events) == 1


def test_subscription_context_manager_closes_on_error() -> None:
    router = EventRouter()
    with pytest.raises(RuntimeError), router.subscribe("Page.x", Recorder()):
        raise RuntimeError("inside")
    assert router.subscriber_count() == 0


def test_raising_subscriber_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    router = EventRouter()
    before, after = Recorder(), Recorder()

    def broken(event: Event) -> None:
        raise RuntimeError("subscriber bug")

    router.subscribe("Page.x", before)
    router.subscribe("Page.x", broken)
    router.subscribe("Page.x", after)
    event = Event("Page.x", {}, None)
    with caplog.at_level(logging.ERROR, logger="tabwarden.cdp"):
        assert router.dispatch(event) == 3
    assert before.events == [event]
    assert after.events == [event]
    assert any("Page.x" in record.getMessage() for record in caplog.records)


def test_subscriber_closing_another_during_dispatch_skips_it() -> None:
    router = EventRouter()
    second = Recorder()
    holder: dict[str, object] = {}

    def first(event: Event) -> None:
        holder["second"].close()  # type: ignore[attr-defined]

    router.subscribe("Page.x", first)
    holder["second"] = router.subscribe("Page.x", second)
    assert router.dispatch(Event("Page.x", {}, None)) == 1
    assert second.events == []


def test_drop_session_deactivates_only_that_sessions_subscriptions() -> None:
    router = EventRouter()
    s1_exact, s1_star, s2_exact, any_session, browser = (Recorder() for _ in range(5))
    sub_s1_exact = router.subscribe("Page.x", s1_exact, session_id="S1")
    sub_s1_star = router.subscribe("*", s1_star, session_id="S1")
    sub_s2 = router.subscribe("Page.x", s2_exact, session_id="S2")
    sub_any = router.subscribe("Page.x", any_session)
    sub_browser = router.subscribe("Page.x", browser, session_id=None)
    assert router.subscriber_count() == 5

    router.drop_session("S1")

    assert not sub_s1_exact.active
    assert not sub_s1_star.active
    assert sub_s2.active
    assert sub_any.active
    assert sub_browser.active
    assert router.subscriber_count() == 3

    router.dispatch(Event("Page.x", {}, "S1"))
    router.dispatch(Event("Page.x", {}, "S2"))
    router.dispatch(Event("Page.x", {}, None))
    assert s1_exact.events == []
    assert s1_star.events == []
    assert len(s2_exact.events) == 1
    assert len(any_session.events) == 3
    assert len(browser.events) == 1

    # Closing a dropped subscription afterwards is harmless.
    sub_s1_exact.close()
    assert router.subscriber_count() == 3


def test_drop_unknown_session_changes_nothing() -> None:
    router = EventRouter()
    router.subscribe("Page.x", Recorder(), session_id="S1")
    router.drop_session("nope")
    assert router.subscriber_count() == 1


def test_subscriber_count_counts_all_keys() -> None:
    router = EventRouter()
    assert router.subscriber_count() == 0
    router.subscribe("A.a", Recorder())
    router.subscribe("A.a", Recorder())
    router.subscribe("B.b", Recorder(), session_id="S1")
    router.subscribe("*", Recorder(), session_id=None)
    assert router.subscriber_count() == 4


def test_dispatch_without_subscribers_returns_zero() -> None:
    assert EventRouter().dispatch(Event("Page.x", {}, "S1")) == 0


def test_any_session_repr() -> None:
    assert repr(ANY_SESSION) == "ANY_SESSION"
