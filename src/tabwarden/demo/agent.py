"""A scripted agent session against the bundled demo site, narrated step by step.

``tabwarden demo`` runs :func:`run_demo`: it serves the demo shop on 127.0.0.1,
launches an isolated browser and walks it through what an agent does — open a
page, follow history, meet a 404, a dialog and a popup — printing what each
step returned and how long it took.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

import tabwarden

from ..backends.reaper import pid_alive
from ..budget import Budget
from ..counting import counted
from ..errors import DeadlineExceeded, TabwardenError
from ..navigation import NavigationResult
from ..session import BrowserSession
from ..snapshot import Snapshot
from ..tab import Tab
from .server import DemoSite

__all__ = ["DemoFailed", "run_demo"]

Out = Callable[[str], object]

_POPUP_TIMEOUT_S = 10.0
_WAKE_S = 0.1
"""Longest pause between two looks at the tab list (a target event wakes it sooner)."""
_TARGET_EVENTS = ("Target.targetCreated", "Target.targetInfoChanged", "Target.targetDestroyed")


class DemoFailed(Exception):
    """A step did not do what the script expects."""


@dataclass
class _Narrator:
    out: Out
    base_url: str = ""
    started: float = field(default_factory=time.perf_counter)
    steps: list[tuple[str, float]] = field(default_factory=list)
    failed: str | None = None

    def line(self, text: str = "") -> None:
        self.out(text)

    @contextlib.asynccontextmanager
    async def step(self, name: str) -> AsyncIterator[list[str]]:
        """Time one step; the caller appends what it has to say to the yielded list."""
        said: list[str] = []
        began = time.perf_counter()
        try:
            yield said
        except (TabwardenError, DemoFailed, OSError) as exc:
            if self.failed is None:
                self.failed = name
                self._say(name, began, f"FAIL: {exc}")
            raise
        self.steps.append((name, time.perf_counter() - began))
        self._say(name, began, "  ".join(said))

    def _say(self, name: str, began: float, text: str) -> None:
        elapsed_ms = (time.perf_counter() - began) * 1000
        self.out(f"{elapsed_ms:7.0f} ms  {name:<9} {text}".rstrip())

    def short(self, url: str) -> str:
        """A site URL as its path (``/products.html``); others unchanged."""
        if self.base_url and url.startswith(self.base_url):
            return "/" + url[len(self.base_url) :]
        return url


async def run_demo(out: Out = print, headless: bool = True) -> int:
    """Run the scripted session, narrating it through ``out``; 0 on success, 1 on failure."""
    narrator = _Narrator(out)
    out("tabwarden demo: a scripted agent session on a local demo shop")
    try:
        with DemoSite() as site:
            narrator.base_url = site.base_url
            out(f"site  {site.base_url}")
            out("")
            await _session(narrator, site, headless=headless)
    except (TabwardenError, DemoFailed, OSError) as exc:
        total = time.perf_counter() - narrator.started
        if narrator.failed is None:  # outside any step: starting the site
            out(f"FAIL: {exc}")
        out("")
        out(
            f"demo failed at step {narrator.failed or 'setup'!r} after {total:.2f} s "
            f"({counted(len(narrator.steps), 'step')} passed)"
        )
        return 1
    total = time.perf_counter() - narrator.started
    slowest = max(narrator.steps, key=lambda s: s[1])
    out("")
    out(
        f"ok: {counted(len(narrator.steps), 'step')} in {total:.2f} s "
        f"(slowest: {slowest[0]}, {slowest[1] * 1000:.0f} ms)"
    )
    return 0


async def _session(narrator: _Narrator, site: DemoSite, *, headless: bool) -> None:
    step = narrator.step
    browser: BrowserSession | None = None
    pid: int | None = None
    try:
        async with step("launch") as said:
            browser = await tabwarden.launch(isolated=True, headless=headless)
            pid = browser.endpoint.pid if browser.endpoint else None
            mode = "headless" if headless else "headed"
            said.append(f"{browser.product or 'browser'} ({mode}, throwaway profile, pid {pid})")

        async with step("new tab") as said:
            tab = await browser.new_tab()
            said.append(f"{tab.id} {tab.url or 'about:blank'}")

        async with step("open") as said:
            result = await tab.navigate(site.url())
            _expect_status(result, 200)
            said += [_status(result), result.url, _quoted(result.title)]

        async with step("navigate") as said:
            result = await tab.navigate(site.url("products.html"))
            _expect_status(result, 200)
            said += _page(narrator, result)

        async with step("back") as said:
            result = await tab.back()
            _expect_url(result, site.url())
            said += _page(narrator, result)

        async with step("forward") as said:
            result = await tab.forward()
            _expect_url(result, site.url("products.html"))
            said += _page(narrator, result)

        async with step("reload") as said:
            result = await tab.reload()
            _expect_status(result, 200)
            said += _page(narrator, result)

        async with step("404 page") as said:
            result = await tab.navigate(site.url("status/404"))
            _expect_status(result, 404)
            said += [*_page(narrator, result), "(reported in the result, not raised)"]

        async with step("dialog") as said:
            result = await tab.navigate(site.url("notice.html"))
            if result.dialog is None:
                raise DemoFailed(f"{result.url} loaded without reporting its alert dialog")
            said += [
                *_page(narrator, result)[:2],
                f"{result.dialog.type} open: {_quoted(result.dialog.message, 40)}",
                f"(load stopped at {result.reached[-1] if result.reached else 'nothing'})",
            ]

        async with step("dialog") as said:
            answered = await tab.dialog("accept")
            said.append(f"accepted the {answered.dialog.type} (tab.dialog)")

        async with step("open") as said:
            result = await tab.navigate(site.url("contact.html"))
            _expect_status(result, 200)
            said += _page(narrator, result)

        async with step("snapshot") as said:
            snapshot = await tab.snapshot()
            said.append(f"{counted(len(snapshot.lines), 'line')}, {snapshot.page.chars} chars")
        for line in snapshot.text.splitlines()[1:-1]:
            narrator.line(f"{'':12}{line}")

        async with step("fill") as said:
            receipt = await tab.fill(_ref(snapshot, "Name"), "Ada Lovelace")
            await tab.fill(_ref(snapshot, "Email"), "ada@example.org")
            await tab.select(_ref(snapshot, "Topic"), "A product")
            await tab.fill(_ref(snapshot, "Message"), "Do you ship analytical engines?")
            await tab.check(_ref(snapshot, "Send me the newsletter"))
            said.append(f"name, email, topic, message, newsletter by ref ({receipt.target})")

        async with step("click") as said:
            receipt = await tab.click(_ref(snapshot, "Send"))
            if not receipt.navigated:
                raise DemoFailed("submitting the contact form did not navigate")
            said += [
                f"{receipt.target} → {narrator.short(receipt.url).split('?')[0]}",
                _quoted(receipt.title),
                f"(receipt: {receipt.chars} chars)",
            ]

        async with step("navigate") as said:
            result = await tab.navigate(site.url("deals.html"))
            _expect_status(result, 200)
            said += _page(narrator, result)

        async with step("click") as said:
            before = {t.id for t in await browser.tabs()}
            deals = await tab.snapshot(find="deal")
            link = next(
                n.ref for n in deals.root.walk() if n.role == "link" and "deal" in n.name and n.ref
            )
            receipt = await tab.click(link)
            said.append(f"{receipt.target} (target=_blank)")

        async with step("popup") as said:
            popup = await _wait_for_popup(browser, tab, before, site.url("deal-of-the-day.html"))
            said += [
                f"{popup.id} opened by {tab.id}",
                narrator.short(popup.url),
                _quoted(popup.title),
            ]

        async with step("tabs") as said:
            infos = await browser.tab_infos()
            said.append(f"{len(infos)} open")
        for info in infos:
            marks = [
                m
                for m in (
                    "active" if info.active else "",
                    f"opener {info.opener}" if info.opener else "",
                )
                if m
            ]
            narrator.line(
                f"{'':12}{info.id:<4}{_quoted(info.title):<40} "
                f"{narrator.short(info.url):<24} {', '.join(marks)}".rstrip()
            )
    finally:
        if browser is not None:
            async with step("close") as said:
                await browser.close()
                gone = pid is None or not pid_alive(pid)
                state = "gone" if gone else "STILL RUNNING"
                said.append(f"session closed, browser process {state}")
                if not gone:
                    raise DemoFailed(f"the browser process {pid} is still running after close()")


async def _wait_for_popup(browser: BrowserSession, opener: Tab, before: set[str], url: str) -> Tab:
    """Poll the tab list until a tab opened by ``opener`` has loaded ``url`` (with its title).

    Between looks it waits for the next target event (or a short tick), never past
    the deadline.
    """
    budget = Budget(_POPUP_TIMEOUT_S)
    seen: Tab | None = None
    with browser.connection.event_queue(_TARGET_EVENTS, None) as changes:
        while True:
            for tab in await browser.tabs():
                if tab.id not in before and tab.opener is opener:
                    seen = tab
                    if tab.url == url and tab.title:
                        return tab
            if budget.expired:
                break
            with contextlib.suppress(DeadlineExceeded):
                await changes.get(budget.child(_WAKE_S), what="waiting for the popup")
    if seen is None:
        raise DemoFailed(
            f"no new tab appeared within {_POPUP_TIMEOUT_S:.0f} s of clicking the "
            "target=_blank link"
        )
    if seen.url != url:
        raise DemoFailed(
            f"the popup tab {seen.id} appeared but is not at {url} after "
            f"{_POPUP_TIMEOUT_S:.0f} s (its url: {seen.url or 'none'!r})"
        )
    raise DemoFailed(
        f"the popup tab {seen.id} is at {url} but its title is still empty after "
        f"{_POPUP_TIMEOUT_S:.0f} s: the page did not finish loading, or its title "
        "never reached tab.title"
    )


def _ref(snapshot: Snapshot, name: str) -> str:
    """The ref of the node named ``name`` (else the first whose name starts with it)."""
    nodes = [node for node in snapshot.root.walk() if node.ref]
    for node in nodes:
        if node.name == name:
            return node.ref  # type: ignore[return-value]
    for node in nodes:
        if node.name.startswith(name):
            return node.ref  # type: ignore[return-value]
    raise DemoFailed(f"the snapshot has no element named {name!r}")


def _expect_status(result: NavigationResult, status: int) -> None:
    if result.status != status:
        raise DemoFailed(f"{result.url} answered status {result.status}, expected {status}")


def _expect_url(result: NavigationResult, url: str) -> None:
    if result.url != url:
        raise DemoFailed(f"the tab is at {result.url}, expected {url}")


def _status(result: NavigationResult) -> str:
    if result.status is None:
        return "-"
    return f"{result.status} {result.status_text}".strip()


def _page(narrator: _Narrator, result: NavigationResult) -> Sequence[str]:
    return [_status(result), narrator.short(result.url), _quoted(result.title)]


def _quoted(text: str, limit: int = 36) -> str:
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return f'"{text}"'
