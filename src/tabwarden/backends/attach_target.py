"""Which browser an attach with no URL means: the one found running here, or, when the
user asks, one launched for them.

* one browser found (``browser.attach.ports``, DevToolsActivePort files) → that one;
* several → an error listing them, so the caller picks one by URL or port;
* none → an error saying how to start Chrome with remote debugging, or to launch one;
* ``launch`` → a browser already running on tabwarden's attach profile, else (when
  none runs) the user's browser launched on it (backends/user_browser.py).

Consent stays the caller's business, with one rule decided here: the user asked for a
launch, so a browser on tabwarden's attach profile (launched now, or by an earlier
launch) is consented to (:attr:`AttachTarget.consented`). Any other browser found needs
consent as an attach by URL does.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from ..budget import Budget
from ..calls import Arg
from ..config import AttachConfig
from ..errors import EndpointError
from .discovery import FoundBrowser, discover_browsers, known_profile_dirs
from .user_browser import (
    LaunchedBrowser,
    UserBrowserOptions,
    attach_profile_dir,
    launch_user_browser,
)

__all__ = ["START_CHROME_HINT", "AttachTarget", "find_attach_target", "own_profile_dir"]

START_CHROME_HINT = (
    "start Chrome with remote debugging on a profile folder of its own: google-chrome "
    "--remote-debugging-port=9222 --user-data-dir=<a separate folder> (Chrome 136 and "
    "later ignore the port on the default profile), then attach again"
)


@dataclass
class AttachTarget:
    """The browser an attach goes to."""

    cdp_url: str
    found: FoundBrowser | None = None
    launched: LaunchedBrowser | None = None
    consented: bool = False
    """The user asked for this browser (a launch): no further consent is needed."""

    def describe(self) -> str:
        if self.launched is not None:
            return (
                f"launched {self.launched.command[0]} (pid {self.launched.pid}) on port "
                f"{self.launched.port}, profile {self.launched.profile_dir}"
            )
        if self.found is not None:
            return f"found {self.found.describe()}"
        return self.cdp_url

    @contextlib.asynccontextmanager
    async def until_attached(self) -> AsyncIterator[None]:
        """Wraps the attach: when it fails, a browser launched for it is ended."""
        try:
            yield
        except BaseException:
            if self.launched is not None:
                await self.launched.kill()
            raise


def own_profile_dir(config: AttachConfig, data_dir: Path | None) -> Path:
    """The profile folder of the browser ``attach --launch`` starts."""
    return config.profile_dir.expanduser() if config.profile_dir else attach_profile_dir(data_dir)


async def find_attach_target(
    config: AttachConfig,
    budget: Budget,
    *,
    data_dir: Path | None = None,
    port: int | None = None,
    launch: bool = False,
) -> AttachTarget:
    """The browser to attach to (see the module's rules); ``port`` looks there only."""
    own = own_profile_dir(config, data_dir)
    given = config.profile_dirs
    folders = [own, *(known_profile_dirs() if given is None else [f.expanduser() for f in given])]
    ports = config.ports if port is None else [port]
    timeout_s = min(config.discovery_ms / 1000, budget.remaining())
    found = await discover_browsers(ports, list(dict.fromkeys(folders)), timeout_s=timeout_s)
    if port is not None:
        found = [browser for browser in found if browser.port == port]
    if launch:
        ours = [browser for browser in found if own in browser.profile_dirs]
        if ours:
            return AttachTarget(ours[0].cdp_url, found=ours[0], consented=True)
    if len(found) == 1:
        return AttachTarget(found[0].cdp_url, found=found[0])
    if found:
        listed = "\n".join(f"  - {browser.describe()}" for browser in found)
        raise EndpointError(
            f"{len(found)} browsers with remote debugging run on this machine:\n{listed}",
            hint=f"say which: attach with its {Arg('cdp_url', found[0].cdp_url)} or "
            f"{Arg('port', found[0].port)}",
        )
    if launch:
        options = UserBrowserOptions(
            own, config.executable, config.headless, port or 0, tuple(config.args)
        )
        launched = await launch_user_browser(options, budget)
        return AttachTarget(launched.cdp_url, launched=launched, consented=True)
    looked = f"port {port}" if port is not None else _ports(ports)
    raise EndpointError(
        f"no browser with remote debugging found on this machine (asked {looked} on "
        "127.0.0.1 and read DevToolsActivePort in the usual profile folders)",
        hint=f"{START_CHROME_HINT}; or have tabwarden launch one: {Arg('launch', True)}",
    )


def _ports(ports: list[int]) -> str:
    if not ports:
        return "no port"
    return f"port{'s' if len(ports) > 1 else ''} {', '.join(str(p) for p in ports)}"
