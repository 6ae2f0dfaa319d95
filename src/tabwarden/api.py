"""Entry points of the async Python API: ``launch()`` and ``attach()``."""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, overload

from pydantic import ValidationError

from .backends.attach_target import AttachTarget, find_attach_target
from .backends.choice import backend_for, local_backend
from .backends.external import CDPEndpoint, ConsentCheck
from .budget import Budget
from .config import Config, load_config
from .errors import ConfigError, InvalidArgument
from .firefox.start import FirefoxStart, firefox_session
from .launch_options import apply_launch_options
from .session import BrowserSession

__all__ = ["FirefoxStart", "SessionStart", "attach", "launch", "local_backend"]


class SessionStart:
    """What ``launch()``/``attach()`` return: ``await`` it, or use ``async with``."""

    def __init__(self, make: Callable[[], BrowserSession], timeout_ms: float | None) -> None:
        self._make = make
        self._timeout_ms = timeout_ms
        self._session: BrowserSession | None = None

    def __await__(self) -> Generator[Any, None, BrowserSession]:
        return self._start().__await__()

    async def __aenter__(self) -> BrowserSession:
        return await self._start()

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    async def _start(self) -> BrowserSession:
        self._session = await _started(self._make(), self._timeout_ms)
        return self._session


class _FoundAttach(SessionStart):
    """An attach with no URL: the browser is chosen as it starts (discovery, launch)."""

    def __init__(
        self,
        config: Config,
        *,
        name: str,
        consent: ConsentCheck | None,
        dialog_bridge: bool,
        port: int | None,
        launch: bool,
        timeout_ms: float | None,
    ) -> None:
        super().__init__(self._no_session, timeout_ms)
        self._config = config
        self._name = name
        self._consent = consent
        self._dialog_bridge = dialog_bridge
        self._port = port
        self._launch = launch
        self.target: AttachTarget | None = None
        """The browser found (or launched), once started."""

    def _no_session(self) -> BrowserSession:
        raise AssertionError("a found browser's session is made once it is found")

    async def _start(self) -> BrowserSession:
        browser = self._config.browser
        limit_ms = self._timeout_ms or self._config.timeouts.launch_ms
        budget = Budget.from_ms(limit_ms)
        target = await find_attach_target(
            browser.attach, budget, data_dir=browser.data_dir, port=self._port, launch=self._launch
        )
        async with target.until_attached():
            consent = True if target.consented else self._consent
            backend = CDPEndpoint(
                target.cdp_url, consent=consent, needs_dialog_bridge=self._dialog_bridge
            )
            session = BrowserSession(backend, name=self._name, config=self._config)
            self._session = await _started(session, max(budget.remaining() * 1000, 1))
        self.target = target
        return self._session


async def _started(session: BrowserSession, timeout_ms: float | None) -> BrowserSession:
    try:
        await session.start(timeout_ms=timeout_ms)
    except BaseException:
        await session.close()
        raise
    return session


@overload
def launch(
    *,
    engine: Literal["firefox"],
    isolated: bool | None = None,
    headless: bool | None = None,
    executable: str | None = None,
    workspace: str | Path | None = None,
    args: Sequence[str] = (),
    name: str = "default",
    config: Config | None = None,
    secrets_file: str | Path | None = None,
    timeout_ms: float | None = None,
    backend: str | None = None,
) -> FirefoxStart: ...


@overload
def launch(
    *,
    engine: Literal["chromium"] | None = None,
    isolated: bool | None = None,
    headless: bool | None = None,
    executable: str | None = None,
    workspace: str | Path | None = None,
    args: Sequence[str] = (),
    name: str = "default",
    config: Config | None = None,
    secrets_file: str | Path | None = None,
    timeout_ms: float | None = None,
    proxy_server: str | None = None,
    proxy_bypass: str | Sequence[str] | None = None,
    ignore_https_errors: bool | None = None,
    device: str | None = None,
    user_agent: str | None = None,
    storage_state: str | Path | None = None,
    init_scripts: str | Path | Sequence[str | Path] | None = None,
    grant_permissions: str | Sequence[str] | None = None,
    allowed_origins: str | Sequence[str] | None = None,
    blocked_origins: str | Sequence[str] | None = None,
    output_dir: str | Path | None = None,
    backend: str | None = None,
    isolation: str | None = None,
    cloud: Mapping[str, Any] | None = None,
) -> SessionStart: ...


def launch(
    *,
    engine: Literal["chromium", "firefox"] | None = None,
    isolated: bool | None = None,
    headless: bool | None = None,
    executable: str | None = None,
    workspace: str | Path | None = None,
    args: Sequence[str] = (),
    name: str = "default",
    config: Config | None = None,
    secrets_file: str | Path | None = None,
    timeout_ms: float | None = None,
    proxy_server: str | None = None,
    proxy_bypass: str | Sequence[str] | None = None,
    ignore_https_errors: bool | None = None,
    device: str | None = None,
    user_agent: str | None = None,
    storage_state: str | Path | None = None,
    init_scripts: str | Path | Sequence[str | Path] | None = None,
    grant_permissions: str | Sequence[str] | None = None,
    allowed_origins: str | Sequence[str] | None = None,
    blocked_origins: str | Sequence[str] | None = None,
    output_dir: str | Path | None = None,
    backend: str | None = None,
    isolation: str | None = None,
    cloud: Mapping[str, Any] | None = None,
) -> SessionStart | FirefoxStart:
    """Launch a browser and return its session: a local Chromium, or a cloud browser.

    ``engine`` (``browser.engine``): ``chromium`` (the default) or ``firefox``, a local
    Firefox over WebDriver BiDi (docs/firefox.md; the local backend only) whose session
    is a :class:`~tabwarden.firefox.FirefoxSession` (``tabwarden.sync.launch`` returns its
    synchronous twin).

    ``backend`` (``browser.backend``): ``local`` (the default) launches Chromium here;
    ``browserbase``, ``browser-use``, ``firecrawl``, ``steel`` create a browser through the
    provider's API and ``cdp-template`` reaches one by ``cloud.url_template``
    (docs/backends.md). ``cloud`` sets fields of the ``cloud`` configuration section for this
    session: ``project_id``, ``region``, ``proxy``, ``stealth``, ``timeout_s``, ``profile``,
    ``url_template``, ``api_url``, ``api_key_env`` (keys are best left in the environment).

    ``isolation`` (``browser.isolation``, docs/isolation.md): ``process`` (the default)
    launches a browser for the session; ``context`` gives it a browser context of one
    Chromium shared by this process's context sessions (local backend only; no
    persistent profile).

    Local only: ``isolated=True`` uses a throwaway profile removed on close; otherwise the
    persistent profile of this workspace (and session ``name``) is used.
    ``secrets_file``: a dotenv file whose values ``session.redactor`` replaces by
    their names. Unset arguments come from ``config`` (default:
    :func:`tabwarden.load_config`).

    The other keywords set the configuration fields of the same names, as the command
    line's flags do (docs/reference/config.md): ``proxy_server``/``proxy_bypass``,
    ``ignore_https_errors``, ``device`` (an emulation preset), ``user_agent``,
    ``storage_state`` (a file loaded at start), ``init_scripts`` (JavaScript files run
    in every page first), ``grant_permissions``, ``allowed_origins``/``blocked_origins``
    (``policy.allow``/``policy.deny``) and ``output_dir`` (``files.output_dir``). Lists
    take a list or text with words separated by commas or semicolons.
    """
    config = _configured(config, secrets_file)
    apply_launch_options(
        config,
        proxy_server=proxy_server,
        proxy_bypass=proxy_bypass,
        ignore_https_errors=ignore_https_errors,
        device=device,
        user_agent=user_agent,
        storage_state=storage_state,
        init_scripts=init_scripts,
        grant_permissions=grant_permissions,
        allowed_origins=allowed_origins,
        blocked_origins=blocked_origins,
        output_dir=output_dir,
        backend=backend,
        isolation=isolation,
        engine=engine,
    )
    _apply_cloud(config, cloud or {})
    browser = config.browser
    if isolated is not None:
        browser.isolated = isolated
    if headless is not None:
        browser.headless = headless
    if executable is not None:
        browser.executable = executable
    if workspace is not None:
        browser.workspace = Path(workspace)
    browser.extra_args = [*browser.extra_args, *args]
    if browser.engine == "firefox":
        return FirefoxStart(firefox_session(config, name), timeout_ms)
    return SessionStart(
        lambda: BrowserSession(backend_for(config, name), name=name, config=config), timeout_ms
    )


def attach(
    cdp_url: str | None = None,
    *,
    consent: ConsentCheck | None = None,
    port: int | None = None,
    launch: bool = False,
    dialog_bridge: bool = False,
    name: str = "default",
    config: Config | None = None,
    secrets_file: str | Path | None = None,
    timeout_ms: float | None = None,
) -> SessionStart:
    """Attach to a running browser by its CDP endpoint (``http://host:9222`` or ``ws://…``).

    Without ``cdp_url``: the browser running on this machine with remote debugging (on
    ``port`` when given; else the ports of ``browser.attach.ports`` and the
    DevToolsActivePort files of the usual profile folders). Several found, or none, is
    an :class:`~tabwarden.EndpointError` that lists them, or says how to start one.
    ``launch=True``: when none runs, launch the user's Chrome (``browser.attach``) with
    remote debugging on a profile folder of tabwarden's own, never their everyday one,
    and attach to it; the user asked for that browser, so that is their consent. It is
    theirs: it stays open when the session closes.

    It needs the user's consent: ``consent=True`` once they agreed, or a callable
    shown the :class:`~tabwarden.AttachRequest` (browser, profile, open tabs) that
    returns True; unset, ``safety.allow_attach`` decides. Without consent it fails
    with :class:`~tabwarden.ConsentRequired` saying what it would control.

    Closing the session closes only the tabs it opened; the browser keeps running.
    ``dialog_bridge=True`` for a backend whose proxy auto-dismisses native dialogs.
    """
    config = _configured(config, secrets_file)
    if consent is None:
        consent = config.safety.allow_attach
    if cdp_url is None:
        return _FoundAttach(
            config,
            name=name,
            consent=consent,
            dialog_bridge=dialog_bridge,
            port=port,
            launch=launch,
            timeout_ms=timeout_ms,
        )
    if port is not None or launch:
        raise InvalidArgument(
            "cdp_url names the browser already; port and launch are for attaching without one",
            hint="give cdp_url alone, or port and launch without it",
        )
    backend = CDPEndpoint(cdp_url, consent=consent, needs_dialog_bridge=dialog_bridge)
    return SessionStart(lambda: BrowserSession(backend, name=name, config=config), timeout_ms)


def _apply_cloud(config: Config, cloud: Mapping[str, Any]) -> None:
    for key, value in cloud.items():
        if key not in type(config.cloud).model_fields:
            known = ", ".join(type(config.cloud).model_fields)
            raise ConfigError(f"cloud has no setting {key!r}", hint=f"the settings: {known}")
        try:
            setattr(config.cloud, key, value)
        except ValidationError as exc:
            problems = "; ".join(str(error["msg"]) for error in exc.errors())
            raise ConfigError(f"cloud.{key}: {problems}") from None


def _configured(config: Config | None, secrets_file: str | Path | None) -> Config:
    """A copy of ``config`` (default: the loaded one) with the call's own settings."""
    config = (config or load_config()).model_copy(deep=True)
    if secrets_file is not None:
        config.safety.secrets_file = Path(secrets_file)
    return config
