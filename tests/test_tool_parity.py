"""The Python API mirrors the tools: each tool has a method taking the same parameters."""

from __future__ import annotations

import ast
import inspect

import pytest

import tabwarden
import tabwarden.metrics
from tabwarden.diagnostics.emulation import EmulationChange
from tabwarden.diagnostics.storage import CookieSpec
from tabwarden.tools import browser, diagnostics, files, state
from tabwarden.tools.catalog import TOOLS
from tabwarden.tools.registry import schema, select_tools

# tool → the API callable it mirrors (tab_id only routes the call to a tab).
API = {
    "browser_navigate": tabwarden.Tab.navigate,
    "browser_snapshot": tabwarden.Tab.snapshot,
    "browser_click": tabwarden.Tab.click,
    "browser_fill": tabwarden.Tab.fill,
    "browser_type": tabwarden.Tab.type,
    "browser_press": tabwarden.Tab.press,
    "browser_hover": tabwarden.Tab.hover,
    "browser_select": tabwarden.Tab.select,
    "browser_check": tabwarden.Tab.check,
    "browser_scroll": tabwarden.Tab.scroll,
    "browser_wait": tabwarden.Tab.wait,
    "browser_back": tabwarden.Tab.back,
    "browser_terminate_script": tabwarden.Tab.terminate_script,
    "browser_forward": tabwarden.Tab.forward,
    "browser_reload": tabwarden.Tab.reload,
    "browser_dialog": tabwarden.BrowserSession.dialog,
    "browser_screenshot": tabwarden.Tab.screenshot,
    "browser_get_text": tabwarden.Tab.get_text,
    "browser_get_content": tabwarden.Tab.get_content,
    "browser_get_images": tabwarden.Tab.get_images,
    "browser_tabs": tabwarden.BrowserSession.tab_infos,
    "browser_drag": tabwarden.Tab.drag,
    "browser_act_batch": tabwarden.Tab.act_batch,
    "browser_switch_tab": tabwarden.BrowserSession.switch_tab,
    "browser_close_tab": tabwarden.BrowserSession.close_tab,
    "browser_close": tabwarden.BrowserSession.close,
    "browser_evaluate": tabwarden.Tab.evaluate,
    "browser_cdp": tabwarden.BrowserSession.cdp,
    "browser_metrics": tabwarden.metrics.Metrics.snapshot,
    "browser_attach": tabwarden.attach,
    "browser_upload_file": tabwarden.Tab.upload_file,
    # console and network tools
    "browser_console": tabwarden.Tab.console,
    "browser_network": tabwarden.Tab.network,
    # storage and emulation tools
    "browser_storage": tabwarden.Tab.storage,
    "browser_emulate": tabwarden.BrowserSession.emulate,
    # files tools (downloads, PDF, trace, recording)
    "browser_downloads": tabwarden.BrowserSession.downloads,
    "browser_save_pdf": tabwarden.Tab.save_pdf,
    "browser_trace_start": tabwarden.BrowserSession.trace_start,
    "browser_trace_stop": tabwarden.BrowserSession.trace_stop,
    "browser_record_start": tabwarden.Tab.record_start,
    "browser_record_stop": tabwarden.BrowserSession.record_stop,
}
# Tool parameters with another shape in the API, and why.
RESHAPED = {
    ("browser_tabs", "action"): "tabs are listed by tab_infos() and opened by new_tab()",
    ("browser_tabs", "url"): "new_tab(url)",
    ("browser_cdp", "tab_id"): "the API calls it target_id (it takes a CDP target id too)",
}
# Parameter sets written once, as a model the tool is built on: the API takes the model
# or its fields as keyword arguments.
SHARED = (EmulationChange, CookieSpec)


def test_every_tool_has_an_api_twin():
    assert set(API) == {spec.name for spec in TOOLS}


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_the_api_takes_the_tools_parameters(spec):
    parameters = inspect.signature(API[spec.name]).parameters
    accepted = set(parameters)
    for model in SHARED:
        if issubclass(spec.params, model):
            assert any(model.__name__ in str(p.annotation) for p in parameters.values())
            assert any(p.kind is p.VAR_KEYWORD for p in parameters.values())
            accepted |= set(model.model_fields)
    for name in spec.params.model_fields:
        if name == "tab_id" and spec.name != "browser_switch_tab":
            continue
        if (spec.name, name) in RESHAPED:
            continue
        assert name in accepted, f"{API[spec.name].__qualname__} lacks {name} ({spec.name})"


def test_handlers_hand_each_parameter_on_under_its_own_name():
    """``tab.fill(p.ref, p.value, timeout_ms=p.timeout_ms)``: a parameter reaches the API
    as the parameter of the same name, by position or by keyword, never renamed."""
    receivers = {"tab": tabwarden.Tab, "session": tabwarden.BrowserSession}
    tool_of = {function: tool for tool, function in API.items()}
    checked = 0
    for module in (browser, diagnostics, files, state):
        for call in ast.walk(ast.parse(inspect.getsource(module))):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id in receivers
            ):
                continue
            method = getattr(receivers[call.func.value.id], call.func.attr)
            names = [n for n in inspect.signature(method).parameters if n != "self"]
            passed = [(names[i], arg) for i, arg in enumerate(call.args)]
            passed += [(k.arg, k.value) for k in call.keywords]
            for name, value in passed:
                used = {
                    node.attr
                    for node in ast.walk(value)
                    if isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "p"
                }
                renamed = {u for u in used if u != name}
                renamed -= {u for u in renamed if (tool_of.get(method), u) in RESHAPED}
                assert not renamed, f"{method.__qualname__}({name}=p.{renamed.pop()})"
                checked += len(used)
    assert checked > 100  # the walk saw the handlers' calls


def test_sync_api_has_the_same_methods():
    import tabwarden.sync

    for function in API.values():
        owner = function.__qualname__.split(".")[0]
        if owner in ("Tab", "BrowserSession"):
            twin = getattr(getattr(tabwarden.sync, owner), function.__name__)
            assert not inspect.iscoroutinefunction(twin)


def test_default_tools_stay_small():
    import json

    tokens = len(json.dumps(schema(select_tools(["core"])))) // 4
    assert tokens <= 6_000, f"the core tool definitions cost about {tokens} tokens"


def test_schemas_are_flat_for_every_vendor():
    for spec in TOOLS:
        schema_ = spec.input_schema()
        assert schema_["type"] == "object" and "anyOf" not in schema_
        for prop in schema_["properties"].values():
            assert "anyOf" not in prop and "$ref" not in prop, spec.name


def test_mcp_cli_and_registry_expose_the_same_tools_and_parameters():
    import typer

    from tabwarden.cli import app
    from tabwarden.surfaces.mcp import tool_definition

    cli = typer.main.get_command(app)
    for spec in TOOLS:
        listed = tool_definition(spec)
        assert listed.name == spec.name
        assert set(listed.input_schema["properties"]) == set(spec.params.model_fields)
        command = cli.commands[spec.name.removeprefix("browser_").replace("_", "-")]
        names = {p.name for p in command.params}
        for field in spec.params.model_fields:
            assert field in names, f"tabwarden {command.name} lacks {field}"
