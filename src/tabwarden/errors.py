"""The one exception tree of tabwarden.

Every error a caller can see derives from :class:`TabwardenError` and carries a
``hint``: what to do next. The tree:

* :class:`TabwardenError`
    * :class:`InvalidArgument` (also a :class:`ValueError`) — a bad argument to a call
        * :class:`PathNotAllowed` — a file path outside the folders tabwarden may use
    * :class:`ConfigError` — a bad configuration value or file
    * :class:`DeadlineExceeded` (also a :class:`TimeoutError`) — a call ran out of time
        * :class:`CDPTimeout` — one CDP command got no reply in time
        * :class:`BiDiTimeout` — one WebDriver BiDi command got no reply in time
        * :class:`PageBusy` — a page did not answer in time (script running?)
        * :class:`BrowserNotResponding` — the browser itself did not answer (frozen?)
        * :class:`EvaluateTimeout` — an evaluation ran past its deadline and was stopped
        * :class:`NavigationTimeout` (also a :class:`NavigationError`)
    * :class:`Cancelled` — the caller aborted the call
    * :class:`CDPError` — Chromium answered a command with an error
    * :class:`ConnectionLost` — the CDP socket closed under a command
        * :class:`BrowserCrashed` — the browser process died
    * :class:`BrowserError` — finding, launching or reaching a browser
        * :class:`BrowserNotFound`
        * :class:`BrowserLaunchError`
        * :class:`ProfileInUse`
        * :class:`EndpointError` — an attach endpoint cannot be reached or read
        * :class:`ConsentRequired` — attaching needs the user's consent first
        * :class:`CloudError` — a cloud browser provider refused or failed a request
            * :class:`CloudAuthError` — the API key is missing or refused (401, 403)
            * :class:`CloudQuotaError` — payment or quota needed (402)
            * :class:`CloudServerError` — the provider failed (5xx) or answered nonsense
            * :class:`CloudQueued` (also a :class:`DeadlineExceeded`) — still rate-limited
              (429) when the call's budget ran out
            * :class:`CloudCreateTimeout` (also a :class:`DeadlineExceeded`) — creating
              the browser outlived the call's budget
    * :class:`SessionError`
        * :class:`SessionClosed`
            * :class:`SessionReaped` — closed after a time without calls; its state is gone
        * :class:`SessionNotFound`
        * :class:`SessionLimitReached` — this process (or user) runs all the sessions it may
        * :class:`DaemonUnreachable` — the session's CLI daemon cannot be started or reached
            * :class:`DaemonNotRunning` — no daemon runs for the session
    * :class:`RemoteError` — an error the CLI daemon answered with (``type_name`` is its class)
    * :class:`TabUnavailable` — the tab cannot serve a call
        * :class:`TabNotFound`
        * :class:`TabClosed`
        * :class:`TabCrashed` — the page's renderer crashed; reload or navigate it
    * :class:`RefError` — a ref or selector that names no element to act on
        * :class:`StaleRefError` — the element is gone or its document navigated away
        * :class:`UnknownRef` — no such ref, or a selector that matches nothing
    * :class:`ActionError` — an action could not be done
        * :class:`NotActionable` — hidden, disabled, covered, moving, or not editable
        * :class:`PersonInControl` — a person took over in the workbench
    * :class:`DialogBlocking` — a dialog blocks the page's script; answer it first
    * :class:`BiDiError` — Firefox refused a WebDriver BiDi command
    * :class:`EngineUnsupported` — not on this session's browser engine
    * :class:`ScriptError` — evaluated script threw
    * :class:`EvaluateDisabled` — evaluation is turned off by configuration
    * :class:`PolicyDenied` — the URL policy does not allow this destination
    * :class:`NavigationError`
        * :class:`InvalidURL`
        * :class:`NavigationFailed` — the network or the browser refused the load
        * :class:`NoHistoryEntry`
"""

from __future__ import annotations

from .calls import call
from .clipping import HINT_CHARS, MESSAGE_CHARS, clip

__all__ = [
    "ActionError",
    "BiDiError",
    "BiDiTimeout",
    "BrowserCrashed",
    "BrowserError",
    "BrowserLaunchError",
    "BrowserNotFound",
    "BrowserNotResponding",
    "CDPError",
    "CDPTimeout",
    "Cancelled",
    "CloudAuthError",
    "CloudCreateTimeout",
    "CloudError",
    "CloudQueued",
    "CloudQuotaError",
    "CloudServerError",
    "ConfigError",
    "ConnectionLost",
    "ConsentRequired",
    "DaemonNotRunning",
    "DaemonUnreachable",
    "DeadlineExceeded",
    "DialogBlocking",
    "EndpointError",
    "EngineUnsupported",
    "EvaluateDisabled",
    "EvaluateTimeout",
    "InvalidArgument",
    "InvalidURL",
    "NavigationError",
    "NavigationFailed",
    "NavigationTimeout",
    "NoHistoryEntry",
    "NotActionable",
    "PageBusy",
    "PathNotAllowed",
    "PersonInControl",
    "PolicyDenied",
    "ProfileInUse",
    "RefError",
    "RemoteError",
    "ScriptError",
    "SessionClosed",
    "SessionError",
    "SessionLimitReached",
    "SessionNotFound",
    "SessionReaped",
    "StaleRefError",
    "TabClosed",
    "TabCrashed",
    "TabNotFound",
    "TabUnavailable",
    "TabwardenError",
    "UnknownRef",
]


class TabwardenError(Exception):
    """Base of every tabwarden error. ``hint`` says what to do next."""

    default_hint = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        # Messages quote what the page or the caller gave (a URL, a title, a value):
        # bounded here, whatever they quote.
        self.message = clip(message, MESSAGE_CHARS)
        self.hint = clip(hint if hint is not None else self.default_hint, HINT_CHARS)
        super().__init__(self.message)

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class InvalidArgument(TabwardenError, ValueError):
    default_hint = "check the argument against the API reference"


class ConfigError(TabwardenError):
    default_hint = "fix the value in your tabwarden config file or environment"


class DeadlineExceeded(TabwardenError, TimeoutError):
    default_hint = "retry with a larger timeout_ms, or check what the page is waiting on"


class CDPTimeout(DeadlineExceeded):
    """A CDP command got no reply before its budget ran out.

    The connection stays usable; a late reply to this command is dropped.
    """

    def __init__(self, method: str, timeout_s: float, *, session_id: str | None = None) -> None:
        self.method = method
        self.timeout_s = timeout_s
        self.session_id = session_id
        super().__init__(f"CDP command {method} got no reply within {timeout_s * 1000:.0f} ms")


class BiDiTimeout(DeadlineExceeded):
    """A WebDriver BiDi command got no reply before its budget ran out.

    The connection stays usable; a late reply to this command is dropped.
    """

    def __init__(self, method: str, timeout_s: float) -> None:
        self.method = method
        self.timeout_s = timeout_s
        super().__init__(f"BiDi command {method} got no reply within {timeout_s * 1000:.0f} ms")


class PageBusy(DeadlineExceeded):
    """A page (or frame) did not answer before the deadline: usually a script hogs it."""

    def __init__(self, message: str, *, tab_id: str = "", hint: str | None = None) -> None:
        self.tab_id = tab_id
        if hint is None:
            stop = call("terminate_script", on_tab=tab_id)
            leave = call("navigate", on_tab=tab_id, url="…")
            close = call("close", on_tab=tab_id, tool="browser_close_tab")
            hint = (
                f"the page may be busy running script: stop it with {stop}, or leave it with "
                f"{leave} (both stop it), then retry; {close} always works. Other tabs keep "
                "working"
            )
        super().__init__(message, hint=hint)


class BrowserNotResponding(DeadlineExceeded):
    """The browser process itself did not answer (stopped, frozen or overloaded), so no
    page, tab list or other command can be answered either."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        if hint is None:
            hint = (
                "wait a moment and retry; if it stays so, close the session "
                f"({call('close')}) and start a new one"
            )
        super().__init__(message, hint=hint)


class EvaluateTimeout(DeadlineExceeded):
    """An evaluation passed its deadline; it was terminated if it was still running."""

    def __init__(
        self, message: str, *, elapsed_ms: int, terminated: bool, hint: str | None = None
    ) -> None:
        self.elapsed_ms = elapsed_ms
        self.terminated = terminated
        super().__init__(
            message,
            hint=hint
            or "the tab is usable again; give the script more time (timeout_ms) or make it "
            "finish sooner",
        )


class Cancelled(TabwardenError):
    default_hint = "the caller aborted this call; nothing more will happen for it"


class CDPError(TabwardenError):
    """Chromium answered a command with a protocol error."""

    def __init__(self, method: str, code: int, message: str, session_id: str | None = None) -> None:
        self.method = method
        self.code = code
        self.cdp_message = message
        self.session_id = session_id
        where = f" (session {session_id})" if session_id else ""
        super().__init__(f"{method} failed{where}: {message} [code {code}]", hint="")


class BiDiError(TabwardenError):
    """Firefox answered a WebDriver BiDi command with an error (``error`` is the
    specification's code, such as ``no such frame`` or ``invalid argument``)."""

    def __init__(self, method: str, error: str, message: str) -> None:
        self.method = method
        self.error = error
        self.bidi_message = message
        detail = f": {message}" if message else ""
        super().__init__(f"{method} failed: {error}{detail}", hint="")


class EngineUnsupported(TabwardenError):
    """The tool or call does not work on this session's browser engine."""

    def __init__(self, what: str, engine: str, *, hint: str | None = None) -> None:
        self.what = what
        self.engine = engine
        super().__init__(
            f"{what} is not on this engine ({engine})",
            hint=hint
            or "docs/engines-matrix.md lists what each engine does; start a session with "
            "engine chromium for it",
        )


class ConnectionLost(TabwardenError):
    default_hint = "the browser connection closed; the next call on this session reconnects"


class BrowserCrashed(ConnectionLost):
    default_hint = "the browser process died; the next call on this session relaunches it"


class BrowserError(TabwardenError):
    pass


class BrowserNotFound(BrowserError):
    default_hint = (
        "install Chromium (Debian/Ubuntu: apt-get install -y chromium) or point "
        "TABWARDEN_CHROME (or config browser.executable) at a Chromium-based browser"
    )


class BrowserLaunchError(BrowserError):
    default_hint = "check the browser output above; try TABWARDEN_CHROME with another browser"


class ProfileInUse(BrowserError):
    default_hint = (
        "another browser is using this profile: close it, pick another session name, "
        "or launch with isolated=True for a throwaway profile"
    )


class EndpointError(BrowserError):
    default_hint = (
        "check the CDP URL (http://host:port or ws://…); the browser must run with "
        "--remote-debugging-port"
    )


class ConsentRequired(BrowserError):
    default_hint = "attaching to this browser needs the user's explicit consent"


class CloudError(BrowserError):
    """A cloud browser provider refused or failed a request (docs/backends.md)."""

    default_hint = "see docs/backends.md for the provider's settings"


class CloudAuthError(CloudError):
    """The provider's API key is missing or was refused (HTTP 401 or 403)."""


class CloudQuotaError(CloudError):
    """The provider wants payment, or the plan's quota is used up (HTTP 402)."""

    default_hint = "check the provider's billing page or plan limits, then retry"


class CloudServerError(CloudError):
    """The provider failed (HTTP 5xx) or answered something tabwarden cannot read."""

    default_hint = "the provider has a problem of its own: retry later, or check its status page"


class CloudQueued(CloudError, DeadlineExceeded):
    """The provider kept answering 429 (too many requests, or queued) until the budget ran out."""

    default_hint = (
        "the plan's concurrent browsers may all be in use: close other sessions, retry "
        "later, or give the call a longer timeout"
    )


class CloudCreateTimeout(CloudError, DeadlineExceeded):
    """Creating a cloud browser took longer than the call's budget. A browser the provider
    creates after that is released as soon as its answer arrives."""

    default_hint = "retry with a longer timeout (timeouts.launch_ms), or try another region"


class PolicyDenied(TabwardenError):
    """A URL the navigation policy does not allow (the message names the rule)."""

    default_hint = (
        "this destination is blocked by policy; pick another URL, or ask the user to "
        "change the policy"
    )


class PathNotAllowed(InvalidArgument):
    """A file path outside the folders tabwarden may read or write."""

    default_hint = "use a file inside the workspace (or a configured allowed folder)"


class SessionError(TabwardenError):
    pass


class SessionClosed(SessionError):
    default_hint = "open a new session"


class SessionReaped(SessionClosed):
    """The session was closed after a time without calls: its browser, tabs and refs are
    gone. Said once, on the call that would have used it; the next call starts anew."""

    default_hint = (
        "call again: the next call starts a new browser; open your pages again and take a "
        "new snapshot before using refs"
    )


class SessionNotFound(SessionError):
    default_hint = "list sessions to see their names, or create this one"


class SessionLimitReached(SessionError):
    """No new session: as many as allowed are open (``browser.max_sessions`` in one
    process, ``browser.max_daemons`` command-line daemons for one user)."""

    default_hint = (
        "retry later, when a session has closed; close one that is no longer needed, or "
        "raise the limit"
    )

    def __init__(self, message: str, *, open_count: int, limit: int, hint: str | None = None):
        self.open_count = open_count
        self.limit = limit
        super().__init__(message, hint=hint)


class DaemonUnreachable(SessionError):
    """The session's CLI daemon cannot be started or reached."""

    default_hint = "see the daemon log in the runtime folder; `tabwarden daemon stop` resets it"


class DaemonNotRunning(DaemonUnreachable):
    """No daemon runs for this session (and none was to be started)."""

    default_hint = "any tool command starts it, e.g. `tabwarden snapshot`"


class RemoteError(TabwardenError):
    """An error the CLI daemon answered with; ``type_name`` is the original class name."""

    def __init__(self, type_name: str, message: str, hint: str) -> None:
        self.type_name = type_name
        super().__init__(message, hint=hint)

    @property
    def error_class(self) -> type[BaseException] | None:
        """The original class, when it is one of this tree."""
        cls = globals().get(self.type_name) if self.type_name in __all__ else None
        if isinstance(cls, type) and issubclass(cls, BaseException):
            return cls
        return None


class TabUnavailable(TabwardenError):
    """The tab cannot serve a call: it is unknown, closed, or its page crashed."""


class TabNotFound(TabUnavailable):
    default_hint = "list tabs to see the open ones and their ids"


class TabClosed(TabUnavailable):
    default_hint = "this tab is gone; list tabs and pick another, or open a new one"


class TabCrashed(TabUnavailable):
    """The tab's page (its renderer process) crashed; the tab itself is still open."""

    default_hint = (
        "reload or navigate the tab: that starts a new renderer (the page's state is "
        "lost); other tabs are unaffected"
    )


class RefError(TabwardenError):
    def __init__(self, message: str, *, ref: str = "", hint: str | None = None) -> None:
        self.ref = ref
        super().__init__(message, hint=hint)


class StaleRefError(RefError):
    default_hint = "take a new snapshot and use the refs it gives"


class UnknownRef(RefError):
    default_hint = "use a ref from the latest snapshot of this tab (e.g. e7), or a CSS selector"


class ActionError(TabwardenError):
    pass


class NotActionable(ActionError):
    def __init__(self, message: str, *, ref: str = "", reason: str = "", hint: str | None = None):
        self.ref = ref
        self.reason = reason
        super().__init__(message, hint=hint)


class PersonInControl(ActionError):
    """A person took over the session in the workbench: the agent's input waits for them
    to hand back."""

    default_hint = (
        "a person is using this browser from the workbench; wait, then try again (they "
        "hand back with the workbench's Hand back button)"
    )


class DialogBlocking(TabwardenError):
    """A JavaScript dialog is open: the page's script is paused until it is answered."""

    def __init__(self, message: str, *, dialog_type: str = "", hint: str | None = None):
        self.dialog_type = dialog_type
        super().__init__(message, hint=hint)


class ScriptError(TabwardenError):
    """The evaluated script threw."""

    def __init__(self, message: str, *, text: str, line: int, column: int, url: str) -> None:
        self.text = text
        self.line = line
        self.column = column
        self.url = url
        super().__init__(message, hint="fix the script; the page itself is unaffected")


class EvaluateDisabled(TabwardenError):
    default_hint = "evaluation is off (browser.evaluate_enabled: false); use the page tools"


class NavigationError(TabwardenError):
    def __init__(self, message: str, *, url: str = "", hint: str | None = None) -> None:
        self.url = url
        super().__init__(message, hint=hint)


class InvalidURL(NavigationError):
    default_hint = "give a full URL such as https://example.com/path or http://localhost:8000/"


class NavigationFailed(NavigationError):
    """The load failed before any HTTP response (refused, DNS, TLS, aborted…)."""

    def __init__(self, message: str, *, url: str, net_error: str, hint: str | None = None) -> None:
        self.net_error = net_error
        super().__init__(message, url=url, hint=hint)


class NavigationTimeout(NavigationError, DeadlineExceeded):
    """A load did not reach its ``wait_until`` stage in time; ``reached`` says how far it got."""

    def __init__(
        self,
        message: str,
        *,
        url: str,
        wait_until: str,
        reached: tuple[str, ...],
        hint: str | None = None,
    ) -> None:
        self.wait_until = wait_until
        self.reached = reached
        super().__init__(
            message,
            url=url,
            hint=hint or "the page may still be loading: retry with a larger timeout_ms",
        )


class NoHistoryEntry(NavigationError):
    default_hint = "this tab has no page in that direction; navigate to a URL instead"
