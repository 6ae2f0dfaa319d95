"""``browser.backend`` names a backend; the table in backends/choice.py makes it."""

from __future__ import annotations

import pytest

from tabwarden.backends.choice import BACKENDS, backend_for, check_backend
from tabwarden.backends.cloud import PROVIDERS, CloudBackend
from tabwarden.backends.local import LocalChromium
from tabwarden.config import Config, load_config
from tabwarden.errors import ConfigError


def test_local_is_the_default_and_every_cloud_provider_has_a_name() -> None:
    assert Config().browser.backend == "local"
    assert isinstance(backend_for(Config()), LocalChromium)
    assert set(PROVIDERS) <= set(BACKENDS)
    for name in PROVIDERS:
        config = Config()
        config.browser.backend = name
        backend = backend_for(config, "task")
        assert isinstance(backend, CloudBackend) and backend.name == name
        assert backend.needs_dialog_bridge == PROVIDERS[name]().capabilities.dialog_bridge


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        check_backend("nimbus")
    assert "nimbus" in caught.value.message
    for name in BACKENDS:
        assert name in caught.value.hint
    config = Config()
    config.browser.backend = "nimbus"
    with pytest.raises(ConfigError, match="unknown browser backend 'nimbus'"):
        backend_for(config)


def test_the_backend_and_cloud_settings_come_from_the_environment() -> None:
    config = load_config(
        env={
            "TABWARDEN_BROWSER__BACKEND": "Browser_Use",
            "TABWARDEN_CLOUD__PROXY": "de",
            "TABWARDEN_CLOUD__TIMEOUT_S": "600",
            "TABWARDEN_CLOUD__API_KEY": "bu_from_env_0123456789",
        }
    )
    assert config.browser.backend == "browser-use"
    assert config.cloud.proxy == "de" and config.cloud.timeout_s == 600
    assert "bu_from_env_0123456789" not in repr(config) + str(config.model_dump())
    backend = backend_for(config)
    assert isinstance(backend, CloudBackend)
    assert backend.settings.api_key == "bu_from_env_0123456789"
    assert "bu_from_env_0123456789" not in repr(backend.settings) + repr(backend)
