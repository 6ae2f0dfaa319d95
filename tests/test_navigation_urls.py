"""Unit tests for the pure parts of tabwarden.navigation: URL checks, errors, results."""

from __future__ import annotations

import pytest

from tabwarden.errors import InvalidArgument, InvalidURL, NavigationError, NavigationFailed
from tabwarden.navigation import (
    WAIT_UNTIL,
    NavigationResult,
    check_wait_until,
    navigation_failure,
    normalize_url,
)
from tabwarden.supervisor.dialogs import PendingDialog

# ---- normalize_url: accepted -------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("localhost:8000/x", "http://localhost:8000/x"),
        ("localhost", "http://localhost"),
        ("localhost/path?q=1#frag", "http://localhost/path?q=1#frag"),
        ("LOCALHOST:3000", "http://LOCALHOST:3000"),
        ("127.0.0.1:5000", "http://127.0.0.1:5000"),
        ("127.0.0.1", "http://127.0.0.1"),
        ("127.1.2.3:9/a", "http://127.1.2.3:9/a"),
        ("[::1]:8080", "http://[::1]:8080"),
        ("example.com", "https://example.com"),
        ("example.com/path?q=1", "https://example.com/path?q=1"),
        ("sub.example.co.uk:8443/x", "https://sub.example.co.uk:8443/x"),
        ("10.0.0.5:8080", "https://10.0.0.5:8080"),
    ],
)
def test_bare_hosts_get_a_scheme(given: str, expected: str) -> None:
    assert normalize_url(given) == expected


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/",
        "http://localhost:8000/x?y=1#z",
        "HTTPS://Example.com/Path",
        "about:blank",
        "about:srcdoc",
        "data:text/html,<h1>hi</h1>",
        "data:text/plain;base64,aGk=",
        "file:///tmp/page.html",
        "http://[::1]:8080/",
        "https://user:pass@example.com/",
    ],
)
def test_full_urls_are_kept_unchanged(url: str) -> None:
    assert normalize_url(url) == url


def test_surrounding_whitespace_is_stripped() -> None:
    assert normalize_url("  https://example.com/x \n") == "https://example.com/x"
    assert normalize_url("\texample.com ") == "https://example.com"


# ---- normalize_url: refused --------------------------------------------------------


@pytest.mark.parametrize("url", ["", " ", "\t\n  "])
def test_empty_or_whitespace_url_is_refused(url: str) -> None:
    with pytest.raises(InvalidURL, match="empty"):
        normalize_url(url)


def test_non_string_url_is_refused() -> None:
    with pytest.raises(InvalidURL):
        normalize_url(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JavaScript:void(0)", " javascript:x() "])
def test_javascript_url_is_refused_with_hint_about_evaluate(url: str) -> None:
    with pytest.raises(InvalidURL) as info:
        normalize_url(url)
    assert "javascript:" in info.value.message
    assert "evaluate" in info.value.hint
    assert info.value.url == url.strip()


@pytest.mark.parametrize("url", ["javascript:1", "javascript:80"])
def test_javascript_url_with_numeric_body_is_refused(url: str) -> None:
    with pytest.raises(InvalidURL, match="javascript"):
        normalize_url(url)


@pytest.mark.parametrize(
    "url", ["ftp://example.com/file", "chrome://settings", "ws://localhost:9222", "mailto:a@b.c"]
)
def test_unsupported_scheme_is_refused(url: str) -> None:
    with pytest.raises(InvalidURL, match="no supported scheme") as info:
        normalize_url(url)
    assert "https:" in info.value.hint
    assert info.value.url == url


@pytest.mark.parametrize("url", ["http://", "https://", "http:///path", "https://?q=1"])
def test_http_url_without_host_is_refused(url: str) -> None:
    with pytest.raises(InvalidURL, match="no valid host"):
        normalize_url(url)


def test_http_url_with_space_in_host_is_refused() -> None:
    with pytest.raises(InvalidURL, match="no valid host"):
        normalize_url("http://exa mple.com/")


@pytest.mark.parametrize(
    "url", ["http://example.com:99999/", "http://example.com:abc/", "localhost:70000"]
)
def test_bad_port_is_refused(url: str) -> None:
    with pytest.raises(InvalidURL, match="invalid port"):
        normalize_url(url)


def test_port_zero_is_refused() -> None:
    with pytest.raises(InvalidURL):
        normalize_url("http://example.com:0/")


@pytest.mark.parametrize("url", ["foo", "intranet", "hello/world"])
def test_single_word_that_is_not_a_host_is_refused(url: str) -> None:
    with pytest.raises(InvalidURL, match="is not a URL"):
        normalize_url(url)


def test_invalid_url_is_a_navigation_error_with_default_hint() -> None:
    with pytest.raises(NavigationError) as info:
        normalize_url("foo")
    assert isinstance(info.value, InvalidURL)
    assert "https://example.com" in info.value.hint


# ---- check_wait_until --------------------------------------------------------------


@pytest.mark.parametrize("stage", ["commit", "domcontentloaded", "load", "networkidle"])
def test_known_wait_until_values_are_returned(stage: str) -> None:
    assert check_wait_until(stage) == stage


def test_wait_until_values_are_the_documented_ones() -> None:
    assert WAIT_UNTIL == ("commit", "domcontentloaded", "load", "networkidle")


@pytest.mark.parametrize("stage", ["", "Load", "networkidle0", "DOMContentLoaded", "done"])
def test_unknown_wait_until_raises_invalid_argument(stage: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        check_wait_until(stage)
    assert isinstance(info.value, ValueError)
    assert repr(stage) in info.value.message
    for known in WAIT_UNTIL:
        assert known in info.value.hint


# ---- navigation_failure ------------------------------------------------------------


def test_connection_refused_names_host_and_suggests_checking_the_server() -> None:
    error = navigation_failure("http://localhost:8000/x", "net::ERR_CONNECTION_REFUSED")
    assert isinstance(error, NavigationFailed)
    assert error.message == "nothing is listening at localhost:8000 (net::ERR_CONNECTION_REFUSED)"
    assert "server is running" in error.hint
    assert error.url == "http://localhost:8000/x"
    assert error.net_error == "net::ERR_CONNECTION_REFUSED"


def test_name_not_resolved_mentions_dns_and_host() -> None:
    error = navigation_failure("https://no-such-host.invalid/", "net::ERR_NAME_NOT_RESOLVED")
    assert "no-such-host.invalid" in error.message
    assert "could not be resolved" in error.message
    assert "(net::ERR_NAME_NOT_RESOLVED)" in error.message
    assert "spelling" in error.hint
    assert error.net_error == "net::ERR_NAME_NOT_RESOLVED"


@pytest.mark.parametrize(
    "code",
    [
        "net::ERR_CERT_AUTHORITY_INVALID",
        "net::ERR_CERT_DATE_INVALID",
        "net::ERR_SSL_PROTOCOL_ERROR",
    ],
)
def test_certificate_errors_mention_tls_and_suggest_a_fix(code: str) -> None:
    error = navigation_failure("https://self-signed.test:8443/", code)
    assert "TLS certificate" in error.message
    assert "self-signed.test:8443" in error.message
    assert code in error.message
    assert "certificate" in error.hint
    assert error.net_error == code


def test_unknown_net_error_includes_the_code_and_a_hint() -> None:
    error = navigation_failure("https://example.com/page", "net::ERR_SOMETHING_NEW")
    assert error.message == (
        "the browser could not load https://example.com/page (net::ERR_SOMETHING_NEW)"
    )
    assert error.hint == "check the URL and the server"
    assert "net::ERR_SOMETHING_NEW" in str(error)
    assert error.hint in str(error)
    assert error.net_error == "net::ERR_SOMETHING_NEW"


def test_aborted_load_names_the_url() -> None:
    error = navigation_failure("https://example.com/download.zip", "net::ERR_ABORTED")
    assert "https://example.com/download.zip" in error.message
    assert "snapshot" in error.hint


def test_url_without_netloc_uses_the_whole_url_as_host() -> None:
    error = navigation_failure("file:///tmp/missing.html", "net::ERR_CONNECTION_REFUSED")
    assert "file:///tmp/missing.html" in error.message


def test_navigation_failure_is_returned_not_raised() -> None:
    error = navigation_failure("http://localhost:1/", "net::ERR_CONNECTION_REFUSED")
    assert isinstance(error, NavigationError)
    with pytest.raises(NavigationFailed):
        raise error


# ---- NavigationResult --------------------------------------------------------------


def make_result(status: int | None, **extra: object) -> NavigationResult:
    fields: dict[str, object] = {
        "tab_id": "T1",
        "url": "https://example.com/",
        "title": "Example",
        "status": status,
        "status_text": "OK" if status == 200 else "",
        "wait_until": "load",
        "reached": ("commit", "DOMContentLoaded", "load"),
        "elapsed_ms": 123,
    }
    fields.update(extra)
    return NavigationResult(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("status", "ok"),
    [
        (None, True),
        (200, True),
        (204, True),
        (304, True),
        (399, True),
        (400, False),
        (404, False),
        (500, False),
        (503, False),
    ],
)
def test_result_ok_is_false_only_for_http_errors(status: int | None, ok: bool) -> None:
    assert make_result(status).ok is ok


def test_result_to_dict_has_every_field_and_ok() -> None:
    data = make_result(404).to_dict()
    assert data == {
        "tab_id": "T1",
        "url": "https://example.com/",
        "title": "Example",
        "status": 404,
        "status_text": "",
        "wait_until": "load",
        "reached": ("commit", "DOMContentLoaded", "load"),
        "elapsed_ms": 123,
        "same_document": False,
        "dialog": None,
        "navigated": True,
        "requested_url": "",
        "ok": False,
    }


def test_result_to_dict_ok_true_for_success() -> None:
    assert make_result(200).to_dict()["ok"] is True
    assert make_result(None, same_document=True).to_dict()["ok"] is True


def test_result_to_dict_turns_dialog_into_a_dict() -> None:
    dialog = PendingDialog(
        id="d-1",
        type="alert",
        message="hello",
        default_prompt="",
        url="https://example.com/",
        tab_id="t1",
        frame_id="F",
        session_id="S",
        opened_at=1.0,
    )
    data = make_result(200, dialog=dialog).to_dict()
    assert data["dialog"]["id"] == "d-1"
    assert data["dialog"]["type"] == "alert" and data["dialog"]["message"] == "hello"
    assert data["dialog"]["tab_id"] == "t1" and data["dialog"]["source"] == "native"
