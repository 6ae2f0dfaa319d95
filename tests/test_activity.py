"""SessionActivity: events pushed to watchers, the timeline of calls, a person in control."""

from __future__ import annotations

import asyncio

import pytest

from tabwarden.activity import (
    CALLS_KEPT,
    CallRecord,
    SessionActivity,
    acting_person,
    current_call,
    gathering_pointer,
    note_pointer,
)
from tabwarden.budget import Budget
from tabwarden.errors import PersonInControl
from tabwarden.snapshot.model import Bounds, SnapshotNode


def test_nobody_watching_means_nothing_is_kept_and_watched_is_false() -> None:
    activity = SessionActivity("s")
    assert not activity.watched
    activity.publish("tabs", {"tabs": []})
    subscription = activity.subscribe()
    assert activity.watched
    assert subscription.ready() == []  # what came before the watcher is not replayed
    subscription.close()
    assert not activity.watched


async def test_events_reach_every_watcher_in_order() -> None:
    activity = SessionActivity("s")
    first, second = activity.subscribe(), activity.subscribe()
    for n in range(3):
        activity.publish("console", {"n": n}, "t1")
    assert [e.data["n"] for e in first.ready()] == [0, 1, 2]
    got = [await second.get() for _ in range(3)]
    assert [e.data["n"] for e in got] == [0, 1, 2]
    assert got[0].tab_id == "t1" and got[0].kind == "console"


def test_a_watcher_that_falls_behind_loses_the_oldest_and_is_told() -> None:
    activity = SessionActivity("s")
    slow = activity.subscribe(size=5)
    for n in range(12):
        activity.publish("network", {"n": n})
    assert slow.dropped == 7
    assert [e.data["n"] for e in slow.ready()] == [7, 8, 9, 10, 11]


async def test_one_wake_event_serves_a_watcher_of_several_sessions() -> None:
    wake = asyncio.Event()
    a, b = SessionActivity("a"), SessionActivity("b")
    on_a, on_b = a.subscribe(wake=wake), b.subscribe(wake=wake)
    b.publish("tabs", {})
    await asyncio.wait_for(wake.wait(), 5)
    assert on_a.ready() == [] and [e.kind for e in on_b.ready()] == ["tabs"]
    assert on_b.session_name == "b"


def test_the_timeline_keeps_the_newest_calls_and_pushes_each_change() -> None:
    activity = SessionActivity("s")
    watcher = activity.subscribe()
    records = [CallRecord(tool=f"tool{n}", args={}) for n in range(CALLS_KEPT + 3)]
    for record in records:
        activity.call_started(record)
        record.finish(ok=True, text="done")
        activity.call_ended(record)
    kept = activity.calls()
    assert len(kept) == CALLS_KEPT and kept[-1] is records[-1] and kept[0] is records[3]
    events = watcher.ready()
    assert [e.kind for e in events[:2]] == ["call_started", "call"]
    assert events[1].data["call"]["ok"] is True and events[1].data["call"]["duration_ms"] >= 0
    assert activity.last_call is records[-1]


def test_an_action_is_drawn_under_the_running_call_with_its_pointer_path() -> None:
    activity = SessionActivity("s")
    watcher = activity.subscribe()
    record = CallRecord(tool="browser_click", args={"ref": "e3"})
    token = current_call.set(record)
    try:
        with gathering_pointer() as points:
            note_pointer("move", 10, 20)
            note_pointer("press", 10.04, 20)
        activity.action("t1", "click", ref="e3", label='button "Go"', points=points)
    finally:
        current_call.reset(token)
    (event,) = watcher.ready()
    assert event.data["call"] == record.id and event.data["ref"] == "e3"
    assert event.data["points"] == [
        {"kind": "move", "x": 10.0, "y": 20.0},
        {"kind": "press", "x": 10.0, "y": 20.0},
    ]
    assert record.tab_id == "t1" and record.marks[0]["name"] == "click"
    note_pointer("press", 1, 1)  # outside an action: kept nowhere, no error


def test_the_latest_snapshot_per_tab_gives_its_ref_boxes() -> None:
    activity = SessionActivity("s")
    root = SnapshotNode(
        role="document",
        children=[
            SnapshotNode(role="button", name="Go", ref="e1", bounds=Bounds(5, 600, 80, 30)),
            SnapshotNode(role="text", name="no ref", bounds=Bounds(0, 0, 1, 1)),
            SnapshotNode(role="link", name="hidden", ref="e2"),
        ],
    )
    assert activity.boxes_of("t1") is None
    activity.snapshot_taken("t1", root)
    boxes = activity.boxes_of("t1")
    assert boxes is not None and boxes["tab"] == "t1"
    assert boxes["boxes"] == [
        {"ref": "e1", "role": "button", "name": "Go", "x": 5, "y": 600, "w": 80, "h": 30}
    ]
    activity.tab_gone("t1")
    assert activity.boxes_of("t1") is None


async def test_the_agent_waits_while_a_person_is_in_control_then_goes_on() -> None:
    activity = SessionActivity("s")
    await activity.until_handed_back(Budget(0.01))  # nobody in control: no wait
    activity.take_over("viewer 1")
    waiting = asyncio.create_task(activity.until_handed_back(Budget(30)))
    await asyncio.sleep(0)
    assert not waiting.done()
    activity.hand_back()
    await asyncio.wait_for(waiting, 5)


async def test_still_in_control_when_the_budget_ends_is_a_clear_error() -> None:
    activity = SessionActivity("s")
    activity.take_over("viewer 1")
    with pytest.raises(PersonInControl, match="a person has been in control") as caught:
        await activity.until_handed_back(Budget(0.05))
    assert "hand back" in caught.value.hint
    token = acting_person.set(True)  # the person's own calls never wait for themselves
    try:
        await activity.until_handed_back(Budget(0.05))
    finally:
        acting_person.reset(token)
