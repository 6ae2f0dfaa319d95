"""Unit tests for tabwarden.config: defaults, YAML file, environment overrides, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabwarden.config import BrowserConfig, Config, TimeoutConfig, config_reference, load_config
from tabwarden.errors import ConfigError


@pytest.fixture(autouse=True)
def _empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run every test in an empty folder so a stray ./tabwarden.yaml cannot leak in."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return cwd


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ---- defaults ----------------------------------------------------------------------


def test_defaults_without_file_or_env() -> None:
    config = load_config(env={})
    assert isinstance(config, Config)
    browser = config.browser
    assert browser.executable is None
    assert browser.headless is True
    assert browser.isolated is False
    assert browser.workspace is None
    assert browser.data_dir is None
    assert browser.extra_args == []
    assert browser.window_width == 1280
    assert browser.window_height == 720
    assert browser.inactivity_timeout_s == 120
    timeouts = config.timeouts
    assert timeouts.launch_ms == 30_000
    assert timeouts.action_ms == 15_000
    assert timeouts.navigation_ms == 30_000
    assert timeouts.max_ms == 600_000


def test_defaults_equal_the_model_defaults() -> None:
    assert load_config(env={}) == Config()
    assert Config().browser == BrowserConfig()
    assert Config().timeouts == TimeoutConfig()


def test_unrelated_env_is_ignored() -> None:
    env = {"PATH": "/usr/bin", "HOME": "/root", "TABWARDEN_SOMETHING": "x", "OTHER__KEY": "1"}
    assert load_config(env=env) == Config()


def test_empty_env_value_is_ignored() -> None:
    config = load_config(env={"TABWARDEN_BROWSER__HEADLESS": "", "TABWARDEN_CHROME": ""})
    assert config.browser.headless is True
    assert config.browser.executable is None


# ---- YAML file ---------------------------------------------------------------------


def test_yaml_file_sets_values(tmp_path: Path) -> None:
    path = write(
        tmp_path / "conf.yaml",
        """
browser:
  headless: false
  executable: /opt/chrome/chrome
  extra_args: ["--lang=de", "--mute-audio"]
  window_width: 1024
timeouts:
  action_ms: 5000
""",
    )
    config = load_config(path, env={})
    assert config.browser.headless is False
    assert config.browser.executable == "/opt/chrome/chrome"
    assert config.browser.extra_args == ["--lang=de", "--mute-audio"]
    assert config.browser.window_width == 1024
    assert config.timeouts.action_ms == 5000
    # untouched keys keep their defaults
    assert config.browser.window_height == 720
    assert config.timeouts.navigation_ms == 30_000


def test_yaml_path_may_be_a_string(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "browser:\n  isolated: true\n")
    assert load_config(str(path), env={}).browser.isolated is True


def test_empty_yaml_file_gives_defaults(tmp_path: Path) -> None:
    path = write(tmp_path / "empty.yaml", "")
    assert load_config(path, env={}) == Config()


def test_tabwarden_config_env_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "from-env.yaml", "timeouts:\n  launch_ms: 1234\n")
    config = load_config(env={"TABWARDEN_CONFIG": str(path)})
    assert config.timeouts.launch_ms == 1234


def test_explicit_path_wins_over_tabwarden_config_env(tmp_path: Path) -> None:
    explicit = write(tmp_path / "explicit.yaml", "timeouts:\n  launch_ms: 1111\n")
    from_env = write(tmp_path / "env.yaml", "timeouts:\n  launch_ms: 2222\n")
    config = load_config(explicit, env={"TABWARDEN_CONFIG": str(from_env)})
    assert config.timeouts.launch_ms == 1111


def test_local_tabwarden_yaml_is_used_when_present(_empty_cwd: Path) -> None:
    write(_empty_cwd / "tabwarden.yaml", "browser:\n  window_height: 900\n")
    assert load_config(env={}).browser.window_height == 900


def test_tabwarden_config_env_wins_over_local_file(_empty_cwd: Path, tmp_path: Path) -> None:
    write(_empty_cwd / "tabwarden.yaml", "browser:\n  window_height: 900\n")
    other = write(tmp_path / "other.yaml", "browser:\n  window_height: 500\n")
    config = load_config(env={"TABWARDEN_CONFIG": str(other)})
    assert config.browser.window_height == 500


def test_local_tabwarden_yaml_in_another_folder_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write(project / "tabwarden.yaml", "browser:\n  window_height: 900\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_config(env={}).browser.window_height == 720
    monkeypatch.chdir(project)
    assert load_config(env={}).browser.window_height == 900


# ---- environment -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["false", "False", "0", "no", "off"])
def test_env_headless_false(value: str) -> None:
    config = load_config(env={"TABWARDEN_BROWSER__HEADLESS": value})
    assert config.browser.headless is False


def test_env_overrides_file(tmp_path: Path) -> None:
    path = write(
        tmp_path / "conf.yaml",
        "browser:\n  headless: true\n  window_width: 1024\ntimeouts:\n  action_ms: 1000\n",
    )
    config = load_config(
        path,
        env={"TABWARDEN_BROWSER__HEADLESS": "false", "TABWARDEN_TIMEOUTS__ACTION_MS": "2500"},
    )
    assert config.browser.headless is False
    assert config.timeouts.action_ms == 2500
    assert config.browser.window_width == 1024  # not overridden, kept from the file


def test_env_tabwarden_chrome_sets_executable() -> None:
    config = load_config(env={"TABWARDEN_CHROME": "/usr/bin/my-chrome"})
    assert config.browser.executable == "/usr/bin/my-chrome"


def test_env_tabwarden_chrome_overrides_file_executable(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "browser:\n  executable: /from/file\n")
    config = load_config(path, env={"TABWARDEN_CHROME": "/from/env"})
    assert config.browser.executable == "/from/env"


def test_env_tabwarden_data_dir_sets_data_dir(tmp_path: Path) -> None:
    config = load_config(env={"TABWARDEN_DATA_DIR": str(tmp_path / "data")})
    assert config.browser.data_dir == tmp_path / "data"
    assert isinstance(config.browser.data_dir, Path)


def test_env_timeouts_action_ms_is_parsed_as_int() -> None:
    config = load_config(env={"TABWARDEN_TIMEOUTS__ACTION_MS": "5000"})
    assert config.timeouts.action_ms == 5000
    assert isinstance(config.timeouts.action_ms, int)


def test_env_section_and_key_are_case_insensitive() -> None:
    config = load_config(env={"TABWARDEN_Browser__Window_Width": "800"})
    assert config.browser.window_width == 800


def test_env_extra_args_is_parsed_as_yaml_list() -> None:
    config = load_config(env={"TABWARDEN_BROWSER__EXTRA_ARGS": "[--foo, --bar=1]"})
    assert config.browser.extra_args == ["--foo", "--bar=1"]


def test_grid_section_from_file_and_nested_env_keys(tmp_path: Path) -> None:
    path = write(
        tmp_path / "conf.yaml",
        "browser:\n  grid:\n    url: http://grid:4444/\n    max_sessions: 3\n"
        "    capabilities:\n      platformName: linux\n",
    )
    config = load_config(
        path,
        env={
            "TABWARDEN_BROWSER__GRID__SESSION_TIMEOUT": "60",
            "TABWARDEN_BROWSER__GRID__CAPABILITIES": '{"browserVersion": "stable"}',
        },
    )
    grid = config.browser.grid
    assert (grid.url, grid.max_sessions, grid.session_timeout) == ("http://grid:4444", 3, 60)
    assert grid.capabilities == {"browserVersion": "stable"}  # the environment wins
    assert load_config(env={}).browser.grid.url is None


def test_grid_url_must_be_http_and_unknown_grid_keys_are_named() -> None:
    with pytest.raises(ConfigError, match=r"browser\.grid\.url: .*http://"):
        load_config(env={"TABWARDEN_BROWSER__GRID__URL": "grid:4444"})
    with pytest.raises(ConfigError, match=r"browser\.grid\.slots"):
        load_config(env={"TABWARDEN_BROWSER__GRID__SLOTS": "2"})


def test_reference_lists_the_keys_of_sub_sections() -> None:
    reference = config_reference()
    grid = reference.index("## `browser.grid`")
    assert reference.index("## `browser`") < grid < reference.index("## `timeouts`")
    assert "| `max_sessions` | `4` |" in reference[grid:]


def test_env_creates_section_missing_from_file(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "browser:\n  headless: false\n")
    config = load_config(path, env={"TABWARDEN_TIMEOUTS__NAVIGATION_MS": "7000"})
    assert config.browser.headless is False
    assert config.timeouts.navigation_ms == 7000


# ---- errors ------------------------------------------------------------------------


def test_unknown_key_in_file_raises_config_error_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "browser:\n  colour: red\n")
    with pytest.raises(ConfigError, match=r"browser\.colour"):
        load_config(path, env={})


def test_unknown_section_in_file_raises_config_error_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "proxy:\n  host: x\n")
    with pytest.raises(ConfigError, match=r"proxy"):
        load_config(path, env={})


def test_unknown_env_key_raises_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"browser\.nope"):
        load_config(env={"TABWARDEN_BROWSER__NOPE": "1"})


def test_unknown_env_section_raises_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"\bnetwork\b"):
        load_config(env={"TABWARDEN_NETWORK__PROXY": "http://x"})


@pytest.mark.parametrize(
    ("env", "key"),
    [
        ({"TABWARDEN_BROWSER__HEADLESS": "maybe"}, "browser.headless"),
        ({"TABWARDEN_BROWSER__WINDOW_WIDTH": "wide"}, "browser.window_width"),
        ({"TABWARDEN_BROWSER__WINDOW_WIDTH": "100"}, "browser.window_width"),
        ({"TABWARDEN_BROWSER__WINDOW_HEIGHT": "5000"}, "browser.window_height"),
        ({"TABWARDEN_BROWSER__INACTIVITY_TIMEOUT_S": "-1"}, "browser.inactivity_timeout_s"),
        ({"TABWARDEN_BROWSER__EXTRA_ARGS": "--single"}, "browser.extra_args"),
        ({"TABWARDEN_TIMEOUTS__ACTION_MS": "soon"}, "timeouts.action_ms"),
        ({"TABWARDEN_TIMEOUTS__ACTION_MS": "0"}, "timeouts.action_ms"),
        ({"TABWARDEN_TIMEOUTS__LAUNCH_MS": "-5"}, "timeouts.launch_ms"),
    ],
)
def test_bad_env_value_raises_config_error_naming_the_key(env: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(env=env)
    assert key in str(info.value)
    assert info.value.hint


def test_bad_file_value_raises_config_error_naming_the_key(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "browser:\n  headless: [1, 2]\n")
    with pytest.raises(ConfigError, match=r"browser\.headless"):
        load_config(path, env={})


def test_several_problems_are_all_named(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "browser:\n  colour: red\ntimeouts:\n  max_ms: 0\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    assert "browser.colour" in str(info.value)
    assert "timeouts.max_ms" in str(info.value)


@pytest.mark.parametrize("key", ["launch_ms", "action_ms", "navigation_ms", "max_ms"])
def test_timeouts_above_ten_minutes_are_refused(key: str) -> None:
    env = {f"TABWARDEN_TIMEOUTS__{key.upper()}": "600001"}
    with pytest.raises(ConfigError, match=rf"timeouts\.{key}"):
        load_config(env=env)


@pytest.mark.parametrize("key", ["launch_ms", "action_ms", "navigation_ms", "max_ms"])
def test_timeouts_of_exactly_ten_minutes_are_accepted(key: str) -> None:
    config = load_config(env={f"TABWARDEN_TIMEOUTS__{key.upper()}": "600000"})
    assert getattr(config.timeouts, key) == 600_000


def test_invalid_yaml_raises_config_error(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.yaml", "browser: [unclosed\n  headless: : :\n")
    with pytest.raises(ConfigError, match="not valid YAML") as info:
        load_config(path, env={})
    assert str(path) in str(info.value)


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string\n", "42\n"])
def test_non_mapping_yaml_raises_config_error(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "list.yaml", text)
    with pytest.raises(ConfigError, match="mapping"):
        load_config(path, env={})


def test_missing_file_raises_config_error(tmp_path: Path) -> None:
    path = tmp_path / "does-not-exist.yaml"
    with pytest.raises(ConfigError, match="cannot read config file") as info:
        load_config(path, env={})
    assert str(path) in str(info.value)


def test_missing_file_named_by_env_raises_config_error(tmp_path: Path) -> None:
    path = tmp_path / "missing.yaml"
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(env={"TABWARDEN_CONFIG": str(path)})


def test_directory_as_config_file_raises_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path, env={})


def test_non_utf8_file_raises_config_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"browser:\n  executable: /opt/\xff\xfe\n")
    with pytest.raises(ConfigError):
        load_config(path, env={})


def test_env_override_into_non_mapping_section_raises_config_error(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "browser: 5\n")
    with pytest.raises(ConfigError, match="browser"):
        load_config(path, env={"TABWARDEN_BROWSER__HEADLESS": "false"})


def test_invalid_yaml_in_env_extra_args_raises_config_error() -> None:
    with pytest.raises(ConfigError, match=r"extra_args"):
        load_config(env={"TABWARDEN_BROWSER__EXTRA_ARGS": "[--foo"})


def test_config_assignment_is_validated() -> None:
    config = load_config(env={})
    with pytest.raises(ValueError, match="action_ms"):
        config.timeouts.action_ms = 600_001


# ---- tools.groups --------------------------------------------------------------------


def test_tool_groups_default_to_core() -> None:
    assert load_config(env={}).tools.groups == ["core"]


def test_tool_groups_from_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "tools:\n  groups: [devtools, core]\n")
    assert load_config(path, env={}).tools.groups == ["core", "devtools"]


@pytest.mark.parametrize(
    ("value", "groups"),
    [
        ("core,devtools", ["core", "devtools"]),
        (" core , files ", ["core", "files"]),
        ("[core, tabs]", ["core", "tabs"]),
        ('["core", "tabs"]', ["core", "tabs"]),
        ("all", ["core", "actions", "tabs", "diagnostics", "devtools", "files"]),
    ],
)
def test_tool_groups_from_the_environment(value: str, groups: list[str]) -> None:
    assert load_config(env={"TABWARDEN_TOOLS__GROUPS": value}).tools.groups == groups


def test_tool_groups_env_wins_over_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "conf.yaml", "tools:\n  groups: [files]\n")
    config = load_config(path, env={"TABWARDEN_TOOLS__GROUPS": "core"})
    assert config.tools.groups == ["core"]


@pytest.mark.parametrize("value", ["core,bogus", "[]", ","])
def test_unknown_tool_groups_raise_config_error_naming_the_key(value: str) -> None:
    with pytest.raises(ConfigError, match=r"tools\.groups: .*unknown tool groups") as caught:
        load_config(env={"TABWARDEN_TOOLS__GROUPS": value})
    assert "devtools" in str(caught.value)  # it lists the groups there are


def test_attach_settings_from_the_environment() -> None:
    config = load_config(
        env={
            "TABWARDEN_BROWSER__ATTACH__PORTS": "9333; 9444",
            "TABWARDEN_BROWSER__ATTACH__PROFILE_DIRS": "/a/profile",
            "TABWARDEN_BROWSER__ATTACH__ARGS": '["--lang=de", "--x=a,b"]',
            "TABWARDEN_BROWSER__ATTACH__HEADLESS": "true",
        }
    )
    attach = config.browser.attach
    assert attach.ports == [9333, 9444]
    assert attach.profile_dirs == [Path("/a/profile")]
    assert attach.args == ["--lang=de", "--x=a,b"]
    assert attach.headless is True
    defaults = load_config(env={}).browser.attach
    assert defaults.ports == [9222, 9223, 9224, 9229] and defaults.headless is False
    assert defaults.profile_dirs is None and defaults.profile_dir is None
    with pytest.raises(ConfigError) as caught:
        load_config(env={"TABWARDEN_BROWSER__ATTACH__PORTS": "9222,70000"})
    assert "browser.attach.ports" in caught.value.message
