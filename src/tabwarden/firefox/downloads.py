"""Downloads of a Firefox session: saved into the workspace's downloads folder, followed
from start to end, executables flagged, as on Chromium (diagnostics/downloads.py keeps
the list, moves unsafe names, clears executable bits and flags executable types).

``browser.setDownloadBehavior`` (``allowed`` into the downloads folder) is sent before
any page can start one; ``browsingContext.downloadWillBegin`` starts an entry (its id is
the download's navigation id) and ``browsingContext.downloadEnd`` ends it (``complete``
with the file's path, or ``canceled``). BiDi reports no progress in between and has no
command to cancel a download: an entry is in progress until it ends. Nothing downloaded
is ever opened or run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..bidi.connection import BiDiConnection
from ..budget import Budget
from ..diagnostics.downloads import Download, DownloadList, DownloadTracker
from ..errors import BiDiError, PathNotAllowed
from ..safety.paths import WorkspacePaths

__all__ = ["EVENTS", "FirefoxDownloads"]

logger = logging.getLogger("tabwarden.firefox")

JSONObject = dict[str, Any]

EVENTS = ("browsingContext.downloadWillBegin", "browsingContext.downloadEnd")
"""The BiDi events downloads are followed by."""


class FirefoxDownloads:
    """The downloads of one Firefox session; ``tab_of`` names the tab of a browsing
    context. Event handlers run on the reader and never await."""

    def __init__(
        self,
        paths: Callable[[], WorkspacePaths],
        *,
        capacity: int,
        tab_of: Callable[[str], str | None],
        promised_size: Callable[[str], int | None] = lambda navigation: None,
    ) -> None:
        self._paths = paths
        self._tab_of = tab_of
        self._promised_size = promised_size
        self.tracker = DownloadTracker(paths, capacity=capacity, tab_of_frame=tab_of)
        """The list, the waiting and the safe names (shared with Chromium)."""

    async def start(self, connection: BiDiConnection, budget: Budget) -> None:
        """Send every download of the browser to the workspace's downloads folder."""
        try:
            # Not made here: Firefox makes it with the first download.
            folder = self._paths().output_dir("downloads", create=False)
        except PathNotAllowed as exc:
            self._refused(f"there is no downloads folder: {exc}")
            return
        try:
            await connection.send(
                "browser.setDownloadBehavior",
                {"downloadBehavior": {"type": "allowed", "destinationFolder": str(folder)}},
                budget=budget,
            )
        except BiDiError as exc:
            self._refused(
                f"Firefox did not accept the downloads folder: {exc.bidi_message or exc.error}"
            )
            return
        self.tracker.use_folder(folder)

    def _refused(self, problem: str) -> None:
        logger.warning("%s", problem)
        self.tracker.use_folder(None, problem)

    # ---- reading -------------------------------------------------------------------

    def items(self) -> tuple[Download, ...]:
        return self.tracker.items()

    async def listing(self, *, wait: bool, guid: str | None, budget: Budget) -> DownloadList:
        """The downloads, oldest first; ``wait``: once those in progress (or ``guid``) have
        ended, or the budget ran out (reported, not raised)."""
        if not wait:
            return self.tracker.listing()
        done = await self.tracker.wait(budget, guid)
        waited = max(1, int(budget.elapsed() * 1000))
        return self.tracker.listing(waited_ms=waited, still_running=not done)

    # ---- event handlers (on the reader: never await) --------------------------------

    def on_event(self, method: str, params: JSONObject) -> None:
        """Follow one BiDi event (those of ``EVENTS``; others are ignored)."""
        if method == "browsingContext.downloadWillBegin":
            guid = str(params.get("navigation") or "")
            if guid:
                tab_id = self._tab_of(str(params.get("context", "")))
                name = str(params.get("suggestedFilename") or "")
                self.tracker.began(guid, str(params.get("url", "")), name, tab_id)
        elif method == "browsingContext.downloadEnd":
            guid = str(params.get("navigation") or "")
            path = params.get("filepath")
            file_path = str(path) if path else None
            completed = params.get("status") == "complete"
            if completed and file_path is not None:
                completed = not _cut_short(Path(file_path), self._promised_size(guid))
            # A canceled or cut one's partial file is removed when it lies in the folder.
            self.tracker.ended(guid, completed, file_path)


def _cut_short(path: Path, promised: int | None) -> bool:
    """Firefox reports a body the server stopped sending before its ``Content-Length``
    as complete; Chromium as failed, and so does tabwarden on both."""
    try:
        return promised is not None and path.stat().st_size < promised
    except OSError:
        return False
