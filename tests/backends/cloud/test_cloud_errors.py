"""What a provider's refusals become (no browser runs: the fakes' browsers are unreachable):
a clear error per status, 429s retried within the budget and never past it, a slow create
released when its answer comes after all, and a browser created for a start that then
fails released at once."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import tabwarden
from tabwarden.errors import (
    CloudAuthError,
    CloudCreateTimeout,
    CloudQueued,
    CloudQuotaError,
    CloudServerError,
    EndpointError,
)
from tests.fakes.cloud_api import API_KEYS, Answer


async def _launch(provider: str, fake, timeout_ms: float = 10_000):
    return await tabwarden.launch(
        backend=provider, cloud={"api_url": fake.api_url}, timeout_ms=timeout_ms
    )


async def test_a_refused_key_says_which_variable_to_set_and_never_shows_the_key(
    bare_api, monkeypatch
):
    fake = bare_api("steel")
    wrong = "ste-wrong0123456789abcdef"
    monkeypatch.setenv("STEEL_API_KEY", wrong)
    with pytest.raises(CloudAuthError) as caught:
        await _launch("steel", fake)
    error = caught.value
    assert "HTTP 401" in error.message and "invalid API key" in error.message
    assert "STEEL_API_KEY" in error.hint
    assert wrong not in str(error)
    assert fake.created == []


async def test_a_missing_key_fails_before_any_call(bare_api, monkeypatch):
    fake = bare_api("browser-use")
    monkeypatch.delenv("BROWSER_USE_API_KEY")
    with pytest.raises(CloudAuthError, match=r"BROWSER_USE_API_KEY is not set") as caught:
        await _launch("browser-use", fake)
    assert "BROWSER_USE_API_KEY" in caught.value.hint
    assert fake.calls == []


async def test_the_key_can_come_from_a_variable_the_config_names(bare_api, monkeypatch):
    fake = bare_api("firecrawl")
    monkeypatch.delenv("FIRECRAWL_API_KEY")
    monkeypatch.setenv("TEAM_FIRECRAWL", API_KEYS["firecrawl"])
    with pytest.raises(EndpointError):  # past the API: its browser is unreachable
        await tabwarden.launch(
            backend="firecrawl",
            cloud={"api_url": fake.api_url, "api_key_env": "TEAM_FIRECRAWL"},
            timeout_ms=10_000,
        )
    assert len(fake.created) == 1


async def test_payment_required_is_a_quota_error(bare_api):
    fake = bare_api("browserbase")
    fake.answer_next(Answer(402, {"message": "Payment required: free plan minutes used up"}))
    with pytest.raises(CloudQuotaError, match="HTTP 402: Payment required"):
        await _launch("browserbase", fake)


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_a_server_error_is_the_providers_problem(bare_api, status):
    fake = bare_api("firecrawl")
    fake.answer_next(Answer(status, {"error": "upstream exploded"}))
    with pytest.raises(CloudServerError, match=f"HTTP {status}: upstream exploded"):
        await _launch("firecrawl", fake)
    assert fake.created == []


async def test_429_is_retried_after_retry_after_then_the_start_goes_on(bare_api, caplog):
    fake = bare_api("steel")
    fake.answer_next(
        Answer(429, {"message": "queued"}, {"Retry-After": "0.3"}),
        Answer(429, {"message": "queued"}, {"Retry-After": "0.3"}),
    )
    caplog.set_level("INFO", logger="tabwarden")
    started = time.monotonic()
    with pytest.raises(EndpointError):  # created after the retries; its socket is unreachable
        await _launch("steel", fake)
    assert time.monotonic() - started >= 0.6  # Retry-After was honoured, twice
    assert len(fake.calls_to("POST", "/v1/sessions")) >= 3
    assert len(fake.created) == 1
    assert await asyncio.to_thread(fake.wait_released, fake.created[0])
    assert "steel queued creating a steel browser (HTTP 429): retry 2 in 0.3 s" in caplog.text


async def test_429_past_the_budget_says_the_provider_queued_the_request(bare_api):
    fake = bare_api("browser-use")
    fake.answer_next(*[Answer(429, {"message": "too many"}, {"Retry-After": "0.4"})] * 20)
    started = time.monotonic()
    with pytest.raises(CloudQueued) as caught:
        await _launch("browser-use", fake, timeout_ms=1_500)
    took = time.monotonic() - started
    assert took < 1.5 + 1.0  # never retried past the budget
    assert "the provider queued the request:" in caught.value.message
    assert "retries over" in caught.value.message
    tries = len(fake.calls)
    assert 2 <= tries <= 5
    retries = f"{tries - 1} {'retry' if tries == 2 else 'retries'}"
    assert f"the provider queued the request: {retries} over" in caught.value.message
    assert fake.created == []


async def test_a_create_slower_than_the_budget_is_released_when_it_answers(bare_api):
    fake = bare_api("browserbase")
    fake.hold_creates = threading.Event()
    with pytest.raises(CloudCreateTimeout, match="released as soon as its answer arrives"):
        await _launch("browserbase", fake, timeout_ms=1_500)
    assert fake.create_held.is_set() and fake.created == []
    fake.hold_creates.set()  # the provider answers after all
    assert await asyncio.to_thread(fake.wait_created, 1)
    assert await asyncio.to_thread(fake.wait_released, fake.created[0])


async def test_a_browser_created_for_a_start_that_fails_is_released(bare_api):
    fake = bare_api("browser-use")
    with pytest.raises(EndpointError):  # its DevTools base does not answer
        await _launch("browser-use", fake)
    assert len(fake.created) == 1
    assert fake.released == fake.created


async def test_a_release_answered_429_is_retried(bare_api):
    fake = bare_api("firecrawl")
    fake.answer_next(Answer(200, {"success": True, "id": "fc-9", "cdpUrl": "ws://127.0.0.1:9/x"}))
    # The scripted create names a browser the fake does not know: register it as created.
    fake.created.append("fc-9")
    fake.answer_next(Answer(429, {"message": "slow down"}, {"Retry-After": "0.1"}))
    with pytest.raises(EndpointError):
        await _launch("firecrawl", fake)
    assert fake.released == ["fc-9"]
    assert len(fake.calls_to("DELETE", "/v2/browser/fc-9")) == 2


def test_an_unknown_or_bad_cloud_setting_fails_at_launch() -> None:
    from tabwarden.errors import ConfigError

    with pytest.raises(ConfigError, match="cloud has no setting 'regoin'") as caught:
        tabwarden.launch(backend="steel", cloud={"regoin": "lax"})
    assert "region" in caught.value.hint
    with pytest.raises(ConfigError, match=r"cloud\.timeout_s"):
        tabwarden.launch(backend="steel", cloud={"timeout_s": -1})
