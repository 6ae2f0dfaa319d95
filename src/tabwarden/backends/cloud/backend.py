"""CloudBackend: a session's browser from a cloud provider, created at start and released on
every way out.

Start: the create call (429s retried within the budget), then the socket URL (an HTTPS base
is resolved through ``/json/version``). The browser is released by ``close()`` (a normal
close, an error during start, the idle reaper), at interpreter exit and on SIGTERM/SIGHUP
(``reaper`` exit actions: a blocking call with a short timeout). A create still running when
its budget ends keeps going on its thread: if the provider answers after all, that browser
is released at once, so nothing is left billing.

The API key and any credential in the connect URL are shared with every redactor of the
process (replies, errors, logs) and kept out of ``Endpoint``'s repr.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ...budget import Budget
from ...config import CloudConfig
from ...errors import CloudCreateTimeout, CloudError, TabwardenError
from ...safety.redaction import secret_kind, share_secrets
from ..base import Endpoint
from ..external import resolve_endpoint
from ..reaper import reaper
from .client import ProviderClient
from .provider import CloudBrowser, CloudProvider, CloudSettings

__all__ = ["CloudBackend", "cloud_settings", "url_secrets"]

logger = logging.getLogger("tabwarden.backends.cloud")

LATE_CREATE_S = 120.0
"""How long a create the caller gave up on is still waited for (then released)."""
EXIT_RELEASE_S = 5.0
"""The release at interpreter exit or on a signal: one blocking call, at most this long."""
RELEASE_S = 15.0
"""A release on close, 429s included."""
EXIT_WAIT_FOR_CREATE_S = 10.0
"""At exit, how long a create still in flight is waited for so its browser can be released."""
LIVE_VIEW_S = 5.0
"""Asking a provider for the live view, at most (the start goes on without it)."""

_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*")
_MIN_TOKEN_CHARS = 8


def cloud_settings(
    provider: CloudProvider, cloud: CloudConfig, environ: Mapping[str, str]
) -> CloudSettings:
    """The provider settings of ``cloud``, with the key read (config, else the environment)."""
    key_env = cloud.api_key_env or provider.key_env
    if cloud.api_key is not None:
        key, source = cloud.api_key.get_secret_value().strip(), "cloud.api_key"
    else:
        key, source = environ.get(key_env, "").strip(), key_env
    return CloudSettings(
        api_key=key,
        key_env=source,
        api_url=cloud.api_url,
        project_id=cloud.project_id,
        region=cloud.region,
        proxy=cloud.proxy,
        stealth=cloud.stealth,
        timeout_s=cloud.timeout_s,
        profile=cloud.profile,
        url_template=cloud.url_template,
    )


class CloudBackend:
    """A session's browser from a cloud provider (see the module docstring)."""

    def __init__(
        self,
        provider: CloudProvider,
        settings: CloudSettings,
        *,
        client: ProviderClient | None = None,
    ) -> None:
        self.provider = provider
        self.settings = settings
        self.name = provider.name
        self.owns_browser = provider.capabilities.ends_on_disconnect
        """A provider that ends the browser with its socket: a dropped connection is a lost
        browser (the next call creates another). Otherwise the session reconnects."""
        self.needs_dialog_bridge = provider.capabilities.dialog_bridge
        self.viewport: tuple[int, int] | None = None  # the provider's window size
        self.browser_context_id: str | None = None  # the browser is the session's whole
        self.browser: CloudBrowser | None = None
        """The browser created for the session now (None before start and after close)."""
        self.releases = 0
        """Browsers this backend released (close, failed start, late creates)."""
        self._client = client or ProviderClient(provider.name, settings.key_env or provider.key_env)
        self._exit_release: Callable[[], None] | None = None
        if settings.api_key:
            share_secrets({settings.key_env or provider.key_env: settings.api_key})

    def __repr__(self) -> str:
        held = self.browser.id if self.browser is not None else "none"
        return f"<CloudBackend {self.name} browser={held!r}>"

    def exit_status(self) -> str | None:
        return None

    async def start(self, budget: Budget) -> Endpoint:
        browser = await self._create(budget)
        self._hold(browser)
        try:
            endpoint = await self._endpoint(browser, budget)
            await self._find_live_view(browser, budget)
        except BaseException:
            await self.close()
            raise
        return endpoint

    async def reconnect(self, budget: Budget) -> Endpoint:
        """The same browser again (a DevTools base is asked for its socket anew)."""
        if self.browser is None:
            raise CloudError(
                f"the {self.name} browser was released", hint="the next call creates another"
            )
        return await self._endpoint(self.browser, budget)

    async def close(self) -> None:
        """Release the browser (idempotent; a failure is logged, and the provider's own
        timeout ends the browser then)."""
        browser, self.browser = self.browser, None
        if self._exit_release is not None:
            reaper.remove_exit_action(self._exit_release)
            self._exit_release = None
        if browser is None:
            return
        await asyncio.to_thread(self._release, browser, Budget(RELEASE_S))

    # ---- private -------------------------------------------------------------------

    async def _create(self, budget: Budget) -> CloudBrowser:
        call = self.provider.create_call(self.settings)
        if call is None:
            return self.provider.created(None, self.settings)
        what = f"creating a {self.name} browser"
        pending = _PendingCreate(
            self.name,
            lambda stop: self._client.send(
                call, budget, what=what, stop=stop, request_cap_s=LATE_CREATE_S
            ),
            lambda answer: self.provider.created(answer, self.settings),
            lambda browser: self._release(browser, Budget(RELEASE_S)),
            budget,
        )
        return await pending.wait()

    async def _find_live_view(self, browser: CloudBrowser, budget: Budget) -> None:
        """Ask for the live view where the provider gives it apart; without it the session
        still starts (it is for people watching, not for the agent)."""
        call = self.provider.live_view_call(browser, self.settings)
        if call is None:
            return
        try:
            answer = await asyncio.to_thread(
                self._client.send, call, budget.child(LIVE_VIEW_S), what="reading the live view"
            )
        except TabwardenError as exc:
            logger.info("%s: no live view for browser %s (%s)", self.name, browser.id, exc)
            return
        if self.browser is browser:
            self.browser = dataclasses.replace(
                browser, live_view_url=self.provider.live_view(answer)
            )

    def _hold(self, browser: CloudBrowser) -> None:
        """From now on the browser is released at close, at exit or on a signal."""
        self.browser = browser
        secrets = [s for s in url_secrets(browser.cdp_url) if s != self.settings.api_key]
        if secrets:
            prefix = self.name.upper().replace("-", "_")
            share_secrets(
                {f"{prefix}_CONNECT_TOKEN{i or ''}": secret for i, secret in enumerate(secrets)}
            )
        if self.provider.release_call(browser, self.settings) is None:
            return  # closing the socket ends it

        def release_at_exit() -> None:
            self._release(browser, Budget(EXIT_RELEASE_S))

        self._exit_release = release_at_exit
        reaper.add_exit_action(release_at_exit)

    async def _endpoint(self, browser: CloudBrowser, budget: Budget) -> Endpoint:
        ws_url, product = await resolve_endpoint(browser.cdp_url, budget)
        secrets = (*url_secrets(browser.cdp_url), *url_secrets(ws_url), self.settings.api_key)
        return Endpoint(
            ws_url=ws_url,
            product=product,
            secrets=tuple(dict.fromkeys(s for s in secrets if s)),
        )

    def _release(self, browser: CloudBrowser, budget: Budget) -> None:
        """Blocking: the provider's release call (a worker thread, or the exit path)."""
        call = self.provider.release_call(browser, self.settings)
        if call is None:
            return
        try:
            self._client.send(call, budget, what=f"releasing browser {browser.id}")
        except TabwardenError as exc:
            logger.warning(
                "%s: releasing browser %s failed (%s); the provider's timeout ends it",
                self.name,
                browser.id,
                exc,
            )
            return
        self.releases += 1
        logger.info("%s: released browser %s", self.name, browser.id)


class _PendingCreate:
    """A create call on its own thread. The caller waits within its budget; an answer that
    comes after the caller gave up is released on that thread (or, at exit, waited for a
    few seconds and released)."""

    def __init__(
        self,
        name: str,
        send: Callable[[threading.Event], Any],
        read: Callable[[Any], CloudBrowser],
        release: Callable[[CloudBrowser], None],
        budget: Budget,
    ) -> None:
        self._name = name
        self._send = send
        self._read = read
        self._release = release
        self._budget = budget
        self._lock = threading.Lock()
        self._stop = threading.Event()
        """Set once the caller gave up: no more 429 retries."""
        self._abandoned = False
        self._delivered: CloudBrowser | None = None
        self._finished = threading.Event()
        self._loop = asyncio.get_running_loop()
        self._future: asyncio.Future[CloudBrowser] = self._loop.create_future()

    async def wait(self) -> CloudBrowser:
        reaper.add_exit_action(self._wait_at_exit)
        threading.Thread(
            target=self._run, name=f"tabwarden-{self._name}-create", daemon=True
        ).start()
        try:
            return await self._budget.run(
                asyncio.shield(self._future),
                what=f"creating a {self._name} browser",
                on_timeout=self._timed_out,
            )
        except BaseException:
            self._abandon()
            raise

    def _timed_out(self) -> CloudCreateTimeout:
        return CloudCreateTimeout(
            f"{self._name} did not create a browser within {self._budget.timeout_s:.1f} s; "
            "if it still does, that browser is released as soon as its answer arrives"
        )

    def _abandon(self) -> None:
        """On the loop: the caller stopped waiting."""
        self._stop.set()
        with self._lock:
            self._abandoned = True
            handed_over = self._delivered
        if self._future.done() and not self._future.cancelled():
            self._future.exception()  # read: never "an exception was never retrieved"
        if handed_over is not None:
            # Its answer came just as the caller gave up: released here, off the loop.
            threading.Thread(
                target=self._release, args=(handed_over,), name=f"tabwarden-{self._name}-release"
            ).start()

    def _run(self) -> None:
        """On the thread: the call, then the browser handed to the caller or released."""
        browser: CloudBrowser | None = None
        error: BaseException | None = None
        try:
            browser = self._read(self._send(self._stop))
        except BaseException as exc:
            error = exc
        with self._lock:
            late = self._abandoned
            if not late:
                try:
                    self._loop.call_soon_threadsafe(self._deliver, browser, error)
                    self._delivered = browser
                except RuntimeError:  # the caller's event loop is gone
                    late = self._abandoned = True
        if late and browser is not None:
            logger.warning(
                "%s created browser %s after the caller gave up: releasing it",
                self._name,
                browser.id,
            )
            self._release(browser)
        self._finished.set()
        reaper.remove_exit_action(self._wait_at_exit)

    def _deliver(self, browser: CloudBrowser | None, error: BaseException | None) -> None:
        """On the loop: the answer, unless the caller gave up meanwhile."""
        if self._future.done() or self._abandoned:
            return
        if error is not None:
            self._future.set_exception(error)
        elif browser is not None:
            self._future.set_result(browser)

    def _wait_at_exit(self) -> None:
        """At exit: a create still in flight gets a few seconds to answer, then its browser
        is released by its thread."""
        self._stop.set()
        with self._lock:
            self._abandoned = self._abandoned or self._delivered is None
        self._finished.wait(EXIT_WAIT_FOR_CREATE_S)


def url_secrets(url: str) -> tuple[str, ...]:
    """Credentials in a connect URL: a password, query values that look like keys or signed
    tokens by their names (``?token=…``, ``?signingKey=…``, ``?apiKey=…``; a ``sessionId``
    is no secret), JWTs anywhere in it."""
    parts = urlsplit(url)
    found = [parts.password or ""]
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key.lower().endswith("id"):
            continue  # a session or project id names a browser, it opens nothing
        named = secret_kind(key) is not None or key.lower().endswith("key")
        if named and len(value) >= _MIN_TOKEN_CHARS:
            found.append(value)
    found += _JWT.findall(url)
    return tuple(dict.fromkeys(s for s in found if s))
