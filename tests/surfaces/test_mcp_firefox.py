"""The MCP server over stdio on the Firefox engine (``--engine firefox``): the SDK's own
client lists only the tools Firefox serves, and they work end to end; nothing is left."""

from __future__ import annotations

import sys

import pytest
from mcp import Client, StdioServerParameters

from tabwarden.tools.firefox import FIREFOX_HANDLERS
from tabwarden.tools.spec import UNTRUSTED_MARK
from tests.local_server import LocalServer
from tests.surfaces.test_mcp_stdio import SERVER_CODE, ok, ref_of, run_dir, text

__all__ = ["run_dir"]  # the fixture, used here


def firefox_params(run_dir: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-c", SERVER_CODE.format(args="groups=('all',)")],
        env={
            "TMPDIR": run_dir,
            "TABWARDEN_DATA_DIR": f"{run_dir}/data",
            "TABWARDEN_BROWSER__ENGINE": "firefox",
            "TABWARDEN_BROWSER__ISOLATED": "true",
        },
    )


@pytest.mark.browser
async def test_stdio_on_firefox_end_to_end(run_dir: str, server: LocalServer) -> None:
    async with Client(firefox_params(run_dir)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == set(FIREFOX_HANDLERS)

        said = await ok(client, "browser_navigate", {"url": server.url("/engines.html")})
        assert "200" in said and "Engines" in said
        snapshot = await ok(client, "browser_snapshot", {})
        assert snapshot.startswith(UNTRUSTED_MARK + "\n")
        said = await ok(client, "browser_click", {"ref": ref_of(snapshot, "Confirm")})
        assert "dialog open: d-" in said, said
        answered = await ok(client, "browser_handle_dialog", {"action": "dismiss"})
        assert answered.startswith(f"{UNTRUSTED_MARK}\ndismissed d-"), answered
        title = await ok(client, "browser_evaluate", {"expression": "document.title"})
        assert "confirm false" in title

        # A tool Firefox does not do is not listed, and a call says why.
        refused = await client.call_tool("browser_cdp", {"method": "Browser.getVersion"})
        assert refused.is_error and "not on this engine (firefox)" in text(refused)
