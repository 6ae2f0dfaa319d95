"""Cookies, localStorage and sessionStorage in a real Chromium, and storage state files."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest

import tabwarden
from tabwarden.diagnostics.storage import CookieSpec, parse_state
from tabwarden.errors import InvalidArgument, PathNotAllowed

PAGE = "/state_storage.html"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="module")
async def browser(workspace):
    """This module's session writes state files into a workspace of its own."""
    async with tabwarden.launch(isolated=True, workspace=workspace) as session:
        yield session


async def seen(tab):
    return (await tab.evaluate("seen()")).value


async def server_cookies(tab, server):
    reply = await tab.evaluate(
        f"fetch({server.url('/state-headers')!r}).then(r => r.json()).then(h => h.Cookie)"
    )
    return reply.value


async def test_cookie_round_trip_set_get_delete_clear(browser, server):
    tab = await browser.new_tab(server.url(PAGE))
    await tab.storage("clear", "cookies", all=True)
    result = await tab.storage("set", "cookies", name="flavour", value="oatmeal")
    assert result.changed == 1 and result.items[0]["domain"] == "127.0.0.1"
    assert "flavour=oatmeal" in (await seen(tab))["cookie"]
    assert "flavour=oatmeal" in await server_cookies(tab, server)
    got = await tab.storage("get", "cookies")
    assert [(c["name"], c["value"]) for c in got.items] == [("flavour", "oatmeal")]
    assert set(got.items[0]) == {
        "name",
        "value",
        "domain",
        "path",
        "expires",
        "httpOnly",
        "secure",
        "sameSite",
    }
    deleted = await tab.storage("delete", "cookies", name="flavour")
    assert deleted.changed == 1 and (await seen(tab))["cookie"] == ""
    missing = await tab.storage("delete", "cookies", name="flavour")
    assert missing.changed == 0 and "no cookie named" in missing.notes[0]
    await tab.storage("set", "cookies", name="a", value="1")
    await tab.storage("set", "cookies", name="b", value="2")
    cleared = await tab.storage("clear", "cookies")
    assert cleared.changed == 2 and (await tab.storage("get", "cookies")).items == ()


async def test_cookie_attributes_and_other_domains(browser, server):
    tab = await browser.new_tab(server.url(PAGE))
    await tab.storage("clear", "cookies", all=True)
    expires = time.time() + 3600
    await tab.storage(
        "set",
        "cookies",
        name="sid",
        value="s3cr3t",
        http_only=True,
        same_site="Strict",
        expires=expires,
    )
    await tab.storage("set", "cookies", name="elsewhere", value="x", domain="example.test")
    page_cookies = (await tab.storage("get", "cookies")).items
    assert [c["name"] for c in page_cookies] == ["sid"]
    sid = page_cookies[0]
    assert sid["httpOnly"] and sid["sameSite"] == "Strict"
    assert abs(sid["expires"] - expires) < 5
    # httpOnly: the server gets it, page script does not see it.
    assert "sid" not in (await seen(tab))["cookie"]
    assert "sid=s3cr3t" in await server_cookies(tab, server)
    every = {c["name"]: c for c in (await tab.storage("get", "cookies", all=True)).items}
    assert every["elsewhere"]["domain"] == "example.test"
    one = await tab.storage("get", "cookies", url="http://example.test/")
    assert [c["name"] for c in one.items] == ["elsewhere"]
    await tab.storage("delete", "cookies", name="elsewhere", domain="example.test")
    assert "elsewhere" not in {
        c["name"] for c in (await tab.storage("get", "cookies", all=True)).items
    }


async def test_a_cookie_the_browser_refuses_is_a_clear_error(browser, server):
    tab = await browser.new_tab(server.url(PAGE))
    with pytest.raises(InvalidArgument) as refused:
        await tab.storage("set", "cookies", name="cross", value="1", same_site="None")
    assert "SameSite=None needs secure" in str(refused.value)
    with pytest.raises(InvalidArgument) as past:
        await tab.storage("set", "cookies", name="old", value="1", expires=1000)
    assert "in the past" in str(past.value) and "delete" in past.value.hint
    with pytest.raises(InvalidArgument) as nameless:
        await tab.storage("set", "cookies", value="1")
    assert "name" in str(nameless.value)


async def test_a_cookie_is_given_as_a_model_or_as_its_fields(browser, server):
    tab = await browser.new_tab(server.url(PAGE))
    await tab.storage("clear", "cookies", all=True)
    cookie = CookieSpec(name="flavour", value="ginger", same_site="strict")
    stored = await tab.storage("set", "cookies", cookie, http_only=True)
    assert stored.items[0]["name"] == "flavour"
    assert stored.items[0]["sameSite"] == "Strict" and stored.items[0]["httpOnly"] is True
    with pytest.raises(InvalidArgument) as misspelt:
        await tab.storage("set", "cookies", nmae="x", value="1")
    assert "nmae" in misspelt.value.message and "name" in misspelt.value.hint
    assert [c["name"] for c in (await tab.storage("get", "cookies")).items] == ["flavour"]


@pytest.mark.parametrize("kind, area", [("local", "local"), ("session", "session")])
async def test_web_storage_round_trip(browser, server, kind, area):
    tab = await browser.new_tab(server.url(f"{PAGE}?put=page-value"))
    await tab.storage("clear", kind)
    await tab.storage("set", kind, name="theme", value="dark")
    await tab.storage("set", kind, name="lang", value="fr")
    assert (await seen(tab))[area] == {"theme": "dark", "lang": "fr"}
    await tab.evaluate(f"{area}Storage.setItem('by-page', 'yes')")
    got = await tab.storage("get", kind)
    assert {i["name"]: i["value"] for i in got.items} == {
        "theme": "dark",
        "lang": "fr",
        "by-page": "yes",
    }
    assert got.scope == server.base
    one = await tab.storage("get", kind, name="lang")
    assert one.items == ({"name": "lang", "value": "fr"},)
    none = await tab.storage("get", kind, name="nope")
    assert none.items == () and "no key" in none.notes[0]
    deleted = await tab.storage("delete", kind, name="theme")
    assert deleted.changed == 1 and "theme" not in (await seen(tab))[area]
    cleared = await tab.storage("clear", kind)
    assert cleared.changed == 2 and (await seen(tab))[area] == {}


async def test_storage_needs_a_page_with_an_origin_and_fitting_arguments(browser, server):
    blank = await browser.new_tab()
    with pytest.raises(InvalidArgument) as caught:
        await blank.storage("get", "local")
    assert "about:blank" in str(caught.value) and "navigate" in caught.value.hint
    tab = await browser.new_tab(server.url(PAGE))
    with pytest.raises(InvalidArgument) as cookie_only:
        await tab.storage("set", "local", name="k", value="v", http_only=True)
    assert "http_only" in str(cookie_only.value)
    with pytest.raises(InvalidArgument) as action:
        await tab.storage("fetch", "local")
    assert "save_state" in action.value.hint
    with pytest.raises(InvalidArgument):
        await tab.storage("get", "indexeddb")


async def test_save_state_then_load_it_into_a_fresh_session(
    browser, server, other_origin, workspace
):
    tab = await browser.new_tab(server.url(PAGE))
    await tab.storage("clear", "cookies", all=True)
    await tab.storage("clear", "local")
    await tab.storage("set", "cookies", name="login", value="alice", http_only=True)
    await tab.storage("set", "local", name="cart", value='["tea"]')
    other = await browser.new_tab(other_origin.url(PAGE))
    await other.storage("set", "local", name="other", value="side")
    saved = await tab.storage("save_state", file="alice")
    path = workspace / "tabwarden-output" / "state" / "alice.json"
    assert saved.file == str(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # it holds logins
    state = json.loads(path.read_text())
    assert [c["name"] for c in state["cookies"]] == ["login"]
    origins = {o["origin"]: o["localStorage"] for o in state["origins"]}
    assert origins[server.base] == [{"name": "cart", "value": '["tea"]'}]
    assert origins[other_origin.base] == [{"name": "other", "value": "side"}]

    async with tabwarden.launch(isolated=True, workspace=workspace) as fresh:
        loaded = await fresh.load_storage_state("tabwarden-output/state/alice.json")
        assert loaded.changed == 3 and not loaded.notes
        assert [t.url for t in await fresh.tabs()] == ["about:blank"]  # the helper tab is gone
        page = await fresh.new_tab(server.url(PAGE))
        assert (await seen(page))["local"] == {"cart": '["tea"]'}
        assert "login=alice" in await server_cookies(page, server)
        side = await fresh.new_tab(other_origin.url(PAGE))
        assert (await seen(side))["local"] == {"other": "side"}


async def test_load_state_reaches_origins_without_contacting_them(browser, workspace):
    state = {
        "cookies": [
            {
                "name": "pref",
                "value": "compact",
                "domain": "app.example.test",
                "path": "/",
                "expires": -1,
                "httpOnly": False,
                "secure": True,
                "sameSite": "Lax",
            }
        ],
        "origins": [
            {
                "origin": "https://app.example.test",
                "localStorage": [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}],
            }
        ],
    }
    (workspace / "unreachable.json").write_text(json.dumps(state))
    # app.example.test does not resolve: only a page served without the network works.
    loaded = await browser.load_storage_state("unreachable.json")
    assert loaded.changed == 3
    assert "1 cookie and 2 localStorage entries of 1 origin from" in loaded.text()
    cookies = await browser.cdp("Storage.getCookies")
    assert any(c["name"] == "pref" for c in cookies["cookies"])


async def test_a_malformed_state_file_is_a_clear_error(browser, workspace):
    bad = workspace / "bad.json"
    bad.write_text('{"cookies": [')
    with pytest.raises(InvalidArgument) as not_json:
        await browser.load_storage_state("bad.json")
    assert "not valid JSON" in str(not_json.value) and '"origins"' in not_json.value.hint
    bad.write_text(
        '{"cookies": [{"name": "x", "value": "1", "domain": "a.test", "sameSite": "Sometimes"}]}'
    )
    with pytest.raises(InvalidArgument) as same_site:
        await browser.load_storage_state(str(bad))
    assert "cookies[0] (x): 'sameSite' must be Strict, Lax or None" in str(same_site.value)


@pytest.mark.parametrize(
    "state, problem",
    [
        ([], "needs a 'cookies' or an 'origins' list"),
        ({"cookies": {}}, "must be lists"),
        ({"cookies": [{"value": "1", "domain": "a.test"}]}, "cookies[0]: 'name' must be"),
        ({"cookies": [{"name": "n", "value": 1, "domain": "a.test"}]}, "'value' must be a string"),
        ({"cookies": [{"name": "n", "value": "1"}]}, "needs a 'domain'"),
        ({"cookies": [{"name": "n", "value": "1", "url": "ftp://x"}]}, "http(s) URL"),
        (
            {"cookies": [{"name": "n", "value": "1", "domain": "a.test", "path": "x"}]},
            "must start with '/'",
        ),
        (
            {"cookies": [{"name": "n", "value": "1", "domain": "a.test", "expires": "soon"}]},
            "Unix time",
        ),
        (
            {"cookies": [{"name": "n", "value": "1", "domain": "a.test", "secure": "yes"}]},
            "'secure' must be true or false",
        ),
        ({"origins": [{"origin": "https://a.test/path"}]}, "scheme://host[:port]"),
        ({"origins": [{"origin": "file:///tmp"}]}, "scheme://host[:port]"),
        ({"origins": [{"origin": "https://a.test", "localStorage": {}}]}, "must be a list"),
        (
            {"origins": [{"origin": "https://a.test", "localStorage": [{"name": "k"}]}]},
            "origins[0] (https://a.test): localStorage[0]",
        ),
    ],
)
def test_state_validation_names_the_entry_and_field(state, problem):
    with pytest.raises(InvalidArgument) as caught:
        parse_state(json.dumps(state), "s.json")
    assert problem in str(caught.value)


def test_a_playwright_state_file_parses():
    state = parse_state(
        json.dumps(
            {
                "cookies": [
                    {
                        "name": "sid",
                        "value": "v",
                        "domain": ".example.com",
                        "path": "/",
                        "expires": -1,
                        "httpOnly": True,
                        "secure": True,
                        "sameSite": "None",
                    }
                ],
                "origins": [
                    {
                        "origin": "https://example.com",
                        "localStorage": [{"name": "k", "value": "v"}],
                    }
                ],
            }
        )
    )
    assert state.cookies[0] == {
        "name": "sid",
        "value": "v",
        "domain": ".example.com",
        "path": "/",
        "httpOnly": True,
        "secure": True,
        "sameSite": "None",
    }
    assert state.origins == (("https://example.com", (("k", "v"),)),)


async def test_state_files_stay_inside_the_workspace(browser, workspace, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "state.json"
    outside.write_text('{"cookies": [], "origins": []}')
    with pytest.raises(PathNotAllowed) as read:
        await browser.load_storage_state(str(outside))
    assert "outside" in str(read.value)
    link = workspace / "escape.json"
    link.symlink_to(outside)
    with pytest.raises(PathNotAllowed):
        await browser.load_storage_state("escape.json")
    with pytest.raises(PathNotAllowed):
        await browser.save_storage_state(str(outside.parent / "stolen.json"))
    with pytest.raises(PathNotAllowed):
        await browser.save_storage_state("../../escape.json")
    with pytest.raises(InvalidArgument):
        await browser.load_storage_state("")
