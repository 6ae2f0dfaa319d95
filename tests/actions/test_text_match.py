"""Text matching in a real page: wait(text=…), wait(text_gone=…) and snapshot find agree
with each other and with what the snapshot shows, whatever CSS does to the text."""

from __future__ import annotations

import pytest

from tabwarden.errors import DeadlineExceeded, InvalidArgument
from tabwarden.textmatch import NORMALISE_JS, collapse, fold

# Text both sides must normalise alike: Unicode spaces, line breaks, and letters whose
# case mappings change their length or depend on their neighbours.
TRICKY = [
    "Total:\u00a0\u00a042",
    "\t tabs \n and\r\nlines \x0b\x0c",
    "em\u2003space\u3000ideographic\u202fnarrow\u205fmath\u1680ogham",
    "zero\ufeffwidth no-break, next\x85line, \u2028line\u2029paragraph",
    "Straße",
    "İstanbul \u0131i",  # a dotless i
    "ΟΔΟΣ Σ ΟΔΟΣΣ",
    "ﬁne ŉ ǅ ΐ",
    "ÉCOLE élève",
    "",
    "   ",
]


@pytest.fixture
async def tab(browser, server, other_origin):
    tab = await browser.new_tab()
    await tab.navigate(server.url(f"/text_match.html?child={other_origin.base}"))
    yield tab
    if not tab.closed:
        await tab.close()


async def test_the_page_normalises_text_exactly_as_python_does(tab):
    function = (
        f"function (texts) {{ {NORMALISE_JS} return texts.map(t => [twCollapse(t), twFold(t)]); }}"
    )
    result = await tab.evaluate(function=function, args=[TRICKY])
    assert result.value == [[collapse(t), fold(t)] for t in TRICKY]


async def test_wait_finds_an_upper_cased_heading_as_the_snapshot_shows_it(tab):
    snapshot = await tab.snapshot()
    assert '- heading "Welcome aboard"' in snapshot.text  # innerText says WELCOME ABOARD
    assert "appeared" in await tab.wait(text="Welcome aboard", timeout_ms=5_000)
    assert "appeared" in await tab.wait(text="WELCOME ABOARD", timeout_ms=5_000)


async def test_wait_is_case_insensitive_and_collapses_spaces_by_default(tab):
    await tab.wait(text="welcome back", timeout_ms=5_000)
    # &nbsp;&nbsp; a line break, a tab and runs of spaces on the page
    await tab.wait(text="Total: 42 items in cart", timeout_ms=5_000)
    await tab.wait(text="total:\u00a042  ITEMS\nin cart", timeout_ms=5_000)
    await tab.wait(text="strasse", timeout_ms=5_000)  # CSS upper-cases ß to SS
    await tab.wait(text="Wel come back", timeout_ms=5_000)  # as the snapshot spaces it


async def test_exact_wants_all_of_an_element_text_with_its_case(tab):
    await tab.wait(text="Welcome aboard", exact=True, timeout_ms=5_000)  # as in the DOM
    await tab.wait(text="WELCOME ABOARD", exact=True, timeout_ms=5_000)  # as rendered
    await tab.wait(text="Total:  42 items in cart", exact=True, timeout_ms=5_000)
    await tab.wait(text="come", exact=True, timeout_ms=5_000)  # the <b> inside a line
    for wrong in ("Welcome", "welcome aboard", "Welcome aboard!"):
        with pytest.raises(DeadlineExceeded) as missed:
            await tab.wait(text=wrong, exact=True, timeout_ms=400)
        assert f"for text {wrong!r} (exact) to appear; it did not" in str(missed.value)


async def test_a_regex_is_searched_case_insensitively_unless_exact(tab):
    assert "appeared" in await tab.wait(text=r"/total:\s+\d+ items/", timeout_ms=5_000)
    await tab.wait(text="/welcome ABOARD/", timeout_ms=5_000)
    with pytest.raises(DeadlineExceeded):
        await tab.wait(text=r"/total:\s+\d+ items/", exact=True, timeout_ms=400)
    with pytest.raises(InvalidArgument) as bad:
        await tab.wait(text="/[unclosed/", timeout_ms=5_000)
    assert "text=/[unclosed/ is not a valid regular expression" in str(bad.value)


async def test_hidden_text_is_not_shown_and_is_gone(tab):
    with pytest.raises(DeadlineExceeded):
        await tab.wait(text="Secret note", timeout_ms=400)
    assert "disappeared" in await tab.wait(text_gone="secret note", timeout_ms=5_000)


async def test_text_gone_matches_like_text(tab):
    # The heading shows (as WELCOME ABOARD): it is not gone, in any case or spacing.
    with pytest.raises(DeadlineExceeded) as missed:
        await tab.wait(text_gone="welcome  aboard", timeout_ms=400)
    assert "for text 'welcome  aboard' to disappear; it is still there" in str(missed.value)
    await tab.evaluate("later(100, () => document.getElementById('welcome').remove())")
    said = await tab.wait(text_gone="Welcome aboard", exact=True, timeout_ms=5_000)
    assert said.startswith("text 'Welcome aboard' (exact) disappeared after ")


async def test_text_appearing_later_is_found(tab):
    await tab.evaluate("later(200, () => say('Saved at\\u00a0noon'))")
    said = await tab.wait(text="saved at noon", timeout_ms=5_000)
    assert said.startswith("text 'saved at noon' appeared after ")


async def test_wait_sees_text_in_frames_and_shadow_roots(tab):
    await tab.wait(text="said next door", timeout_ms=5_000)  # a same-origin iframe
    await tab.wait(text="Said far away", exact=True, timeout_ms=5_000)  # an OOPIF
    assert any(f.is_oopif for f in tab.frames.frames())
    await tab.wait(text="inside the shadow", timeout_ms=5_000)  # an open shadow root
    await tab.wait(text="Inside the shadow", exact=True, timeout_ms=5_000)
    await tab.wait(text="slotted words", timeout_ms=5_000)  # light content in a slot


async def test_timeouts_say_what_was_waited_for(tab, server):
    with pytest.raises(DeadlineExceeded) as missed:
        await tab.wait(text="Nowhere to be seen", timeout_ms=300)
    assert str(missed.value).startswith(
        "waited 300 ms for text 'Nowhere to be seen' to appear; it did not"
    )
    assert "snapshot" in missed.value.hint
    await tab.navigate(server.url("/never_loads.html"), wait_until="domcontentloaded")
    with pytest.raises(DeadlineExceeded) as missed:
        await tab.wait(load_state="load", timeout_ms=300)
    assert str(missed.value).startswith("waited 300 ms for the page to reach load; it did not")
    assert "load_state='domcontentloaded'" in missed.value.hint


async def test_wait_checks_its_arguments(tab):
    with pytest.raises(InvalidArgument, match="no text to match"):
        await tab.wait(text=" \u00a0 ")
    with pytest.raises(InvalidArgument, match="exact applies to text"):
        await tab.wait(load_state="load", exact=True)


async def test_find_in_a_snapshot_matches_like_wait(tab):
    snapshot = await tab.snapshot(find="WELCOME\u00a0 aboard")
    assert any('- heading "Welcome aboard"' in line for line in snapshot.text.splitlines())
    snapshot = await tab.snapshot(full=True, find="STRASSE")
    assert "# 1 line matches 'STRASSE'" in snapshot.text
    assert '- paragraph "Straße"' in snapshot.text
    snapshot = await tab.snapshot(full=True, find="/total: 42 items/")
    assert '"Total: 42 items in cart"' in snapshot.text
    with pytest.raises(InvalidArgument, match=r"find=/\(/ is not a valid regular expression"):
        await tab.snapshot(find="/(/")
