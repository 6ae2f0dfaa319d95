"""Frames describe the documents a tab shows now: across navigation, history (the
back-forward cache too), iframes removed, replaced or moved to another site."""

from __future__ import annotations

import asyncio
import time
from urllib.parse import parse_qs, urlsplit

import pytest

import tabwarden
from tabwarden.backends import local

pytestmark = pytest.mark.browser

_DEADLINE_S = 10.0


@pytest.fixture
async def tab(browser):
    tab = await browser.new_tab()
    yield tab
    if not tab.closed:
        await tab.close()


def _name(url: str) -> str:
    """The ``?name=`` a test page gives each child frame."""
    return parse_qs(urlsplit(url).query).get("name", [url])[0]


def _children(session, tab) -> dict[str, bool]:
    """The tab's child frames by name → whether each is out of process."""
    return {
        _name(node.url): node.is_oopif
        for node in session.state(tab).frame_tree
        if node.parent is not None
    }


async def _frames_become(session, tab, expected: dict[str, bool]) -> None:
    """Poll the supervisor's frame tree until it shows exactly ``expected``."""
    deadline = time.monotonic() + _DEADLINE_S
    while (now := _children(session, tab)) != expected:
        if time.monotonic() > deadline:
            raise AssertionError(f"frames are {now}, expected {expected}")
        await asyncio.sleep(0.05)


def _frames_header(snapshot) -> str:
    return next(line for line in snapshot.text.splitlines() if line.startswith("# frames"))


async def _three(tab, server, other_origin) -> None:
    await tab.navigate(server.url(f"/frames_three.html?child={other_origin.base}"))


async def _assert_three(session, tab) -> None:
    assert _children(session, tab) == {"one": False, "two": False, "three": True}
    snapshot = await tab.snapshot()
    assert _frames_header(snapshot) == "# frames: 3 iframes, 1 cross-origin"
    assert snapshot.text.count('- button "Frame button"') == 3


async def _assert_two(session, tab) -> None:
    assert _children(session, tab) == {"same": False, "cross": True}
    assert {_name(f.url) for f in tab.frames.frames() if f.parent_id} == {"same", "cross"}
    snapshot = await tab.snapshot()
    assert _frames_header(snapshot) == "# frames: 2 iframes, 1 cross-origin"
    assert snapshot.text.count('- button "Frame button"') == 2


async def test_a_new_page_drops_the_frames_of_the_page_it_left(browser, tab, server, other_origin):
    await _three(tab, server, other_origin)
    await _assert_three(browser, tab)
    await tab.navigate(server.url(f"/frames.html?child={other_origin.base}"))
    await _assert_two(browser, tab)


async def test_a_receipt_lists_only_the_frames_of_the_page_a_click_led_to(
    browser, tab, server, other_origin
):
    await _three(tab, server, other_origin)
    left = {f.frame_id for f in tab.frames.frames() if f.parent_id}
    link = next(n.ref for n in (await tab.snapshot()).root.walk() if n.name == "Two frames")
    receipt = await tab.click(link)
    assert receipt.navigated
    # The receipt is taken once the new document is parsed: its frames may still be
    # loading (or not even started), but none of the old page's may be left.
    children = {node.frame_id for node in receipt.frame_tree if node.parent is not None}
    assert len(left) == 3 and not children & left, receipt.frame_tree
    assert len(children) <= 2, receipt.frame_tree


async def test_back_and_forward_show_the_frames_of_each_page(browser, tab, server, other_origin):
    await _three(tab, server, other_origin)
    await tab.navigate(server.url(f"/frames.html?child={other_origin.base}"))
    await tab.back()
    await _assert_three(browser, tab)
    await tab.forward()
    await _assert_two(browser, tab)


async def test_a_page_back_from_the_back_forward_cache_has_its_frames(
    monkeypatch, server, other_origin
):
    # tabwarden launches Chromium with the cache off; a browser it attaches to has it on.
    flags = tuple(f for f in local._QUIET_FLAGS if f != "--disable-back-forward-cache")
    monkeypatch.setattr(local, "_QUIET_FLAGS", flags)
    async with tabwarden.launch(isolated=True) as session:
        tab = await session.new_tab()
        kinds: list[str] = []
        refusals: list[object] = []
        tab.frames.main_session.subscribe(
            "Page.frameNavigated",
            lambda event: (
                kinds.append(event.params.get("type", ""))
                if not event.params["frame"].get("parentId")
                else None
            ),
        )
        tab.frames.main_session.subscribe(
            "Page.backForwardCacheNotUsed",
            lambda event: refusals.append(event.params.get("notRestoredExplanations")),
        )
        await _three(tab, server, other_origin)
        await tab.navigate(server.url(f"/frames.html?child={other_origin.base}"))
        await _assert_two(session, tab)
        # Chromium may decline to cache a page (a loaded machine can time out its
        # unload): frames must be right either way, and some round trip must restore
        # both pages from the cache.
        for _ in range(3):
            back = await tab.back()
            restored = kinds[-1] == "BackForwardCacheRestore"
            # An OOPIF's target attaches again on its own: wait for it.
            await _frames_become(session, tab, {"one": False, "two": False, "three": True})
            await _assert_three(session, tab)
            forward = await tab.forward()
            restored = restored and kinds[-1] == "BackForwardCacheRestore"
            await _frames_become(session, tab, {"same": False, "cross": True})
            await _assert_two(session, tab)
            if restored:
                assert "load" in back.reached and "load" in forward.reached
                break
        else:
            raise AssertionError(f"no page came back from the cache: {refusals}")


async def test_frames_removed_by_script_leave_the_tree(browser, tab, server, other_origin):
    await _three(tab, server, other_origin)
    await tab.evaluate("removeFrame('two'); removeFrame('cross')")
    await _frames_become(browser, tab, {"one": False})
    assert _frames_header(await tab.snapshot()) == "# frames: 1 iframe, 0 cross-origin"


async def test_a_frame_moved_to_another_site_is_counted_where_it_is_now(
    browser, tab, server, other_origin
):
    await _three(tab, server, other_origin)
    await tab.evaluate(
        f"setSource('cross', '{server.url('/frame_child.html?name=home')}');"
        f"setSource('one', '{other_origin.url('/frame_child.html?name=away')}')"
    )
    await _frames_become(browser, tab, {"away": True, "two": False, "home": False})
    assert _frames_header(await tab.snapshot()) == "# frames: 3 iframes, 1 cross-origin"


async def test_a_replaced_iframe_is_a_new_frame_and_the_old_one_is_gone(
    browser, tab, server, other_origin
):
    await _three(tab, server, other_origin)
    before = {_name(f.url): f.frame_id for f in tab.frames.frames()}
    await tab.evaluate(
        f"replaceFrame('two', '{other_origin.url('/frame_child.html?name=fresh')}');"
        f"replaceFrame('cross', '{server.url('/frame_child.html?name=local')}')"
    )
    await _frames_become(browser, tab, {"one": False, "fresh": True, "local": False})
    ids = {f.frame_id for f in tab.frames.frames()}
    assert before["two"] not in ids and before["three"] not in ids
    snapshot = await tab.snapshot()
    assert _frames_header(snapshot) == "# frames: 3 iframes, 1 cross-origin"
    assert snapshot.text.count('- button "Frame button"') == 3


async def test_a_frame_that_navigates_loses_the_frames_inside_its_old_document(
    browser, tab, server, other_origin
):
    await _three(tab, server, other_origin)
    # The first frame shows a page with two frames of its own (both on its site) ...
    await tab.evaluate(f"setSource('one', '{server.url('/frames.html')}')")
    await _frames_become(
        browser,
        tab,
        {
            server.url("/frames.html"): False,
            "two": False,
            "three": True,
            "same": False,
            "cross": False,
        },
    )
    # ... then moves to another site: they went with the document.
    await tab.evaluate(f"setSource('one', '{other_origin.url('/frame_child.html?name=away')}')")
    await _frames_become(browser, tab, {"away": True, "two": False, "three": True})
