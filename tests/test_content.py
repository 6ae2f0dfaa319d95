"""Page content for agents (tabwarden.content) against a real Chromium and local pages."""

from __future__ import annotations

import json
import re

import pytest

from tabwarden.budget import Budget
from tabwarden.content import html_to_markdown, page_content, page_images
from tabwarden.errors import CDPError, InvalidArgument

_NOTE = re.compile(r"\n*\[… ([\d,]+) more characters: call again with cursor=(\d+)\]\Z")
_MARKERS = (
    "SCRIPT_MARKER",
    "STYLE_MARKER",
    "NOSCRIPT_MARKER",
    "TEMPLATE_MARKER",
    "SVG_MARKER",
    "must not appear",
)
_SECRETS = ("hunter2-ATTRIBUTE-SECRET", "TYPED-SECRET-VALUE")


@pytest.fixture
async def open_page(browser):
    """Opens a local page in a new tab; gives the tab's CDP session."""
    tabs = []

    async def _open(url):
        tab = await browser.new_tab(url)
        tabs.append(tab)
        return await tab.page.ready_session(Budget(5))

    yield _open
    for tab in tabs:
        if not tab.closed:
            await tab.close()


@pytest.fixture
async def article(open_page, server):
    return await open_page(server.url("/content_article.html"))


# ---- markdown --------------------------------------------------------------------------


async def test_markdown_keeps_structure_with_absolute_links(article, server):
    page = await page_content(article, Budget(10))
    md = page.text
    assert page.format == "markdown"
    assert page.url == server.url("/content_article.html")
    assert page.title == "Content article"
    assert md.startswith("# Article heading\n")
    assert "\n## Shopping list\n" in md and "\n### Prices table\n" in md
    assert f"[relative link]({server.url('/second.html')})" in md
    assert f"[root link]({server.url('/index.html#part')})" in md
    assert "[absolute link](https://example.com/away)" in md
    # A javascript: link is no place to go: its text stays, the URL does not.
    assert "script link" in md and "javascript:" not in md
    assert "- Apples\n- Bread" in md
    assert "1. First step\n2. Second step" in md
    assert "| Fruit | Price |" in md and "| Pear | 0.95 |" in md
    assert '```python\ndef greet(name):\n    return f"hello {name}"\n```' in md
    assert f"![Architecture diagram]({server.url('/images/diagram.png')})" in md
    assert md.rstrip().endswith("The end.")
    assert "\n\n\n" not in md
    assert page.untrusted is True


async def test_markdown_and_text_drop_scripts_styles_and_other_non_content(article):
    for fmt in ("markdown", "text"):
        text = (await page_content(article, Budget(10), format=fmt)).text
        for marker in (*_MARKERS, "Content article"):  # the <title> is a field, not text
            assert marker not in text, (fmt, marker)


async def test_password_values_never_appear(article):
    markdown = (await page_content(article, Budget(10))).text
    text = (await page_content(article, Budget(10), format="text")).text
    for secret in _SECRETS:
        assert secret not in markdown
        assert secret not in text
    # The form is still there: only the secrets are gone.
    assert "Password" in markdown and "Password" in text


def test_password_value_attributes_are_stripped_before_conversion():
    from tabwarden.content import _prepare_html

    html = (
        '<form><input type="PASSWORD" value="s3cret-one">'
        '<input type="text" autocomplete="current-password" value="s3cret-two">'
        '<input type="text" name="user" value="alice"></form>'
    )
    cleaned = str(_prepare_html(html, "http://example.test/"))
    assert "s3cret" not in cleaned
    assert 'value="alice"' in cleaned  # other inputs are left alone


async def test_links_resolve_against_the_base_element(open_page, server):
    session = await open_page(server.url("/content_base.html"))
    md = (await page_content(session, Budget(10))).text
    assert f"[Guide]({server.url('/docs/guide.html')})" in md
    assert f"![Pic]({server.url('/docs/pic.png')})" in md


async def test_a_page_with_a_strict_csp_can_still_be_read(open_page, server):
    session = await open_page(server.url("/content_csp.html"))
    page = await page_content(session, Budget(10))
    assert page.text == "# Locked down\n\nScripts are forbidden on this page."
    assert page.title == "CSP page"


def test_markdown_conversion_shortens_long_data_urls_and_collapses_blank_lines():
    data = "data:image/png;base64," + "A" * 5000
    md = html_to_markdown(
        "<p>one<br><br><br><br>two</p><div>three</div>\n\n<span> </span>\n\n<div>four</div>"
        f'<p><img src="{data}" alt="inline"></p><pre><code>a\n\n\n\nb</code></pre>',
        "http://example.test/",
    )
    assert "A" * 200 not in md
    assert "…[data: URL, 5,022 chars]" in md
    assert md.startswith("one\n\ntwo\n\nthree\n\nfour\n\n![inline](data:image/png;base64,AAA")
    assert "```\na\n\n\n\nb\n```" in md  # code blocks keep their blank lines


def test_markdown_of_a_very_deep_document_falls_back_to_text():
    depth = 3000
    html = "<div>" * depth + "<p>deep text</p>" + "</div>" * depth
    assert html_to_markdown(html, "") == "deep text"


# ---- text ------------------------------------------------------------------------------


async def test_text_format_is_the_rendered_text_without_markup(article, server):
    page = await page_content(article, Budget(10), format="text")
    assert page.format == "text"
    assert page.url == server.url("/content_article.html")
    assert page.text.startswith("Article heading\n")
    assert "relative link" in page.text
    assert "Apples\nBread" in page.text
    assert "Pear\t0.95" in page.text
    assert "#" not in page.text and "](" not in page.text and "```" not in page.text
    assert page.total_chars == len(page.text) and not page.truncated


# ---- paging ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["markdown", "text"])
async def test_paging_reassembles_the_whole_content(open_page, server, fmt):
    session = await open_page(server.url("/content_long.html"))
    whole = await page_content(session, Budget(10), format=fmt, max_chars=1_000_000)
    assert not whole.truncated and whole.next_cursor is None
    assert whole.total_chars == len(whole.text) > 20_000
    assert "Last paragraph." in whole.text and "TOKEN" in whole.text

    max_chars = 1000
    parts, cursor, pages, hard_cuts = [], 0, 0, 0
    while True:
        page = await page_content(
            session, Budget(10), format=fmt, max_chars=max_chars, cursor=cursor
        )
        pages += 1
        assert page.cursor == cursor and page.total_chars == whole.total_chars
        if page.next_cursor is None:
            assert not page.truncated
            chunk = page.text
            assert not _NOTE.search(chunk)
        else:
            assert page.truncated
            chunk = page.text[: page.next_cursor - cursor]
            note = _NOTE.fullmatch(page.text[len(chunk) :])
            assert note, page.text[-120:]
            assert int(note.group(2)) == page.next_cursor
            assert int(note.group(1).replace(",", "")) == whole.total_chars - page.next_cursor
            assert len(page.text) <= max_chars + len(note.group(0))
            if not chunk.endswith("\n"):
                # Not at a line break: only when the window's second half has none.
                window = whole.text[cursor : cursor + max_chars]
                assert "\n" not in window[max_chars // 2 :]
                hard_cuts += not chunk.endswith(" ")
        assert len(chunk) <= max_chars
        parts.append(chunk)
        if page.next_cursor is None:
            break
        assert page.next_cursor > cursor
        cursor = page.next_cursor
    assert "".join(parts) == whole.text
    assert pages >= whole.total_chars // max_chars
    assert hard_cuts >= 1  # the 2,600-character token cannot break anywhere else


async def test_cursor_at_the_end_gives_an_empty_last_page(open_page, server):
    session = await open_page(server.url("/content_long.html"))
    total = (await page_content(session, Budget(10), max_chars=200)).total_chars
    page = await page_content(session, Budget(10), cursor=total)
    assert page.text == "" and page.next_cursor is None and not page.truncated
    with pytest.raises(InvalidArgument) as info:
        await page_content(session, Budget(10), cursor=total + 1)
    assert "cursor=0" in info.value.hint


async def test_to_dict_is_json_and_says_untrusted(article):
    page = await page_content(article, Budget(10), max_chars=200)
    data = json.loads(json.dumps(page.to_dict()))
    assert data["untrusted"] is True
    assert data["truncated"] is True and data["next_cursor"] == page.next_cursor
    assert set(data) == {
        "url",
        "title",
        "format",
        "text",
        "total_chars",
        "cursor",
        "next_cursor",
        "truncated",
        "untrusted",
    }


@pytest.mark.parametrize(
    "kwargs",
    [
        {"format": "html"},
        {"format": "MARKDOWN"},
        {"max_chars": 199},
        {"max_chars": 1_000_001},
        {"max_chars": True},
        {"max_chars": 500.0},
        {"cursor": -1},
        {"cursor": "10"},
    ],
)
async def test_bad_arguments_raise_invalid_argument_with_a_hint(article, kwargs):
    with pytest.raises(InvalidArgument) as info:
        await page_content(article, Budget(10), **kwargs)
    assert info.value.hint


async def test_the_limits_themselves_are_accepted(article):
    small = await page_content(article, Budget(10), max_chars=200)
    assert small.truncated and len(small.text) > 0
    large = await page_content(article, Budget(10), max_chars=1_000_000)
    assert not large.truncated


# ---- errors ----------------------------------------------------------------------------


async def test_a_page_that_breaks_the_dom_raises_a_clear_cdp_error(open_page, server):
    session = await open_page(server.url("/content_hostile.html"))
    with pytest.raises(CDPError) as info:
        await page_content(session, Budget(10))
    assert "outerHTML is off-limits" in str(info.value)
    assert info.value.method == "Runtime.evaluate" and info.value.hint
    with pytest.raises(CDPError, match="no listing here"):
        await page_images(session, Budget(10))
    # innerText is untouched there: the text format still reads the page.
    text = await page_content(session, Budget(10), format="text")
    assert text.text == "This page breaks the DOM for readers."


class _FakeSession:
    """Answers Runtime.evaluate with a fixed reply or error (no browser needed)."""

    session_id = "fake"

    def __init__(self, reply=None, error=None):
        self.reply, self.error, self.sent = reply, error, []

    async def send(self, method, params=None, *, budget):
        self.sent.append((method, params))
        if self.error is not None:
            raise self.error
        return self.reply


async def test_a_navigation_during_the_read_keeps_the_cdp_error_and_adds_a_hint():
    error = CDPError("Runtime.evaluate", -32000, "Execution context was destroyed.", "fake")
    session = _FakeSession(error=error)
    with pytest.raises(CDPError) as info:
        await page_content(session, Budget(5))
    assert info.value is error and "call again" in info.value.hint
    assert session.sent[0][0] == "Runtime.evaluate" and session.sent[0][1]["returnByValue"]


async def test_a_non_object_script_result_is_a_cdp_error():
    session = _FakeSession(reply={"result": {"type": "undefined"}})
    with pytest.raises(CDPError, match="'undefined', not an object"):
        await page_images(session, Budget(5))


# ---- images ----------------------------------------------------------------------------


@pytest.fixture
async def images_page(open_page, server):
    return await open_page(server.url("/content_images.html"))


async def test_images_report_alt_sizes_and_load_state(images_page, server):
    result = await page_images(images_page, Budget(10))
    by_alt = {image.alt: image for image in result.images}
    assert result.total == len(result.images) == 8 and not result.truncated
    assert result.url == server.url("/content_images.html") and result.untrusted

    ok = by_alt["Red box"]
    assert ok.kind == "img" and ok.src.startswith("data:image/svg+xml,")
    assert (ok.width, ok.height) == (80, 60)  # rendered at width=80, aspect kept
    assert (ok.natural_width, ok.natural_height) == (40, 30)
    assert ok.loaded is True and ok.visible is True

    broken = by_alt["Missing picture"]
    assert broken.src == server.url("/missing.png")
    assert broken.loaded is False and broken.natural_width == 0


async def test_hidden_images_are_not_visible(images_page):
    by_alt = {image.alt: image for image in (await page_images(images_page, Budget(10))).images}
    for alt in ("Display none", "Visibility hidden", "Inside hidden div"):
        assert by_alt[alt].visible is False, alt
        assert by_alt[alt].loaded is True, alt  # hidden, not broken
    assert (by_alt["Display none"].width, by_alt["Display none"].height) == (0, 0)
    assert by_alt["Red box"].visible is True


async def test_srcset_long_data_urls_and_image_inputs(images_page, server):
    by_alt = {image.alt: image for image in (await page_images(images_page, Budget(10))).images}
    srcset = by_alt["From srcset"]
    assert srcset.src.startswith("data:image/svg+xml,")  # the chosen source, not the src
    assert srcset.loaded is True and srcset.natural_width == 40

    big = by_alt["Big data URL"]
    assert big.src.endswith("…[data: URL, 526 chars]") and len(big.src) < 200
    assert big.loaded is True and (big.natural_width, big.natural_height) == (12, 8)

    button = by_alt["Go button"]
    assert button.kind == "input" and button.src == server.url("/missing-button.png")
    assert button.loaded is None and button.natural_width is None


async def test_max_images_bounds_the_list_and_flags_the_rest(images_page):
    result = await page_images(images_page, Budget(10), max_images=3)
    assert [image.alt for image in result.images] == [
        "Red box",
        "Missing picture",
        "Display none",
    ]
    assert result.total == 8 and result.truncated
    data = json.loads(json.dumps(result.to_dict()))
    assert len(data["images"]) == 3 and data["truncated"] is True


@pytest.mark.parametrize("max_images", [0, -1, 10_001, True, 2.5])
async def test_bad_max_images_raises_invalid_argument(images_page, max_images):
    with pytest.raises(InvalidArgument) as info:
        await page_images(images_page, Budget(10), max_images=max_images)
    assert info.value.hint
