"""Fixtures for tests against third-party packages from npm, served locally."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.local_server import LocalServer
from tests.npm_packages import THIRDPARTY, NpmInstallError, ensure_installed


@pytest.fixture(scope="session")
def npm_packages() -> None:
    """tests/thirdparty/node_modules as package-lock.json pins it (``npm ci`` when not)."""
    try:
        ensure_installed()
    except NpmInstallError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def thirdparty(npm_packages: None) -> Iterator[LocalServer]:
    """tests/thirdparty on 127.0.0.1: its pages under /pages, the packages under
    /node_modules."""
    srv = LocalServer("127.0.0.1", root=THIRDPARTY).start()
    yield srv
    srv.stop()
