"""Downloads: saved into the workspace, tracked from start to end, executables flagged.

``Browser.setDownloadBehavior(allowAndName)`` makes the browser save every download
under its GUID (no extension, so nothing can open it by type) in the workspace's
downloads folder; ``Browser.downloadWillBegin`` / ``Browser.downloadProgress`` are
followed; a completed file is moved to a safe, unique name from the one the page
suggested, its executable bits are cleared, and executable types are flagged. Nothing
downloaded is ever opened or run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..budget import Budget
from ..cdp.protocol import Event, Subscription
from ..cdp.session import CDPSession
from ..counting import counted
from ..errors import CDPError, DeadlineExceeded, InvalidArgument, PathNotAllowed
from ..report_text import ReportText
from ..safety.paths import WorkspacePaths, safe_file_name
from ..supervisor.buffers import RingStatistics

__all__ = [
    "EXECUTABLE_EXTENSIONS",
    "Download",
    "DownloadList",
    "DownloadTracker",
    "executable_reasons",
]

logger = logging.getLogger("tabwarden.downloads")

DownloadState = Literal["in_progress", "completed", "canceled", "failed"]

EXECUTABLE_EXTENSIONS = frozenset(
    {
        # Windows
        *("exe", "msi", "msp", "msix", "msixbundle", "appx", "appxbundle", "scr", "pif"),
        *("com", "cpl", "hta", "lnk", "reg", "bat", "cmd", "ps1", "psm1", "psd1"),
        *("vbs", "vbe", "js", "jse", "ws", "wsf", "wsh"),
        # macOS
        *("dmg", "pkg", "mpkg", "app", "command"),
        # Unix shells and Linux packages
        *("sh", "bash", "zsh", "csh", "ksh", "fish", "run", "bin", "elf", "out"),
        *("deb", "rpm", "snap", "flatpak", "appimage"),
        # Android, iOS, Java
        *("apk", "xapk", "aab", "ipa", "jar"),
    }
)
"""File extensions that run code when opened (compared in lower case)."""

# First bytes of native executables and scripts: (magic, what it is).
_MAGIC = (
    (b"MZ", "a Windows executable (PE)"),
    (b"\x7fELF", "a Linux executable (ELF)"),
    (b"\xfe\xed\xfa\xce", "a macOS executable (Mach-O)"),
    (b"\xfe\xed\xfa\xcf", "a macOS executable (Mach-O)"),
    (b"\xce\xfa\xed\xfe", "a macOS executable (Mach-O)"),
    (b"\xcf\xfa\xed\xfe", "a macOS executable (Mach-O)"),
    (b"\xca\xfe\xba\xbe", "a macOS universal executable (or Java class)"),
    (b"#!", "a script with a #! interpreter line"),
)
_EXEC_BITS = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


def executable_reasons(name: str, path: Path | None = None) -> list[str]:
    """Why a file would run code if opened: its extension, its first bytes, its mode.
    Empty when there is no sign of it."""
    reasons = []
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if extension in EXECUTABLE_EXTENSIONS:
        reasons.append(f".{extension} files run code when opened")
    if path is not None:
        try:
            with path.open("rb") as file:
                head = file.read(8)
            mode = path.stat().st_mode
        except OSError:
            return reasons
        for magic, what in _MAGIC:
            if head.startswith(magic):
                reasons.append(f"its content is {what}")
                break
        if mode & _EXEC_BITS:
            reasons.append("it was saved with an executable bit (now cleared)")
    return reasons


@dataclass(frozen=True)
class Download:
    """One download as last reported by the browser."""

    guid: str
    url: str
    suggested_name: str
    state: DownloadState
    tab_id: str | None
    received_bytes: int = 0
    total_bytes: int = 0
    """0 when the server did not say."""
    path: Path | None = None
    """Where the finished file is (inside the workspace's downloads folder)."""
    size: int | None = None
    executable: bool = False
    reasons: tuple[str, ...] = ()
    """Why it is flagged as executable."""
    error: str = ""
    started_at: float = 0.0
    """Wall-clock time (``time.time()``)."""
    finished_at: float | None = None

    @property
    def name(self) -> str:
        return self.path.name if self.path is not None else self.suggested_name

    def describe(self) -> str:
        """One line: name, state, size or progress, where, and any warning."""
        if self.state == "in_progress":
            of = f" of {self.total_bytes:,}" if self.total_bytes else ""
            detail = f"in progress, {self.received_bytes:,}{of} bytes"
        elif self.state == "completed":
            size = f"{self.size:,} bytes" if self.size is not None else "size unknown"
            where = f" at {self.path}" if self.path is not None else ""
            detail = f"completed, {size}{where}"
        else:
            detail = f"{self.state} after {self.received_bytes:,} bytes"
            if self.error:
                detail += f": {self.error}"
        line = f"{self.name} ({self.url}): {detail}"
        if self.executable:
            line += (
                f" — WARNING: executable ({'; '.join(self.reasons)}); it was not opened or "
                "run, and must not be without the user's say-so"
            )
        return line

    def to_dict(self) -> dict[str, Any]:
        return {
            "guid": self.guid,
            "url": self.url,
            "suggested_name": self.suggested_name,
            "state": self.state,
            "tab_id": self.tab_id,
            "received_bytes": self.received_bytes,
            "total_bytes": self.total_bytes,
            "path": None if self.path is None else str(self.path),
            "size": self.size,
            "executable": self.executable,
            "reasons": list(self.reasons),
            "error": self.error,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


@dataclass(frozen=True)
class DownloadList:
    """The session's downloads, oldest first, with the ring's statistics."""

    downloads: tuple[Download, ...]
    statistics: RingStatistics
    folder: Path | None
    waited_ms: int = 0
    still_running: bool = False
    """Waiting ended at the deadline with downloads still in progress."""
    notes: tuple[str, ...] = field(default=())

    @property
    def text(self) -> ReportText:
        stats = self.statistics
        head = counted(stats.size, "download")
        if stats.dropped:
            forgotten = "older one forgotten; its file stays"
            if stats.dropped != 1:
                forgotten = "older ones forgotten; their files stay"
            head += f" ({stats.dropped:,} {forgotten})"
        if self.folder is not None:
            head += f", saved in {self.folder}"
        lines = [head]
        lines += [f"- {d.describe()}" for d in self.downloads]
        if self.waited_ms:
            lines.append(
                f"waited {self.waited_ms:,} ms"
                + (": still in progress at the deadline" if self.still_running else "")
            )
        lines += list(self.notes)
        flagged = sum(1 for d in self.downloads if d.executable)
        if flagged:
            lines.append(f"{flagged} executable download(s): never open or run them; tell the user")
        return ReportText("\n".join(lines))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "downloads": [d.to_dict() for d in self.downloads],
            "size": self.statistics.size,
            "capacity": self.statistics.capacity,
            "dropped": self.statistics.dropped,
            "folder": None if self.folder is None else str(self.folder),
            "waited_ms": self.waited_ms,
            "still_running": self.still_running,
        }


class DownloadTracker:
    """The downloads of one browser session; event handlers run on the reader, never await."""

    def __init__(
        self,
        paths: Callable[[], WorkspacePaths],
        *,
        capacity: int,
        tab_of_frame: Callable[[str], str | None],
    ) -> None:
        self._paths = paths
        self._capacity = capacity
        self._tab_of_frame = tab_of_frame
        self._items: OrderedDict[str, Download] = OrderedDict()
        self._dropped = 0
        self._cancel_requested: set[str] = set()
        self._subscriptions: list[Subscription] = []
        self._folder: Path | None = None
        self._problem = ""
        self._own_frames_only = False
        self._changed = asyncio.Event()
        self.on_change: Callable[[Download], None] | None = None
        """Told of every new or changed download (the session's watchers hear of it)."""

    # ---- set-up (on connect and reconnect) ------------------------------------------

    async def enable(
        self, browser: CDPSession, budget: Budget, *, own_frames_only: bool = False
    ) -> None:
        """Send the browser's downloads to the workspace and follow them (``browser``: the
        browser target's session, scoped to the session's context in context mode).
        ``own_frames_only``: the browser is shared (context mode), and a download begun
        in a frame the session does not know is another session's."""
        self._own_frames_only = own_frames_only
        for subscription in self._subscriptions:
            subscription.close()
        for download in self.in_progress():  # their browser or connection went away
            self._store(
                replace(
                    download,
                    state="failed",
                    finished_at=time.time(),
                    error="the browser went away (or the connection dropped) before it ended",
                )
            )
        self._subscriptions = [
            browser.subscribe("Browser.downloadWillBegin", self._on_will_begin),
            browser.subscribe("Browser.downloadProgress", self._on_progress),
        ]
        try:
            # Not made here: the browser makes it with the first download.
            folder = self._paths().output_dir("downloads", create=False)
        except PathNotAllowed as exc:
            self._problem = f"there is no downloads folder: {exc}"
            logger.warning("%s", self._problem)
            return
        try:
            await browser.send(
                "Browser.setDownloadBehavior",
                {"behavior": "allowAndName", "downloadPath": str(folder), "eventsEnabled": True},
                budget=budget,
            )
        except CDPError as exc:
            # An attached browser may refuse; its downloads then go where it decides.
            self._problem = f"the browser did not accept the downloads folder: {exc.cdp_message}"
            logger.warning("%s", self._problem)
            return
        self._folder = folder
        self._problem = ""

    async def restore(self, browser: CDPSession, budget: Budget) -> None:
        """Give an attached browser its own download behaviour back (on detach)."""
        for subscription in self._subscriptions:
            subscription.close()
        self._subscriptions = []
        if self._folder is not None:
            with contextlib.suppress(CDPError):
                await browser.send(
                    "Browser.setDownloadBehavior", {"behavior": "default"}, budget=budget
                )

    # ---- reading -------------------------------------------------------------------

    def items(self) -> tuple[Download, ...]:
        return tuple(self._items.values())

    def in_progress(self) -> list[Download]:
        return [d for d in self._items.values() if d.state == "in_progress"]

    def statistics(self) -> RingStatistics:
        return RingStatistics(len(self._items), self._capacity, self._dropped)

    def started_since(self, tab_id: str, since: float) -> list[str]:
        """``name (url) into <folder>`` of the downloads a tab started since ``since``
        (wall clock): a reply that wrote a file says where it goes."""
        into = f" into {self._folder}" if self._folder is not None else ""
        return [
            f"{d.suggested_name} ({d.url}){into}"
            for d in self._items.values()
            if d.tab_id == tab_id and d.started_at >= since
        ]

    def listing(self, *, waited_ms: int = 0, still_running: bool = False) -> DownloadList:
        notes = (f"downloads are not tracked: {self._problem}",) if self._problem else ()
        return DownloadList(
            self.items(), self.statistics(), self._folder, waited_ms, still_running, notes
        )

    # ---- waiting and cancelling -------------------------------------------------------

    async def wait(self, budget: Budget, guid: str | None = None) -> bool:
        """Until ``guid`` (or every download in progress) has finished; False when the
        budget ran out first (the caller still reports what is known)."""
        if guid is not None and guid not in self._items:
            raise InvalidArgument(
                f"no download {guid!r}", hint="list the downloads to see their guids"
            )
        # Leave a little of the budget to report with.
        wait = budget.child(max(0.0, budget.remaining() - 0.05))
        while True:
            changed = self._changed
            pending = [self._items[guid]] if guid is not None else self.in_progress()
            if all(d.state != "in_progress" for d in pending):
                return True
            try:
                await wait.run(changed.wait(), what="waiting for downloads")
            except DeadlineExceeded:
                return False

    async def cancel(self, browser: CDPSession, guid: str, budget: Budget) -> Download:
        download = self._items.get(guid)
        if download is None:
            raise InvalidArgument(
                f"no download {guid!r}", hint="list the downloads to see their guids"
            )
        if download.state != "in_progress":
            return download
        self._cancel_requested.add(guid)
        await browser.send("Browser.cancelDownload", {"guid": guid}, budget=budget)
        await self.wait(budget, guid)
        return self._items[guid]

    # ---- event handlers (on the reader: no awaiting) --------------------------------

    def _on_will_begin(self, event: Event) -> None:
        params = event.params
        guid = params.get("guid", "")
        if not guid:
            return
        tab_id = self._tab_of_frame(params.get("frameId", ""))
        if tab_id is None and self._own_frames_only:
            return  # another session's, in the browser they share
        self.began(guid, params.get("url", ""), params.get("suggestedFilename", ""), tab_id)

    def _on_progress(self, event: Event) -> None:
        params = event.params
        download = self._items.get(params.get("guid", ""))
        if download is None or download.state != "in_progress":
            return
        download = replace(
            download,
            received_bytes=int(params.get("receivedBytes", 0)),
            total_bytes=int(params.get("totalBytes", 0)),
        )
        state = params.get("state")
        if state == "completed":
            download = self._finish(download, params.get("filePath"))
        elif state == "canceled":
            download = self._canceled(download)
        self._store(download)

    # ---- fed by another engine's events (Firefox: firefox/downloads.py) --------------

    def use_folder(self, folder: Path | None, problem: str = "") -> None:
        """Where the browser was told to save downloads (None, and why, when it was not)."""
        self._folder = folder
        self._problem = problem

    def began(self, guid: str, url: str, suggested_name: str, tab_id: str | None) -> None:
        """A download started (``guid``: the browser's id for it)."""
        self._store(
            Download(
                guid=guid,
                url=url,
                suggested_name=suggested_name or "download",
                state="in_progress",
                tab_id=tab_id,
                started_at=time.time(),
            )
        )

    def ended(self, guid: str, completed: bool, file_path: str | None) -> None:
        """A download ended: completed into ``file_path``, or canceled (a partial file at
        ``file_path`` inside the downloads folder is removed)."""
        download = self._items.get(guid)
        if download is None or download.state != "in_progress":
            return
        if completed:
            download = self._finish(download, file_path)
            if download.size is not None:
                size = download.size
                download = replace(download, received_bytes=size, total_bytes=size)
        else:
            partial = Path(file_path) if file_path else None
            if partial is not None and self._folder is not None and partial.parent == self._folder:
                with contextlib.suppress(OSError):
                    partial.unlink()
            download = self._canceled(download)
        self._store(download)

    # ---- private -------------------------------------------------------------------

    def _store(self, download: Download) -> None:
        new = download.guid not in self._items
        self._items[download.guid] = download
        if new:
            self._trim()
        # Wake every waiter; the next wait takes a fresh event.
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        if self.on_change is not None:
            self.on_change(download)

    def _trim(self) -> None:
        while len(self._items) > self._capacity:
            finished = next((g for g, d in self._items.items() if d.state != "in_progress"), None)
            self._items.pop(finished if finished is not None else next(iter(self._items)))
            self._dropped += 1

    def _finish(self, download: Download, file_path: str | None) -> Download:
        """Move the GUID-named file to its safe name, clear exec bits, flag executables."""
        done = replace(download, state="completed", finished_at=time.time())
        source = Path(file_path) if file_path else self._guid_path(download.guid)
        if source is None or source.parent != self._folder or not source.is_file():
            # Saved elsewhere (a remote browser's machine, an attached browser's own
            # folder): not ours to move or change.
            flags = executable_reasons(download.suggested_name)
            return replace(
                done,
                path=source if source is not None and source.is_file() else None,
                executable=bool(flags),
                reasons=tuple(flags),
            )
        try:
            if source.name != download.guid and safe_file_name(source.name) == source.name:
                # The browser named it already, safely (Firefox saves under the page's
                # name, made unique): it stays where it is.
                target = source
            else:
                target = self._paths().output_path(
                    "downloads",
                    safe_file_name(download.suggested_name, fallback="download"),
                    suffix="",
                )
            flags = executable_reasons(target.name, source)
            source.rename(target)
            mode = target.stat().st_mode
            target.chmod(stat.S_IMODE(mode) & ~_EXEC_BITS)
            size = target.stat().st_size
        except (OSError, PathNotAllowed) as exc:
            logger.warning("moving download %s failed: %s", download.guid, exc)
            flags = executable_reasons(download.suggested_name, source)
            with contextlib.suppress(OSError):
                source.chmod(stat.S_IMODE(source.stat().st_mode) & ~_EXEC_BITS)
            return replace(
                done,
                path=source,
                size=_size(source),
                executable=bool(flags),
                reasons=tuple(flags),
                error=f"kept under its GUID name: {exc}",
            )
        return replace(done, path=target, size=size, executable=bool(flags), reasons=tuple(flags))

    def _canceled(self, download: Download) -> Download:
        asked = download.guid in self._cancel_requested
        self._cancel_requested.discard(download.guid)
        partial = self._guid_path(download.guid)
        if partial is not None:
            with contextlib.suppress(OSError):
                partial.unlink()  # a partial file is of no use and could be misleading
        if asked:
            return replace(
                download, state="canceled", finished_at=time.time(), error="canceled on request"
            )
        # The browser reports an interrupted download it gave up resuming as canceled.
        return replace(
            download,
            state="failed",
            finished_at=time.time(),
            error="interrupted (the connection broke or the server stopped sending) and "
            "the browser gave up resuming it",
        )

    def _guid_path(self, guid: str) -> Path | None:
        if self._folder is None or not guid or os.sep in guid or guid.startswith("."):
            return None
        return self._folder / guid


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None
