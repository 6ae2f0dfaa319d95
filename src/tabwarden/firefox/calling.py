"""What the Firefox input actions (forms, pointer, scrolling, uploads, waits) use of
their page, and calling the engine-neutral element scripts of actions/* on Firefox.

Those scripts are written for CDP's ``Runtime.callFunctionOn`` (``function() {…}``
with the element as ``this``); on Firefox they run in tabwarden's sandbox realm with
the element passed as the first argument and applied as ``this``, so both engines run
the very same script.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..config import Config
from ..frames import FrameInfo
from ..snapshot import RefTable
from .values import local_value, remote_value

__all__ = ["InputHost", "InputPage", "call_on", "call_on_remote"]

JSONObject = dict[str, Any]


class InputHost(Protocol):
    """What the actions read of the session (``FirefoxSession``)."""

    @property
    def connection(self) -> BiDiConnection: ...

    @property
    def config(self) -> Config: ...


class InputPage(Protocol):
    """What the actions use of the tab (``FirefoxPage``)."""

    @property
    def session(self) -> InputHost: ...

    @property
    def id(self) -> str: ...

    @property
    def context(self) -> str: ...

    @property
    def refs(self) -> RefTable: ...

    @property
    def frames(self) -> dict[str, FrameInfo]: ...

    def label(self, ref: str) -> str: ...

    def load_state(self) -> str: ...

    def network_quiet_s(self) -> float: ...

    async def element(self, ref: str, budget: Budget) -> tuple[str, JSONObject]: ...

    async def call_in(
        self, context: str, function: str, arguments: list[JSONObject], budget: Budget
    ) -> JSONObject: ...

    async def evaluate_in(self, context: str, expression: str, budget: Budget) -> Any: ...

    async def perform(self, context: str, actions: list[JSONObject], budget: Budget) -> object: ...


def _argument(value: Any) -> JSONObject:
    """An element (``{"sharedId": …}``) goes as the reference it is; anything else as
    a plain value."""
    if isinstance(value, dict) and set(value) == {"sharedId"}:
        return value
    return local_value(value)


def _applied(function: str) -> str:
    return f"(el, ...args) => ({function}).apply(el, args)"


async def call_on_remote(
    page: InputPage,
    context: str,
    element: JSONObject,
    function: str,
    budget: Budget,
    *args: Any,
) -> JSONObject:
    """Run ``function`` (``function(…) {…}`` on ``this``) on ``element`` of ``context``
    with ``args`` (JSON values, or elements of the same context): its remote value (a
    node it returns keeps its shared id)."""
    arguments = [element, *(_argument(a) for a in args)]
    return await page.call_in(context, _applied(function), arguments, budget)


async def call_on(
    page: InputPage,
    context: str,
    element: JSONObject,
    function: str,
    budget: Budget,
    *args: Any,
) -> Any:
    """``call_on_remote``'s value as plain JSON."""
    return remote_value(await call_on_remote(page, context, element, function, budget, *args))
