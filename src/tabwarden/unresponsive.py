"""Why a call got no answer in time: a busy page, slow work, or a browser that answers
nothing at all.

A deadline that passes while a command waits on a page says little by itself: the page
may be running script, the work asked for may be slow (capturing a huge page), or the
browser process itself may be stopped or overloaded, and then nothing on the connection
answers. What can be learnt after the fact tells them apart: a cheap browser-level
command (``Browser.getVersion``) with a short deadline of its own answers unless the
browser is stuck, and a trivial evaluation in the page answers unless the page is.
Only the error path pays for the page's check. The browser's is asked ahead
(``BrowserProbe``): shortly before a call's deadline, while the call still runs, so a
call that runs out of time says why at its deadline rather than a probe later.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from .actions.evaluate import is_busy
from .budget import Budget
from .calls import Arg
from .cdp.session import CDPSession
from .errors import (
    BrowserNotResponding,
    CDPError,
    CDPTimeout,
    DeadlineExceeded,
    EvaluateTimeout,
    PageBusy,
    TabwardenError,
)

if TYPE_CHECKING:
    from .page import Page
    from .services import SessionServices

__all__ = ["BrowserProbe", "explain_failure", "explain_timeout"]

_SESSION_NOT_FOUND = -32001
"""CDP's error code for a command sent to a session that is gone (its target closed)."""
_BROWSER_PROBE_S = 1.0
"""A browser that answers nothing for this long (a reply takes a millisecond) is stuck."""


class BrowserProbe:
    """Asks the browser whether it answers (``Browser.getVersion``, within
    ``_BROWSER_PROBE_S``) a little before a call's deadline, while the call runs; made as
    the call starts, ``close``d as it ends. A call that ends in time never sends it."""

    def __init__(self, browser: SessionServices, budget: Budget) -> None:
        self._browser = browser
        self._asked: asyncio.Task[bool] | None = None
        # Half the call's time at most: a short call leaves its first half to the work.
        lead = min(_BROWSER_PROBE_S, budget.timeout_s / 2)
        self._timer = asyncio.get_running_loop().call_later(
            max(0.0, budget.remaining() - lead), self._ask
        )

    def _ask(self) -> None:
        if self._browser.connected:
            self._asked = self._browser.spawn(_browser_answers(self._browser), "browser probe")

    async def answers(self) -> bool:
        """Whether the browser answered the probe (asked now when it was not yet)."""
        self._timer.cancel()
        if self._asked is None:
            return await _browser_answers(self._browser)
        return await asyncio.shield(self._asked)

    def close(self) -> None:
        self._timer.cancel()
        if self._asked is not None and not self._asked.done():
            self._asked.cancel()


async def explain_failure(
    browser: SessionServices,
    tab: Page | None,
    error: TabwardenError,
    budget: Budget,
    probe: BrowserProbe | None = None,
) -> TabwardenError:
    """What a call that failed on ``tab`` should say: that the tab was closed under it,
    why the browser or page did not answer in time, or ``error`` itself."""
    gone = isinstance(error, CDPError) and error.code == _SESSION_NOT_FOUND
    if gone and tab is not None and tab.closed:
        return tab.closed_error()
    if isinstance(error, DeadlineExceeded):
        return await explain_timeout(browser, tab, error, budget, probe)
    return error


async def explain_timeout(
    browser: SessionServices,
    tab: Page | None,
    error: DeadlineExceeded,
    budget: Budget,
    probe: BrowserProbe | None = None,
) -> DeadlineExceeded:
    """The error that says why ``error`` happened (``error`` itself when nothing more is
    known). ``tab`` is the tab the call was about, ``budget`` the call's, ``probe`` the
    browser probe asked ahead of its deadline (without one, the browser is asked now)."""
    # An evaluation's timeout has already asked the page what held it (busy or a promise).
    explained = PageBusy | BrowserNotResponding | EvaluateTimeout
    if isinstance(error, explained) or not browser.connected:
        return error
    answers = await probe.answers() if probe is not None else await _browser_answers(browser)
    if not answers:
        browser.metrics.count("browser_not_responding")
        return _browser_stuck(browser, error, budget)
    if not isinstance(error, CDPTimeout) or error.session_id is None or tab is None:
        return error  # the browser answers: the deadline is the call's own story
    within = f"within {budget.timeout_s * 1000:.0f} ms"
    page = CDPSession(browser.connection, error.session_id)
    if error.method == "Page.captureScreenshot" and not await is_busy(page):
        return DeadlineExceeded(
            f"tab {tab.id}: the screenshot was not ready {within}, and the page answers: "
            "the capture itself is slow",
            hint="a full-page capture of a very long or wide page takes long: capture "
            f"the viewport ({Arg('full_page', False)}) or one element ({Arg('ref', '…')}), "
            f"or allow a larger {Arg('timeout_ms')}",
        )
    browser.metrics.count("page_busy")
    return PageBusy(f"tab {tab.id} did not answer {error.method} {within}", tab_id=tab.id)


async def _browser_answers(browser: SessionServices) -> bool:
    try:
        await browser.connection.send("Browser.getVersion", budget=Budget(_BROWSER_PROBE_S))
    except DeadlineExceeded:
        return False
    except TabwardenError:
        return True  # an answer, or a lost connection: either way not a stuck browser
    return True


def _browser_stuck(
    browser: SessionServices, error: DeadlineExceeded, budget: Budget
) -> BrowserNotResponding:
    what = (
        f"{error.method} got no reply within {budget.timeout_s * 1000:.0f} ms"
        if isinstance(error, CDPTimeout)
        else error.message
    )
    message = (
        f"the browser itself is not answering (frozen or overloaded): {what}, and not even "
        f"Browser.getVersion was answered within {_BROWSER_PROBE_S * 1000:.0f} ms"
    )
    pid = browser.endpoint.pid if browser.endpoint is not None else None
    if pid is not None and _process_state(pid) in ("T", "t"):
        return BrowserNotResponding(
            f"{message}; its process (pid {pid}) is stopped",
            hint=f"something stopped the browser (SIGSTOP, a debugger): resume it with "
            f"`kill -CONT {pid}`, then retry",
        )
    if not browser.owns_browser:
        where = browser.endpoint.shown_url if browser.endpoint is not None else "its endpoint"
        return BrowserNotResponding(
            message,
            hint=f"check the browser at {where} (busy, or paused in a debugger?); retry "
            "once it answers",
        )
    return BrowserNotResponding(message)


def _process_state(pid: int) -> str | None:
    """The state letter of a Linux process (``T``: stopped); None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 1 :].split()
    return fields[0] if fields else None
