"""The console log of a browser session: messages of every level, uncaught exceptions and
browser notices (``Log.entryAdded``) of each tab, OOPIFs included, in a bounded ring per tab.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from ..cdp.connection import CDPConnection
from ..cdp.protocol import ANY_SESSION, Event, Subscription
from ..counting import counted
from ..errors import InvalidArgument
from ..name_lists import split_names
from ..report_text import ReportText
from .journal import Journal

if TYPE_CHECKING:
    from ..page import Page
    from ..services import SessionServices

__all__ = [
    "CONSOLE_LEVELS",
    "ConsoleEntry",
    "ConsoleLog",
    "ConsoleReport",
    "ConsoleStore",
    "console_kind",
    "parse_levels",
    "stack_of",
    "watched_entry",
]

CONSOLE_LEVELS = ("debug", "log", "info", "warning", "error", "exception")
"""Levels, least severe first; ``exception`` is an uncaught exception."""

Since = Literal["all", "last_read"]

# Console API types (console.assert, console.trace…) may be asked for by name too.
_TYPES = frozenset(
    {
        "assert",
        "clear",
        "count",
        "dir",
        "dirxml",
        "endGroup",
        "startGroup",
        "startGroupCollapsed",
        "table",
        "timeEnd",
        "trace",
    }
)
_ALIASES = {"warn": "warning", "verbose": "debug"}
_LEVEL_OF_TYPE = {
    "error": "error",
    "assert": "error",
    "warning": "warning",
    "info": "info",
    "debug": "debug",
}
_LOG_LEVELS = {"verbose": "debug", "info": "info", "warning": "warning", "error": "error"}
_MAX_TEXT = 2_000
_MAX_STACK = 5
_SHOWN_TEXT = 300
_FORMAT = re.compile(r"%[sdifoOc]")


@dataclass(frozen=True, slots=True)
class ConsoleEntry:
    """One console message, uncaught exception or browser notice."""

    level: str
    """debug, log, info, warning, error or exception."""
    text: str
    url: str
    line: int
    """1-based; 0 when unknown."""
    tab_id: str
    at: float
    """Wall-clock time (seconds since the epoch)."""
    column: int = 0
    """1-based; 0 when unknown."""
    type: str = ""
    """The console call (log, assert, trace…), ``exception``, or the browser's source of a
    notice (network, security, violation…)."""
    source: Literal["console", "exception", "browser"] = "console"
    frame_id: str = ""
    stack: tuple[str, ...] = ()
    """The top of the call stack, innermost first (``fn (url:line:col)``)."""

    @property
    def where(self) -> str:
        if not self.url:
            return ""
        if self.line <= 0:
            return self.url
        return f"{self.url}:{self.line}" + (f":{self.column}" if self.column > 0 else "")

    def line_text(self) -> str:
        """One line for a listing (multi-line messages keep their first line)."""
        first, _, more = self.text.partition("\n")
        if len(first) > _SHOWN_TEXT:
            first = first[: _SHOWN_TEXT - 1] + "…"
        elif more:
            first += " …"
        label = (
            self.level if self.type in ("", self.level, "log") else f"{self.level} ({self.type})"
        )
        where = f" — {self.where}" if self.where else ""
        return f"{label}: {first}{where}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "type": self.type,
            "source": self.source,
            "text": self.text,
            "url": self.url,
            "line": self.line,
            "column": self.column,
            "tab_id": self.tab_id,
            "frame_id": self.frame_id,
            "at": self.at,
            "stack": list(self.stack),
        }


@dataclass(frozen=True)
class ConsoleReport:
    """What a console read returns: the entries and how much the ring held and dropped."""

    tab_id: str
    entries: tuple[ConsoleEntry, ...]
    matched: int
    """Entries that matched the filter (``entries`` holds the newest ``max_entries``)."""
    since: Since
    levels: tuple[str, ...] | None
    size: int
    capacity: int
    dropped: int
    """Entries the ring pushed out since the tab opened."""
    missed: int
    """With ``since="last_read"``: new entries dropped before this read could see them."""
    cleared: bool
    main_frame: str

    @property
    def text(self) -> ReportText:
        scope = " since the last read" if self.since == "last_read" else ""
        which = f" ({', '.join(self.levels)})" if self.levels else ""
        head = f"console of tab {self.tab_id}{which}{scope}: "
        if self.matched:
            head += f"showing {len(self.entries)} of {self.matched}"
        else:
            head += "no entries"
        notes = [f"ring holds {self.size} of {self.capacity}"]
        if self.dropped:
            notes.append(f"{self.dropped} dropped")
        if self.missed:
            verb = "was" if self.missed == 1 else "were"
            notes.append(f"{counted(self.missed, 'unread entry', 'unread entries')} {verb} dropped")
        if self.cleared:
            notes.append("cleared after reading")
        lines = [f"{head} ({', '.join(notes)})"]
        for entry in self.entries:
            frame = (
                f" [frame {entry.frame_id}]"
                if entry.frame_id and entry.frame_id != self.main_frame
                else ""
            )
            lines.append(f"- {entry.line_text()}{frame}")
            if entry.source == "exception" or entry.type == "trace":
                lines += [f"    at {call}" for call in entry.stack[:3]]
        return ReportText("\n".join(lines))

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "tab_id": self.tab_id,
            "entries": [e.to_dict() for e in self.entries],
            "matched": self.matched,
            "since": self.since,
            "levels": list(self.levels) if self.levels else None,
            "size": self.size,
            "capacity": self.capacity,
            "dropped": self.dropped,
            "missed": self.missed,
            "cleared": self.cleared,
        }


def console_kind(method: str) -> tuple[str, str]:
    """A console call's (level, type) from its method name (``warn`` → warning)."""
    kind = _ALIASES.get(method, method)
    return _LEVEL_OF_TYPE.get(kind, "log"), kind


def parse_levels(level: str | Iterable[str] | None) -> tuple[str, ...] | None:
    """``"error"``, ``"warning,error"`` or a list → level and type names (checked)."""
    if level is None:
        return None
    out: list[str] = []
    names = split_names(level)
    for raw in names:
        if not isinstance(raw, str):
            raise InvalidArgument(f"level must be a name or a list of names, got {raw!r}")
        name = _ALIASES.get(raw.strip(), raw.strip())
        if name not in CONSOLE_LEVELS and name not in _TYPES:
            raise InvalidArgument(
                f"level={raw!r} is not a console level",
                hint=f"use {', '.join(CONSOLE_LEVELS)} (error includes uncaught exceptions), "
                f"or a console call such as assert or trace",
            )
        if name not in out:
            out.append(name)
    return tuple(out) or None


def _matches(entry: ConsoleEntry, levels: tuple[str, ...] | None) -> bool:
    if levels is None:
        return True
    for name in levels:
        if name == entry.level or name == entry.type:
            return True
        if name == "error" and entry.level == "exception":
            return True
    return False


def _same_call(a: ConsoleEntry, b: ConsoleEntry) -> bool:
    """One message reported twice: same instant, same kind, same place."""
    return (a.at, a.type, a.url, a.line, a.column) == (b.at, b.type, b.url, b.line, b.column)


def _is_page_error(entry: ConsoleEntry) -> bool:
    """An error the page made: failed loads are counted by the network summary instead."""
    return entry.level in ("error", "exception") and not (
        entry.source == "browser" and entry.type == "network"
    )


class ConsoleStore:
    """Console entries per tab, each tab's in a ring of ``capacity`` entries: what both
    engines keep (Chromium's ``ConsoleLog`` fills it from CDP's events, Firefox's session
    from BiDi's ``log.entryAdded``) and read the same way."""

    def __init__(
        self,
        capacity: int,
        on_added: Callable[[str, int, ConsoleEntry], None] | None = None,
    ) -> None:
        self._capacity = capacity
        self._on_added = on_added
        self._journals: dict[str, Journal[ConsoleEntry]] = {}
        self._latest: dict[str, float] = {}
        """Per tab, the newest entry's time: an older one may be a replay."""
        self._lock = threading.Lock()

    def forget(self, tab_id: str) -> None:
        with self._lock:
            self._journals.pop(tab_id, None)
            self._latest.pop(tab_id, None)

    def forget_all(self) -> None:
        with self._lock:
            self._journals.clear()
            self._latest.clear()

    def read(
        self,
        tab_id: str,
        main_frame: str,
        *,
        level: str | Iterable[str] | None = None,
        since: str = "all",
        clear: bool = False,
        max_entries: int = 50,
    ) -> ConsoleReport:
        """The tab's entries (newest ``max_entries`` of those matching); marks them read."""
        levels = parse_levels(level)
        if since not in ("all", "last_read"):
            raise InvalidArgument(
                f"since={since!r} is not a choice", hint="use 'all' or 'last_read'"
            )
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise InvalidArgument(
                f"max_entries must be a positive whole number, got {max_entries!r}"
            )
        journal = self._journal(tab_id)
        last_read = since == "last_read"
        missed = journal.missed("read") if last_read else 0
        held = journal.entries(after="read" if last_read else None)
        matched = [entry for _, entry in held if _matches(entry, levels)]
        journal.mark("read")
        stats = journal.statistics()
        if clear:
            journal.clear()
        return ConsoleReport(
            tab_id=tab_id,
            entries=tuple(matched[-max_entries:]),
            matched=len(matched),
            since="last_read" if last_read else "all",
            levels=levels,
            size=stats.size,
            capacity=stats.capacity,
            dropped=stats.dropped,
            missed=missed,
            cleared=clear,
            main_frame=main_frame,
        )

    def errors(self, tab_id: str | None = None, limit: int = 50) -> tuple[ConsoleEntry, ...]:
        """The newest errors and uncaught exceptions (of ``tab_id``, or of every tab)."""
        with self._lock:
            if tab_id is None:
                journals = list(self._journals.values())
            else:
                journals = [self._journals[tab_id]] if tab_id in self._journals else []
        found = [
            entry
            for journal in journals
            for _, entry in journal.entries()
            if entry.level in ("error", "exception")
        ]
        found.sort(key=lambda entry: entry.at)
        return tuple(found[-limit:])

    def summary(self, tab_id: str) -> str:
        """``console: 2 errors since last snapshot`` (empty when none); marks them seen."""
        journal = self._journal(tab_id)
        new = [entry for _, entry in journal.entries(after="snapshot") if _is_page_error(entry)]
        journal.mark("snapshot")
        if not new:
            return ""
        uncaught = sum(entry.level == "exception" for entry in new)
        detail = f" ({uncaught} uncaught)" if uncaught else ""
        return f"console: {counted(len(new), 'error')}{detail} since last snapshot"

    def add(self, tab_id: str, entry: ConsoleEntry) -> None:
        journal = self._journal(tab_id)
        latest = self._latest.get(tab_id, 0.0)
        if entry.at <= latest and any(_same_call(held, entry) for _, held in journal.entries()):
            # Reported again: enabling Runtime or Log on a session (a reconnect) replays
            # the messages the page already logged (objects then come without previews).
            return
        self._latest[tab_id] = max(latest, entry.at)
        number = journal.append(entry)
        if self._on_added is not None:
            self._on_added(tab_id, number, entry)

    def entries(self, tab_id: str) -> list[dict[str, Any]]:
        """A tab's messages held now, oldest first, as watchers get them."""
        return [watched_entry(n, entry) for n, entry in self._journal(tab_id).entries()]

    def held(self, tab_id: str) -> list[ConsoleEntry]:
        """What the tab's log holds now, oldest first, without marking anything read."""
        return [entry for _, entry in self._journal(tab_id).entries()]

    def _journal(self, tab_id: str) -> Journal[ConsoleEntry]:
        with self._lock:
            journal = self._journals.get(tab_id)
            if journal is None:
                journal = self._journals[tab_id] = Journal(self._capacity)
            return journal


class ConsoleLog:
    """A Chromium session's console: CDP's console, exception and log events of every
    session of the connection, kept per tab in a ``ConsoleStore``."""

    def __init__(self, services: SessionServices, capacity: int) -> None:
        self._services = services
        self.store = ConsoleStore(capacity, self._published)

    # ---- life ----------------------------------------------------------------------

    def attach(self, connection: CDPConnection) -> list[Subscription]:
        """Listen on every session of ``connection`` (pages and OOPIFs alike)."""
        return [
            connection.subscribe(method, handler, ANY_SESSION)
            for method, handler in (
                ("Runtime.consoleAPICalled", self._on_console),
                ("Runtime.exceptionThrown", self._on_exception),
                ("Log.entryAdded", self._on_log_entry),
            )
        ]

    def forget(self, tab_id: str) -> None:
        self.store.forget(tab_id)

    def forget_all(self) -> None:
        self.store.forget_all()

    # ---- reading -------------------------------------------------------------------

    def read(
        self,
        tab: Page,
        *,
        level: str | Iterable[str] | None = None,
        since: str = "all",
        clear: bool = False,
        max_entries: int = 50,
    ) -> ConsoleReport:
        """The tab's entries (newest ``max_entries`` of those matching); marks them read."""
        return self.store.read(
            tab.id, tab.target_id, level=level, since=since, clear=clear, max_entries=max_entries
        )

    def errors(self, tab: Page | None = None, limit: int = 50) -> tuple[ConsoleEntry, ...]:
        """The newest errors and uncaught exceptions (of ``tab``, or of every tab)."""
        return self.store.errors(None if tab is None else tab.id, limit)

    def summary(self, tab: Page) -> str:
        """``console: 2 errors since last snapshot`` (empty when none); marks them seen."""
        return self.store.summary(tab.id)

    def entries(self, tab_id: str) -> list[dict[str, Any]]:
        """A tab's messages held now, oldest first, as watchers get them."""
        return self.store.entries(tab_id)

    # ---- event handlers (on the reader: never await) --------------------------------

    def _on_console(self, event: Event) -> None:
        owner = self._services.pages.of_session(event.session_id)
        kind = str(event.params.get("type", "log"))
        if owner is None or kind == "endGroup":
            return
        tab, frame_id = owner
        params = event.params
        calls = params.get("stackTrace", {}).get("callFrames") or []
        top = calls[0] if calls else {}
        text = format_args(params.get("args", []))
        if kind == "assert" and not text:
            text = "console.assert"
        keep_stack = kind in ("trace", "error", "assert")
        self._add(
            tab,
            ConsoleEntry(
                level=_LEVEL_OF_TYPE.get(kind, "log"),
                type=kind,
                source="console",
                text=text[:_MAX_TEXT],
                url=str(top.get("url", "")),
                line=int(top.get("lineNumber", -1)) + 1,
                column=int(top.get("columnNumber", -1)) + 1,
                tab_id=tab.id,
                frame_id=_frame_of(tab, event.session_id, params.get("executionContextId"))
                or frame_id,
                at=_seconds(params.get("timestamp")),
                stack=stack_of(calls) if keep_stack else (),
            ),
        )

    def _on_exception(self, event: Event) -> None:
        owner = self._services.pages.of_session(event.session_id)
        if owner is None:
            return
        tab, frame_id = owner
        details = event.params.get("exceptionDetails", {})
        calls = details.get("stackTrace", {}).get("callFrames") or []
        thrown = details.get("exception")
        prefix = str(details.get("text", "Uncaught"))
        if isinstance(thrown, dict):
            message = (
                str(thrown["description"]).split("\n", 1)[0]
                if thrown.get("description") and thrown.get("type") == "object"
                else describe(thrown)
            )
            text = f"{prefix} {message}" if message and message not in prefix else prefix
        else:
            text = prefix
        stack = stack_of(calls)
        if not stack and isinstance(thrown, dict):
            stack = _stack_from_description(str(thrown.get("description", "")))
        url = str(details.get("url") or (calls[0].get("url", "") if calls else ""))
        self._add(
            tab,
            ConsoleEntry(
                level="exception",
                type="exception",
                source="exception",
                text=text[:_MAX_TEXT],
                url=url,
                line=int(details.get("lineNumber", -1)) + 1,
                column=int(details.get("columnNumber", -1)) + 1,
                tab_id=tab.id,
                frame_id=_frame_of(tab, event.session_id, details.get("executionContextId"))
                or frame_id,
                at=_seconds(event.params.get("timestamp")),
                stack=stack,
            ),
        )

    def _on_log_entry(self, event: Event) -> None:
        owner = self._services.pages.of_session(event.session_id)
        if owner is None:
            return
        tab, frame_id = owner
        entry = event.params.get("entry", {})
        if entry.get("source") == "network" and _is_favicon(str(entry.get("url", ""))):
            return  # the browser asks every page for one; a missing favicon is noise
        calls = entry.get("stackTrace", {}).get("callFrames") or []
        self._add(
            tab,
            ConsoleEntry(
                level=_LOG_LEVELS.get(str(entry.get("level", "")), "info"),
                type=str(entry.get("source", "other")),
                source="browser",
                text=str(entry.get("text", ""))[:_MAX_TEXT],
                url=str(entry.get("url", "")),
                line=int(entry.get("lineNumber", -1)) + 1,
                tab_id=tab.id,
                frame_id=frame_id,
                at=_seconds(entry.get("timestamp")),
                stack=stack_of(calls),
            ),
        )

    # ---- private -------------------------------------------------------------------

    def _add(self, tab: Page, entry: ConsoleEntry) -> None:
        self.store.add(tab.id, entry)

    def _published(self, tab_id: str, number: int, entry: ConsoleEntry) -> None:
        activity = self._services.activity
        if activity.watched:
            activity.publish(
                "console", {"tab": tab_id, "entry": watched_entry(number, entry)}, tab_id
            )


def watched_entry(number: int, entry: ConsoleEntry) -> dict[str, Any]:
    """A message as a watcher (the workbench) shows it."""
    data = entry.to_dict()
    data.update(n=number)
    return data


# ---- rendering console arguments ---------------------------------------------------


def format_args(args: list[dict[str, Any]]) -> str:
    """Console arguments as DevTools prints them (``%s``/``%d``/``%o``/``%c`` applied)."""
    if not args:
        return ""
    first = args[0]
    if first.get("type") != "string" or len(args) == 1:
        return " ".join(describe(arg) for arg in args)
    rest = list(args[1:])

    def substitute(match: re.Match[str]) -> str:
        if not rest:
            return match.group()
        arg = rest.pop(0)
        spec = match.group()
        if spec == "%c":
            return ""  # CSS for the message: nothing to show
        if spec in ("%d", "%i"):
            return _number(arg, whole=True)
        if spec == "%f":
            return _number(arg, whole=False)
        return describe(arg)

    head = _FORMAT.sub(substitute, str(first.get("value", "")))
    return " ".join([head, *(describe(arg) for arg in rest)])


def describe(arg: dict[str, Any]) -> str:
    """One remote object, briefly: strings as they are, objects by their preview."""
    kind = arg.get("type")
    if "unserializableValue" in arg:
        return str(arg["unserializableValue"])
    if kind == "string":
        return str(arg.get("value", ""))
    if kind == "undefined":
        return "undefined"
    if kind == "boolean":
        return "true" if arg.get("value") else "false"
    if kind == "number":
        return str(arg.get("description", arg.get("value", "")))
    if kind == "object" and arg.get("subtype") == "null":
        return "null"
    preview = arg.get("preview")
    if kind == "object" and arg.get("subtype") in (None, "array") and isinstance(preview, dict):
        return _preview(preview)
    return str(arg.get("description", kind or ""))


def _preview(preview: dict[str, Any]) -> str:
    properties = preview.get("properties") or []
    more = ", …" if preview.get("overflow") else ""
    if preview.get("subtype") == "array":
        return "[" + ", ".join(_preview_value(p) for p in properties) + more + "]"
    inner = ", ".join(f"{p.get('name', '')}: {_preview_value(p)}" for p in properties)
    return "{" + inner + more + "}"


def _preview_value(prop: dict[str, Any]) -> str:
    value = str(prop.get("value", prop.get("type", "")))
    return f"'{value}'" if prop.get("type") == "string" else value


def _number(arg: dict[str, Any], *, whole: bool) -> str:
    try:
        value = float(arg.get("value", "nan"))
    except (TypeError, ValueError):
        return "NaN"
    if value != value or value in (float("inf"), float("-inf")):
        return "NaN" if value != value else str(value)
    return str(int(value)) if whole else str(value)


def stack_of(calls: list[dict[str, Any]]) -> tuple[str, ...]:
    out = []
    for call in calls[:_MAX_STACK]:
        name = call.get("functionName") or "(anonymous)"
        where = f"{call.get('url', '')}:{int(call.get('lineNumber', -1)) + 1}"
        where += f":{int(call.get('columnNumber', -1)) + 1}"
        out.append(f"{name} ({where})")
    return tuple(out)


def _stack_from_description(description: str) -> tuple[str, ...]:
    lines = [line.strip() for line in description.splitlines()[1:]]
    return tuple(line.removeprefix("at ") for line in lines if line.startswith("at "))[:_MAX_STACK]


def _frame_of(tab: Page, session_id: str | None, context_id: Any) -> str:
    """The frame whose JavaScript context sent a message (a same-origin iframe shares its
    parent's session, so the session alone does not say)."""
    registry = tab.attached_frames
    if registry is None or not isinstance(context_id, int):
        return ""
    for frame in registry.frames():
        if frame.session_id == session_id and registry.context_of(frame.frame_id) == context_id:
            return frame.frame_id
    return ""


def _is_favicon(url: str) -> bool:
    return urlsplit(url).path == "/favicon.ico"


def _seconds(timestamp_ms: Any) -> float:
    """CDP console timestamps are milliseconds since the epoch."""
    if isinstance(timestamp_ms, (int, float)) and timestamp_ms > 0:
        return float(timestamp_ms) / 1000
    return time.time()
