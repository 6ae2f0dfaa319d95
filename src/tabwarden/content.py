"""Page output for agents: the page as Markdown or text (paged), and its images.

Plain async functions over a tab's :class:`CDPSession` and a :class:`Budget`; each
reads the page with one ``Runtime.evaluate``. What they return is *page content*:
data written by whoever made the page, never instructions (``untrusted=True``).

Markdown comes from the main document's serialized DOM (``outerHTML``), cleaned in
Python (scripts, styles, templates, SVG and ``<head>`` dropped; links and images
made absolute against ``document.baseURI``; password values stripped) and
converted with ``markdownify``. Text is ``document.body.innerText``. Both are
stateless: each call reads the page again, so ``cursor`` offsets hold only while
the page does not change between calls.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal
from urllib.parse import urljoin

from bs4 import BeautifulSoup, Tag
from markdownify import ATX, MarkdownConverter

from .budget import Budget
from .cdp.session import CDPSession
from .counting import counted
from .errors import CDPError, InvalidArgument

__all__ = [
    "MAX_CHARS_LIMITS",
    "ContentFormat",
    "ImageInfo",
    "ImageList",
    "PageContent",
    "PageRead",
    "cdp_read",
    "html_to_markdown",
    "page_content",
    "page_images",
]

ContentFormat = Literal["markdown", "text"]
_FORMATS: tuple[str, ...] = ("markdown", "text")
MAX_CHARS_LIMITS = (200, 1_000_000)
"""Smallest and largest ``max_chars`` of :func:`page_content`."""
_MAX_IMAGES_LIMIT = 10_000
_DATA_URL_KEEP = 200
"""A ``data:`` URL longer than this is cut to a prefix plus a marker."""
_DATA_URL_PREFIX = 100

# Not content: dropped with everything inside. <head> holds the title, which is
# reported on its own; the rest (meta, link, base, script, style) is not text.
_DROP_TAGS = (
    "head",
    "script",
    "style",
    "noscript",
    "svg",
    "template",
    "iframe",
    "frame",
    "object",
    "embed",
    "canvas",
)
# Tags whose URL attributes are made absolute.
_URL_ATTRIBUTES = {
    "a": ("href",),
    "area": ("href",),
    "img": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "source": ("src",),
}
# Markdownify turns an image inside a heading or table cell into its alt text
# unless the image's parent is listed here; an agent wants the image either way.
_KEEP_INLINE_IMAGES_IN = [
    "td",
    "th",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "a",
    "span",
    "div",
    "p",
    "picture",
    "figure",
    "strong",
    "b",
    "em",
    "i",
]
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang)-([\w+#.-]+)$")

_CONTENT_SCRIPT = """(() => {
  const d = document;
  const out = {
    url: String(location.href),
    title: String(d.title || ''),
    baseURI: String(d.baseURI || location.href),
  };
  if (%(text)s) {
    const root = d.body || d.documentElement;
    out.text = root ? String(root.innerText ?? root.textContent ?? '') : '';
  } else {
    out.html = d.documentElement ? String(d.documentElement.outerHTML) : '';
  }
  return out;
})()"""

_IMAGES_SCRIPT = """(() => {
  const max = %(max)d, keep = %(keep)d, prefix = %(prefix)d;
  const els = document.querySelectorAll('img, input[type="image" i]');
  const images = [];
  for (const el of els) {
    if (images.length >= max) break;
    const isImg = el.localName === 'img';
    let src = String((isImg ? (el.currentSrc || el.src) : el.src) || '');
    const srcLength = src.length;
    if (srcLength > keep && src.slice(0, 5).toLowerCase() === 'data:') src = src.slice(0, prefix);
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    let visible = box.width > 0 && box.height > 0 && style.display !== 'none'
      && style.visibility !== 'hidden' && style.visibility !== 'collapse';
    if (visible && typeof el.checkVisibility === 'function') {
      visible = el.checkVisibility({visibilityProperty: true});
    }
    images.push({
      kind: isImg ? 'img' : 'input',
      src, srcLength,
      alt: String(el.getAttribute('alt') || ''),
      width: Math.round(box.width),
      height: Math.round(box.height),
      naturalWidth: isImg ? el.naturalWidth : null,
      naturalHeight: isImg ? el.naturalHeight : null,
      loaded: isImg ? Boolean(el.complete && el.naturalWidth > 0) : null,
      visible,
    });
  }
  return {url: String(location.href), total: els.length, images};
})()"""


# ---- results ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PageContent:
    """One page (slice) of a tab's content.

    ``text`` is the slice from ``cursor``; when ``truncated`` it ends with a note
    saying how much is left and that ``next_cursor`` resumes. ``total_chars`` is
    the length of the whole content (without notes).
    """

    url: str
    title: str
    format: ContentFormat
    text: str
    total_chars: int
    cursor: int
    next_cursor: int | None
    """Where the next page starts; None when this page reaches the end."""
    truncated: bool
    untrusted: bool = True
    """Always True: this is data from the page, not instructions to follow."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """An ``<img>`` (at its current source, so ``srcset`` counts) or ``<input type=image>``."""

    kind: Literal["img", "input"]
    src: str
    """Absolute URL; a long ``data:`` URL is cut to a prefix plus ``…[data: URL, N chars]``."""
    alt: str
    width: int
    """Rendered width in CSS px (0 when not rendered)."""
    height: int
    natural_width: int | None
    """Intrinsic size of the loaded image; None for ``<input type=image>``."""
    natural_height: int | None
    visible: bool
    """Has a non-empty box and is not hidden by display/visibility (it may be off-screen)."""
    loaded: bool | None
    """Completely loaded and decodable; None when unknown (``<input type=image>``)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ImageList:
    """The images of a page, in document order, at most ``max_images`` of them."""

    url: str
    images: tuple[ImageInfo, ...]
    total: int
    """How many images the page has (may exceed ``len(images)``)."""
    truncated: bool
    untrusted: bool = True
    """Always True: alt texts and URLs come from the page."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "images": [image.to_dict() for image in self.images],
            "total": self.total,
            "truncated": self.truncated,
            "untrusted": self.untrusted,
        }


# ---- the calls -------------------------------------------------------------------------


PageRead = Callable[[str, Budget, str], Awaitable[dict[str, Any]]]
"""Runs a page script (an expression) and returns the object it gives: ``read(script,
budget, what)``, ``what`` saying what is being read in an error. Chromium's is a
``Runtime.evaluate`` on the page's session (``cdp_read``); Firefox's runs the script
in tabwarden's sandbox realm of the tab."""


def cdp_read(session: CDPSession) -> PageRead:
    """The page reader of a CDP session (``Runtime.evaluate`` by value)."""

    async def read(script: str, budget: Budget, what: str) -> dict[str, Any]:
        return await _evaluate(session, script, budget, what=what)

    return read


def _reader(source: CDPSession | PageRead) -> PageRead:
    return source if callable(source) else cdp_read(source)


async def page_content(
    source: CDPSession | PageRead,
    budget: Budget,
    *,
    format: ContentFormat = "markdown",
    max_chars: int = 20_000,
    cursor: int = 0,
) -> PageContent:
    """The page as Markdown (default) or plain text, ``max_chars`` at a time.

    Start with ``cursor=0``; while ``next_cursor`` is not None, call again with
    ``cursor=next_cursor``. Slices end at a line break when one is in the second
    half of the window, else at a space, else exactly at ``max_chars``.
    """
    _check_format(format)
    _check_int("max_chars", max_chars, *MAX_CHARS_LIMITS)
    _check_int("cursor", cursor, 0, None)
    script = _CONTENT_SCRIPT % {"text": "true" if format == "text" else "false"}
    value = await _reader(source)(script, budget, f"reading the page as {format}")
    url = _as_str(value.get("url"))
    title = _as_str(value.get("title"))
    if format == "text":
        full = _normalize_text(_as_str(value.get("text")))
    else:
        base = _as_str(value.get("baseURI")) or url
        full = await budget.run(
            asyncio.to_thread(html_to_markdown, _as_str(value.get("html")), base),
            what="converting the page to Markdown",
        )
    total = len(full)
    if cursor > total:
        raise InvalidArgument(
            f"cursor={cursor} is past the end of the page content ({total:,} characters)",
            hint="the page may have changed since the last call: start again with cursor=0",
        )
    end = _cut(full, cursor, max_chars)
    text = full[cursor:end]
    next_cursor = end if end < total else None
    if next_cursor is not None:
        text += _more_note(text, total - end, end)
    return PageContent(
        url=url,
        title=title,
        format=format,
        text=text,
        total_chars=total,
        cursor=cursor,
        next_cursor=next_cursor,
        truncated=next_cursor is not None,
    )


async def page_images(
    source: CDPSession | PageRead, budget: Budget, *, max_images: int = 200
) -> ImageList:
    """The page's ``<img>`` and ``<input type=image>`` elements, in document order.

    Images inside shadow roots and iframes are not listed.
    """
    _check_int("max_images", max_images, 1, _MAX_IMAGES_LIMIT)
    script = _IMAGES_SCRIPT % {
        "max": max_images,
        "keep": _DATA_URL_KEEP,
        "prefix": _DATA_URL_PREFIX,
    }
    value = await _reader(source)(script, budget, "listing the page's images")
    raw_images = value.get("images")
    images = tuple(
        _image_info(item) for item in (raw_images if isinstance(raw_images, list) else [])
    )
    total = _as_int(value.get("total")) or len(images)
    return ImageList(
        url=_as_str(value.get("url")),
        images=images,
        total=total,
        truncated=total > len(images),
    )


# ---- HTML to Markdown ------------------------------------------------------------------


def html_to_markdown(html: str, base_url: str = "") -> str:
    """Markdown of a serialized HTML document, URLs resolved against ``base_url``.

    Scripts, styles and other non-content are dropped and password values
    stripped before conversion. A document nested too deeply for the converter
    falls back to its plain text.
    """
    soup = _prepare_html(html, base_url)
    converter = MarkdownConverter(
        heading_style=ATX,
        bullets="-",
        escape_asterisks=False,
        escape_underscores=False,
        keep_inline_images_in=_KEEP_INLINE_IMAGES_IN,
        code_language_callback=_code_language,
        table_infer_header=True,
    )
    try:
        markdown = converter.convert_soup(soup)
    except RecursionError:
        return _normalize_text(soup.get_text("\n"))
    return _normalize_markdown(markdown)


def _prepare_html(html: str, base_url: str) -> BeautifulSoup:
    """Parse and clean: drop non-content, strip secrets, make URLs absolute."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(_DROP_TAGS):
        if isinstance(tag, Tag) and not tag.decomposed:
            tag.decompose()
    for tag in soup.find_all("input"):
        if isinstance(tag, Tag) and _is_password_input(tag) and "value" in tag.attrs:
            del tag["value"]
    for tag in soup.find_all(list(_URL_ATTRIBUTES)):
        if not isinstance(tag, Tag):
            continue
        for name in _URL_ATTRIBUTES[tag.name]:
            if name not in tag.attrs:
                continue
            raw = _attr(tag, name).strip()
            if tag.name in ("a", "area") and raw.lower().startswith(("javascript:", "vbscript:")):
                del tag[name]  # not a place to go: the link becomes plain text
                continue
            tag[name] = _short_url(urljoin(base_url, raw) if base_url else raw)
        if tag.name == "img" and not _attr(tag, "src").strip():
            fallback = _first_srcset_url(_attr(tag, "srcset"))
            if fallback:
                tag["src"] = _short_url(urljoin(base_url, fallback) if base_url else fallback)
            else:
                alt = _attr(tag, "alt")
                if alt:
                    tag.replace_with(alt)
                else:
                    tag.decompose()
    return soup


def _is_password_input(tag: Tag) -> bool:
    kind = _attr(tag, "type").strip().lower()
    autocomplete = _attr(tag, "autocomplete").lower()
    return kind == "password" or "password" in autocomplete


def _attr(tag: Tag, name: str) -> str:
    value = tag.get(name)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return " ".join(value)


def _first_srcset_url(srcset: str) -> str:
    first = srcset.strip().split(",", 1)[0].strip()
    return first.split()[0] if first else ""


def _code_language(el: Any) -> str | None:
    """The language of a ``<pre>`` from a ``language-*``/``lang-*`` class on it or its code."""
    candidates = [el]
    if isinstance(el, Tag):
        code = el.find("code")
        if isinstance(code, Tag):
            candidates.append(code)
    for tag in candidates:
        if not isinstance(tag, Tag):
            continue
        for cls in _attr(tag, "class").split():
            match = _LANGUAGE_CLASS.match(cls)
            if match:
                return match.group(1)
    return None


def _short_url(url: str, length: int | None = None) -> str:
    """Cut a long ``data:`` URL to a prefix plus a marker with its full length."""
    full = len(url) if length is None else length
    if full > _DATA_URL_KEEP and url[:5].lower() == "data:":
        return f"{url[:_DATA_URL_PREFIX]}…[data: URL, {full:,} chars]"
    return url


# ---- text shaping ----------------------------------------------------------------------

_TRAILING_SPACE = re.compile(r"[ \t]+$")


def _normalize_text(text: str) -> str:
    """Trailing spaces off, runs of blank lines to one, no blank lines at the ends."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [_TRAILING_SPACE.sub("", line) for line in text.split("\n")]
    return _join_collapsed(lines, keep=lambda _index: False)


def _normalize_markdown(markdown: str) -> str:
    """Collapse runs of blank lines outside code fences; keep code blocks as they are."""
    lines = markdown.replace("\r\n", "\n").split("\n")
    in_fence = [False] * len(lines)
    fenced = False
    for index, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        in_fence[index] = fenced
    # Trailing spaces stay on text lines: two of them are a Markdown line break.
    return _join_collapsed(lines, keep=lambda index: in_fence[index])


def _join_collapsed(lines: list[str], *, keep: Callable[[int], bool]) -> str:
    """Join lines with each run of blank lines (outside ``keep``) made one, none at the ends.

    A line before a blank line or at the end loses its trailing spaces (a Markdown
    line break there means nothing).
    """
    out: list[str] = []
    blank = False
    last_free = False
    for index, line in enumerate(lines):
        kept = keep(index)
        if not line.strip() and not kept:
            blank = bool(out)
            continue
        if blank:
            if last_free:
                out[-1] = out[-1].rstrip(" \t")
            out.append("")
            blank = False
        out.append(line)
        last_free = not kept
    if out and last_free:
        out[-1] = out[-1].rstrip(" \t")
    return "\n".join(out)


def _cut(full: str, start: int, max_chars: int) -> int:
    """End of the slice from ``start``: a line break, else a space, in the window's second half."""
    end = start + max_chars
    if end >= len(full):
        return len(full)
    half = start + max_chars // 2
    newline = full.rfind("\n", start, end)
    if newline >= half:
        return newline + 1
    space = full.rfind(" ", start, end)
    if space >= half:
        return space + 1
    return end


def _more_note(chunk: str, remaining: int, next_cursor: int) -> str:
    """The note ending a truncated page, after one blank line."""
    sep = "" if chunk.endswith("\n\n") else "\n" if chunk.endswith("\n") else "\n\n"
    return f"{sep}[… {counted(remaining, 'more character')}: call again with cursor={next_cursor}]"


# ---- CDP -------------------------------------------------------------------------------


async def _evaluate(
    session: CDPSession, expression: str, budget: Budget, *, what: str
) -> dict[str, Any]:
    """Run a page script (returnByValue) and return its object, or raise with a clear message."""
    params = {
        "expression": expression,
        "returnByValue": True,
        "awaitPromise": False,
        "silent": True,
        "userGesture": False,
    }
    try:
        reply = await session.send("Runtime.evaluate", params, budget=budget)
    except CDPError as exc:
        if not exc.hint and "context" in exc.cdp_message.lower():
            exc.hint = "the page navigated while it was being read: call again"
        raise
    details = reply.get("exceptionDetails")
    if details:
        raise _page_script_error(details, what, session)
    result = reply.get("result") or {}
    value = result.get("value")
    if not isinstance(value, dict):
        raise CDPError(
            "Runtime.evaluate",
            -32000,
            f"{what}: the page script returned {result.get('type', 'nothing')!r}, not an object",
            session.session_id,
        )
    return value


def _page_script_error(details: dict[str, Any], what: str, session: CDPSession) -> CDPError:
    exception = details.get("exception") or {}
    reason = (
        exception.get("description")
        or _as_str(exception.get("value"))
        or details.get("text")
        or "unknown exception"
    )
    reason = str(reason).split("\n", 1)[0][:300]
    error = CDPError(
        "Runtime.evaluate",
        -32000,
        f"{what}: the page threw {reason}",
        session.session_id,
    )
    error.hint = (
        "the page interferes with reading it (it may have replaced built-in DOM methods); "
        "try a screenshot, or reload the page"
    )
    return error


# ---- argument checks and coercion ------------------------------------------------------


def _check_format(format: object) -> None:
    if format not in _FORMATS:
        raise InvalidArgument(
            f"format={format!r} is not a content format",
            hint=f"use one of {', '.join(_FORMATS)}",
        )


def _check_int(name: str, value: object, low: int, high: int | None) -> None:
    bounds = f"from {low:,} to {high:,}" if high is not None else f"{low:,} or more"
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name} must be an integer, got {value!r}", hint=f"use {bounds}")
    if value < low or (high is not None and value > high):
        raise InvalidArgument(f"{name}={value:,} is out of range", hint=f"use {bounds}")


def _as_str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _as_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return round(value)


def _as_opt_int(value: object) -> int | None:
    return None if value is None else _as_int(value)


def _image_info(item: object) -> ImageInfo:
    data: dict[str, Any] = item if isinstance(item, dict) else {}
    loaded = data.get("loaded")
    src = _as_str(data.get("src"))
    return ImageInfo(
        kind="input" if data.get("kind") == "input" else "img",
        src=_short_url(src, _as_int(data.get("srcLength")) or len(src)),
        alt=_as_str(data.get("alt")),
        width=_as_int(data.get("width")),
        height=_as_int(data.get("height")),
        natural_width=_as_opt_int(data.get("naturalWidth")),
        natural_height=_as_opt_int(data.get("naturalHeight")),
        visible=bool(data.get("visible")),
        loaded=None if loaded is None else bool(loaded),
    )
