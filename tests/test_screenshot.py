"""Screenshots of the viewport, the full page and one element, with and without ref marks;
the bounds of a full-page image, and a capture that runs out of time."""

from __future__ import annotations

import struct
import time
import zlib

import pytest

from tabwarden.errors import DeadlineExceeded, InvalidArgument
from tabwarden.screenshot import MAX_AREA_PX, MAX_SIDE_PX

VIEW = "[innerWidth, innerHeight, scrollX, scrollY, devicePixelRatio]"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _png_rows(data: bytes) -> tuple[int, list[bytes]]:
    """Bytes per pixel and the unfiltered rows of an 8-bit RGB or RGBA PNG (a small decoder:
    images here are a few pixels wide)."""
    width, height = _png_size(data)
    depth, colour = data[24], data[25]
    assert depth == 8 and colour in (2, 6), (depth, colour)
    bpp = 3 if colour == 2 else 4
    compressed, pos = b"", 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IDAT":
            compressed += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(compressed)
    stride = width * bpp
    rows: list[bytes] = []
    above = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = above[i], above[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                guess = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + guess) & 255
        rows.append(bytes(line))
        above = line
    return bpp, rows


def _band_at(rows: tuple[int, list[bytes]], y: int) -> int:
    """Which band of tall.html (rgb(i*5, 255-i*5, 128)) the image shows on row ``y``."""
    bpp, lines = rows
    red, green, blue = lines[y][bpp : bpp + 3]  # the second pixel: clear of any edge
    band = round(red / 5)
    assert abs(green - (255 - band * 5)) <= 2 and abs(blue - 128) <= 2, (red, green, blue)
    return band


async def test_viewport_full_page_and_element(browser, server, other_origin, tmp_path):
    tab = await browser.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    viewport = await tab.screenshot()
    assert _png_size(viewport.data) == (viewport.width, viewport.height)
    await tab.navigate(server.url("/big.html"))
    full = await tab.screenshot(full_page=True)
    assert full.height > viewport.height
    assert _png_size(full.data)[1] == full.height
    jpeg = await tab.screenshot(format="jpeg", quality=50, path=str(tmp_path / "shot.jpg"))
    assert jpeg.data[:2] == b"\xff\xd8" and (tmp_path / "shot.jpg").read_bytes() == jpeg.data
    await tab.navigate(server.url(f"/frames.html?child={other_origin.base}"))
    snap = await tab.snapshot()
    inner = [n for n in snap.root.walk() if n.name == "Frame button"][1]  # in the OOPIF
    element = await tab.screenshot(ref=inner.ref)
    assert (element.width, element.height) == (
        round(inner.bounds.width),
        round(inner.bounds.height),
    )
    assert _png_size(element.data) == (element.width, element.height)
    await tab.close()


async def test_an_element_under_an_overlay_can_still_be_captured(browser, server):
    # A screenshot looks, it does not act: a cover (a cookie backdrop) is part of the
    # picture, where a click would fail naming it.
    tab = await browser.new_tab(server.url("/covered.html"))
    try:
        snap = await tab.snapshot()
        under = next(n for n in snap.root.walk() if n.name == "Buy now")
        assert under.covered_by
        shot = await tab.screenshot(ref=under.ref)
        assert (shot.width, shot.height) == (round(under.bounds.width), round(under.bounds.height))
        assert _png_size(shot.data) == (shot.width, shot.height)
    finally:
        await tab.close()


async def test_annotate_draws_ref_marks_and_removes_them(browser, server):
    tab = await browser.new_tab(server.url("/snap_basic.html"))
    plain = await tab.screenshot()
    marked = await tab.screenshot(annotate=True)
    assert marked.marks >= 8
    assert marked.data != plain.data
    again = await tab.screenshot()
    assert again.data == plain.data  # the marks are gone from the page
    reply = await tab.cdp(
        "Runtime.evaluate",
        {"expression": "!!document.getElementById('__tabwarden_marks__')", "returnByValue": True},
    )
    assert reply["result"]["value"] is False
    await tab.close()


async def test_bad_screenshot_arguments(browser):
    tab = await browser.current_tab()
    with pytest.raises(InvalidArgument):
        await tab.screenshot(format="gif")
    with pytest.raises(InvalidArgument):
        await tab.screenshot(quality=50)
    with pytest.raises(InvalidArgument):
        await tab.screenshot(ref="e1", full_page=True)


async def test_page_content_and_images_through_the_tab(browser, server):
    tab = await browser.new_tab(server.url("/snap_basic.html"))
    content = await tab.get_content()
    assert "# Sign in" in content.text and "hunter2" not in content.text
    assert content.untrusted
    text = await tab.get_content(format="text")
    assert "Sign in" in text.text
    images = await tab.get_images()
    assert images.total == 0
    await tab.close()


async def test_a_tall_page_is_captured_up_to_the_bound_and_says_so(browser, server):
    # 10 px wide, so that the test can decode the image: 40 bands of 1000 px.
    await browser.emulate(width=10)
    tab = await browser.new_tab(server.url("/tall.html?bands=40"))
    try:
        view = (await tab.evaluate(VIEW)).value
        shot = await tab.screenshot(full_page=True)
        assert _png_size(shot.data) == (10, MAX_SIDE_PX)
        assert (shot.kind, shot.width, shot.height, shot.top) == ("page", 10, MAX_SIDE_PX, 0)
        assert (shot.full_width, shot.full_height, shot.cut) == (10, 40_000, True)
        assert "the page is 10 x 40,000 px" in shot.note()
        assert "y 0 to 16,384" in shot.note() and "scroll and capture again" in shot.note()
        assert shot.to_dict()["cut"] is True and shot.to_dict()["full_height"] == 40_000
        rows = _png_rows(shot.data)
        assert (_band_at(rows, 0), _band_at(rows, MAX_SIDE_PX - 1)) == (0, 16)
        assert (await tab.evaluate(VIEW)).value == view

        # Scrolled: the image starts where the page is scrolled to (as far as the page
        # lets it), and the page stays scrolled there.
        await tab.evaluate("scrollTo(0, 30000)")
        view = (await tab.evaluate(VIEW)).value
        shot = await tab.screenshot(full_page=True)
        assert shot.top == 40_000 - MAX_SIDE_PX and shot.cut
        assert f"y {40_000 - MAX_SIDE_PX:,} to 40,000" in shot.note()
        rows = _png_rows(shot.data)
        assert (_band_at(rows, 0), _band_at(rows, MAX_SIDE_PX - 1)) == (23, 39)
        assert (await tab.evaluate(VIEW)).value == view
    finally:
        await tab.close()
        await browser.emulate(reset=True)


async def test_a_page_that_fits_is_captured_whole_under_the_session_emulation(browser, server):
    # A block 100vh tall comes first: it keeps the viewport's height in the image.
    await browser.emulate(width=10, height=300, device_scale_factor=2)
    tab = await browser.new_tab(server.url("/tall.html?bands=5&hero=1"))
    try:
        await tab.evaluate("scrollTo(0, 1200)")
        view = (await tab.evaluate(VIEW)).value
        assert view == [10, 300, 0, 1200, 2]
        shot = await tab.screenshot(full_page=True)
        assert _png_size(shot.data) == (20, 10_600)  # image pixels: twice the CSS pixels
        rows = _png_rows(shot.data)
        assert [_band_at(rows, y) for y in (0, 599, 600, 10_599)] == [49, 49, 0, 4]
        assert (shot.width, shot.height, shot.top, shot.cut) == (10, 5300, 0, False)
        assert shot.note() == ""
        assert (await tab.evaluate(VIEW)).value == view  # emulated viewport and scroll kept
    finally:
        await tab.close()
        await browser.emulate(reset=True)


async def test_a_very_wide_page_is_bounded_by_area(browser, server):
    tab = await browser.new_tab(server.url("/tall.html?bands=40&wide=40000"))
    try:
        view = (await tab.evaluate(VIEW)).value
        shot = await tab.screenshot(full_page=True)
        height = MAX_AREA_PX // MAX_SIDE_PX
        assert _png_size(shot.data) == (MAX_SIDE_PX, height)
        assert (shot.full_width, shot.full_height) == (40_000, 40_000)
        assert f"x 0 to {MAX_SIDE_PX:,}, y 0 to {height:,}" in shot.note()
        assert (await tab.evaluate(VIEW)).value == view
    finally:
        await tab.close()


async def test_an_element_taller_than_the_viewport_is_captured_whole(browser, server):
    # Below a block 100vh tall.
    tab = await browser.new_tab(server.url("/tall.html?bands=5&narrow=10&hero=1"))
    try:
        view = (await tab.evaluate(VIEW)).value
        snap = await tab.snapshot()
        bands = next(n for n in snap.root.walk() if n.name == "Bands")
        shot = await tab.screenshot(ref=bands.ref)
        assert _png_size(shot.data) == (10, 5000)
        rows = _png_rows(shot.data)  # no blank where the element was out of view
        assert [_band_at(rows, y) for y in (0, 2_500, 4_999)] == [0, 2, 4]
        assert (shot.kind, shot.width, shot.height, shot.cut) == ("element", 10, 5000, False)
        assert (await tab.evaluate(VIEW)).value[:2] == view[:2]  # its own viewport again
    finally:
        await tab.close()


async def test_an_element_over_the_bound_on_a_page_over_it_is_cut_and_says_so(browser, server):
    # The page is over the bounds too: it shows the element in a viewport made taller, where
    # the block 100vh tall above the element grows, and moves the element down.
    tab = await browser.new_tab(server.url("/tall.html?bands=40&narrow=10&hero=1"))
    try:
        view = (await tab.evaluate(VIEW)).value
        snap = await tab.snapshot()
        bands = next(n for n in snap.root.walk() if n.name == "Bands")
        shot = await tab.screenshot(ref=bands.ref)
        assert _png_size(shot.data) == (10, MAX_SIDE_PX)
        rows = _png_rows(shot.data)
        assert (_band_at(rows, 0), _band_at(rows, MAX_SIDE_PX - 1)) == (0, 16)
        assert (shot.kind, shot.full_height, shot.cut) == ("element", 40_000, True)
        assert "the element is 10 x 40,000 px" in shot.note()
        assert "its top left 10 x 16,384 px" in shot.note()
        assert (await tab.evaluate(VIEW)).value[:2] == view[:2]  # its own viewport again
    finally:
        await tab.close()


async def test_a_capture_that_runs_out_of_time_leaves_the_tab_responsive(browser, server):
    # 200,000 elements, 400,000 px tall. A capture cannot be stopped once the browser has
    # begun it: it must be small enough to end soon, the tab's next calls must not overlap
    # it (they used to wait 10 s, and a second capture 45 s or crashed the browser), and
    # the page must get its viewport back.
    tab = await browser.new_tab(server.url("/tall.html?elements=200000"), timeout_ms=60_000)
    try:
        view = (await tab.evaluate(VIEW, timeout_ms=60_000)).value
        # Out of time in the capture, or (on a loaded machine) already in the layout
        # metrics before it: a DeadlineExceeded either way, and the tab must recover.
        with pytest.raises(DeadlineExceeded, match="within 100 ms"):
            await tab.screenshot(full_page=True, timeout_ms=100)
        started = time.monotonic()
        assert (await tab.evaluate("1 + 1", timeout_ms=30_000)).value == 2
        assert time.monotonic() - started < 6
        assert (await tab.evaluate(VIEW)).value == view
        started = time.monotonic()
        shot = await tab.screenshot(timeout_ms=15_000)
        assert time.monotonic() - started < 6
        assert _png_size(shot.data) == (view[0], view[1])
        shot = await tab.screenshot(full_page=True, timeout_ms=30_000)
        assert _png_size(shot.data) == (view[0], MAX_SIDE_PX) and shot.cut
        assert (await tab.evaluate(VIEW)).value == view
    finally:
        await tab.close()
