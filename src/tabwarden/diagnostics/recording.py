"""Session recording: a tab's screencast frames, saved as WebM (ffmpeg) or an HTML player.

A recording is a feed of the tab's shared screencast (screencast/: one per page, so a
recording and a live view of the same tab both get every frame); the browser sends a
JPEG frame whenever the page repaints. Frames are kept with their timestamps in a ring
bounded by count and bytes. On stop they become a WebM when ffmpeg is available (on
PATH, configured, or the binary of the optional imageio-ffmpeg package), otherwise a
self-contained HTML file that plays them back (play, pause, seek) with their real timing.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import html
import importlib
import json
import logging
import shutil
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..budget import Budget
from ..config import FilesConfig
from ..counting import counted
from ..errors import ActionError, DeadlineExceeded, InvalidArgument, TabwardenError
from ..jpeg import jpeg_size
from ..report_text import ReportText
from ..safety.paths import WorkspacePaths
from ..screencast import FrameFeed, FrameSource, ScreencastFrame, ScreencastParams
from ..supervisor.buffers import RingStatistics

__all__ = [
    "Frame",
    "RecordingFile",
    "RecordingStarted",
    "Recordings",
    "ScreencastRecorder",
    "find_ffmpeg",
    "html_player",
    "jpeg_size",
    "write_recording",
]

logger = logging.getLogger("tabwarden.recording")

RecordingFormat = Literal["auto", "webm", "html"]
DEFAULT_FFMPEG: str = FilesConfig.model_fields["ffmpeg"].default
_SAVE_ON_CLOSE_S = 10.0


@dataclass(frozen=True, slots=True)
class Frame:
    data: bytes
    """A JPEG image."""
    timestamp: float
    """When the browser painted it (seconds, wall clock)."""


@dataclass(frozen=True)
class RecordingStarted:
    tab_id: str
    quality: int
    max_width: int | None
    max_height: int | None
    every_nth_frame: int

    @property
    def text(self) -> ReportText:
        return ReportText(
            f"recording tab {self.tab_id} (JPEG quality {self.quality}, every "
            f"{'' if self.every_nth_frame == 1 else f'{self.every_nth_frame}th '}frame); "
            "frames come when the page repaints; stop with record_stop"
        )

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "tab_id": self.tab_id,
            "quality": self.quality,
            "max_width": self.max_width,
            "max_height": self.max_height,
            "every_nth_frame": self.every_nth_frame,
        }


@dataclass(frozen=True)
class RecordingFile:
    path: Path
    format: Literal["webm", "html"]
    bytes: int
    frames: int
    dropped: int
    """Frames pushed out of the ring (the recording lost its start)."""
    duration_ms: int
    note: str = ""
    """Why the format differs from the one asked for, when it does."""

    @property
    def text(self) -> ReportText:
        lines = [
            f"recording saved to {self.path} ({self.format}, {self.bytes:,} bytes, "
            f"{counted(self.frames, 'frame')} over {self.duration_ms:,} ms)"
        ]
        if self.dropped:
            dropped = counted(self.dropped, "earlier frame")
            verb = "was" if self.dropped == 1 else "were"
            lines.append(f"{dropped} {verb} dropped (recording limits)")
        if self.frames == 0:
            lines.append("no frames: the page did not repaint while it was recorded")
        if self.note:
            lines.append(self.note)
        return ReportText("\n".join(lines))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "format": self.format,
            "bytes": self.bytes,
            "frames": self.frames,
            "dropped": self.dropped,
            "duration_ms": self.duration_ms,
            "note": self.note,
        }


class ScreencastRecorder:
    """A recording of one tab: a feed of the tab's shared screencast that keeps every
    frame; the frame handler runs on the reader and never awaits."""

    def __init__(
        self, tab_id: str, source: FrameSource, *, max_frames: int, max_bytes: int
    ) -> None:
        self.tab_id = tab_id
        self._source = source
        self._max_frames = max_frames
        self._max_bytes = max_bytes
        self._frames: deque[Frame] = deque()
        self._bytes = 0
        self._dropped = 0
        self._feed: FrameFeed | None = None
        self.started_at = time.time()

    @property
    def active(self) -> bool:
        return self._feed is not None and not self._feed.closed

    def statistics(self) -> RingStatistics:
        return RingStatistics(len(self._frames), self._max_frames, self._dropped)

    async def start(
        self,
        budget: Budget,
        *,
        quality: int,
        max_width: int | None,
        max_height: int | None,
        every_nth_frame: int,
    ) -> RecordingStarted:
        params = ScreencastParams(quality, max_width, max_height, every_nth_frame)
        # A recording keeps the quality it asked for: no adaptive lowering.
        self._feed = await self._source.watch(
            params, budget, adaptive=False, on_frame=self._on_frame
        )
        self.started_at = time.time()
        return RecordingStarted(self.tab_id, quality, max_width, max_height, every_nth_frame)

    async def stop(self, budget: Budget) -> list[Frame]:
        """Stop recording (the screencast stops unless another feed still watches) and
        hand over the frames."""
        if self._feed is not None and not self._feed.closed:
            self._feed.close()
            with contextlib.suppress(TabwardenError):  # a closed tab stopped it already
                await self._source.updated(budget.child(2.0))
        return list(self._frames)

    def _on_frame(self, frame: ScreencastFrame) -> None:
        stamp = frame.timestamp or time.time()
        try:
            data = frame.data
        except ValueError:
            return  # not base64: nothing to keep
        self._frames.append(Frame(data, stamp))
        self._bytes += len(data)
        while len(self._frames) > self._max_frames or (
            self._bytes > self._max_bytes and len(self._frames) > 1
        ):
            self._bytes -= len(self._frames.popleft().data)
            self._dropped += 1


async def write_recording(
    frames: Sequence[Frame],
    paths: WorkspacePaths,
    path: str | None,
    budget: Budget,
    *,
    format: RecordingFormat = "auto",
    ffmpeg: str = DEFAULT_FFMPEG,
    dropped: int = 0,
    started_at: float | None = None,
    title: str = "",
) -> RecordingFile:
    """Save the frames as WebM (ffmpeg) or, without ffmpeg or when it fails, as HTML."""
    if format not in ("auto", "webm", "html"):
        raise InvalidArgument(f"format={format!r} is not known", hint="auto, webm or html")
    # Chromium may deliver a frame after one painted later: play them in the order painted.
    frames = sorted(frames, key=lambda frame: frame.timestamp)
    start = frames[0].timestamp if frames else (started_at or time.time())
    end = frames[-1].timestamp if frames else start
    duration_ms = int(max(0.0, end - start) * 1000)
    note = ""
    if format != "html" and frames:
        found = find_ffmpeg(ffmpeg)
        if found is None:
            note = (
                "no ffmpeg for WebM (install ffmpeg, or imageio-ffmpeg in tabwarden's Python "
                "environment): saved as a self-contained HTML player to open in a browser"
            )
        else:
            target = _target(paths, path, ".webm")
            try:
                await _encode_webm(found, frames, target, budget)
                return RecordingFile(
                    target, "webm", target.stat().st_size, len(frames), dropped, duration_ms
                )
            except (OSError, TabwardenError) as exc:
                logger.warning("encoding a recording with ffmpeg failed: %s", exc)
                with contextlib.suppress(OSError):
                    target.unlink()
                note = f"ffmpeg failed ({exc}): saved as a self-contained HTML player instead"
    target = _target(paths, path, ".html")
    page = html_player(frames, title=title or "tabwarden recording")
    with target.open("x", encoding="utf-8") as file:
        file.write(page)
    return RecordingFile(
        target, "html", target.stat().st_size, len(frames), dropped, duration_ms, note
    )


def find_ffmpeg(setting: str) -> str | None:
    """The ffmpeg executable ``files.ffmpeg`` names (empty: none). The default name,
    ``ffmpeg``, when it is not on PATH, falls back to the binary of the imageio-ffmpeg
    package where it is installed (an optional dependency: the ``video`` extra)."""
    if not setting:
        return None
    found = shutil.which(setting)
    if found is not None or setting != DEFAULT_FFMPEG:
        return found
    try:
        package = importlib.import_module("imageio_ffmpeg")
        bundled = str(package.get_ffmpeg_exe())
    except (ImportError, RuntimeError) as exc:  # not installed, or no binary for here
        logger.debug("no ffmpeg on PATH and none from imageio-ffmpeg: %s", exc)
        return None
    return shutil.which(bundled)


def _target(paths: WorkspacePaths, path: str | None, suffix: str) -> Path:
    if path is not None and Path(path).suffix.lower() in (".webm", ".html", ".htm"):
        path = str(Path(path).with_suffix(suffix))  # the format decides the extension
    return paths.output_path("recordings", path, suffix=suffix, stem="recording")


async def _encode_webm(ffmpeg: str, frames: Sequence[Frame], target: Path, budget: Budget) -> None:
    """ffmpeg's concat demuxer plays each JPEG for its real duration (VP9, even size)."""
    width, height = jpeg_size(frames[0].data) or (0, 0)
    # One even size for every frame (VP9 in yuv420p needs it; a resized viewport changes it).
    size = f"scale={width - width % 2}:{height - height % 2},setsar=1" if width and height else None
    with tempfile.TemporaryDirectory(prefix="tabwarden-frames-") as folder:
        lines = ["ffconcat version 1.0"]
        for index, frame in enumerate(frames):
            name = f"{index:06d}.jpg"
            (Path(folder) / name).write_bytes(frame.data)
            last = index + 1 == len(frames)
            shown_until = frame.timestamp + 0.1 if last else frames[index + 1].timestamp
            lines += [f"file '{name}'", f"duration {max(0.001, shown_until - frame.timestamp):.3f}"]
        lines.append(f"file '{len(frames) - 1:06d}.jpg'")  # concat needs the last one twice
        (Path(folder) / "frames.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        command = [
            ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-n",
            "-f", "concat", "-safe", "0", "-i", str(Path(folder) / "frames.txt"),
            *(["-vf", size] if size else ["-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2"]),
            "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
            "-b:v", "0", "-crf", "36", "-pix_fmt", "yuv420p", "-fps_mode", "vfr",
            str(target),
        ]  # fmt: skip
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            _, errors = await budget.run(process.communicate(), what="encoding the recording")
        except (DeadlineExceeded, asyncio.CancelledError, TabwardenError):
            process.kill()
            await process.wait()
            raise
        if process.returncode != 0:
            message = errors.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
            raise OSError(f"ffmpeg exited with {process.returncode}: {message[0]}")


def html_player(frames: Sequence[Frame], *, title: str) -> str:
    """One HTML file with every frame inlined and a player: play/pause, seek, timing."""
    start = frames[0].timestamp if frames else 0.0
    items = [
        {"t": round((f.timestamp - start) * 1000), "src": "data:image/jpeg;base64,"
         + base64.b64encode(f.data).decode()}
        for f in frames
    ]  # fmt: skip
    # "</" cannot end the script early once escaped; base64 and numbers hold nothing else.
    data = json.dumps(items).replace("</", "<\\/")
    return _PLAYER.replace("%TITLE%", html.escape(title)).replace("%FRAMES%", data)


_PLAYER = """<!doctype html>
<html><head><meta charset="utf-8"><title>%TITLE%</title>
<style>
  body { margin: 0; font: 13px system-ui, sans-serif; background: #222; color: #eee; }
  #stage { display: flex; justify-content: center; padding: 8px; }
  #frame { max-width: 100%; box-shadow: 0 0 8px #000; background: #fff; }
  #bar { display: flex; gap: 8px; align-items: center; padding: 8px; }
  #seek { flex: 1; }
  button { min-width: 64px; }
</style></head>
<body>
<div id="stage"><img id="frame" alt="recorded frame"></div>
<div id="bar">
  <button id="play" type="button">Play</button>
  <input id="seek" type="range" min="0" value="0" step="1" aria-label="Seek">
  <span id="time">0.0 s</span>
</div>
<script>
const frames = %FRAMES%;
const img = document.getElementById('frame');
const seek = document.getElementById('seek');
const play = document.getElementById('play');
const time = document.getElementById('time');
const total = frames.length ? frames[frames.length - 1].t : 0;
let index = 0, timer = null;
seek.max = Math.max(0, frames.length - 1);
function show(i) {
  if (!frames.length) { time.textContent = 'no frames'; return; }
  index = Math.max(0, Math.min(frames.length - 1, i));
  img.src = frames[index].src;
  seek.value = index;
  time.textContent = (frames[index].t / 1000).toFixed(1) + ' / ' + (total / 1000).toFixed(1) + ' s';
}
function pause() { clearTimeout(timer); timer = null; play.textContent = 'Play'; }
function step() {
  if (index >= frames.length - 1) { pause(); return; }
  const wait = frames[index + 1].t - frames[index].t;
  timer = setTimeout(() => { show(index + 1); step(); }, Math.max(0, wait));
}
play.onclick = () => {
  if (timer) { pause(); return; }
  if (index >= frames.length - 1) show(0);
  play.textContent = 'Pause';
  step();
};
seek.oninput = () => { pause(); show(Number(seek.value)); };
show(0);
</script>
</body></html>
"""


class Recordings:
    """The screencasts of one session, by tab id: one per tab, kept after their tab
    closed until saved (a refused path can be retried)."""

    def __init__(self, paths: Callable[[], WorkspacePaths], files: FilesConfig) -> None:
        self._paths = paths
        self._files = files
        self._running: dict[str, ScreencastRecorder] = {}

    def __contains__(self, tab_id: object) -> bool:
        return tab_id in self._running

    def tab_ids(self) -> list[str]:
        return list(self._running)

    async def start(
        self, tab_id: str, source: FrameSource, budget: Budget, **options: Any
    ) -> RecordingStarted:
        """Start recording ``tab_id`` (a feed of its page's screencast ``source``);
        ``options`` as ``ScreencastRecorder.start`` takes them."""
        if tab_id in self._running:
            raise ActionError(
                f"tab {tab_id} is already being recorded",
                hint="stop it with record_stop first (one recording per tab)",
            )
        recorder = ScreencastRecorder(
            tab_id,
            source,
            max_frames=self._files.recording_max_frames,
            max_bytes=self._files.recording_max_bytes,
        )
        started = await recorder.start(budget, **options)
        self._running[tab_id] = recorder
        return started

    def recorder(self, tab_id: str) -> ScreencastRecorder | None:
        return self._running.get(tab_id)

    def chosen(self, tab_id: str | None, active: str | None) -> str:
        """The tab a stop is for: ``tab_id``, else the only one recording, else ``active``."""
        if tab_id is not None:
            return tab_id
        if len(self._running) == 1:
            return next(iter(self._running))
        return active or ""

    async def save(
        self, tab_id: str, path: str | None, format: RecordingFormat, budget: Budget
    ) -> RecordingFile:
        """Stop ``tab_id``'s recording and save it (see ``write_recording``)."""
        recorder = self._running.get(tab_id)
        if recorder is None:
            recording = ", ".join(self._running) or "none"
            raise ActionError(
                f"tab {tab_id or '(none)'} is not being recorded (recording now: {recording})",
                hint="start one with record_start, or name the recorded tab_id",
            )
        frames = await recorder.stop(budget)
        saved = await write_recording(
            frames,
            self._paths(),
            path,
            budget,
            format=format,
            ffmpeg=self._files.ffmpeg,
            dropped=recorder.statistics().dropped,
            started_at=recorder.started_at,
            title=f"tabwarden recording of tab {tab_id}",
        )
        self._running.pop(tab_id, None)  # only once saved: a refused path can be retried
        return saved

    async def save_all(self, session_name: str) -> None:
        """Save what is still being recorded (the session is closing), as HTML."""
        for tab_id in list(self._running):
            try:
                saved = await self.save(tab_id, None, "html", Budget(_SAVE_ON_CLOSE_S))
                logger.warning(
                    "session %r closed mid-recording: saved to %s", session_name, saved.path
                )
            except (TabwardenError, OSError) as exc:
                logger.warning("session %r: saving a recording failed: %s", session_name, exc)
            self._running.pop(tab_id, None)
