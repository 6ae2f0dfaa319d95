"""Snapshots of real pages: text and JSON forms, frames, shadow DOM, refs, paging."""

from __future__ import annotations

import json
import re
import time

import pytest

from tabwarden.errors import InvalidArgument, StaleRefError, UnknownRef
from tests.cdp_log import recorded_commands


def _ref(snapshot, name: str, role: str | None = None) -> str:
    for node in snapshot.root.walk():
        if node.name == name and (role is None or node.role == role) and node.ref:
            return node.ref
    raise AssertionError(f"no {role or 'node'} named {name!r} in:\n{snapshot.text}")


@pytest.fixture
async def tab(browser):
    tab = await browser.new_tab()
    yield tab
    if not tab.closed:
        await tab.close()


async def test_interactive_view_lists_controls_with_refs_states_and_values(tab, server):
    await tab.navigate(server.url("/snap_basic.html"))
    snap = await tab.snapshot()
    text = snap.text
    assert text.splitlines()[0].startswith(f'# tab {tab.id} · "Snapshot basics" · http://')
    assert f'- heading "Sign in" [ref={_ref(snap, "Sign in")}] [level=1]' in text
    assert f'- textbox "Email" [ref={_ref(snap, "Email", "textbox")}]: jane@x.org' in text
    assert f'- button "Disabled one" [ref={_ref(snap, "Disabled one")}] [disabled]' in text
    assert f'- link "Docs" [ref={_ref(snap, "Docs")}] [url=/docs/start.html]' in text
    assert f'- checkbox "Remember me" [ref={_ref(snap, "Remember me")}] [checked]' in text
    assert "[expanded=false]: Green" in text
    # Role-less but clickable: a cursor:pointer card and a div with a click listener.
    assert f'- clickable "Open card" [ref={_ref(snap, "Open card")}]' in text
    assert f'- clickable "Has a click listener" [ref={_ref(snap, "Has a click listener")}]' in text
    # Hidden, invisible and zero-size elements are left out of the interactive view.
    for hidden in ("Hidden button", "Invisible button", "Zero button"):
        assert hidden not in text
    size = re.fullmatch(r"# ([\d,]+) chars ≈ ([\d,]+) tokens", text.splitlines()[-1])
    assert size is not None
    assert int(size.group(1).replace(",", "")) == len(text) == snap.page.chars


async def test_password_values_never_appear(tab, server):
    await tab.navigate(server.url("/snap_basic.html"))
    for full in (False, True):
        snap = await tab.snapshot(full=full)
        dumped = snap.text + json.dumps(snap.to_dict())
        assert "hunter2" not in dumped
        assert "••" not in dumped
        assert "[password]" in snap.text


async def test_full_view_has_text_and_structure(tab, server):
    await tab.navigate(server.url("/snap_basic.html"))
    snap = await tab.snapshot(full=True)
    assert "- form" in snap.text
    assert '- text: "Email"' in snap.text
    assert '- option "Green"' in snap.text and "[selected]" in snap.text


async def test_json_form_has_the_node_shape(tab, server):
    await tab.navigate(server.url("/snap_basic.html"))
    snap = await tab.snapshot()
    data = snap.to_dict()
    assert data["tab_id"] == tab.id and data["chars"] == len(data["text"])
    nodes = [n for n in snap.root.walk() if n.ref]
    email = next(n for n in nodes if n.name == "Email" and n.role == "textbox").to_dict()
    for key in (
        "ref",
        "role",
        "name",
        "value",
        "text",
        "bounds",
        "disabled",
        "focused",
        "selected",
        "checked",
        "expanded",
        "level",
        "url",
        "frame",
    ):
        assert key in email
    assert email["value"] == "jane@x.org"
    assert email["bounds"]["width"] > 0 and email["bounds"]["height"] > 0


async def test_iframes_same_origin_and_cross_origin_share_one_ref_space(tab, server, other_origin):
    await tab.navigate(server.url(f"/frames.html?child={other_origin.base}"))
    snap = await tab.snapshot()
    lines = snap.text.splitlines()
    same = next(i for i, line in enumerate(lines) if '- iframe "Same origin"' in line)
    cross = next(i for i, line in enumerate(lines) if '- iframe "Cross origin"' in line)
    assert lines[same + 1].startswith('  - button "Frame button"')
    assert lines[cross + 1].startswith('  - button "Frame button"')
    refs = [n.ref for n in snap.root.walk() if n.ref]
    assert len(refs) == len(set(refs))
    frames = {f.frame_id: f for f in tab.frames.frames()}
    oopif = [f for f in frames.values() if f.is_oopif]
    assert len(oopif) == 1 and oopif[0].url.startswith(other_origin.base)
    iframe = next(n for n in snap.root.walk() if n.name == "Cross origin")
    inner = next(n for n in iframe.walk() if n.name == "Frame button")
    assert inner.frame == oopif[0].frame_id
    # Bounds of the OOPIF's nodes are in top-document coordinates, inside the iframe.
    assert iframe.bounds.x <= inner.bounds.x <= iframe.bounds.x + iframe.bounds.width
    assert iframe.bounds.y <= inner.bounds.y <= iframe.bounds.y + iframe.bounds.height


async def test_open_shadow_root_content_gets_refs(tab, server):
    await tab.navigate(server.url("/actions.html"))
    snap = await tab.snapshot()
    assert _ref(snap, "Shadow button", "button")


async def test_covered_element_is_marked_with_what_covers_it(tab, server):
    await tab.navigate(server.url("/covered.html"))
    snap = await tab.snapshot()
    line = next(line for line in snap.text.splitlines() if '"Buy now"' in line)
    assert "[covered by div#backdrop]" in line
    accept = next(line for line in snap.text.splitlines() if '"Accept"' in line)
    assert "covered" not in accept


async def test_refs_are_stable_and_rerendered_elements_get_new_ones(tab, server):
    await tab.navigate(server.url("/rerender.html"))
    first = await tab.snapshot()
    again = await tab.snapshot()
    assert first.lines == again.lines
    keep, alpha, rerender = (_ref(first, n) for n in ("Stays", "Alpha", "Re-render"))
    await tab.click(rerender)
    after = await tab.snapshot()
    assert _ref(after, "Stays") == keep
    assert _ref(after, "Re-render") == rerender
    assert _ref(after, "Alpha") != alpha
    with pytest.raises(StaleRefError) as caught:
        await tab.click(alpha)
    assert caught.value.ref == alpha
    assert "removed" in str(caught.value) and "new snapshot" in caught.value.hint
    assert tab.title == "List"  # nothing was clicked by guessing


async def test_refs_of_a_page_that_navigated_away_are_stale(tab, server):
    await tab.navigate(server.url("/index.html"))
    old = _ref(await tab.snapshot(), "second")
    await tab.navigate(server.url("/second.html"))
    with pytest.raises(StaleRefError) as caught:
        await tab.click(old)
    assert "navigated away" in str(caught.value)


async def test_ref_forms_and_css_selectors_are_accepted(tab, server):
    await tab.navigate(server.url("/receipts.html"))
    ref = _ref(await tab.snapshot(), "Change page")
    for form in (ref, f"@{ref}", f"ref={ref}"):
        assert (await tab.get_text(form)) in ("Change page", "Renamed")
    assert await tab.get_text("a[target=_blank]") == "Open home in a new tab"
    with pytest.raises(UnknownRef):
        await tab.click("e99999")
    with pytest.raises(UnknownRef) as caught:
        await tab.click("#no-such-element")
    assert "snapshot" in caught.value.hint
    with pytest.raises(InvalidArgument):
        await tab.click("[[[")


async def test_scope_find_and_paging(tab, server):
    await tab.navigate(server.url("/big.html"))
    whole = await tab.snapshot(max_chars=1_000_000)
    assert whole.page.next_cursor is None and whole.page.remaining_lines == 0
    pages: list[str] = []
    cursor: int | str = 0
    while True:
        part = await tab.snapshot(max_chars=2_000, cursor=cursor)
        assert part.page.chars <= 2_000
        body = [line for line in part.text.splitlines() if not line.startswith("#")]
        pages.extend(body)
        if part.page.next_cursor is None:
            break
        assert f"more lines: call again with cursor={part.page.next_cursor}" in part.text
        cursor = part.page.next_cursor
    assert pages == whole.lines
    found = await tab.snapshot(find="number 59")
    matched = [line for line in found.text.splitlines() if not line.startswith("#")]
    assert len(matched) == 11  # 59 and 590-599
    regex = await tab.snapshot(find="/number (1|2)$/")
    assert len([line for line in regex.text.splitlines() if "[ref=" in line]) == 0
    regex = await tab.snapshot(find='/number [12]"/')
    assert len([line for line in regex.text.splitlines() if "[ref=" in line]) == 2
    heading = _ref(whole, "Many buttons")
    scoped = await tab.snapshot(scope=heading)
    assert f"# scope {heading}" in scoped.text
    with pytest.raises(InvalidArgument):
        await tab.snapshot(find="/[/")
    with pytest.raises(InvalidArgument):
        await tab.snapshot(cursor=10_000)


async def test_snapshot_with_a_dialog_open_returns_at_once_and_says_so(tab, server):
    result = await tab.navigate(server.url("/alert_on_load.html"))
    assert result.dialog is not None
    started = time.monotonic()
    snap = await tab.snapshot(timeout_ms=5_000)
    assert time.monotonic() - started < 2.5  # not its 5 s deadline
    assert "dialog open: d-" in snap.text and 'alert "loaded and blocking"' in snap.text
    assert (await tab.dialog("accept")).dialog.message == "loaded and blocking"
    assert tab.pending_dialog is None


async def test_list_items_rows_and_images_that_handle_clicks_are_clickable(tab, server):
    # Menus of <li>, clickable table rows, zoomable images: elements with a role of
    # their own that is not interactive get a ref in the interactive view when the page
    # handles clicks on them (an onclick, a listener, or where cursor:pointer starts).
    await tab.navigate(server.url("/clickable_roles.html"))
    snap = await tab.snapshot()
    text = snap.text
    for name in ("Open file", "Save file", "Row one 42", "Zoom photo"):
        assert f'- clickable "{name}" [ref={_ref(snap, name)}]' in text, text
    # A pointer cursor on a list is taken as its items': they are what to click.
    for name in ("Delegated one", "Delegated two"):
        assert f'- clickable "{name}" [ref={_ref(snap, name)}]' in text, text
    # A row holding a link is a wrapper: the link is what to act on.
    assert "Row two" not in text and '- link "Details"' in text
    # Nothing to click on a plain paragraph; a label forwards to its checkbox.
    assert "Plain paragraph" not in text
    assert '- checkbox "Agree"' in text and '- clickable "Agree"' not in text
    for name, title in (("Open file", "opened"), ("Save file", "saved"), ("Row one 42", "row")):
        receipt = await tab.click(_ref(snap, name))
        assert receipt.title == title


async def test_the_walker_is_installed_once_per_world_and_reinstalled_when_lost(tab, server):
    # Sent once per world, the walker's code stays compiled and optimised in the page;
    # later snapshots send only a short call.
    await tab.navigate(server.url("/snap_basic.html"))
    first = await tab.snapshot()

    def scripts(commands) -> list[int]:
        return [
            len(c.params.get("functionDeclaration") or c.params.get("expression") or "")
            for c in commands
            if c.method in ("Runtime.callFunctionOn", "Runtime.evaluate")
        ]

    with recorded_commands() as commands:
        again = await tab.snapshot()
    assert again.lines == first.lines
    assert scripts(commands) and max(scripts(commands)) < 500
    # Page script cannot reach tabwarden's world, but the world can lose the walker
    # (a reconnect): it is sent again, and the page reads the same (with new refs: the
    # handles of a new walker are new).
    world = tab.frames.world_of(tab.target_id)
    await tab.cdp(
        "Runtime.evaluate",
        {"expression": "delete globalThis.__tabwardenWalker", "contextId": world},
    )
    with recorded_commands() as commands:
        restored = await tab.snapshot()
    assert max(scripts(commands)) > 5_000

    def unref(lines: list[str]) -> list[str]:
        return [re.sub(r" \[ref=e\d+\]", "", line) for line in lines]

    assert unref(restored.lines) == unref(first.lines)
    assert restored.lines != first.lines


async def test_a_ref_from_a_replaced_world_never_reaches_another_element(tab):
    # Handles count from 1 in each of tabwarden's worlds. If the world is replaced (a
    # reconnect makes a new one in the same document), an old handle number may now
    # name another element: the world's token must make the old ref stale instead.
    from tabwarden.budget import Budget
    from tabwarden.snapshot.walker import world

    await tab.navigate(
        "data:text/html,<button onclick=\"document.title='first'\">First</button>"
        "<button onclick=\"document.title='second'\">Second</button>"
    )
    first = _ref(await tab.snapshot(), "First")
    context = await world(tab.frames, tab.target_id, Budget(5))
    await tab.cdp(
        "Runtime.evaluate",
        {
            "expression": "delete globalThis.__tabwardenWalker;"
            " document.querySelector('button').remove()",
            "contextId": context,
        },
    )
    second = await tab.snapshot()  # the new world numbers "Second" as handle 1
    assert _ref(second, "Second") != first
    with pytest.raises(StaleRefError):
        await tab.click(first)
    title = await tab.cdp("Runtime.evaluate", {"expression": "document.title"})
    assert title["result"]["value"] != "second"


async def test_click_listeners_added_and_removed_later_are_seen(tab, server):
    # Listener elements are resolved once per world and kept there: a listener added
    # after a snapshot must show up, and one removed must stop counting.
    await tab.navigate(server.url("/snap_basic.html"))
    first = await tab.snapshot()
    assert '- clickable "Has a click listener"' in first.text
    await tab.cdp(
        "Runtime.evaluate",
        {
            "expression": """
              const old = document.getElementById('listener');
              old.replaceWith(old.cloneNode(true));  // a clone has no listeners
              const added = document.createElement('div');
              added.textContent = 'Listens later';
              added.addEventListener('mousedown', () => {});
              document.body.append(added);
            """
        },
    )
    second = await tab.snapshot()
    assert f'- clickable "Listens later" [ref={_ref(second, "Listens later")}]' in second.text
    assert "Has a click listener" not in second.text
    await tab.cdp(
        "Runtime.evaluate",
        {
            "expression": """
              const later = [...document.querySelectorAll('div')].at(-1);
              const handler = () => {};
              later.addEventListener('click', handler);
              later.removeEventListener('click', handler);
              later.replaceWith(later.cloneNode(true));
              const kept = document.createElement('div');
              kept.textContent = 'Stops listening';
              const stop = () => {};
              kept.addEventListener('click', stop);
              document.body.append(kept);
              window.__stop = () => kept.removeEventListener('click', stop);
            """
        },
    )
    assert "Stops listening" in (await tab.snapshot()).text
    await tab.cdp("Runtime.evaluate", {"expression": "window.__stop()"})
    assert "Stops listening" not in (await tab.snapshot()).text


async def test_many_snapshots_in_a_row_keep_the_page_alive(tab, server):
    # Reading click listeners through an isolated world's document crashed the
    # renderer after about sixteen snapshots; the page must stay alive and answer.
    await tab.navigate(server.url("/actions.html"))
    for _ in range(40):
        snap = await tab.snapshot(timeout_ms=5000)
    assert '- clickable "A role-less card"' in snap.text
    reply = await tab.cdp("Runtime.evaluate", {"expression": "1 + 1"}, timeout_ms=2000)
    assert reply["result"]["value"] == 2


async def test_a_label_takes_the_text_of_fields_it_holds_but_no_checkbox_value(tab, server):
    await tab.navigate(server.url("/snap_label_names.html"))
    text = (await tab.snapshot()).text
    assert '- checkbox "Gift wrap"' in text
    assert '- checkbox "Add a card"' in text  # named by its own label, through aria-labelledby
    assert '- radio "Express delivery"' in text
    assert '"Ribbon colour"' in text
    # Text fields, number fields and selects in a label give their value, as accname says.
    assert '- textbox "Note" ' in text  # the checkbox before it gives nothing
    assert '- spinbutton "Quantity boxes"' in text
    assert '- combobox "Size box"' in text
    assert '- spinbutton "Cases of 2 bottles"' in text
    assert '"on' not in text and " on " not in text and "#ff0000" not in text
