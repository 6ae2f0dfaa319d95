"""Session recording: screencast frames saved as an HTML player when there is no ffmpeg."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.diagnostics.recording import (
    Frame,
    find_ffmpeg,
    html_player,
    jpeg_size,
    write_recording,
)
from tabwarden.errors import ActionError, PathNotAllowed
from tabwarden.safety.paths import WorkspacePaths


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("recording-ws")


@pytest.fixture(scope="module")
async def session(workspace):
    config = Config()
    config.browser.workspace = workspace
    config.files.ffmpeg = "no-ffmpeg-by-this-name"  # as on a machine without ffmpeg
    async with tabwarden.launch(isolated=True, config=config) as browser:
        yield browser


def _frames_of(path: Path) -> list[dict]:
    page = path.read_text()
    match = re.search(r"const frames = (\[.*?\]);\n", page, re.S)
    assert match, "the player holds its frames"
    return json.loads(match.group(1).replace("<\\/", "</"))


async def _until_frames(tab, count: int) -> None:
    """Poll (with a deadline) until the recorder holds ``count`` frames."""
    budget = Budget(15.0)
    recorder = tab.page.services.recordings.recorder(tab.id)
    while recorder.statistics().size < count:
        assert not budget.expired, f"only {recorder.statistics().size} frames arrived"
        await budget.sleep(0.05)


@pytest.mark.browser
async def test_a_recording_becomes_an_html_player_holding_the_frames(session, server, workspace):
    tab = await session.new_tab(server.url("/files_anim.html"))
    started = await tab.record_start(quality=50, max_width=400)
    assert "recording tab" in started.text()
    await _until_frames(tab, 5)
    saved = await tab.record_stop("demo")
    assert saved.path == workspace / "tabwarden-output" / "recordings" / "demo.html"
    assert saved.format == "html" and saved.frames >= 5
    assert "no ffmpeg" in saved.note
    frames = _frames_of(saved.path)
    assert len(frames) == saved.frames
    times = [f["t"] for f in frames]
    assert times == sorted(times) and times[0] == 0
    first = base64.b64decode(frames[0]["src"].removeprefix("data:image/jpeg;base64,"))
    assert first[:2] == b"\xff\xd8"  # JPEG
    width, _ = jpeg_size(first)
    assert width <= 400
    page = saved.path.read_text()
    for control in ('id="play"', 'id="seek"', "setTimeout"):
        assert control in page
    assert saved.bytes == saved.path.stat().st_size
    assert f"recording saved to {saved.path} (html" in saved.text()
    with pytest.raises(ActionError, match="not being recorded"):
        await tab.record_stop()
    await tab.close()
    await _plays(session, page, len(frames))


async def _plays(session, page: str, count: int) -> None:
    """The player shows a frame, plays through the frames, and seeks."""
    player = await session.new_tab()
    await player.evaluate(
        function="(html) => { document.open(); document.write(html); document.close(); }",
        args=[page],
    )
    state = "[index, frames.length, document.getElementById('frame').src.slice(0, 23)]"
    assert (await player.evaluate(state)).value == [0, count, "data:image/jpeg;base64,"]
    # The button's labels as they change: a short recording may play through before the
    # receipt reads the page.
    await player.evaluate(
        "window.labels = []; new MutationObserver(() => labels.push(play.textContent))"
        ".observe(play, {childList: true, subtree: true, characterData: true})"
    )
    await player.click("#play")
    await player.wait(text_gone="Pause", timeout_ms=10_000)  # back to Play at the end
    assert (await player.evaluate("labels")).value == ["Pause", "Play"]
    assert (await player.evaluate("index")).value == count - 1
    await player.evaluate("seek.value = 1; seek.oninput(); index")
    assert (await player.evaluate("[index, timer]")).value == [1, None]
    await player.close()


@pytest.mark.browser
async def test_one_recording_per_tab_and_outside_paths_are_refused(session, server, tmp_path):
    tab = await session.new_tab(server.url("/files_anim.html"))
    await tab.record_start()
    with pytest.raises(ActionError, match="already being recorded"):
        await tab.record_start()
    await _until_frames(tab, 2)
    with pytest.raises(PathNotAllowed):
        await tab.record_stop(str(tmp_path / "out.html"))
    # The refused path kept the frames: saving again works.
    saved = await tab.record_stop("kept.html", format="html")
    assert saved.frames >= 2 and saved.path.name == "kept.html"
    await tab.close()


@pytest.mark.browser
async def test_frames_are_bounded_and_dropped_ones_counted(server, tmp_path):
    config = Config()
    config.browser.workspace = tmp_path
    config.files.recording_max_frames = 10
    config.files.ffmpeg = ""  # the HTML player, whatever is installed
    async with tabwarden.launch(isolated=True, config=config) as browser:
        tab = await browser.new_tab(server.url("/files_anim.html"))
        await tab.record_start(max_width=200)
        recorder = browser._services.recordings.recorder(tab.id)
        budget = Budget(15.0)
        while recorder.statistics().dropped < 3:
            assert not budget.expired, recorder.statistics()
            await budget.sleep(0.05)
        saved = await browser.record_stop()  # the only recording
        assert saved.frames == 10 and saved.dropped >= 3
        assert "earlier frames were dropped" in saved.text()
        assert len(_frames_of(saved.path)) == 10


@pytest.mark.browser
async def test_a_recording_still_running_is_saved_when_the_session_closes(server, tmp_path):
    async with tabwarden.launch(isolated=True, workspace=tmp_path) as browser:
        tab = await browser.new_tab(server.url("/files_anim.html"))
        await tab.record_start()
        await _until_frames(tab, 2)
    saved = list((tmp_path / "tabwarden-output" / "recordings").glob("*.html"))
    assert len(saved) == 1 and len(_frames_of(saved[0])) >= 2


async def test_the_player_escapes_its_title_and_cannot_be_broken_out_of(tmp_path):
    frames = [Frame(b"\xff\xd8</script><script>alert(1)</script>", 1.0)]
    page = html_player(frames, title="<b>x</b>")
    assert "<b>x</b>" not in page and "&lt;b&gt;" in page
    assert page.count("<script>") == 1
    empty = await write_recording(
        [], WorkspacePaths(tmp_path), None, Budget(5.0), format="webm", ffmpeg=""
    )
    assert empty.frames == 0 and empty.format == "html"
    assert "no frames" in empty.text()


async def test_frames_delivered_out_of_order_play_in_the_order_painted(tmp_path):
    # Chromium may deliver a screencast frame after one painted later (seen in a loaded
    # run: times 0, -17, 17, ...): the player must not step back in time.
    frames = [Frame(b"\xff\xd8 b", 2.25), Frame(b"\xff\xd8 a", 2.0), Frame(b"\xff\xd8 c", 2.5)]
    saved = await write_recording(
        frames, WorkspacePaths(tmp_path), "order", Budget(5.0), format="html"
    )
    played = _frames_of(saved.path)
    assert [f["t"] for f in played] == [0, 250, 500]
    assert [base64.b64decode(f["src"].split(",", 1)[1])[-1:] for f in played] == [
        b"a",
        b"b",
        b"c",
    ]
    assert saved.duration_ms == 500


async def test_a_failing_ffmpeg_falls_back_to_the_html_player(tmp_path):
    frames = [Frame(b"\xff\xd8 one", 1.0), Frame(b"\xff\xd8 two", 1.5)]  # ffmpeg never reads them
    saved = await write_recording(
        frames, WorkspacePaths(tmp_path), "clip", Budget(10.0), ffmpeg=shutil.which("false")
    )
    assert saved.format == "html" and saved.path.name == "clip.html"
    assert "ffmpeg failed" in saved.note and len(_frames_of(saved.path)) == 2
    assert not list(saved.path.parent.glob("*.webm"))  # no half-written video left


@pytest.mark.browser
async def test_with_ffmpeg_a_recording_becomes_a_webm(server, tmp_path):
    # The system's ffmpeg, else the one the imageio-ffmpeg wheel carries (a test
    # dependency), so the WebM path runs everywhere.
    import imageio_ffmpeg

    config = tabwarden.Config()
    config.files.ffmpeg = shutil.which("ffmpeg") or imageio_ffmpeg.get_ffmpeg_exe()
    async with tabwarden.launch(isolated=True, workspace=tmp_path, config=config) as browser:
        tab = await browser.new_tab(server.url("/files_anim.html"))
        await tab.record_start(max_width=333)
        await _until_frames(tab, 5)
        saved = await tab.record_stop("clip")
    assert saved.format == "webm" and saved.path.suffix == ".webm" and not saved.note
    assert saved.path.read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # Matroska/WebM


@pytest.mark.browser
async def test_with_no_ffmpeg_on_path_the_imageio_ffmpeg_binary_makes_the_webm(
    server, tmp_path, monkeypatch
):
    import imageio_ffmpeg  # the video extra (and the dev one): installed for the tests

    config = tabwarden.Config()
    assert config.files.ffmpeg == "ffmpeg"  # the default: a name looked up on PATH
    async with tabwarden.launch(isolated=True, workspace=tmp_path, config=config) as browser:
        tab = await browser.new_tab(server.url("/files_anim.html"))
        await tab.record_start(max_width=333)
        await _until_frames(tab, 5)
        monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no ffmpeg on it
        assert shutil.which("ffmpeg") is None
        saved = await tab.record_stop("clip")
    assert saved.format == "webm" and not saved.note
    assert saved.path.read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # Matroska/WebM
    assert find_ffmpeg("ffmpeg") == imageio_ffmpeg.get_ffmpeg_exe()


def test_only_the_default_name_falls_back_to_imageio_ffmpeg(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_ffmpeg("") is None  # always the HTML player
    assert find_ffmpeg("no-ffmpeg-by-this-name") is None  # what was configured, or nothing
    assert find_ffmpeg("ffmpeg") is not None
