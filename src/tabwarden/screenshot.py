"""Screenshots: the viewport, the full page, or one element; optionally annotated with refs.

``annotate=True`` draws each interactive element's ref on the page (set-of-marks
style) for the capture, then removes the marks.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .actions import pointer
from .budget import Budget
from .errors import InvalidArgument
from .snapshot.model import SnapshotNode

if TYPE_CHECKING:
    from .safety.paths import WorkspacePaths
    from .tab import Tab

__all__ = ["FORMATS", "Screenshot", "capture", "save_screenshot"]

FORMATS = ("png", "jpeg")
_OVERLAY_ID = "__tabwarden_marks__"
_MAX_MARKS = 500

_DRAW_MARKS = """(marks) => {
  const old = document.getElementById(%(id)s);
  if (old) old.remove();
  const layer = document.createElement('div');
  layer.id = %(id)s;
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;' +
    'z-index:2147483647;pointer-events:none;';
  for (const m of marks) {
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:${m.x}px;top:${m.y}px;width:${m.w}px;` +
      `height:${m.h}px;outline:2px solid #e0245e;box-sizing:border-box;`;
    const tag = document.createElement('span');
    tag.textContent = m.ref;
    tag.style.cssText = 'position:absolute;left:-2px;top:-16px;background:#e0245e;' +
      'color:#fff;font:bold 11px/14px monospace;padding:0 3px;border-radius:2px;';
    box.appendChild(tag);
    layer.appendChild(box);
  }
  document.documentElement.appendChild(layer);
  return marks.length;
}"""

_REMOVE_MARKS = "() => { const m = document.getElementById(%(id)s); if (m) m.remove(); }"


@dataclass(frozen=True)
class Screenshot:
    data: bytes
    format: str
    width: int
    height: int
    """CSS pixels of the captured area."""
    marks: int = 0
    """How many refs were drawn (annotate=True)."""
    path: Path | None = None
    """Where it was saved in the workspace (``save``/``path``), if it was."""

    def save(self, path: str | Path) -> Path:
        """Write the image to ``path`` (the caller's own choice of place; what an agent
        asks to save goes through :func:`save_screenshot` into the workspace)."""
        target = Path(path)
        target.write_bytes(self.data)
        return target

    def base64(self) -> str:
        return base64.b64encode(self.data).decode()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "width": self.width,
            "height": self.height,
            "bytes": len(self.data),
            "marks": self.marks,
            "path": None if self.path is None else str(self.path),
        }


def save_screenshot(shot: Screenshot, paths: WorkspacePaths, name: str | None) -> Screenshot:
    """Write the image into the workspace's screenshots folder: ``name`` is a file name
    there (or a path inside the workspace); None gives a fresh time-stamped name.
    Never overwrites a file, never writes outside the workspace (``PathNotAllowed``)."""
    jpg = shot.format == "jpeg" and name is not None and name.lower().endswith(".jpg")
    suffix = ".jpg" if jpg else f".{shot.format}"
    target = paths.output_path("screenshots", name, suffix=suffix, stem="screenshot")
    with target.open("xb") as file:
        file.write(shot.data)
    return replace(shot, path=target)


async def capture(
    tab: Tab,
    budget: Budget,
    *,
    ref: str | None,
    full_page: bool,
    format: str,
    quality: int | None,
    annotate: bool,
) -> Screenshot:
    """Capture as asked; the caller holds the tab's operation (budget, dialog check)."""
    if format not in FORMATS:
        raise InvalidArgument(f"format={format!r} is not supported", hint="use 'png' or 'jpeg'")
    if quality is not None and (format != "jpeg" or not 0 <= quality <= 100):
        raise InvalidArgument("quality goes with format='jpeg' and is 0..100")
    if ref is not None and full_page:
        raise InvalidArgument("give either ref or full_page, not both")
    main = tab.frames.main_session
    params: dict[str, Any] = {"format": format, "captureBeyondViewport": full_page}
    if quality is not None:
        params["quality"] = quality
    metrics = await main.send("Page.getLayoutMetrics", budget=budget)
    viewport = metrics["cssVisualViewport"]
    width, height = viewport["clientWidth"], viewport["clientHeight"]
    if full_page:
        size = metrics["cssContentSize"]
        width, height = size["width"], size["height"]
        params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
    elif ref is not None:
        clip = await _element_clip(tab, ref, budget)
        width, height = clip["width"], clip["height"]
        params["clip"] = clip
    marks = 0
    if annotate:
        marks = await _draw_marks(tab, budget, full_page=full_page, viewport=viewport)
    try:
        reply = await main.send("Page.captureScreenshot", params, budget=budget)
    finally:
        if annotate:
            await _evaluate(tab, _REMOVE_MARKS % {"id": json.dumps(_OVERLAY_ID)}, None, budget)
    return Screenshot(
        data=base64.b64decode(reply["data"]),
        format=format,
        width=round(width),
        height=round(height),
        marks=marks,
    )


async def _element_clip(tab: Tab, ref: str, budget: Budget) -> dict[str, float]:
    # In view, shown and still; what lies over it is part of the picture.
    element, _ = await pointer.locate(tab, ref, budget, need_enabled=False, need_topmost=False)
    box = await element.session.send(
        "DOM.getBoxModel", {"backendNodeId": element.backend_node_id}, budget=budget
    )
    quad = box["model"]["border"]
    dx, dy = await pointer.frame_offset(tab, element.frame_id, budget)
    metrics = await tab.frames.main_session.send("Page.getLayoutMetrics", budget=budget)
    page = metrics["cssVisualViewport"]
    xs, ys = quad[0::2], quad[1::2]
    return {
        "x": min(xs) + dx + page["pageX"],
        "y": min(ys) + dy + page["pageY"],
        "width": max(xs) - min(xs),
        "height": max(ys) - min(ys),
        "scale": 1,
    }


async def _draw_marks(
    tab: Tab, budget: Budget, *, full_page: bool, viewport: dict[str, float]
) -> int:
    snapshot = await tab._snapshot(budget.child(10.0))
    top, bottom = viewport["pageY"], viewport["pageY"] + viewport["clientHeight"]
    marks = []
    for node in snapshot.root.walk():
        if not _markable(node):
            continue
        assert node.bounds is not None
        if not full_page and (node.bounds.y + node.bounds.height < top or node.bounds.y > bottom):
            continue
        marks.append(
            {
                "ref": node.ref,
                "x": node.bounds.x,
                "y": node.bounds.y,
                "w": node.bounds.width,
                "h": node.bounds.height,
            }
        )
    marks = marks[:_MAX_MARKS]
    drawn = await _evaluate(tab, _DRAW_MARKS % {"id": json.dumps(_OVERLAY_ID)}, marks, budget)
    return int(drawn or 0)


def _markable(node: SnapshotNode) -> bool:
    return bool(node.ref) and node.interactive and node.bounds is not None


async def _evaluate(tab: Tab, function: str, argument: Any, budget: Budget) -> Any:
    expression = f"({function})({json.dumps(argument)})"
    reply = await tab.frames.main_session.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, budget=budget
    )
    return reply.get("result", {}).get("value")
