"""A call's arguments as a model: given whole, as keyword arguments, or both."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from tabwarden.arguments import model_from
from tabwarden.errors import InvalidArgument


class Change(BaseModel):
    model_config = ConfigDict(extra="forbid")

    width: int | None = Field(None, ge=1)
    scheme: Literal["light", "dark"] | None = None


class ChangeWithDeadline(Change):
    timeout_ms: float | None = None


def test_a_model_given_alone_is_used_as_it_is():
    given = ChangeWithDeadline(width=3, timeout_ms=5)
    assert model_from(Change, given, {}, call="change") is given


def test_keyword_arguments_go_on_top_of_the_model_and_drop_what_it_does_not_take():
    got = model_from(
        Change, ChangeWithDeadline(width=3, timeout_ms=5), {"scheme": "dark"}, call="c"
    )
    assert got == Change(width=3, scheme="dark")
    assert model_from(Change, None, {"width": 7}, call="change") == Change(width=7)


def test_bad_arguments_are_invalid_argument_naming_them_and_what_they_take():
    with pytest.raises(InvalidArgument) as choice:
        model_from(Change, None, {"scheme": "blue"}, call="change")
    assert choice.value.message.startswith("change: invalid arguments — scheme:")
    assert choice.value.hint == "scheme takes 'light' or 'dark'"
    with pytest.raises(InvalidArgument) as unknown:
        model_from(Change, None, {"colour": "x", "width": 0}, call="change")
    assert "colour" in unknown.value.message and "width" in unknown.value.message
    assert unknown.value.hint == "change takes: width, scheme"
    with pytest.raises(InvalidArgument) as shape:
        model_from(Change, {"width": 3}, {}, call="change")  # type: ignore[arg-type]
    assert "expected a Change, got dict" in shape.value.message
