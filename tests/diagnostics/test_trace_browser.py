"""Performance traces: a JSON trace file DevTools and Perfetto open, one at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tabwarden
from tabwarden.config import Config
from tabwarden.errors import ActionError, InvalidArgument
from tabwarden.manager import SessionManager
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("trace-ws")


@pytest.fixture(scope="module")
async def session(workspace):
    async with tabwarden.launch(isolated=True, workspace=workspace) as browser:
        yield browser


def _events(path: Path) -> list[dict]:
    data = json.loads(path.read_text())
    return data["traceEvents"] if isinstance(data, dict) else data


async def test_a_trace_file_parses_as_json_and_has_trace_events(session, server, workspace):
    started = await session.trace_start()
    assert "devtools.timeline" in started.categories
    tab = await session.new_tab(server.url("/files_anim.html"))
    await tab.evaluate("performance.mark('tabwarden-mark'); 1")
    trace = await session.trace_stop("page-load")
    assert trace.path == workspace / "tabwarden-output" / "traces" / "page-load.json"
    events = _events(trace.path)
    assert events and trace.events == len(events)
    assert trace.bytes == trace.path.stat().st_size
    names = {e.get("name") for e in events}
    assert "tabwarden-mark" in names  # blink.user_timing
    assert any(e.get("cat", "").startswith("devtools.timeline") for e in events)
    assert f"saved to {trace.path}" in trace.text() and "Perfetto" in trace.text()
    await tab.close()


async def test_one_trace_at_a_time_and_stop_needs_a_start(session):
    with pytest.raises(ActionError, match="no trace is being recorded"):
        await session.trace_stop()
    await session.trace_start(categories=["devtools.timeline"], screenshots=True)
    with pytest.raises(ActionError, match="already being recorded") as twice:
        await session.trace_start()
    assert "trace_stop" in twice.value.hint
    trace = await session.trace_stop()
    assert trace.path.name.startswith("trace-") and _events(trace.path)
    with pytest.raises(ActionError, match="no trace"):
        await session.trace_stop()


async def test_bad_categories_and_paths_are_refused(session, tmp_path):
    with pytest.raises(InvalidArgument, match="not a trace category"):
        await session.trace_start(categories=["ok", "bad category; rm"])
    with pytest.raises(InvalidArgument, match="non-empty list"):
        await session.trace_start(categories=[])
    await session.trace_start()
    with pytest.raises(InvalidArgument, match="outside the workspace"):
        await session.trace_stop(str(tmp_path / "t.json"))
    # The refused path did not end the trace: it can still be saved.
    assert (await session.trace_stop()).events


async def test_closing_the_session_mid_trace_writes_the_file(tmp_path, server):
    async with tabwarden.launch(isolated=True, workspace=tmp_path) as browser:
        await browser.trace_start()
        await browser.new_tab(server.url("/index.html"))
    traces = list((tmp_path / "tabwarden-output" / "traces").glob("*.json"))
    assert len(traces) == 1 and _events(traces[0])


async def test_trace_tools(server, tmp_path):
    config = Config()
    config.browser.isolated = True
    config.browser.workspace = tmp_path
    async with SessionManager(config) as manager:
        ctx = ToolContext(manager, "trace")
        started = await call_tool(ctx, "browser_trace_start", {})
        assert "tracing started" in started.final_text()
        await call_tool(ctx, "browser_navigate", {"url": server.url("/index.html")})
        stopped = await call_tool(ctx, "browser_trace_stop", {"path": "tool.json"})
        path = Path(stopped.data["path"])
        assert path == tmp_path / "tabwarden-output" / "traces" / "tool.json"
        assert f"saved to {path} ({path.stat().st_size:,} bytes" in stopped.final_text()
        assert _events(path)
