"""Fakes of cloud browser providers' HTTP APIs on 127.0.0.1, handing out a real browser.

Each speaks its provider's documented API: the paths, the auth header, the JSON bodies and
the status codes (docs/backends.md names the documentation). The browser it hands out is a
real Chromium the tests launched (often behind ``cdp_proxy.CDPProxy``, which acts like the
provider's CDP gateway): ``cdp_url(session_id)`` says where. Tests script what the API
answers next (``answer_next``: a 401, a 402, 429s with ``Retry-After``, a 5xx), hold
create calls until they let them go (``hold_creates``), and read what it saw (``calls``,
``created``, ``released``; ``wait_released`` waits for a release with a deadline).

Plain code on a real socket: a threading HTTP server from the standard library.
"""

from __future__ import annotations

import http.server
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["API_KEYS", "Answer", "Call", "FakeProviderAPI"]

API_KEYS = {
    "browserbase": "bb_live_fake0123456789abcdef",
    "browser-use": "bu_fake0123456789abcdef",
    "firecrawl": "fc-fake0123456789abcdef",
    "steel": "ste-fake0123456789abcdef",
}
"""The key each fake accepts (any other gets a 401)."""

SIGNING_KEY = (
    "eyJhbGciOiJIUzI1NiJ9.eyJzZXNzaW9uSWQiOiJmYWtlIiwiZXhwIjo0MTAyNDQ0ODAwfQ."
    "c2lnbmF0dXJlLW9mLXRoZS1mYWtl"
)
"""What the Browserbase fake puts in ``connectUrl`` (``?signingKey=``): a JWT, as its
gateway's is."""

_HOLD_MAX_S = 60.0


@dataclass(frozen=True)
class Answer:
    """An answer given instead of the normal one."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeProviderAPI:
    """One provider's API; see the module docstring."""

    def __init__(self, provider: str, cdp_url: Callable[[str], str]) -> None:
        if provider not in API_KEYS:
            raise ValueError(f"no fake for {provider!r}")
        self.provider = provider
        self.cdp_url = cdp_url
        self.calls: list[Call] = []
        self.created: list[str] = []
        self.released: list[str] = []
        self.hold_creates: threading.Event | None = None
        """When set to an Event, create calls wait until it is set, then answer."""
        self.create_held = threading.Event()
        """Set once a create call is being held."""
        self._next: list[Answer] = []
        self._ids = itertools.count(1)
        self._lock = threading.Condition()
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- life ----------------------------------------------------------------------

    def start(self) -> FakeProviderAPI:
        fake = self

        class Handler(_Handler):
            api = fake

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self.hold_creates is not None:
            self.hold_creates.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def origin(self) -> str:
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def api_url(self) -> str:
        """What ``cloud.api_url`` is for this provider (its base, as the real one's)."""
        prefix = {
            "browserbase": "",
            "browser-use": "/api/v2",
            "firecrawl": "/v2",
            "steel": "/v1",
        }[self.provider]
        return self.origin + prefix

    # ---- scripting and reading -----------------------------------------------------

    def answer_next(self, *answers: Answer) -> None:
        """The next calls (create or release) get these answers, in order."""
        with self._lock:
            self._next.extend(answers)

    def wait_released(self, session_id: str, timeout_s: float = 15.0) -> bool:
        """True once ``session_id`` was released (waits at most ``timeout_s``)."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while session_id not in self.released:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def wait_created(self, count: int, timeout_s: float = 15.0) -> bool:
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while len(self.created) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def calls_to(self, method: str, fragment: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method and fragment in c.path]

    # ---- the API -------------------------------------------------------------------

    def handle(self, method: str, path: str, headers: dict[str, str], body: Any) -> Answer:
        with self._lock:
            self.calls.append(Call(method, path, headers, body))
            scripted = self._next.pop(0) if self._next else None
        if not self._authorised(headers):
            return Answer(401, {"message": "Unauthorized: invalid API key"})
        if scripted is not None:
            return scripted
        route = _ROUTES[self.provider]
        if method == "POST" and path == route.create:
            return self._create(body)
        if self.provider == "browserbase" and method == "GET" and path.endswith("/debug"):
            return self._debug(path.removeprefix(route.sessions).removesuffix("/debug"))
        if method == route.release_method and path.startswith(route.sessions):
            rest = path[len(route.sessions) :].strip("/")
            session_id = rest.removesuffix("/release") if route.release_suffix else rest
            if route.release_suffix and not rest.endswith("/release"):
                return Answer(404, {"message": "not found"})
            if route.release_body is not None and body != {**route.release_body, **_extra(body)}:
                return Answer(400, {"message": f"unexpected body {body!r}"})
            return self._release(session_id)
        return Answer(404, {"message": f"no route {method} {path}"})

    def _authorised(self, headers: dict[str, str]) -> bool:
        key = API_KEYS[self.provider]
        given = {
            "browserbase": headers.get("x-bb-api-key"),
            "browser-use": headers.get("x-browser-use-api-key"),
            "firecrawl": headers.get("authorization", "").removeprefix("Bearer "),
            "steel": headers.get("steel-api-key"),
        }[self.provider]
        return given == key

    def _create(self, body: Any) -> Answer:
        if not isinstance(body, dict):
            return Answer(400, {"message": "the body must be a JSON object"})
        if self.hold_creates is not None:
            self.create_held.set()
            self.hold_creates.wait(_HOLD_MAX_S)  # held until the test lets it go
        session_id = f"{self.provider}-{next(self._ids)}"
        ws = self.cdp_url(session_id)
        live = f"{self.origin}/live/{session_id}"
        answer: dict[str, Any]
        if self.provider == "browserbase":
            answer = {
                "id": session_id,
                "status": "RUNNING",
                "projectId": body.get("projectId", "inferred-project"),
                "connectUrl": f"{ws}?signingKey={SIGNING_KEY}",
                "region": body.get("region", "us-west-2"),
            }
            status = 201
        elif self.provider == "browser-use":
            answer = {"id": session_id, "status": "active", "cdpUrl": ws, "liveUrl": live}
            status = 201
        elif self.provider == "firecrawl":
            answer = {"success": True, "id": session_id, "cdpUrl": ws, "liveViewUrl": live}
            status = 200
        else:
            answer = {
                "id": session_id,
                "status": "live",
                "websocketUrl": f"{ws}?sessionId={session_id}",
                "sessionViewerUrl": live,
            }
            status = 200
        with self._lock:
            self.created.append(session_id)
            self._lock.notify_all()
        return Answer(status, answer)

    def _debug(self, session_id: str) -> Answer:
        """Browserbase's Session Live URLs."""
        if session_id not in self.created:
            return Answer(404, {"message": f"no session {session_id}"})
        live = f"{self.origin}/live/{session_id}"
        return Answer(
            200,
            {
                "debuggerUrl": live,
                "debuggerFullscreenUrl": live + "?fullscreen=1",
                "wsUrl": f"wss://connect.example?sessionId={session_id}",
                "pages": [],
            },
        )

    def _release(self, session_id: str) -> Answer:
        with self._lock:
            if session_id not in self.created:
                return Answer(404, {"message": f"no session {session_id}"})
            if session_id not in self.released:
                self.released.append(session_id)
            self._lock.notify_all()
        if self.provider == "browserbase":
            return Answer(200, {"id": session_id, "status": "COMPLETED"})
        if self.provider == "browser-use":
            return Answer(200, {"id": session_id, "status": "stopped"})
        return Answer(200, {"success": True})


@dataclass(frozen=True)
class _Route:
    create: str
    sessions: str
    release_method: str
    release_suffix: bool = False
    release_body: dict[str, Any] | None = None


_ROUTES = {
    "browserbase": _Route(
        "/v1/sessions", "/v1/sessions/", "POST", release_body={"status": "REQUEST_RELEASE"}
    ),
    "browser-use": _Route(
        "/api/v2/browsers", "/api/v2/browsers/", "PATCH", release_body={"action": "stop"}
    ),
    "firecrawl": _Route("/v2/browser", "/v2/browser/", "DELETE"),
    "steel": _Route("/v1/sessions", "/v1/sessions/", "POST", release_suffix=True),
}


def _extra(body: Any) -> dict[str, Any]:
    """Fields a release body may carry besides the required ones (Browserbase's projectId)."""
    return {k: v for k, v in body.items() if k == "projectId"} if isinstance(body, dict) else {}


class _Handler(http.server.BaseHTTPRequestHandler):
    api: FakeProviderAPI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            answer = self.api.handle(self.command, self.path, headers, body)
        except Exception as exc:  # a fake's bug shows as a 500 the test will name
            answer = Answer(500, {"message": f"fake failed: {exc!r}"})
        data = b"" if answer.body is None else json.dumps(answer.body).encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
