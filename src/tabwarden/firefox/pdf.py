"""A Firefox tab printed to PDF into the workspace's pdf folder: the same call, options
and ``PdfFile`` as on Chromium (diagnostics/pdf.py), with ``browsingContext.print``.

The options are checked and read by the same code (``print_options``: paper in inches,
margins CSS-like), then given in BiDi's terms: centimetres, an orientation, page ranges
as a list.
"""

from __future__ import annotations

import base64
from typing import Any

from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..diagnostics.pdf import PdfFile, count_pages
from ..errors import BiDiError, InvalidArgument
from ..safety.paths import WorkspacePaths
from .values import JSONObject

__all__ = ["print_params", "save_pdf"]

_CM_PER_INCH = 2.54
_MARGINS = {
    "top": "marginTop",
    "bottom": "marginBottom",
    "left": "marginLeft",
    "right": "marginRight",
}


def print_params(context: str, options: dict[str, Any]) -> JSONObject:
    """``browsingContext.print``'s parameters from ``print_options``' (CDP's) ones."""
    params: JSONObject = {
        "context": context,
        "background": bool(options["printBackground"]),
        "orientation": "landscape" if options["landscape"] else "portrait",
        "scale": float(options["scale"]),
        "page": {
            "width": round(float(options["paperWidth"]) * _CM_PER_INCH, 3),
            "height": round(float(options["paperHeight"]) * _CM_PER_INCH, 3),
        },
    }
    margin = {
        side: round(float(options[key]) * _CM_PER_INCH, 3)
        for side, key in _MARGINS.items()
        if key in options
    }
    if margin:
        params["margin"] = margin
    ranges = options.get("pageRanges")
    if ranges:
        params["pageRanges"] = [part.strip() for part in str(ranges).split(",") if part.strip()]
    return params


async def save_pdf(
    connection: BiDiConnection,
    paths: WorkspacePaths,
    path: str | None,
    params: JSONObject,
    budget: Budget,
) -> PdfFile:
    """Print the tab and write the PDF into the workspace (a new file: never replaced)."""
    target = paths.output_path("pdf", path, suffix=".pdf", stem="page")
    try:
        reply = await connection.send("browsingContext.print", params, budget=budget)
    except BiDiError as exc:
        if exc.error == "unsupported operation" or "range" in exc.bidi_message.lower():
            raise InvalidArgument(
                f"page_ranges={params.get('pageRanges')!r} was refused: {exc.bidi_message}",
                hint="give pages like '1-3, 5' within the document's page count",
            ) from None
        raise
    data = base64.b64decode(str(reply.get("data", "")))
    with target.open("xb") as file:
        file.write(data)
    return PdfFile(target, len(data), count_pages(target, len(data)))
