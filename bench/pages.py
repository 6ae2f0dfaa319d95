"""Deterministic test pages of a given size for the snapshot benchmark.

``generate_page(n)`` makes an HTML page whose <body> holds exactly ``n`` elements:
a header with a nav of links, cards (heading, paragraph with an inline link,
nested divs, a form with a labelled text input, a checkbox, a labelled select and
a button, a list with a link), section headings, a table of rows with a link
each, plain paragraphs to fill up, and a footer. The same ``n`` always gives the
same page. Every button counts its clicks in ``window.__hits[id]``; the button of
the middle card has ``id="target"``.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass, field

__all__ = ["INTERACTIVE_KINDS", "GeneratedPage", "generate_page", "generate_table_page"]

INTERACTIVE_KINDS = ("button", "link", "textbox", "checkbox", "combobox")
"""What the page counts as interactive, by the ARIA role each kind of element has."""

TARGET_ID = "target"

_WORD_TEXT = """
account alpha amber anchor april atlas basket beacon border bright budget cabin
canvas carbon cedar chapter circle cobalt column copper corner cotton crystal delta
desert detail dinner engine estate fabric falcon fiber forest frame garden glacier
harbor helium island ivory jacket jungle kernel ladder lantern ledger lemon marble
meadow metal mirror motion native needle oasis orbit paper pepper pillar planet
pocket quartz radius random ribbon river saddle salmon signal silver socket spiral
summit syntax tablet temple thunder timber token tunnel velvet vessel violet window
winter yellow zenith
"""
_WORDS = _WORD_TEXT.split()
_VERBS = ("Save", "Apply", "Open", "Send", "Add", "Remove", "Share", "Compare", "Book", "Edit")
_CARD_ELEMENTS = 24
_SECTION_ELEMENTS = 2
_ROW_ELEMENTS = 5
_SECTION_EVERY = 8
_TABLE_SHARE = 0.15

_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font: 14px/1.4 sans-serif; margin: 0 16px; }}
.card {{ border: 1px solid #ccc; border-radius: 4px; margin: 8px 0; padding: 8px; }}
.meta .row {{ display: flex; gap: 8px; color: #555; }}
form {{ display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ddd; padding: 2px 6px; }}
</style>
<script>
window.__hits = {{}};
function hit(button) {{ window.__hits[button.id] = (window.__hits[button.id] || 0) + 1; }}
</script>
</head>
<body>
"""


@dataclass
class GeneratedPage:
    size: int
    html: str
    elements: int = 0
    """Elements inside <body> (equals ``size``)."""
    interactive: dict[str, int] = field(default_factory=dict)
    """Interactive elements by role: button, link, textbox, checkbox, combobox."""
    target_id: str = TARGET_ID

    @property
    def interactive_total(self) -> int:
        return sum(self.interactive.values())


class _Writer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.parts: list[str] = []
        self.elements = 0
        self.counts = dict.fromkeys(INTERACTIVE_KINDS, 0)

    def words(self, low: int, high: int) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(self.rng.randint(low, high)))

    def title(self, low: int = 2, high: int = 4) -> str:
        return self.words(low, high).capitalize()

    def add(self, markup: str, elements: int, **interactive: int) -> None:
        self.parts.append(markup)
        self.elements += elements
        for kind, count in interactive.items():
            self.counts[kind] += count

    def paragraph(self) -> None:
        self.add(f"<p>{html.escape(self.words(12, 30).capitalize())}.</p>\n", 1)

    def card(self, index: int, button_id: str) -> None:
        w = self.words
        options = "".join(f"<option>{html.escape(self.title(1, 2))}</option>" for _ in range(3))
        verb = self.rng.choice(_VERBS)
        markup = (
            f'<div class="card" id="c{index}">\n'
            f"  <h3>{html.escape(self.title())}</h3>\n"
            f"  <p>{html.escape(w(10, 25).capitalize())} "
            f'<a href="/doc/{index}">{html.escape(w(1, 3))}</a> {html.escape(w(5, 15))}.</p>\n'
            f'  <div class="meta"><div class="row"><span>{html.escape(self.title(1, 1))}</span>'
            f"<span>{self.rng.randint(1, 999)}</span></div></div>\n"
            f'  <form onsubmit="return false">\n'
            f'    <label for="name{index}">{html.escape(self.title(1, 2))}</label>'
            f'<input id="name{index}" type="text" placeholder="{html.escape(w(1, 2))}">\n'
            f'    <label><input type="checkbox" name="opt{index}"> {html.escape(w(2, 4))}</label>\n'
            f'    <label for="sel{index}">{html.escape(self.title(1, 2))}</label>'
            f'<select id="sel{index}">{options}</select>\n'
            f'    <button type="button" id="{button_id}" onclick="hit(this)">'
            f"{verb} {html.escape(w(1, 2))}</button>\n"
            f"  </form>\n"
            f"  <ul><li>{html.escape(w(3, 8))}</li>"
            f'<li><a href="/item/{index}">{html.escape(self.title(1, 3))}</a></li>'
            f"<li>{html.escape(w(3, 8))}</li></ul>\n"
            f"</div>\n"
        )
        self.add(markup, _CARD_ELEMENTS, button=1, link=2, textbox=1, checkbox=1, combobox=1)

    def section(self) -> None:
        self.add(f"<section><h2>{html.escape(self.title())}</h2></section>\n", _SECTION_ELEMENTS)

    def table(self, rows: int) -> None:
        self.add(
            "<table><thead><tr><th>Name</th><th>Amount</th><th>Action</th></tr></thead><tbody>\n",
            7,
        )
        for row in range(rows):
            self.add(
                f"<tr><td>{html.escape(self.title(1, 3))}</td>"
                f"<td>{self.rng.randint(1, 99_999) / 100:.2f}</td>"
                f'<td><a href="/row/{row}">view</a></td></tr>\n',
                _ROW_ELEMENTS,
                link=1,
            )
        self.add("</tbody></table>\n", 0)


def generate_page(size: int) -> GeneratedPage:
    """A page with exactly ``size`` elements in its <body> (``size`` >= 60)."""
    if size < 60:
        raise ValueError("size must be at least 60")
    out = _Writer(seed=size)
    out.add(f"<h1>{html.escape(out.title())} — {size:,} elements</h1>\n", 1)
    nav = "".join(f'<a href="/nav/{i}">{html.escape(out.title(1, 2))}</a> ' for i in range(5))
    out.add(f"<header><nav>{nav}</nav></header>\n<main>\n", 8, link=5)
    footer_elements = 2
    rows = max(2, int(size * _TABLE_SHARE) // _ROW_ELEMENTS)
    table_elements = 7 + rows * _ROW_ELEMENTS
    room = size - out.elements - footer_elements - table_elements
    # Cards (with a section heading every few) fill the room; paragraphs top up.
    cards = 0
    used = 0
    while True:
        extra = _CARD_ELEMENTS + (_SECTION_ELEMENTS if cards % _SECTION_EVERY == 0 else 0)
        if used + extra > room:
            break
        used += extra
        cards += 1
    middle = cards // 2
    for index in range(cards):
        if index % _SECTION_EVERY == 0:
            out.section()
        if index == middle:
            out.table(rows)
        out.card(index, TARGET_ID if index == middle else f"b{index}")
    if cards == 0:
        out.table(rows)
    while out.elements < size - footer_elements:
        out.paragraph()
    out.add(f"</main>\n<footer><p>{html.escape(out.words(6, 12))}</p></footer>\n", 2)
    assert out.elements == size, (out.elements, size)
    page = _HEAD.format(title=f"Bench page {size}") + "".join(out.parts) + "</body></html>\n"
    return GeneratedPage(size=size, html=page, elements=out.elements, interactive=out.counts)


def generate_table_page(rows: int) -> GeneratedPage:
    """A page that is one long table of orders: a heading, then ``rows`` rows of a
    checkbox to select the row, a name, an amount, a status and a link — two controls
    a row, as in the listings agents page through."""
    out = _Writer(seed=rows)
    out.add(f"<h1>Orders — {rows:,} rows</h1>\n", 1)
    out.add(
        "<table><thead><tr><th>Select</th><th>Name</th><th>Amount</th><th>Status</th>"
        "<th>Action</th></tr></thead><tbody>\n",
        9,
    )
    for row in range(rows):
        status = out.rng.choice(("paid", "open", "shipped", "returned"))
        out.add(
            f'<tr><td><input type="checkbox" aria-label="Select order {row}"></td>'
            f"<td>{html.escape(out.title(1, 3))}</td>"
            f"<td>{out.rng.randint(1, 99_999) / 100:.2f}</td><td>{status}</td>"
            f'<td><a href="/order/{row}">view</a></td></tr>\n',
            8,
            checkbox=1,
            link=1,
        )
    out.add("</tbody></table>\n", 0)
    page = _HEAD.format(title=f"Orders {rows}") + "".join(out.parts) + "</body></html>\n"
    return GeneratedPage(
        size=out.elements, html=page, elements=out.elements, interactive=out.counts
    )
