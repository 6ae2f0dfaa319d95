"""Screenshots of the viewport, the full page and one element, with and without ref marks."""

from __future__ import annotations

import struct

import pytest

from tabwarden.errors import InvalidArgument


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


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
