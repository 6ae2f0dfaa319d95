"""Context mode's settings, checked without a browser: the one config field, its flag and
keyword, the backend it picks, and what it refuses (another backend, a profile)."""

from __future__ import annotations

from typing import Any

import pytest

from tabwarden.backends.choice import backend_for
from tabwarden.backends.context import SharedContext
from tabwarden.backends.local import LocalChromium, LocalOptions
from tabwarden.backends.shared_browser import SharedBrowsers
from tabwarden.budget import Budget
from tabwarden.cdp.scoped import browser_session
from tabwarden.config import Config, load_config
from tabwarden.errors import ConfigError


def test_isolation_defaults_to_process_and_takes_only_its_two_modes() -> None:
    assert Config().browser.isolation == "process"
    assert load_config(env={"TABWARDEN_BROWSER__ISOLATION": "context"}).browser.isolation == (
        "context"
    )
    with pytest.raises(ConfigError, match=r"browser\.isolation"):
        load_config(env={"TABWARDEN_BROWSER__ISOLATION": "threads"})


def test_context_mode_picks_a_shared_context_of_the_local_backend() -> None:
    config = Config()
    assert isinstance(backend_for(config, "a"), LocalChromium)
    config.browser.isolation = "context"
    backend = backend_for(config, "a")
    assert isinstance(backend, SharedContext)
    assert backend.owns_browser and backend.browser_context_id is None  # not started
    assert backend.viewport == (1280, 720)


def test_context_mode_with_another_backend_is_a_config_error() -> None:
    config = Config()
    config.browser.isolation = "context"
    config.browser.backend = "browserbase"
    with pytest.raises(ConfigError, match="needs the local backend") as caught:
        backend_for(config, "a")
    assert "isolation: process" in (caught.value.hint or "")


async def test_context_mode_refuses_a_profile_switch_before_launching_anything() -> None:
    pool = SharedBrowsers()
    backend = SharedContext(
        LocalOptions(extra_args=("--user-data-dir=/tmp/mine",), allow_foreign_profile=True),
        pool=pool,
    )
    with pytest.raises(ConfigError, match="keep their data in memory") as caught:
        await backend.start(Budget(5))
    assert "isolation: process" in (caught.value.hint or "")
    assert pool.launches == 0 and pool.running() == []


class _Connection:
    """Records what is sent; answers a target list of two contexts."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any] | None]] = []

    async def send(
        self, method: str, params: dict[str, Any] | None, *, budget: Budget, session_id: Any
    ) -> dict[str, Any]:
        self.sent.append((method, params))
        if method == "Target.getTargets":
            infos = [{"targetId": "1", "browserContextId": "A"}, {"targetId": "2"}]
            return {"targetInfos": infos}
        return {}


async def test_browser_wide_commands_are_scoped_to_the_sessions_context() -> None:
    connection = _Connection()
    browser = browser_session(connection, "A")  # type: ignore[arg-type]
    budget = Budget(5)
    await browser.send("Storage.getCookies", budget=budget)
    await browser.send("Browser.grantPermissions", {"permissions": ["geolocation"]}, budget=budget)
    await browser.send("Target.createTarget", {"url": "about:blank"}, budget=budget)
    await browser.send("Browser.getVersion", budget=budget)
    reply = await browser.send("Target.getTargets", budget=budget)
    assert connection.sent[:4] == [
        ("Storage.getCookies", {"browserContextId": "A"}),
        ("Browser.grantPermissions", {"browserContextId": "A", "permissions": ["geolocation"]}),
        ("Target.createTarget", {"browserContextId": "A", "url": "about:blank"}),
        ("Browser.getVersion", None),
    ]
    assert [info["targetId"] for info in reply["targetInfos"]] == ["1"]
    whole = browser_session(connection, None)  # type: ignore[arg-type]
    await whole.send("Storage.getCookies", budget=budget)
    assert connection.sent[-1] == ("Storage.getCookies", None)
