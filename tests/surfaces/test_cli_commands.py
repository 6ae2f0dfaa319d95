"""The generated tool commands and the mcp command, in process: no daemon, no browser.

``daemon.send`` is replaced by a recorder, so these check what each command line
becomes (the request to the daemon) and how a reply is printed.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tabwarden import cli
from tabwarden.errors import (
    ConfigError,
    DaemonNotRunning,
    DaemonUnreachable,
    DeadlineExceeded,
    InvalidArgument,
    NavigationTimeout,
    RemoteError,
    StaleRefError,
)
from tabwarden.tools.catalog import TOOLS

PNG = b"\x89PNG\r\n\x1a\n fake"


class Recorder:
    def __init__(self, result: dict[str, Any] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any], float]] = []
        self.result = result or {"text": "done\n# 4 chars", "untrusted": False}

    def __call__(
        self, name: str, request: dict[str, Any], timeout_s: float, **_: Any
    ) -> dict[str, Any]:
        self.calls.append((name, request, timeout_s))
        return {"ok": True, "result": dict(self.result)}

    @property
    def arguments(self) -> dict[str, Any]:
        return self.calls[-1][1]["arguments"]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    rec = Recorder()
    monkeypatch.setattr(cli.daemon, "send", rec)
    return rec


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli.app, list(args))


def test_every_tool_has_a_command_named_after_it() -> None:
    commands = {c.name for c in cli.app.registered_commands}
    for spec in TOOLS:
        assert spec.name.removeprefix("browser_").replace("_", "-") in commands
    assert {"get-text", "act-batch", "upload-file", "close-tab", "type"} <= commands


@pytest.mark.parametrize(
    ("argv", "tool", "arguments"),
    [
        (["navigate", "localhost:8000"], "browser_navigate", {"url": "localhost:8000"}),
        (["click", "e7", "--click-count", "2"], "browser_click", {"ref": "e7", "click_count": 2}),
        (["fill", "e4", "hello world"], "browser_fill", {"ref": "e4", "value": "hello world"}),
        (["drag", "e1", "e2"], "browser_drag", {"start_ref": "e1", "end_ref": "e2"}),
        (
            ["select", "e5", "red", "blue"],
            "browser_select",
            {"ref": "e5", "values": ["red", "blue"]},
        ),
        (["type", "hi", "--submit"], "browser_type", {"text": "hi", "submit": True}),
        (["press", "Control+A"], "browser_press", {"key": "Control+A"}),
        (["dialog"], "browser_dialog", {}),
        (["dialog", "dismiss"], "browser_dialog", {"action": "dismiss"}),
        (
            ["tabs", "new", "--url", "http://x.test/"],
            "browser_tabs",
            {"action": "new", "url": "http://x.test/"},
        ),
        (["switch-tab", "t2"], "browser_switch_tab", {"tab_id": "t2"}),
        (["evaluate", "document.title"], "browser_evaluate", {"expression": "document.title"}),
        (
            ["evaluate", "--function", "(a) => a", "--args", "[1, 2]", "--no-await-promise"],
            "browser_evaluate",
            {"function": "(a) => a", "args": [1, 2], "await_promise": False},
        ),
        (
            ["cdp", "Page.navigate", "--params", '{"url": "about:blank"}'],
            "browser_cdp",
            {"method": "Page.navigate", "params": {"url": "about:blank"}},
        ),
        (
            ["act-batch", '[{"action": "click", "ref": "e7"}]'],
            "browser_act_batch",
            {"steps": [{"action": "click", "ref": "e7"}]},
        ),
        (
            ["click", "e7", "--modifiers", "Shift", "--modifiers", "Alt"],
            "browser_click",
            {"ref": "e7", "modifiers": ["Shift", "Alt"]},
        ),
        (
            ["snapshot", "--full", "--find", "/Sub/"],
            "browser_snapshot",
            {"full": True, "find": "/Sub/"},
        ),
        (
            ["snapshot", "--full", "--cursor", "s3:120"],
            "browser_snapshot",
            {"full": True, "cursor": "s3:120"},
        ),
        (
            ["attach", "http://127.0.0.1:9222", "--consent"],
            "browser_attach",
            {"cdp_url": "http://127.0.0.1:9222", "consent": True},
        ),
        (["metrics"], "browser_metrics", {}),
    ],
)
def test_command_lines_become_tool_calls(
    recorder: Recorder, argv: list[str], tool: str, arguments: dict[str, Any]
) -> None:
    done = invoke(*argv)
    assert done.exit_code == 0, done.output
    name, request, _ = recorder.calls[-1]
    assert name == "default"
    assert request == {"tool": tool, "arguments": arguments}


def test_session_timeout_and_relative_paths(
    recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert invoke("upload-file", "e3", "a.txt", "sub/b.txt", "--session", "work").exit_code == 0
    name, request, _ = recorder.calls[-1]
    assert name == "work"
    assert request["arguments"]["paths"] == [str(tmp_path / "a.txt"), str(tmp_path / "sub/b.txt")]

    assert invoke("wait", "--text", "x", "--timeout-ms", "1500").exit_code == 0
    assert recorder.arguments == {"text": "x", "timeout_ms": 1500.0}
    wait_s = recorder.calls[-1][2]
    assert 1.5 < wait_s <= 1.5 + 60  # the call's deadline plus a start-up allowance

    # A tool without timeout_ms: --timeout-ms only bounds the wait for the answer.
    assert invoke("metrics", "--timeout-ms", "2000").exit_code == 0
    assert recorder.arguments == {}
    assert 2 < recorder.calls[-1][2] <= 62


def test_bad_arguments_are_refused_before_any_daemon(recorder: Recorder) -> None:
    done = invoke("snapshot", "--max-chars", "5")
    assert isinstance(done.exception, InvalidArgument)
    assert "--max-chars" in str(done.exception)
    done = invoke("cdp", "X.y", "--params", "{nope")
    assert isinstance(done.exception, InvalidArgument) and "--params" in str(done.exception)
    done = invoke("dialog", "maybe")
    assert done.exit_code == 2  # a choice typer checks itself
    assert recorder.calls == []


def test_output_is_plain_text_and_json(recorder: Recorder) -> None:
    recorder.result = {
        "text": "[untrusted page data]\n[bold]not markup[/bold] :smile: [link=x]y[/link]\n"
        "# 70 chars",
        "untrusted": True,
        "tab_id": "t1",
    }
    done = invoke("get-text")
    assert done.exit_code == 0
    # A person reads the page's text: no marker and size line, which are for models.
    assert done.output == "[bold]not markup[/bold] :smile: [link=x]y[/link]\n"
    done = invoke("get-text", "--json")
    assert json.loads(done.output) == recorder.result  # --json through a pipe: an agent


def test_json_at_a_terminal_leaves_out_the_lines_for_models(
    recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder.result = {"text": "[untrusted page data]\nhello\n# 28 chars", "untrusted": True}
    monkeypatch.setattr(cli, "_stdout_is_terminal", lambda: True)
    done = invoke("get-text", "--json")
    assert json.loads(done.output)["text"] == "hello"


def test_a_result_flagged_as_an_error_is_printed_and_exits_3(recorder: Recorder) -> None:
    recorder.result = {"text": "tab t1: not navigated\n# 21 chars", "is_error": True}
    done = invoke("navigate", "localhost:8000")
    assert done.exit_code == 3
    assert done.output == "tab t1: not navigated\n"
    done = invoke("navigate", "localhost:8000", "--json")
    assert done.exit_code == 3 and json.loads(done.output)["is_error"] is True


def test_screenshots_are_saved_in_the_workspace_by_the_tool(recorder: Recorder) -> None:
    image = {"mime_type": "image/png", "data": base64.b64encode(PNG).decode()}
    saved = "/work/space/tabwarden-output/screenshots/shot.png"
    recorder.result = {
        "text": f"screenshot of tab t3: 10x10 png\nsaved to {saved} (9 bytes)\n# 70 chars",
        "format": "png",
        "path": saved,
        "image_data": [image],
    }
    done = invoke("screenshot", "--path", "shot.png")
    assert done.exit_code == 0, done.output
    # The daemon saves it under the workspace rule; the command only says where.
    assert recorder.arguments == {"path": "shot.png", "save": True}
    assert done.output.splitlines()[-1] == f"saved to {saved} (9 bytes)"

    done = invoke("screenshot", "--out", "old.png")  # the older name still works
    assert recorder.arguments == {"path": "old.png", "save": True}
    done = invoke("screenshot", "--no-save")
    assert recorder.arguments == {"save": False}

    done = invoke("screenshot", "--json")
    data = json.loads(done.output)
    assert "image_data" not in data
    assert data["image_files"] == [saved] and data["path"] == saved
    assert "--out" not in invoke("screenshot", "--help").output


def test_open_is_navigate(recorder: Recorder) -> None:
    done = invoke("open", "localhost:8000")
    assert done.exit_code == 0, done.output
    assert recorder.calls[-1][1] == {
        "tool": "browser_navigate",
        "arguments": {"url": "localhost:8000"},
    }


def test_filters_take_comma_lists_as_python_does(recorder: Recorder) -> None:
    done = invoke("network", "--status", "4xx,failed", "--status", "pending", "--type", "xhr,fetch")
    assert done.exit_code == 0, done.output
    assert recorder.arguments == {"status": ["4xx,failed", "pending"], "type": ["xhr,fetch"]}


def test_exit_codes_follow_the_error_kind() -> None:
    assert cli.exit_code_for(InvalidArgument("x")) == 2
    assert cli.exit_code_for(StaleRefError("x")) == 3
    assert cli.exit_code_for(ConfigError("x")) == 3
    assert cli.exit_code_for(DeadlineExceeded("x")) == 4
    assert cli.exit_code_for(DaemonUnreachable("x")) == 5
    assert cli.exit_code_for(DaemonNotRunning("x")) == 5
    # Errors the daemon answered with are mapped by their original class.
    assert cli.exit_code_for(RemoteError("NavigationTimeout", "m", "h")) == 4
    assert issubclass(NavigationTimeout, DeadlineExceeded)
    assert cli.exit_code_for(RemoteError("InvalidArgument", "m", "h")) == 2
    assert cli.exit_code_for(RemoteError("UnknownRef", "m", "h")) == 3
    assert cli.exit_code_for(RemoteError("KeyError", "m", "h")) == 3
    assert str(RemoteError("UnknownRef", "no ref e9", "take a snapshot")) == (
        "no ref e9 (take a snapshot)"
    )


def test_mcp_flags_build_the_server_options(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tabwarden.surfaces import mcp

    seen: list[Any] = []
    monkeypatch.setattr(mcp, "run", seen.append)
    config = tmp_path / "tw.yaml"
    config.write_text("browser:\n  extra_args: ['--lang=fr']\n")
    done = invoke(
        "mcp",
        "--http",
        "--host", "0.0.0.0",
        "--port", "8931",
        "--token", "s3cret",
        "--shared-session",
        "--http-origin", "http://app.test:*",
        "--tools", "core,devtools",
        "--config", str(config),
        "--headed",
        "--isolated",
        "--user-data-dir", str(tmp_path / "profiles"),
        "--executable-path", "/opt/chrome",
        "--viewport-size", "800x600",
        "--user-agent", "TestAgent/1.0",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    (options,) = seen
    assert options.http and options.shared_session
    assert (options.host, options.port, options.token) == ("0.0.0.0", 8931, "s3cret")
    assert options.allowed_origins == ("http://app.test:*",)
    assert options.groups is None  # the flag sets the configuration's tools.groups
    assert options.config.tools.groups == ["core", "devtools"]
    browser = options.config.browser
    assert browser.headless is False and browser.isolated is True
    assert browser.data_dir == tmp_path / "profiles"
    assert browser.executable == "/opt/chrome"
    assert (browser.window_width, browser.window_height) == (800, 600)
    assert browser.extra_args == ["--lang=fr"]
    assert browser.user_agent == "TestAgent/1.0"

    assert invoke("mcp").exit_code == 0
    defaults = seen[-1]
    assert defaults.config.tools.groups == ["core"] and not defaults.http
    assert (defaults.host, defaults.port) == (mcp.MCPOptions().host, mcp.MCPOptions().port)

    assert invoke("mcp", "--cdp-endpoint", "http://h:9222").exit_code == 0
    assert seen[-1].cdp_endpoint == "http://h:9222"

    for argv in (["--viewport-size", "big"], ["--viewport-size", "50x50"]):
        done = invoke("mcp", *argv)
        assert done.exit_code == 2, (argv, done.output)
    assert len(seen) == 3


_LAUNCH_FLAGS = (
    "--proxy-server", "http://proxy.test:3128",
    "--proxy-bypass", "localhost;.internal.test",
    "--ignore-https-errors",
    "--device", "iPhone 15",
    "--user-agent", "Flagged/1.0",
    "--storage-state", "state.json",
    "--init-script", "a.js",
    "--init-script", "b.js",
    "--grant-permissions", "geolocation,notifications",
    "--grant-permissions", "clipboard-read",
    "--allowed-origins", "example.com;*.example.org",
    "--allowed-origins", "127.0.0.1",
    "--blocked-origins", "ads.example.com",
    "--output-dir", "out",
    "--backend", "steel",
)  # fmt: skip


def _assert_launch_flags_set(config: Any, cwd: Path) -> None:
    browser = config.browser
    assert browser.proxy_server == "http://proxy.test:3128"
    assert browser.proxy_bypass == ["localhost", ".internal.test"]
    assert browser.ignore_https_errors is True
    assert browser.device == "iphone-15"
    assert browser.user_agent == "Flagged/1.0"
    assert browser.storage_state == cwd / "state.json"
    assert browser.init_scripts == [cwd / "a.js", cwd / "b.js"]
    assert browser.grant_permissions == ["geolocation", "notifications", "clipboard-read"]
    assert config.policy.allow == ["example.com", "*.example.org", "127.0.0.1"]
    assert config.policy.deny == ["ads.example.com"]
    assert config.files.output_dir == cwd / "out"
    assert browser.backend == "steel"


def test_launch_flags_set_the_configuration_of_mcp_and_the_daemon(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tabwarden.surfaces import daemon, mcp

    monkeypatch.chdir(tmp_path)
    served: list[Any] = []
    monkeypatch.setattr(mcp, "run", served.append)
    done = invoke("mcp", *_LAUNCH_FLAGS)
    assert done.exit_code == 0, done.output
    _assert_launch_flags_set(served[-1].config, tmp_path)
    # The HTTP server's own --allowed-origin (who may connect) is another setting.
    assert served[-1].allowed_origins == ()

    daemons: list[Any] = []
    monkeypatch.setattr(daemon, "run_daemon", lambda name, **kw: daemons.append(kw["config"]))
    done = invoke("daemon", "run", "--session", "flags", *_LAUNCH_FLAGS)
    assert done.exit_code == 0, done.output
    _assert_launch_flags_set(daemons[-1], tmp_path)

    assert invoke("mcp").exit_code == 0
    assert served[-1].config.browser.device is None  # unset flags: as configured
    assert served[-1].config.browser.isolation == "process"
    assert invoke("mcp", "--isolation", "context").exit_code == 0
    assert served[-1].config.browser.isolation == "context"
    done = invoke("daemon", "run", "--session", "ctx", "--isolation", "context")
    assert done.exit_code == 0, done.output
    assert daemons[-1].browser.isolation == "context"
    monkeypatch.setenv("TABWARDEN_BROWSER__IGNORE_HTTPS_ERRORS", "true")
    assert invoke("mcp").exit_code == 0
    assert served[-1].config.browser.ignore_https_errors is True


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--device", "nokia-3310"], "--device"),
        (["--grant-permissions", "telepathy"], "--grant-permissions"),
        (["--blocked-origins", "exa mple.com"], "--blocked-origins"),
        (["--backend", "nimbus"], "unknown browser backend 'nimbus'"),
        (["--isolation", "threads"], "--isolation"),
        (["--backend", "steel", "--isolation", "context"], "needs the local backend"),
    ],
)
def test_a_bad_launch_flag_is_a_usage_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], named: str
) -> None:
    from tabwarden.surfaces import mcp

    monkeypatch.setattr(mcp, "run", lambda options: None)
    done = invoke("mcp", *argv)
    assert done.exit_code == 2, done.output
    assert named in done.output


def test_mcp_tool_groups_are_one_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """tools.groups in the file, TABWARDEN_TOOLS__GROUPS over it, --tools over both: one
    setting, which the server reads from the configuration it is given."""
    from tabwarden.surfaces import mcp

    seen: list[Any] = []
    monkeypatch.setattr(mcp, "run", seen.append)
    config = tmp_path / "tw.yaml"
    config.write_text("tools:\n  groups: [core, files]\n")
    assert invoke("mcp", "--config", str(config)).exit_code == 0
    monkeypatch.setenv("TABWARDEN_TOOLS__GROUPS", "core,devtools")
    assert invoke("mcp", "--config", str(config)).exit_code == 0
    assert invoke("mcp", "--config", str(config), "--tools", "all").exit_code == 0
    assert all(options.groups is None for options in seen)
    assert [options.config.tools.groups for options in seen] == [
        ["core", "files"],
        ["core", "devtools"],
        ["core", "actions", "tabs", "diagnostics", "devtools", "files"],
    ]
    refused = invoke("mcp", "--tools", "core,nope").exception
    assert isinstance(refused, InvalidArgument) and cli.exit_code_for(refused) == 2
    assert "unknown tool groups: nope" in str(refused)
    monkeypatch.setenv("TABWARDEN_TOOLS__GROUPS", "core,nope")
    bad_env = invoke("mcp").exception
    assert isinstance(bad_env, ConfigError) and "tools.groups: " in str(bad_env)
    assert len(seen) == 3


def test_every_command_that_writes_a_file_takes_path() -> None:
    # storage keeps --file: its --path is a cookie's path.
    for command in ("screenshot", "save-pdf", "trace-stop", "record-stop"):
        assert "--path" in invoke(command, "--help").output, command
