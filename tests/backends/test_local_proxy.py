"""A launched browser's proxy (``browser.proxy_server``, ``browser.proxy_bypass``): its
switches, and a real Chromium sending its requests through a local proxy that records them."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import tabwarden
from tabwarden.backends.local import LocalOptions, chromium_args
from tabwarden.errors import NavigationFailed


@dataclass
class RecordingProxy:
    """An HTTP proxy on 127.0.0.1 that answers every request itself and keeps its URL."""

    url: str = ""
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def proxy() -> Iterator[RecordingProxy]:
    record = RecordingProxy()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            record.requests.append(self.path)  # a proxy is asked for the absolute URL
            body = b"<title>From the proxy</title><p>proxied</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    record.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield record
    server.shutdown()
    server.server_close()


def test_proxy_switches(tmp_path: Path) -> None:
    options = LocalOptions(proxy_server="http://p:3128", proxy_bypass=(".a.test", "b.test"))
    args = chromium_args(options, tmp_path, as_root=False)
    assert "--proxy-server=http://p:3128" in args
    assert "--proxy-bypass-list=.a.test;b.test" in args
    plain = chromium_args(LocalOptions(), tmp_path, as_root=False)
    assert not any(arg.startswith("--proxy") for arg in plain)


@pytest.mark.browser
async def test_pages_load_through_the_proxy_except_bypassed_hosts(proxy: RecordingProxy) -> None:
    async with tabwarden.launch(
        isolated=True, proxy_server=proxy.url, proxy_bypass="bypassed.test"
    ) as browser:
        tab = await browser.new_tab("http://proxied.test/page")
        assert tab.title == "From the proxy"
        assert "http://proxied.test/page" in proxy.requests
        # A bypassed host is looked up directly: .test names do not resolve.
        with pytest.raises(NavigationFailed, match="ERR_NAME_NOT_RESOLVED"):
            await tab.navigate("http://bypassed.test/")
        assert not any("bypassed.test" in url for url in proxy.requests)
