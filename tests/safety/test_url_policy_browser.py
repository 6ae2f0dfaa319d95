"""The URL policy enforced in a real Chromium: navigate, redirects, clicks, forms, scripts,
meta refresh, popups, iframes (OOPIFs included), subresources, and the dialog bridge."""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote

import pytest
import pytest_asyncio

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config, PolicyConfig
from tabwarden.errors import InvalidURL, PolicyDenied
from tabwarden.safety.guard import PolicyDecision
from tabwarden.safety.url_policy import parse_url
from tests.fakes.cdp_proxy import CDPProxy

pytestmark = pytest.mark.browser

# 169.254.169.254 in full-width digits (U+FF10…), which URL parsing maps to ASCII.
FULL_WIDTH = "".join(chr(0xFF10 + int(c)) if c.isdigit() else c for c in "169.254.169.254")

METADATA = "http://169.254.169.254/latest/meta-data/"


def _launch(tmp: Path, *, receipt_diff: str = "auto", **policy: object) -> tabwarden.SessionStart:
    config = Config(policy=PolicyConfig.model_validate(policy))
    config.browser.receipt_diff = receipt_diff  # type: ignore[assignment]
    return tabwarden.launch(isolated=True, config=config, workspace=tmp)


@pytest_asyncio.fixture(scope="module")
async def guarded(tmp_path_factory) -> AsyncIterator[tabwarden.BrowserSession]:
    """Deny localhost (the ``other_origin`` server); files inside the workspace allowed.
    Receipts without a diff are quick: they must still wait for a popup to be judged."""
    workspace = tmp_path_factory.mktemp("workspace")
    async with _launch(workspace, receipt_diff="off", deny=["localhost"], allow_file=True) as s:
        yield s


async def _decision(
    session: tabwarden.BrowserSession, what: str, since: float, **match: object
) -> PolicyDecision:
    """The first decision made after ``since`` with the given fields (waits for it)."""
    budget = Budget(10)
    while True:
        for decision in session.policy_decisions():
            if decision.at >= since and all(getattr(decision, k) == v for k, v in match.items()):
                return decision
        budget.check(f"waiting for the policy to judge {what}: {session.policy_decisions()}")
        await budget.sleep(0.02)


# ---- tabwarden's own navigations --------------------------------------------------------


async def test_javascript_urls_are_refused_before_anything_is_sent(browser):
    before = len(await browser.tabs())
    for call in (browser.new_tab, browser.open):
        with pytest.raises(InvalidURL, match="javascript: URLs are not navigations") as info:
            await call("javascript:alert(document.cookie)")
        assert "evaluate" in info.value.hint
    assert len(await browser.tabs()) == before
    assert browser.check_url("javascript:alert(1)").rule == "scheme javascript: is never allowed"


async def test_file_urls_are_off_by_default(browser, tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<title>Local</title>")
    before = len(await browser.tabs())
    with pytest.raises(PolicyDenied, match=r"file: URLs are off \(policy\.allow_file\)"):
        await browser.new_tab(page.as_uri())
    assert len(await browser.tabs()) == before  # no tab was opened for it


async def test_file_urls_only_inside_the_workspace_when_enabled(guarded, tmp_path):
    workspace = guarded.paths.root
    inside = workspace / "inside.html"
    outside = tmp_path / "outside.html"
    outside.write_text("<title>Outside</title><p>secret</p>")
    inside.write_text(f'<title>Inside</title><iframe src="{outside.as_uri()}"></iframe>')
    tab = await guarded.new_tab()
    with pytest.raises(PolicyDenied, match="file outside the workspace") as info:
        await tab.navigate(outside.as_uri())
    assert str(workspace) in info.value.hint
    since = time.time()
    result = await tab.navigate(inside.as_uri())
    assert result.title == "Inside"
    # The page may not pull the outside file in as a frame either.
    frame = await _decision(guarded, "the iframe", since, kind="frame")
    assert not frame.allowed and frame.url == outside.as_uri()
    assert frame.rule.startswith("file outside the workspace")


async def test_a_redirect_to_the_metadata_endpoint_is_blocked(browser, server):
    tab = await browser.new_tab(server.url("/index.html"))
    since = time.time()
    url = server.url("/redirect?to=" + quote(METADATA + "iam/?token=secret-token", safe=""))
    with pytest.raises(PolicyDenied) as info:
        await tab.navigate(url)
    message = str(info.value)
    assert f"{METADATA}iam/" in message and "cloud metadata endpoint" in message
    assert "secret-token" not in message
    first = await _decision(browser, "the redirect", since, url=server.url("/redirect"))
    assert first.allowed and first.kind == "navigation"
    blocked = await _decision(browser, "the metadata hop", since, allowed=False)
    assert blocked.url == f"{METADATA}iam/" and blocked.tab_id == tab.id
    # Chromium's blocked page commits after Page.navigate has answered: wait for it.
    await tab.wait(text="169.254.169.254 is blocked", timeout_ms=5000)


async def test_a_reload_or_back_that_leads_to_the_metadata_endpoint_is_denied(browser, server):
    # The page redirects to the metadata endpoint only when it is visited again: a
    # reload and a history step are judged like any navigation, and say so.
    tab = await browser.new_tab()
    for step, key in (("reload", "reload-key"), ("back", "back-key")):
        url = server.url(f"/once-then-redirect?key={key}&to=" + quote(METADATA, safe=""))
        assert (await tab.navigate(url)).title == "Once"
        if step == "reload":
            with pytest.raises(PolicyDenied, match="cloud metadata endpoint"):
                await tab.reload()
        else:
            await tab.navigate(server.url("/second.html"))
            with pytest.raises(PolicyDenied, match="cloud metadata endpoint"):
                await tab.back()


async def test_every_redirect_hop_is_judged_again(browser, server):
    tab = await browser.new_tab()
    since = time.time()
    inner = "/redirect?to=" + quote("/redirect?to=/second.html", safe="")
    result = await tab.navigate(server.url(inner))
    assert result.title == "Second page"
    await _decision(browser, "the last hop", since, url=server.url("/second.html"))
    hops = [d.url for d in browser.policy_decisions(tab_id=tab.id) if d.at >= since]
    assert hops == [server.url("/redirect")] * 2 + [server.url("/second.html")]


async def test_a_denied_host_is_refused_with_the_rule(guarded, other_origin):
    tab = await guarded.new_tab()
    url = other_origin.url("/index.html?session=abc")
    with pytest.raises(PolicyDenied) as info:
        await tab.navigate(url.replace("http://", "http://user:pw@"))
    assert info.value.message == (
        f"navigation to {other_origin.url('/index.html')} blocked by policy: "
        "deny list entry localhost"
    )
    assert "policy.deny" in info.value.hint
    with pytest.raises(PolicyDenied):
        await guarded.new_tab(url)


# ---- navigations pages make --------------------------------------------------------------


async def test_a_click_on_a_metadata_link_is_blocked_and_the_receipt_says_so(browser, server):
    tab = await browser.new_tab(server.url("/policy_links.html?to=" + quote(METADATA)))
    receipt = await tab.click("#link")
    line = f"navigation blocked by policy: {METADATA} (cloud metadata endpoint)"
    assert receipt.policy_blocks == [line]
    assert line in receipt.text() and receipt.to_dict()["policy_blocks"] == [line]
    assert "navigated to" not in receipt.text()  # it was refused, not loaded
    snapshot = await tab.snapshot()
    assert "169.254.169.254 is blocked" in snapshot.text  # Chromium's own blocked page


async def test_a_form_to_the_metadata_endpoint_is_blocked_without_its_query(browser, server):
    tab = await browser.new_tab(server.url("/policy_links.html?to=" + quote(METADATA)))
    receipt = await tab.click("#submit")
    assert receipt.policy_blocks == [
        f"navigation blocked by policy: {METADATA} (cloud metadata endpoint)"
    ]
    assert all("form-secret" not in d.url for d in browser.policy_decisions())


async def test_a_script_navigation_to_a_denied_host_is_blocked(guarded, server, other_origin):
    target = other_origin.url("/index.html")
    tab = await guarded.new_tab(server.url("/policy_links.html?to=" + quote(target)))
    receipt = await tab.click("#script")
    assert receipt.policy_blocks == [
        f"navigation blocked by policy: {target} (deny list entry localhost)"
    ]
    assert (await tab.snapshot()).text.count("Test home") == 0


async def test_a_meta_refresh_to_the_metadata_endpoint_is_blocked(browser, server):
    since = time.time()
    tab = await browser.new_tab(server.url("/policy_refresh.html?to=" + quote(METADATA)))
    blocked = await _decision(browser, "the refresh", since, allowed=False, tab_id=tab.id)
    assert blocked.url == METADATA and blocked.kind == "navigation"


@pytest.mark.parametrize("button", ["#popup", "#blank"])
async def test_a_popup_to_a_denied_host_is_blocked_and_reported(
    guarded, server, other_origin, button
):
    target = other_origin.url("/index.html")
    tab = await guarded.new_tab(server.url("/policy_links.html?to=" + quote(target)))
    receipt = await tab.click(button)
    assert len(receipt.new_tabs) == 1
    popup = receipt.new_tabs[0]
    assert receipt.policy_blocks == [
        f"popup {popup} blocked by policy: {target} (deny list entry localhost)"
    ]
    decision = guarded.policy_decisions(tab_id=popup, blocked_only=True)[-1]
    assert decision.opener_tab_id == tab.id and decision.tab_id == popup
    opened = guarded.get_tab(popup)
    assert "Test home" not in (await opened.snapshot()).text


async def test_an_iframe_of_a_denied_host_is_blocked(guarded, server, other_origin):
    since = time.time()
    src = other_origin.url("/index.html")
    tab = await guarded.new_tab(server.url("/policy_frame.html?src=" + quote(src)))
    frame = await _decision(guarded, "the iframe", since, kind="frame", tab_id=tab.id)
    assert not frame.allowed and frame.url == src and frame.frame_id != tab.target_id


async def test_a_cross_origin_frame_navigating_itself_is_judged_in_its_own_session(
    browser, server, other_origin
):
    inner = other_origin.url("/policy_links.html?to=" + quote(METADATA))
    tab = await browser.new_tab(server.url("/policy_frame.html?src=" + quote(inner)))
    await tab.snapshot()  # every frame attached and set up
    oopif = next(f for f in tab.frames.frames() if f.is_oopif)
    since = time.time()
    await tab.evaluate("document.getElementById('link').click()", frame_id=oopif.frame_id)
    blocked = await _decision(browser, "the frame's navigation", since, allowed=False)
    assert blocked.kind == "frame" and blocked.url == METADATA and blocked.tab_id == tab.id
    # Chromium pauses this request on the OOPIF's own session (the frame's first
    # document was paused on the page's): without Fetch there, it would go through.
    assert blocked.frame_id == oopif.frame_id


# ---- allow lists and subresources -----------------------------------------------------------


async def test_an_allow_list_lets_only_its_hosts_through(server, other_origin, tmp_path):
    async with _launch(tmp_path, allow=["127.0.0.1"]) as session:
        tab = await session.new_tab(server.url("/index.html"))
        assert tab.title == "Test home"
        with pytest.raises(PolicyDenied, match="not on the allow list") as info:
            await tab.navigate(other_origin.url("/index.html"))
        assert "127.0.0.1" in info.value.hint
        link = other_origin.url("/second.html")
        await tab.navigate(server.url("/policy_links.html?to=" + quote(link)))
        receipt = await tab.click("#link")
        assert receipt.policy_blocks == [
            f"navigation blocked by policy: {link} (not on the allow list)"
        ]


async def _outcome(tab: tabwarden.Tab) -> dict[str, str]:
    budget = Budget(10)
    while True:
        outcome = (await tab.evaluate("window.outcome")).value
        if len(outcome) == 2:
            return outcome
        budget.check(f"waiting for the page's image and script: {outcome}")
        await budget.sleep(0.02)


async def test_subresources_are_judged_only_when_asked(
    browser, guarded, server, other_origin, tmp_path
):
    page = server.url("/policy_subresources.html?from=" + quote(other_origin.base))
    # Documents only: a denied host's image and script still load (and the control works).
    for session in (browser, guarded):
        tab = await session.new_tab(page)
        assert await _outcome(tab) == {"image": "loaded", "script": "ran"}
    async with _launch(tmp_path, deny=["localhost"], intercept_subresources=True) as session:
        tab = await session.new_tab(page)
        assert await _outcome(tab) == {"image": "failed", "script": "failed"}
        blocked = session.policy_decisions(tab_id=tab.id, blocked_only=True)
        assert {(d.kind, d.resource_type, d.rule) for d in blocked} == {
            ("subresource", "Image", "deny list entry localhost"),
            ("subresource", "Script", "deny list entry localhost"),
        }
        # Allowed requests are judged too, but only logged: the ring keeps documents.
        assert all(d.kind != "subresource" or not d.allowed for d in session.policy_decisions())


# ---- the URL parser agrees with Chromium's -------------------------------------------------

SPELLINGS = [
    "http://0xA9FEA9FE/",
    "http://2852039166/",
    "http://0251.0376.0251.0376/",
    "http://169.254.43518/",
    "http://169.16689662/",
    "http://169%2e254%2e169%2e254/",
    f"http://{FULL_WIDTH}/",
    "http://169。254。169。254/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::169.254.169.254]/",
    "http://169.254.169.254\\@example.com/",
    "http://example.com\\@169.254.169.254/",
    "http://user:pw@169.254.169.254:80/",
    "http:169.254.169.254/",
    "http://METADATA.google.internal./",
    "http://012.0.0.1/",
    "http://127.1/",
    "http://1.2.3.4.5/",
    "http://256.1.1.1/",
    "http://1.08/",
    "http://0x100000000/",
    "http://BÜCHER.example/",
]


async def test_urls_are_read_the_way_chromium_reads_them(browser):
    tab = await browser.new_tab()
    hosts = (
        await tab.evaluate(
            function="urls => urls.map(u => { try { return new URL(u).hostname } "
            "catch { return null } })",
            args=[SPELLINGS],
        )
    ).value
    for url, chromium in zip(SPELLINGS, hosts, strict=True):
        parsed = parse_url(url)
        assert parsed is not None
        if chromium is None:
            assert not parsed.valid_host, f"Chromium refuses {url}, the policy read {parsed}"
            continue
        assert parsed.valid_host, f"Chromium reads {url} as {chromium}"
        if parsed.address is not None:
            assert ipaddress.ip_address(chromium.strip("[]")) == parsed.address, url
        else:
            assert chromium == parsed.host.encode("idna").decode(), url


# ---- logging and the dialog bridge ------------------------------------------------------------


async def test_decisions_are_logged_without_credentials_or_query(browser, caplog):
    tab = await browser.new_tab()
    caplog.set_level(logging.DEBUG, logger="tabwarden.policy")
    with pytest.raises(PolicyDenied) as info:
        await tab.navigate("http://admin:hunter2@169.254.169.254/latest?token=abc#x")
    logged = [r.getMessage() for r in caplog.records if r.name == "tabwarden.policy"]
    assert logged == [
        f"blocked navigation http://169.254.169.254/latest in tab {tab.id}: cloud metadata endpoint"
    ]
    for text in (*logged, str(info.value)):
        assert "hunter2" not in text and "admin" not in text and "abc" not in text


async def test_the_dialog_bridge_and_the_policy_share_one_fetch_dispatcher(
    browser, server, other_origin
):
    proxy = CDPProxy(browser.endpoint.ws_url, auto_dismiss_dialogs=True, dismiss_delay_s=0.005)
    await proxy.start()
    config = Config(policy=PolicyConfig(deny=["localhost"], intercept_subresources=True))
    try:
        async with tabwarden.attach(
            proxy.ws_url, consent=True, dialog_bridge=True, config=config
        ) as guest:
            tab = await guest.new_tab()
            commands = tab.page.setup_commands(top_level=True)
            assert [m for m, _ in commands].count("Fetch.enable") == 1
            tab = await guest.new_tab(server.url("/dialogs.html"))
            receipt = await tab.click(_button(await tab.snapshot(), "Confirm"))
            assert receipt.dialog is not None and receipt.dialog.source == "bridge"
            await tab.dialog("accept")
            budget = Budget(5)
            while tab.title != "confirm=true":
                budget.check(f"waiting for the page to see the answer (title {tab.title!r})")
                await guest.tabs()
                await budget.sleep(0.02)
            assert proxy.dismissed == []
            with pytest.raises(PolicyDenied, match="deny list entry localhost"):
                await tab.navigate(other_origin.url("/index.html"))
            # The bridge's own requests are not the policy's: never judged, never blocked.
            assert all("tabwarden.invalid" not in d.url for d in guest.policy_decisions())
    finally:
        await proxy.stop()


def _button(snapshot, name: str) -> str:
    for node in snapshot.root.walk():
        if node.name == name and node.ref:
            return node.ref
    raise AssertionError(f"no {name!r} in:\n{snapshot.text}")
