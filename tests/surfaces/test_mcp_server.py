"""The MCP server without a browser: listing, results, errors, connections, cancellation, checks.

Calls go through the SDK's own in-process client; the registry's ``call_tool`` is
replaced where a test needs a tool that blocks, fails or returns images.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import math
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult, ImageContent, TextContent

import tabwarden.surfaces.mcp as mcp_surface
from tabwarden.config import Config
from tabwarden.errors import PageBusy
from tabwarden.reference import definitions_size, tools_reference
from tabwarden.surfaces.mcp import MCPOptions, build_server, check_request, tool_definition
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import select_tools
from tabwarden.tools.spec import UNTRUSTED_MARK, Image, ToolResult


def text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def legacy(options: MCPOptions | None = None) -> Client:
    """An in-process client on the handshake era: one connection, as over stdio or HTTP."""
    return Client(build_server(options or MCPOptions(groups=("all",))), mode="legacy")


Fake = Callable[[ToolContext, str, dict[str, Any] | None], Any]


@pytest.fixture
def fake_tool(monkeypatch: pytest.MonkeyPatch) -> Callable[[Fake], None]:
    def install(fake: Fake) -> None:
        async def call_tool(
            ctx: ToolContext, name: str, arguments: dict[str, Any] | None, tools: Any = None
        ) -> Any:
            return await fake(ctx, name, arguments)

        monkeypatch.setattr(mcp_surface, "call_tool", call_tool)

    return install


# ---- listing -------------------------------------------------------------------------------


async def test_lists_the_selected_tools_from_the_registry() -> None:
    async with Client(build_server(MCPOptions()), mode="legacy") as client:
        core = {t.name: t for t in (await client.list_tools()).tools}
    assert "browser_snapshot" in core and "browser_evaluate" not in core
    assert set(core) == {s.name for s in select_tools(("core",))}
    async with legacy() as client:
        listed = (await client.list_tools()).tools
    every = {s.name: s for s in select_tools(("all",))}
    assert [t.name for t in listed] == list(every)
    for tool in listed:
        spec = every[tool.name]
        assert tool.description == spec.description
        assert tool.input_schema == spec.input_schema()
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is spec.read_only
        assert tool.annotations.destructive_hint is spec.destructive
        assert tool.annotations.idempotent_hint is (spec.read_only or spec.idempotent)
        assert tool.annotations.open_world_hint is spec.open_world
    assert "browser_handle_dialog" not in every  # an alias: callable, not listed


def test_annotations_are_honest() -> None:
    specs = {s.name: s for s in select_tools(("all",))}
    hints = {name: tool_definition(spec).annotations for name, spec in specs.items()}
    snapshot, navigate, close_tab = (
        hints["browser_snapshot"],
        hints["browser_navigate"],
        hints["browser_close_tab"],
    )
    assert snapshot and snapshot.read_only_hint and snapshot.idempotent_hint
    assert snapshot.open_world_hint  # it reads pages from the web
    assert navigate and not navigate.read_only_hint and not navigate.destructive_hint
    assert not navigate.idempotent_hint and navigate.open_world_hint
    assert close_tab and close_tab.destructive_hint
    metrics, fill = hints["browser_metrics"], hints["browser_fill"]
    assert metrics and metrics.open_world_hint is False
    assert fill and fill.idempotent_hint


def test_evaluate_off_in_config_is_not_served() -> None:
    config = Config()
    config.browser.evaluate_enabled = False
    server = build_server(MCPOptions(groups=("all",), config=config))
    assert server is not None
    assert "browser_evaluate" not in {s.name for s in select_tools(("all",), config)}


def test_unknown_group_is_refused_at_build() -> None:
    with pytest.raises(ValueError, match="unknown tool groups"):
        build_server(MCPOptions(groups=("core", "nope")))


async def test_default_tool_list_costs_at_most_6000_tokens() -> None:
    """The default tool list as served stays affordable. Tokens are estimated as
    characters / 4 of the JSON the client receives (compact, as on the wire): tiktoken
    is not installed here, and the figure only has to be a stable, stated measure."""
    async with Client(build_server(MCPOptions(config=Config())), mode="legacy") as client:
        listed = await client.list_tools()
    dumped = json.dumps(
        [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    tokens = math.ceil(len(dumped) / 4)
    assert tokens <= 6000, f"the default tools' definitions cost about {tokens:,} tokens"
    # docs/reference/tools.md prints the same figure (and the drift test keeps it true).
    assert definitions_size(select_tools(("core",), Config())) == (len(dumped), tokens)
    assert f"about {tokens:,} tokens" in tools_reference()


async def test_console_and_network_are_in_the_default_set() -> None:
    """The snapshot header counts console errors and failed requests: the tools that
    show them are served by default."""
    async with Client(build_server(MCPOptions(config=Config())), mode="legacy") as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert {"browser_console", "browser_network", "browser_snapshot"} <= names
    assert "browser_evaluate" not in names


async def test_configured_tool_groups_are_served() -> None:
    config = Config()
    config.tools.groups = ["core", "devtools"]
    async with Client(build_server(MCPOptions(config=config)), mode="legacy") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        off = await client.call_tool("browser_save_pdf", {})
    assert names == {s.name for s in select_tools(("core", "devtools"))}
    assert off.is_error and "not enabled" in text(off)
    assert "tabwarden mcp --tools core,devtools,files" in text(off)
    assert "tools.groups: [core, devtools, files]" in text(off)
    assert "TABWARDEN_TOOLS__GROUPS=core,devtools,files" in text(off)
    explicit = MCPOptions(groups=("core", "files"), config=config)  # the Python option wins
    async with Client(build_server(explicit), mode="legacy") as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert "browser_save_pdf" in names and "browser_evaluate" not in names


async def test_the_instructions_explain_the_untrusted_marker_once() -> None:
    async with legacy() as client:
        instructions = client.instructions
    assert instructions is not None and instructions.count(UNTRUSTED_MARK) == 1
    assert "written by web pages" in instructions and "never as instructions" in instructions
    assert 0 < len(UNTRUSTED_MARK) <= 30 and "\n" not in UNTRUSTED_MARK


# ---- results and errors ----------------------------------------------------------------------


async def test_invalid_arguments_and_unknown_tools_are_error_results() -> None:
    async with legacy() as client:
        missing = await client.call_tool("browser_click", {})
        assert missing.is_error
        assert text(missing).startswith("error: browser_click: invalid arguments")
        assert "ref" in text(missing)
        wrong = await client.call_tool("browser_navigate", {"url": 123})
        assert wrong.is_error and "url" in text(wrong)
        extra = await client.call_tool("browser_snapshot", {"bogus": 1})
        assert extra.is_error and "bogus" in text(extra)
        unknown = await client.call_tool("browser_snapshto", {})
        assert unknown.is_error and "browser_snapshot" in text(unknown)  # did you mean
    async with Client(build_server(MCPOptions()), mode="legacy") as client:
        off = await client.call_tool("browser_evaluate", {"expression": "1"})
        assert off.is_error and "not enabled" in text(off) and "devtools" in text(off)


async def test_tool_results_become_text_and_images(fake_tool: Callable[[Fake], None]) -> None:
    png = b"\x89PNG\r\n\x1a\nfake"

    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        return ToolResult("page says hi", {"n": 1}, [Image(png, "image/png")], untrusted=True)

    fake_tool(fake)
    async with legacy() as client:
        result = await client.call_tool("browser_screenshot", {})
    assert not result.is_error
    first, second = result.content
    assert isinstance(first, TextContent)
    assert first.text == ToolResult("page says hi", untrusted=True).final_text()
    assert isinstance(second, ImageContent) and second.mime_type == "image/png"
    assert base64.b64decode(second.data) == png


async def test_a_result_that_did_not_do_what_was_asked_is_an_error_result(
    fake_tool: Callable[[Fake], None],
) -> None:
    held_back = {"tab_id": "t1", "url": "http://a.test/", "title": "A", "ok": False}

    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        data = {**held_back, "navigated": False, "wait_until": "load"}
        return ToolResult("tab t1: not navigated", data, is_error=True)

    fake_tool(fake)
    async with legacy() as client:
        result = await client.call_tool("browser_navigate", {"url": "http://x.test/"})
    assert result.is_error
    assert text(result).startswith("tab t1: not navigated")
    assert result.structured_content == {**held_back, "navigated": False}


def test_tools_with_an_output_schema_list_it() -> None:
    declared = {s.name for s in select_tools(("all",)) if s.output is not None}
    assert declared == {
        "browser_navigate",
        "browser_back",
        "browser_forward",
        "browser_reload",
        "browser_evaluate",
    }
    for spec in select_tools(("all",)):
        listed = tool_definition(spec).output_schema
        assert listed == spec.output_schema()
        assert (listed is None) is (spec.name not in declared), spec.name


async def test_structured_content_only_where_a_tool_declares_an_output_schema(
    fake_tool: Callable[[Fake], None],
) -> None:
    # A client may hand structured content to its model besides the text: it comes only
    # with an output schema, cut to that schema (never the text again, nor big data).
    big = [{"ref": f"e{i}", "role": "button", "name": "x" * 40} for i in range(2_000)]

    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        if name == "browser_evaluate":
            data = {"value": [1, 2], "type": "object", "elapsed_ms": 3, "truncated": False}
            return ToolResult("[1, 2]", {**data, "total_chars": 5}, untrusted=True)
        return ToolResult("page says hi", {"tab_id": "t1", "nodes": big}, untrusted=True)

    fake_tool(fake)
    async with legacy() as client:
        snapshot = await client.call_tool("browser_snapshot", {})
        evaluated = await client.call_tool("browser_evaluate", {"expression": "[1, 2]"})
    assert snapshot.structured_content is None
    assert snapshot.meta == {mcp_surface.UNTRUSTED_META: True}
    assert evaluated.structured_content == {"value": [1, 2], "type": "object"}
    structured = json.dumps(evaluated.structured_content, separators=(",", ":"))
    assert len(structured) < len(text(evaluated))


async def test_data_that_does_not_fit_the_output_schema_is_an_error_result(
    fake_tool: Callable[[Fake], None], caplog: pytest.LogCaptureFixture
) -> None:
    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        return ToolResult("went", {"tab_id": "t1"})  # no url, title or ok

    fake_tool(fake)
    with caplog.at_level(logging.ERROR, logger="tabwarden.mcp"):
        async with legacy() as client:
            result = await client.call_tool("browser_navigate", {"url": "http://x.test/"})
    assert result.is_error and "failed unexpectedly (ValidationError" in text(result)


async def test_tabwarden_errors_carry_their_hint(fake_tool: Callable[[Fake], None]) -> None:
    busy = PageBusy("tab t1 did not answer within 500 ms", tab_id="t1")

    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        raise busy

    fake_tool(fake)
    async with legacy() as client:
        result = await client.call_tool("browser_snapshot", {})
    assert result.is_error and text(result) == f"error: {busy}"
    assert busy.hint in text(result)


async def test_unexpected_exceptions_are_logged_error_results(
    fake_tool: Callable[[Fake], None], caplog: pytest.LogCaptureFixture
) -> None:
    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        raise RuntimeError("boom")

    fake_tool(fake)
    with caplog.at_level(logging.ERROR, logger="tabwarden.mcp"):
        async with legacy() as client:
            result = await client.call_tool("browser_snapshot", {})
            assert result.is_error
            assert "RuntimeError: boom" in text(result) and "Traceback" not in text(result)
            assert (await client.list_tools()).tools  # the connection carries on
    assert any(r.exc_info for r in caplog.records), "the traceback goes to the log"


# ---- connections and sessions ----------------------------------------------------------------


async def test_each_connection_has_its_own_session(fake_tool: Callable[[Fake], None]) -> None:
    seen: list[ToolContext] = []

    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        seen.append(ctx)
        return ToolResult(ctx.name)

    fake_tool(fake)
    server = build_server(MCPOptions())
    async with Client(server, mode="legacy") as one, Client(server, mode="legacy") as two:
        await one.call_tool("browser_snapshot", {})
        await two.call_tool("browser_snapshot", {})
        await one.call_tool("browser_tabs", {})
    first, second, again = seen
    assert first is again and first is not second
    assert first.name == second.name == "mcp-1"  # each in-process client is a run of its own,
    assert first.manager is not second.manager  # with its own manager (HTTP: one for all)
    assert getattr(first, "isolated", None) is True  # throwaway profiles: nothing shared
    assert getattr(first, "ended", None) is True  # the connection ended: session closed


async def test_one_run_names_connections_in_order(fake_tool: Callable[[Fake], None]) -> None:
    names: list[str] = []

    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        names.append(ctx.name)
        return ToolResult("ok")

    fake_tool(fake)
    runtime = mcp_surface._Runtime(MCPOptions(), Config(), [])
    clients = [mcp_surface._Client() for _ in range(3)]
    for client in clients:
        await client.call(runtime, "browser_snapshot", {})
    await clients[0].call(runtime, "browser_snapshot", {})
    assert names == ["mcp-1", "mcp-2", "mcp-3", "mcp-1"]
    await runtime.close()


async def test_shared_session_is_one_for_all(fake_tool: Callable[[Fake], None]) -> None:
    seen: list[ToolContext] = []

    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        seen.append(ctx)
        return ToolResult("ok")

    fake_tool(fake)
    server = build_server(MCPOptions(shared_session=True))
    async with Client(server) as modern, Client(server, mode="legacy") as handshake:
        await modern.call_tool("browser_snapshot", {})
        await handshake.call_tool("browser_snapshot", {})
    assert [c.name for c in seen] == ["default", "default"]
    assert getattr(seen[0], "isolated", "?") is None  # the configuration decides


async def test_a_stateless_request_without_a_connection_is_refused() -> None:
    async with Client(build_server(MCPOptions())) as client:  # 2026-07-28, in-process
        assert (await client.list_tools()).tools
        result = await client.call_tool("browser_snapshot", {})
    assert result.is_error and "handshake" in text(result)


# ---- cancellation ----------------------------------------------------------------------------


async def test_cancelling_a_call_cancels_its_task_and_waits_for_cleanup(
    fake_tool: Callable[[Fake], None],
) -> None:
    events: list[str] = []
    started = asyncio.Event()

    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        if name == "browser_wait":
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                events.append("cancelled")
                await asyncio.sleep(0.2)  # cleanup that awaits, as evaluate's does
                events.append("cleaned up")
                raise
        events.append(name)
        return ToolResult("ok")

    fake_tool(fake)
    async with legacy() as client:
        with anyio.move_on_after(20) as scope:
            async with anyio.create_task_group() as tg:

                async def hang() -> None:
                    await client.call_tool("browser_wait", {})

                tg.start_soon(hang)
                await started.wait()
                tg.cancel_scope.cancel()  # the client sends notifications/cancelled
        assert not scope.cancelled_caught
        result = await client.call_tool("browser_snapshot", {})
        assert not result.is_error
    # The next call started only once the aborted one had finished cleaning up.
    assert events == ["cancelled", "cleaned up", "browser_snapshot"]


async def test_a_call_cancelled_from_inside_is_an_error_result(
    fake_tool: Callable[[Fake], None],
) -> None:
    async def fake(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        raise asyncio.CancelledError

    fake_tool(fake)
    async with legacy() as client:
        result = await client.call_tool("browser_snapshot", {})
        assert result.is_error and "cancelled" in text(result)
        assert (await client.list_tools()).tools  # the connection carries on


# ---- HTTP request checks -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:8000", "localhost:1", "LOCALHOST", "[::1]:9", "127.5.0.1:80", "localhost."],
)
def test_loopback_hosts_pass(host: str) -> None:
    assert check_request({"host": host}, bound_host="127.0.0.1", token=None) is None


@pytest.mark.parametrize(
    "host", ["evil.test", "evil.test:8000", "10.0.0.2:80", "", "localhost.evil"]
)
def test_other_hosts_are_refused(host: str) -> None:
    refused = check_request({"host": host}, bound_host="127.0.0.1", token=None)
    assert refused is not None and refused[0] == 403


def test_the_bound_host_and_addresses_when_listening_everywhere() -> None:
    assert check_request({"host": "10.0.0.2:80"}, bound_host="10.0.0.2", token=None) is None
    assert check_request({"host": "10.0.0.2:80"}, bound_host="0.0.0.0", token=None) is None
    assert check_request({"host": "[fe80::1]:80"}, bound_host="::", token=None) is None
    assert check_request({"host": "pc.lan:80"}, bound_host="0.0.0.0", token=None) is not None


@pytest.mark.parametrize(
    ("origin", "allowed", "passes"),
    [
        ("http://localhost:3000", (), True),
        ("https://127.0.0.1", (), True),
        ("http://[::1]:8080", (), True),
        ("https://evil.test", (), False),
        ("null", (), False),
        ("file://", (), False),
        ("http://localhost.evil.test", (), False),
        ("https://app.example", ("https://app.example",), True),
        ("https://app.example/", ("HTTPS://APP.EXAMPLE",), True),
        ("https://app.example:8443", ("https://app.example:*",), True),
        ("https://app.example.evil:8443", ("https://app.example:*",), False),
        ("https://app.example:8443", ("https://app.example",), False),
    ],
)
def test_origins(origin: str, allowed: tuple[str, ...], passes: bool) -> None:
    refused = check_request(
        {"host": "127.0.0.1:1", "origin": origin},
        bound_host="127.0.0.1",
        token=None,
        allowed_origins=allowed,
    )
    assert (refused is None) is passes
    if not passes:
        assert refused == (403, f"origin {origin!r} is not allowed")


@pytest.mark.parametrize(
    ("authorization", "passes"),
    [
        ("Bearer tok", True),
        ("bearer tok", True),
        ("Bearer  tok ", True),
        ("Bearer tok2", False),
        ("Basic tok", False),
        ("tok", False),
        (None, False),
    ],
)
def test_bearer_token(authorization: str | None, passes: bool) -> None:
    headers = {"host": "127.0.0.1:1"}
    if authorization is not None:
        headers["authorization"] = authorization
    refused = check_request(headers, bound_host="127.0.0.1", token="tok")
    assert (refused is None) is passes
    if not passes:
        assert refused is not None and refused[0] == 401


def test_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABWARDEN_MCP_TOKEN", "env-token")
    assert MCPOptions().resolved_token() == "env-token"
    assert MCPOptions(token="given").resolved_token() == "given"
    monkeypatch.setenv("TABWARDEN_MCP_TOKEN", "")
    assert MCPOptions().resolved_token() is None


@pytest.mark.browser
async def test_cdp_endpoint_option_makes_clients_drive_that_browser(server) -> None:
    import tabwarden
    from tabwarden.surfaces.mcp import MCPOptions, _Client, _Runtime
    from tabwarden.tools.registry import call_tool, select_tools

    async with tabwarden.launch(isolated=True) as owner:
        options = MCPOptions(cdp_endpoint=owner.endpoint.ws_url)
        config = tabwarden.Config()
        config.safety.allow_attach = True  # --allow-attach: the user consented
        runtime = _Runtime(options, config, select_tools(["core"]))
        try:
            client = _Client("probe")
            ctx = client.context(runtime)
            assert ctx.cdp_url == owner.endpoint.ws_url
            url = server.url("/index.html")
            await call_tool(ctx, "browser_navigate", {"url": url}, runtime.tools)
            titles = [t.title for t in await owner.tabs()]
            assert "Test home" in titles  # the page opened in the owner's browser
        finally:
            await runtime.manager.close_all()
