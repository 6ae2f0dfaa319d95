"""Each provider end to end: its fake API (real HTTP, the documented paths, headers and
bodies) hands out the module's real Chromium, and a real session drives it through
``tabwarden.launch(backend=...)``; closing it releases the browser at the provider. The
capabilities each provider declares (docs/backends-matrix.md) are checked here too."""

from __future__ import annotations

import json

import pytest

import tabwarden
from tabwarden.backends.cloud import PROVIDERS
from tabwarden.budget import Budget
from tests.fakes.cloud_api import SIGNING_KEY

API_PROVIDERS = ["browserbase", "browser-use", "firecrawl", "steel"]

CREATE_PATHS = {
    "browserbase": ("POST", "/v1/sessions"),
    "browser-use": ("POST", "/api/v2/browsers"),
    "firecrawl": ("POST", "/v2/browser"),
    "steel": ("POST", "/v1/sessions"),
}
RELEASE_CALLS = {
    "browserbase": ("POST", "/v1/sessions/{id}", {"status": "REQUEST_RELEASE"}),
    "browser-use": ("PATCH", "/api/v2/browsers/{id}", {"action": "stop"}),
    "firecrawl": ("DELETE", "/v2/browser/{id}", None),
    "steel": ("POST", "/v1/sessions/{id}/release", None),
}


def _ref(snapshot, name: str, nth: int = 0) -> str:
    found = [n.ref for n in snapshot.root.walk() if n.name == name and n.ref]
    assert len(found) > nth, f"no {name!r} in:\n{snapshot.text}"
    return found[nth]


@pytest.mark.parametrize("provider", API_PROVIDERS)
async def test_a_session_drives_the_providers_browser_and_releases_it_on_close(
    provider, fake_api, server
):
    fake = fake_api(provider)
    async with tabwarden.launch(backend=provider, cloud={"api_url": fake.api_url}) as session:
        assert session.backend.name == provider
        created = session.backend.browser
        assert created is not None and fake.created == [created.id]
        tab = await session.new_tab(server.url("/actions.html"))
        snap = await tab.snapshot()
        await tab.click(_ref(snap, "Count"))
        clicked = await tab.evaluate("document.getElementById('counter').dataset.n")
        assert clicked.value == "1"
        assert fake.released == []
    assert fake.released == [created.id]
    method, path = CREATE_PATHS[provider]
    assert [c.path for c in fake.calls_to(method, path) if c.path == path] == [path]
    method, template, body = RELEASE_CALLS[provider]
    (release,) = fake.calls_to(method, template.format(id=created.id))
    assert release.path == template.format(id=created.id)
    if body is not None:
        assert {k: release.body[k] for k in body} == body


@pytest.mark.parametrize("provider", API_PROVIDERS)
async def test_settings_reach_the_create_call_as_the_provider_names_them(provider, fake_api):
    fake = fake_api(provider)
    cloud = {
        "api_url": fake.api_url,
        "timeout_s": 600,
        "profile": "ctx-123",
        "region": "us-east-1" if provider in ("browserbase", "steel") else None,
        "proxy": {"browser-use": "de", "firecrawl": None}.get(provider, "on"),
        "stealth": provider == "browserbase",
        "project_id": "proj-1" if provider == "browserbase" else None,
    }
    async with tabwarden.launch(backend=provider, cloud=cloud) as session:
        browser_id = session.backend.browser.id
    (create,) = fake.calls_to(*CREATE_PATHS[provider])[:1]
    expected = {
        "browserbase": {
            "projectId": "proj-1",
            "region": "us-east-1",
            "timeout": 600,
            "proxies": True,
            "browserSettings": {
                "context": {"id": "ctx-123", "persist": True},
                "advancedStealth": True,
            },
        },
        "browser-use": {"proxyCountryCode": "de", "timeout": 10, "profileId": "ctx-123"},
        "firecrawl": {"ttl": 600, "profile": {"name": "ctx-123", "saveChanges": True}},
        "steel": {"timeout": 600_000, "useProxy": True, "region": "us-east-1"},
    }[provider]
    assert create.body == expected
    caps = PROVIDERS[provider]().capabilities
    assert caps.profile_persistence == ("ctx-123" in json.dumps(create.body))
    assert fake.released == [browser_id]


@pytest.mark.parametrize("provider", API_PROVIDERS)
async def test_declared_capabilities_hold_frames_oopif_evaluate_live_view_and_dialogs(
    provider, fake_api, server, other_origin
):
    caps = PROVIDERS[provider]().capabilities
    fake = fake_api(provider)
    async with tabwarden.launch(backend=provider, cloud={"api_url": fake.api_url}) as session:
        tab = await session.new_tab(server.url(f"/frames.html?child={other_origin.base}"))
        await _frames_attached(session, tab, 3)
        children = [f for f in tab.frames.frames() if f.parent_id]
        assert caps.frame_tree == (len(children) == 2)
        cross = [f for f in children if f.is_oopif]
        result = await tab.evaluate("location.search", frame_id=cross[0].frame_id)
        assert caps.oopif_evaluate == (result.value == "?name=cross")
        live = session.backend.browser.live_view_url
        assert caps.live_view == (live is not None)
        if live is not None:
            assert live.startswith(fake.origin)
        await tab.navigate(server.url("/dialogs.html"))
        receipt = await tab.click(_ref(await tab.snapshot(), "Confirm"))
        assert caps.dialog_detect == (receipt.dialog is not None)
        assert caps.dialog_bridge == (receipt.dialog.source == "bridge")
        await tab.dialog("accept")
        assert caps.dialog_respond == await _title_becomes(session, tab, "confirm=true")


async def _title_becomes(session, tab, title: str) -> bool:
    budget = Budget(5)
    while tab.title != title and not budget.expired:
        await session.tabs()
        await budget.sleep(0.02)
    return tab.title == title


async def _frames_attached(session, tab, count: int) -> None:
    budget = Budget(10)
    while len(tab.frames.frames()) < count:
        budget.check(f"waiting for {count} frames (have {len(tab.frames.frames())})")
        await budget.sleep(0.02)


async def test_browserbase_dialogs_are_detected_and_answered_behind_its_auto_closing_proxy(
    fake_api, gateway, server
):
    fake = fake_api("browserbase")
    assert PROVIDERS["browserbase"]().capabilities.dialog_bridge
    async with tabwarden.launch(backend="browserbase", cloud={"api_url": fake.api_url}) as session:
        tab = await session.new_tab(server.url("/dialogs.html"))
        receipt = await tab.click(_ref(await tab.snapshot(), "Confirm"))
        dialog = receipt.dialog
        assert dialog is not None and dialog.type == "confirm" and dialog.source == "bridge"
        closed = await tab.dialog("accept")
        assert closed.closed_by == "agent"
        budget = Budget(5)
        while tab.title != "confirm=true":
            budget.check(f"waiting for the page to see the answer (title {tab.title!r})")
            await session.tabs()
            await budget.sleep(0.02)
        assert gateway.dismissed == []  # no native dialog opened for the proxy to close
        browser_id = session.backend.browser.id
    assert fake.released == [browser_id]


async def test_browserbase_connect_token_never_shows(fake_api, caplog):
    fake = fake_api("browserbase")
    key = "bb_live_fake0123456789abcdef"
    caplog.set_level("INFO", logger="tabwarden")
    async with tabwarden.launch(backend="browserbase", cloud={"api_url": fake.api_url}) as session:
        assert SIGNING_KEY in session.endpoint.ws_url  # what the socket was opened with
        shown = repr(session.endpoint) + repr(session.backend) + repr(session.backend.browser)
        assert SIGNING_KEY not in shown and "[redacted]" in shown
        said = session.redactor.redact_text(f"url {session.endpoint.ws_url} key {key}")
        assert SIGNING_KEY not in said and key not in said
        assert "[secret:BROWSERBASE_API_KEY]" in said
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "connected to" in logged
    assert SIGNING_KEY not in logged and key not in logged


async def test_a_cdp_template_url_reaches_the_service_and_ends_the_browser_on_close(
    plain_gateway, server, monkeypatch
):
    token = "tok_template_0123456789"
    monkeypatch.setenv("TABWARDEN_CDP_TOKEN", token)
    template = plain_gateway.ws_url + "?token={token}"
    closes = plain_gateway.browser_closes
    async with tabwarden.launch(
        backend="cdp-template", cloud={"url_template": template}
    ) as session:
        assert token in session.endpoint.ws_url and token not in repr(session.endpoint)
        tab = await session.new_tab(server.url("/actions.html"))
        await tab.click(_ref(await tab.snapshot(), "Count"))
        assert (await tab.evaluate("document.getElementById('counter').dataset.n")).value == "1"
    assert plain_gateway.browser_closes == closes + 1  # Browser.close: the service ends it
