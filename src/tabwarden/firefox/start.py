"""Starting a Firefox session from the configuration (``browser.engine: firefox``)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ..backends.choice import local_options
from ..backends.firefox import LocalFirefox
from ..config import Config
from ..errors import ConfigError
from .session import FirefoxSession

__all__ = ["FirefoxStart", "firefox_session"]


def firefox_session(config: Config, name: str = "default") -> FirefoxSession:
    """The Firefox session ``config`` describes; Firefox runs with the local backend only."""
    if config.browser.backend != "local":
        raise ConfigError(
            f"the firefox engine runs with the local backend only, not {config.browser.backend}",
            hint="drop --backend (browser.backend) or use engine chromium for it",
        )
    if config.browser.isolation != "process":
        raise ConfigError(
            "the firefox engine gives each session a Firefox of its own: browser.isolation "
            f"{config.browser.isolation} is Chromium's",
            hint="drop --isolation (browser.isolation: process), or use engine chromium for "
            "sessions as browser contexts (docs/isolation.md)",
        )
    options = local_options(config, f"{name}.firefox")
    return FirefoxSession(LocalFirefox(options), name=name, config=config)


class FirefoxStart:
    """What ``launch(engine="firefox")`` returns: ``await`` it, or use ``async with``."""

    def __init__(self, session: FirefoxSession, timeout_ms: float | None) -> None:
        self._session = session
        self._timeout_ms = timeout_ms
        self._started = False

    def __await__(self) -> Generator[Any, None, FirefoxSession]:
        return self._start().__await__()

    async def __aenter__(self) -> FirefoxSession:
        return await self._start()

    async def __aexit__(self, *exc: object) -> None:
        await self._session.close()

    async def _start(self) -> FirefoxSession:
        try:
            await self._session.start(timeout_ms=self._timeout_ms)
        except BaseException:
            await self._session.close()
            raise
        return self._session
