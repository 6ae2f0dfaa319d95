"""Consent: attaching to a running browser, or launching on a profile that is not
tabwarden's own, needs the user's explicit agreement; without it the error says what
the agent would control."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import tabwarden
from tabwarden import cli
from tabwarden.backends.external import AttachRequest, OpenTab
from tabwarden.backends.local import LocalOptions, chromium_args, profile_switches
from tabwarden.config import Config
from tabwarden.errors import ConfigError, ConsentRequired
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool, select_tools
from tests.conftest import browser_processes


def http_url(session: tabwarden.BrowserSession) -> str:
    assert session.endpoint is not None
    port = session.endpoint.ws_url.split(":")[2].split("/")[0]
    return f"http://127.0.0.1:{port}"


def sites(message: str) -> set[str]:
    (line,) = [line for line in message.splitlines() if line.startswith("sites: ")]
    return set(line.removeprefix("sites: ").split(", "))


def allowing() -> Config:
    config = Config()
    config.browser.isolated = True
    config.safety.allow_attach = True
    return config


@pytest.fixture(scope="module")
async def owner(server, other_origin):
    """Someone's running browser: two sites open."""
    async with tabwarden.launch(isolated=True) as session:
        await session.new_tab(server.url("/index.html"))
        await session.new_tab(other_origin.url("/second.html"))
        yield session


# ---- the Python API ----------------------------------------------------------------------


@pytest.mark.parametrize("by", ["http", "ws"])
@pytest.mark.browser
async def test_attach_without_consent_is_refused_and_says_what_it_would_control(owner, by):
    url = http_url(owner) if by == "http" else owner.endpoint.ws_url
    before = len(await owner.tabs())
    with pytest.raises(ConsentRequired) as caught:
        await tabwarden.attach(url)
    message = caught.value.message
    assert "needs the user's consent" in message
    assert f"browser: {owner.product} at {url} (on this machine)" in message
    assert f"profile: {owner.backend.profile_dir}" in message
    assert '"Test home" 127.0.0.1' in message and '"Second page" localhost' in message
    assert "open tabs: 2" in message
    assert sites(message) == {"127.0.0.1", "localhost"}
    assert "cookies" in message and "run scripts" in message
    assert "consent=true" in caught.value.hint and "--allow-attach" in caught.value.hint
    assert len(await owner.tabs()) == before  # nothing was touched


@pytest.mark.browser
async def test_attach_with_consent_or_config_works(owner):
    async with tabwarden.attach(http_url(owner), consent=True) as guest:
        assert {"Test home", "Second page"} <= {t.title for t in await guest.tabs()}
    async with tabwarden.attach(owner.endpoint.ws_url, config=allowing()) as guest:
        assert guest.connected
    refusing = allowing()
    refusing.safety.allow_attach = False
    with pytest.raises(ConsentRequired):
        await tabwarden.attach(owner.endpoint.ws_url, config=refusing)


@pytest.mark.browser
async def test_a_consent_check_is_shown_the_request(owner):
    seen: list[AttachRequest] = []

    async def ask_the_user(request: AttachRequest) -> bool:
        seen.append(request)
        return False

    with pytest.raises(ConsentRequired) as caught:
        await tabwarden.attach(http_url(owner), consent=ask_the_user)
    assert "the consent check refused" in caught.value.message
    (request,) = seen
    assert request.is_loopback and request.product == owner.product
    assert request.profile == str(owner.backend.profile_dir)
    assert sorted(request.domains) == ["127.0.0.1", "localhost"]
    assert {t.title for t in request.tabs or ()} == {"Test home", "Second page"}


def test_the_description_is_bounded():
    tabs = tuple(OpenTab(f"Page {i}" + "x" * 80, f"https://site{i}.example/") for i in range(23))
    request = AttachRequest("http://h:9222", "ws://h:9222/x", "", False, tabs=tabs)
    text = request.describe()
    assert "browser: unknown (it did not say) at http://h:9222 (on another machine)" in text
    assert "open tabs: 23" in text and "  - and 13 more" in text
    assert text.count('  - "Page') == 10 and "x" * 61 not in text
    assert "site0.example" in text and "and 8 more" in text  # 15 of 23 sites shown
    unknown = AttachRequest("http://h:9222", "ws://h:9222/x", "Chrome/1", False)
    assert "open tabs: unknown" in unknown.describe()


# ---- the tool, the MCP server and the CLI -------------------------------------------------


@pytest.mark.browser
async def test_browser_attach_tool_needs_consent_and_leaves_the_session_alone(owner, server):
    async with tabwarden.SessionManager(Config(browser={"isolated": True})) as manager:
        ctx = ToolContext(manager, "agent")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/second.html")})
        own = await ctx.session()
        with pytest.raises(ConsentRequired) as caught:
            await call_tool(ctx, "browser_attach", {"cdp_url": http_url(owner)})
        assert '"Test home" 127.0.0.1' in caught.value.message
        assert await ctx.session() is own and not own.closed
        attached = await call_tool(
            ctx, "browser_attach", {"cdp_url": http_url(owner), "consent": True}
        )
        assert attached.data["tabs"] >= 2 and own.closed
        listed = await call_tool(ctx, "browser_tabs", {})
        assert "Test home" in listed.text
        await ctx.close()
    assert len(await owner.tabs()) == 2, "closing the attached session left the owner's tabs"


@pytest.mark.browser
async def test_browser_attach_tool_with_allow_attach_in_config(owner):
    async with tabwarden.SessionManager(allowing()) as manager:
        ctx = ToolContext(manager, "agent")
        result = await call_tool(ctx, "browser_attach", {"cdp_url": owner.endpoint.ws_url})
        assert result.text.startswith(f"attached to {owner.product}")


@pytest.mark.browser
async def test_mcp_cdp_endpoint_needs_allow_attach(owner):
    from tabwarden.surfaces.mcp import MCPOptions, _Client, _Runtime

    options = MCPOptions(cdp_endpoint=http_url(owner))
    runtime = _Runtime(options, Config(), select_tools(["core"]))
    try:
        ctx = _Client("probe").context(runtime)
        with pytest.raises(ConsentRequired) as caught:
            await call_tool(ctx, "browser_tabs", {}, runtime.tools)
        assert sites(caught.value.message) == {"127.0.0.1", "localhost"}
        assert runtime.manager.names() == []
    finally:
        await runtime.close()
    runtime = _Runtime(options, allowing(), select_tools(["core"]))
    try:
        ctx = _Client("probe").context(runtime)
        listed = await call_tool(ctx, "browser_tabs", {}, runtime.tools)
        assert "Second page" in listed.text
    finally:
        await runtime.close()


class Recorder:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, name: str, request: dict[str, Any], timeout_s: float, **_: Any) -> Any:
        self.requests.append(request)
        return {"ok": True, "result": {"text": "done", "untrusted": False}}


def test_cli_allow_attach_and_secrets_flags(monkeypatch, tmp_path):
    from tabwarden.surfaces import mcp

    recorder = Recorder()
    monkeypatch.setattr(cli.daemon, "send", recorder)
    runner = CliRunner()
    done = runner.invoke(cli.app, ["attach", "http://127.0.0.1:9222", "--allow-attach"])
    assert done.exit_code == 0, done.output
    assert recorder.requests[-1]["arguments"] == {
        "cdp_url": "http://127.0.0.1:9222",
        "consent": True,
    }
    done = runner.invoke(cli.app, ["attach", "http://127.0.0.1:9222"])
    assert "consent" not in recorder.requests[-1]["arguments"]

    secrets = tmp_path / "agent.env"
    secrets.write_text("CLI_SECRET=cli-secret-value-1\n")
    done = runner.invoke(cli.app, ["snapshot", "--secrets", str(secrets)])
    assert done.exit_code == 0, done.output
    assert recorder.requests[-1]["secrets_file"] == str(secrets.resolve())
    done = runner.invoke(cli.app, ["snapshot", "--secrets", str(tmp_path / "absent.env")])
    assert isinstance(done.exception, ConfigError)

    served: list[Any] = []
    monkeypatch.setattr(mcp, "run", served.append)
    done = runner.invoke(
        cli.app,
        ["mcp", "--cdp-endpoint", "http://h:9222", "--allow-attach", "--secrets", str(secrets)],
    )
    assert done.exit_code == 0, done.output
    options = served[-1]
    assert options.cdp_endpoint == "http://h:9222"
    assert options.config.safety.allow_attach is True
    assert options.config.safety.secrets_file == secrets.resolve()
    assert runner.invoke(cli.app, ["mcp"]).exit_code == 0
    assert served[-1].config.safety.allow_attach is False

    daemons: list[Config | None] = []
    monkeypatch.setattr(
        cli.daemon, "run_daemon", lambda name, config=None, **_: daemons.append(config)
    )
    done = runner.invoke(cli.app, ["daemon", "run", "--allow-attach", "--secrets", str(secrets)])
    assert done.exit_code == 0, done.output
    assert daemons[-1] is not None and daemons[-1].safety.allow_attach is True
    assert daemons[-1].safety.secrets_file == secrets.resolve()


# ---- the local browser's profile ----------------------------------------------------------


def test_the_local_browser_always_gets_its_own_profile_folder(tmp_path):
    own = tmp_path / "own-profile"
    options = LocalOptions(extra_args=("--user-data-dir=/home/me/.config/google-chrome", "--x"))
    args = chromium_args(options, own, as_root=False)
    assert [a for a in args if "user-data-dir" in a] == [f"--user-data-dir={own}"]
    assert "--x" in args
    assert profile_switches(["--profile-directory=Default", "-user-data-dir=/p", "--foo"]) == [
        "--profile-directory=Default",
        "-user-data-dir=/p",
    ]


@pytest.mark.browser
async def test_a_persistent_launch_uses_a_profile_under_the_data_dir(tmp_path):
    data_dir = Path(os.environ["TABWARDEN_DATA_DIR"])  # set for the tests by conftest
    async with tabwarden.launch(isolated=False, workspace=tmp_path, name="mine") as session:
        profile = session.backend.profile_dir
        assert profile is not None and data_dir in profile.parents
        main = [
            p
            for p in browser_processes(f"--user-data-dir={profile}")
            if not any(a.startswith("--type=") for a in p.cmdline())
        ]
        assert main, "the browser process runs with the workspace profile"
        switches = [a for a in main[0].cmdline() if "user-data-dir" in a]
        assert switches == [f"--user-data-dir={profile}"]


@pytest.mark.parametrize(
    "switch", ["--user-data-dir={home}/.config/google-chrome", "--profile-directory=Default"]
)
async def test_extra_args_cannot_pick_another_profile_without_consent(tmp_path, switch):
    arg = switch.format(home=tmp_path)
    with pytest.raises(ConsentRequired) as caught:
        await tabwarden.launch(isolated=True, args=[arg])
    assert arg in caught.value.message and "safety.allow_attach" in caught.value.hint
    assert not (tmp_path / ".config").exists(), "nothing was launched"


@pytest.mark.browser
async def test_with_consent_extra_args_pick_the_profile(tmp_path):
    chosen = tmp_path / "my-chrome-profile"
    config = Config()
    config.safety.allow_attach = True
    async with tabwarden.launch(
        isolated=False, args=[f"--user-data-dir={chosen}"], config=config
    ) as session:
        assert session.backend.profile_dir == chosen
        assert (chosen / "DevToolsActivePort").exists()
    with pytest.raises(ConfigError, match="contradict"):
        await tabwarden.launch(isolated=True, args=[f"--user-data-dir={chosen}"], config=config)
