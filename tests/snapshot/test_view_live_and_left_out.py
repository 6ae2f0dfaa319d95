"""The interactive view shows live regions with their text, and ends by counting what it
left out (text, tables, images) and how to read it."""

from __future__ import annotations

import pytest


@pytest.fixture
async def story(browser, server):
    tab = await browser.new_tab(server.url("/left_out.html"))
    yield tab
    await tab.close()


def _ref(snapshot, role: str, name: str = "") -> str:
    for node in snapshot.root.walk():
        if node.role == role and node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no {role} {name!r} in:\n{snapshot.text}")


async def test_the_interactive_view_shows_live_regions_with_their_text(story):
    snap = await story.snapshot()
    lines = [line.strip() for line in snap.text.splitlines()]
    live = [line for line in lines if line.startswith(("- status", "- alert"))]
    refs = [node.ref for node in snap.root.walk() if node.role in ("status", "alert")]
    assert live == [
        f"- status [ref={refs[0]}]: Updated 5 minutes ago",  # role=status
        f"- alert [ref={refs[1]}]: Storm warning at 6 pm",  # aria-live=assertive
        f"- status [ref={refs[2]}]: 42 seats left",  # <output>
        f"- alert [ref={refs[3]}]",  # an alert is shown even when empty
    ]
    # An empty polite region, and a region with aria-live=off, are not shown.
    assert "Not announced" not in snap.text
    # The full view shows a live region's text as text, not twice.
    full = await story.snapshot(full=True)
    assert "Updated 5 minutes ago" in full.text
    assert ": Updated 5 minutes ago" not in full.text


async def test_the_view_ends_by_counting_what_it_left_out(browser, story):
    snap = await story.snapshot()
    main = _ref(snap, "main", "Story")
    # Text blocks: two paragraphs (one with a link inside), a line of inline text, and a
    # paragraph that is not a live region; not headings, labels, live regions, hidden text
    # or table cells. Images: not the decorative one (alt="") nor a 1-pixel one.
    assert snap.lines[-1] == (
        "# not shown: 4 text blocks, 1 table (5 rows), 2 images — "
        f'snapshot(full=true), find="…" or scope={main}'
    )
    assert snap.text.splitlines()[-2] == snap.lines[-1]
    # Not in the full view, nor in a scoped one (the count is the whole page's).
    full = await story.snapshot(full=True)
    assert "# not shown" not in full.text
    scoped = await story.snapshot(scope=main)
    assert "# not shown" not in scoped.text
    # A page of controls only leaves nothing out, and says nothing.
    controls = await browser.new_tab(
        "data:text/html,<h1>Sign in</h1><label>Name <input></label><button>Go</button>"
        "<a href='/x'>Help</a>"
    )
    try:
        view = await controls.snapshot()
        assert "# not shown" not in view.text and view.lines[-1].startswith("- link")
    finally:
        await controls.close()
