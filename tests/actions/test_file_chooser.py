"""File choosers: how the snapshot shows them, and upload_file on inputs (hidden ones too),
on what opens a chooser, and on drop zones — in frames too."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tabwarden.actions.upload import _outside_accept
from tabwarden.errors import InvalidArgument, NotActionable, PathNotAllowed
from tabwarden.snapshot.model import Bounds, SnapshotNode
from tabwarden.snapshot.render import render_lines


def _node(snapshot, name: str, role: str | None = None) -> SnapshotNode:
    for node in snapshot.root.walk():
        if node.name == name and (role is None or node.role == role) and node.ref:
            return node
    raise AssertionError(f"no {role or 'node'} named {name!r} in:\n{snapshot.text}")


def _ref(snapshot, name: str, role: str | None = None) -> str:
    ref = _node(snapshot, name, role).ref
    assert ref is not None
    return ref


def _line(snapshot, ref: str) -> str:
    lines = [line.strip() for line in snapshot.text.splitlines() if f"[ref={ref}]" in line]
    assert len(lines) == 1, snapshot.text
    return lines[0]


async def _out(tab, name: str, frame_id: str | None = None) -> str:
    result = await tab.evaluate(
        f"document.getElementById('out-{name}').textContent", frame_id=frame_id
    )
    return str(result.value)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Files inside the workspace (the tests' workspace is pytest's temporary folder)."""
    made = {"cv.pdf": "%PDF cv", "photo.png": "png bytes!", "notes.txt": "notes"}
    for name, text in made.items():
        (tmp_path / name).write_text(text)
    return {name: tmp_path / name for name in made}


@pytest.fixture
async def page(browser, server):
    tab = await browser.new_tab(server.url("/files_chooser.html"))
    snap = await tab.snapshot()
    yield tab, snap
    if not tab.closed:
        await tab.close()


async def test_the_snapshot_shows_each_file_chooser_once_with_label_accept_and_multiple(page):
    _, snap = page
    resume = _ref(snap, "Resume", "filechooser")
    assert _line(snap, resume) == f'- filechooser "Resume" [ref={resume}] [accept=.pdf,image/*]'
    # Inputs the page hides behind a label that opens them: the label is the chooser.
    for name in ("Add photos", "Upload avatar", "Cover letter"):
        node = _node(snap, name, "filechooser")
        assert node.bounds is not None and not node.hidden
        assert sum(f'"{name}"' in line for line in snap.text.splitlines()) == 1, snap.text
    photos = _ref(snap, "Add photos")
    assert _line(snap, photos).endswith("[accept=image/*] [multiple]")
    # A hidden input with no label on show (a button's script opens it) is listed as such.
    attachment = _ref(snap, "Attachment", "filechooser")
    assert _line(snap, attachment) == f'- filechooser "Attachment" [ref={attachment}] [hidden]'
    assert _node(snap, "Attach a file").role == "button"
    assert _node(snap, "Drop files here").role == "dropzone"
    assert "Choose File" not in snap.text and "fakepath" not in snap.text


async def test_a_visible_input_gets_files_and_shows_their_names(page, files):
    tab, snap = page
    resume = _ref(snap, "Resume", "filechooser")
    receipt = await tab.upload_file(resume, str(files["cv.pdf"]))
    assert receipt.target == f'{resume} (filechooser "Resume")'
    assert receipt.detail == "attached cv.pdf"
    assert await _out(tab, "resume") == "cv.pdf:7"
    events = (await tab.evaluate("__events")).value
    assert events == ["input resume", "change resume"]
    assert f"[ref={resume}] [accept=.pdf,image/*]: cv.pdf" in receipt.text()
    assert _line(await tab.snapshot(), resume).endswith(": cv.pdf")
    # A file the input does not ask for is attached, and the receipt says so.
    receipt = await tab.upload_file(resume, str(files["notes.txt"]))
    assert receipt.detail == (
        "attached notes.txt (it asks for .pdf,image/*: the page may refuse notes.txt)"
    )


async def test_labels_over_hidden_inputs_take_files(page, files):
    tab, snap = page
    receipt = await tab.upload_file(
        _ref(snap, "Add photos"), [str(files["photo.png"]), str(files["cv.pdf"])]
    )
    assert receipt.detail.startswith("attached photo.png, cv.pdf")
    assert await _out(tab, "photos") == "photo.png:10, cv.pdf:7"
    await tab.upload_file(_ref(snap, "Upload avatar"), str(files["photo.png"]))
    assert await _out(tab, "avatar") == "photo.png:10"
    await tab.upload_file(_ref(snap, "Cover letter"), str(files["notes.txt"]))
    assert await _out(tab, "cover") == "notes.txt:5"
    after = await tab.snapshot()
    assert _line(after, _ref(after, "Add photos")).endswith(": photo.png, cv.pdf")


async def test_a_button_that_clicks_a_hidden_input_opens_a_chooser_that_gets_the_files(page, files):
    tab, snap = page
    button = _ref(snap, "Attach a file")
    receipt = await tab.upload_file(button, str(files["cv.pdf"]))
    assert receipt.target == f'{button} (button "Attach a file")'
    assert receipt.detail == (
        'attached cv.pdf through the file chooser it opened (file input "Attachment")'
    )
    assert await _out(tab, "attachment") == "cv.pdf:7"
    assert (await tab.evaluate("__events")).value == ["input attachment", "change attachment"]
    # The receipt shows the hidden input's new value.
    assert f'filechooser "Attachment" [ref={_ref(snap, "Attachment")}] [hidden]: cv.pdf' in (
        receipt.text()
    )
    # The hidden input itself takes files by its ref (no pointer needed).
    await tab.upload_file(_ref(snap, "Attachment"), str(files["notes.txt"]))
    assert await _out(tab, "attachment") == "notes.txt:5"


async def test_a_button_that_makes_a_detached_input_takes_several_files(page, files):
    tab, snap = page
    receipt = await tab.upload_file(
        _ref(snap, "Import spreadsheets"), [str(files["notes.txt"]), str(files["photo.png"])]
    )
    assert receipt.detail == (
        "attached notes.txt, photo.png through the file chooser it opened "
        "(file input unnamed, made by script)"
    )
    assert await _out(tab, "import") == "notes.txt:5, photo.png:10"


async def test_several_files_for_a_single_file_chooser_are_refused(page, files):
    tab, snap = page
    two = [str(files["cv.pdf"]), str(files["notes.txt"])]
    with pytest.raises(InvalidArgument, match="takes one file, 2 were given") as direct:
        await tab.upload_file(_ref(snap, "Resume", "filechooser"), two)
    assert direct.value.hint == "pass one path"
    with pytest.raises(InvalidArgument, match=r"file chooser e\d+ .* takes one file"):
        await tab.upload_file(_ref(snap, "Attach a file"), two)
    assert await _out(tab, "resume") == ""
    assert await _out(tab, "attachment") == ""


async def test_an_element_that_opens_no_chooser_fails_with_guidance(page, files):
    tab, snap = page
    save = _ref(snap, "Save draft")
    started = time.monotonic()
    with pytest.raises(NotActionable, match="opened no file chooser") as caught:
        await tab.upload_file(save, str(files["cv.pdf"]))
    assert time.monotonic() - started < 8
    assert caught.value.reason == "no-file-chooser"
    assert "filechooser" in caught.value.hint and "dropzone" in caught.value.hint
    assert await _out(tab, "nothing") == "clicked"  # it was clicked, and said so
    # Choosers are not left intercepted: the next upload through a click still works.
    await tab.upload_file(_ref(snap, "Attach a file"), str(files["cv.pdf"]))
    assert await _out(tab, "attachment") == "cv.pdf:7"


async def test_the_file_system_access_picker_is_a_clear_error(page, files):
    tab, snap = page
    with pytest.raises(NotActionable, match="showOpenFilePicker") as caught:
        await tab.upload_file(_ref(snap, "Open with the picker"), str(files["cv.pdf"]))
    assert caught.value.reason == "file-picker"
    assert "dropzone" in caught.value.hint
    await tab.wait(text="AbortError", timeout_ms=10_000)  # the page's picker was cancelled


async def test_files_are_dropped_on_a_drop_zone(page, files):
    tab, snap = page
    zone = _ref(snap, "Drop files here", "dropzone")
    receipt = await tab.upload_file(zone, [str(files["cv.pdf"]), str(files["photo.png"])])
    assert receipt.detail == "dropped cv.pdf, photo.png onto it"
    assert await _out(tab, "zone") == "cv.pdf:7, photo.png:10"
    assert not receipt.navigated


async def test_a_drop_zone_that_does_not_accept_files_is_a_clear_error(page, files):
    tab, snap = page
    closed = _ref(snap, "Uploads are closed", "dropzone")
    with pytest.raises(NotActionable, match="does not take dropped files") as caught:
        await tab.upload_file(closed, str(files["cv.pdf"]))
    assert caught.value.reason == "no-drop"
    assert await _out(tab, "closed") == ""
    assert tab.url.endswith("/files_chooser.html")


async def test_a_drop_the_page_leaves_uncancelled_does_not_open_the_file(page, files):
    tab, snap = page
    zone = _ref(snap, "Drop here, no questions asked", "dropzone")
    receipt = await tab.upload_file(zone, str(files["notes.txt"]))
    assert await _out(tab, "lazy") == "notes.txt:5"
    # The browser did not go off to open the file (the receipt would wait for that load).
    assert not receipt.navigated and receipt.elapsed_ms < 4_000
    assert tab.url.endswith("/files_chooser.html")


async def test_form_fields_that_open_no_chooser_are_refused_untouched(browser, server, files):
    tab = await browser.new_tab(server.url("/actions.html"))
    snap = await tab.snapshot()
    textbox = next(n for n in snap.root.walk() if n.role == "textbox" and n.ref)
    with pytest.raises(NotActionable, match="takes no files") as caught:
        await tab.upload_file(textbox.ref, str(files["cv.pdf"]))
    assert caught.value.reason == "not-file-input"
    assert "filechooser" in caught.value.hint
    assert not textbox.focused and not _node(await tab.snapshot(), textbox.name).focused
    await tab.close()


async def test_a_drop_listener_added_later_makes_a_drop_zone(page, files):
    tab, snap = page
    assert "Drop here once ready" not in snap.text
    await tab.evaluate(
        """(() => {
          const zone = document.getElementById('late-zone');
          zone.addEventListener('dragover', e => e.preventDefault());
          zone.addEventListener('drop', e => {
            e.preventDefault();
            zone.textContent = 'got ' + [...e.dataTransfer.files].map(f => f.name).join(', ');
          });
        })()"""
    )
    zone = _ref(await tab.snapshot(), "Drop here once ready", "dropzone")
    await tab.upload_file(zone, str(files["notes.txt"]))
    assert await tab.get_text("#late-zone") == "got notes.txt"


async def test_files_from_outside_the_workspace_are_refused_before_any_click_or_drop(page):
    tab, snap = page
    for ref in (
        _ref(snap, "Attach a file"),
        _ref(snap, "Drop files here", "dropzone"),
        _ref(snap, "Add photos", "filechooser"),
    ):
        with pytest.raises(PathNotAllowed, match="outside the folders"):
            await tab.upload_file(ref, "/etc/hostname")
    for name in ("attachment", "zone", "photos"):
        assert await _out(tab, name) == ""


async def test_choosers_and_drop_zones_in_same_origin_and_cross_origin_frames(
    browser, server, other_origin, files
):
    tab = await browser.new_tab(server.url(f"/files_chooser_frames.html?child={other_origin.base}"))
    snap = await tab.snapshot()
    buttons = [n for n in snap.root.walk() if n.name == "Attach a file" and n.ref]
    zones = [n for n in snap.root.walk() if n.role == "dropzone" and n.name == "Drop files here"]
    labels = [n for n in snap.root.walk() if n.role == "filechooser" and n.name == "Add photos"]
    assert len(buttons) == len(zones) == len(labels) == 2
    assert buttons[0].frame != buttons[1].frame
    for button, zone, label in zip(buttons, zones, labels, strict=True):
        await tab.upload_file(button.ref, str(files["cv.pdf"]))
        assert await _out(tab, "attachment", button.frame) == "cv.pdf:7"
        await tab.upload_file(zone.ref, [str(files["notes.txt"])])
        assert await _out(tab, "zone", zone.frame) == "notes.txt:5"
        await tab.upload_file(label.ref, [str(files["photo.png"])])
        assert await _out(tab, "photos", label.frame) == "photo.png:10"
    await tab.close()


def test_a_file_chooser_line_names_what_it_takes():
    root = SnapshotNode(
        "document",
        children=[
            SnapshotNode(
                "filechooser",
                "Photos",
                ref="e3",
                value="a.png, b.png",
                bounds=Bounds(0, 0, 80, 20),
                accept="image/*",
                multiple=True,
            ),
            SnapshotNode("filechooser", "Attachment", ref="e4", hidden=True),
            SnapshotNode("button", "Gone", ref="e5"),  # no box: not shown
        ],
    )
    assert render_lines(root, full=False) == [
        '- filechooser "Photos" [ref=e3] [accept=image/*] [multiple]: a.png, b.png',
        '- filechooser "Attachment" [ref=e4] [hidden]',
    ]


def test_files_outside_accept_are_named():
    accept = ".pdf, image/*,text/csv"
    names = ["cv.PDF", "photo.png", "data.csv", "notes.txt", "archive"]
    assert _outside_accept(names, accept) == ["notes.txt", "archive"]
    assert _outside_accept(names, "") == []
