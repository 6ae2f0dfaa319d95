"""Arguments of a call checked by a pydantic model: one list of parameters serves a tool's
schema and the Python API, and a bad value is an :class:`InvalidArgument` naming it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import InvalidArgument

__all__ = ["model_from", "problems"]

M = TypeVar("M", bound=BaseModel)


def model_from(model: type[M], given: M | None, arguments: Mapping[str, Any], *, call: str) -> M:
    """``given`` (an instance of ``model``, or of a model built on it) with ``arguments``
    over it, validated as ``model``: how a public call takes either a model or keyword
    arguments (``emulate(change)``, ``emulate(width=400)``, or both)."""
    if given is not None and not isinstance(given, model):
        raise InvalidArgument(
            f"{call}: expected a {model.__name__}, got {type(given).__name__}",
            hint=f"pass a {model.__name__}, or give its fields as keyword arguments",
        )
    if given is not None and not arguments:
        return given
    values = {} if given is None else {name: getattr(given, name) for name in model.model_fields}
    try:
        return model.model_validate({**values, **arguments})
    except ValidationError as exc:
        expected = [
            f"{_where(e['loc'])} takes {e['ctx']['expected']}"
            for e in exc.errors()
            if "expected" in e.get("ctx", {})
        ]
        raise InvalidArgument(
            f"{call}: invalid arguments — {problems(exc)}",
            hint="; ".join(expected) or f"{call} takes: {', '.join(model.model_fields)}",
        ) from None


def problems(exc: ValidationError) -> str:
    """Each problem of a validation as ``parameter: what is wrong``, joined by ``;``."""
    return "; ".join(f"{_where(error['loc'])}: {error['msg']}" for error in exc.errors())


def _where(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "arguments"
