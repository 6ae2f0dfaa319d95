"""Unit tests for tabwarden.budget: deadlines, children and cancellation."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from types import SimpleNamespace

import pytest

from tabwarden import budget as budget_module
from tabwarden.budget import Budget
from tabwarden.errors import Cancelled, DeadlineExceeded, InvalidArgument, TabwardenError


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Replace the monotonic clock seen by tabwarden.budget only."""
    fake = FakeClock()
    monkeypatch.setattr(budget_module, "time", SimpleNamespace(monotonic=fake))
    return fake


# ---- reading -----------------------------------------------------------------------


def test_fresh_budget_has_its_full_time_left(clock: FakeClock) -> None:
    budget = Budget(2.5)
    assert budget.timeout_s == 2.5
    assert budget.remaining() == 2.5
    assert budget.elapsed() == 0.0
    assert not budget.expired
    assert budget.deadline == clock.now + 2.5


def test_remaining_and_elapsed_follow_the_clock(clock: FakeClock) -> None:
    budget = Budget(2)
    clock.now += 0.5
    assert budget.remaining() == pytest.approx(1.5)
    assert budget.elapsed() == pytest.approx(0.5)
    assert not budget.expired


def test_budget_expires_exactly_at_its_deadline(clock: FakeClock) -> None:
    budget = Budget(2)
    clock.now += 1.999
    assert not budget.expired
    clock.now += 0.001
    assert budget.expired
    assert budget.remaining() == 0.0


def test_remaining_is_never_negative_after_the_deadline(clock: FakeClock) -> None:
    budget = Budget(1)
    clock.now += 10
    assert budget.remaining() == 0.0
    assert budget.elapsed() == pytest.approx(10)
    assert budget.expired


def test_zero_budget_is_expired_at_once() -> None:
    budget = Budget(0)
    assert budget.expired
    assert budget.remaining() == 0.0


def test_integer_timeout_is_stored_as_float() -> None:
    budget = Budget(3)
    assert isinstance(budget.timeout_s, float)
    assert budget.timeout_s == 3.0


def test_from_ms_converts_milliseconds_to_seconds(clock: FakeClock) -> None:
    budget = Budget.from_ms(1500)
    assert budget.timeout_s == pytest.approx(1.5)
    assert budget.remaining() == pytest.approx(1.5)


def test_from_ms_zero_is_an_expired_budget() -> None:
    assert Budget.from_ms(0).expired


def test_repr_shows_state() -> None:
    budget = Budget(5)
    assert "5.000s" in repr(budget)
    budget.cancel()
    assert "cancelled" in repr(budget)


# ---- invalid input -----------------------------------------------------------------

BAD_VALUES = [
    pytest.param(-1, id="negative-int"),
    pytest.param(-0.001, id="negative-float"),
    pytest.param(math.nan, id="nan"),
    pytest.param(math.inf, id="inf"),
    pytest.param(-math.inf, id="minus-inf"),
    pytest.param(True, id="true"),
    pytest.param(False, id="false"),
    pytest.param("5", id="string"),
    pytest.param(None, id="none"),
    pytest.param([1], id="list"),
]


@pytest.mark.parametrize("value", BAD_VALUES)
def test_constructor_rejects_bad_timeouts(value: object) -> None:
    with pytest.raises(InvalidArgument, match="timeout_s"):
        Budget(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", BAD_VALUES)
def test_from_ms_rejects_bad_timeouts(value: object) -> None:
    with pytest.raises(InvalidArgument, match="timeout_ms"):
        Budget.from_ms(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [v for v in BAD_VALUES if v.values != (None,)])
def test_child_rejects_bad_max_s(value: object) -> None:
    # None is excluded: for child() it means "no extra limit".
    with pytest.raises(InvalidArgument, match="max_s"):
        Budget(5).child(value)  # type: ignore[arg-type]


def test_invalid_argument_is_a_value_error_and_a_tabwarden_error() -> None:
    with pytest.raises(ValueError) as info:
        Budget(-1)
    assert isinstance(info.value, InvalidArgument)
    assert isinstance(info.value, TabwardenError)
    assert info.value.hint  # every tabwarden error says what to do next


# ---- children ----------------------------------------------------------------------


def test_child_without_limit_ends_with_its_parent(clock: FakeClock) -> None:
    parent = Budget(10)
    clock.now += 4
    child = parent.child()
    assert child.deadline == pytest.approx(parent.deadline)
    assert child.timeout_s == pytest.approx(6)


def test_child_with_smaller_limit_ends_first(clock: FakeClock) -> None:
    parent = Budget(10)
    child = parent.child(1)
    assert child.deadline == pytest.approx(clock.now + 1)
    assert child.deadline < parent.deadline
    clock.now += 1
    assert child.expired
    assert not parent.expired


def test_child_with_larger_limit_ends_at_parent_deadline(clock: FakeClock) -> None:
    parent = Budget(2)
    clock.now += 0.5
    child = parent.child(100)
    assert child.deadline == pytest.approx(parent.deadline)
    assert child.timeout_s == pytest.approx(1.5)


def test_child_with_larger_limit_real_clock_never_outlives_parent() -> None:
    parent = Budget(1)
    child = parent.child(100)
    assert child.timeout_s <= 1
    assert child.deadline == pytest.approx(parent.deadline, abs=0.05)


def test_child_of_expired_parent_is_expired(clock: FakeClock) -> None:
    parent = Budget(1)
    clock.now += 5
    child = parent.child(10)
    assert child.expired
    assert child.timeout_s == 0.0


def test_cancelling_parent_cancels_children_and_grandchildren() -> None:
    parent = Budget(10)
    child = parent.child()
    grandchild = child.child(1)
    parent.cancel("user stop")
    assert parent.cancelled
    assert child.cancelled
    assert grandchild.cancelled
    assert child.cancel_reason == "user stop"
    assert grandchild.cancel_reason == "user stop"


def test_child_created_after_parent_cancel_is_cancelled() -> None:
    parent = Budget(10)
    parent.cancel("gone")
    child = parent.child(1)
    assert child.cancelled
    assert child.cancel_reason == "gone"
    with pytest.raises(Cancelled, match="gone"):
        child.check()


def test_cancelling_child_leaves_parent_and_siblings_alone() -> None:
    parent = Budget(10)
    child = parent.child()
    sibling = parent.child()
    child.cancel()
    assert child.cancelled
    assert not parent.cancelled
    assert not sibling.cancelled


def test_cancel_keeps_the_first_reason() -> None:
    budget = Budget(10)
    assert budget.cancel_reason is None
    budget.cancel("first")
    budget.cancel("second")
    assert budget.cancel_reason == "first"


def test_default_cancel_reason_is_set() -> None:
    budget = Budget(10)
    budget.cancel()
    assert budget.cancelled
    assert budget.cancel_reason


# ---- check -------------------------------------------------------------------------


def test_check_passes_on_live_budget() -> None:
    Budget(10).check("anything")  # must not raise


def test_check_raises_deadline_exceeded_naming_what_and_budget(clock: FakeClock) -> None:
    budget = Budget(2)
    clock.now += 2
    with pytest.raises(DeadlineExceeded, match=r"navigate ran out of its 2000 ms budget"):
        budget.check("navigate")


def test_deadline_exceeded_is_a_timeout_error() -> None:
    with pytest.raises(TimeoutError):
        Budget(0).check()


def test_check_raises_cancelled_with_reason() -> None:
    budget = Budget(10)
    budget.cancel("the user clicked stop")
    with pytest.raises(Cancelled, match=r"click was aborted: the user clicked stop"):
        budget.check("click")


def test_check_prefers_cancelled_over_expired() -> None:
    budget = Budget(0)
    budget.cancel("stop")
    with pytest.raises(Cancelled):
        budget.check()


# ---- run ---------------------------------------------------------------------------


async def test_run_returns_the_result_within_budget() -> None:
    async def work() -> int:
        await asyncio.sleep(0)
        return 42

    assert await Budget(5).run(work()) == 42


async def test_run_on_expiry_raises_deadline_exceeded_and_cancels_the_task() -> None:
    task = asyncio.ensure_future(asyncio.sleep(30))
    budget = Budget(0.05)
    with pytest.raises(DeadlineExceeded, match=r"slow op did not finish within 50 ms"):
        await budget.run(task, what="slow op")
    assert task.cancelled()


async def test_run_on_expiry_raises_custom_on_timeout_error() -> None:
    class CustomTimeout(Exception):
        pass

    task = asyncio.ensure_future(asyncio.sleep(30))
    with pytest.raises(CustomTimeout) as info:
        await Budget(0.05).run(task, on_timeout=lambda: CustomTimeout("mine"))
    assert str(info.value) == "mine"
    assert not isinstance(info.value, DeadlineExceeded)
    assert info.value.__cause__ is None
    assert task.cancelled()


async def test_run_with_expired_budget_raises_deadline_exceeded() -> None:
    task = asyncio.ensure_future(asyncio.sleep(30))
    with pytest.raises(DeadlineExceeded):
        await Budget(0).run(task)
    assert task.cancelled()


async def test_run_on_already_cancelled_budget_raises_and_cancels_the_task() -> None:
    budget = Budget(10)
    budget.cancel("no more")
    task = asyncio.ensure_future(asyncio.sleep(30))
    with pytest.raises(Cancelled, match="no more"):
        await budget.run(task, what="fetch")
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()


async def test_cancel_from_another_thread_wakes_run_and_raises_cancelled() -> None:
    budget = Budget(20)
    started = threading.Event()
    inner_cancelled = threading.Event()

    async def work() -> None:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            inner_cancelled.set()
            raise

    def canceller() -> None:
        if started.wait(10):
            budget.cancel("stopped from a thread")

    thread = threading.Thread(target=canceller)
    begin = time.monotonic()
    thread.start()
    try:
        with pytest.raises(Cancelled, match=r"slow thing was aborted: stopped from a thread"):
            await budget.run(work(), what="slow thing")
    finally:
        thread.join(10)
    assert inner_cancelled.is_set()
    assert time.monotonic() - begin < 10  # woke on cancel, not on the 20 s deadline


async def test_cancel_in_the_loop_wakes_run() -> None:
    budget = Budget(20)
    asyncio.get_running_loop().call_soon(budget.cancel, "loop stop")
    task = asyncio.ensure_future(asyncio.sleep(30))
    with pytest.raises(Cancelled, match="loop stop"):
        await budget.run(task)
    assert task.cancelled()


async def test_cancelling_parent_wakes_run_on_child() -> None:
    parent = Budget(20)
    child = parent.child(15)
    asyncio.get_running_loop().call_soon(parent.cancel, "parent stop")
    with pytest.raises(Cancelled, match="parent stop"):
        await child.run(asyncio.sleep(30))


async def test_outer_task_cancellation_is_not_reported_as_cancelled_budget() -> None:
    budget = Budget(20)
    outer = asyncio.ensure_future(budget.run(asyncio.sleep(30)))
    await asyncio.sleep(0)
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert not budget.cancelled


async def test_run_propagates_the_awaitable_exception() -> None:
    async def fail() -> None:
        raise KeyError("inner")

    with pytest.raises(KeyError, match="inner"):
        await Budget(5).run(fail())


async def test_cancel_after_run_finished_is_harmless() -> None:
    budget = Budget(5)
    assert await budget.run(asyncio.sleep(0, result="done")) == "done"
    budget.cancel("late")
    assert budget.cancelled


async def test_sleep_never_passes_the_deadline() -> None:
    budget = Budget(0.05)
    begin = time.monotonic()
    await budget.sleep(30)
    assert time.monotonic() - begin < 5
