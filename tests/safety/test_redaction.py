"""Redaction patterns, the user's secrets file, values by key and shape, logs: no browser."""

from __future__ import annotations

import json
import logging

import pytest

from tabwarden.config import Config
from tabwarden.errors import ConfigError, NavigationFailed
from tabwarden.safety.redaction import (
    Redactor,
    install_log_redaction,
    load_secrets,
    parse_secrets,
    process_redactor,
    secret_kind,
)

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

VENDOR_KEYS = [
    ("sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD", "openai-key"),
    ("sk-proj-Abcdefghijklmnopqrstuvwx0123456789", "openai-key"),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", "anthropic-key"),
    ("ghp_0123456789abcdefghijklmnopqrstuvwxyz", "github-token"),
    ("gho_0123456789abcdefghijklmnopqrstuvwxyz", "github-token"),
    ("ghs_0123456789abcdefghijklmnopqrstuvwxyz", "github-token"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github-token"),
    ("xoxb-123456789012-1234567890123-abcdefghijkl", "slack-token"),
    ("xoxp-123456789012-abcdefghijklmnop", "slack-token"),
    ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
    ("rk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
    ("sk_test_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"),
    ("AIzaSyD-abcdefghijklmnopqrstuvwxyz01234", "google-api-key"),
    ("glpat-abcdefghijklmnopqrst", "gitlab-token"),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm-token"),
    ("SK0123456789abcdef0123456789abcdef", "twilio-key"),
    ("SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "sendgrid-key"),
    ("hf_abcdefghijklmnopqrstuvwxyz01234567", "huggingface-token"),
    ("AKIAIOSFODNN7EXAMPLE", "aws-access-key-id"),
    ("ASIAIOSFODNN7EXAMPLE", "aws-access-key-id"),
    (JWT, "jwt"),
]


@pytest.fixture
def redactor() -> Redactor:
    return Redactor()


@pytest.mark.parametrize(("secret", "kind"), VENDOR_KEYS, ids=[k for _, k in VENDOR_KEYS])
def test_each_vendor_key_is_replaced_by_its_kind(redactor, secret, kind):
    out = redactor.redact_text(f"config: use {secret} here.")
    assert secret not in out
    assert out == f"config: use [redacted:{kind}] here."


def test_stripe_publishable_keys_are_not_secret(redactor):
    text = "the publishable key pk_live_4eC39HqLyjWDarjtT1zdp7dc is safe to show"
    assert redactor.redact_text(text) == text


def test_bearer_tokens_and_authorization_headers(redactor):
    assert redactor.redact_text("Authorization: Bearer abcdef0123456789xyz") == (
        "Authorization: [redacted:auth]"
    )
    assert redactor.redact_text("curl -H 'Authorization: Bearer abc.def-123' x") == (
        "curl -H 'Authorization: Bearer [redacted:bearer-token]' x"
    )
    assert redactor.redact_text(f"Bearer {JWT}") == "Bearer [redacted:jwt]"
    assert redactor.redact_text("Cookie: sid=abc123; theme=dark\nnext") == (
        "Cookie: [redacted:cookie]\nnext"
    )


def test_aws_secret_key_next_to_its_key_id(redactor):
    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    out = redactor.redact_text(f"id AKIAIOSFODNN7EXAMPLE secret {secret}")
    assert out == "id [redacted:aws-access-key-id] secret [redacted:aws-secret-key]"
    assert secret not in redactor.redact_text(f"aws_secret_access_key={secret}")


def test_private_key_blocks_whole_or_cut_off(redactor):
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc==\n-----END RSA PRIVATE KEY-----"
    assert redactor.redact_text(f"key:\n{pem}\nafter") == "key:\n[redacted:private-key]\nafter"
    escaped = '"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkq\\n-----END PRIVATE KEY-----\\n"'
    assert redactor.redact_text(escaped) == '"[redacted:private-key]\\n"'
    cut = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA… [truncated]"
    assert redactor.redact_text(cut) == "[redacted:private-key]… [truncated]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter2&user=bob", "password=[redacted:password]&user=bob"),
        ("DB_PASSWORD=s3cret!x", "DB_PASSWORD=[redacted:password]"),
        ("passwd=abc#123 next", "passwd=[redacted:password] next"),
        ("sessionid=abc123def; path=/", "sessionid=[redacted:session]; path=/"),
        ("password: hunter2", "password: [redacted:password]"),
        ("api_key: 0123abcd4567", "api_key: [redacted:api-key]"),
        (
            '{"password": "hunter2", "user": "bob", "apiKey": "abc"}',
            '{"password": "[redacted:password]", "user": "bob", "apiKey": "[redacted:api-key]"}',
        ),
        ('{\\"token\\": \\"abc123\\"}', '{\\"token\\": \\"[redacted:token]\\"}'),
        ("const x = {secret: 'abc123xyz'}", "const x = {secret: '[redacted:secret]'}"),
        ("{'refresh_token': 'r-123456'}", "{'refresh_token': '[redacted:token]'}"),
        ("credentials=Zm9vOmJhcg==", "credentials=[redacted:credential]"),
    ],
)
def test_secret_fields_keep_their_key_and_lose_their_value(redactor, text, expected):
    assert redactor.redact_text(text) == expected


def test_query_parameters_and_userinfo_in_urls(redactor):
    url = "https://example.com/cb?access_token=abc123def&state=xyz#id_token=qqq111"
    assert redactor.redact_text(url) == (
        "https://example.com/cb?access_token=[redacted:token]&state=xyz#id_token=[redacted:token]"
    )
    assert redactor.redact_text("postgres://admin:s3cr3tpw@db.example.com:5432/app") == (
        "postgres://admin:[redacted:password]@db.example.com:5432/app"
    )
    assert redactor.redact_text("https://u:p4ss@host/?auth=1a2b3c") == (
        "https://u:[redacted:password]@host/?auth=[redacted:auth]"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Forgot your password? Reset it here. Your session expired, please log in again.",
        "Use a personal access token to authenticate. Secret Santa sign-up closes Friday.",
        "Bearer bonds were common. The bearer of this letter is trusted. Author: Jane Doe",
        "Password: required. Session: 2 of 5. Token: expired.",
        "The tokenizer splits max_tokens=100 into tokens; author=me; sessions=3",
        "https://example.com/search?q=password+reset&page=2",
        "https://docs.example.com/auth/login#section-3 and https://github.com/o/r/blob/main/token.py",
        "https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
        ".btn { color: #fff; background: url(/img/bg.png); }\n"
        "@media (max-width: 600px) { .session-box{display:none} --auth-color: red; }",
        "const el = document.querySelector('#login');\n"
        "el.addEventListener('click', () => submit(token));\n"
        "let password = document.getElementById('pw').value; if (token===null) return;\n"
        "const auth = getAuth(); token=getToken(); headers.Authorization = 'Bearer ' + t;",
        "function add(a, b) { return a + b; } // returns the sum",
        "frame 0123456789ABCDEF0123456789ABCDEF loader 89ABCDEF0123456789ABCDEF01234567",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b, id 550e8400-e29b-41d4-a716-446655440000",
        '- textbox "Password" [ref=e5]\n- link "Sign in" [ref=e6]\n- button "Save" [ref=e7]',
        '{"placeholder": "password", "token": "", "secret": null, "auth": "<your key>"}',
        "Email: jane@example.com, Phone: +1 555 0100, Order #12345",
        'integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"',
        '"handleSubmitButtonClick2024Event" "getElementsByClassName2ForTest"',
    ],
)
def test_ordinary_text_urls_css_and_js_pass_unchanged(redactor, text):
    assert redactor.redact_text(text) == text


def test_a_random_token_by_shape_alone_quoted_or_assigned(redactor):
    token = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MAbcXYZ"
    assert redactor.redact_text(token) == "[redacted:token]"
    assert redactor.redact_text(f'["{token}", "dark"]') == '["[redacted:token]", "dark"]'
    assert redactor.redact_text(f"- prefs={token}\n- theme=dark") == (
        "- prefs=[redacted:token]\n- theme=dark"
    )
    assert redactor.redact_text(f"/cb?state={token}&v=2") == "/cb?state=[redacted:token]&v=2"
    # In running text a long token is left alone: links and ids must stay usable.
    assert redactor.redact_text(f"see /files/{token}/view") == f"see /files/{token}/view"


def test_secret_kind_matches_whole_words():
    assert secret_kind("X-Api-Key") == "api-key"
    assert secret_kind("accessToken") == "token"
    assert secret_kind("csrftoken") == "token"
    assert secret_kind("aws_secret_access_key") == "secret"
    assert secret_kind("JSESSIONID") == "session"
    assert secret_kind("Set-Cookie") == "cookie"
    for ordinary in ("author", "max_tokens", "tokenizer", "keyboard", "passage", "title"):
        assert secret_kind(ordinary) is None, ordinary


def test_values_by_key_by_pair_and_by_shape(redactor):
    frame_id = "0123456789ABCDEF0123456789ABCDEF"
    value = {
        "headers": {"Authorization": "Basic dXNlcjpwYXNz", "Accept": "*/*"},
        "cookies": [
            {"name": "sid", "value": "abc", "domain": "example.com"},
            {"name": "theme", "value": "dark"},
        ],
        "session": {"user": "bob", "expires": 3600},
        "password": None,
        "storage": ("Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MAbcXYZ", "dark", 3, True),
        "frameId": frame_id,
        "note": f"token={JWT}",
        JWT: 1,
    }
    out = redactor.redact_value(value)
    assert out == {
        "headers": {"Authorization": "[redacted:auth]", "Accept": "*/*"},
        "cookies": [
            {"name": "sid", "value": "[redacted:session]", "domain": "example.com"},
            {"name": "theme", "value": "dark"},
        ],
        "session": "[redacted:session]",
        "password": None,
        "storage": ("[redacted:token]", "dark", 3, True),
        "frameId": frame_id,
        "note": "token=[redacted:jwt]",
        "[redacted:jwt]": 1,
    }
    assert value["cookies"][0]["value"] == "abc", "the input is left as it was"


def test_builtin_patterns_can_be_turned_off_but_user_secrets_stay():
    redactor = Redactor(builtin=False, secrets={"DEPLOY_KEY": "s3cr3t-deploy-key"})
    text = f"jwt {JWT} and key s3cr3t-deploy-key"
    assert redactor.redact_text(text) == f"jwt {JWT} and key [secret:DEPLOY_KEY]"
    assert redactor.redact_value({"password": "x1y2z3"}) == {"password": "x1y2z3"}


def test_user_secrets_are_named_longest_first_and_in_their_encoded_forms():
    redactor = Redactor(
        secrets={"SHORT": "abcd1234", "LONG": "abcd1234-extended", "QUOTED": 'pa"ss w/rd'}
    )
    text = "a abcd1234-extended b abcd1234 c pa%22ss%20w%2Frd d " + json.dumps('pa"ss w/rd')
    assert redactor.redact_text(text) == (
        'a [secret:LONG] b [secret:SHORT] c [secret:QUOTED] d "[secret:QUOTED]"'
    )
    assert redactor.secret_names == ["LONG", "QUOTED", "SHORT"]
    # A user secret is named even where a built-in pattern would also match.
    named = Redactor(secrets={"OPENAI": "sk-abcdefghijklmnopqrstuvwxyz0123"})
    assert named.redact_text("sk-abcdefghijklmnopqrstuvwxyz0123") == "[secret:OPENAI]"


def test_dotenv_parsing():
    text = "\n".join(
        [
            "# my secrets",
            "",
            "PLAIN=value-one",
            "export EXPORTED=value-two",
            "SPACED = value-three   # a comment",
            "SINGLE='lit\\eral # kept'",
            'DOUBLE="line1\\nline2 \\"q\\""',
            'MULTI="first',
            'second"',
            "HASH=abc#def",
            "EMPTY=",
        ]
    )
    assert parse_secrets(text) == {
        "PLAIN": "value-one",
        "EXPORTED": "value-two",
        "SPACED": "value-three",
        "SINGLE": "lit\\eral # kept",
        "DOUBLE": 'line1\nline2 "q"',
        "MULTI": "first\nsecond",
        "HASH": "abc#def",
        "EMPTY": "",
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("just some words", "line 1 is not NAME=value"),
        ("OK=1\n1BAD=x", "line 2 is not NAME=value"),
        ('OPEN="never closed\nMORE=x', "never ends"),
    ],
)
def test_dotenv_errors_name_the_line_never_the_value(text, problem):
    with pytest.raises(ConfigError) as caught:
        parse_secrets(text)
    assert problem in caught.value.message
    assert "never closed" not in caught.value.message


def test_secrets_file_short_values_are_skipped_with_a_warning(tmp_path, caplog):
    file = tmp_path / ".env"
    file.write_text("GOOD=long-enough-secret\nPIN=123\nNOTHING=\n")
    with caplog.at_level(logging.WARNING, logger="tabwarden.safety"):
        secrets = load_secrets(file)
    assert secrets == {"GOOD": "long-enough-secret"}
    (warning,) = [r.getMessage() for r in caplog.records]
    said = warning.split(f"{file}: ", 1)[1]
    assert said.startswith("NOTHING, PIN shorter than 4") and "123" not in said


def test_missing_or_unreadable_secrets_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError) as missing:
        load_secrets(tmp_path / "absent.env")
    assert "absent.env" in missing.value.message and "secrets_file" in missing.value.hint
    binary = tmp_path / "binary.env"
    binary.write_bytes(b"\xff\xfe\x00A=1")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_secrets(binary)


def test_from_config(tmp_path):
    file = tmp_path / "secrets.env"
    file.write_text("STRIPE_KEY=rk_live_mine0123456789abcdef\n")
    config = Config()
    config.safety.secrets_file = file
    config.safety.redact = False
    redactor = Redactor.from_config(config.safety)
    assert not redactor.builtin
    assert redactor.redact_text("k=rk_live_mine0123456789abcdef") == "k=[secret:STRIPE_KEY]"
    config.safety.secrets_file = tmp_path / "gone.env"
    with pytest.raises(ConfigError):
        Redactor.from_config(config.safety)


def test_errors_keep_their_type_and_lose_their_secrets(redactor):
    error = NavigationFailed(
        "net::ERR_CONNECTION_REFUSED at http://h/login?token=abc123secret",
        url="http://h/login?token=abc123secret",
        net_error="net::ERR_CONNECTION_REFUSED",
        hint="retry http://u:pw9@h/",
    )
    same = redactor.redact_error(error)
    assert same is error and isinstance(same, NavigationFailed)
    assert str(error) == (
        "net::ERR_CONNECTION_REFUSED at http://h/login?token=[redacted:token] "
        "(retry http://u:[redacted:password]@h/)"
    )


def test_logs_are_redacted_message_args_and_exceptions(caplog):
    Redactor(secrets={"MY_PLANET": "planet-secret-42"})  # logs learn every user secret
    install_log_redaction()
    log = logging.getLogger("tabwarden.session")
    with caplog.at_level(logging.INFO, logger="tabwarden"):
        log.info("connected with %s to %s", f"token={JWT}", "planet-secret-42")
        try:
            raise ValueError("bad password=hunter2")
        except ValueError:
            log.exception("failed")
    text = caplog.text
    assert JWT not in text and "planet-secret-42" not in text and "hunter2" not in text
    assert "token=[redacted:jwt]" in text and "[secret:MY_PLANET]" in text
    assert "password=[redacted:password]" in text
    assert "planet-secret-42" not in process_redactor().redact_text("planet-secret-42")


def test_loggers_created_later_are_covered_once_installed_again(caplog):
    late = logging.getLogger("tabwarden.some_new_module")
    install_log_redaction()
    install_log_redaction()  # idempotent
    assert sum(1 for f in late.filters if type(f).__name__ == "_LogRedaction") == 1
    with caplog.at_level(logging.INFO, logger="tabwarden"):
        late.info("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123")
    assert "sk-ant" not in caplog.text and "[redacted:anthropic-key]" in caplog.text


# ---- the surfaces render errors redacted ------------------------------------------------


async def test_daemon_replies_are_redacted_and_take_a_secrets_file(tmp_path):
    from tabwarden.surfaces.daemon import Daemon

    file = tmp_path / "agent.env"
    file.write_text("DAEMON_SECRET=daemon-secret-value-1\n")
    daemon = Daemon("redaction", config=Config(), root=tmp_path)
    try:
        reply = await daemon.handle({"op": f"op-{JWT}"})
        assert JWT not in json.dumps(reply) and "[redacted:jwt]" in reply["error"]["message"]
        missing = await daemon.handle(
            {"tool": "browser_click", "arguments": {}, "secrets_file": str(tmp_path / "no.env")}
        )
        assert missing["error"]["type"] == "ConfigError"
        added = await daemon.handle(
            {"tool": "browser_click", "arguments": {}, "secrets_file": str(file)}
        )
        assert added["error"]["type"] == "InvalidArgument"  # the secrets were read first
        reply = await daemon.handle({"op": "daemon-secret-value-1"})
        assert "[secret:DAEMON_SECRET]" in reply["error"]["message"]
        assert "daemon-secret-value-1" not in json.dumps(reply)
    finally:
        await daemon.manager.close_all()


async def test_mcp_errors_raised_around_a_call_are_redacted(monkeypatch):
    from mcp import Client
    from mcp_types import TextContent

    import tabwarden.surfaces.mcp as mcp_surface
    from tabwarden.errors import SessionClosed

    async def failing(ctx: object, name: str, arguments: object, tools: object = None) -> None:
        raise SessionClosed(f"session ended with Authorization: Bearer {JWT}")

    monkeypatch.setattr(mcp_surface, "call_tool", failing)
    server = mcp_surface.build_server(mcp_surface.MCPOptions())
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("browser_snapshot", {})
    (block,) = result.content
    assert isinstance(block, TextContent) and result.is_error
    assert JWT not in block.text and "Bearer [redacted:jwt]" in block.text


def test_cli_errors_are_redacted(capsys):
    from tabwarden import cli

    cli._error(f"cannot open https://u:pw123@h/?token={JWT}")
    err = capsys.readouterr().err
    assert JWT not in err and "pw123" not in err
    assert err == "error: cannot open https://u:[redacted:password]@h/?token=[redacted:jwt]\n"


def test_shared_secrets_reach_every_redactor_and_the_logs(caplog):
    from tabwarden.safety.redaction import share_secrets

    value = "ck_shared_7f3a9c2e41b8d605"
    before = Redactor(builtin=False)
    assert before.redact_text(f"key {value}") == f"key {value}"
    share_secrets({"PROVIDER_API_KEY": value})
    made_earlier, made_later = before, Redactor(builtin=False)
    for redactor in (made_earlier, made_later, process_redactor()):
        assert redactor.redact_text(f"key {value}") == "key [secret:PROVIDER_API_KEY]"
    caplog.set_level("INFO", logger="tabwarden.test")
    install_log_redaction()  # covers the logger made just now
    logging.getLogger("tabwarden.test").info("connecting with %s", value)
    assert value not in caplog.text and "[secret:PROVIDER_API_KEY]" in caplog.text
