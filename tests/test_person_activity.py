"""The record of a person's input in a tab: noted, read once, said in a line."""

from __future__ import annotations

from tabwarden.person_activity import PersonActivity


def test_kinds_are_told_once_in_the_order_first_seen() -> None:
    activity = PersonActivity()
    assert activity.take() is None
    for kind in ("typed", "clicked", "typed", "scrolled"):
        activity.note(kind)
    acts = activity.take()
    assert acts is not None
    assert acts.kinds == ("typed", "clicked", "scrolled") and acts.events == 4
    assert acts.first_at <= acts.last_at
    assert acts.receipt_line() == (
        "a person acted in this tab since your last snapshot (typed, clicked, scrolled): "
        "take a snapshot before using old refs"
    )
    assert acts.snapshot_line().startswith("# a person acted")
    assert acts.to_dict()["kinds"] == ["typed", "clicked", "scrolled"]
    assert activity.take() is None  # read and cleared
    activity.note("pressed keys")
    again = activity.take()
    assert again is not None and again.kinds == ("pressed keys",) and again.events == 1
