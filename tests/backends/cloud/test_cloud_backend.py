"""CloudBackend's parts that need no provider: credentials found in connect URLs, and a
Retry-After given as a date."""

from __future__ import annotations

import email.utils
import time

import pytest

from tabwarden.backends.base import Endpoint
from tabwarden.backends.cloud import backend as cloud_backend_module
from tabwarden.backends.cloud.client import ProviderClient
from tabwarden.backends.cloud.steel import Steel
from tabwarden.budget import Budget
from tests.fakes.cloud_api import API_KEYS, Answer, FakeProviderAPI

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzZXNzaW9uIjoiYWJjIn0.c2lnbmF0dXJl"


@pytest.mark.parametrize(
    ("url", "hidden"),
    [
        ("wss://connect.browserbase.com?signingKey=" + JWT, [JWT]),
        ("wss://chrome.browserless.io/?token=tok_0123456789&timeout=60000", ["tok_0123456789"]),
        ("wss://user:s3cretpass@gw.example/devtools/browser/1", ["s3cretpass"]),
        ("wss://cdp.example/session/" + JWT + "/devtools", [JWT]),
        (
            "wss://connect.steel.dev?sessionId=3f0c2a51-aaaa&apiKey=ste-0123456789",
            ["ste-0123456789"],
        ),
    ],
)
def test_credentials_in_a_connect_url_are_found_and_never_shown(url, hidden) -> None:
    found = cloud_backend_module.url_secrets(url)
    assert set(hidden) <= set(found)
    assert "60000" not in found and "3f0c2a51-aaaa" not in found  # not credentials
    shown = Endpoint(ws_url=url, secrets=found)
    for secret in hidden:
        assert secret in shown.ws_url
        assert secret not in shown.shown_url and secret not in repr(shown)


def test_a_retry_after_date_is_honoured() -> None:
    fake = FakeProviderAPI("steel", lambda session_id: "ws://127.0.0.1:9/x").start()
    try:
        later = email.utils.formatdate(time.time() + 1.5, usegmt=True)
        fake.answer_next(Answer(429, {"message": "queued"}, {"Retry-After": later}))
        settings = cloud_backend_module.CloudSettings(
            api_key=API_KEYS["steel"], api_url=fake.api_url
        )
        client = ProviderClient("steel", "STEEL_API_KEY")
        started = time.monotonic()
        answer = client.send(Steel().create_call(settings), Budget(10), what="creating")
        assert time.monotonic() - started >= 0.4  # waited for the date (whole seconds)
        assert answer["id"] == "steel-1" and len(fake.calls) == 2
    finally:
        fake.stop()
