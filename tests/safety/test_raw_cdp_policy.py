"""The URL policy holds for pages opened by raw CDP, by page script, by links opened in a
new tab and by other clients, and raw commands that carry a URL or a file are judged."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import pytest_asyncio

import tabwarden
from tabwarden.budget import Budget
from tabwarden.cdp.connection import CDPConnection
from tabwarden.cdp.session import CDPSession
from tabwarden.config import Config, PolicyConfig
from tabwarden.errors import InvalidArgument, PathNotAllowed, PolicyDenied
from tabwarden.safety.guard import PolicyDecision
from tests.local_server import PAGES, LocalServer

pytestmark = pytest.mark.browser

SECRET = "tabwarden-raw-cdp-secret"
METADATA = "http://169.254.169.254/latest/meta-data/"
BLOCKED_PAGE = "is blocked"  # Chromium's page for a request the guard failed


@dataclass(frozen=True)
class Place:
    """Somewhere the policy forbids: its URL, the rule that names it, and text that
    must never be readable ("" when nothing answers there)."""

    url: str
    rule: str
    content: str


@pytest.fixture(scope="module")
def outside_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("outside") / "secret.html"
    page.write_text(f"<title>Secret</title><p>{SECRET}</p>")
    return page


@pytest_asyncio.fixture(scope="module")
async def guarded(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tabwarden.BrowserSession]:
    """Deny localhost (the ``other_origin`` server); files only inside the workspace."""
    workspace = tmp_path_factory.mktemp("workspace")
    shutil.copy(PAGES / "policy_links.html", workspace / "policy_links.html")
    config = Config(policy=PolicyConfig(deny=["localhost"], allow_file=True))
    config.browser.receipt_diff = "off"
    async with tabwarden.launch(isolated=True, config=config, workspace=workspace) as session:
        yield session


@pytest_asyncio.fixture(autouse=True)
async def _close_new_tabs(guarded: tabwarden.BrowserSession) -> AsyncIterator[None]:
    """Each test starts from the tabs the one before found: what one test let through
    cannot be blamed on the next."""
    before = {tab.id for tab in await guarded.tabs()}
    yield
    for tab in await guarded.tabs():
        if tab.id not in before:
            await tab.close()


def _place(name: str, outside_file: Path, other_origin: LocalServer) -> Place:
    if name == "file":
        return Place(outside_file.as_uri(), "file outside the workspace", SECRET)
    if name == "metadata":
        return Place(METADATA, "cloud metadata endpoint", "")
    return Place(
        other_origin.url("/policy_forbidden.html"),
        "deny list entry localhost",
        "tabwarden-forbidden-host",
    )


@pytest.fixture(params=["file", "metadata", "denied host"])
def place(request: pytest.FixtureRequest, outside_file: Path, other_origin: LocalServer) -> Place:
    return _place(request.param, outside_file, other_origin)


@pytest.fixture(params=["metadata", "denied host"])
def remote_place(
    request: pytest.FixtureRequest, outside_file: Path, other_origin: LocalServer
) -> Place:
    """A forbidden host (a redirect cannot lead to a file: Chromium refuses it itself)."""
    return _place(request.param, outside_file, other_origin)


def _redirect(server: LocalServer, place: Place, *, after_ms: int = 0) -> str:
    return server.url(f"/redirect?ms={after_ms}&to=" + quote(place.url, safe=""))


async def _new_tab(
    session: tabwarden.BrowserSession, before: set[str]
) -> tabwarden.Tab:  # the one tab not in ``before``
    budget = Budget(10)
    while True:
        new = [tab for tab in await session.tabs() if tab.id not in before]
        if new:
            assert len(new) == 1, new
            return new[0]
        budget.check("waiting for the new tab")
        await budget.sleep(0.02)


async def _blocked(session: tabwarden.BrowserSession, tab_id: str, place: Place) -> PolicyDecision:
    """The guard's decision on ``tab_id``'s page (waits for it)."""
    budget = Budget(10)
    while True:
        for decision in session.policy_decisions(blocked_only=True):
            if decision.tab_id == tab_id and decision.kind == "navigation":
                return decision
        budget.check(f"waiting for a block in {tab_id}: {session.policy_decisions()}")
        await budget.sleep(0.02)


async def _assert_blocked_and_unreadable(
    session: tabwarden.BrowserSession, tab: tabwarden.Tab, place: Place
) -> None:
    """``tab`` was sent to ``place``: the guard blocked it naming the rule, it shows
    Chromium's blocked page, and no tab shows what is there."""
    decision = await _blocked(session, tab.id, place)
    assert not decision.allowed and decision.url == place.url
    assert decision.rule.startswith(place.rule)
    await tab.wait(text=BLOCKED_PAGE, timeout_ms=10_000)
    await _assert_unreadable(session, place)


async def _assert_unreadable(session: tabwarden.BrowserSession, place: Place) -> None:
    for tab in await session.tabs():
        text = await tab.get_text()
        snapshot = (await tab.snapshot()).text
        for shown in (text, snapshot):
            assert SECRET not in shown and (not place.content or place.content not in shown)


Send = Callable[..., Awaitable[dict[str, Any]]]


async def _sender(session: tabwarden.BrowserSession, server: LocalServer, on: str) -> Send:
    if on == "browser":
        return session.cdp
    tab = await session.new_tab(server.url("/index.html"))
    return tab.cdp


# ---- Target.createTarget, on the browser and on a tab -------------------------------------


@pytest.mark.parametrize("on", ["browser", "tab"])
async def test_create_target_refuses_a_forbidden_url_before_a_tab_opens(guarded, server, place, on):
    send = await _sender(guarded, server, on)
    before = {tab.id for tab in await guarded.tabs()}
    with pytest.raises(PolicyDenied) as info:
        await send("Target.createTarget", {"url": place.url})
    assert info.value.message.startswith(f"Target.createTarget to {place.url} blocked by policy: ")
    assert place.rule in info.value.message
    assert {tab.id for tab in await guarded.tabs()} == before
    decision = guarded.policy_decisions(blocked_only=True)[-1]
    assert decision.url == place.url and decision.rule.startswith(place.rule)
    await _assert_unreadable(guarded, place)


@pytest.mark.parametrize("on", ["browser", "tab"])
async def test_a_target_created_on_an_allowed_url_is_judged_at_every_hop(
    guarded, server, remote_place, on
):
    send = await _sender(guarded, server, on)
    # The tab's first load starts before the tab is attached: the browser-wide guard
    # judges it, and the redirect hop to the forbidden place.
    reply = await send("Target.createTarget", {"url": _redirect(server, remote_place)})
    tab = guarded.get_tab(reply["targetId"])
    await _assert_blocked_and_unreadable(guarded, tab, remote_place)
    first = [d for d in guarded.policy_decisions(tab_id=tab.id) if d.url == server.url("/redirect")]
    assert len(first) == 1 and first[0].allowed  # judged once, by one interceptor


async def test_an_allowed_target_loads_and_each_hop_is_judged_once(guarded, server):
    inner = "/redirect?to=" + quote("/second.html", safe="")
    reply = await guarded.cdp("Target.createTarget", {"url": server.url("/redirect?to=") + inner})
    tab = guarded.get_tab(reply["targetId"])
    await tab.wait(text="Second", timeout_ms=10_000)
    hops = [d.url for d in guarded.policy_decisions(tab_id=tab.id)]
    assert hops == [server.url("/redirect")] * 2 + [server.url("/second.html")]
    # Later loads of the tab pass both interceptors: still one decision a hop.
    await tab.navigate(server.url(inner))
    hops = [d.url for d in guarded.policy_decisions(tab_id=tab.id)]
    assert hops == [server.url("/redirect")] * 2 + [server.url("/second.html")] + [
        server.url("/redirect"),
        server.url("/second.html"),
    ]


# ---- pages that page script, links and other clients open ---------------------------------


def _opener_page(session: tabwarden.BrowserSession, server: LocalServer, to: str) -> str:
    """A page whose links, buttons and form all lead to ``to``: served, or for a file
    (a served page may not open files at all), a copy in the workspace."""
    if to.startswith("file:"):
        return (session.paths.root / "policy_links.html").as_uri() + "?to=" + quote(to)
    return server.url("/policy_links.html?to=" + quote(to))


async def test_window_open_of_a_forbidden_url_is_blocked_and_reported(guarded, server, place):
    tab = await guarded.new_tab(_opener_page(guarded, server, place.url))
    receipt = await tab.click("#popup")  # window.open(to)
    assert len(receipt.new_tabs) == 1
    popup = guarded.get_tab(receipt.new_tabs[0])
    rule = (await _blocked(guarded, popup.id, place)).rule
    assert receipt.policy_blocks == [f"popup {popup.id} blocked by policy: {place.url} ({rule})"]
    await _assert_blocked_and_unreadable(guarded, popup, place)


@pytest.mark.parametrize("how", ["target=_blank", "ctrl-click", "middle-click"])
async def test_a_link_opened_in_a_new_tab_through_a_redirect_is_blocked(
    guarded, server, remote_place, how
):
    # The redirect takes a while: the click's receipt must wait for the popup's page to
    # be blocked or shown, not just for its first hop to be judged.
    redirect = _redirect(server, remote_place, after_ms=500)
    tab = await guarded.new_tab(_opener_page(guarded, server, redirect))
    before = {t.id for t in await guarded.tabs()}
    if how == "target=_blank":
        receipt = await tab.click("#blank")
        popup = receipt.new_tabs[0]
        assert receipt.policy_blocks == [
            f"popup {popup} blocked by policy: {remote_place.url} ({remote_place.rule})"
        ]
    elif how == "ctrl-click":
        # Chromium creates the tab with the URL and starts loading it before the tab
        # is attached: only the browser-wide guard sees that load.
        await tab.click("#link", modifiers=["Control"])
    else:
        await tab.click("#link", button="middle")
    opened = await _new_tab(guarded, before)
    await _assert_blocked_and_unreadable(guarded, opened, remote_place)


async def test_a_file_link_opened_in_a_new_tab_is_blocked(
    guarded, server, outside_file, other_origin
):
    place = _place("file", outside_file, other_origin)
    tab = await guarded.new_tab(_opener_page(guarded, server, place.url))
    before = {t.id for t in await guarded.tabs()}
    await tab.click("#link", modifiers=["Control"])
    opened = await _new_tab(guarded, before)
    await _assert_blocked_and_unreadable(guarded, opened, place)


async def test_a_tab_another_client_opens_is_judged_before_it_loads(guarded, server, place):
    """Another CDP client (or an extension) opens a page with a URL: the guard judges
    its first load although tabwarden only attaches to it once it is loading."""
    assert guarded.endpoint is not None
    budget = Budget(10)
    other = await CDPConnection.connect(guarded.endpoint.ws_url, budget)
    try:
        before = {t.id for t in await guarded.tabs()}
        await CDPSession(other, None).send("Target.createTarget", {"url": place.url}, budget=budget)
        opened = await _new_tab(guarded, before)
        await _assert_blocked_and_unreadable(guarded, opened, place)
    finally:
        await other.close()


# ---- raw commands that carry a URL --------------------------------------------------------


async def test_raw_page_navigate_is_judged_before_it_is_sent(guarded, server, place):
    tab = await guarded.new_tab(server.url("/index.html"))
    with pytest.raises(PolicyDenied) as info:
        await tab.cdp("Page.navigate", {"url": place.url})
    assert info.value.message == (
        f"Page.navigate to {place.url} blocked by policy: "
        f"{guarded.policy_decisions(blocked_only=True)[-1].rule}"
    )
    assert place.rule in info.value.message
    assert (await tab.navigate(server.url("/second.html"))).title == "Second page"


async def test_raw_page_navigate_to_a_page_fetch_never_pauses_is_refused(guarded, server):
    tab = await guarded.new_tab(server.url("/index.html"))
    for url in ("chrome://version/", "view-source:" + server.url("/index.html")):
        scheme = url.split(":", 1)[0]
        with pytest.raises(PolicyDenied, match=f"scheme {scheme}: is not allowed"):
            await tab.cdp("Page.navigate", {"url": url})
    assert "Test home" in await tab.get_text()  # still where it was


async def test_raw_page_navigate_blocked_on_the_way_is_policy_denied(guarded, server, remote_place):
    tab = await guarded.new_tab(server.url("/index.html"))
    with pytest.raises(PolicyDenied) as info:
        await tab.cdp("Page.navigate", {"url": _redirect(server, remote_place)})
    assert info.value.message.startswith(f"navigation to {remote_place.url} blocked by policy")
    assert remote_place.rule in info.value.message
    await _assert_blocked_and_unreadable(guarded, tab, remote_place)


async def test_a_history_entry_is_judged_by_its_url(guarded, server, remote_place):
    tab = await guarded.new_tab(server.url("/index.html"))
    with pytest.raises(PolicyDenied):  # the blocked page stays in the history
        await tab.navigate(_redirect(server, remote_place))
    await tab.navigate(server.url("/second.html"))
    history = await tab.cdp("Page.getNavigationHistory")
    entry = next(e for e in history["entries"] if e["url"] == remote_place.url)
    with pytest.raises(PolicyDenied) as info:
        await tab.cdp("Page.navigateToHistoryEntry", {"entryId": entry["id"]})
    assert info.value.message.startswith(
        f"Page.navigateToHistoryEntry to {remote_place.url} blocked by policy: {remote_place.rule}"
    )
    assert tab.url == server.url("/second.html")
    allowed = next(e for e in history["entries"] if e["url"] == server.url("/index.html"))
    await tab.cdp("Page.navigateToHistoryEntry", {"entryId": allowed["id"]})  # still goes
    await tab.wait(text="Test home", timeout_ms=10_000)


async def test_load_network_resource_is_judged(guarded, server, place):
    tab = await guarded.new_tab(server.url("/index.html"))
    with pytest.raises(PolicyDenied, match=f"Network.loadNetworkResource to .*{place.rule}"):
        await tab.cdp(
            "Network.loadNetworkResource",
            {
                "frameId": tab.target_id,
                "url": place.url,
                "options": {"disableCache": True, "includeCredentials": False},
            },
        )


async def test_a_browser_context_cannot_get_its_own_proxy(guarded):
    for name in ("proxyServer", "proxyBypassList"):
        with pytest.raises(InvalidArgument, match=f"cannot take {name} through cdp") as info:
            await guarded.cdp("Target.createBrowserContext", {name: "http://169.254.169.254:80"})
        assert "policy.deny" in info.value.hint
    context = await guarded.cdp("Target.createBrowserContext", {})
    await guarded.cdp("Target.disposeBrowserContext", context)


# ---- raw commands that carry a file -------------------------------------------------------


async def _file_input(tab: tabwarden.Tab) -> str:
    reply = await tab.cdp("Runtime.evaluate", {"expression": "document.getElementById('file')"})
    return str(reply["result"]["objectId"])


async def test_files_set_on_an_input_obey_the_upload_rules(guarded, server, outside_file):
    tab = await guarded.new_tab(server.url("/files_upload.html"))
    with pytest.raises(PathNotAllowed, match=r"DOM\.setFileInputFiles: the file to upload") as info:
        await tab.cdp(
            "DOM.setFileInputFiles",
            {"files": [str(outside_file)], "objectId": await _file_input(tab)},
        )
    assert "upload_file" in info.value.hint
    chosen = await tab.evaluate("document.getElementById('file').files.length")
    assert chosen.value == 0
    inside = guarded.paths.root / "notes.txt"
    inside.write_text("notes")
    link = guarded.paths.root / "link.txt"
    link.symlink_to(outside_file)  # inside by name, outside where it leads
    with pytest.raises(PathNotAllowed, match="it leads to"):
        await tab.cdp(
            "DOM.setFileInputFiles", {"files": [str(link)], "objectId": await _file_input(tab)}
        )
    await tab.cdp(
        "DOM.setFileInputFiles", {"files": ["notes.txt"], "objectId": await _file_input(tab)}
    )
    assert (await tab.evaluate("document.getElementById('file').files[0].name")).value == (
        "notes.txt"
    )


async def test_files_dropped_on_a_page_obey_the_upload_rules(guarded, server, outside_file):
    tab = await guarded.new_tab(server.url("/files_upload.html"))
    data = {"items": [], "files": [str(outside_file)], "dragOperationsMask": 1}
    with pytest.raises(PathNotAllowed, match=r"Input\.dispatchDragEvent: "):
        await tab.cdp(
            "Input.dispatchDragEvent", {"type": "dragEnter", "x": 5, "y": 5, "data": data}
        )
    assert data["files"] == [str(outside_file)]  # the caller's params are left alone
