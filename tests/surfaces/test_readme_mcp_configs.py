"""The MCP client configurations in README.md are ones tabwarden really takes: each JSON
snippet parses, its command line parses with the CLI, its URL is the HTTP server's, and
its header passes the server's token check (and a real server answers it)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import shlex
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
import typer

from tabwarden.cli import app
from tabwarden.config import Config
from tabwarden.reference import definitions_size
from tabwarden.surfaces.mcp import MCP_PATH, TOKEN_ENV, MCPOptions, check_request, serve_http
from tabwarden.tool_groups import DEFAULT_GROUPS
from tabwarden.tools.registry import select_tools

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CHECKOUT = "/path/to/tabwarden"
"""The placeholder the snippets use for the checkout's folder."""
TOKEN = "s3cret-Token_42"
CLIENTS = ("Claude Desktop", "Claude Code", "Cursor", "VS Code")


def _section() -> str:
    start = README.index("## Use it from your MCP client")
    end = README.index("\n## ", start + 1)
    return README[start:end]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def _client_blocks(language: str) -> list[tuple[str, str]]:
    """(client, block) for each code block under a client's heading."""
    found = []
    for part in re.split(r"\n### ", _section())[1:]:
        heading = part.split("\n", 1)[0]
        if heading in CLIENTS:
            found += [(heading, block) for block in _blocks(part, language)]
    return found


def _cli_parses(args: list[str]) -> Any:
    """Parse ``tabwarden <args>`` as the CLI would, without running it: the command's
    context (a usage error raises ``typer.TyperException``)."""
    group: Any = typer.main.get_command(app)  # typer vendors click: duck-typed
    name, *rest = args
    return group.commands[name].make_context(name, rest)


def _server_port() -> int:
    """The port of the HTTP server command the section starts."""
    (server,) = [
        line
        for block in _blocks(_section(), "sh")
        for line in block.splitlines()
        if "--http" in line
    ]
    words = shlex.split(server)
    assert words[0] == f"{CHECKOUT}/.venv/bin/tabwarden"
    params = _cli_parses(words[1:]).params
    assert params["http"] is True
    return int(params["port"])


def _with_token(value: str, inputs: list[dict[str, Any]]) -> str:
    """A header value as the client sends it: its placeholder for the token filled in."""
    ids = {f"${{input:{i['id']}}}" for i in inputs if i.get("password")}
    for placeholder in ("<token>", f"${{{TOKEN_ENV}}}", f"${{env:{TOKEN_ENV}}}", *ids):
        value = value.replace(placeholder, TOKEN)
    return value


def _check_url_and_header(url: str, authorization: str) -> None:
    parts = urlsplit(url)
    assert (parts.scheme, parts.hostname, parts.port, parts.path) == (
        "http",
        "127.0.0.1",
        _server_port(),
        MCP_PATH,
    )
    headers = {"host": parts.netloc, "authorization": authorization}
    assert check_request(headers, bound_host="127.0.0.1", token=TOKEN) is None
    wrong = {**headers, "authorization": authorization.replace(TOKEN, "other")}
    assert check_request(wrong, bound_host="127.0.0.1", token=TOKEN) is not None


def _check_server(client: str, entry: dict[str, Any], inputs: list[dict[str, Any]]) -> str:
    """Checks one client's server entry; says which kind it is."""
    if entry.get("command") == "npx":  # the mcp-remote bridge (Claude Desktop)
        args = entry["args"]
        assert args[:2] == ["-y", "mcp-remote"]
        header = args[args.index("--header") + 1]
        name, value = re.fullmatch(r"([A-Za-z0-9_-]+):\s*(.*)", header).groups()  # its parser
        value = re.sub(r"\$\{([^}]+)\}", lambda m: entry["env"][m.group(1)], value)
        assert name == "Authorization"
        assert args[args.index("--transport") + 1] == "http-only"
        _check_url_and_header(args[2], _with_token(value, inputs))
        return "http"
    if "command" in entry:
        assert entry["command"] == f"{CHECKOUT}/.venv/bin/tabwarden", client
        assert (ROOT / ".venv/bin/tabwarden").exists()  # what scripts/setup.sh makes
        assert entry.get("type", "stdio") == "stdio"
        _cli_parses(entry["args"])
        return "stdio"
    assert entry.get("type", "http") == "http", client
    _check_url_and_header(entry["url"], _with_token(entry["headers"]["Authorization"], inputs))
    return "http"


def test_every_client_has_a_stdio_and_an_http_config() -> None:
    kinds: dict[str, set[str]] = {client: set() for client in CLIENTS}
    for client, block in _client_blocks("json"):
        parsed = json.loads(block)
        servers = parsed["servers"] if client == "VS Code" else parsed["mcpServers"]
        assert set(servers) == {"tabwarden"}, client
        kinds[client].add(_check_server(client, servers["tabwarden"], parsed.get("inputs", [])))
    for client, block in _client_blocks("sh"):  # claude mcp add …
        for line in block.splitlines():
            words = shlex.split(line)
            assert words[:3] == ["claude", "mcp", "add"], line
            if "--" in words:
                command = words[words.index("--") + 1 :]
                assert command[0] == f"{CHECKOUT}/.venv/bin/tabwarden"
                _cli_parses(command[1:])
                kinds[client].add("stdio")
            else:
                header = words[words.index("--header") + 1]
                value = header.removeprefix("Authorization: ").replace(f"${TOKEN_ENV}", TOKEN)
                _check_url_and_header(words[words.index("http") + 2], value)
                kinds[client].add("http")
    assert kinds == {client: {"stdio", "http"} for client in CLIENTS}


def test_the_cli_refuses_what_a_snippet_must_not_say() -> None:
    """The parse the snippets pass is a real one."""
    with pytest.raises(typer.TyperException, match="--no-such-flag"):
        _cli_parses(["mcp", "--no-such-flag"])
    assert _cli_parses(["mcp", "--tools", "core,devtools"]).params["tools"] == "core,devtools"


def test_the_readme_states_the_default_tools_and_their_cost() -> None:
    served = select_tools(DEFAULT_GROUPS, Config())
    _, tokens = definitions_size(served)
    section = _section()
    stated = re.search(r"is (\d+) tools whose definitions cost about ([\d,]+) tokens", section)
    assert stated is not None
    assert int(stated.group(1)) == len(served)
    assert int(stated.group(2).replace(",", "")) == round(tokens, -2), (
        f"the README says {stated.group(2)}; the figure is now about {round(tokens, -2):,}"
    )
    listed = section[stated.end() : section.index("- **Resize")]
    assert set(re.findall(r"`(browser_\w+)`", listed)) == {spec.name for spec in served}
    assert math.ceil(tokens) <= 6000


@contextlib.asynccontextmanager
async def _serving(options: MCPOptions) -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[str] = loop.create_future()
    task = asyncio.create_task(serve_http(options, ready=ready.set_result))
    await asyncio.wait({ready, task}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
    try:
        yield ready.result()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_server_started_as_the_readme_says_answers_the_snippets_header() -> None:
    """The Cursor snippet's URL path and header, against a real server with a token (on a
    free port: 8931 may be taken here). Initialize starts no browser."""
    (entry,) = [
        json.loads(block)["mcpServers"]["tabwarden"]
        for client, block in _client_blocks("json")
        if client == "Cursor" and '"url"' in block
    ]
    authorization = _with_token(entry["headers"]["Authorization"], [])
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "readme", "version": "0"},
        },
    }
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    options = MCPOptions(http=True, token=TOKEN, config=Config())
    async with _serving(options) as url, httpx2.AsyncClient(timeout=60) as http:
        assert urlsplit(url).path == urlsplit(entry["url"]).path
        refused = await http.post(url, json=initialize, headers=headers)
        assert refused.status_code == 401
        answered = await http.post(
            url, json=initialize, headers={**headers, "authorization": authorization}
        )
        assert answered.status_code == 200, answered.text
