"""The console log: every level, uncaught exceptions with source and line, frames, reads."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import tabwarden
from tabwarden.config import Config
from tabwarden.diagnostics.console import ConsoleEntry
from tabwarden.errors import InvalidArgument
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

pytestmark = pytest.mark.browser

PAGE = Path(__file__).parent.parent / "pages" / "diag_console.html"


def _line_of(marker: str) -> int:
    """The 1-based line of the page that carries ``marker``."""
    lines = PAGE.read_text().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if marker in line)


def _held(tab) -> list[ConsoleEntry]:
    """What the tab's log holds, without reading it (a read would mark it read)."""
    return tab.page.supervisor.console.store.held(tab.id)


async def _until(tab, check: Callable[[list[ConsoleEntry]], bool], seconds: float = 10.0):
    """Poll until the log satisfies ``check`` (events arrive on their own schedule)."""
    deadline = time.monotonic() + seconds
    while not check(_held(tab)):
        if time.monotonic() > deadline:
            raise AssertionError(f"the console never got there: {[e.text for e in _held(tab)]}")
        await asyncio.sleep(0.05)


def _thrown(entries: list[ConsoleEntry]) -> bool:
    """The page's own load-time messages are all in (the child frame's come too)."""
    texts = {e.text for e in entries}
    return "error from the same frame" in texts and any(e.level == "exception" for e in entries)


def _last(entries: list[ConsoleEntry]) -> str:
    return entries[-1].text if entries else ""


def _texts(report) -> list[str]:
    return [e.text for e in report.entries]


async def test_every_level_and_an_uncaught_exception_with_source_and_line(browser, server):
    started = time.time()
    tab = await browser.new_tab(server.url("/diag_console.html"))
    await _until(tab, _thrown)
    report = await tab.console(max_entries=1000)
    by_type = {e.type: e for e in report.entries if e.frame_id == tab.target_id}
    assert {"log", "info", "warning", "error", "debug", "assert", "trace", "exception"} <= set(
        by_type
    )
    assert by_type["log"].text == "log message formatted 42 {a: 1, b: 'two'}"
    assert by_type["log"].level == "log" and by_type["info"].level == "info"
    assert by_type["warning"].level == "warning" and by_type["debug"].level == "debug"
    assert by_type["assert"].level == "error" and by_type["assert"].text == "assert message"
    assert by_type["trace"].stack and by_type["trace"].stack[0].startswith("logEvery (")

    page = server.url("/diag_console.html")
    warn = by_type["warning"]
    assert (warn.url, warn.line) == (page, _line_of("WARN-LINE")) and warn.column > 0
    assert by_type["log"].line == _line_of("LOG-LINE")

    thrown = by_type["exception"]
    assert thrown.level == "exception" and thrown.source == "exception"
    assert thrown.text == "Uncaught ReferenceError: undefinedFunction is not defined"
    assert (thrown.url, thrown.line) == (page, _line_of("BOOM-LINE"))
    assert thrown.stack[0].startswith(f"boom ({page}:{_line_of('BOOM-LINE')}:")
    now = time.time()
    assert all(e.tab_id == tab.id and started - 1 <= e.at <= now + 1 for e in report.entries)

    text = report.text()
    assert f"exception: Uncaught ReferenceError: undefinedFunction is not defined — {page}:" in text
    assert "    at boom (" in text
    assert "error (assert): assert message" in text
    # the supervisor's state still reads the errors
    assert any("undefinedFunction" in e.text for e in browser.state(tab).console_errors)
    await tab.close()


async def test_levels_filter_and_error_includes_uncaught_exceptions(browser, server):
    tab = await browser.new_tab(server.url("/diag_console.html"))
    await _until(tab, _thrown)
    errors = await tab.console(level="error")
    assert {e.level for e in errors.entries} == {"error", "exception"}
    assert {"error message", "assert message", "error from the same frame"} <= set(_texts(errors))
    warnings = await tab.console(level=["warn"])
    assert _texts(warnings) == ["warn message"] and warnings.levels == ("warning",)
    asserts = await tab.console(level="assert")
    assert _texts(asserts) == ["assert message"]
    several = await tab.console(level="info,debug")
    assert _texts(several) == ["info message", "debug message"]
    only_thrown = await tab.console(level="exception")
    assert [e.type for e in only_thrown.entries] == ["exception"]
    with pytest.raises(InvalidArgument) as bad:
        await tab.console(level="loud")
    assert "warning" in bad.value.hint
    with pytest.raises(InvalidArgument):
        await tab.console(since="yesterday")
    await tab.close()


async def test_since_last_read_and_clear(browser, server):
    tab = await browser.new_tab(server.url("/diag_console.html"))
    await _until(tab, _thrown)
    first = await tab.console(since="last_read")
    assert "warn message" in _texts(first) and first.since == "last_read"
    assert (await tab.console(since="last_read")).entries == ()

    await tab.evaluate("console.log('after'); console.log('the read')")
    await _until(tab, lambda held: _last(held) == "the read")
    fresh = await tab.console(since="last_read")
    assert _texts(fresh) == ["after", "the read"] and fresh.missed == 0
    assert "since the last read: showing 2 of 2" in fresh.text()
    everything = await tab.console(max_entries=1000)
    assert everything.matched > 10 and _texts(everything)[-2:] == ["after", "the read"]

    cleared = await tab.console(clear=True)
    assert cleared.cleared and cleared.matched > 0 and "cleared after reading" in cleared.text()
    empty = await tab.console()
    assert empty.entries == () and empty.size == 0 and empty.dropped == 0
    assert "no entries" in empty.text()
    await tab.evaluate("console.log('new life')")
    await _until(tab, lambda held: len(held) == 1)
    assert _texts(await tab.console(since="last_read")) == ["new life"]
    await tab.close()


async def test_messages_of_same_origin_and_cross_origin_frames(browser, server, other_origin):
    tab = await browser.new_tab(server.url(f"/diag_console.html?child={other_origin.base}"))
    wanted = {"error from the same frame", "error from the cross frame"}
    await _until(tab, lambda held: wanted <= {e.text for e in held})
    report = await tab.console()
    frames = {f.frame_id: f for f in tab.frames.frames()}
    by_text = {e.text: e for e in report.entries}
    cross = by_text["error from the cross frame"]
    assert cross.url == other_origin.url("/diag_console_child.html?name=cross")
    assert cross.line > 0 and frames[cross.frame_id].is_oopif
    same = by_text["error from the same frame"]
    assert same.frame_id != tab.target_id and not frames[same.frame_id].is_oopif
    assert frames[same.frame_id].url.endswith("diag_console_child.html?name=same")
    assert f"[frame {cross.frame_id}]" in report.text()
    await tab.close()


async def test_browser_notices_of_failed_loads_are_logged(browser, server):
    tab = await browser.new_tab(server.url("/index.html"))
    await tab.evaluate("fetch('/status/404').then(r => r.status)")
    await _until(tab, lambda held: any(e.source == "browser" for e in held))
    report = await tab.console()
    notice = next(e for e in report.entries if e.source == "browser")
    assert notice.level == "error" and notice.type == "network"
    assert "404" in notice.text and notice.url == server.url("/status/404")
    assert not any("favicon" in e.url for e in report.entries)
    await tab.close()


async def test_a_full_ring_reports_what_it_dropped(server):
    config = Config()
    config.diagnostics.console_entries = 10
    async with tabwarden.launch(isolated=True, config=config) as session:
        tab = await session.new_tab(server.url("/index.html"))
        await tab.console()  # everything so far is read
        await tab.evaluate("for (let i = 0; i < 25; i++) console.log('flood ' + i)")
        await _until(tab, lambda held: _last(held) == "flood 24")
        report = await tab.console(max_entries=3)
        assert report.size == 10 and report.capacity == 10 and report.dropped >= 15
        assert _texts(report) == ["flood 22", "flood 23", "flood 24"]
        assert f"showing 3 of 10 (ring holds 10 of 10, {report.dropped} dropped)" in report.text()

        await tab.evaluate("for (let i = 0; i < 25; i++) console.log('again ' + i)")
        await _until(tab, lambda held: _last(held) == "again 24")
        unread = await tab.console(since="last_read")
        assert unread.missed == 15 and len(unread.entries) == 10
        assert "15 unread entries were dropped" in unread.text()


async def test_console_tool_reads_levels_and_marks_page_content(server):
    config = Config()
    config.browser.isolated = True
    async with tabwarden.SessionManager(config) as manager:
        ctx = ToolContext(manager, "console-tool")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/diag_console.html")})
        tab = await ctx.tab()
        await _until(tab, _thrown)
        result = await call_tool(ctx, "browser_console", {"level": "error", "max_entries": 2})
        assert result.untrusted
        text = result.final_text()
        assert "console of tab" in text and "(error)" in text and "showing 2 of" in text
        assert "exception: Uncaught ReferenceError" in text
        assert "exception" in [e["level"] for e in result.data["entries"]]
        again = await call_tool(ctx, "browser_console", {"since": "last_read"})
        assert again.data["entries"] == []
        with pytest.raises(InvalidArgument):
            await call_tool(ctx, "browser_console", {"max_entries": 0})


async def test_messages_replayed_by_enabling_the_domains_again_are_not_doubled(browser, server):
    tab = await browser.new_tab(server.url("/diag_console.html"))
    await _until(tab, _thrown)
    before = [e.text for e in _held(tab)]
    replayed = []
    with tab.frames.main_session.subscribe("Runtime.consoleAPICalled", replayed.append):
        await tab.cdp("Runtime.disable")
        await tab.cdp("Runtime.enable")  # replays the page's stored messages before replying
    await tab.cdp("Log.disable")
    await tab.cdp("Log.enable")
    assert len(replayed) >= 7
    await tab.evaluate("console.log('fresh')")
    await _until(tab, lambda held: _last(held) == "fresh")
    assert [e.text for e in _held(tab)] == [*before, "fresh"]
    await tab.close()
