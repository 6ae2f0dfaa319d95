"""HTTP to a provider's API: its answers turned into tabwarden errors, 429 retried.

Requests run on a worker thread with a blocking client, for two reasons: the same code
serves the release at interpreter exit (no event loop left there), and a create the
caller stopped waiting for still gets its answer, so the browser it made is released
(see ``CloudBackend``). A 429 is retried after ``Retry-After`` (else a backoff doubling
from 0.5 s to 8 s) while the budget lasts, and never past it.
"""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import ssl
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import httpx2

from ...budget import Budget
from ...errors import (
    CloudAuthError,
    CloudError,
    CloudQueued,
    CloudQuotaError,
    CloudServerError,
    DeadlineExceeded,
)
from .provider import HttpCall

__all__ = ["ProviderClient", "Queueing"]

logger = logging.getLogger("tabwarden.backends.cloud")

_BACKOFF_FIRST_S = 0.5
_BACKOFF_MAX_S = 8.0
_EXCERPT_CHARS = 300


class Queueing:
    """How often and for how long a provider answered 429 to one call."""

    def __init__(self) -> None:
        self.queued = 0
        """429 answers."""
        self.retries = 0
        """Requests sent again after one."""
        self.started = time.monotonic()

    @property
    def waited_s(self) -> float:
        return time.monotonic() - self.started

    def describe(self) -> str:
        return (
            f"the provider queued the request: {self.retries} "
            f"{'retry' if self.retries == 1 else 'retries'} over {self.waited_s:.1f} s"
        )


class ProviderClient:
    """Makes a provider's HTTP calls (blocking; see the module docstring)."""

    def __init__(
        self, provider: str, key_env: str, *, transport: httpx2.BaseTransport | None = None
    ) -> None:
        self.provider = provider
        self.key_env = key_env
        self._transport = transport

    def send(
        self,
        call: HttpCall,
        budget: Budget,
        *,
        what: str,
        stop: threading.Event | None = None,
        request_cap_s: float | None = None,
    ) -> Any:
        """The JSON answer of ``call`` (None when it has no body), 429s retried within
        ``budget``. ``request_cap_s``: one request may take this long even past the budget
        (a create whose answer must still be read); ``stop`` ends the retries early."""
        queue = Queueing()
        delay = _BACKOFF_FIRST_S
        with httpx2.Client(
            transport=self._transport, trust_env=False, verify=_tls_context()
        ) as client:
            while True:
                remaining = budget.remaining()
                if remaining <= 0:
                    raise self._out_of_time(what, queue, budget)
                timeout = request_cap_s if request_cap_s is not None else remaining
                response = self._request(client, call, timeout, what)
                if response.status_code != 429:
                    return self._answer(response, what)
                queue.queued += 1
                wait_s = _retry_after(response) or delay
                delay = min(delay * 2, _BACKOFF_MAX_S)
                if wait_s >= budget.remaining() or (stop is not None and stop.is_set()):
                    raise self._out_of_time(what, queue, budget)
                queue.retries += 1
                logger.info(
                    "%s queued %s (HTTP 429): retry %d in %.1f s",
                    self.provider,
                    what,
                    queue.retries,
                    wait_s,
                )
                if stop is not None:
                    stop.wait(wait_s)  # the backoff itself; set() ends it early
                else:
                    time.sleep(wait_s)  # the backoff itself, bounded by the budget above

    # ---- private -------------------------------------------------------------------

    def _request(
        self, client: httpx2.Client, call: HttpCall, timeout: float, what: str
    ) -> httpx2.Response:
        try:
            return client.request(
                call.method,
                call.url,
                headers=dict(call.headers),
                json=call.json,
                timeout=max(timeout, 0.001),
            )
        except httpx2.TimeoutException as exc:
            raise DeadlineExceeded(
                f"{self.provider} did not answer {what} within {timeout:.1f} s",
                hint="the provider may be slow or unreachable: retry with a longer timeout",
            ) from exc
        except httpx2.HTTPError as exc:
            host = urlsplit(call.url).netloc
            raise CloudServerError(
                f"cannot reach {self.provider} at {host} for {what}: {exc}",
                hint="check the network, cloud.api_url and the provider's status page",
            ) from exc

    def _answer(self, response: httpx2.Response, what: str) -> Any:
        status = response.status_code
        if 200 <= status < 300:
            if not response.content:
                return None
            try:
                return response.json()
            except (ValueError, json.JSONDecodeError) as exc:
                raise CloudServerError(
                    f"{self.provider} answered {what} with something that is not JSON "
                    f"({_excerpt(response)!r})"
                ) from exc
        said = _excerpt(response)
        detail = f"{self.provider} refused {what} with HTTP {status}" + (
            f": {said}" if said else ""
        )
        if status in (401, 403):
            raise CloudAuthError(
                detail,
                hint=f"check the API key in {_where(self.key_env)} (or the variable "
                "cloud.api_key_env names): it is mistyped, revoked or lacks access to this "
                "project",
            )
        if status == 402:
            raise CloudQuotaError(detail)
        if status >= 500:
            raise CloudServerError(detail)
        raise CloudError(
            detail, hint="check the cloud settings (region, proxy, profile, project_id)"
        )

    def _out_of_time(self, what: str, queue: Queueing, budget: Budget) -> DeadlineExceeded:
        if queue.queued:
            logger.warning("%s: %s; giving up (%s)", self.provider, queue.describe(), what)
            return CloudQueued(
                f"{self.provider} did not take {what} within "
                f"{budget.timeout_s:.1f} s: {queue.describe()}"
            )
        return DeadlineExceeded(f"{what} ran out of its {budget.timeout_s:.1f} s budget")


def _where(key_env: str) -> str:
    """``$NAME`` for an environment variable, the key as written for a config key."""
    return key_env if "." in key_env else f"${key_env}"


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One verifying TLS context for every call: loading the CA store costs 25-100 ms."""
    return ssl.create_default_context()


def _retry_after(response: httpx2.Response) -> float | None:
    """Seconds the ``Retry-After`` header asks for (delta seconds or an HTTP date)."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _excerpt(response: httpx2.Response) -> str:
    """What the provider said, short: a JSON ``message``/``error`` field, else the text."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    if isinstance(body, dict):
        for key in ("message", "error", "detail"):
            if isinstance(body.get(key), str):
                body = body[key]
                break
    text = body if isinstance(body, str) else json.dumps(body)
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT_CHARS else text[:_EXCERPT_CHARS] + "…"
