"""Adaptive quality of a live view: the policy alone, no browser."""

from __future__ import annotations

from tabwarden.screencast import AdaptiveQuality, ScreencastParams
from tabwarden.screencast.quality import LADDER


def _feed(policy: AdaptiveQuality, latency_s: float, times: int, skipped: int = 0) -> int:
    """Report ``times`` frames shown; how many of them changed the step."""
    return sum(policy.shown(latency_s, skipped) for _ in range(times))


def test_slow_frames_lower_quality_and_size_one_step_at_a_time() -> None:
    policy = AdaptiveQuality(ScreencastParams(quality=80, max_width=1000, max_height=800))
    assert policy.params() == ScreencastParams(80, 1000, 800)
    assert _feed(policy, 0.400, 3) == 0  # too few frames to judge
    assert policy.shown(0.400, 0)
    lowered = policy.params()
    assert policy.step == 1
    assert lowered.quality < 80 and lowered.max_width is not None and lowered.max_width < 1000
    assert lowered.max_height is not None and lowered.max_height < 800
    # The next step needs a fresh window of the lowered frames.
    assert _feed(policy, 0.400, 3) == 0
    assert policy.shown(0.400, 0) and policy.step == 2
    assert policy.params().quality < lowered.quality


def test_it_never_goes_below_the_last_step() -> None:
    policy = AdaptiveQuality(ScreencastParams(quality=50))
    _feed(policy, 1.0, 100)
    assert policy.step == len(LADDER) - 1
    assert policy.params().quality >= 10


def test_skipped_frames_lower_it_even_when_shown_ones_are_quick() -> None:
    policy = AdaptiveQuality(ScreencastParams(quality=70, max_width=800))
    assert _feed(policy, 0.010, 4, skipped=2) == 1
    assert policy.step == 1 and policy.params().quality < 70


def test_a_few_skips_among_many_quick_frames_change_nothing() -> None:
    policy = AdaptiveQuality(ScreencastParams(quality=70, max_width=800))
    policy.shown(0.010, 1)
    assert _feed(policy, 0.010, 10) == 0
    assert policy.step == 0


def test_quick_frames_raise_it_back_to_what_was_asked() -> None:
    asked = ScreencastParams(quality=70, max_width=800, max_height=600, every_nth_frame=2)
    policy = AdaptiveQuality(asked)
    _feed(policy, 0.300, 8)
    assert policy.step == 2
    # Fast, but not a full window yet: no change.
    assert _feed(policy, 0.020, 7) == 0
    assert policy.shown(0.020, 0) and policy.step == 1
    assert _feed(policy, 0.020, 8) == 1 and policy.step == 0
    assert policy.params() == asked
    assert _feed(policy, 0.020, 16) == 0  # never above what was asked


def test_latency_between_the_thresholds_holds_the_step() -> None:
    policy = AdaptiveQuality(ScreencastParams(quality=70))
    _feed(policy, 0.300, 4)
    assert policy.step == 1
    assert _feed(policy, 0.100, 24) == 0
    assert policy.step == 1


def test_without_a_largest_size_the_page_size_is_the_base_for_smaller_steps() -> None:
    policy = AdaptiveQuality(ScreencastParams(quality=60))
    _feed(policy, 0.300, 4)
    assert policy.params().max_width is None  # no size seen yet: quality alone is lowered
    policy.saw_size(1280, 720)
    smaller = policy.params()
    assert smaller.max_width == round(1280 * LADDER[1].size)
    assert smaller.max_height == round(720 * LADDER[1].size)
    assert smaller.every_nth_frame == 1
