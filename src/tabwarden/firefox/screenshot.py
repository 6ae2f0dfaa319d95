"""Screenshots of a Firefox tab: the same call and the same ``Screenshot`` as on Chromium
(screenshot.py), with ``browsingContext.captureScreenshot``.

The viewport, the whole document (``origin: document``) or one element (an element
clip); PNG or JPEG. The same bounds hold: an image stops at ``MAX_SIDE_PX`` on a side
and ``MAX_AREA_PX`` in all, and a larger page or element is captured from its top left
(a box clip), saying so. ``annotate`` draws each interactive element's ref over the page
(the same overlay as on Chromium, added from tabwarden's sandbox) and takes it away
after the capture. Firefox never resizes the viewport for a capture, so nothing has to
be put back.
"""

from __future__ import annotations

import base64
import contextlib
from typing import Literal, Protocol

from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..errors import EngineUnsupported, TabwardenError
from ..page import PageView
from ..screenshot import (
    DRAW_MARKS_JS,
    REMOVE_MARKS_JS,
    Screenshot,
    bounded,
    check_capture,
    marks_of,
)
from .values import JSONObject, local_value, remote_value

__all__ = ["CapturedPage", "capture"]

_RESTORE_S = 5.0
_LAYOUT = (
    "() => { const d = document.documentElement, b = document.body;"
    " return [innerWidth, innerHeight, scrollX, scrollY, devicePixelRatio,"
    " Math.max(d.scrollWidth, b ? b.scrollWidth : 0),"
    " Math.max(d.scrollHeight, b ? b.scrollHeight : 0)]; }"
)
"""The viewport (CSS px, scroll bars included: a capture of it shows them), where it is
scrolled to, the pixel ratio and the document's size."""
_BOX = (
    "(el) => { const r = el.getBoundingClientRect();"
    " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }"
)
"""An element's box in document CSS px."""


class CapturedPage(Protocol):
    """What a capture needs of its tab (``FirefoxPage``)."""

    id: str
    context: str

    @property
    def connection(self) -> BiDiConnection: ...

    async def element(self, ref: str, budget: Budget) -> tuple[str, JSONObject]: ...

    async def call_in(
        self, context: str, function: str, arguments: list[JSONObject], budget: Budget
    ) -> JSONObject: ...

    async def read_view(self, budget: Budget) -> PageView: ...


async def capture(
    page: CapturedPage,
    budget: Budget,
    *,
    ref: str | None,
    full_page: bool,
    format: str,
    quality: int | None,
    annotate: bool,
) -> Screenshot:
    """Capture as asked (see the module's docstring)."""
    check_capture(ref=ref, full_page=full_page, format=format, quality=quality)
    image: JSONObject = {"type": f"image/{format}"}
    if quality is not None:
        image["quality"] = quality / 100
    params: JSONObject = {"context": page.context, "format": image}
    layout = remote_value(await page.call_in(page.context, _LAYOUT, [], budget))
    width, height, left, top, ratio, doc_width, doc_height = (float(v) for v in layout)
    kind: Literal["viewport", "page", "element"] = "viewport"
    full: tuple[float, float] | None = None
    if ref is not None:
        kind = "element"
        context, element = await page.element(ref, budget)
        if context != page.context:
            raise EngineUnsupported(
                "a screenshot of an element inside a frame",
                "firefox",
                hint="capture the <iframe> element itself, or the viewport",
            )
        box = remote_value(await page.call_in(context, _BOX, [element], budget))
        left, top, full_width, full_height = (float(v) for v in box)
        full = (full_width, full_height)
        width, height = bounded(full_width, full_height, ratio)
        params["origin"] = "document"
        params["clip"] = (
            {"type": "element", "element": element}
            if (width, height) == full
            else {"type": "box", "x": left, "y": top, "width": width, "height": height}
        )
    elif full_page:
        kind = "page"
        full = (doc_width, doc_height)
        left = top = 0.0
        width, height = bounded(doc_width, doc_height, ratio)
        params["origin"] = "document"
        if (width, height) != full:
            params["clip"] = {"type": "box", "x": 0, "y": 0, "width": width, "height": height}
    marks = 0
    if annotate:
        view = await page.read_view(budget.child(10.0))
        rows = None if kind != "viewport" else (top, top + height)
        drawn = await page.call_in(
            page.context, DRAW_MARKS_JS, [local_value(marks_of(view.root, rows))], budget
        )
        marks = int(remote_value(drawn) or 0)
    try:
        reply = await page.connection.send(
            "browsingContext.captureScreenshot", params, budget=budget
        )
    finally:
        if annotate:
            with contextlib.suppress(TabwardenError):
                await page.call_in(page.context, REMOVE_MARKS_JS, [], Budget(_RESTORE_S))
    return Screenshot(
        data=base64.b64decode(str(reply.get("data", ""))),
        format=format,
        width=round(width),
        height=round(height),
        marks=marks,
        kind=kind,
        left=round(left),
        top=round(top),
        full_width=None if full is None else round(full[0]),
        full_height=None if full is None else round(full[1]),
    )
