"""Screencast parameters, checked and merged for a shared screencast."""

from __future__ import annotations

import pytest

from tabwarden.errors import InvalidArgument
from tabwarden.screencast import ScreencastParams, most_demanding


def test_the_most_demanding_of_several_consumers_wins() -> None:
    live = ScreencastParams(quality=40, max_width=640, max_height=480, every_nth_frame=2)
    recording = ScreencastParams(quality=70, max_width=400, max_height=900, every_nth_frame=3)
    assert most_demanding([live, recording]) == ScreencastParams(70, 640, 900, 2)
    unlimited = ScreencastParams(quality=10)
    assert most_demanding([live, unlimited]) == ScreencastParams(40, None, None, 1)
    assert most_demanding([]) is None


def test_cdp_parameters_leave_out_sizes_not_limited() -> None:
    assert ScreencastParams(55, None, 300, 2).to_cdp() == {
        "format": "jpeg",
        "quality": 55,
        "everyNthFrame": 2,
        "maxHeight": 300,
    }


@pytest.mark.parametrize(
    "kwargs", [{"quality": 101}, {"quality": -1}, {"every_nth_frame": 0}, {"max_width": 8}]
)
def test_bad_parameters_are_refused(kwargs: dict[str, int]) -> None:
    with pytest.raises(InvalidArgument):
        ScreencastParams(**kwargs)
