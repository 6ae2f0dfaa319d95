"""A tab's walker: its memory and its background work belong to that tab and end with it."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.snapshot.walker import Walker

_SRC = Path(tabwarden.__file__).parent
_MUTABLE_CALLS = frozenset(
    {
        "dict",
        "set",
        "list",
        "defaultdict",
        "OrderedDict",
        "deque",
        "WeakKeyDictionary",
        "WeakValueDictionary",
        "WeakSet",
    }
)


@pytest.fixture
async def tab(browser):
    tab = await browser.new_tab()
    yield tab
    if not tab.closed:
        await tab.close()


def _module_level_containers(path: Path) -> list[str]:
    """Names a module binds, at its top level, to a mutable container."""
    found = []
    for statement in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name) and t.id != "__all__"]
        mutable = isinstance(value, ast.Dict | ast.Set | ast.List | ast.DictComp | ast.SetComp)
        if isinstance(value, ast.Call):
            called = value.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            mutable = name in _MUTABLE_CALLS
        if mutable:
            found += names
    return found


@pytest.mark.parametrize("module", ["snapshot/walker.py", "actions/text_changes.py"])
def test_the_module_keeps_no_state_shared_by_tabs(module):
    assert _module_level_containers(_SRC / module) == []


def _walker_tasks(walker_name: str) -> set[asyncio.Task[object]]:
    return {t for t in asyncio.all_tasks() if t.get_name().startswith(walker_name)}


async def test_each_tab_walker_holds_only_its_own_tabs_frames(browser, server, other_origin):
    framed = await browser.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    plain = await browser.new_tab(server.url("/snap_basic.html"))
    try:
        await framed.snapshot()
        await plain.snapshot()
        framed_ids = {f.frame_id for f in framed.frames.frames()}
        assert len(framed_ids) == 3  # the page and its two iframes
        assert framed.page.walker is not plain.page.walker
        assert framed.page.walker.frames_held == framed_ids
        assert plain.page.walker.frames_held == {plain.target_id}
    finally:
        await framed.close()
        await plain.close()


async def test_a_walk_leaves_its_release_with_its_walker_which_cancel_ends(tab, server):
    # The page has elements with click listeners: the walk resolves them into objects
    # and leaves releasing them to run after it.
    await tab.navigate(server.url("/snap_basic.html"))
    walker = Walker("test one")
    walks = await walker.walk(tab.frames, Budget(10), all_nodes=False)
    assert tab.target_id in walks
    releases = _walker_tasks("snapshot walker of test one")
    assert walker.running == len(releases) == 1
    assert not any(t.done() for t in releases)
    await asyncio.wait_for(walker.close(), 5)
    assert all(t.cancelled() for t in releases)
    assert walker.running == 0 and walker.closed
    # The other walker of the same page, and the tab's own, were left alone.
    again = Walker("test two")
    await again.walk(tab.frames, Budget(10), all_nodes=False)
    assert again.running == 1 and not again.closed and not tab.page.walker.closed
    await asyncio.wait_for(again.close(), 5)


async def test_closing_a_tab_ends_its_walker_and_leaves_no_task_of_it_running(tab, server):
    await tab.navigate(server.url("/snap_basic.html"))
    await tab.page.walker.walk(tab.frames, Budget(10), all_nodes=False)
    name = f"snapshot walker of tab {tab.id}"
    started = _walker_tasks(name)
    assert len(started) == 1 and not tab.page.walker.closed  # its release, not run yet
    await tab.close()
    assert tab.page.walker.closed
    await asyncio.wait(started, timeout=5)
    assert all(t.done() for t in started)
    assert _walker_tasks(name) == set() and tab.page.walker.running == 0


async def test_a_new_frame_registry_is_walked_with_nothing_kept_from_the_old(
    browser, server, other_origin
):
    # A tab attached again has a new registry: the worlds and objects kept for the old
    # one belonged to a session that is gone.
    first = await browser.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
    second = await browser.new_tab(server.url("/snap_basic.html"))
    walker = Walker("test registries")
    try:
        await walker.walk(first.frames, Budget(10), all_nodes=False)
        assert len(walker.frames_held) == 3
        await walker.walk(second.frames, Budget(10), all_nodes=False)
        assert walker.frames_held == {second.target_id}
    finally:
        await walker.close()
        await first.close()
        await second.close()


def test_the_walker_starts_no_task_it_does_not_own():
    # Its tasks are the walker's (TaskOwner.spawn) or awaited by the call that made them;
    # ensure_future is how a task gets lost.
    tree = ast.parse((_SRC / "snapshot/walker.py").read_text(encoding="utf-8"))
    called = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert "ensure_future" not in called
