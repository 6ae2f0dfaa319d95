"""From a ref (or a CSS selector) to a live element in the right frame — or a loud error.

Stale means an error, never a guess: a ref whose element is gone, or whose
document navigated away, raises StaleRefError; nothing falls back to cached
coordinates or to another element with the same role and name.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ..budget import Budget
from ..cdp.session import CDPSession
from ..errors import CDPError, InvalidArgument, StaleRefError, UnknownRef
from ..snapshot.refs import parse_ref
from ..snapshot.walker import element_by_handle

if TYPE_CHECKING:
    from ..page import Page

__all__ = ["Element", "Probe", "call_on", "resolve", "resolve_with"]

T = TypeVar("T")
Probe = Callable[[CDPSession, str, str], Awaitable[T]]
"""A read of a found element (its session, its objectId in tabwarden's world, its frame)."""


@dataclass(frozen=True, slots=True)
class Element:
    """A live element: where it is rendered and a handle to it."""

    label: str
    """How messages name it: ``e7 (button "Submit")`` or the selector."""
    ref: str | None
    frame_id: str
    session: CDPSession
    backend_node_id: int
    object_id: str
    """A handle to the element in tabwarden's isolated world (page script cannot
    interfere with what actions run on it)."""
    object_group: str
    """The action's group of remote objects, released when the action ends."""
    context_id: int | None = None
    """The world ``object_id`` lives in (None: the page's main world); objects passed
    to functions on the element must come from the same one."""


async def resolve(tab: Page, target: str, budget: Budget) -> Element:
    """The element a ref or CSS selector names, checked to be live and attached."""
    element, _ = await resolve_with(tab, target, budget, None)
    return element


async def resolve_with(
    tab: Page, target: str, budget: Budget, probe: Probe[T] | None
) -> tuple[Element, T | None]:
    """``resolve``, and for a ref, ``probe`` run on the element in the same round trip
    as describing it (None for a selector: its element lives in the page's world)."""
    ref = parse_ref(target)
    if ref is None:
        return await _by_selector(tab, target.strip(), budget), None
    entry = tab.refs.get(ref)
    if entry is None:
        if tab.refs.known(ref):
            raise StaleRefError(f"{ref} is too old to use", ref=ref)
        raise UnknownRef(f"no ref {ref} in tab {tab.id}", ref=ref)
    frame = tab.frames.get(entry.frame_id)
    label = entry.describe()
    if frame is None:
        raise StaleRefError(f"{label} was in a frame that is gone", ref=ref)
    if entry.loader_id and frame.loader_id and frame.loader_id != entry.loader_id:
        raise StaleRefError(
            f"{label} belonged to a page that has navigated away (the frame now shows {frame.url})",
            ref=ref,
        )
    session = tab.frames.session_for(entry.frame_id)
    found = await element_by_handle(
        tab.frames, entry.frame_id, entry.handle, entry.world, tab.object_group, budget
    )
    if found is None:
        raise StaleRefError(f"{label} was removed from the page", ref=ref)
    object_id, context_id = found
    describing = session.send("DOM.describeNode", {"objectId": object_id}, budget=budget)
    probed: T | None = None
    if probe is None:
        described = await describing
    else:
        described, probed = await asyncio.gather(
            describing, probe(session, object_id, entry.frame_id)
        )
    backend_node_id = int(described["node"]["backendNodeId"])
    element = Element(
        label,
        ref,
        entry.frame_id,
        session,
        backend_node_id,
        object_id,
        tab.object_group,
        context_id,
    )
    return element, probed


async def call_on(
    session: CDPSession,
    object_id: str,
    function: str,
    budget: Budget,
    *args: Any,
    await_promise: bool = False,
) -> Any:
    """``Runtime.callFunctionOn`` with ``this`` = the element; returns the value."""
    reply = await session.send(
        "Runtime.callFunctionOn",
        {
            "objectId": object_id,
            "functionDeclaration": function,
            "arguments": [_argument(arg) for arg in args],
            "returnByValue": True,
            "awaitPromise": await_promise,
        },
        budget=budget,
    )
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text", "")
        raise CDPError("Runtime.callFunctionOn", -32000, f"page script failed: {text}")
    return reply.get("result", {}).get("value")


def _argument(value: Any) -> dict[str, Any]:
    if isinstance(value, dict) and "objectId" in value:
        return {"objectId": value["objectId"]}
    return {"value": value}


async def _by_selector(tab: Page, selector: str, budget: Budget) -> Element:
    session = tab.frames.main_session
    expression = (
        "(() => { try { return document.querySelector(" + json.dumps(selector) + "); }"
        " catch (e) { return 'invalid: ' + e.message; } })()"
    )
    reply = await session.send(
        "Runtime.evaluate",
        {"expression": expression, "objectGroup": tab.object_group},
        budget=budget,
    )
    result = reply.get("result", {})
    if result.get("type") == "string":
        raise InvalidArgument(
            f"{selector!r} is neither a ref nor a valid CSS selector ({result.get('value')})",
            hint="pass a ref from the latest snapshot, such as e7",
        )
    if result.get("subtype") == "null" or "objectId" not in result:
        raise UnknownRef(
            f"no element matches the selector {selector!r} in tab {tab.id}",
            hint="take a snapshot and use a ref instead (selectors only search the main frame)",
        )
    described = await session.send(
        "DOM.describeNode", {"objectId": result["objectId"]}, budget=budget
    )
    return Element(
        label=f"selector {selector!r}",
        ref=None,
        frame_id=tab.target_id,
        session=session,
        backend_node_id=described["node"]["backendNodeId"],
        object_id=result["objectId"],
        object_group=tab.object_group,
    )
