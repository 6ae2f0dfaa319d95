"""Navigation: URL checks, waiting for a main-frame load to reach a stage, and its result.

Stages come from ``Page.lifecycleEvent`` (enabled with
``Page.setLifecycleEventsEnabled``) matched on the navigation's ``loaderId``; the
HTTP status from the document's ``Network.responseReceived``.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from .budget import Budget
from .calls import Arg
from .cdp.connection import EventQueue
from .cdp.session import CDPSession
from .errors import (
    DeadlineExceeded,
    InvalidArgument,
    InvalidURL,
    NavigationFailed,
    NavigationTimeout,
)
from .report_text import ReportText
from .supervisor.dialogs import PendingDialog

__all__ = [
    "WAIT_UNTIL",
    "NavigationOutcome",
    "NavigationResult",
    "NavigationWatch",
    "WaitUntil",
    "check_wait_until",
    "navigation_failure",
    "navigation_timeout",
    "normalize_url",
]

WaitUntil = Literal["commit", "domcontentloaded", "load", "networkidle"]
WAIT_UNTIL: tuple[str, ...] = ("commit", "domcontentloaded", "load", "networkidle")
_STAGE_EVENTS = {
    "domcontentloaded": ("DOMContentLoaded",),
    "load": ("load",),
    "networkidle": ("load", "networkIdle"),
}
"""The lifecycle events (``Page.lifecycleEvent`` names) that make each stage."""
_STALLED = {
    "commit": "the document is still arriving or being parsed (a slow response body, or "
    "a script that blocks parsing)",
    "domcontentloaded": "the document is there, but its images, styles, scripts or frames "
    "are still loading",
    "load": "the page keeps the network busy (polling, streaming, long requests)",
}
"""Why a load that reached a stage and no further is still going."""
_RESTORED_STAGES = ("DOMContentLoaded", "load", "networkIdle")
_ALLOWED_SCHEMES = ("http", "https", "about", "data", "file")
_BARE_HOST = re.compile(r"^(?P<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\])(?::\d{1,5})?(?:[/?#].*)?$")
_EVENTS = (
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
    "Page.lifecycleEvent",
    "Network.responseReceived",
    "Network.loadingFailed",
    "Inspector.targetCrashed",
)


@dataclass(frozen=True, slots=True)
class NavigationResult:
    tab_id: str
    url: str
    """The URL of the document the tab shows now (the old page's when not ``navigated``)."""
    title: str
    status: int | None
    """HTTP status of the document; None for same-document, about: and data: loads."""
    status_text: str
    wait_until: str
    reached: tuple[str, ...]
    """Stages the load reached, in order (``commit``, ``DOMContentLoaded``, ``load``…)."""
    elapsed_ms: int
    same_document: bool = False
    dialog: PendingDialog | None = None
    """A dialog that opened during the load and waits for an answer: the load stops here."""
    navigated: bool = True
    """The tab committed the new document (or moved within its own). False when a dialog
    of the page being left held the navigation back — a ``beforeunload`` asking to leave,
    or a dialog that opened before the load committed: the tab still shows that page
    (``url``, ``title``), and the answer to the dialog decides what happens next."""
    requested_url: str = ""
    """Where the navigation was asked to go."""

    @property
    def ok(self) -> bool:
        """False when it did not navigate, or for an HTTP error status (4xx/5xx)."""
        return self.navigated and (self.status is None or self.status < 400)

    @property
    def text(self) -> ReportText:
        """Where the tab is, the status, the stages reached, any dialog; or, when a dialog
        held the navigation back, why and how to go on."""
        if not self.navigated:
            return ReportText(self._held_back())
        status = "-" if self.status is None else f"{self.status} {self.status_text}".strip()
        lines = [f"tab {self.tab_id}: {status} {self.url} {json.dumps(self.title)}"]
        lines.append(f"reached {', '.join(self.reached) or 'nothing'} in {self.elapsed_ms} ms")
        if self.dialog is not None:
            lines.append(
                f"dialog open: {self.dialog.describe()} — answer it with "
                f"{self.dialog.answer_call()}"
            )
        if not self.ok:
            lines.append(f"HTTP error {self.status}: the page says why; take a snapshot")
        return ReportText("\n".join(lines))

    def __str__(self) -> str:
        return self.text

    def _held_back(self) -> str:
        lines = [
            f"tab {self.tab_id}: not navigated to {self.requested_url} — still on "
            f"{self.url} {json.dumps(self.title)}"
        ]
        dialog = self.dialog
        if dialog is None:
            lines.append("a dialog held it back and is closed now; take a snapshot to see the tab")
        elif dialog.type == "beforeunload":
            lines.append(
                f"the page asks before it is left: {dialog.describe()} — accept it to leave "
                f"(the navigation then goes on) or dismiss it to stay: {dialog.answer_call()}"
            )
        else:
            lines.append(
                f"a dialog of this page opened before the new one committed: "
                f"{dialog.describe()} — answer it with {dialog.answer_call()}, then take a "
                "snapshot to see the tab"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        return data


def check_wait_until(wait_until: str) -> WaitUntil:
    if wait_until not in WAIT_UNTIL:
        raise InvalidArgument(
            f"wait_until={wait_until!r} is not a load stage",
            hint=f"use one of {', '.join(WAIT_UNTIL)}",
        )
    return wait_until  # type: ignore[return-value]


def normalize_url(url: str) -> str:
    """Check a URL an agent asked for; add ``http(s)://`` to a bare host like ``localhost:8000``."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidURL("the URL is empty", url=str(url))
    url = url.strip()
    if url.lower().startswith("javascript:"):
        raise InvalidURL(
            "javascript: URLs are not navigations",
            url=url,
            hint="run script with evaluate instead",
        )
    bare = _BARE_HOST.match(url)
    if bare and "." not in bare["host"] and bare["host"] != "localhost" and ":" not in url:
        raise InvalidURL(f"{url!r} is not a URL", url=url)
    if bare and not url.lower().startswith(("about:", "data:", "file:")):
        host = bare["host"].strip("[]").lower()
        local = host == "localhost" or host.startswith("127.") or host == "::1"
        url = ("http://" if local else "https://") + url
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _ALLOWED_SCHEMES:
        raise InvalidURL(
            f"{url!r} has no supported scheme",
            url=url,
            hint=f"use one of {', '.join(s + ':' for s in _ALLOWED_SCHEMES)}",
        )
    if scheme in ("http", "https"):
        try:
            port = parts.port
        except ValueError:
            raise InvalidURL(f"{url!r} has an invalid port", url=url) from None
        if not parts.hostname or " " in parts.netloc or (port is not None and port == 0):
            raise InvalidURL(f"{url!r} has no valid host", url=url)
    return url


_NET_ERRORS: dict[str, tuple[str, str]] = {
    "net::ERR_CONNECTION_REFUSED": (
        "nothing is listening at {host}",
        "check that the server is running and the port is right",
    ),
    "net::ERR_NAME_NOT_RESOLVED": (
        "the host name {host} could not be resolved (DNS)",
        "check the spelling of the host; this machine may have no DNS for it",
    ),
    "net::ERR_NAME_RESOLUTION_FAILED": (
        "the host name {host} could not be resolved (DNS)",
        "check the spelling of the host and the machine's DNS settings",
    ),
    "net::ERR_CONNECTION_TIMED_OUT": (
        "connecting to {host} timed out",
        "check that the host is reachable from this machine",
    ),
    "net::ERR_ADDRESS_UNREACHABLE": (
        "{host} is unreachable from this machine",
        "check the address and the network",
    ),
    "net::ERR_INTERNET_DISCONNECTED": (
        "this machine has no network connection",
        "only local addresses can be loaded",
    ),
    "net::ERR_UNSAFE_PORT": (
        "the browser refuses to connect to the port of {host}",
        "serve the page on another port (e.g. 8000-8999)",
    ),
    "net::ERR_ABORTED": (
        "the load of {url} was aborted",
        "a download, an empty (204) response or another navigation stopped it; "
        "take a snapshot to see where the tab is",
    ),
    "net::ERR_FILE_NOT_FOUND": ("the file {url} does not exist", "check the path"),
}


def navigation_failure(url: str, error_text: str) -> NavigationFailed:
    """Turn a Chromium ``net::ERR_*`` into an error that says what happened and what to do."""
    host = urlsplit(url).netloc or url
    if error_text.startswith("net::ERR_CERT_") or error_text.startswith("net::ERR_SSL_"):
        message, hint = (
            f"the TLS certificate of {host} was refused ({error_text})",
            "use a valid certificate or http:// for local servers",
        )
    else:
        template, hint = _NET_ERRORS.get(
            error_text, ("the browser could not load {url}", "check the URL and the server")
        )
        message = template.format(host=host, url=url) + f" ({error_text})"
    return NavigationFailed(message, url=url, net_error=error_text, hint=hint)


def navigation_timeout(
    url: str, wait_until: WaitUntil, reached: tuple[str, ...], timeout_s: float
) -> NavigationTimeout:
    """The error for a load that did not reach ``wait_until`` in time: the stages it did
    reach, and the one to wait for instead when that helps (never one it did not reach)."""
    stages = [stage for stage in WAIT_UNTIL if _reached(stage, reached)]
    within = f"within {timeout_s * 1000:.0f} ms"
    more_time = f"a larger {Arg('timeout_ms')}"
    if not stages:
        return NavigationTimeout(
            f"loading {url} got no response {within}: nothing was committed",
            url=url,
            wait_until=wait_until,
            reached=reached,
            hint=f"the server has not sent the page yet: check that it answers, or retry "
            f"with {more_time} (an earlier {Arg('wait_until')} cannot help: no stage was "
            "reached)",
        )
    last = stages[-1]
    reached_text = f"{', '.join(stages[:-1])} and {last}" if len(stages) > 1 else last
    return NavigationTimeout(
        f"loading {url} did not reach {wait_until!r} {within} (it reached {reached_text})",
        url=url,
        wait_until=wait_until,
        reached=reached,
        hint=f"{_STALLED[last]}: retry with {Arg('wait_until', last)}, which it reached, or "
        f"with {more_time}",
    )


def _reached(stage: str, reached: Collection[str]) -> bool:
    """Whether a load whose lifecycle events were ``reached`` got to ``stage``."""
    if stage == "commit":
        return bool(reached)  # any event of the new document means it committed
    return all(name in reached for name in _STAGE_EVENTS[stage])


@dataclass
class _LoadState:
    reached: list[str] = field(default_factory=list)
    status: int | None = None
    status_text: str = ""
    url: str = ""


class NavigationWatch:
    """Follows the main frame of one tab through one navigation.

    Open it before triggering the navigation so no event is missed, then call
    :meth:`wait`. ``loader_id`` is the navigation's id when the trigger knows it
    (``Page.navigate``); otherwise the first new main-frame commit is taken.
    """

    def __init__(self, session: CDPSession, main_frame_id: str) -> None:
        self._session = session
        self._frame_id = main_frame_id
        self._queue: EventQueue = session.event_queue(_EVENTS)
        self._loads: dict[str, _LoadState] = {}
        self._committed: str | None = None
        self._started = time.monotonic()

    def __enter__(self) -> NavigationWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self._queue.close()

    async def wait(
        self,
        *,
        url: str,
        wait_until: WaitUntil,
        budget: Budget,
        loader_id: str | None = None,
    ) -> NavigationOutcome:
        """Wait until the load reaches ``wait_until`` (or fails, or runs out of time)."""
        if loader_id is not None:
            self._committed = loader_id
        while True:
            state = self._loads.get(self._committed) if self._committed else None
            if state is not None and self._is_done(state, wait_until):
                return self._outcome(state, wait_until)
            try:
                event = await self._queue.get(budget, what=f"loading {url}")
            except DeadlineExceeded:
                reached = tuple(state.reached) if state else ()
                raise navigation_timeout(url, wait_until, reached, budget.timeout_s) from None
            outcome = self._apply(event.method, event.params, url, wait_until)
            if outcome is not None:
                return outcome

    def partial(self, wait_until: WaitUntil) -> NavigationOutcome:
        """Where the load got to so far (a dialog stopped it), with the events that
        arrived before the dialog and were not read yet (a commit, say)."""
        for event in self._queue.ready():
            with contextlib.suppress(NavigationFailed):
                moved = self._apply(event.method, event.params, "", wait_until)
                if moved is not None:
                    return moved  # it moved within the document
        state = self._loads.get(self._committed or "") or _LoadState()
        return self._outcome(state, wait_until)

    # ---- private -------------------------------------------------------------------

    def _state(self, loader_id: str) -> _LoadState:
        return self._loads.setdefault(loader_id, _LoadState())

    def _apply(
        self, method: str, params: dict[str, Any], url: str, wait_until: WaitUntil
    ) -> NavigationOutcome | None:
        if method == "Page.frameNavigated":
            frame = params.get("frame", {})
            if frame.get("parentId") is None and frame.get("id") == self._frame_id:
                loader = frame.get("loaderId", "")
                self._committed = self._committed or loader
                state = self._state(loader)
                state.url = frame.get("url", "")
                if params.get("type") == "BackForwardCacheRestore":
                    # The page comes back whole from the back-forward cache: it loaded
                    # long ago, and no lifecycle event will say so again.
                    state.reached = ["commit", *_RESTORED_STAGES]
                elif "commit" not in state.reached:
                    state.reached.insert(0, "commit")
        elif method == "Page.navigatedWithinDocument":
            if params.get("frameId") == self._frame_id and self._committed is None:
                state = _LoadState(reached=["commit"], url=params.get("url", url))
                return self._outcome(state, wait_until, same_document=True)
        elif method == "Page.lifecycleEvent":
            if params.get("frameId") == self._frame_id:
                state = self._state(params.get("loaderId", ""))
                name = params.get("name", "")
                if name == "init":
                    name = "commit"
                if name not in state.reached:
                    state.reached.append(name)
        elif method == "Network.responseReceived":
            if params.get("type") == "Document" and params.get("frameId") == self._frame_id:
                state = self._state(params.get("loaderId", ""))
                response = params.get("response", {})
                state.status = response.get("status")
                state.status_text = response.get("statusText", "")
                state.url = response.get("url", state.url)
        elif method == "Inspector.targetCrashed":
            raise NavigationFailed(
                f"the page crashed while loading {url}",
                url=url,
                net_error="crashed",
                hint="reload the tab or open a new one",
            )
        return None

    def _is_done(self, state: _LoadState, wait_until: WaitUntil) -> bool:
        return _reached(wait_until, state.reached)

    def _outcome(
        self,
        state: _LoadState,
        wait_until: WaitUntil,
        *,
        same_document: bool = False,
    ) -> NavigationOutcome:
        return NavigationOutcome(
            url=state.url,
            status=state.status,
            status_text=state.status_text,
            wait_until=wait_until,
            reached=tuple(state.reached),
            elapsed_ms=int((time.monotonic() - self._started) * 1000),
            same_document=same_document,
        )


@dataclass(frozen=True, slots=True)
class NavigationOutcome:
    """How far a followed navigation got (a ``NavigationResult`` is made from it)."""

    url: str
    status: int | None
    status_text: str
    wait_until: str
    reached: tuple[str, ...]
    elapsed_ms: int
    same_document: bool
