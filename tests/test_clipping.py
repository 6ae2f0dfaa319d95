"""The page does not decide how big a reply is: URLs, titles and errors are clipped in one
place and one way, ``max_chars`` bounds a snapshot header and all, every reply has a ceiling."""

from __future__ import annotations

import re

import pytest

import tabwarden
from tabwarden.clipping import (
    HINT_CHARS,
    MESSAGE_CHARS,
    REPLY_CHARS,
    TITLE_CHARS,
    URL_CHARS,
    clip,
)
from tabwarden.config import Config
from tabwarden.errors import NavigationFailed, TabwardenError
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tabwarden.tools.spec import Params, ToolResult, ToolSpec

HUGE_URL_CHARS = 1_500_000
HUGE_TITLE_CHARS = 500_000
BLOAT = (
    f"history.replaceState(null, '', '?' + 'u'.repeat({HUGE_URL_CHARS}));"
    f"document.title = 't'.repeat({HUGE_TITLE_CHARS}); 1"
)
CUT = re.compile(r"…\[\+([\d,]+) chars\]")


# ---- clip itself (no browser) ---------------------------------------------------------------


def test_clip_keeps_what_fits_and_says_how_much_it_cut() -> None:
    assert clip("short", 10) == "short"
    text = "x" * 1_000
    clipped = clip(text, 100)
    assert len(clipped) == 100
    match = CUT.search(clipped)
    assert match is not None
    kept = clipped[: match.start()]
    assert kept == "x" * len(kept)
    assert len(kept) + int(match.group(1).replace(",", "")) == len(text)


def test_errors_are_bounded_whatever_they_quote() -> None:
    error = TabwardenError("cannot open " + "u" * 5_000_000, hint="h" * 50_000)
    assert len(error.message) == MESSAGE_CHARS and CUT.search(error.message)
    assert len(error.hint) == HINT_CHARS
    assert len(str(error)) <= MESSAGE_CHARS + HINT_CHARS + 3


# ---- a page that bloats its URL and title ---------------------------------------------------


@pytest.fixture(scope="module")
async def ctx():
    config = Config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        yield ToolContext(manager, "clipping")


async def bloated_tab(ctx: ToolContext, url: str) -> tabwarden.Tab:
    await call_tool(ctx, "browser_navigate", {"url": url})
    tab = (await ctx.session()).active_tab
    assert tab is not None
    await tab.evaluate(BLOAT)
    return tab


@pytest.mark.browser
async def test_a_bloated_page_gets_a_snapshot_no_bigger_than_max_chars(ctx, server) -> None:
    tab = await bloated_tab(ctx, server.url("/index.html"))
    for max_chars in (200, 1_000, 12_000):
        snap = await tab.snapshot(max_chars=max_chars)
        assert len(snap.page.text) <= max_chars, (max_chars, len(snap.page.text))
        assert snap.page.text.startswith(f"# tab {tab.id} · ")
        assert CUT.search(snap.page.text)
    assert len(snap.url) <= URL_CHARS and len(snap.title) <= TITLE_CHARS
    result = await call_tool(ctx, "browser_snapshot", {"max_chars": 200})
    assert len(result.text) <= 200 + 100  # the untrusted-content marker comes on top


@pytest.mark.browser
async def test_tab_lists_receipts_and_navigation_results_clip_urls_and_titles(ctx, server) -> None:
    tab = await bloated_tab(ctx, server.url("/index.html"))
    listing = await call_tool(ctx, "browser_tabs", {})
    assert len(listing.final_text()) < 5_000
    info = next(i for i in await (await ctx.session()).tab_infos() if i.id == tab.id)
    assert len(info.url) == URL_CHARS and len(info.title) == TITLE_CHARS
    snap = await tab.snapshot()
    ref = re.search(r"\[ref=(e\d+)\]", snap.page.text)
    assert ref is not None
    receipt = await tab.click(ref.group(1))
    assert len(receipt.url) <= URL_CHARS and len(receipt.title) <= TITLE_CHARS
    assert len(receipt.text()) < 5_000
    reloaded = await tab.reload()
    assert len(reloaded.url) <= URL_CHARS and len(reloaded.title) <= TITLE_CHARS


@pytest.mark.browser
async def test_navigating_to_a_huge_url_is_a_bounded_error(ctx, closed_port) -> None:
    url = f"http://127.0.0.1:{closed_port}/" + "x" * 10_000_000
    with pytest.raises(NavigationFailed) as caught:
        await call_tool(ctx, "browser_navigate", {"url": url, "timeout_ms": 30_000})
    assert len(str(caught.value)) <= MESSAGE_CHARS + HINT_CHARS + 3
    assert CUT.search(caught.value.message)


class NoParams(Params):
    pass


async def test_every_reply_has_a_ceiling(ctx) -> None:
    """A tool whose text runs past the ceiling (none of the built-in ones can) is cut."""

    async def overflowing(_ctx: ToolContext, _params: Params) -> ToolResult:
        return ToolResult("z" * (REPLY_CHARS * 2))

    spec = ToolSpec("overflowing", "core", "Says too much.", NoParams, overflowing)
    result = await call_tool(ctx, "overflowing", {}, tools=[spec])
    assert len(result.text) == REPLY_CHARS and CUT.search(result.text)
