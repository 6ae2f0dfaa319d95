"""The workbench's live channel against a real session: what the agent does reaches the
page by push (frames, ref boxes, calls, actions, dialogs, network), and what the person
does goes back through the agent's own paths (dialog answers, input, consent)."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
import websockets

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config, load_config
from tabwarden.errors import PersonInControl
from tabwarden.jpeg import jpeg_size
from tabwarden.surfaces.workbench import Workbench
from tabwarden.surfaces.workbench.live import still_frame
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool

pytestmark = pytest.mark.browser


def _isolated() -> Config:
    """The tests' configuration (its workspace a temporary folder), with throwaway profiles."""
    config = load_config()
    config.browser.isolated = True
    return config


_WAIT_S = 20.0

Message = dict[str, Any]


class Page:
    """A workbench page's side of the WebSocket, as a test reads it."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.seen: list[Message] = []
        self._unread: list[Message] = []
        self._ids = iter(range(1, 1_000_000))

    async def next(self, wanted: Callable[[Message], bool], what: str) -> Message:
        """The next message that ``wanted`` accepts, in the order they came (one passed
        over while waiting for another is still found)."""
        for message in self._unread:
            if wanted(message):
                self._unread.remove(message)
                return message
        deadline = time.monotonic() + _WAIT_S
        while True:
            left = deadline - time.monotonic()
            try:
                text = await asyncio.wait_for(self.ws.recv(), max(left, 0.001))
            except TimeoutError:
                kinds = [m.get("type") for m in self.seen[-30:]]
                raise AssertionError(f"no {what} within {_WAIT_S} s; last seen: {kinds}") from None
            message = json.loads(text)
            self.seen.append(message)
            if wanted(message):
                return message
            if message.get("type") == "frame":  # only the newest frame is worth keeping
                self._unread = [m for m in self._unread if m.get("type") != "frame"]
            self._unread.append(message)

    async def kind(self, kind: str, **match: Any) -> Message:
        def wanted(m: Message) -> bool:
            return m.get("type") == kind and all(m.get(k) == v for k, v in match.items())

        return await self.next(wanted, f"{kind} {match or ''}")

    async def request(self, message: Message) -> Message:
        request_id = next(self._ids)
        await self.ws.send(json.dumps({**message, "id": request_id}))
        reply = await self.next(
            lambda m: m.get("type") == "reply" and m.get("id") == request_id,
            f"reply to {message['type']}",
        )
        return reply

    async def send(self, message: Message) -> None:
        await self.ws.send(json.dumps(message))


@pytest_asyncio.fixture(scope="module")
async def manager() -> AsyncIterator[tabwarden.SessionManager]:
    async with tabwarden.SessionManager(_isolated()) as sessions:
        yield sessions


@pytest_asyncio.fixture(scope="module")
async def bench(manager: tabwarden.SessionManager) -> AsyncIterator[Workbench]:
    async with Workbench() as workbench:
        workbench.watch_manager(manager)
        yield workbench


@pytest_asyncio.fixture(scope="module")
async def agent(manager: tabwarden.SessionManager, server: Any) -> ToolContext:
    ctx = ToolContext(manager, "agent")
    await call_tool(ctx, "browser_navigate", {"url": server.url("/workbench_agent.html")})
    return ctx


@pytest_asyncio.fixture
async def page(bench: Workbench, agent: ToolContext) -> AsyncIterator[Page]:
    url = bench.base_url.replace("http://", "ws://") + f"/ws?token={bench.token}"
    async with websockets.connect(
        url, origin=websockets.Origin(bench.base_url), max_size=None
    ) as ws:
        opened = Page(ws)
        hello = await opened.kind("hello")
        assert [s["name"] for s in hello["sessions"]] == ["agent"]
        yield opened


async def _watch(page: Page) -> Message:
    reply = await page.request({"type": "watch", "session": "agent"})
    assert reply["ok"], reply
    return await page.kind("session")


async def _snapshot_ref(agent: ToolContext, name: str) -> str:
    snapshot = await call_tool(agent, "browser_snapshot", {})
    (line,) = [line for line in snapshot.text.splitlines() if f'"{name}"' in line]
    return line.split("[ref=")[1].split("]")[0]


async def test_the_session_list_shows_each_session_with_its_profile(
    page: Page, bench: Workbench
) -> None:
    await page.send({"type": "list"})
    listed = await page.kind("sessions")
    (card,) = listed["sessions"]
    assert card["profile"] == "throwaway" and card["tabs"] >= 1
    assert card["active"]["title"] == "Agent at work"
    thumbnail = await page.kind("thumbnail", session="agent")
    assert thumbnail["data"].startswith("/9j/")  # a JPEG, base64


async def test_frames_arrive_at_the_viewport_size_only_while_watched(
    page: Page, agent: ToolContext
) -> None:
    view = await _watch(page)
    assert view["watching"] == view["active"] and view["profile"] == "throwaway"
    assert view["session"] == "agent"  # names are not secrets: never redacted
    frame = await page.kind("frame")
    assert frame["meta"]["deviceWidth"] == 1280 and frame["meta"]["deviceHeight"] == 720
    assert frame["data"].startswith("/9j/")
    await page.send({"type": "shown", "seq": frame["seq"]})
    tab = (await agent.session()).active_tab
    assert tab is not None and tab.page.screencast.feeds == 1
    await page.request({"type": "unwatch"})
    deadline = time.monotonic() + _WAIT_S
    while tab.page.screencast.feeds and time.monotonic() < deadline:
        await asyncio.sleep(0.02)  # the feed closes as the page's request is handled
    assert tab.page.screencast.feeds == 0, "the screencast kept running for nobody"


async def test_the_agents_snapshot_boxes_match_the_elements(page: Page, agent: ToolContext) -> None:
    await _watch(page)
    session = await agent.session()
    tab = session.active_tab
    assert tab is not None
    await tab.evaluate("window.scrollTo(0, 700)")
    await call_tool(agent, "browser_snapshot", {})
    boxes = (await page.kind("snapshot"))["boxes"]
    by_name = {box["name"]: box for box in boxes}
    actual = (
        await tab.evaluate(
            "[...document.querySelectorAll('button,input')].map(e => { const r ="
            " e.getBoundingClientRect(); return [e.textContent || e.getAttribute('aria-label'),"
            " r.left + scrollX, r.top + scrollY, r.width, r.height]; })"
        )
    ).value
    for name, x, y, width, height in actual:
        box = by_name[name]
        for got, want in zip(
            (box["x"], box["y"], box["w"], box["h"]), (x, y, width, height), strict=True
        ):
            assert abs(got - want) <= 2, (name, box, (x, y, width, height))
    frame = await page.next(
        lambda m: m.get("type") == "frame" and m["meta"]["scrollOffsetY"] == 700, "a scrolled frame"
    )
    low = by_name["Low button"]
    assert 0 < low["y"] - frame["meta"]["scrollOffsetY"] < 720  # drawn inside the view
    await tab.evaluate("window.scrollTo(0, 0)")


async def test_a_click_is_drawn_where_it_happened_and_listed_with_its_receipt(
    page: Page, agent: ToolContext
) -> None:
    ref = await _snapshot_ref(agent, "Go")
    await _watch(page)
    await call_tool(agent, "browser_click", {"ref": ref})
    started = await page.kind("call_started")
    assert started["call"]["tool"] == "browser_click" and started["call"]["args"] == {"ref": ref}
    action = await page.kind("action")
    assert action["name"] == "click" and action["ref"] == ref
    assert action["call"] == started["call"]["id"]
    (press,) = [p for p in action["points"] if p["kind"] == "press"]
    assert 60 <= press["x"] <= 220 and 80 <= press["y"] <= 124  # inside the Go button
    done = await page.kind("call")
    assert done["call"]["ok"] is True and done["call"]["duration_ms"] > 0
    assert "click" in done["call"]["text"] and done["call"]["marks"][0]["ref"] == ref
    console = await page.kind("console")
    assert console["entry"]["text"] == "go clicked"


async def test_a_pending_dialog_is_answered_from_the_page(page: Page, agent: ToolContext) -> None:
    ref = await _snapshot_ref(agent, "Ask")
    await _watch(page)
    await call_tool(agent, "browser_click", {"ref": ref})
    opened = await page.kind("dialog_opened")
    dialog = opened["dialog"]
    assert dialog["type"] == "prompt" and dialog["message"] == "Your name?"
    reply = await page.request(
        {"type": "dialog", "dialog_id": dialog["id"], "action": "accept", "prompt_text": "Ada"}
    )
    assert reply["ok"], reply
    closed = await page.kind("dialog_closed")
    assert closed["dialog"]["closed_by"] == "user" and closed["dialog"]["accepted"] is True
    session = await agent.session()
    assert session.state().recent_dialogs[-1].closed_by == "user"
    tab = session.active_tab
    assert tab is not None
    assert (await tab.evaluate("document.title")).value == "name=Ada"


async def test_requests_are_pushed_and_detailed_on_demand(page: Page, agent: ToolContext) -> None:
    ref = await _snapshot_ref(agent, "Fetch")
    await _watch(page)
    await call_tool(agent, "browser_click", {"ref": ref})
    done = await page.next(
        lambda m: (
            m.get("type") == "network"
            and "from=agent" in m["entry"]["url"]
            and m["entry"]["state"] == "finished"
        ),
        "the fetch, finished",
    )
    entry = done["entry"]
    assert entry["method"] == "GET" and entry["status"] == 200 and entry["type"] == "fetch"
    detail = await page.request(
        {"type": "network_detail", "tab": done["tab"], "request_id": entry["id"]}
    )
    assert detail["ok"] and "Second" in json.dumps(detail["result"])


async def test_the_person_takes_over_types_and_the_agent_is_told(
    page: Page, agent: ToolContext
) -> None:
    go = await _snapshot_ref(agent, "Go")
    await _watch(page)
    refused = await page.request({"type": "input", "event": {"kind": "text", "text": "x"}})
    assert not refused["ok"] and "Take over" in refused["error"]["hint"]
    assert (await page.request({"type": "takeover", "on": True}))["result"]["taken_over"]
    await page.kind("person", taken_over=True)
    with pytest.raises(PersonInControl):  # the agent's input waits, then says why
        await call_tool(agent, "browser_click", {"ref": go, "timeout_ms": 300})
    for kind, action in (("mouse", "down"), ("mouse", "up")):
        event = {"kind": kind, "action": action, "x": 100, "y": 184, "button": "left"}
        assert (await page.request({"type": "input", "event": event}))["ok"]
    for key in "Ada":
        event = {"kind": "key", "action": "down", "key": key, "code": f"Key{key.upper()}"}
        assert (await page.request({"type": "input", "event": event}))["ok"]
        await page.request({"type": "input", "event": {**event, "action": "up"}})
    session = await agent.session()
    tab = session.active_tab
    assert tab is not None
    assert (await tab.evaluate("document.getElementById('name').value")).value == "Ada"
    marks = await page.kind("action", name="click")
    assert marks["points"] == [{"kind": "press", "x": 100.0, "y": 184.0}]
    assert (await page.request({"type": "takeover", "on": False}))["ok"]
    handed = await page.next(
        lambda m: m.get("type") == "call" and m["call"]["tool"] == "take_over", "the take-over"
    )
    assert handed["call"]["by"] == "person" and "click" in handed["call"]["text"]
    reply = await call_tool(agent, "browser_console", {})
    assert f"a person acted in tab {tab.id} (clicked, typed)" in reply.notice
    again = await call_tool(agent, "browser_console", {})
    assert "person" not in again.notice  # told once
    await call_tool(agent, "browser_click", {"ref": go})  # handed back: the agent goes on


async def test_emulation_and_captures_are_pushed(page: Page, agent: ToolContext) -> None:
    await _watch(page)
    session = await agent.session()
    await session.emulate(width=800, height=600)
    changed = await page.kind("emulation")
    assert changed["state"]["width"] == 800 and changed["state"]["height"] == 600
    frame = await page.next(
        lambda m: m.get("type") == "frame" and m["meta"]["deviceWidth"] == 800, "a smaller frame"
    )
    assert frame["meta"]["deviceHeight"] == 600
    await session.emulate(reset=True)
    assert (await page.kind("emulation"))["state"]["width"] is None
    await session.trace_start()
    assert (await page.kind("trace"))["state"] == {"active": True}
    await session.trace_stop()
    assert (await page.kind("trace"))["state"] == {"active": False}


async def test_the_view_follows_the_agent_to_a_new_tab(
    page: Page, agent: ToolContext, server: Any
) -> None:
    view = await _watch(page)
    first = view["watching"]
    session = await agent.session()
    opened = await session.new_tab(server.url("/second.html"))
    try:
        frame = await page.next(
            lambda m: m.get("type") == "frame" and m["tab"] == opened.id, "a frame of the new tab"
        )
        assert frame["tab"] != first
    finally:
        await opened.close()
    back = await page.next(
        lambda m: m.get("type") == "frame" and m["tab"] == first, "a frame of the first tab again"
    )
    assert back["meta"]["deviceWidth"] > 0


async def test_a_still_frame_carries_the_viewport_the_boxes_need(agent: ToolContext) -> None:
    """What a watched tab that sent no screencast frame is shown with (a still page whose
    start frame was lost to a viewport change): one capture, with its scroll and size."""
    session = await agent.session()
    tab = session.active_tab
    assert tab is not None
    await tab.evaluate("window.scrollTo(0, 300)")
    try:
        still = await still_frame(tab, Budget(10))
    finally:
        await tab.evaluate("window.scrollTo(0, 0)")
    assert still.seq == 0 and still.data.startswith("/9j/")
    assert still.meta["deviceWidth"] == 1280 and still.meta["deviceHeight"] == 720
    assert still.meta["scrollOffsetY"] == 300 and still.meta["pageScaleFactor"] == 1
    assert jpeg_size(base64.b64decode(still.data)) == (1280, 720)
