"""The boxes of a snapshot's refs: where each element the agent can name was drawn, for a
watcher that lays them over the live view (the workbench)."""

from __future__ import annotations

from typing import Any

from .model import SnapshotNode

__all__ = ["ref_boxes"]

_MAX_BOXES = 2_000
"""A page with more refs than this shows the first ones (a person can read no more)."""


def ref_boxes(root: SnapshotNode) -> list[dict[str, Any]]:
    """Each ref with bounds under ``root``, in document order: ref, role, name, and its
    box in the top document's CSS pixels (scroll included)."""
    boxes: list[dict[str, Any]] = []
    for node in root.walk():
        if node.ref is None or node.bounds is None:
            continue
        x, y, width, height = node.bounds
        boxes.append(
            {
                "ref": node.ref,
                "role": node.role,
                "name": node.name[:120],
                "x": round(x, 1),
                "y": round(y, 1),
                "w": round(width, 1),
                "h": round(height, 1),
            }
        )
        if len(boxes) >= _MAX_BOXES:
            break
    return boxes
