"""The ``tabwarden`` command line: ``demo``, ``version`` and ``doctor``.

Errors from tabwarden are printed as ``error: <message> (<hint>)`` on stderr with
exit status 1, never as a traceback.
"""

from __future__ import annotations

import asyncio
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import typer

from . import __version__
from .backends.executable import find_browser
from .backends.reaper import pid_alive
from .config import Config, load_config
from .errors import BrowserError, TabwardenError

__all__ = ["app", "main"]

T = TypeVar("T")

_MIN_PYTHON = (3, 11)
_VERSION_PROBE_S = 3.0

app = typer.Typer(
    name="tabwarden",
    help="tabwarden: a browser-control runtime for AI agents, on the Chrome DevTools Protocol.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def main() -> None:
    """Entry point of the ``tabwarden`` script and ``python -m tabwarden``."""
    try:
        app(prog_name="tabwarden")
    except TabwardenError as exc:
        _error(str(exc))
        sys.exit(1)
    except KeyboardInterrupt:
        _error("interrupted")
        sys.exit(130)


# ---- commands ------------------------------------------------------------------------


@app.command()
def demo(
    headed: bool = typer.Option(
        False, "--headed", help="Show the browser window (needs a display)."
    ),
) -> None:
    """Run a scripted agent session against a bundled demo site, narrated step by step."""
    from .demo.agent import run_demo

    code = asyncio.run(run_demo(headless=not headed))
    raise typer.Exit(code)


@app.command()
def version() -> None:
    """Print the tabwarden version and the browser it would launch."""
    typer.echo(f"tabwarden {__version__}")
    config = load_config()
    executable = find_browser(config.browser.executable)
    detail = _browser_version(executable)
    typer.echo(f"browser   {executable}" + (f" ({detail})" if detail else ""))


@app.command()
def doctor(
    timeout: float = typer.Option(
        30.0, "--timeout", min=1.0, help="Seconds allowed to launch the browser and open a page."
    ),
) -> None:
    """Check that this machine can run tabwarden: Python, the browser, a real launch."""
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
    if checks.failed:
        typer.echo(f"{checks.failed} check(s) failed")
        raise typer.Exit(1)
    typer.echo("all checks passed")


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


def _error(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
