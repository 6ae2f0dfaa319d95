"""The session a surface's tool calls run in: one per MCP client, CLI daemon or API user."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..activity import SessionActivity
from ..backends.attach_target import AttachTarget, find_attach_target
from ..backends.external import consent_refused, inspect_endpoint
from ..budget import Budget
from ..calls import Surface
from ..errors import ConsentRequired, SessionReaped
from ..safety.redaction import Redactor

if TYPE_CHECKING:
    from ..firefox.page import FirefoxPage
    from ..firefox.session import FirefoxSession
    from ..manager import SessionManager
    from ..session import BrowserSession
    from ..tab import Tab

__all__ = ["ToolContext"]


class ToolContext:
    """Gives handlers their session (started on first use) and the tab a call is about;
    its :attr:`redactor` cleans every result and error before it leaves the registry."""

    def __init__(
        self, manager: SessionManager, name: str = "default", *, surface: Surface = "tool"
    ) -> None:
        self.manager = manager
        self.name = name
        self.surface: Surface = surface
        """Who makes the calls, so hints name the call they can make: a tool (MCP and
        other tool-calling harnesses, the default), a command line (the CLI's daemon), or
        Python code (see :mod:`tabwarden.calls`)."""
        self.cdp_url: str | None = None
        """Set by browser_attach: the session then drives that browser instead."""
        self.consent = manager.config.safety.allow_attach
        """Whether the user agreed to attach to ``cdp_url`` (``safety.allow_attach``, or
        ``consent=true`` given to browser_attach)."""
        self._redactor: Redactor | None = None
        self.node_tree = True
        """Whether snapshot results carry the JSON node tree in their data (for programs:
        the CLI's --json). A model reads the text; MCP leaves the tree out."""
        self.isolated: bool | None = None
        """Whether the session gets a throwaway profile (None: as configured)."""
        self._used: BrowserSession | FirefoxSession | None = None
        """The session the context's calls last ran in: if the idle reaper closes it, the
        next call says so (SessionReaped) instead of starting anew unnoticed."""

    @property
    def redactor(self) -> Redactor:
        """Built from the configuration's ``safety`` section on first use."""
        if self._redactor is None:
            self._redactor = Redactor.from_config(self.manager.config.safety)
        return self._redactor

    def add_secrets_file(self, path: str | Path) -> None:
        """Also replace the secrets of this dotenv file (ConfigError if unreadable)."""
        self.redactor.add_secrets_file(path)

    async def session(self, *, timeout_ms: float | None = None) -> BrowserSession:
        """The context's session, started (or attached) now if need be.

        Raises SessionReaped, once, when the session the context used was closed by the
        idle reaper since its last call: the call would otherwise run in a new browser
        where none of its tabs or refs exist (or, worse, where a ref of the same name
        means another element). The call after that starts a new session.
        """
        self._check_reaped()
        session = await self.manager.get_or_create(
            self.name,
            cdp_url=self.cdp_url,
            consent=self._consent(),
            isolated=self.isolated,
            timeout_ms=timeout_ms,
        )
        self._used = session
        return session

    def _check_reaped(self) -> None:
        used = self._used
        if used is None:
            return
        # The record, not ``used.closed``: it is there from the moment the reaper takes the
        # session, while its browser may still be closing.
        reaped = self.manager.reaped_session(self.name)
        if reaped is not None and reaped.session() is used:
            self._used = None
            raise SessionReaped(reaped.describe())

    def relaunch_notice(self) -> str:
        """Once after the session's browser went away and was relaunched: what was lost
        and when (empty otherwise, and when a snapshot's header told it already)."""
        firefox = self.manager.get_firefox(self.name)
        if firefox is not None:
            relaunch = firefox.take_relaunch_notice()
            return relaunch.describe() if relaunch is not None else ""
        if self.name not in self.manager.names():
            return ""
        relaunch = self.manager.get(self.name).take_relaunch_notice()
        return relaunch.describe() if relaunch is not None else ""

    def activity(self) -> SessionActivity | None:
        """The live activity of the context's session (on its engine), when it is open."""
        if self.engine == "firefox":
            firefox = self.manager.get_firefox(self.name)
            return firefox.activity if firefox is not None else None
        if self.name not in self.manager.names():
            return None
        return self.manager.get(self.name).activity

    def person_notice(self) -> str:
        """Once after a person acted in a tab of the session (from the workbench) since
        the agent's last snapshot of it: which tab and what they did."""
        if self.engine == "firefox":
            firefox = self.manager.get_firefox(self.name)
            return firefox.take_person_notice() if firefox is not None else ""
        if self.name not in self.manager.names():
            return ""
        return self.manager.get(self.name).take_person_notice()

    @property
    def engine(self) -> str:
        """The browser engine this context's sessions run (``browser.engine``)."""
        return self.manager.config.browser.engine

    async def firefox(self, *, timeout_ms: float | None = None) -> FirefoxSession:
        """The context's Firefox session (``browser.engine: firefox``), started (or
        relaunched, when Firefox went away) if need be. Raises SessionReaped once, as
        ``session()`` does."""
        self._check_reaped()
        session = await self.manager.firefox(self.name, timeout_ms=timeout_ms)
        self._used = session
        return session

    async def firefox_tab(self, tab_id: str | None = None) -> FirefoxPage:
        session = await self.firefox()
        if tab_id is not None:
            return session.get_tab(tab_id)
        tab = session.active_tab
        return tab if tab is not None else await session.new_tab()

    async def page(self, tab_id: str | None = None) -> Tab | FirefoxPage:
        """The tab a call is about, on the context's engine: a Chromium ``Tab`` or a
        ``FirefoxPage`` (their calls and results are the same for the tools both serve)."""
        if self.engine == "firefox":
            return await self.firefox_tab(tab_id)
        return await self.tab(tab_id)

    async def tab(self, tab_id: str | None = None) -> Tab:
        session = await self.session()
        if tab_id is not None:
            return session.get_tab(tab_id)
        return await session.current_tab()

    async def attach(
        self,
        cdp_url: str | None,
        consent: bool,
        timeout_ms: float | None = None,
        *,
        port: int | None = None,
        launch: bool = False,
    ) -> tuple[BrowserSession, AttachTarget]:
        """Drive the browser at ``cdp_url`` from now on; with no URL, the one running here
        (on ``port`` when given), or one launched for the user (``launch``: see
        backends/attach_target.py). Without consent (here or in the configuration)
        nothing changes: ConsentRequired describes what it would control."""
        limit_ms = self.manager.config.timeouts.launch_ms if timeout_ms is None else timeout_ms
        budget = Budget.from_ms(limit_ms)
        if cdp_url is None:
            config = self.manager.config.browser
            target = await find_attach_target(
                config.attach, budget, data_dir=config.data_dir, port=port, launch=launch
            )
        else:
            target = AttachTarget(cdp_url)
        async with target.until_attached():
            if not (consent or target.consented or self.manager.config.safety.allow_attach):
                await self._ask_consent(target.cdp_url, budget)
            previous = self.cdp_url, self.consent
            self.cdp_url, self.consent = target.cdp_url, True
            try:
                # A call of its own: the person may have taken the budget to answer.
                session = await self.session(timeout_ms=timeout_ms)
            except BaseException:
                self.cdp_url, self.consent = previous
                raise
        return session, target

    async def _ask_consent(self, cdp_url: str, budget: Budget) -> None:
        """The person at the workbench, when one watches, allows the attach; otherwise
        ConsentRequired describes what it would control."""
        request = await inspect_endpoint(cdp_url, budget)
        ask = self.manager.ask_person
        answer = None if ask is None else await ask(request, budget)
        if answer is False:
            raise ConsentRequired(
                f"the person at the workbench refused to let the agent attach to {request.cdp_url}",
                hint="do not retry; ask the user what they want instead",
            )
        if answer is not True:
            raise consent_refused(request)

    async def close(self) -> None:
        self._used = None  # closed on purpose: nothing to tell the next call
        if self.name in self.manager.names():
            await self.manager.close(self.name)
        if self.name in self.manager.firefox_names():
            await self.manager.close_firefox(self.name)
        self.cdp_url = None
        self.consent = self.manager.config.safety.allow_attach

    def _consent(self) -> bool | None:
        return self.consent if self.cdp_url else None
