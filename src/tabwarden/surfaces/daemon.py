"""The CLI daemon: one background process per named session keeps its browser alive.

Every ``tabwarden <tool>`` invocation is a short-lived client; the browser, its tabs
and their refs live in a daemon that the first invocation starts and that exits by
itself after being idle.

Where: a per-user runtime folder, ``platformdirs.user_runtime_dir("tabwarden")`` or
``$TABWARDEN_RUNTIME_DIR``, created with mode 0700. For a session ``NAME`` it holds

* ``NAME.sock`` — the daemon's Unix socket (mode 0600), removed when it exits;
* ``NAME.lock`` — flock()ed by the daemon for its whole life (holds its pid): a free
  lock means no daemon, so a socket file next to it is stale;
* ``NAME.start-lock`` — flock()ed by a client while it starts the daemon, so two
  clients never start two daemons;
* ``NAME.log`` — the daemon's output (appended to by each start; over 1 MiB it is moved
  to ``NAME.log.1`` first);
* ``NAME.ended`` — left by a daemon that served tool calls, as it exits (mode 0600, JSON):
  why and when it ended. The session's next daemon takes it as it starts and tells its
  first tool call (the result's notice, or the error's message), once: the old browser,
  its tabs and refs are gone. That call runs in the new browser;
* ``NAME.refused`` — left by a daemon refused at start (``browser.max_daemons``), for
  the client that started it to raise SessionLimitReached with its words;
* ``.daemons.lock`` — flock()ed while a starting daemon counts the running ones, so
  that no more than ``browser.max_daemons`` run at once (0: no limit).

Protocol: newline-delimited JSON, one object per line, over the socket. Requests:

* ``{"tool": "browser_navigate", "arguments": {...}}`` → ``{"ok": true, "result":
  {...}}`` where ``result`` is ``ToolResult.to_dict()`` plus ``"image_data": [{"mime_type":
  "image/png", "data": <base64>}]`` (not ``images``: get_images' data uses that key).
  A tool request may also carry ``"secrets_file": <path>``: that file's secrets are
  redacted from then on, for the daemon's life;
* ``{"op": "status"}`` → ``{"ok": true, "result": {"running": true, "pid", "session",
  "uptime_s", "idle_s", "idle_timeout_s", "tabs", "browser_pid", "profile_dir",
  "requests", "in_flight", "socket"}}``;
* ``{"op": "stop"}`` → ``{"ok": true, "result": {"stopping": true, "pid": …}}``, then the
  daemon closes its browser and exits.

Failures: ``{"ok": false, "error": {"type": <class name>, "message": str, "hint": str}}``.
A request may carry an ``"id"``, echoed in its response; requests of one connection are
served concurrently (answers in completion order) and so are connections.

The daemon serves every tool (all groups; ``browser_evaluate`` unless configuration turns
it off) in one :class:`~tabwarden.tools.context.ToolContext` named after the session, whose
surface is the command line: calls named in results and errors are commands to run
(``tabwarden close-tab --tab-id t2``).
At most ``browser.max_daemons`` daemons run at once for one user (one runtime
folder): one more is refused at start with SessionLimitReached, naming the running ones
and how to stop one.
It exits after ``idle_timeout_s`` without a tool call (default 300 s,
``$TABWARDEN_DAEMON_IDLE_S``; 0 = never), on ``{"op": "stop"}`` and on SIGTERM, SIGINT or
SIGHUP, closing its browser first (no orphan process, no temporary profile).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import fcntl
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import platformdirs

from ..budget import Budget
from ..config import Config, load_config
from ..counting import counted
from ..errors import (
    DaemonNotRunning,
    DaemonUnreachable,
    DeadlineExceeded,
    InvalidArgument,
    RemoteError,
    SessionLimitReached,
    TabwardenError,
)
from ..manager import SessionManager
from ..safety.redaction import Redactor, install_log_redaction, process_redactor
from ..tools.context import ToolContext
from ..tools.registry import call_tool, select_tools
from ..tools.spec import GROUPS, ToolResult
from .workbench_directory import register, unregister

if TYPE_CHECKING:
    from .workbench import Workbench

__all__ = [
    "DEFAULT_IDLE_S",
    "IDLE_ENV",
    "RUNTIME_ENV",
    "Daemon",
    "daemon_names",
    "daemon_running",
    "encode_result",
    "ended_names",
    "idle_timeout_from_env",
    "last_end",
    "run_daemon",
    "runtime_dir",
    "send",
    "socket_path",
    "status",
    "stop",
    "unwrap",
]

logger = logging.getLogger("tabwarden.daemon")

RUNTIME_ENV = "TABWARDEN_RUNTIME_DIR"
IDLE_ENV = "TABWARDEN_DAEMON_IDLE_S"
DEFAULT_IDLE_S = 300.0

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_LINE_LIMIT = 64 * 1024 * 1024  # a full-page screenshot in base64 fits
_SOCKET_PATH_MAX = 107  # sun_path is 108 bytes on Linux, with the final NUL
_POLL_S = 0.02
_START_TIMEOUT_S = 30.0
_LOCK_WAIT_S = 15.0
_STOP_WAIT_S = 30.0
_STATUS_TABS_MS = 2000
_LOG_TAIL_CHARS = 1500
_LOG_KEEP_BYTES = 1 << 20
_CENSUS = ".daemons.lock"
_NAMES_SHOWN = 10


# ---- places --------------------------------------------------------------------------


def runtime_dir(*, create: bool = False) -> Path:
    """The per-user folder of the daemons' sockets, locks and logs (0700 when created)."""
    configured = os.environ.get(RUNTIME_ENV)
    if configured:
        path = Path(configured).expanduser()
    else:
        with warnings.catch_warnings():  # "XDG_RUNTIME_DIR is not set, falling back to…"
            warnings.simplefilter("ignore")
            path = Path(platformdirs.user_runtime_dir("tabwarden", appauthor=False))
    if create:
        _make_private_dir(path)
    return path


def socket_path(name: str, root: Path | None = None) -> Path:
    return (root or runtime_dir()) / f"{name}.sock"


def daemon_names(root: Path | None = None) -> list[str]:
    """Sessions with a socket or lock file in the runtime folder (some may be stale)."""
    folder = root or runtime_dir()
    if not folder.is_dir():
        return []
    names = {p.stem for pattern in ("*.sock", "*.lock") for p in folder.glob(pattern)}
    return sorted(name for name in names if _NAME.match(name))


def ended_names(root: Path | None = None) -> list[str]:
    """Sessions whose last daemon ended and left its record, not yet read by a new one."""
    folder = root or runtime_dir()
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.ended") if _NAME.match(p.stem))


def idle_timeout_from_env() -> float:
    raw = os.environ.get(IDLE_ENV, "").strip()
    if not raw:
        return DEFAULT_IDLE_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise InvalidArgument(
            f"{IDLE_ENV}={raw!r} is not a number of seconds",
            hint="set it to 0 (never exit when idle) or a positive number",
        )
    return value


def _check_name(name: str) -> None:
    if not _NAME.match(name):
        raise InvalidArgument(
            f"session name {name!r} is not valid",
            hint="use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        )


def _make_private_dir(path: Path) -> None:
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
        if info.st_uid != os.getuid():
            raise DaemonUnreachable(
                f"the runtime folder {path} belongs to another user",
                hint=f"point ${RUNTIME_ENV} at a folder of your own",
            )
        if info.st_mode & 0o077:
            path.chmod(0o700)
    except OSError as exc:
        raise DaemonUnreachable(
            f"cannot prepare the runtime folder {path}: {exc.strerror}",
            hint=f"point ${RUNTIME_ENV} at a writable folder",
        ) from None


def _check_socket_path(path: Path) -> None:
    if len(os.fsencode(path)) > _SOCKET_PATH_MAX:
        raise DaemonUnreachable(
            f"the socket path {path} is too long for a Unix socket",
            hint=f"point ${RUNTIME_ENV} at a shorter folder",
        )


# ---- locks -----------------------------------------------------------------------------


class _FileLock:
    """An exclusive flock() on a file, taken by polling until a deadline."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def acquire(self, budget: Budget, what: str) -> None:
        while not self.try_acquire():
            if budget.expired:
                raise DaemonUnreachable(
                    f"{what}: {self.path.name} stayed locked for {budget.timeout_s:.0f} s",
                    hint="another tabwarden process holds it; retry, or stop that daemon",
                )
            time.sleep(min(_POLL_S, budget.remaining()))

    def write(self, text: str) -> None:
        assert self._fd is not None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, text.encode(), 0)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing drops the flock


def _lock_path(name: str, root: Path) -> Path:
    return root / f"{name}.lock"


def daemon_running(name: str, root: Path | None = None) -> bool:
    """Whether a daemon process holds this session's lock (starting, serving or stopping)."""
    folder = root or runtime_dir()
    path = _lock_path(name, folder)
    if not path.exists():
        return False
    lock = _FileLock(path)
    if lock.try_acquire():
        lock.release()
        return False
    return True


def _daemon_pid(name: str, root: Path) -> int | None:
    try:
        return int(_lock_path(name, root).read_text().strip() or "0") or None
    except (OSError, ValueError):
        return None


# ---- records: why a daemon ended, why one was refused ------------------------------------


def _ended_path(name: str, root: Path) -> Path:
    return root / f"{name}.ended"


def _refused_path(name: str, root: Path) -> Path:
    return root / f"{name}.refused"


def _write_private(path: Path, data: dict[str, Any]) -> None:
    """``data`` as JSON in ``path`` (mode 0600), replaced whole: a reader never sees half."""
    part = path.with_name(path.name + ".part")
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        part.replace(path)
    except OSError as exc:
        logger.warning("cannot write %s: %s", path, exc.strerror or exc)
        part.unlink(missing_ok=True)


def _read_record(path: Path, *, take: bool) -> dict[str, Any] | None:
    """The JSON record in ``path``, removed when ``take`` (None when there is none, or it
    is unreadable)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    if take:
        path.unlink(missing_ok=True)
    try:
        record = json.loads(text)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _take_record(path: Path) -> dict[str, Any] | None:
    return _read_record(path, take=True)


def last_end(name: str, root: Path | None = None) -> dict[str, Any] | None:
    """How the session's last daemon ended (``session``, ``reason``, ``ended_at``,
    ``says``), while no daemon has read it yet; the record stays for the next daemon,
    which tells its first call."""
    _check_name(name)
    record = _read_record(_ended_path(name, root or runtime_dir()), take=False)
    if record is None:
        return None
    return {**record, "says": _ended_when_why(record)}


def _ended_notice(record: dict[str, Any]) -> str:
    """What a record of the session's previous daemon tells the next call."""
    name = str(record.get("session") or "?")
    return (
        f"the previous daemon of session {name} ended {_ended_when_why(record)}: its "
        "browser, tabs and refs are gone, and this command ran in a new browser; take a "
        "new snapshot before using refs"
    )


def _ended_when_why(record: dict[str, Any]) -> str:
    """``at <time> <why>`` of a daemon's end record."""
    ended_at = record.get("ended_at")
    when = (
        time.strftime("at %Y-%m-%d %H:%M:%S %Z ", time.localtime(ended_at))
        if isinstance(ended_at, (int, float))
        else ""
    )
    if record.get("reason") == "idle":
        timeout = record.get("idle_timeout_s")
        limit = f"{timeout:g} s" if isinstance(timeout, (int, float)) else "its idle timeout"
        why = f"after {limit} without a command (the daemon's idle timeout, ${IDLE_ENV})"
    else:
        why = f"({record.get('detail') or 'stopped'})"
    return f"{when}{why}"


# ---- the daemon --------------------------------------------------------------------------


def encode_result(result: ToolResult) -> dict[str, Any]:
    """A tool result as JSON: ``to_dict()`` plus its images in base64 (``image_data``)."""
    out = result.to_dict()
    out["image_data"] = [
        {"mime_type": image.mime_type, "data": base64.b64encode(image.data).decode("ascii")}
        for image in result.images
    ]
    return out


def _error_reply(
    exc: BaseException, hint: str = "", redactor: Redactor | None = None
) -> dict[str, Any]:
    if isinstance(exc, TabwardenError):
        message, hint = exc.message, exc.hint
    else:
        message = str(exc) or type(exc).__name__
    redactor = redactor or process_redactor()
    message, hint = redactor.redact_text(message), redactor.redact_text(hint)
    return {"ok": False, "error": {"type": type(exc).__name__, "message": message, "hint": hint}}


class Daemon:
    """Serves one session's tools on a Unix socket until idle, stopped or signalled."""

    def __init__(
        self,
        name: str,
        *,
        config: Config | None = None,
        idle_timeout_s: float | None = None,
        root: Path | None = None,
    ) -> None:
        _check_name(name)
        self.name = name
        self.root = root or runtime_dir(create=True)
        self.socket = socket_path(name, self.root)
        self.idle_timeout_s = idle_timeout_from_env() if idle_timeout_s is None else idle_timeout_s
        config = (config or load_config()).model_copy(deep=True)
        # The daemon's own idle timeout governs the browser's life: the manager must not
        # close the session under it (the tabs and refs would be lost between calls).
        config.browser.inactivity_timeout_s = 0
        self.config = config
        self.manager = SessionManager(config)
        self.ctx = ToolContext(self.manager, name, surface="cli")
        install_log_redaction()  # from the first line of its log on
        self.tools = select_tools(GROUPS, config)
        self.started = time.monotonic()
        self.last_active = self.started
        self.requests = 0
        self.in_flight = 0
        self.stop_reason = ""
        self.stopped_idle = False
        self._previous_end = ""
        """Said once, on the first tool call: the session's previous daemon ended."""
        self._stop = asyncio.Event()
        self._connections: set[asyncio.Task[None]] = set()
        self.workbench: Workbench | None = None
        """The workbench serving this daemon's session (``tabwarden workbench`` opens it)."""
        self._workbench_entry: Path | None = None

    # ---- life ----------------------------------------------------------------------

    def request_stop(self, reason: str) -> None:
        if not self._stop.is_set():
            self.stop_reason = reason
            logger.info("stopping: %s", reason)
            self._stop.set()

    def idle_s(self) -> float:
        return 0.0 if self.in_flight else time.monotonic() - self.last_active

    async def serve(self) -> None:
        """Listen until stopped; then remove the socket and close the browser."""
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(signum, self.request_stop, f"got {signal.Signals(signum).name}")
        _check_socket_path(self.socket)
        self.socket.unlink(missing_ok=True)  # we hold the session lock: any socket is stale
        old_umask = os.umask(0o177)
        try:
            server = await asyncio.start_unix_server(
                self._connection, path=str(self.socket), limit=_LINE_LIMIT
            )
        finally:
            os.umask(old_umask)
        self.socket.chmod(0o600)
        logger.info(
            "daemon %r (pid %d) listening on %s, idle timeout %s s",
            self.name,
            os.getpid(),
            self.socket,
            self.idle_timeout_s or "none",
        )
        record = _take_record(_ended_path(self.name, self.root))
        self._previous_end = _ended_notice(record) if record is not None else ""
        # In the background: tool calls are served while the workbench starts.
        starting = asyncio.create_task(self._start_workbench(), name="tabwarden-workbench-start")
        try:
            await self._wait_until_stopped()
        finally:
            server.close()
            self.socket.unlink(missing_ok=True)
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            starting.cancel()
            await asyncio.gather(starting, return_exceptions=True)
            await self._stop_workbench()
            await self.manager.close_all()
            self._leave_record()
            for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                loop.remove_signal_handler(signum)
            logger.info("daemon %r stopped (%s)", self.name, self.stop_reason or "done")

    def _leave_record(self) -> None:
        """Say why this daemon ended, for the session's next one (when a browser may have
        been lost: after any tool call)."""
        if not self.requests:
            return
        _write_private(
            _ended_path(self.name, self.root),
            {
                "session": self.name,
                "reason": "idle" if self.stopped_idle else "stopped",
                "detail": self.stop_reason or "stopped",
                "idle_timeout_s": self.idle_timeout_s,
                "ended_at": time.time(),
                "pid": os.getpid(),
            },
        )

    async def _start_workbench(self) -> None:
        """Serve the workbench for this daemon's session, when the configuration wants it
        (a failure to listen is logged: the tools work without it)."""
        if not self.config.workbench.enabled:
            return
        # Imported here: the command line imports this module for its client side, and
        # needs no web server to send a request.
        from .workbench import Workbench, WorkbenchOptions

        bench = Workbench(WorkbenchOptions.from_config(self.config.workbench))
        bench.watch_manager(self.manager)
        try:
            url = await bench.start()
        except TabwardenError as exc:
            logger.warning("no workbench: %s", exc)
            return
        self.workbench = bench
        self._workbench_entry = register(url, f"daemon {self.name}", root=self.root)
        logger.info("workbench at %s", bench.base_url)

    async def _stop_workbench(self) -> None:
        if self._workbench_entry is not None:
            unregister(self._workbench_entry)
            self._workbench_entry = None
        if self.workbench is not None:
            await self.workbench.close()
            self.workbench = None

    async def _wait_until_stopped(self) -> None:
        while not self._stop.is_set():
            wait_s: float | None = None
            if self.idle_timeout_s > 0:
                idle = self.idle_s()
                if self.in_flight == 0 and idle >= self.idle_timeout_s:
                    self.stopped_idle = True
                    self.request_stop(f"idle for {idle:.0f} s")
                    return
                wait_s = self.idle_timeout_s - idle if self.in_flight == 0 else self.idle_timeout_s
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait_s):
                    await self._stop.wait()

    # ---- requests ------------------------------------------------------------------

    async def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request → its reply (never raises, except on cancellation)."""
        try:
            if "op" in request:
                return await self._operation(request.get("op"))
            if "tool" in request:
                return await self._tool(request)
            raise InvalidArgument(
                "a request needs a tool or an op",
                hint='send {"tool": name, "arguments": {...}} or {"op": "status"|"stop"}',
            )
        except TabwardenError as exc:
            return _error_reply(exc, redactor=self._redactor())
        except Exception as exc:
            logger.exception("request %s failed", _describe(request))
            hint = f"an unexpected error in the daemon; see {self._log()}"
            return _error_reply(exc, hint, self._redactor())

    def _redactor(self) -> Redactor:
        try:
            return self.ctx.redactor
        except TabwardenError:  # an unreadable secrets file: the built-in patterns still
            return process_redactor()

    async def _operation(self, op: object) -> dict[str, Any]:
        if op == "status":
            return {"ok": True, "result": await self.status()}
        if op == "stop":
            return {"ok": True, "result": {"stopping": True, "pid": os.getpid()}}
        raise InvalidArgument(f"unknown op {op!r}", hint="use status or stop")

    async def _tool(self, request: dict[str, Any]) -> dict[str, Any]:
        name = request.get("tool")
        arguments = request.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise InvalidArgument(
                "tool must be a name and arguments an object",
                hint='send {"tool": "browser_snapshot", "arguments": {}}',
            )
        secrets_file = request.get("secrets_file")
        if secrets_file is not None:
            self.ctx.add_secrets_file(str(secrets_file))
        self.requests += 1
        self.in_flight += 1
        self.last_active = time.monotonic()
        previous_end, self._previous_end = self._previous_end, ""
        try:
            result = await call_tool(self.ctx, name, arguments, self.tools)
        except TabwardenError as exc:
            if previous_end:
                exc.message = f"{exc.message} — note: {previous_end}"
                exc.args = (exc.message, *exc.args[1:])
            raise
        finally:
            self.in_flight -= 1
            self.last_active = time.monotonic()
        if previous_end:
            notice = "\n".join(n for n in (previous_end, result.notice) if n)
            result = dataclasses.replace(result, notice=notice)
        return {"ok": True, "result": encode_result(result)}

    async def status(self) -> dict[str, Any]:
        tabs: int | None = None
        browser_pid: int | None = None
        profile: str | None = None
        if self.name in self.manager.names():
            session = self.manager.get(self.name)
            browser_pid = session.endpoint.pid if session.endpoint else None
            profile_dir = getattr(session.backend, "profile_dir", None)
            profile = str(profile_dir) if profile_dir is not None else None
            try:
                tabs = len(await session.tabs(timeout_ms=_STATUS_TABS_MS))
            except TabwardenError as exc:
                logger.info("status: cannot count tabs: %s", exc)
        return {
            "running": True,
            "session": self.name,
            "pid": os.getpid(),
            "uptime_s": round(time.monotonic() - self.started, 3),
            "idle_s": round(self.idle_s(), 3),
            "idle_timeout_s": self.idle_timeout_s,
            "tabs": tabs,
            "browser_pid": browser_pid,
            "profile_dir": profile,
            "requests": self.requests,
            "in_flight": self.in_flight,
            "socket": str(self.socket),
            "workbench": self.workbench.url if self.workbench is not None else None,
        }

    # ---- connections ---------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        pending: set[asyncio.Task[None]] = set()
        try:
            await self._read_requests(reader, writer, pending)
        except asyncio.CancelledError:
            if not self._stop.is_set():
                raise
            # The daemon is stopping: end quietly (a cancelled handler task would be
            # logged by asyncio as an error).
        finally:
            for answer in pending:
                answer.cancel()
            writer.close()
            self._connections.discard(task)

    async def _read_requests(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        pending: set[asyncio.Task[None]],
    ) -> None:
        write_lock = asyncio.Lock()
        while True:
            try:
                line = await reader.readline()
            except ValueError:  # a line over the limit
                reply = _error_reply(InvalidArgument("the request line is too long"))
                await self._reply(writer, write_lock, reply)
                break
            except ConnectionError:
                break
            if not line:
                break  # end of input: answer what was asked, then close
            if not line.strip():
                continue
            answer = asyncio.create_task(self._answer(line, writer, write_lock))
            pending.add(answer)
            answer.add_done_callback(pending.discard)
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        with contextlib.suppress(ConnectionError):
            await writer.drain()

    async def _answer(
        self, line: bytes, writer: asyncio.StreamWriter, write_lock: asyncio.Lock
    ) -> None:
        try:
            request = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            request = None
        if not isinstance(request, dict):
            reply = _error_reply(InvalidArgument("a request must be one JSON object on one line"))
            await self._reply(writer, write_lock, reply)
            return
        reply = await self.handle(request)
        if "id" in request:
            reply["id"] = request["id"]
        await self._reply(writer, write_lock, reply)
        if request.get("op") == "stop" and reply.get("ok"):
            self.request_stop("asked to stop")

    async def _reply(
        self, writer: asyncio.StreamWriter, write_lock: asyncio.Lock, reply: dict[str, Any]
    ) -> None:
        data = json.dumps(reply, ensure_ascii=False, default=str).encode() + b"\n"
        async with write_lock:
            try:
                writer.write(data)
                await writer.drain()
            except ConnectionError:
                logger.info("a client left before its answer")

    def _log(self) -> Path:
        return self.root / f"{self.name}.log"


def _describe(request: dict[str, Any]) -> str:
    return str(request.get("tool") or request.get("op") or "?")


def run_daemon(
    name: str,
    *,
    config: Config | None = None,
    idle_timeout_s: float | None = None,
) -> None:
    """Run the daemon of session ``name`` in the foreground until it stops."""
    _check_name(name)
    if idle_timeout_s is not None and idle_timeout_s < 0:
        raise InvalidArgument("the idle timeout must not be negative", hint="0 means never")
    root = runtime_dir(create=True)
    _check_socket_path(socket_path(name, root))
    config = config if config is not None else load_config()
    lock = _FileLock(_lock_path(name, root))
    try:
        _admit(lock, name, root, config.browser.max_daemons)
    except SessionLimitReached as exc:
        refusal = {"message": exc.message, "hint": exc.hint}
        _write_private(
            _refused_path(name, root), {**refusal, "open": exc.open_count, "limit": exc.limit}
        )
        raise
    try:
        lock.write(f"{os.getpid()}\n")
        daemon = Daemon(name, config=config, idle_timeout_s=idle_timeout_s, root=root)
        asyncio.run(daemon.serve())
    finally:
        lock.release()


def _admit(lock: _FileLock, name: str, root: Path, limit: int) -> None:
    """Take the session's lock, if fewer than ``limit`` other daemons run (0: no limit).

    Counted under the census lock, and the session lock is only ever taken under it: so
    every lock held while counting belongs to a daemon already admitted, and two daemons
    starting at once never both take the last place (nor refuse each other). A daemon of
    this session that is still stopping (closing its browser) holds the lock: waited for.
    """
    census = _FileLock(root / _CENSUS)
    budget = Budget(_LOCK_WAIT_S)
    while True:
        census.acquire(budget, "counting the running daemons")
        try:
            if lock.try_acquire():
                running = [n for n in daemon_names(root) if n != name and daemon_running(n, root)]
                if limit > 0 and len(running) >= limit:
                    lock.release()
                    raise _too_many_daemons(name, running, limit)
                return
        finally:
            census.release()
        if budget.expired:
            raise DaemonUnreachable(
                f"another daemon runs for session {name!r}: {lock.path.name} stayed locked "
                f"for {budget.timeout_s:.0f} s",
                hint="another tabwarden process holds it; retry, or stop that daemon",
            )
        time.sleep(min(_POLL_S, budget.remaining()))


def _too_many_daemons(name: str, running: list[str], limit: int) -> SessionLimitReached:
    shown = ", ".join(running[:_NAMES_SHOWN]) + (", …" if len(running) > _NAMES_SHOWN else "")
    return SessionLimitReached(
        f"no daemon for session {name!r}: {counted(len(running), 'daemon')} running, the limit for "
        f"this user (browser.max_daemons = {limit}): {shown}",
        open_count=len(running),
        limit=limit,
        hint=f"stop one with `tabwarden daemon stop --session {running[0]}` "
        "(`tabwarden daemon status` shows how long each has been idle; each exits by itself "
        f"after its idle timeout, ${IDLE_ENV}), or raise browser.max_daemons (0 = no limit)",
    )


# ---- the client ------------------------------------------------------------------------


def send(
    name: str,
    request: dict[str, Any],
    timeout_s: float,
    *,
    autostart: bool = True,
) -> dict[str, Any]:
    """Send one request to the session's daemon (started first if needed); its reply.

    ``timeout_s`` bounds the whole exchange: starting the daemon, connecting, the answer.
    Raises :class:`DaemonUnreachable` when the daemon cannot be started or reached
    (:class:`DaemonNotRunning` with ``autostart=False``) and :class:`DeadlineExceeded`
    when it does not answer in time.
    """
    _check_name(name)
    budget = Budget(timeout_s)
    root = runtime_dir(create=autostart)
    path = socket_path(name, root)
    _check_socket_path(path)
    sock = _connect(path)
    if sock is None:
        if not autostart:
            raise DaemonNotRunning(f"no daemon runs for session {name!r}")
        sock = _start_and_connect(name, root, budget.child(_START_TIMEOUT_S))
    with sock:
        try:
            sock.settimeout(max(budget.remaining(), 0.001))
            sock.sendall(json.dumps(request).encode() + b"\n")
        except TimeoutError:
            raise _no_answer(name, budget) from None
        except OSError as exc:
            raise DaemonUnreachable(
                f"cannot talk to the daemon of session {name!r}: {exc.strerror or exc}"
            ) from None
        line = _read_line(sock, name, budget)
    try:
        reply = json.loads(line)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        raise DaemonUnreachable(f"the daemon of session {name!r} sent a malformed answer")
    return reply


def status(name: str, timeout_s: float = 10.0) -> dict[str, Any]:
    """The daemon's status (``{"running": False, ...}`` when none runs); never starts one."""
    try:
        reply = send(name, {"op": "status"}, timeout_s, autostart=False)
    except DaemonNotRunning:
        ended = last_end(name)
        return {"running": False, "session": name, **({"ended": ended} if ended else {})}
    return unwrap(reply)


def stop(name: str, timeout_s: float = _STOP_WAIT_S) -> bool:
    """Stop the session's daemon and wait until it is gone (browser closed). False if
    none was running."""
    _check_name(name)
    root = runtime_dir()
    budget = Budget(timeout_s)
    try:
        unwrap(send(name, {"op": "stop"}, budget.remaining(), autostart=False))
    except DaemonUnreachable:
        # No socket, or it does not answer: a daemon may still hold the lock.
        pid = _daemon_pid(name, root)
        if not daemon_running(name, root) or pid is None:
            return False
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    while daemon_running(name, root):
        if budget.expired:
            raise DeadlineExceeded(
                f"the daemon of session {name!r} did not exit within {timeout_s:.0f} s",
                hint=f"see {root / (name + '.log')}; kill pid {_daemon_pid(name, root)}",
            )
        time.sleep(min(_POLL_S, budget.remaining()))
    return True


def unwrap(reply: dict[str, Any]) -> dict[str, Any]:
    """The reply's result, or its error raised as :class:`RemoteError`."""
    if reply.get("ok"):
        result = reply.get("result")
        return result if isinstance(result, dict) else {}
    error = reply.get("error")
    if not isinstance(error, dict):
        error = {}
    raise RemoteError(
        str(error.get("type") or "TabwardenError"),
        str(error.get("message") or "the daemon reported an error"),
        str(error.get("hint") or ""),
    )


def _connect(path: Path) -> socket.socket | None:
    """A connected socket, or None when nothing listens there."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(2.0)
        sock.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError, TimeoutError):
        sock.close()
        return None
    except OSError as exc:
        sock.close()
        raise DaemonUnreachable(f"cannot connect to {path}: {exc.strerror or exc}") from None
    return sock


def _start_and_connect(name: str, root: Path, budget: Budget) -> socket.socket:
    """Start the daemon (unless one is starting or stopping) and connect once it listens."""
    path = socket_path(name, root)
    spawn_lock = _FileLock(root / f"{name}.start-lock")
    spawn_lock.acquire(budget, f"starting the daemon of session {name!r}")
    try:
        process: subprocess.Popen[bytes] | None = None
        while True:
            sock = _connect(path)
            if sock is not None:
                return sock
            if not daemon_running(name, root):
                if process is None:
                    path.unlink(missing_ok=True)  # stale: nothing holds the session lock
                    _refused_path(name, root).unlink(missing_ok=True)
                    process = _spawn(name, root)
                elif process.poll() is not None:
                    refused = _take_record(_refused_path(name, root))
                    if refused is not None:
                        raise _refusal(refused)
                    raise DaemonUnreachable(
                        f"the daemon of session {name!r} exited at start "
                        f"(code {process.returncode})",
                        hint=_log_hint(root / f"{name}.log"),
                    )
            if budget.expired:
                raise DaemonUnreachable(
                    f"the daemon of session {name!r} did not accept connections within "
                    f"{budget.timeout_s:.0f} s",
                    hint=_log_hint(root / f"{name}.log"),
                )
            time.sleep(min(_POLL_S, budget.remaining()))
    finally:
        spawn_lock.release()


def _refusal(record: dict[str, Any]) -> SessionLimitReached:
    """The refusal a daemon left at start, raised in the client that started it."""
    message = str(record.get("message") or "no room for another daemon")
    hint = str(record.get("hint") or "") or None
    count, limit = record.get("open"), record.get("limit")
    return SessionLimitReached(
        message,
        open_count=count if isinstance(count, int) else 0,
        limit=limit if isinstance(limit, int) else 0,
        hint=hint,
    )


def _spawn(name: str, root: Path) -> subprocess.Popen[bytes]:
    log_path = root / f"{name}.log"
    with contextlib.suppress(OSError):
        if log_path.stat().st_size > _LOG_KEEP_BYTES:
            log_path.replace(log_path.with_suffix(".log.1"))  # one old log is kept
    command = [sys.executable, "-m", "tabwarden", "daemon", "run", "--session", name]
    with _open_log(log_path) as log:
        log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {command}\n".encode())
        log.flush()
        try:
            return subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # not killed with the shell or terminal of the client
                close_fds=True,
            )
        except OSError as exc:
            raise DaemonUnreachable(
                f"cannot start the daemon ({sys.executable}): {exc.strerror or exc}"
            ) from None


@contextlib.contextmanager
def _open_log(path: Path) -> Iterator[BinaryIO]:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "ab") as log:
        yield log


def _log_hint(path: Path) -> str:
    try:
        tail = path.read_text(errors="replace")[-_LOG_TAIL_CHARS:].strip()
    except OSError:
        tail = ""
    last = tail.splitlines()[-1] if tail else ""
    return f"see {path}" + (f"; it ends with: {last}" if last else "")


def _read_line(sock: socket.socket, name: str, budget: Budget) -> bytes:
    chunks: list[bytes] = []
    while True:
        remaining = budget.remaining()
        if remaining <= 0:
            raise _no_answer(name, budget)
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(1 << 20)
        except TimeoutError:
            raise _no_answer(name, budget) from None
        except OSError as exc:
            raise DaemonUnreachable(
                f"lost the connection to the daemon of session {name!r}: {exc.strerror or exc}",
            ) from None
        if not chunk:
            raise DaemonUnreachable(
                f"the daemon of session {name!r} closed the connection without an answer "
                "(it stopped or crashed)",
                hint=_log_hint(runtime_dir() / f"{name}.log"),
            )
        end = chunk.find(b"\n")
        if end >= 0:
            chunks.append(chunk[:end])
            return b"".join(chunks)
        chunks.append(chunk)


def _no_answer(name: str, budget: Budget) -> DeadlineExceeded:
    return DeadlineExceeded(
        f"the daemon of session {name!r} gave no answer within {budget.timeout_s:.1f} s",
        hint="give the call a larger --timeout-ms; `tabwarden daemon status` shows the daemon",
    )
