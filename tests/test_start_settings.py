"""What a session asks of its browser as it starts, each set by a ``launch()`` keyword
(the same configuration field as the command-line flag): certificate errors, a device,
a storage state, init scripts, permissions, the URL policy's lists, the output folder and
the user agent, each proven in a real Chromium."""

from __future__ import annotations

import datetime
import http.server
import json
import os
import signal
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import tabwarden
from tabwarden.budget import Budget
from tabwarden.errors import ConfigError, NavigationFailed, PolicyDenied

pytestmark = pytest.mark.browser

PAGE = "/start_init_script.html"


# ---- a local HTTPS server with a self-signed certificate ------------------------------


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that no one signed, and its key."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<title>Secure hello</title><p>hello over https</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def https_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    cert, key = _self_signed(tmp_path_factory.mktemp("tls"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


async def test_ignore_https_errors_loads_a_self_signed_page(https_url):
    async with tabwarden.launch(isolated=True) as browser:
        with pytest.raises(NavigationFailed, match="ERR_CERT"):
            await browser.new_tab(https_url)
    async with tabwarden.launch(isolated=True, ignore_https_errors=True) as browser:
        tab = await browser.new_tab(https_url)
        assert tab.title == "Secure hello"
        assert "hello over https" in (await tab.evaluate("document.body.innerText")).value


# ---- device, user agent -----------------------------------------------------------------


async def test_device_is_emulated_from_the_first_page(server):
    async with tabwarden.launch(isolated=True, device="iPhone 15") as browser:
        assert browser.emulation_state().device == "iphone-15"
        tab = await browser.new_tab(server.url(PAGE))
        seen = (await tab.evaluate("[innerWidth, devicePixelRatio, navigator.userAgent]")).value
        assert seen[0] == 393 and seen[1] == 3 and "iPhone" in seen[2]


async def test_user_agent_is_what_pages_see(server):
    async with tabwarden.launch(isolated=True, user_agent="Flagged/1.0") as browser:
        tab = await browser.new_tab(server.url(PAGE))
        assert (await tab.evaluate("navigator.userAgent")).value == "Flagged/1.0"


# ---- storage state ----------------------------------------------------------------------


async def test_storage_state_is_loaded_before_the_first_page(server, tmp_path):
    host = server.base.split("//")[1].split(":")[0]
    state = {
        "cookies": [
            {
                "name": "session",
                "value": "from-file",
                "domain": host,
                "path": "/",
                "expires": -1,
                "httpOnly": False,
                "secure": False,
                "sameSite": "Lax",
            }
        ],
        "origins": [{"origin": server.base, "localStorage": [{"name": "k", "value": "v1"}]}],
    }
    file = tmp_path / "state.json"
    file.write_text(json.dumps(state))
    async with tabwarden.launch(isolated=True, storage_state=file) as browser:
        tab = await browser.new_tab(server.url(PAGE))
        seen = (await tab.evaluate("[document.cookie, localStorage.getItem('k')]")).value
        assert seen == ["session=from-file", "v1"]
        assert [t.id for t in await browser.tabs()] == [tab.id]  # its own tab is gone


async def test_a_missing_storage_state_file_fails_the_start_naming_it(tmp_path):
    with pytest.raises(ConfigError, match=r"browser\.storage_state.*nowhere\.json"):
        async with tabwarden.launch(isolated=True, storage_state=tmp_path / "nowhere.json"):
            pass


# ---- init scripts -----------------------------------------------------------------------


async def test_init_scripts_run_before_page_scripts_in_tabs_popups_and_iframes(
    server, other_origin, tmp_path
):
    script = tmp_path / "init.js"
    script.write_text("window.initScriptRan = true;\n")
    async with tabwarden.launch(isolated=True, init_scripts=[script]) as browser:
        tab = await browser.new_tab(server.url(f"{PAGE}?child={other_origin.base}"))
        assert (await tab.evaluate("window.pageSawInit")).value is True
        await tab.snapshot()  # the cross-origin iframe is set up
        oopif = next(f for f in tab.frames.frames() if f.is_oopif)
        framed = await tab.evaluate("window.pageSawInit", frame_id=oopif.frame_id)
        assert framed.value is True
        await tab.evaluate(f"window.open({server.url(PAGE)!r}, '_blank'); 1")
        budget = Budget(10)
        while not (popups := [t for t in await browser.tabs() if t.opener is tab]):
            budget.check("waiting for the popup")
            await budget.sleep(0.02)
        await popups[0].wait(load_state="load")
        assert (await popups[0].evaluate("window.pageSawInit")).value is True
    async with tabwarden.launch(isolated=True) as browser:  # without it: the page ran alone
        tab = await browser.new_tab(server.url(PAGE))
        assert (await tab.evaluate("window.pageSawInit")).value is False


# ---- permissions ------------------------------------------------------------------------

_PERMISSION_STATES = """Promise.all(['geolocation', 'notifications'].map(
    name => navigator.permissions.query({name}).then(s => s.state)))"""


async def test_granted_permissions_hold_for_every_site_and_survive_geolocation(
    server, other_origin
):
    async with tabwarden.launch(
        isolated=True, grant_permissions="geolocation,notifications"
    ) as browser:
        for origin in (server, other_origin):
            tab = await browser.new_tab(origin.url(PAGE))
            assert (await tab.evaluate(_PERMISSION_STATES)).value == ["granted", "granted"]
        # Emulating a position (and stopping) grants and resets permissions: the
        # configured ones stay granted.
        await browser.emulate(latitude=48.85, longitude=2.29)
        tab = await browser.new_tab(server.url(PAGE))
        assert (await tab.evaluate("Notification.permission")).value == "granted"
        await browser.emulate(reset=True)
        assert (await tab.evaluate(_PERMISSION_STATES)).value == ["granted", "granted"]
    async with tabwarden.launch(isolated=True) as browser:
        tab = await browser.new_tab(server.url(PAGE))
        assert (await tab.evaluate(_PERMISSION_STATES)).value == ["prompt", "prompt"]


# ---- URL policy and outputs -------------------------------------------------------------


async def test_allowed_and_blocked_origins_are_the_url_policy(server, other_origin):
    async with tabwarden.launch(isolated=True, allowed_origins="127.0.0.1") as browser:
        assert (await browser.new_tab(server.url(PAGE))).title == "Init script"
        with pytest.raises(PolicyDenied):
            await browser.new_tab(other_origin.url(PAGE))
    async with tabwarden.launch(isolated=True, blocked_origins=["localhost"]) as browser:
        assert (await browser.new_tab(server.url(PAGE))).title == "Init script"
        with pytest.raises(PolicyDenied):
            await browser.new_tab(other_origin.url(PAGE))


async def test_output_dir_is_where_files_are_written(server, tmp_path):
    out = tmp_path / "outputs"
    async with tabwarden.launch(isolated=True, output_dir=out) as browser:
        await browser.new_tab(server.url(PAGE))
        saved = await browser.save_storage_state("mine.json")
    assert Path(saved.file) == (out / "state" / "mine.json").resolve()
    assert Path(saved.file).is_file()


# ---- after a relaunch ---------------------------------------------------------------------


async def test_a_relaunched_browser_gets_every_start_setting_again(server, tmp_path):
    file = tmp_path / "state.json"
    file.write_text(
        json.dumps(
            {
                "cookies": [],
                "origins": [
                    {"origin": server.base, "localStorage": [{"name": "k", "value": "v2"}]}
                ],
            }
        )
    )
    script = tmp_path / "init.js"
    script.write_text("window.initScriptRan = true;\n")
    check = """Promise.all([
        localStorage.getItem('k'), window.pageSawInit, innerWidth,
        navigator.permissions.query({name: 'notifications'}).then(s => s.state)])"""
    async with tabwarden.launch(
        isolated=True,
        storage_state=file,
        init_scripts=script,
        device="pixel-8",
        grant_permissions="notifications",
    ) as browser:
        tab = await browser.new_tab(server.url(PAGE))
        assert (await tab.evaluate(check)).value == ["v2", True, 412, "granted"]
        assert browser.endpoint is not None and browser.endpoint.pid is not None
        os.killpg(browser.endpoint.pid, signal.SIGKILL)
        budget = Budget(10)
        while browser.connected or browser.backend.exit_status() is None:
            budget.check("the session noticing its browser is gone")
            await budget.sleep(0.01)
        tab = await browser.new_tab(server.url(PAGE))  # a fresh isolated profile
        assert browser.launches == 2
        assert (await tab.evaluate(check)).value == ["v2", True, 412, "granted"]
