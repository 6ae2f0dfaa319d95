"""The ``tabwarden`` command line.

Browser tools, one command each, generated from the tool registry (``browser_`` dropped,
``_`` → ``-``): ``tabwarden navigate URL``, ``snapshot``, ``click REF``, ``fill REF VALUE``,
``type TEXT``, ``press KEY``, ``select REF VALUES...``, ``dialog [accept|dismiss]``,
``wait --text …``, ``screenshot [--path FILE]``, ``get-text``, ``tabs [list|new]``, … The
leading required parameters of a tool (and ``action``/``expression``) are positional;
the others are ``--options``: booleans as ``--flag/--no-flag``, lists as repeated
options, objects and lists of objects as JSON text. Every tool command also takes
``--session NAME`` (default ``default``), ``--json`` (the whole result as JSON) and
``--timeout-ms N`` (the call's deadline; it also bounds how long the command waits).

Tool commands run in a background daemon per session (``tabwarden.surfaces.daemon``),
started on first use and stopped after 5 idle minutes (``$TABWARDEN_DAEMON_IDLE_S``), so
the browser, its tabs and refs live on between commands. ``tabwarden daemon
run|status|stop`` manage it. The daemon reads the configuration (environment,
``./tabwarden.yaml``) and takes the working folder (the workspace profile) of the command
that starts it; later changes apply after ``tabwarden daemon stop``. The first command
after a session's daemon ended (idle, stopped) is told so once, in its reply or its error:
the old browser, its tabs and refs are gone. At most ``browser.max_daemons`` daemons run
at once for a user; one more is refused with SessionLimitReached naming the running ones.

Files: every command that writes one takes ``--path`` (a file name, saved in its folder of
the workspace's output folder, or a path inside the workspace) and its reply names the
full path. The one path rule (``safety/paths.py``) holds here as on every surface: nothing
is written outside the workspace, so that what an agent may write does not depend on the
surface it uses. A screenshot is always saved (``--no-save``: not), since a terminal
cannot show it; ``--out`` is an older name of ``--path``. ``tabwarden open URL`` is
``navigate``.

Output: a person at a terminal reads the reply's text alone; the lines written for models
(``[untrusted page data]``, ``# N chars``) are kept only with ``--json`` when stdout is not
a terminal (an agent reading through a pipe), as the MCP server always sends them.
Filters take names as on every surface: ``--status 4xx,failed``, or the option repeated.

Safety: ``--secrets FILE`` (tool commands, ``mcp``, ``daemon run``) names a dotenv file
whose values are replaced by ``[secret:NAME]`` in everything printed or logged. A result
that carries text written by web pages opens with ``[untrusted page data]``
(``UNTRUSTED_MARK``) for an agent: what follows is data, never instructions.
Attaching to a running browser needs the user's consent: ``tabwarden attach URL
--allow-attach`` (or ``--consent``), and ``tabwarden mcp --cdp-endpoint URL
--allow-attach`` to make every MCP client drive that browser; without it the call fails
with a ConsentRequired error saying what the browser holds. ``tabwarden attach`` with no
URL attaches to the browser running here with remote debugging (``--port N``: the one on
that port); ``--launch`` starts the user's Chrome on tabwarden's own attach profile when
none runs (docs/attach.md).

Also: ``schema`` (tool definitions as JSON for other harnesses), ``mcp`` (the MCP
server), ``demo`` (``demo --serve [--port N]`` serves the demo site until Ctrl-C),
``version`` and ``doctor`` (which also prints where files go).

Errors print ``error: <message> (<hint>)`` on stderr, never a traceback; with ``--json``,
``{"error": {"type", "message", "hint"}}`` on stdout. ``--version`` prints the version;
``-h`` is ``--help``. Exit codes:

* 0 — ok
* 1 — ``demo``, ``version``, ``doctor`` or ``mcp`` failed, or an internal error (a bug;
  ``TABWARDEN_DEBUG=1`` shows its traceback)
* 2 — usage error: bad command-line arguments, or arguments the tool rejects
  (:class:`~tabwarden.errors.InvalidArgument`)
* 3 — the tool (or configuration) failed: any other :class:`~tabwarden.errors.TabwardenError`
  (or its result says it did not do what was asked: a navigation a dialog held back,
  printed like any result)
* 4 — timeout (:class:`~tabwarden.errors.DeadlineExceeded`)
* 5 — the session's daemon cannot be started or reached
* 130 — interrupted (Ctrl-C)
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import json
import logging
import os
import platform
import re
import subprocess
import sys
import threading
import time
import webbrowser
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from . import __version__
from .backends.executable import find_browser
from .backends.local import has_display
from .backends.profiles import workspace_profile_dir
from .backends.reaper import pid_alive
from .config import Config, load_config
from .counting import counted
from .errors import (
    BrowserError,
    ConfigError,
    DaemonUnreachable,
    DeadlineExceeded,
    InvalidArgument,
    PathNotAllowed,
    RemoteError,
    TabwardenError,
)
from .launch_options import apply_launch_options
from .safety.paths import WorkspacePaths
from .safety.redaction import process_redactor
from .surfaces import daemon, workbench_directory
from .tools import registry
from .tools.catalog import TOOLS
from .tools.spec import (
    CommandLineKind,
    FlagAlias,
    OptionAlias,
    ToolSpec,
    command_line_kind,
    command_line_positionals,
    text_for_people,
)
from .tools.spec import command_name as tool_command_name

__all__ = ["EXIT_CODES", "app", "exit_code_for", "main"]

T = TypeVar("T")

_MIN_PYTHON = (3, 11)
_VERSION_PROBE_S = 3.0

EXIT_CODES = {
    0: "ok",
    1: "demo, version, doctor or mcp failed, or an internal error",
    2: "usage error (bad arguments)",
    3: "tool error",
    4: "timeout",
    5: "daemon unreachable",
    130: "interrupted",
}

_EPILOG = "Exit codes: " + " · ".join(f"{code} {what}" for code, what in EXIT_CODES.items())

_HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}


def _tidy_metavars(params: list[Any]) -> list[Any]:
    """Help without type noise (``<bool>``, ``<str>``): no metavar on a flag, a name on a
    value (``URL``, ``N``, ``png|jpeg``), the argument's name alone on a positional."""
    for param in params:
        if isinstance(param, TyperArgument):
            if type(param) is TyperArgument:
                param.__class__ = _NamedArgument
        elif isinstance(param, TyperOption) and param.metavar is None:
            choices = param.type_descriptor.choices if param.type_descriptor.is_choice else None
            if param.is_flag:
                param.metavar = ""
            elif choices:
                param.metavar = "|".join(map(str, choices))
            else:
                longest = max(param.opts, key=len, default="--value")
                param.metavar = longest.lstrip("-").replace("-", "_").upper()
    return params


class _NamedArgument(TyperArgument):
    """A positional shown by its name (``URL``), without its Python type."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


class _Command(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return _tidy_metavars(super().get_params(ctx))


class _Group(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _tidy_metavars(super().get_params(ctx))


app = typer.Typer(
    name="tabwarden",
    help="tabwarden: a browser-control runtime for AI agents, on the Chrome DevTools Protocol.",
    epilog=_EPILOG,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=_Group,
    context_settings=_HELP_OPTIONS,
)

daemon_app = typer.Typer(
    help="The background daemon that keeps a session's browser alive between commands.",
    no_args_is_help=True,
    cls=_Group,
    context_settings=_HELP_OPTIONS,
)
app.add_typer(daemon_app, name="daemon")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"tabwarden {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print the tabwarden version and exit.",
        ),
    ] = False,
) -> None:
    pass


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``tabwarden`` script and ``python -m tabwarden``."""
    args = sys.argv[1:] if argv is None else argv
    report = _json_error if _asks_for_json(args) else _error
    try:
        code = app(args=args, prog_name="tabwarden", standalone_mode=False)
    except TabwardenError as exc:
        report(exc)
        sys.exit(exit_code_for(exc))
    except typer.TyperException as exc:  # click's errors: usage (2), files…
        sys.exit(_usage_error(exc, report))
    except typer.Abort:
        report(_Failure("Aborted", "aborted"))
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:
        if os.environ.get("TABWARDEN_DEBUG"):
            raise
        hint = "a tabwarden bug: TABWARDEN_DEBUG=1 shows the traceback"
        report(_Failure(type(exc).__name__, f"{type(exc).__name__}: {exc}", hint))
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


def _asks_for_json(args: list[str]) -> bool:
    """``--json`` among the options (not after ``--``, where it would be a value)."""
    before = args[: args.index("--")] if "--" in args else args
    return "--json" in before


@dataclass(frozen=True)
class _Failure:
    """An error that is no TabwardenError (usage, interrupt, a bug), as it is reported."""

    type_name: str
    message: str
    hint: str = ""


def _failure(error: TabwardenError | _Failure) -> _Failure:
    if isinstance(error, _Failure):
        return error
    name = error.type_name if isinstance(error, RemoteError) else type(error).__name__
    return _Failure(name, error.message, error.hint)


def _json_error(error: TabwardenError | _Failure) -> None:
    """With ``--json``: the error as one JSON object on stdout, where the script reads the
    result: ``{"error": {"type", "message", "hint"}}`` (the exit code is unchanged)."""
    failure = _failure(error)
    redact = process_redactor().redact_text
    body = {"type": failure.type_name, "message": redact(failure.message)}
    body["hint"] = redact(failure.hint)
    typer.echo(json.dumps({"error": body}, ensure_ascii=False))


def exit_code_for(exc: BaseException) -> int:
    """The exit status for an error (see the module docstring)."""
    cls: type[BaseException] | None = type(exc)
    if isinstance(exc, RemoteError):
        cls = exc.error_class
    if cls is None:
        return 3
    if issubclass(cls, InvalidArgument):
        return 2
    if issubclass(cls, DeadlineExceeded):
        return 4
    if issubclass(cls, DaemonUnreachable):
        return 5
    return 3


def _usage_error(
    exc: typer.TyperException, report: Callable[[TabwardenError | _Failure], None]
) -> int:
    code = int(getattr(exc, "exit_code", 2))
    if type(exc).__name__ == "NoArgsIsHelpError":
        show = getattr(exc, "show", None)
        if callable(show):
            show()  # the command's help
        return code
    ctx = getattr(exc, "ctx", None)
    where = getattr(ctx, "command_path", "tabwarden")
    report(_Failure("UsageError", exc.format_message(), f"see `{where} --help`"))
    return code


# ---- legacy commands: demo, version, doctor --------------------------------------------


@contextlib.contextmanager
def _exit_1_on_error() -> Iterator[None]:
    """These commands fail with status 1 (the tool commands have finer codes)."""
    try:
        yield
    except TabwardenError as exc:
        _error(str(exc))
        raise typer.Exit(1) from None


@app.command(cls=_Command)
def demo(
    headed: bool = typer.Option(
        False, "--headed", help="Show the browser window (needs a display)."
    ),
    serve: bool = typer.Option(
        False,
        "--serve",
        help="Only serve the demo site on 127.0.0.1, print its URL and run until Ctrl-C.",
    ),
    port: int | None = typer.Option(
        None,
        "--port",
        min=0,
        max=65535,
        help="The port for --serve (default: a free one, printed).",
    ),
) -> None:
    """Run a scripted agent session against a bundled demo site, narrated step by step
    (--serve: only serve the site, for your own commands and scripts)."""
    if serve:
        _serve_demo_site(port or 0)
        return
    if port is not None:
        raise typer.BadParameter("--port is for --serve", param_hint="'--port'")
    from .demo.agent import run_demo

    with _exit_1_on_error():
        code = asyncio.run(run_demo(headless=not headed))
    raise typer.Exit(code)


def _serve_demo_site(port: int) -> None:
    from .demo.server import DemoSite

    site = DemoSite(port=port)
    try:
        url = site.start()
    except OSError as exc:
        hint = "choose another --port, or leave it out to get a free one"
        _error(f"cannot serve the demo site on 127.0.0.1:{port}: {exc.strerror or exc} ({hint})")
        raise typer.Exit(1) from None
    try:
        typer.echo(f"serving the demo site at {url} (Ctrl-C stops it)")
        # Ctrl-C interrupts the wait; the server runs on its own thread.
        threading.Event().wait()
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        site.stop()


@app.command(cls=_Command)
def version() -> None:
    """Print the tabwarden version and the browser it would launch."""
    typer.echo(f"tabwarden {__version__}")
    with _exit_1_on_error():
        config = load_config()
        executable = find_browser(config.browser.executable)
    detail = _browser_version(executable)
    typer.echo(f"browser   {executable}" + (f" ({detail})" if detail else ""))


@app.command(cls=_Command)
def doctor(
    timeout: float = typer.Option(
        30.0, "--timeout", min=1.0, help="Seconds allowed to launch the browser and open a page."
    ),
) -> None:
    """Check that this machine can run tabwarden: Python, the browser, a real launch; and
    say where outputs, profiles and daemon logs go."""
    typer.echo("tabwarden doctor")
    checks = _Checks()
    checks.run("python", _check_python)
    config = checks.run("config", _check_config)
    if config is None:
        checks.skip("browser", "needs a valid configuration")
        checks.skip("launch", "needs a valid configuration")
    elif checks.run("browser", lambda: _check_browser(config)) is None:
        checks.skip("launch", "needs a browser")
    else:
        checks.run("launch", lambda: asyncio.run(_check_launch(config, timeout)))
    if config is not None:
        _print_places(config)
    if checks.failed:
        typer.echo(f"{checks.failed} check(s) failed")
        raise typer.Exit(1)
    typer.echo("all checks passed")


def _print_places(config: Config) -> None:
    """Where files go, for the current folder and the ``default`` session."""
    browser = config.browser
    profile = workspace_profile_dir(browser.workspace, "default", browser.data_dir)
    try:
        output = str(WorkspacePaths.from_config(config).output_root)
    except PathNotAllowed as exc:
        output = f"none: {exc.message}"
    typer.echo("where files go")
    typer.echo(f"  workspace  {(browser.workspace or Path.cwd()).resolve()}")
    typer.echo(f"  outputs    {output}  (downloads, PDFs, screenshots, traces, recordings, state)")
    typer.echo(f"  profile    {profile}  (session default; --session NAME: a sibling folder)")
    if browser.isolated:
        typer.echo("             (unused: browser.isolated makes a throwaway profile per session)")
    typer.echo(f"  daemons    {daemon.runtime_dir()}  (sockets and logs of the command line)")


# ---- schema and mcp --------------------------------------------------------------------


@app.command("schema", cls=_Command)
def schema_command(
    format: Literal["mcp", "openai", "anthropic"] = typer.Option(
        "mcp", "--format", help="Whose tool-definition format."
    ),
    tools: str | None = typer.Option(
        None,
        "--tools",
        metavar="GROUPS",
        help="Tool groups, comma-separated, or all (default: tools.groups in the "
        "configuration, core).",
    ),
) -> None:
    """Print the tool definitions as JSON, for other agent harnesses."""
    config = load_config()
    groups = config.tools.groups if tools is None else registry.parse_groups(tools)
    specs = registry.select_tools(groups, config)
    typer.echo(json.dumps(registry.schema(specs, format), indent=2, ensure_ascii=False))


_SecretsFileOption = Annotated[
    Path | None,
    typer.Option(
        "--secrets",
        metavar="FILE",
        help=escape(
            "A dotenv file (NAME=value) of your secrets: each value is replaced by "
            "[secret:NAME] in what reaches the model or a log."
        ),
    ),
]
_AllowAttachOption = Annotated[
    bool,
    typer.Option(
        "--allow-attach",
        help="The user consents to driving a browser (or profile) that is not tabwarden's "
        "own: --cdp-endpoint, browser_attach, a --user-data-dir in browser.extra_args.",
    ),
]


# Launch options: each sets the configuration field of its name (launch_options.py).
_ProxyServerOption = Annotated[
    str | None,
    typer.Option(
        "--proxy-server",
        metavar="URL",
        help="Send the browser's traffic through this proxy (http://host:3128, socks5://host:1080).",
    ),
]
_ProxyBypassOption = Annotated[
    str | None,
    typer.Option(
        "--proxy-bypass",
        metavar="HOSTS",
        help="Hosts reached without the proxy, separated by commas or semicolons.",
    ),
]
_IgnoreHttpsErrorsOption = Annotated[
    bool,
    typer.Option(
        "--ignore-https-errors", help="Load HTTPS pages with invalid certificates (self-signed…)."
    ),
]
_DeviceOption = Annotated[
    str | None,
    typer.Option(
        "--device",
        metavar="NAME",
        help="Emulate this device from the start (iphone-15, pixel-8, desktop-1080p…).",
    ),
]
_StorageStateOption = Annotated[
    Path | None,
    typer.Option(
        "--storage-state",
        metavar="FILE",
        help="Load this storage state file (cookies, localStorage) when the browser starts.",
    ),
]
_InitScriptOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--init-script",
        metavar="FILE",
        help="A JavaScript file every page runs before its own scripts (repeatable).",
    ),
]
_GrantPermissionsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--grant-permissions",
        metavar="NAMES",
        help="Permissions granted to every site: geolocation, notifications, "
        "clipboard-read… (comma-separated or repeated).",
    ),
]
_AllowedOriginsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allowed-origins",
        metavar="HOSTS",
        help="Only these hosts may be loaded (policy.allow): example.com, *.example.com, "
        "https://host:port (separated by commas or semicolons, or repeated).",
    ),
]
_BlockedOriginsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--blocked-origins",
        metavar="HOSTS",
        help="These hosts may never be loaded (policy.deny), written as --allowed-origins.",
    ),
]
_OutputDirOption = Annotated[
    Path | None,
    typer.Option(
        "--output-dir",
        metavar="DIR",
        help="Where downloads, screenshots, PDFs, traces and state files go (inside the "
        "workspace).",
    ),
]
_BackendOption = Annotated[
    str | None,
    typer.Option(
        "--backend",
        metavar="NAME",
        help="Where the browser comes from (browser.backend): local, browserbase, browser-use, "
        "firecrawl, steel or cdp-template; cloud settings in the config's cloud section "
        "(docs/backends.md).",
    ),
]
_IsolationOption = Annotated[
    str | None,
    typer.Option(
        "--isolation",
        metavar="MODE",
        help="How sessions are kept apart (browser.isolation): process (a browser each) or "
        "context (one shared local Chromium, a browser context each; docs/isolation.md).",
    ),
]
_EngineOption = Annotated[
    str | None,
    typer.Option(
        "--engine",
        metavar="NAME",
        help="The browser engine (browser.engine): chromium, or firefox (WebDriver BiDi: "
        "the tools docs/engines-matrix.md lists; docs/firefox.md).",
    ),
]
_UserAgentOption = Annotated[
    str | None,
    typer.Option("--user-agent", metavar="UA", help="The browser's User-Agent string."),
]


def _apply_launch_flags(config: Config, **values: Any) -> None:
    """Set the configuration fields of the launch flags given; a bad value is a usage error."""
    if not values.get("ignore_https_errors"):
        values["ignore_https_errors"] = None  # not given: as configured
    if values.get("output_dir") is not None:
        values["output_dir"] = values["output_dir"].expanduser().resolve()
    try:
        apply_launch_options(config, **values)
    except ConfigError as exc:
        raise typer.BadParameter(exc.message) from None


def _apply_safety_flags(config: Config, secrets: Path | None, allow_attach: bool) -> None:
    if secrets is not None:
        config.safety.secrets_file = secrets.expanduser().resolve()
    if allow_attach:
        config.safety.allow_attach = True


@app.command("mcp", cls=_Command)
def mcp_command(
    http: Annotated[
        bool, typer.Option("--http", help="Serve MCP over streamable HTTP instead of stdio.")
    ] = False,
    host: Annotated[
        str | None, typer.Option("--host", help="HTTP: the address to listen on.")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", min=0, max=65535, help="HTTP: the port to listen on."),
    ] = None,
    token: Annotated[
        str | None, typer.Option("--token", help="HTTP: the bearer token clients must send.")
    ] = None,
    shared_session: Annotated[
        bool,
        typer.Option("--shared-session", help="HTTP: all clients share one browser session."),
    ] = False,
    allowed_origins: Annotated[
        list[str] | None,
        typer.Option(
            "--http-origin",
            metavar="ORIGIN",
            help="HTTP: a web page Origin allowed to connect to this server (repeatable); "
            "not --allowed-origins, which is what the browser may load.",
        ),
    ] = None,
    tools: Annotated[
        str | None,
        typer.Option(
            "--tools",
            metavar="GROUPS",
            help="Tool groups to offer, comma-separated, or all (default: tools.groups in "
            "the configuration, core).",
        ),
    ] = None,
    config_file: Annotated[
        Path | None,
        typer.Option("--config", metavar="FILE", help="The tabwarden YAML config file."),
    ] = None,
    headless: Annotated[
        bool | None,
        typer.Option("--headless/--headed", help="Run the browser without / with a window."),
    ] = None,
    isolated: Annotated[
        bool,
        typer.Option("--isolated", help="A throwaway profile, removed when the session closes."),
    ] = False,
    user_data_dir: Annotated[
        Path | None,
        typer.Option("--user-data-dir", metavar="DIR", help="Where persistent profiles live."),
    ] = None,
    cdp_endpoint: Annotated[
        str | None,
        typer.Option(
            "--cdp-endpoint",
            metavar="URL",
            help="Drive this running browser (its CDP URL) instead of launching one; every "
            "client of this server drives it. Needs --allow-attach.",
        ),
    ] = None,
    executable_path: Annotated[
        str | None,
        typer.Option(
            "--executable-path", metavar="PATH", help="The Chromium-based browser to launch."
        ),
    ] = None,
    viewport_size: Annotated[
        str | None,
        typer.Option(
            "--viewport-size",
            metavar="WxH",
            help="The viewport pages see, in CSS pixels, e.g. 1280x720.",
        ),
    ] = None,
    user_agent: Annotated[
        str | None,
        typer.Option("--user-agent", metavar="UA", help="The browser's User-Agent string."),
    ] = None,
    secrets: _SecretsFileOption = None,
    allow_attach: _AllowAttachOption = False,
    proxy_server: _ProxyServerOption = None,
    proxy_bypass: _ProxyBypassOption = None,
    ignore_https_errors: _IgnoreHttpsErrorsOption = False,
    device: _DeviceOption = None,
    storage_state: _StorageStateOption = None,
    init_scripts: _InitScriptOption = None,
    grant_permissions: _GrantPermissionsOption = None,
    allowed_origins_policy: _AllowedOriginsOption = None,
    blocked_origins: _BlockedOriginsOption = None,
    output_dir: _OutputDirOption = None,
    workbench: Annotated[
        bool,
        typer.Option(
            "--workbench/--no-workbench",
            help="Serve the workbench, where a person follows the sessions live (its URL "
            "is printed on stderr at start).",
        ),
    ] = True,
    workbench_host: Annotated[
        str | None,
        typer.Option(
            "--workbench-host",
            metavar="HOST",
            help="Where the workbench listens (default 127.0.0.1); another host still "
            "needs the per-run token in its URL.",
        ),
    ] = None,
    backend: _BackendOption = None,
    isolation: _IsolationOption = None,
    engine: _EngineOption = None,
) -> None:
    """Run the MCP server (stdio by default, or HTTP)."""
    config = load_config(config_file)
    _apply_safety_flags(config, secrets, allow_attach)
    _apply_launch_flags(
        config,
        proxy_server=proxy_server,
        proxy_bypass=proxy_bypass,
        ignore_https_errors=ignore_https_errors,
        device=device,
        storage_state=storage_state,
        init_scripts=init_scripts,
        grant_permissions=grant_permissions,
        allowed_origins=allowed_origins_policy,
        blocked_origins=blocked_origins,
        output_dir=output_dir,
        backend=backend,
        isolation=isolation,
        engine=engine,
    )
    _apply_browser_flags(
        config,
        headless=headless,
        isolated=isolated,
        user_data_dir=user_data_dir,
        executable_path=executable_path,
        viewport_size=viewport_size,
        user_agent=user_agent,
    )
    if workbench_host is not None:
        config.workbench.host = workbench_host
    if tools is not None:  # the flag wins over tools.groups in the file or environment
        config.tools.groups = list(registry.parse_groups(tools))
    try:
        mcp = importlib.import_module("tabwarden.surfaces.mcp")
    except ModuleNotFoundError as exc:
        if exc.name != "tabwarden.surfaces.mcp":
            raise
        _error("the MCP server is not part of this installation (tabwarden.surfaces.mcp)")
        raise typer.Exit(1) from None
    kwargs: dict[str, Any] = {
        "config": config,
        "http": http,
        "shared_session": shared_session,
        "workbench": workbench,
    }
    given = {"host": host, "port": port, "token": token}
    kwargs.update({key: value for key, value in given.items() if value is not None})
    if allowed_origins:
        kwargs["allowed_origins"] = tuple(allowed_origins)
    if cdp_endpoint is not None:
        kwargs["cdp_endpoint"] = cdp_endpoint
    mcp.run(mcp.MCPOptions(**kwargs))


def _apply_browser_flags(
    config: Config,
    *,
    headless: bool | None,
    isolated: bool,
    user_data_dir: Path | None,
    executable_path: str | None,
    viewport_size: str | None,
    user_agent: str | None,
) -> None:
    browser = config.browser
    try:
        if headless is not None:
            browser.headless = headless
        if isolated:
            browser.isolated = True
        if user_data_dir is not None:
            browser.data_dir = user_data_dir.expanduser()
        if executable_path is not None:
            browser.executable = executable_path
        if viewport_size is not None:
            match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", viewport_size)
            if match is None:
                raise typer.BadParameter(
                    f"{viewport_size!r} is not WIDTHxHEIGHT (e.g. 1280x720)",
                    param_hint="--viewport-size",
                )
            browser.window_width = int(match.group(1))
            browser.window_height = int(match.group(2))
        if user_agent is not None:
            browser.user_agent = user_agent
    except ValidationError as exc:
        problem = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise typer.BadParameter(problem) from None


# ---- daemon commands ---------------------------------------------------------------------

_SessionOption = Annotated[
    str, typer.Option("--session", metavar="NAME", help="The session (one daemon each).")
]
_JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON, for scripts.")]


@app.command("workbench", cls=_Command)
def workbench_command(
    session: _SessionOption = "default",
    list_: Annotated[
        bool,
        typer.Option(
            "--list", help="List every running workbench (daemons' and MCP servers'), then exit."
        ),
    ] = False,
    open_page: Annotated[
        bool,
        typer.Option(
            "--open/--no-open", help="Open the page in your browser (when there is a display)."
        ),
    ] = True,
    as_json: _JsonOption = False,
) -> None:
    """Open the workbench: watch the session's browser live, and take over when needed.

    Starts the session's daemon if it is not running; its URL carries a token for this
    run only. MCP servers serve a workbench of their own: --list shows them all."""
    if list_:
        entries = workbench_directory.listed(daemon.runtime_dir())
        if as_json:
            typer.echo(json.dumps(entries, indent=2))
        elif not entries:
            typer.echo("no workbench is running (tabwarden workbench starts one)")
        for entry in entries if not as_json else []:
            typer.echo(f"{entry.get('kind')} (pid {entry.get('pid')}): {entry.get('url')}")
        return
    with _exit_1_on_error():
        info = daemon.unwrap(daemon.send(session, {"op": "status"}, _GRACE_S))
    url = info.get("workbench")
    if not url:
        _error(
            f"the daemon of session {session} serves no workbench (workbench.enabled is off, "
            f"or it could not listen: see its log)"
        )
        raise typer.Exit(1)
    opened = open_page and has_display() and webbrowser.open(str(url))
    if as_json:
        typer.echo(json.dumps({"url": url, "session": session, "opened": bool(opened)}))
        return
    typer.echo(f"workbench of session {session}: {url}")
    if not opened:
        typer.echo("open that address in a browser on this machine")


@daemon_app.command("run", cls=_Command)
def daemon_run(
    session: _SessionOption = "default",
    idle_timeout: Annotated[
        float | None,
        typer.Option(
            "--idle-timeout",
            metavar="S",
            min=0,
            help=f"Exit after this many seconds without a tool call (0: never; default "
            f"${daemon.IDLE_ENV} or {daemon.DEFAULT_IDLE_S:.0f}).",
        ),
    ] = None,
    config_file: Annotated[
        Path | None,
        typer.Option("--config", metavar="FILE", help="The tabwarden YAML config file."),
    ] = None,
    secrets: _SecretsFileOption = None,
    allow_attach: _AllowAttachOption = False,
    proxy_server: _ProxyServerOption = None,
    proxy_bypass: _ProxyBypassOption = None,
    ignore_https_errors: _IgnoreHttpsErrorsOption = False,
    device: _DeviceOption = None,
    user_agent: _UserAgentOption = None,
    storage_state: _StorageStateOption = None,
    init_scripts: _InitScriptOption = None,
    grant_permissions: _GrantPermissionsOption = None,
    allowed_origins: _AllowedOriginsOption = None,
    blocked_origins: _BlockedOriginsOption = None,
    output_dir: _OutputDirOption = None,
    backend: _BackendOption = None,
    isolation: _IsolationOption = None,
    engine: _EngineOption = None,
) -> None:
    """Run a session's daemon in the foreground (tool commands start it by themselves)."""
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    launch = {
        "proxy_server": proxy_server,
        "proxy_bypass": proxy_bypass,
        "ignore_https_errors": ignore_https_errors,
        "device": device,
        "user_agent": user_agent,
        "storage_state": storage_state,
        "init_scripts": init_scripts,
        "grant_permissions": grant_permissions,
        "allowed_origins": allowed_origins,
        "blocked_origins": blocked_origins,
        "output_dir": output_dir,
        "backend": backend,
        "isolation": isolation,
        "engine": engine,
    }
    config = None
    launch_given = any(value not in (None, False) for value in launch.values())
    if config_file is not None or secrets is not None or allow_attach or launch_given:
        config = load_config(config_file)
        _apply_safety_flags(config, secrets, allow_attach)
        _apply_launch_flags(config, **launch)
    daemon.run_daemon(session, config=config, idle_timeout_s=idle_timeout)


@daemon_app.command("status", cls=_Command)
def daemon_status(
    session: Annotated[
        str | None,
        typer.Option("--session", metavar="NAME", help="This session only (default: all)."),
    ] = None,
    as_json: _JsonOption = False,
) -> None:
    """Show the running daemons (pid, uptime, idle time, tabs, browser), and how the last
    daemon of each other session ended, until its next daemon starts."""
    if session is not None:
        statuses = [daemon.status(session)]
    else:
        statuses = [s for s in map(daemon.status, daemon.daemon_names()) if s.get("running")]
    if as_json:
        payload: Any = statuses[0] if session is not None else statuses
        typer.echo(json.dumps(payload, indent=2))
        return
    if not statuses:
        typer.echo("no daemon is running")
    for info in statuses:
        typer.echo(_describe_status(info))
    if session is None:
        running = {info.get("session") for info in statuses}
        for name in daemon.ended_names():
            ended = daemon.last_end(name) if name not in running else None
            if ended is not None:
                typer.echo(_describe_status({"session": name, "ended": ended}))


def _describe_status(info: dict[str, Any]) -> str:
    name = info.get("session")
    if not info.get("running"):
        ended = info.get("ended")
        if isinstance(ended, dict):
            return f"{name}: not running; its last daemon ended {ended.get('says')}"
        return f"{name}: not running"
    idle_limit = info.get("idle_timeout_s") or 0
    exits = f"exits after {idle_limit:.0f} s idle" if idle_limit else "never exits when idle"
    tabs = info.get("tabs") or 0
    browser = (
        f"browser pid {info['browser_pid']}, {counted(tabs, 'tab')}"
        if info.get("browser_pid")
        else "no browser yet"
    )
    return (
        f"{name}: pid {info.get('pid')}, up {info.get('uptime_s', 0):.0f} s, "
        f"idle {info.get('idle_s', 0):.0f} s ({exits}), {browser}"
    )


@daemon_app.command("stop", cls=_Command)
def daemon_stop(
    session: Annotated[
        str | None,
        typer.Option("--session", metavar="NAME", help="The session (default: default)."),
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Stop every daemon.")] = False,
) -> None:
    """Stop a session's daemon (or all), closing its browser; waits until it is gone."""
    if all_ and session is not None:
        raise typer.BadParameter("give --session or --all, not both")
    names = daemon.daemon_names() if all_ else [session or "default"]
    stopped = 0
    for name in names:
        if daemon.stop(name):
            stopped += 1
            typer.echo(f"stopped the daemon of session {name}")
        elif not all_:
            typer.echo(f"no daemon runs for session {name}")
    if all_ and not stopped:
        typer.echo("no daemon is running")


# ---- tool commands -------------------------------------------------------------------------

_TOOLS_PANEL = "Browser tools"
_COMMON_PANEL = "Common options"
_GRACE_S = 30.0
"""More than the call's own deadline: starting the daemon and, on first use, the browser."""
_DEFAULT_WAIT_S = 180.0
_CLIENT_KWARGS = (
    "cli_session",
    "cli_json",
    "cli_timeout_ms",
    "cli_secrets",
)


@dataclass(frozen=True)
class _Param:
    """How one field of a tool's parameter model appears on the command line."""

    name: str
    kind: CommandLineKind
    base: Any
    """The Python type given to typer (str, int, float, bool, a Literal, list[str])."""
    required: bool
    positional: bool
    variadic: bool
    default: Any
    description: str

    @property
    def display(self) -> str:
        """How error messages name it: ``URL`` or ``--max-chars``."""
        if self.positional:
            return self.name.upper() + ("..." if self.variadic else "")
        return "--" + self.name.replace("_", "-")


def command_name(spec: ToolSpec) -> str:
    """``browser_get_text`` → ``get-text``."""
    return tool_command_name(spec.name)


def _plan(spec: ToolSpec) -> list[_Param]:
    params: list[_Param] = []
    positionals = command_line_positionals(spec)
    command_line_defaults = dict(spec.cli.defaults)
    for name, field in spec.params.model_fields.items():
        kind, base = command_line_kind(field)
        required = field.is_required()
        positional = name in positionals
        params.append(
            _Param(
                name=name,
                kind=kind,
                base=base,
                required=required,
                positional=positional,
                variadic=positional and kind == "list",
                default=None
                if required
                else command_line_defaults.get(name, field.get_default(call_default_factory=True)),
                description=field.description or "",
            )
        )
    return params


def _help(param: _Param) -> str:
    text = param.description
    if param.kind == "json":
        text = f"{text} (JSON)".strip()
    elif param.kind == "list" and not param.positional:
        text = f"{text} (repeat the option for several)".strip()
    if param.default not in (None, [], {}) and param.kind != "flag":
        text = f"{text} (default: {param.default})".strip()
    elif param.kind == "flag" and param.default is not None:
        flag = param.name.replace("_", "-")
        text = f"{text} (default: --{'' if param.default else 'no-'}{flag})".strip()
    return escape(text)


def _typer_parameter(param: _Param) -> inspect.Parameter:
    keyword = inspect.Parameter.KEYWORD_ONLY
    option = "--" + param.name.replace("_", "-")
    help_text = _help(param)
    # The call's deadline is shown with --session and --json, the options of every command.
    panel = _COMMON_PANEL if param.name == "timeout_ms" else None
    annotation: Any
    if param.positional:
        metavar = param.name.upper()  # typer marks a variadic one itself (VALUES...)
        info = typer.Argument(metavar=metavar, help=help_text, show_default=False)
        if param.required:
            return inspect.Parameter(param.name, keyword, annotation=Annotated[param.base, info])
        annotation = Annotated[param.base | None, info]
        return inspect.Parameter(param.name, keyword, default=None, annotation=annotation)
    if param.kind == "flag":
        names = f"{option}/--no-{option[2:]}"
        info = typer.Option(names, help=help_text, show_default=False, rich_help_panel=panel)
    else:
        option_metavar = (
            "JSON" if param.kind == "json" else "N" if param.name == "timeout_ms" else None
        )
        info = typer.Option(
            option,
            metavar=option_metavar,
            help=help_text,
            show_default=False,
            rich_help_panel=panel,
        )
    if param.required:
        return inspect.Parameter(param.name, keyword, annotation=Annotated[param.base, info])
    annotation = Annotated[param.base | None, info]
    return inspect.Parameter(param.name, keyword, default=None, annotation=annotation)


def _common_parameters(spec: ToolSpec, plan: list[_Param]) -> list[inspect.Parameter]:
    keyword = inspect.Parameter.KEYWORD_ONLY
    common = [
        inspect.Parameter(
            "cli_session",
            keyword,
            default="default",
            annotation=Annotated[
                str,
                typer.Option(
                    "--session",
                    metavar="NAME",
                    help="The browser session (one daemon each).",
                    rich_help_panel=_COMMON_PANEL,
                ),
            ],
        ),
        inspect.Parameter(
            "cli_json",
            keyword,
            default=False,
            annotation=Annotated[
                bool,
                typer.Option(
                    "--json",
                    help="Print the whole result as JSON, for scripts.",
                    rich_help_panel=_COMMON_PANEL,
                ),
            ],
        ),
    ]
    if not any(p.name == "timeout_ms" for p in plan):
        common.append(
            inspect.Parameter(
                "cli_timeout_ms",
                keyword,
                default=None,
                annotation=Annotated[
                    float | None,
                    typer.Option(
                        "--timeout-ms",
                        metavar="N",
                        help="How long to wait for the answer, in ms.",
                        rich_help_panel=_COMMON_PANEL,
                    ),
                ],
            )
        )
    common.append(
        inspect.Parameter(
            "cli_secrets",
            keyword,
            default=None,
            annotation=Annotated[
                Path | None,
                typer.Option(
                    "--secrets",
                    metavar="FILE",
                    help=escape(
                        "A dotenv file (NAME=value) of secrets to replace by [secret:NAME] "
                        "in what the session prints, from now on."
                    ),
                    rich_help_panel=_COMMON_PANEL,
                ),
            ],
        )
    )
    for alias in spec.cli.flag_aliases:
        common.append(
            inspect.Parameter(
                _alias_kwarg(alias),
                keyword,
                default=False,
                annotation=Annotated[
                    bool,
                    typer.Option(alias.option, help=alias.help, rich_help_panel=_COMMON_PANEL),
                ],
            )
        )
    for option_alias in spec.cli.option_aliases:
        common.append(
            inspect.Parameter(
                _option_alias_kwarg(option_alias),
                keyword,
                default=None,
                annotation=Annotated[str | None, typer.Option(option_alias.option, hidden=True)],
            )
        )
    return common


def _alias_kwarg(alias: FlagAlias) -> str:
    """The command's keyword for a flag alias: ``--allow-attach`` → ``cli_allow_attach``."""
    return "cli_" + alias.option.removeprefix("--").replace("-", "_")


def _option_alias_kwarg(alias: OptionAlias) -> str:
    """The command's keyword for an option alias: ``--out`` → ``cli_out``."""
    return "cli_" + alias.option.removeprefix("--").replace("-", "_")


def _tool_command(spec: ToolSpec) -> Callable[..., None]:
    plan = _plan(spec)
    own = {
        *_CLIENT_KWARGS,
        *(_alias_kwarg(alias) for alias in spec.cli.flag_aliases),
        *(_option_alias_kwarg(alias) for alias in spec.cli.option_aliases),
    }
    clash = {p.name for p in plan} & own
    assert not clash, f"{spec.name} has parameters named like the CLI's own: {clash}"

    def command(**values: Any) -> None:
        _run_tool(spec, plan, values)

    parameters = [_typer_parameter(p) for p in plan] + _common_parameters(spec, plan)
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__name__ = command_name(spec).replace("-", "_")
    command.__doc__ = escape(spec.description)
    return command


def _register_tool_commands() -> None:
    taken = {"demo", "version", "doctor", "daemon", "schema", "mcp"}
    for spec in TOOLS:
        name = command_name(spec)
        assert name not in taken, f"two commands are called {name}"
        taken.add(name)
        command = _tool_command(spec)
        also = f" (also: {', '.join(spec.cli.aliases)})" if spec.cli.aliases else ""
        app.command(
            name, cls=_Command, rich_help_panel=_TOOLS_PANEL, help=f"{command.__doc__}{also}"
        )(command)
        for alias in spec.cli.aliases:
            assert alias not in taken, f"two commands are called {alias}"
            taken.add(alias)
            app.command(alias, cls=_Command, hidden=True)(command)


def _run_tool(spec: ToolSpec, plan: list[_Param], values: dict[str, Any]) -> None:
    session: str = values.pop("cli_session", "default")
    as_json: bool = values.pop("cli_json", False)
    wait_ms: float | None = values.pop("cli_timeout_ms", None)
    secrets: Path | None = values.pop("cli_secrets", None)
    for alias in spec.cli.flag_aliases:
        if values.pop(_alias_kwarg(alias), False):
            values[alias.parameter] = True
    for option_alias in spec.cli.option_aliases:
        given = values.pop(_option_alias_kwarg(option_alias), None)
        if given is not None and values.get(option_alias.parameter) is None:
            values[option_alias.parameter] = given
    arguments = _arguments(spec, plan, values)
    wait_ms = arguments.get("timeout_ms", wait_ms)
    if wait_ms is not None and not wait_ms > 0:
        raise InvalidArgument(
            f"{command_name(spec)}: --timeout-ms must be more than 0", hint="give milliseconds"
        )
    wait_s = wait_ms / 1000 + _GRACE_S if wait_ms is not None else _DEFAULT_WAIT_S
    request: dict[str, Any] = {"tool": spec.name, "arguments": arguments}
    if secrets is not None:
        path = secrets.expanduser().resolve()
        process_redactor().add_secrets_file(path)  # readable? and this process hides them too
        request["secrets_file"] = str(path)
    reply = daemon.send(session, request, wait_s)
    result = daemon.unwrap(reply)
    # Images were saved where the workspace rule puts them (the reply says where): a
    # terminal cannot show them, and a script reads the file.
    result.pop("image_data", None)
    if spec.images and result.get("path"):
        result["image_files"] = [result["path"]]
    # The untrusted-data marker and the size line are written for models: an agent reads
    # --json through a pipe; a person reads the terminal.
    if not (as_json and not _stdout_is_terminal()):
        result["text"] = text_for_people(str(result.get("text", "")))
    if as_json:
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        console = Console(soft_wrap=True, markup=False, highlight=False, emoji=False)
        console.print(str(result.get("text", "")).rstrip("\n"), markup=False, highlight=False)
    if result.get("is_error"):
        raise typer.Exit(3)  # it did not do what was asked (the result says why)


def _stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def _arguments(spec: ToolSpec, plan: list[_Param], values: dict[str, Any]) -> dict[str, Any]:
    """The tool's arguments from the command line; validated here (no daemon for typos)."""
    arguments: dict[str, Any] = {}
    for param in plan:
        value = values.get(param.name)
        if value is None or (param.kind == "list" and not param.required and not value):
            continue
        if param.kind == "list":
            value = list(value)
            if param.name in spec.cli.local_paths:
                value = [str(Path(v).expanduser().resolve()) for v in value]
        elif param.kind == "json":
            try:
                value = json.loads(value)
            except ValueError as exc:
                raise InvalidArgument(
                    f"{command_name(spec)}: {param.display} is not valid JSON: {exc}",
                    hint=f"see `tabwarden {command_name(spec)} --help`",
                ) from None
        arguments[param.name] = value
    for name, default in spec.cli.defaults:
        arguments.setdefault(name, default)
    try:
        spec.params.model_validate(arguments)
    except ValidationError as exc:
        by_name = {p.name: p.display for p in plan}
        problems = []
        for error in exc.errors():
            loc = [str(part) for part in error["loc"]]
            if loc and loc[0] in by_name:
                loc[0] = by_name[loc[0]]
            problems.append(f"{'.'.join(loc) or 'arguments'}: {error['msg']}")
        raise InvalidArgument(
            f"{command_name(spec)}: invalid arguments — {'; '.join(problems)}",
            hint=f"see `tabwarden {command_name(spec)} --help`",
        ) from None
    return arguments


_register_tool_commands()


# ---- doctor checks -------------------------------------------------------------------


class _CheckFailed(Exception):
    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class _Checks:
    def __init__(self) -> None:
        self.failed = 0

    def run(self, name: str, check: Callable[[], tuple[str, T]]) -> T | None:
        try:
            detail, value = check()
        except (_CheckFailed, TabwardenError) as exc:
            self.failed += 1
            message = exc.message if isinstance(exc, TabwardenError) else str(exc)
            first, *more = [line for line in message.splitlines() if line.strip()] or [""]
            typer.echo(f"  FAIL  {name:<8} {first}")
            for line in more:
                typer.echo(f"  {'':<14} | {line}")
            if exc.hint:
                typer.echo(f"  {'':<14} hint: {exc.hint}")
            return None
        typer.echo(f"  ok    {name:<8} {detail}")
        return value

    def skip(self, name: str, why: str) -> None:
        typer.echo(f"  --    {name:<8} skipped: {why}")


def _check_python() -> tuple[str, None]:
    found = platform.python_version()
    needed = ".".join(map(str, _MIN_PYTHON))
    if sys.version_info < _MIN_PYTHON:
        raise _CheckFailed(
            f"Python {found} is too old (tabwarden needs {needed} or newer)",
            hint=f"run tabwarden with Python {needed}+",
        )
    return f"Python {found} ({sys.executable})", None


def _check_config() -> tuple[str, Config]:
    config = load_config()
    browser = config.browser
    mode = "headless" if browser.headless else "headed"
    profile = "isolated" if browser.isolated else "workspace profile"
    return f"{mode}, {profile}, navigation timeout {config.timeouts.navigation_ms} ms", config


def _check_browser(config: Config) -> tuple[str, str]:
    executable = find_browser(config.browser.executable)
    detail = _browser_version(executable) or "it gave no version for --version"
    return f"{executable} ({detail})", executable


async def _check_launch(config: Config, timeout_s: float) -> tuple[str, None]:
    """Launch an isolated browser and open about:blank, all within ``timeout_s``."""
    import tabwarden

    began = time.perf_counter()
    timeout_ms = timeout_s * 1000
    pid: int | None = None
    try:
        async with asyncio.timeout(timeout_s + 5):  # a guard above the calls' own budgets
            async with tabwarden.launch(
                isolated=True, config=config, timeout_ms=timeout_ms
            ) as browser:
                pid = browser.endpoint.pid if browser.endpoint else None
                left_ms = max(1.0, timeout_ms - (time.perf_counter() - began) * 1000)
                tab = await browser.new_tab("about:blank", timeout_ms=left_ms)
                opened_ms = (time.perf_counter() - began) * 1000
                product, url = browser.product, tab.url
    except TimeoutError as exc:
        if isinstance(exc, TabwardenError):
            raise
        raise _CheckFailed(
            f"launching the browser and opening about:blank took over {timeout_s:.0f} s",
            hint="retry with a larger --timeout, or check the browser runs on this machine",
        ) from None
    except BrowserError:
        raise
    except TabwardenError as exc:
        raise _CheckFailed(
            f"the browser started but did not open a page: {exc.message}", hint=exc.hint
        ) from None
    if pid is not None and pid_alive(pid):
        raise _CheckFailed(
            f"the browser process {pid} is still running after the session closed",
            hint="this is a tabwarden bug; please report it",
        )
    return f"{product} opened {url} in {opened_ms:.0f} ms, then closed cleanly", None


# ---- helpers -------------------------------------------------------------------------


def _browser_version(executable: str) -> str:
    """``Chromium 1xx.0…`` from ``<browser> --version``, or "" if it does not say."""
    try:
        done = subprocess.run(
            [executable, "--version"],
            capture_output=True,
            text=True,
            timeout=_VERSION_PROBE_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    return lines[-1] if done.returncode == 0 and lines else ""


def _error(error: TabwardenError | _Failure | str) -> None:
    if isinstance(error, str):
        message = error
    else:
        failure = _failure(error)
        message = failure.message + (f" ({failure.hint})" if failure.hint else "")
    typer.echo(f"error: {process_redactor().redact_text(message)}", err=True)
