"""Shared fixtures: local HTTP servers, a Chromium per test module, process probes.

Tests that need Chromium are marked ``browser``: a test whose fixtures include
``browser`` (directly or through other fixtures) is marked here, and a test that
starts Chromium another way carries ``@pytest.mark.browser``. While a test not so
marked runs, ``chromium`` is a stand-in that refuses to start (first on ``PATH`` and
named by ``TABWARDEN_CHROME``, so CLI and MCP processes the test starts get it too):
a missing mark fails the test, and ``pytest -m "not browser"`` starts no browser.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio

import tabwarden
from tests.local_server import LocalServer

BROWSER_MARK = "browser"
BROWSER_FIXTURE = "browser"
REFUSED_BROWSER = Path(__file__).with_name("refused_browser") / "chromium"
REFUSED_FIREFOX = REFUSED_BROWSER.with_name("firefox-esr")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``browser`` every test whose fixtures include ``browser`` (the one below or a
    module's own)."""
    for item in items:
        if BROWSER_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(BROWSER_MARK)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    """Set-up, call and tear-down of a test not marked ``browser`` see the stand-in."""
    if item.get_closest_marker(BROWSER_MARK) is not None:
        return (yield)
    with _browser_refused():
        return (yield)


@contextlib.contextmanager
def _browser_refused() -> Iterator[None]:
    """``PATH``, ``TABWARDEN_CHROME`` and ``TABWARDEN_FIREFOX`` lead to the stand-ins, then
    back to what they were."""
    names = ("PATH", "TABWARDEN_CHROME", "TABWARDEN_FIREFOX")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["PATH"] = os.pathsep.join([str(REFUSED_BROWSER.parent), saved["PATH"] or os.defpath])
    os.environ["TABWARDEN_CHROME"] = str(REFUSED_BROWSER)
    os.environ["TABWARDEN_FIREFOX"] = str(REFUSED_FIREFOX)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="session")
def server() -> Iterator[LocalServer]:
    """Pages on 127.0.0.1."""
    srv = LocalServer("127.0.0.1").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def other_origin() -> Iterator[LocalServer]:
    """The same pages on localhost, another port: a different site."""
    srv = LocalServer("localhost").start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True, scope="session")
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Persistent profiles of the tests go to a temporary folder, not the user's."""
    old = os.environ.get("TABWARDEN_DATA_DIR")
    os.environ["TABWARDEN_DATA_DIR"] = str(tmp_path_factory.mktemp("tabwarden-data"))
    yield
    if old is None:
        os.environ.pop("TABWARDEN_DATA_DIR", None)
    else:
        os.environ["TABWARDEN_DATA_DIR"] = old


@pytest.fixture(autouse=True, scope="session")
def _temporary_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The tests' workspace is pytest's temporary folder: every ``tmp_path`` lies inside
    it (uploads may come from there), and nothing a test saves lands in the checkout."""
    old = os.environ.get("TABWARDEN_BROWSER__WORKSPACE")
    os.environ["TABWARDEN_BROWSER__WORKSPACE"] = str(tmp_path_factory.getbasetemp())
    yield
    if old is None:
        os.environ.pop("TABWARDEN_BROWSER__WORKSPACE", None)
    else:
        os.environ["TABWARDEN_BROWSER__WORKSPACE"] = old


@pytest_asyncio.fixture(scope="module")
async def browser() -> AsyncIterator[tabwarden.BrowserSession]:
    """One isolated Chromium shared by the tests of a module."""
    async with tabwarden.launch(isolated=True) as session:
        yield session


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def browser_processes(marker: str | Path) -> list[psutil.Process]:
    """Live processes whose command line mentions ``marker`` (a profile path, a pid)."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            if any(str(marker) in part for part in proc.info["cmdline"] or ()):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found
