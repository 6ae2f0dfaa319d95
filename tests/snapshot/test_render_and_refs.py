"""Pure parts of snapshots: refs, line rendering, paging and diffs."""

from __future__ import annotations

import pytest

from tabwarden.errors import InvalidArgument
from tabwarden.snapshot import RefTable, SnapshotNode, diff_lines, page_lines, parse_ref
from tabwarden.snapshot.captures import Cursor
from tabwarden.snapshot.model import Bounds
from tabwarden.snapshot.render import render_lines, select_lines


@pytest.mark.parametrize("text", ["e7", "@e7", "ref=e7", "  e7 "])
def test_ref_forms_are_accepted(text):
    assert parse_ref(text) == "e7"


@pytest.mark.parametrize("text", ["#submit", "button.primary", "e7x", "E7"])
def test_anything_else_is_a_selector(text):
    assert parse_ref(text) is None


def test_empty_ref_is_refused_with_a_hint():
    with pytest.raises(InvalidArgument) as caught:
        parse_ref(" ")
    assert "e7" in caught.value.hint


def test_same_element_keeps_its_ref_and_a_new_document_gets_new_ones():
    table = RefTable()
    first = table.assign("F", 10, "L1", "button", "Go", 0)
    assert table.assign("F", 10, "L1", "button", "Go (renamed)", 0) == first
    assert table.get(first).name == "Go (renamed)"
    other = table.assign("F", 11, "L1", "button", "Go", 1)
    assert other != first
    after_navigation = table.assign("F", 10, "L2", "button", "Go", 0)
    assert after_navigation not in (first, other)
    assert table.known(first) and not table.known("e999")
    assert table.get(first).describe() == 'e1 (button "Go (renamed)")'


def _tree() -> SnapshotNode:
    box = Bounds(0, 0, 10, 10)
    return SnapshotNode(
        role="document",
        children=[
            SnapshotNode(role="heading", name="Title", ref="e1", level=1, bounds=box),
            SnapshotNode(role="text", text="Some words"),
            SnapshotNode(role="textbox", name="Email", ref="e2", value="a@b.c", bounds=box),
            SnapshotNode(role="textbox", name="Pin", ref="e3", password=True, bounds=box),
            SnapshotNode(role="button", name="Hidden", ref="e4", bounds=None),
            SnapshotNode(
                role="generic",
                children=[
                    SnapshotNode(role="button", name="Go", ref="e5", disabled=True, bounds=box)
                ],
            ),
            SnapshotNode(role="link", name="Docs", ref="e6", url="http://h/docs", bounds=box),
            SnapshotNode(
                role="checkbox",
                name="Ok",
                ref="e7",
                checked=True,
                bounds=box,
                covered_by='dialog "Cookies" (e9)',
            ),
        ],
    )


def test_interactive_lines():
    lines = render_lines(_tree(), full=False, page_url="http://h/page")
    assert lines == [
        '- heading "Title" [ref=e1] [level=1]',
        '- textbox "Email" [ref=e2]: a@b.c',
        '- textbox "Pin" [ref=e3] [password]',
        '- button "Go" [ref=e5] [disabled]',
        '- link "Docs" [ref=e6] [url=/docs]',
        '- checkbox "Ok" [ref=e7] [checked] [covered by dialog "Cookies" (e9)]',
    ]


def test_full_lines_keep_text_and_drop_empty_containers():
    lines = render_lines(_tree(), full=True)
    assert '- text: "Some words"' in lines
    assert '- button "Hidden" [ref=e4]' in lines
    assert not any(line.strip().startswith("- generic") for line in lines)


def test_paging_and_find():
    lines = [f'- button "B{i}" [ref=e{i}]' for i in range(100)]
    page = page_lines(["# head"], lines, capture="s7", max_chars=400)
    assert page.next_cursor is not None and page.chars <= 400
    assert page.text.startswith("# head\n")
    # The cursor names the capture and the line the next page starts at.
    capture, line = page.next_cursor.split(":")
    assert capture == "s7" and f"call again with cursor={page.next_cursor}" in page.text
    rest = page_lines(["# head"], lines, capture="s7", max_chars=100_000, start=int(line))
    assert rest.next_cursor is None and rest.remaining_lines == 0 and rest.start == int(line)
    header, found = select_lines([], lines, "B9")
    assert len(found) == 11 and header == ["# 11 lines match 'B9'"]
    with pytest.raises(InvalidArgument):
        page_lines([], lines, capture="s7", max_chars=50)


def test_cursors_parse_to_a_capture_and_a_line_or_to_a_new_snapshot():
    assert Cursor.parse(0) == Cursor.parse("0") == Cursor(None)
    assert Cursor.parse("s3:120") == Cursor("s3", 120)
    for bad in (120, "120", "s3", "s3:-1", "e3:1", True, ""):
        with pytest.raises(InvalidArgument) as caught:
            Cursor.parse(bad)
        assert "0 for a new snapshot" in caught.value.hint


def test_diff_reports_added_removed_and_changed_by_ref():
    before = ['- button "A" [ref=e1]', '- button "B" [ref=e2]', '- textbox "T" [ref=e3]: x']
    after = ['- button "A" [ref=e1] [focused]', '- textbox "T" [ref=e3]: y', '- link "C" [ref=e4]']
    diff = diff_lines(before, after)
    assert diff.added == ['- link "C" [ref=e4]']
    assert diff.removed == ['- button "B" [ref=e2]']
    assert diff.changed == ['- textbox "T" [ref=e3]: y']  # focus alone is no change
    many = diff_lines([], [f"- button [ref=e{i}]" for i in range(50)], max_lines=10)
    assert len(many.added) == 10 and many.truncated == 40
    assert "40 more changes" in many.text()
