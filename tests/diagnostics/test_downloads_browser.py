"""Downloads land in the workspace under safe names, are tracked to their end, and
executables are flagged and never left executable."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.config import Config
from tabwarden.errors import InvalidArgument
from tabwarden.manager import SessionManager
from tabwarden.tools.context import ToolContext
from tabwarden.tools.registry import call_tool
from tabwarden.tools.spec import UNTRUSTED_MARK
from tests.fakes.cdp_proxy import CDPProxy

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("downloads-ws")


@pytest.fixture(scope="module")
async def session(workspace):
    async with tabwarden.launch(isolated=True, workspace=workspace) as browser:
        yield browser


@pytest.fixture
async def tab(session, server):
    tab = await session.new_tab(server.url("/files_downloads.html"))
    yield tab
    if not tab.closed:
        await tab.close()


async def _download(session, tab, selector: str):
    """Click a download link; return the receipt and the finished download."""
    receipt = await tab.click(selector)
    listing = await session.downloads(wait=True, timeout_ms=15_000)
    assert not listing.still_running, listing.text()
    mine = [d for d in listing.downloads if d.tab_id == tab.id and d.started_at]
    return receipt, mine[-1]


async def test_a_text_download_completes_with_its_final_path_and_size(session, tab, workspace):
    receipt, download = await _download(session, tab, "#notes")
    assert download.state == "completed"
    folder = workspace / "tabwarden-output" / "downloads"
    assert download.path is not None and download.path.parent == folder
    assert download.path.name.startswith("notes") and download.path.suffix == ".txt"
    content = download.path.read_bytes()
    assert content == b"notes for notes.txt\n" * 20
    assert download.size == len(content) == download.received_bytes == download.total_bytes
    assert not download.executable
    # The GUID-named file was renamed, not copied.
    assert not (folder / download.guid).exists()
    assert "download started: notes.txt (" in receipt.text()
    assert f") into {folder} " in receipt.text()  # the reply says where the file goes
    assert f"{download.size:,} bytes at {download.path}" in download.describe()


@pytest.mark.parametrize(
    ("selector", "name", "reasons"),
    [
        ("#setup", "setup.exe", [".exe files run code", "Windows executable (PE)"]),
        ("#script", "run.sh", [".sh files run code", "#! interpreter line"]),
        ("#renamed", "report.pdf", ["Windows executable (PE)"]),
    ],
)
async def test_executables_are_flagged_and_saved_without_an_exec_bit(
    session, tab, selector, name, reasons
):
    _, download = await _download(session, tab, selector)
    assert download.state == "completed" and download.executable
    stem, suffix = name.rsplit(".", 1)
    assert download.path.name.startswith(stem) and download.path.suffix == f".{suffix}"
    for reason in reasons:
        assert any(reason in r for r in download.reasons), download.reasons
    assert stat.S_IMODE(download.path.stat().st_mode) & 0o111 == 0
    listing = await session.downloads()
    text = listing.text()
    assert f"{download.name} (" in text and "WARNING: executable" in text
    assert "never open or run them" in text


async def test_a_download_whose_server_drops_is_reported_failed(session, tab, workspace):
    _, download = await _download(session, tab, "#broken")
    assert download.state == "failed"
    assert "interrupted" in download.error
    assert download.path is None
    assert download.received_bytes < download.total_bytes
    assert not (workspace / "tabwarden-output" / "downloads" / download.guid).exists()
    assert "broken.zip" in download.describe() and "failed" in download.describe()


async def test_a_download_in_progress_can_be_waited_on_and_canceled(session, tab):
    await tab.click("#slow")
    listing = await session.downloads()
    running = [d for d in listing.downloads if d.suggested_name == "big.bin"]
    if not running:  # the response may not have started yet: wait for its first bytes
        short = await session.downloads(wait=True, timeout_ms=300)
        running = [d for d in short.downloads if d.suggested_name == "big.bin"]
    assert running and running[-1].state == "in_progress"
    waited = await session.downloads(wait=True, guid=running[-1].guid, timeout_ms=400)
    assert waited.still_running and "still in progress at the deadline" in waited.text()
    canceled = await session.cancel_download(running[-1].guid)
    assert canceled.state == "canceled" and canceled.error == "canceled on request"
    with pytest.raises(InvalidArgument, match="no download"):
        await session.cancel_download("not-a-guid")


async def test_a_page_suggested_name_cannot_leave_the_folder(session, tab, workspace):
    _, download = await _download(session, tab, "#sneaky")
    folder = workspace / "tabwarden-output" / "downloads"
    assert download.path is not None and download.path.parent == folder
    assert not download.path.name.startswith(".")
    assert not (workspace / ".bashrc").exists()


async def test_downloads_tool_lists_and_flags(server, tmp_path):
    config = Config()
    config.browser.isolated = True
    config.browser.workspace = tmp_path
    config.files.max_downloads = 2
    async with SessionManager(config) as manager:
        ctx = ToolContext(manager, "files")
        await call_tool(ctx, "browser_navigate", {"url": server.url("/files_downloads.html")})
        for selector in ("#notes", "#setup", "#script"):
            await call_tool(ctx, "browser_click", {"ref": selector})
            await call_tool(ctx, "browser_downloads", {"wait": True, "timeout_ms": 15_000})
        result = await call_tool(ctx, "browser_downloads", {})
        text = result.final_text()
        assert result.untrusted and text.startswith(UNTRUSTED_MARK + "\n")
        assert "2 downloads (1 older one forgotten; its file stays)" in text
        assert "setup.exe" in text and "run.sh" in text and "notes.txt" not in text
        assert result.data["dropped"] == 1 and result.data["capacity"] == 2
        assert all(d["executable"] for d in result.data["downloads"])
        assert (tmp_path / "tabwarden-output" / "downloads" / "notes.txt").is_file()


async def test_downloads_are_tracked_again_after_a_reconnect(session, server, tmp_path):
    proxy = CDPProxy(session.endpoint.ws_url)
    await proxy.start()
    config = Config()
    config.browser.workspace = tmp_path
    config.safety.allow_attach = True  # the user consented to attaching
    try:
        async with tabwarden.attach(proxy.http_url, config=config) as guest:
            tab = await guest.new_tab(server.url("/files_downloads.html"))
            await proxy.drop_clients()
            budget = Budget(15.0)
            while guest.state().connection != "connected" or proxy.connections < 2:
                budget.check("reconnecting")
                await budget.sleep(0.02)
            await tab.click("#notes")
            listing = await guest.downloads(wait=True, timeout_ms=15_000)
            done = [d for d in listing.downloads if d.state == "completed"]
            assert done and done[-1].path.parent == tmp_path / "tabwarden-output" / "downloads"
            await tab.close()
    finally:
        await proxy.stop()


async def test_a_download_cut_short_by_a_browser_crash_is_reported_failed(server, tmp_path):
    async with tabwarden.launch(isolated=True, workspace=tmp_path) as browser:
        tab = await browser.new_tab(server.url("/files_downloads.html"))
        await tab.click("#slow")
        budget = Budget(10.0)
        while not (await browser.downloads()).downloads:
            budget.check("the slow download to start")
            await budget.sleep(0.02)
        os.killpg(browser.endpoint.pid, signal.SIGKILL)
        while browser.connected:
            budget.check("noticing the crash")
            await budget.sleep(0.02)
        await browser.new_tab(server.url("/index.html"))  # relaunches the browser
        (download,) = (await browser.downloads(wait=True, timeout_ms=2_000)).downloads
        assert download.state == "failed" and "went away" in download.error


async def test_a_session_creates_no_folders_until_something_is_saved(server, tmp_path):
    async with tabwarden.launch(isolated=True, workspace=tmp_path) as browser:
        await browser.new_tab(server.url("/files_downloads.html"))
        assert list(tmp_path.iterdir()) == []
