"""Save a page as PDF (``Page.printToPDF``, streamed) into the workspace's pdf folder."""

from __future__ import annotations

import base64
import contextlib
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..budget import Budget
from ..counting import counted
from ..errors import ActionError, CDPError, InvalidArgument
from ..report_text import ReportText
from .streams import save_stream

if TYPE_CHECKING:
    from ..cdp.session import CDPSession
    from ..safety.paths import WorkspacePaths

__all__ = [
    "PAPER_FORMATS",
    "PdfFile",
    "count_pages",
    "parse_margins",
    "print_options",
    "save_pdf",
]

PAPER_FORMATS: dict[str, tuple[float, float]] = {
    "letter": (8.5, 11),
    "legal": (8.5, 14),
    "tabloid": (11, 17),
    "ledger": (17, 11),
    "a0": (33.1, 46.8),
    "a1": (23.4, 33.1),
    "a2": (16.54, 23.4),
    "a3": (11.7, 16.54),
    "a4": (8.27, 11.7),
    "a5": (5.83, 8.27),
    "a6": (4.13, 5.83),
}
"""Paper width and height in inches (CDP measures paper in inches)."""

_UNITS = {"in": 1.0, "cm": 1 / 2.54, "mm": 1 / 25.4, "px": 1 / 96, "pt": 1 / 72}
_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(in|cm|mm|px|pt)?\s*$")
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_COUNT_PAGES_UP_TO = 64 * 1024 * 1024
_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm[^>]*>>\s*stream\r?\n", re.S)
"""Where a compressed object stream's data starts (a dictionary without nested ones)."""


@dataclass(frozen=True)
class PdfFile:
    path: Path
    bytes: int
    pages: int | None
    """None when the file was too large to count cheaply."""

    @property
    def text(self) -> ReportText:
        pages = "" if self.pages is None else f", {counted(self.pages, 'page')}"
        return ReportText(f"saved a PDF to {self.path} ({self.bytes:,} bytes{pages})")

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "bytes": self.bytes, "pages": self.pages}


def parse_margins(margins: str | None) -> dict[str, float]:
    """CSS-like shorthand (``1cm``, ``10mm 5mm``, ``1in 0.5in 1in 0.5in``: top right
    bottom left; unit in/cm/mm/px/pt, inches by default) → CDP margins in inches."""
    if margins is None:
        return {}
    parts = margins.split()
    if not 1 <= len(parts) <= 4:
        raise InvalidArgument(
            f"margins={margins!r} must be 1 to 4 lengths",
            hint="e.g. '1cm', '10mm 5mm' or '1in 0.5in 1in 0.5in' (top right bottom left)",
        )
    inches = []
    for part in parts:
        match = _LENGTH.match(part)
        if match is None:
            raise InvalidArgument(
                f"margin {part!r} is not a length", hint="a number with in, cm, mm, px or pt"
            )
        inches.append(float(match[1]) * _UNITS[match[2] or "in"])
    top, right, bottom, left = _expand(inches)
    return {"marginTop": top, "marginRight": right, "marginBottom": bottom, "marginLeft": left}


def _expand(values: list[float]) -> tuple[float, float, float, float]:
    if len(values) == 1:
        return values[0], values[0], values[0], values[0]
    if len(values) == 2:
        return values[0], values[1], values[0], values[1]
    if len(values) == 3:
        return values[0], values[1], values[2], values[1]
    return values[0], values[1], values[2], values[3]


def print_options(
    *,
    landscape: bool,
    print_background: bool,
    scale: float,
    paper_format: str,
    page_ranges: str | None,
    margins: str | None,
) -> dict[str, Any]:
    """``Page.printToPDF`` parameters, checked."""
    if not 0.1 <= scale <= 2:
        raise InvalidArgument(f"scale={scale} is out of range", hint="give 0.1 to 2")
    paper = PAPER_FORMATS.get(paper_format.lower())
    if paper is None:
        raise InvalidArgument(
            f"paper_format={paper_format!r} is not known",
            hint="use one of " + ", ".join(p.capitalize() for p in PAPER_FORMATS),
        )
    params: dict[str, Any] = {
        "landscape": landscape,
        "printBackground": print_background,
        "scale": scale,
        "paperWidth": paper[0],
        "paperHeight": paper[1],
        "transferMode": "ReturnAsStream",
        **parse_margins(margins),
    }
    if page_ranges:
        params["pageRanges"] = page_ranges
    return params


async def save_pdf(
    session: CDPSession,
    paths: WorkspacePaths,
    path: str | None,
    params: dict[str, Any],
    budget: Budget,
    *,
    stem: str = "page",
) -> PdfFile:
    """Print the page of ``session`` and stream the PDF into the workspace."""
    target = paths.output_path("pdf", path, suffix=".pdf", stem=stem)
    try:
        reply = await session.send("Page.printToPDF", params, budget=budget)
    except CDPError as exc:
        if "range" in exc.cdp_message.lower():
            raise InvalidArgument(
                f"page_ranges={params.get('pageRanges')!r} was refused: {exc.cdp_message}",
                hint="give pages like '1-3, 5' within the document's page count",
            ) from None
        raise ActionError(
            f"the browser refused to print the page to PDF: {exc.cdp_message}",
            hint="PDF printing needs headless Chromium: launch with headless=True",
        ) from None
    handle = reply.get("stream")
    if handle:
        size = await save_stream(session, handle, target, budget)
    else:  # a browser that ignored transferMode sends the PDF inline
        data = base64.b64decode(reply.get("data", ""))
        with target.open("xb") as file:
            file.write(data)
        size = len(data)
    return PdfFile(target, size, count_pages(target, size))


def count_pages(path: Path, size: int) -> int | None:
    """Page objects in the file: Chromium's PDFs keep them uncompressed, Firefox's in
    compressed object streams (inflated here to count them)."""
    if size > _COUNT_PAGES_UP_TO:
        return None
    data = path.read_bytes()
    count = len(_PAGE.findall(data))
    if not count:
        for found in _OBJECT_STREAM.finditer(data):
            body = data[found.end() :]
            end = body.find(b"endstream")
            with contextlib.suppress(zlib.error):
                count += len(_PAGE.findall(zlib.decompress(body[:end] if end >= 0 else body)))
    return count or None
