"""Calls named in hints are written the way the surface in use takes them."""

from __future__ import annotations

import asyncio
import shlex

import pytest
import typer

from tabwarden.calls import Arg, Call, OneOf, call, writing_calls
from tabwarden.errors import PageBusy
from tabwarden.supervisor.dialogs import PendingDialog
from tabwarden.tools.call_writers import CommandLineWriter, ToolCallWriter, writer_for

PROMPT = PendingDialog(
    id="d-3",
    type="prompt",
    message="Your name?",
    default_prompt="",
    url="http://127.0.0.1/",
    tab_id="t2",
    frame_id="F",
    session_id=None,
    opened_at=0.0,
)


def written(surface: str, value: object, session: str = "default") -> str:
    with writing_calls(writer_for(surface, session)):  # type: ignore[arg-type]
        return str(value)


def test_python_is_the_default_spelling():
    assert str(call("terminate_script", on_tab="t1")) == "tab.terminate_script()"
    assert str(call("close", on_tab="t1", tool="browser_close_tab")) == "tab.close()"
    assert str(call("switch_tab", tab_id="t2")) == "browser.switch_tab(tab_id='t2')"
    assert str(PROMPT.answer_call()) == (
        "browser.dialog(action='accept' or 'dismiss', prompt_text='…', dialog_id='d-3')"
    )
    assert f"{Arg('wait_until', 'commit')} or {Arg('timeout_ms')}" == (
        "wait_until='commit' or timeout_ms"
    )


def test_a_tool_call_names_the_tool_and_its_json_arguments():
    assert written("tool", call("terminate_script", on_tab="t1")) == (
        'browser_terminate_script {"tab_id": "t1"}'
    )
    # An unknown tab is left to the tool's default (the active tab).
    assert written("tool", call("terminate_script", on_tab="")) == "browser_terminate_script"
    assert written("tool", call("navigate", on_tab="t1", url="…")) == (
        'browser_navigate {"url": "…", "tab_id": "t1"}'
    )
    assert written("tool", PROMPT.answer_call()) == (
        'browser_dialog {"action": "accept" or "dismiss", "prompt_text": "…", "dialog_id": "d-3"}'
    )
    assert written("tool", Arg("full_page", False)) == '"full_page": false'
    assert written("tool", Arg("timeout_ms")) == "timeout_ms"


def test_a_command_line_call_puts_positionals_first_then_options():
    assert written("cli", PROMPT.answer_call()) == (
        "tabwarden dialog accept|dismiss --prompt-text '…' --dialog-id d-3"
    )
    assert written("cli", call("switch_tab", tab_id="t2")) == "tabwarden switch-tab t2"
    assert written("cli", call("fill", on_tab="t1", ref="e4", value="a b")) == (
        "tabwarden fill e4 'a b' --tab-id t1"
    )
    assert written("cli", call("close", on_tab="t1", tool="browser_close_tab"), "work") == (
        "tabwarden close-tab --tab-id t1 --session work"
    )
    assert written("cli", Arg("wait_until", "commit")) == "--wait-until commit"
    assert written("cli", Arg("full_page", False)) == "--no-full-page"
    assert written("cli", Arg("timeout_ms")) == "--timeout-ms"


@pytest.mark.parametrize(
    "example",
    [
        call("terminate_script", on_tab="t1"),
        call("navigate", on_tab="t1", url="http://localhost:8000/a b"),
        call("close", on_tab="t3", tool="browser_close_tab"),
        call("switch_tab", tab_id="t2"),
        call("fill", on_tab="t1", ref="e4", value="two words"),
        call("downloads"),
        call("close"),
        Call("dialog", (("action", "dismiss"), ("dialog_id", "d-1"))),
    ],
    ids=str,
)
def test_written_commands_are_ones_the_cli_accepts(example: Call):
    """Each written command parses with the real command line, to the same arguments."""
    from tabwarden.cli import app

    words = shlex.split(written("cli", example, "work"))
    assert words[0] == "tabwarden"
    command = typer.main.get_command(app).commands[words[1]]  # type: ignore[attr-defined]
    parsed = command.make_context(words[1], words[2:]).params
    expected = dict(example.args) | ({"tab_id": example.on_tab} if example.on_tab else {})
    for name, value in expected.items():
        assert parsed[name] == value, (name, parsed)
    assert parsed["cli_session"] == "work"


def test_an_error_is_written_for_the_surface_it_is_made_in():
    assert "tab.terminate_script()" in PageBusy("x", tab_id="t1").hint
    with writing_calls(ToolCallWriter()):
        tool = PageBusy("x", tab_id="t1").hint
    assert 'browser_terminate_script {"tab_id": "t1"}' in tool
    assert "tab.terminate_script" not in tool
    with writing_calls(CommandLineWriter()):
        cli = PageBusy("x", tab_id="t1").hint
    assert "tabwarden terminate-script --tab-id t1" in cli
    assert "tabwarden close-tab --tab-id t1" in cli
    # Made once, it stays as it was written.
    assert written("tool", PageBusy("x", tab_id="t1").hint).count("tab.") == 3


def test_the_writer_is_the_callers_and_reaches_the_tasks_it_starts():
    async def hint_in_a_task() -> str:
        return await asyncio.create_task(_hint())

    async def _hint() -> str:
        return str(call("terminate_script", on_tab="t1"))

    async def both() -> tuple[str, str]:
        with writing_calls(ToolCallWriter()):
            tool = await hint_in_a_task()
        return tool, await hint_in_a_task()

    tool, python = asyncio.run(both())
    assert tool.startswith("browser_terminate_script")
    assert python == "tab.terminate_script()"
    assert CommandLineWriter().call(Call("snapshot")) == "tabwarden snapshot"


def test_choices_are_written_as_alternatives():
    choice = Call("dialog", (("action", OneOf(("accept", "dismiss"))),))
    assert written("python", choice) == "browser.dialog(action='accept' or 'dismiss')"
    assert written("tool", choice) == 'browser_dialog {"action": "accept" or "dismiss"}'
    assert written("cli", choice) == "tabwarden dialog accept|dismiss"


def test_a_tool_the_client_lacks_is_named_with_its_group():
    writer = writer_for("tool", enabled=["browser_terminate_script", "browser_navigate"])
    with writing_calls(writer):
        hint = PageBusy("x", tab_id="t1").hint
    assert 'browser_terminate_script {"tab_id": "t1"}, or' in hint
    assert 'browser_close_tab {"tab_id": "t1"} (in the tabs group, not enabled here)' in hint
