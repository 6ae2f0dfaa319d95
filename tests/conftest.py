"""Shared fixtures: local HTTP servers, a Chromium per test module, process probes."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio

import tabwarden
from tests.local_server import LocalServer


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
