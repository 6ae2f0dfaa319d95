"""The dialog bridge through a real proxy that auto-dismisses native dialogs within 10 ms."""

from __future__ import annotations

import pytest

import tabwarden
from tabwarden.budget import Budget
from tests.fakes.cdp_proxy import CDPProxy


def _ref(snapshot, name: str) -> str:
    for node in snapshot.root.walk():
        if node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no {name!r} in:\n{snapshot.text}")


async def _title(session, tab, expected: str) -> None:
    budget = Budget(5)
    while tab.title != expected:
        budget.check(f"waiting for the title {expected!r} (have {tab.title!r})")
        await session.tabs()
        await budget.sleep(0.02)


@pytest.fixture
async def proxy(browser):
    proxy = CDPProxy(browser.endpoint.ws_url, auto_dismiss_dialogs=True, dismiss_delay_s=0.005)
    await proxy.start()
    yield proxy
    await proxy.stop()


async def test_without_the_bridge_the_proxy_silently_answers_for_the_page(proxy, server):
    async with tabwarden.attach(proxy.ws_url, consent=True) as guest:
        tab = await guest.new_tab(server.url("/dialogs.html"))
        await tab.click(_ref(await tab.snapshot(), "Confirm"))
        await _title(guest, tab, "confirm=false")  # the bug the bridge exists for
        assert proxy.dismissed == [("confirm", "Sure?")]
        closed = guest.state(tab).recent_dialogs[-1]
        assert closed.closed_by == "remote" and closed.dialog.source == "native"


@pytest.mark.parametrize(
    ("button", "answer", "prompt_text", "title"),
    [
        ("Confirm", "accept", None, "confirm=true"),
        ("Confirm", "dismiss", None, "confirm=false"),
        ("Prompt", "accept", "Ada", "prompt=Ada"),
        ("Prompt", "dismiss", None, "prompt=null"),
        ("Alert", "accept", None, "after alert"),
    ],
)
async def test_bridge_round_trips_every_dialog_kind_exactly(
    proxy, server, button, answer, prompt_text, title
):
    async with tabwarden.attach(proxy.ws_url, consent=True, dialog_bridge=True) as guest:
        tab = await guest.new_tab(server.url("/dialogs.html"))
        receipt = await tab.click(_ref(await tab.snapshot(), button))
        dialog = receipt.dialog
        assert dialog is not None and dialog.source == "bridge"
        assert dialog.type == button.lower()
        if button == "Prompt":
            assert dialog.default_prompt == "anon"
        assert guest.state(tab).bridge == "on"
        closed = await tab.dialog(answer, prompt_text=prompt_text)
        assert closed.closed_by == "agent"
        await _title(guest, tab, title)
        assert proxy.dismissed == []  # no native dialog ever opened


async def test_bridge_covers_cross_origin_frames(proxy, server, other_origin):
    async with tabwarden.attach(proxy.ws_url, consent=True, dialog_bridge=True) as guest:
        tab = await guest.new_tab(server.url(f"/dialogs.html?child={other_origin.base}"))
        snap = await tab.snapshot()
        cross = [n.ref for n in snap.root.walk() if n.name == "Frame alert"][1]
        receipt = await tab.click(cross)
        dialog = receipt.dialog
        assert dialog is not None and dialog.source == "bridge"
        assert dialog.message == "from cross"
        frame = tab.frames.get(dialog.frame_id)
        assert frame is not None and frame.is_oopif
        await tab.dialog("accept")
        assert tab.pending_dialogs == [] and proxy.dismissed == []
