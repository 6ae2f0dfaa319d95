"""The workbench page shows and drives a Firefox session: an agent session on the Firefox
engine drives a local page through the tool registry while a Chromium, driven by
tabwarden itself, opens the workbench and checks what a person sees and does there."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

import tabwarden
from tabwarden.errors import PersonInControl
from tabwarden.firefox.page import FirefoxPage
from tabwarden.manager import SessionManager
from tabwarden.surfaces.workbench import Workbench
from tabwarden.tab import Tab
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tests.local_server import LocalServer
from tests.workbench_page import WAIT_S, page_value, ref_in, until_shown

pytestmark = pytest.mark.browser

NAME = "fx-agent"


@dataclass
class FirefoxBench:
    manager: SessionManager
    agent: ToolContext
    viewer: Tab

    async def call(self, tool: str, **arguments: Any) -> Any:
        return await call_tool(self.agent, f"browser_{tool}", arguments)

    async def agent_tab(self) -> FirefoxPage:
        return await self.agent.firefox_tab()

    async def page(self, expression: str) -> Any:
        """Evaluate in the workbench page."""
        return await page_value(self.viewer, expression)

    async def until(self, expression: str, what: str) -> Any:
        return await until_shown(self.viewer, expression, what)

    async def ref(self, role_and_name: str) -> str:
        return await ref_in(self.viewer, role_and_name)


@pytest_asyncio.fixture(scope="module")
async def fx(server: LocalServer) -> AsyncIterator[FirefoxBench]:
    config = tabwarden.load_config().model_copy(deep=True)
    config.browser.isolated = True
    config.browser.headless = True
    config.browser.engine = "firefox"
    async with (
        SessionManager(config) as manager,
        Workbench() as served,
        tabwarden.launch(isolated=True, headless=True, name="fx-workbench-viewer") as viewer,
    ):
        served.watch_manager(manager)
        agent = ToolContext(manager, NAME)
        await call_tool(agent, "browser_navigate", {"url": server.url("/workbench_target.html")})
        viewer_tab = await viewer.current_tab()
        await viewer_tab.navigate(f"{served.url}#/s/{NAME}")
        yield FirefoxBench(manager, agent, viewer_tab)


async def _ref_of(fx: FirefoxBench, name: str) -> str:
    snapshot = (await fx.call("snapshot")).text
    return next(
        line.split("[ref=", 1)[1].split("]", 1)[0]
        for line in snapshot.splitlines()
        if f'"{name}"' in line
    )


async def _until_capturing(tab: FirefoxPage, wanted: bool) -> None:
    deadline = time.monotonic() + WAIT_S
    while tab.live_view.capturing is not wanted:
        assert time.monotonic() < deadline, f"the capture loop never became {wanted}"
        await asyncio.sleep(0.02)


async def test_the_firefox_session_is_listed_with_its_engine_and_a_thumbnail(
    fx: FirefoxBench,
) -> None:
    await fx.page("location.hash = '#/'")
    card = f"document.querySelector('[data-testid=session-card][data-session=\"{NAME}\"]')"
    engine = await fx.until(
        f"{card}?.querySelector('[data-testid=session-engine]')?.dataset.engine", "the card"
    )
    assert engine == "firefox"
    text = await fx.page(f"{card}.innerText")
    assert "1 tab" in text and "throwaway profile" in text and "Firefox/" in text
    await fx.until(
        f"{card}.querySelector('.thumb img')?.src.startsWith('data:image/jpeg;base64,/9j/')",
        "the thumbnail (a JPEG)",
    )
    await fx.page(f"location.hash = '#/s/{NAME}'")
    await fx.until("window.__workbench.lastFrameMeta", "a frame of the Firefox session")


async def test_frames_come_while_watched_and_the_capture_stops_when_the_viewer_leaves(
    fx: FirefoxBench,
) -> None:
    tab = await fx.agent_tab()
    await fx.until("window.__workbench.lastFrameMeta", "a frame")
    await _until_capturing(tab, True)
    meta = await fx.page("window.__workbench.lastFrameMeta")
    viewport = (await tab.evaluate("[innerWidth, innerHeight]")).value
    assert [meta["deviceWidth"], meta["deviceHeight"]] == viewport
    seen = await fx.page("window.__workbench.frames")
    await fx.call("evaluate", expression="document.body.append('a change to paint')")
    await fx.until(f"window.__workbench.frames > {seen}", "a frame of the change")
    await fx.page("location.hash = '#/'")  # the viewer leaves the session
    await _until_capturing(tab, False)
    await fx.page(f"location.hash = '#/s/{NAME}'")
    await _until_capturing(tab, True)  # and it starts again for the next viewer
    await fx.until("window.__workbench.lastFrameMeta", "frames again")


async def test_the_agents_boxes_lie_on_the_elements_it_saw_even_scrolled(
    fx: FirefoxBench,
) -> None:
    tab = await fx.agent_tab()
    await tab.evaluate("scrollTo(0, 600)")
    lower_ref = await _ref_of(fx, "Lower button")
    await fx.until(
        "window.__workbench.lastFrameMeta && window.__workbench.lastFrameMeta.scrollOffsetY === 600"
        f" && window.__workbench.overlayBoxes().some((b) => b.ref === {lower_ref!r})",
        "the boxes of the scrolled page",
    )
    expected = (
        await tab.evaluate(
            "(() => { const r = document.querySelector('#lower').getBoundingClientRect();"
            " return {x: r.left, y: r.top, w: r.width, h: r.height}; })()"
        )
    ).value
    live = await fx.page("window.__workbench.liveRect()")
    meta = await fx.page("window.__workbench.lastFrameMeta")
    scale = live["width"] / meta["deviceWidth"]
    boxes = await fx.page("window.__workbench.overlayBoxes()")
    box = next(b for b in boxes if b["ref"] == lower_ref)
    assert box["left"] == pytest.approx(live["left"] + expected["x"] * scale, abs=2)
    assert box["top"] == pytest.approx(live["top"] + expected["y"] * scale, abs=2)
    assert box["width"] == pytest.approx(expected["w"] * scale, abs=2)
    assert box["height"] == pytest.approx(expected["h"] * scale, abs=2)
    await tab.evaluate("scrollTo(0, 0)")


async def test_an_agents_click_is_drawn_and_listed_in_the_timeline(fx: FirefoxBench) -> None:
    top_ref = await _ref_of(fx, "Top button")
    await fx.call("click", ref=top_ref)
    mark = await fx.until(
        "[...document.querySelectorAll('[data-testid=action-mark]')]"
        f".map((m) => m.dataset.ref).find((r) => r === {top_ref!r})",
        "the click's mark",
    )
    assert mark == top_ref
    entry = await fx.until(
        "[...document.querySelectorAll('[data-testid=timeline-entry]')]"
        ".find((e) => e.dataset.tool.endsWith('click') && e.dataset.state === 'ok')"
        "?.dataset.callId",
        "the click in the timeline",
    )
    await fx.page(
        f"document.querySelector('[data-testid=timeline-entry][data-call-id=\"{entry}\"]').click()"
    )
    receipt = await fx.until(
        "document.querySelector('[data-testid=call-receipt]').textContent", "the receipt"
    )
    assert "Top button" in receipt


async def test_a_pending_prompt_is_answered_from_the_page(fx: FirefoxBench) -> None:
    tab = await fx.agent_tab()
    await tab.evaluate("document.getElementById('ask').click()")
    await fx.until(
        "!document.querySelector('[data-testid=dialog-banner]').hidden", "the pending prompt"
    )
    assert await fx.page("document.querySelector('[data-testid=dialog-prompt]').value") == "Ada"
    await fx.viewer.fill(await fx.ref('textbox "Prompt answer"'), "Grace")
    await fx.viewer.click(await fx.ref('button "Accept"'))
    await fx.until(
        "document.querySelector('[data-testid=dialog-banner]').hidden", "the prompt closed"
    )
    closed_by = await fx.until(
        "document.querySelector('[data-testid=recent-dialog]')?.dataset.closedBy",
        "the closed prompt among recent dialogs",
    )
    assert closed_by == "user"
    deadline = time.monotonic() + WAIT_S
    while (await tab.evaluate("document.getElementById('answer').textContent")).value != (
        "answer: Grace"
    ):
        assert time.monotonic() < deadline, "the page never got the person's answer"
        await asyncio.sleep(0.05)


async def test_a_person_takes_over_types_into_the_page_and_the_agent_is_told(
    fx: FirefoxBench,
) -> None:
    tab = await fx.agent_tab()
    await tab.evaluate("document.getElementById('typed').value = ''")
    await fx.viewer.click(await fx.ref('button "Take over"'))
    await fx.until(
        "!document.querySelector('[data-testid=takeover-banner]').hidden", "the takeover banner"
    )
    top_ref = await _ref_of(fx, "Top button")
    with pytest.raises(PersonInControl):  # the agent's input waits, then says why
        await fx.call("click", ref=top_ref, timeout_ms=300)
    live = await fx.ref('"Live view"')
    # The field sits at the middle of the page's viewport: a click on the middle of the
    # live view lands on it.
    await fx.viewer.click(live)
    await fx.viewer.type("hi there", ref=live)
    deadline = time.monotonic() + WAIT_S
    while (await tab.evaluate("document.getElementById('typed').value")).value != "hi there":
        assert time.monotonic() < deadline, "the typed text never reached the Firefox page"
        await asyncio.sleep(0.05)
    await fx.viewer.click(await fx.ref('button "Hand back"'))
    await fx.until(
        "document.querySelector('[data-testid=takeover-banner]').hidden", "control handed back"
    )
    reply = await fx.call("console")
    assert f"a person acted in tab {tab.id} (clicked, typed)" in reply.notice
    again = await fx.call("console")
    assert "person" not in again.notice  # told once


async def test_the_address_bar_and_the_drawer_work_on_firefox(
    fx: FirefoxBench, server: LocalServer
) -> None:
    tab = await fx.agent_tab()
    target = server.url("/index.html")
    await fx.page(
        "(() => { const a = document.querySelector('[data-testid=address-url]');"
        f" a.value = {target!r};"
        " document.querySelector('[data-testid=address-form]').requestSubmit(); })()"
    )
    deadline = time.monotonic() + WAIT_S
    while tab.url != target or tab.load_state() != "complete":
        assert time.monotonic() < deadline, "the Firefox tab never went to the address"
        await asyncio.sleep(0.05)
    await fx.until(
        "document.querySelector('[data-testid=tab-strip-tab][aria-selected=true]')"
        "?.innerText.length > 0 && document.querySelector('[data-testid=address-url]').value"
        ".endsWith('/index.html')",
        "the new address",
    )
    await fx.page("document.querySelector('[data-testid=nav-back]').click()")
    await fx.until(
        "document.querySelector('[data-testid=address-url]').value"
        ".endsWith('/workbench_target.html')",
        "the page gone back to",
    )
    # The page's own request and a console message reach the drawer as they happen.
    await tab.evaluate("console.log('said in Firefox'); fetch('/status/404?from=firefox')")
    await fx.page("document.querySelector('[data-testid=diag-tab-console]').click()")
    await fx.until(
        "[...document.querySelectorAll('[data-testid=console-row]')]"
        ".some((r) => r.innerText.includes('said in Firefox'))",
        "the console message",
    )
    await fx.page("document.querySelector('[data-testid=diag-tab-network]').click()")
    await fx.until(
        "[...document.querySelectorAll('[data-testid=network-row]')]"
        ".some((r) => r.innerText.includes('from=firefox') && r.innerText.includes('404'))",
        "the request",
    )
    await fx.page(
        "[...document.querySelectorAll('[data-testid=network-row]')]"
        ".find((r) => r.innerText.includes('from=firefox')).click()"
    )
    detail = await fx.until(
        "!document.querySelector('[data-testid=network-detail]').hidden"
        " && !document.querySelector('[data-testid=network-detail]').innerText.includes('Loading')"
        " && document.querySelector('[data-testid=network-detail]').innerText",
        "the request's details",
    )
    assert "from=firefox" in detail
    await tab.evaluate("document.cookie = 'flavour=oat'")
    await fx.page("document.querySelector('[data-testid=diag-tab-storage]').click()")
    await fx.page("document.querySelector('[data-testid=storage-load]').click()")
    cookies = await fx.until(
        "document.querySelector('[data-testid=storage-cookies]')?.innerText", "the cookies"
    )
    assert "flavour" in cookies
