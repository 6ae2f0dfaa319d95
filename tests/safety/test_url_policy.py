"""The URL policy's rules, without a browser: schemes, lists, metadata, networks, files."""

from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path

import pytest

from tabwarden.config import Config, PolicyConfig, load_config
from tabwarden.errors import ConfigError
from tabwarden.safety import url_policy
from tabwarden.safety.url_policy import UrlPolicy, parse_host_pattern, parse_url, strip_url

OPEN = UrlPolicy()

# ---- cloud metadata endpoints ----------------------------------------------------------

# 169.254.169.254 in full-width digits (U+FF10…), which URL parsing maps to ASCII.
FULL_WIDTH = "".join(chr(0xFF10 + int(c)) if c.isdigit() else c for c in "169.254.169.254")

METADATA_SPELLINGS = [
    "http://169.254.169.254/latest/meta-data/",
    "http://169.254.169.254:80/",
    "https://169.254.169.254/",
    "http://169.254.169.254./",  # a trailing dot
    "http://2852039166/",  # one decimal number
    "http://0xA9FEA9FE/",  # one hex number
    "http://0xa9.0xfe.0xa9.0xfe/",  # hex parts
    "http://0251.0376.0251.0376/",  # octal parts
    "http://0251.254.169.0376/",  # octal and decimal mixed
    "http://169.254.43518/",  # the last part fills two bytes
    "http://169.16689662/",  # … or three
    "http://169%2e254%2e169%2e254/",  # percent-encoded dots
    "http://%31%36%39.254.169.254/",  # percent-encoded digits
    f"http://{FULL_WIDTH}/",  # full-width digits
    "http://169。254。169。254/",  # ideographic full stops
    "http://[::ffff:169.254.169.254]/",  # IPv4-mapped IPv6
    "http://[::ffff:a9fe:a9fe]/",  # the same in hex
    "http://[0:0:0:0:0:ffff:a9fe:a9fe]/",
    "http://[::169.254.169.254]/",  # IPv4-compatible IPv6
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64
    "http://[fd00:ec2::254]/",  # AWS over IPv6
    "http://[FD00:EC2:0::254]/",
    "http://169.254.170.2/v2/credentials",  # ECS task credentials
    "http://100.100.100.200/latest/meta-data",  # Alibaba
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://METADATA.Google.Internal./",
    "http://metadata/computeMetadata/v1/",
    "http://metadata.goog/",
    "http://user:pass@169.254.169.254/",
    "http://169.254.169.254\\@example.com/",  # Chromium ends the host at the backslash
    "http:169.254.169.254/",  # no slashes: still the host
    "http:\\\\169.254.169.254\\latest",
    " \t http://169.254.169.254/ \n",
    "ws://169.254.169.254/",
]


@pytest.mark.parametrize("url", METADATA_SPELLINGS)
def test_every_spelling_of_a_metadata_endpoint_is_blocked(url: str) -> None:
    verdict = OPEN.check(url, resource="subresource" if url.startswith("ws") else "navigation")
    assert not verdict.allowed
    assert verdict.rule == "cloud metadata endpoint"
    assert "always" in verdict.hint


def test_metadata_endpoints_stay_blocked_whatever_the_lists_say() -> None:
    policy = UrlPolicy(allow=["*", "169.254.169.254", "metadata.google.internal", "0.0.0.0/0"])
    assert policy.check("http://169.254.169.254/").rule == "cloud metadata endpoint"
    assert policy.check("http://metadata.google.internal/").rule == "cloud metadata endpoint"
    assert policy.check("http://example.com/").allowed


def test_a_backslash_after_a_public_host_is_the_public_host() -> None:
    # Chromium reads http://example.com\@169.254.169.254/ as example.com (path "/@169…");
    # a parser that splits at the last @ would judge the wrong host.
    verdict = OPEN.check("http://example.com\\@169.254.169.254/")
    assert verdict.allowed and verdict.url.startswith("http://example.com/")


@pytest.mark.parametrize(
    "url",
    [
        "http://1.2.3.4.5/",
        "http://256.1.1.1/",
        "http://0x100000000/",
        "http://1.08/",
        "http://[::1/",
    ],
)
def test_hosts_chromium_refuses_are_refused(url: str) -> None:
    verdict = OPEN.check(url)
    assert not verdict.allowed and verdict.rule == "the URL has no valid host"


# ---- schemes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "JavaScript:void(0)", "  javascript:x()", "java\tscript:x()"]
)
def test_javascript_is_never_a_navigation(url: str) -> None:
    verdict = OPEN.check(url)
    assert not verdict.allowed
    assert verdict.rule == "scheme javascript: is never allowed"
    assert verdict.url == "javascript:…"  # the script itself is not repeated
    assert "evaluate" in verdict.hint


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("about:blank", "about:blank"),
        ("about:srcdoc", "about:srcdoc"),
        ("ABOUT:BLANK#x", "about:blank"),
        ("data:text/html,<h1>hi</h1>", "data: URL (inline content)"),
        ("blob:http://127.0.0.1:8000/5d4c", "blob: URL (content the page made)"),
        ("https://example.com/", "no rule blocks it"),
        ("http://127.0.0.1:8000/", "no rule blocks it"),
    ],
)
def test_allowed_schemes(url: str, rule: str) -> None:
    verdict = OPEN.check(url)
    assert verdict.allowed and verdict.rule == rule


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("about:version", "about:version is not allowed (only about:blank and about:srcdoc)"),
        ("chrome://settings/", "scheme chrome: is not allowed"),
        ("ftp://example.com/file", "scheme ftp: is not allowed"),
        ("view-source:https://example.com/", "scheme view-source: is not allowed"),
        ("ws://example.com/", "scheme ws: is not allowed"),  # not as a page
        ("example.com", "a URL without a scheme"),
    ],
)
def test_other_schemes_are_refused(url: str, rule: str) -> None:
    verdict = OPEN.check(url)
    assert not verdict.allowed and verdict.rule == rule


def test_websockets_are_judged_by_host_as_requests() -> None:
    policy = UrlPolicy(deny=["evil.test"])
    assert policy.check("wss://example.com/socket", resource="subresource").allowed
    assert not policy.check("wss://evil.test/socket", resource="subresource").allowed


# ---- allow and deny lists --------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "url", "matches"),
    [
        ("example.com", "https://example.com/x", True),
        ("example.com", "https://EXAMPLE.com./x", True),  # case and a trailing dot
        ("example.com", "https://www.example.com/", False),  # itself only
        ("*.example.com", "https://example.com/", True),  # itself…
        ("*.example.com", "https://a.b.example.com/", True),  # … and every subdomain
        ("*.example.com", "https://badexample.com/", False),
        ("*.example.com", "https://example.com.evil.test/", False),
        ("*", "https://anything.test/", True),
        ("localhost:8000", "http://localhost:8000/", True),
        ("localhost:8000", "http://localhost:8001/", False),
        ("example.com:443", "https://example.com/", True),  # the scheme's default port
        ("example.com:443", "http://example.com/", False),
        ("https://example.com", "https://example.com/", True),
        ("https://example.com", "http://example.com/", False),
        ("10.0.0.0/8", "http://10.1.2.3/", True),
        ("10.0.0.0/8", "http://0x0a010203/", True),  # any spelling of the address
        ("10.0.0.0/8", "http://[::ffff:10.1.2.3]/", True),  # mapped into IPv6
        ("10.0.0.0/8", "http://11.0.0.1/", False),
        ("10.0.0.0/8", "http://ten.example/", False),  # names are not addresses
        ("192.168.1.5", "http://192.168.1.5:9000/", True),
        ("[::1]:8080", "http://[::1]:8080/", True),
        ("[::1]:8080", "http://[::1]:8081/", False),
        ("fd00::/8", "http://[fd12::1]/", True),
        ("bücher.example", "http://xn--bcher-kva.example/", True),  # IDN as punycode
        ("xn--bcher-kva.example", "http://BÜCHER.example/", True),
    ],
)
def test_list_entries(entry: str, url: str, matches: bool) -> None:
    assert parse_host_pattern(entry).matches(_parsed(url)) is matches
    verdict = UrlPolicy(deny=[entry]).check(url)
    assert verdict.allowed is not matches
    if matches:
        assert verdict.rule == f"deny list entry {entry}"


def test_deny_comes_before_allow() -> None:
    policy = UrlPolicy(allow=["*.example.com"], deny=["bad.example.com"])
    assert policy.check("https://good.example.com/").rule == "allow list entry *.example.com"
    verdict = policy.check("https://bad.example.com/")
    assert not verdict.allowed and verdict.rule == "deny list entry bad.example.com"


def test_an_allow_list_lets_only_its_hosts_through() -> None:
    policy = UrlPolicy(allow=["127.0.0.1", "*.example.com"])
    assert policy.check("http://127.0.0.1:9999/").allowed
    assert policy.check("https://docs.example.com/").allowed
    verdict = policy.check("http://localhost:9999/")
    assert not verdict.allowed and verdict.rule == "not on the allow list"
    assert "127.0.0.1" in verdict.hint and "*.example.com" in verdict.hint
    # Pages without a host are not the allow list's business.
    assert policy.check("about:blank").allowed and policy.check("data:text/plain,x").allowed


def test_an_empty_allow_list_means_everything_not_denied() -> None:
    policy = UrlPolicy(deny=["evil.test"])
    assert policy.check("https://anything.example/").allowed
    assert not policy.check("https://evil.test/").allowed


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("", "empty"),
        ("  ", "empty"),
        ("a*b.example.com", "wildcard"),
        ("example.*", "wildcard"),
        ("ftp://example.com", "scheme ftp:"),
        ("example.com:http", "not a host"),
        ("example.com/path", "not a host"),
        ("[nope]", "not an IPv6 address"),
        ("exa mple.com", "not a valid host"),
    ],
)
def test_bad_list_entries_are_refused_with_the_reason(entry: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_host_pattern(entry)


def test_config_validates_entries_and_reads_lists_from_the_environment() -> None:
    config = load_config(
        env={
            "TABWARDEN_POLICY__DENY": "evil.test, *.tracker.test",
            "TABWARDEN_POLICY__ALLOW": '["127.0.0.1", "localhost:8000"]',
        }
    )
    assert config.policy.deny == ["evil.test", "*.tracker.test"]
    assert config.policy.allow == ["127.0.0.1", "localhost:8000"]
    with pytest.raises(ConfigError, match=r"policy\.deny.*wildcard"):
        load_config(env={"TABWARDEN_POLICY__DENY": "a*b.test"})
    policy = UrlPolicy.from_config(config.policy, None)
    assert policy.check("https://x.tracker.test/").rule == "deny list entry *.tracker.test"


def test_the_rules_import_nothing_of_the_configuration() -> None:
    """The configuration validates its entries with the rules' parser: the rules must not
    import it back, not even for type checking."""
    assert url_policy.__file__ is not None
    tree = ast.parse(Path(url_policy.__file__).read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            relative = "." * node.level + (node.module or "")
            base = importlib.util.resolve_name(relative, url_policy.__package__)
            imported.add(base)
            imported.update(f"{base}.{alias.name}" for alias in node.names)
    assert "tabwarden.config" not in imported


def test_policy_defaults_are_open_except_metadata_and_files() -> None:
    policy = Config().policy
    assert policy == PolicyConfig()
    assert (policy.allow, policy.deny) == ([], [])
    assert not policy.allow_file
    assert not (policy.block_private_networks or policy.block_loopback)
    assert not policy.intercept_subresources


# ---- private networks and loopback -----------------------------------------------------

PRIVATE = [
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://169.254.1.1/",  # link-local
    "http://100.64.0.1/",  # CGNAT
    "http://[fd12:3456::1]/",  # unique-local
    "http://[fe80::1]/",  # link-local
    "http://[::ffff:10.0.0.1]/",
    "http://012.0.0.1/",  # octal 10.0.0.1
    "http://router/",  # an intranet name
    "http://printer.local/",
    "http://db.internal/",
    "http://nas.home.arpa/",
]
LOOPBACK = [
    "http://127.0.0.1/",
    "http://127.1/",
    "http://2130706433/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://0.0.0.0:8000/",
    "http://localhost/",
    "http://app.localhost/",
]
PUBLIC = ["https://example.com/", "http://8.8.8.8/", "http://172.32.0.1/", "http://[2001:db8::1]/"]


@pytest.mark.parametrize("url", PRIVATE)
def test_private_networks_are_blocked_only_when_asked(url: str) -> None:
    assert OPEN.check(url).allowed
    verdict = UrlPolicy(block_private_networks=True).check(url)
    assert not verdict.allowed
    assert verdict.rule == "private network address (policy.block_private_networks)"


@pytest.mark.parametrize("url", LOOPBACK)
def test_loopback_has_its_own_switch(url: str) -> None:
    assert UrlPolicy(block_private_networks=True).check(url).allowed
    verdict = UrlPolicy(block_loopback=True).check(url)
    assert not verdict.allowed and verdict.rule == "loopback address (policy.block_loopback)"


@pytest.mark.parametrize("url", PUBLIC)
def test_public_hosts_pass_both_switches(url: str) -> None:
    assert UrlPolicy(block_private_networks=True, block_loopback=True).check(url).allowed


# ---- files -----------------------------------------------------------------------------


def test_file_urls_are_off_unless_enabled(tmp_path: Path) -> None:
    inside = tmp_path / "page.html"
    inside.write_text("<p>hi</p>")
    verdict = UrlPolicy(workspace=tmp_path).check(inside.as_uri())
    assert not verdict.allowed and verdict.rule == "file: URLs are off (policy.allow_file)"
    assert "policy.allow_file" in verdict.hint


def test_file_urls_only_inside_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "sub" / "page.html").write_text("<p>hi</p>")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.symlink(outside, workspace / "link.txt")
    policy = UrlPolicy(allow_file=True, workspace=workspace)
    inside = policy.check((workspace / "sub" / "page.html").as_uri())
    assert inside.allowed and inside.rule == "file inside the workspace"
    assert policy.check(f"file://{workspace}/sub/../sub/page.html").allowed
    for url in (
        outside.as_uri(),
        "file:///etc/passwd",
        f"file://{workspace}/../secret.txt",  # .. out
        f"file://{workspace}/sub/%2e%2e/%2e%2e/secret.txt",  # encoded ..
        (workspace / "link.txt").as_uri(),  # a symlink out
    ):
        verdict = policy.check(url)
        assert not verdict.allowed, url
        assert verdict.rule == f"file outside the workspace {workspace.resolve()}"
    assert policy.check("file://fileserver/share/x").rule == "file: URL on another host"


# ---- what is shown and logged ----------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pw@example.com/a/b?token=secret#frag", "https://example.com/a/b"),
        ("http://example.com:80/x?y", "http://example.com/x"),
        ("http://example.com:8080/x", "http://example.com:8080/x"),
        ("http://[::1]:9000/x?a=b", "http://[::1]:9000/x"),
        ("data:text/html;base64,PGgxPnNlY3JldDwvaDE+", "data:text/html;base64,…"),
        ("javascript:fetch('/steal?c='+document.cookie)", "javascript:…"),
        ("blob:https://example.com/uuid?x", "blob:https://example.com/uuid"),
        ("about:blank", "about:blank"),
        ("//user:pw@example.com/x?y", "//example.com/x"),  # no scheme
        ("mailto:someone@example.com?subject=x", "mailto:example.com"),
        ("http://example.com:99999/x", "http://example.com/x"),
    ],
)
def test_shown_urls_carry_no_credentials_query_or_fragment(url: str, shown: str) -> None:
    assert strip_url(url) == shown


def test_shown_urls_are_bounded() -> None:
    shown = strip_url("https://example.com/" + "a" * 5000)
    assert len(shown) == 200 and shown.endswith("…")


def _parsed(url: str):
    parsed = parse_url(url)
    assert parsed is not None
    return parsed
