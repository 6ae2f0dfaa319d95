"""The one text normaliser and matcher, without a browser (the page's twin is checked
against it in tests/actions/test_text_match.py)."""

from __future__ import annotations

import pytest

from tabwarden.errors import InvalidArgument
from tabwarden.snapshot.render import select_lines
from tabwarden.textmatch import collapse, fold, text_pattern


@pytest.mark.parametrize(
    ("raw", "collapsed"),
    [
        ("Total:\u00a0\u00a042", "Total: 42"),
        ("\t tabs \n and\r\nlines \x0b\x0c", "tabs and lines"),
        (
            "em\u2003space\u3000wide\u202fnarrow\u205fmath\u1680ogham",
            "em space wide narrow math ogham",
        ),
        ("bom\ufeffhere, next\x85line\u2028and\u2029on", "bom here, next line and on"),
        ("zero\u200bwidth", "zero\u200bwidth"),  # not a space: it joins, it does not part
        ("   ", ""),
        ("plain", "plain"),
    ],
)
def test_collapse_makes_every_whitespace_run_one_space_and_trims(raw, collapsed):
    assert collapse(raw) == collapsed


@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("Welcome ABOARD", "welcome aboard"),
        ("Straße", "strasse"),  # upper-cased first, as CSS text-transform does
        ("STRASSE", "strasse"),
        ("İ", "i\u0307"),  # the dotted capital keeps its dot, on both sides
        ("\u0131", "i"),  # the dotless small i folds to i
        ("ﬁne", "fine"),
        ("ΟΔΟΣ", "οδος"),  # a final sigma stays final
    ],
)
def test_fold_is_upper_then_lower(raw, folded):
    assert fold(raw) == folded


def test_default_match_is_a_case_insensitive_substring_with_spaces_collapsed():
    found = text_pattern("welcome\u00a0 ABOARD").searcher()
    assert found("Oh, WELCOME\n aboard!")
    assert found("Welcome aboard")
    assert not found("Welcome on board")
    assert text_pattern("STRASSE").searcher()("Hauptstraße 1")


def test_exact_is_the_whole_text_with_its_case():
    found = text_pattern("Welcome  aboard", exact=True).searcher()
    assert found(" Welcome\u00a0aboard\n")
    assert not found("Welcome aboard!")
    assert not found("welcome aboard")


def test_a_regex_searches_the_collapsed_text_case_insensitively_unless_exact():
    assert text_pattern(r"/total: \d+/").searcher()("TOTAL:\u00a0\u00a042")
    assert not text_pattern(r"/total: \d+/", exact=True).searcher()("TOTAL: 42")
    assert text_pattern(r"/Total: \d+/", exact=True).searcher()("Total:\t42")


def test_bad_patterns_are_refused_naming_the_parameter():
    with pytest.raises(InvalidArgument, match=r"text_gone=' \\xa0 ' has no text to match"):
        text_pattern(" \u00a0 ", name="text_gone")
    with pytest.raises(InvalidArgument, match=r"find=/\[a/ is not a valid regular expression"):
        text_pattern("/[a/", name="find").searcher()
    # In the page a regex is JavaScript's, checked there: here it is only kept.
    assert text_pattern("/(?<year>\\d{4})/").spec() == {
        "text": "(?<year>\\d{4})",
        "exact": False,
        "regex": True,
    }


def test_snapshot_find_matches_as_wait_does():
    lines = ['- heading "Welcome aboard" [ref=e1] [level=1]', '- paragraph "Straße" [ref=e2]']
    for find in ("WELCOME\u00a0aboard", "welcome \n aboard", "strasse", "/STRA(ß|SS)E/"):
        _, found = select_lines([], lines, find)
        assert len(found) == 1, find
