"""The local Firefox backend: launch Firefox with WebDriver BiDi on and own its whole life.

Everything about the process is the local Chromium backend's (run folder, profile
folder per workspace or throwaway, one process group, the reaper, kill on parent
death, SIGTERM then SIGKILL on close): only the command line and how the socket's
address is learnt differ. Firefox prints the address on stderr ("WebDriver BiDi
listening on ws://127.0.0.1:PORT") and serves new sessions at ``/session``.

Closing the session over the socket (``session.end``, ``browser.close``) is the
session layer's part, done before :meth:`close` ends what is left of the process.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from ..budget import Budget
from ..errors import BrowserLaunchError, DeadlineExceeded
from .base import Endpoint
from .executable import find_firefox
from .local import LocalChromium, LocalOptions
from .reaper import make_run_dir, sweep_stale_run_dirs

__all__ = ["PREFS", "LocalFirefox", "firefox_args"]

_POLL_S = 0.01
_LISTENING = re.compile(rb"WebDriver BiDi listening on (ws://[0-9.:\[\]a-z]+)")

PREFS = {
    # The machine may have no internet: nothing calls home, nothing updates.
    "app.update.disabledForTesting": True,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "extensions.update.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.aboutwelcome.enabled": False,
    # Popups are the page's business: the supervisor reports them (as on Chromium).
    "dom.disable_open_during_load": False,
    # A closing tab with an unload handler must not hold the session.
    "dom.disable_beforeunload": True,
    "browser.tabs.warnOnClose": False,
    "browser.sessionstore.resume_from_crash": False,
}
"""The prefs (``user.js``) a profile tabwarden launches Firefox with gets."""


def firefox_args(options: LocalOptions, profile: Path) -> list[str]:
    """The command line tabwarden launches Firefox with (after the executable)."""
    width, height = options.window_size
    args = [
        "--no-remote",
        "--profile",
        str(profile),
        "--remote-debugging-port",
        "0",  # the browser picks a free port, and prints it: no races
        "--width",
        str(width),
        "--height",
        str(height),
    ]
    if options.headless:
        args.append("--headless")
    args += list(options.extra_args)
    return args


def _user_js(prefs: dict[str, object]) -> str:
    def value(v: object) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "".join(f'user_pref("{name}", {value(v)});\n' for name, v in prefs.items())


class LocalFirefox(LocalChromium):
    """Launches Firefox with a workspace or throwaway profile; ``close()`` leaves nothing.

    Firefox runs as root without extra flags (its content sandbox needs none), unlike
    Chromium's ``--no-sandbox``."""

    engine = "firefox"

    async def start(self, budget: Budget) -> Endpoint:
        if self.pid is not None:
            await self.close()
        sweep_stale_run_dirs()
        executable = find_firefox(self.options.executable)
        self._require_display()
        run_dir = make_run_dir()
        self._run_dir = run_dir
        try:
            profile = self._prepare_profile(run_dir)
            (profile / "user.js").write_text(_user_js(PREFS), encoding="utf-8")
            self._spawn([executable, *firefox_args(self.options, profile)], run_dir)
            address = await self._wait_for_bidi(run_dir / "browser.log", budget)
        except BaseException:
            await self.close()
            raise
        pid = self.pid
        assert pid is not None
        return Endpoint(ws_url=f"{address}/session", product="firefox", pid=pid)

    def _check_profile_switches(self) -> None:
        """Firefox's profile is chosen by tabwarden alone (``--profile``)."""

    async def _wait_for_bidi(self, log: Path, budget: Budget) -> str:
        while True:
            if self.exit_status() is not None:
                raise BrowserLaunchError(
                    f"Firefox {self.exit_status()} before it opened its WebDriver BiDi port"
                    + self._output_note()
                )
            with contextlib.suppress(OSError):
                found = _LISTENING.search(log.read_bytes())
                if found:
                    return found.group(1).decode()
            if budget.expired:
                raise DeadlineExceeded(
                    f"Firefox did not open its WebDriver BiDi port within "
                    f"{budget.timeout_s * 1000:.0f} ms" + self._output_note(),
                    hint="retry with a larger timeouts.launch_ms, or check the browser output",
                )
            await budget.sleep(_POLL_S)
