"""The command line's help, version and error output, in process: no daemon, no browser."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tabwarden import __version__, cli
from tabwarden.tools.catalog import TOOLS
from tabwarden.tools.spec import command_name

ROOT = Path(__file__).resolve().parents[2]


def help_of(*command: str) -> str:
    done = CliRunner().invoke(cli.app, [*command, "-h"], env={"COLUMNS": "240"})
    assert done.exit_code == 0, done.output
    return str(done.output)


def test_version_prints_the_version() -> None:
    done = CliRunner().invoke(cli.app, ["--version"])
    assert done.exit_code == 0
    assert done.output == f"tabwarden {__version__}\n"


def test_dash_h_is_help_everywhere() -> None:
    assert "Usage: tabwarden [OPTIONS] COMMAND" in help_of()
    assert "Usage: tabwarden navigate" in help_of("navigate")
    assert "Usage: tabwarden daemon stop" in help_of("daemon", "stop")
    assert "Usage: tabwarden mcp" in help_of("mcp")


def test_secret_placeholder_survives_the_help_markup() -> None:
    assert "[secret:NAME]" in help_of("navigate")
    assert "[secret:NAME]" in help_of("mcp")
    assert "[secret:NAME]" in help_of("daemon", "run")


@pytest.mark.parametrize(
    "command",
    [
        *[(command_name(spec.name),) for spec in TOOLS],
        ("mcp",),
        ("demo",),
        ("doctor",),
        ("schema",),
        ("daemon", "run"),
        ("daemon", "status"),
        ("daemon", "stop"),
        (),
    ],
)
def test_help_shows_names_not_python_types(command: tuple[str, ...]) -> None:
    text = help_of(*command)
    assert not re.search(r"<(bool|str|int|float|list\[str\]|path)>", text), text


def test_positionals_and_values_are_named() -> None:
    text = help_of("navigate")
    assert re.search(r"URL\s+Where to go", text)
    assert re.search(r"--tab-id\s+TAB_ID", text)
    assert re.search(r"--wait-until\s+commit\|domcontentloaded", text)
    reference = (ROOT / "docs/reference/cli.md").read_text(encoding="utf-8")
    assert "| argument |" not in reference
    assert "| `URL` | Where to go" in reference


def test_cdp_endpoint_help_says_what_the_mcp_server_does() -> None:
    text = " ".join(help_of("mcp").split())
    assert "only where" not in text
    assert "--allow-attach" in text.split("--cdp-endpoint", 1)[1][:300]


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        cli.main(list(argv))
    out, err = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else 0), out, err


def test_with_json_errors_are_json_and_exit_codes_stay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_main(capsys, "snapshot", "--max-chars", "5", "--json")
    assert code == 2 and err == ""
    error: dict[str, Any] = json.loads(out)["error"]
    assert error["type"] == "InvalidArgument"
    assert "--max-chars" in error["message"] and error["hint"]

    code, out, _ = run_main(capsys, "click", "--json")
    assert code == 2
    assert json.loads(out)["error"]["type"] == "UsageError"

    code, out, err = run_main(capsys, "snapshot", "--max-chars", "5")
    assert code == 2 and out == ""
    assert err.startswith("error: snapshot: invalid arguments")
