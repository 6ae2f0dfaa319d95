"""The WebDriver sessions this process holds on Selenium Grids.

Two jobs, process-wide: the client-side limit (``browser.grid.max_sessions`` per
Grid: one more start fails at once, saying so, instead of queueing behind this
process's own sessions), and deleting every session still open when the process
exits (atexit, SIGTERM/SIGHUP through the reaper; best effort, short timeouts), so
no Grid slot stays taken until the Grid's own idle timeout.
"""

from __future__ import annotations

import logging
import threading
import time

from ..calls import call
from ..counting import counted
from .grid_http import GridError, GridFull, grid_request
from .reaper import reaper

__all__ = ["EXIT_DELETE_S", "WATCH_S", "GridLedger", "SessionWatch", "delete_session", "ledger"]

logger = logging.getLogger("tabwarden.backends")

EXIT_DELETE_S = 3.0
"""How long exiting waits for the Grid to delete the sessions left open, in all."""
WATCH_S = 2.0
"""How often a held session is checked (a WebDriver command that needs no page)."""
_WATCH_REQUEST_S = 10.0
_GONE_ERRORS = ("invalid session id", "no such session")


def delete_session(grid_url: str, session_id: str, timeout_s: float) -> bool:
    """``DELETE /session/<id>``: True when the Grid let it go (or no longer knew it)."""
    try:
        reply = grid_request("DELETE", grid_url, f"/session/{session_id}", timeout_s)
    except (GridError, TimeoutError) as exc:
        logger.warning("could not delete Grid session %s at %s: %s", session_id, grid_url, exc)
        return False
    # 404: the Grid already ended it (its idle timeout, a node that went away).
    return reply.ok or reply.status == 404


class SessionWatch:
    """Asks the Grid every :data:`WATCH_S` whether a session still has its browser.

    The Grid's CDP proxy keeps tabwarden's socket open when the browser behind it dies
    (a crash, a node that went away, the Grid's idle timeout): the socket cannot tell,
    the Grid's WebDriver side can (``invalid session id``). ``gone`` says so; the
    session then starts a new browser on its next call. Stopped by the backend's close.
    """

    def __init__(self, grid_url: str, session_id: str) -> None:
        self.gone: str | None = None
        """How the browser ended (a phrase after "the browser"), once the Grid says so."""
        self._grid_url = grid_url
        self._session_id = session_id
        self._stopped = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"tabwarden-grid-watch-{session_id[:8]}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def _run(self) -> None:
        path = f"/session/{self._session_id}/window/handles"
        while not self._stopped.wait(WATCH_S):
            try:
                reply = grid_request("GET", self._grid_url, path, _WATCH_REQUEST_S)
            except (GridError, TimeoutError):
                continue  # no answer says nothing of the browser (its socket will, if lost)
            if reply.error in _GONE_ERRORS or (
                reply.status == 404 and "unable to find session" in reply.text.lower()
            ):
                self.gone = f"went away on its Grid node (the Grid says: {reply.message})"
                return


class GridLedger:
    """Claims (sessions started or starting) per Grid, and the sessions open on each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claims: dict[str, int] = {}
        self._open: dict[tuple[str, str], None] = {}

    def claim(self, grid_url: str, limit: int) -> None:
        """Take one of this process's ``limit`` places on the Grid, or fail at once."""
        with self._lock:
            held = self._claims.get(grid_url, 0)
            if held >= limit:
                raise GridFull(
                    f"this process is busy with the Grid at {grid_url}: it holds "
                    f"{counted(held, 'session')} there already, as many as "
                    f"browser.grid.max_sessions ({limit}) allows",
                    hint=f"close a session first ({call('close')}), or raise "
                    "browser.grid.max_sessions (the Grid must have the slots too)",
                )
            self._claims[grid_url] = held + 1

    def release(self, grid_url: str) -> None:
        with self._lock:
            held = self._claims.get(grid_url, 0) - 1
            if held > 0:
                self._claims[grid_url] = held
            else:
                self._claims.pop(grid_url, None)

    def held(self, grid_url: str) -> int:
        with self._lock:
            return self._claims.get(grid_url, 0)

    def opened(self, grid_url: str, session_id: str) -> None:
        with self._lock:
            self._open[(grid_url, session_id)] = None
        reaper.add_exit_action(self.delete_all)

    def closed(self, grid_url: str, session_id: str) -> None:
        with self._lock:
            self._open.pop((grid_url, session_id), None)

    def open_sessions(self) -> list[tuple[str, str]]:
        with self._lock:
            return list(self._open)

    def delete_all(self) -> None:
        """Delete every session still open, in parallel, within :data:`EXIT_DELETE_S`."""
        with self._lock:
            sessions, self._open = list(self._open), {}
        threads = [
            threading.Thread(
                target=delete_session,
                args=(grid_url, session_id, EXIT_DELETE_S),
                name=f"tabwarden-grid-delete-{session_id[:8]}",
                daemon=True,
            )
            for grid_url, session_id in sessions
        ]
        deadline = time.monotonic() + EXIT_DELETE_S
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(deadline - time.monotonic(), 0.0))


ledger = GridLedger()
