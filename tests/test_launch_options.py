"""Launch options: one configuration field each, set the same from a keyword, a flag's text,
a config file and the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabwarden.config import Config, load_config
from tabwarden.errors import ConfigError
from tabwarden.launch_options import LAUNCH_OPTIONS, apply_launch_options


def test_each_option_sets_its_configuration_field(tmp_path: Path) -> None:
    config = Config()
    apply_launch_options(
        config,
        proxy_server="http://proxy:3128",
        proxy_bypass="localhost;.internal.test",
        ignore_https_errors=True,
        device="Pixel 8",
        user_agent="Agent/1.0",
        storage_state=tmp_path / "state.json",
        init_scripts=[tmp_path / "a.js", str(tmp_path / "b.js")],
        grant_permissions=["geolocation", "clipboard-read"],
        allowed_origins="example.com, https://*.example.org",
        blocked_origins=("ads.example.com",),
        output_dir=tmp_path / "out",
        backend="Browser_Use",
        engine="Firefox",
    )
    browser = config.browser
    assert browser.engine == "firefox"
    assert browser.backend == "browser-use"
    assert browser.proxy_server == "http://proxy:3128"
    assert browser.proxy_bypass == ["localhost", ".internal.test"]
    assert browser.ignore_https_errors is True
    assert browser.device == "pixel-8"
    assert browser.user_agent == "Agent/1.0"
    assert browser.storage_state == tmp_path / "state.json"
    assert browser.init_scripts == [tmp_path / "a.js", tmp_path / "b.js"]
    assert browser.grant_permissions == ["geolocation", "clipboard-read"]
    assert config.policy.allow == ["example.com", "https://*.example.org"]
    assert config.policy.deny == ["ads.example.com"]
    assert config.files.output_dir == tmp_path / "out"
    assert {option.name for option in LAUNCH_OPTIONS} == {
        "engine",
        "proxy_server",
        "proxy_bypass",
        "ignore_https_errors",
        "device",
        "user_agent",
        "storage_state",
        "init_scripts",
        "grant_permissions",
        "allowed_origins",
        "blocked_origins",
        "output_dir",
        "backend",
        "isolation",
    }


def test_unset_options_leave_the_configuration_as_it_is() -> None:
    config = Config()
    config.policy.deny = ["kept.example"]
    apply_launch_options(config)
    assert config == Config(policy={"deny": ["kept.example"]})


def test_files_are_resolved_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = Config()
    apply_launch_options(config, storage_state="state.json", init_scripts="init.js")
    assert config.browser.storage_state == tmp_path / "state.json"
    assert config.browser.init_scripts == [tmp_path / "init.js"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("example.com;*.example.org", ["example.com", "*.example.org"]),
        ("example.com, *.example.org", ["example.com", "*.example.org"]),
        ('["example.com", "*.example.org"]', ["example.com", "*.example.org"]),
    ],
)
def test_a_list_is_written_the_same_in_the_environment_a_file_and_a_flag(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    env = {
        "TABWARDEN_POLICY__ALLOW": text,
        "TABWARDEN_POLICY__DENY": text,
        "TABWARDEN_BROWSER__PROXY_BYPASS": text,
    }
    from_env = load_config(env=env)
    assert from_env.policy.allow == from_env.policy.deny == from_env.browser.proxy_bypass == words
    file = tmp_path / "tw.yaml"
    file.write_text(f"policy:\n  allow: {text!r}\n")
    assert load_config(file, env={}).policy.allow == words
    flagged = Config()
    apply_launch_options(flagged, allowed_origins=text, blocked_origins=[text])
    assert flagged.policy.allow == flagged.policy.deny == words


def test_permissions_and_device_from_the_environment() -> None:
    config = load_config(
        env={
            "TABWARDEN_BROWSER__GRANT_PERMISSIONS": "geolocation,Notifications",
            "TABWARDEN_BROWSER__DEVICE": "iPhone 15",
            "TABWARDEN_BROWSER__IGNORE_HTTPS_ERRORS": "true",
            "TABWARDEN_BROWSER__INIT_SCRIPTS": "/a.js;/b.js",
        }
    )
    assert config.browser.grant_permissions == ["geolocation", "notifications"]
    assert config.browser.device == "iphone-15"
    assert config.browser.ignore_https_errors is True
    assert config.browser.init_scripts == [Path("/a.js"), Path("/b.js")]


@pytest.mark.parametrize(
    ("keyword", "value", "named"),
    [
        ("device", "nokia-3310", "--device (browser.device)"),
        ("grant_permissions", "geolocation,telepathy", "--grant-permissions"),
        ("allowed_origins", "exa mple.com", "--allowed-origins (policy.allow)"),
        ("user_agent", "two\nlines", "--user-agent"),
        ("backend", "nimbus", "unknown browser backend 'nimbus'"),
        ("isolation", "threads", "--isolation (browser.isolation)"),
    ],
)
def test_a_bad_value_is_a_config_error_naming_the_option(
    keyword: str, value: str, named: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        apply_launch_options(Config(), **{keyword: value})
    assert named in caught.value.message


def test_a_bad_value_in_the_environment_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"browser\.grant_permissions.*telepathy"):
        load_config(env={"TABWARDEN_BROWSER__GRANT_PERMISSIONS": "telepathy"})


def test_isolation_is_set_by_its_keyword_and_context_mode_needs_the_local_backend() -> None:
    config = Config()
    apply_launch_options(config, isolation=" Context ")
    assert config.browser.isolation == "context"
    with pytest.raises(ConfigError, match="needs the local backend") as caught:
        apply_launch_options(config, backend="grid")
    assert "--isolation process" in (caught.value.hint or "")
    apply_launch_options(config, isolation="process", backend="grid")
    assert (config.browser.isolation, config.browser.backend) == ("process", "grid")
