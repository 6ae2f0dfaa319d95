"""One open workbench page: its WebSocket, what it watches, and what the person does.

A viewer either lists the sessions (with thumbnails) or watches one session and one of
its tabs. It subscribes to the sessions' activity (pushed by the parts that know it),
sends the live view's frames only while it watches a tab (latest wins: a slow page
skips frames, it never queues them), and carries the person's answers and input back
through the same paths the agent's calls use.

Everything sent about a session passes through that session's redactor first.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from starlette.websockets import WebSocket, WebSocketDisconnect

from ...activity import ActivityEvent, CallRecord, Subscription, acting_person
from ...budget import Budget
from ...errors import InvalidArgument, SessionNotFound, TabwardenError
from ...screencast import FrameFeed
from ...tasks import TaskOwner
from .consent import ConsentDesk
from .live import InputForwarder, LiveFrame, open_feed, still_frame, thumbnail
from .source import WatchedSession, WatchedTab
from .views import session_summary, session_view, tabs_view

__all__ = ["Viewer", "ViewerHost"]

logger = logging.getLogger("tabwarden.workbench")

_CALL_S = 30.0
"""Bound on a person's request (navigate, answer a dialog, read storage)."""
_INPUT_S = 5.0
_SUMMARY_DELAY_S = 0.25
"""Session cards are sent at most this often (several events make one update)."""
_THUMBNAIL_EVERY_S = 2.0
_DEFER_S = 0.25
"""The longest a page's frames and events wait for an agent's action to end."""
_STILL_AFTER_S = 1.0
"""A watched tab that sends no frame this long at first, or after an agent's call, is
captured once (a still page's start frame can be lost to a change of its viewport, and
it paints no other; a screencast restarted after a call may send none)."""
_SHOWN_WAIT_S = 1.0
"""A page that does not say it showed a frame gets the next one after this anyway."""
_ENVELOPE = ("type", "session", "tab", "watching", "active")
"""Keys of a message that name what it is about (never a secret, never redacted)."""
_LIST_EVENTS = frozenset(
    {"call", "call_started", "dialog_opened", "dialog_closed", "tabs", "person", "closed", "load"}
)
_TAB_EVENTS = frozenset({"console", "network", "snapshot", "load"})
"""Events about one tab: sent only for the tab watched."""


class ViewerHost(Protocol):
    """What a viewer asks of the workbench that serves it (``Workbench`` is one)."""

    @property
    def consent(self) -> ConsentDesk: ...

    def sessions(self) -> list[WatchedSession]: ...

    def session(self, name: str) -> WatchedSession: ...


class Viewer:
    """One WebSocket client of the workbench; ``run()`` serves it until it leaves."""

    def __init__(self, bench: ViewerHost, socket: WebSocket, number: int) -> None:
        self.bench = bench
        self.number = number
        self._socket = socket
        self._tasks = TaskOwner(f"workbench viewer {number}")
        self._out: list[str] = []
        self._frame: str | None = None
        self._wake_writer = asyncio.Event()
        self._wake_events = asyncio.Event()
        self._subscriptions: dict[str, Subscription] = {}
        self.mode = "list"
        self.session: WatchedSession | None = None
        self.tab: WatchedTab | None = None
        self.overlay = True
        self._feed: FrameFeed | None = None
        self._forwarder: InputForwarder | None = None
        self._shown = asyncio.Event()
        self._awaiting = 0
        self._inputs: list[tuple[Any, dict[str, Any]]] = []
        self._input_ready = asyncio.Event()
        self._follow = True
        """Watching whichever tab is active (the page asked for no tab in particular)."""
        self._feed_task: asyncio.Task[None] | None = None
        self._summary_pending: asyncio.TimerHandle | None = None
        self._thumbnails_at: dict[str, float] = {}
        self._takeover: CallRecord | None = None
        self._closed = False

    @property
    def label(self) -> str:
        return f"workbench viewer {self.number}"

    # ---- life ------------------------------------------------------------------------

    async def run(self) -> None:
        await self._socket.accept()
        consent = [question.to_dict() for question in self.bench.consent.open_questions()]
        hello = {"type": "hello", "version": 1, "sessions": self._summaries()}
        self.send({**hello, "consent": consent})
        self._subscribe_all()
        self._tasks.spawn(self._write_forever(), f"{self.label} writer")
        self._tasks.spawn(self._pump_events(), f"{self.label} events")
        self._tasks.spawn(self._forward_inputs(), f"{self.label} input")
        try:
            while True:
                text = await self._socket.receive_text()
                await self._handle_text(text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await self.close()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._hand_back()
        self._stop_feed()
        for subscription in self._subscriptions.values():
            subscription.close()
        self._subscriptions.clear()
        if self._summary_pending is not None:
            self._summary_pending.cancel()
        await self._tasks.close()
        with contextlib.suppress(Exception):
            await self._socket.close()

    # ---- sending ---------------------------------------------------------------------

    def send(self, message: dict[str, Any], session: WatchedSession | None = None) -> None:
        """Queue a message (redacted by ``session``'s redactor when it is about one)."""
        if self._closed:
            return
        if session is not None:
            # The envelope names things (the session, a tab): only the payload is redacted.
            envelope = {key: message[key] for key in _ENVELOPE if key in message}
            message = {**session.redactor.redact_value(message), **envelope}
        self._out.append(json.dumps(message, ensure_ascii=False, default=str))
        self._wake_writer.set()

    def _send_frame(self, tab_id: str, frame: LiveFrame) -> None:
        # Written by hand: the image is base64 already (no escaping), and a frame is large.
        self._frame = (
            f'{{"type":"frame","tab":{json.dumps(tab_id)},"seq":{frame.seq},'
            f'"meta":{json.dumps(frame.meta)},"data":"{frame.data}"}}'
        )  # the newest replaces one not yet sent
        self._wake_writer.set()

    async def _write_forever(self) -> None:
        while True:
            await self._wake_writer.wait()
            self._wake_writer.clear()
            while self._out:
                await self._socket.send_text(self._out.pop(0))
            frame, self._frame = self._frame, None
            if frame is not None:
                await self._socket.send_text(frame)

    # ---- events of the sessions ------------------------------------------------------

    def _subscribe_all(self) -> None:
        wanted = (
            {s.name: s for s in self.bench.sessions()}
            if self.mode == "list"
            else ({self.session.name: self.session} if self.session is not None else {})
        )
        for name in list(self._subscriptions):
            if name not in wanted:
                self._subscriptions.pop(name).close()
        for name, session in wanted.items():
            if name not in self._subscriptions:
                self._subscriptions[name] = session.activity.subscribe(wake=self._wake_events)

    def sessions_changed(self) -> None:
        """A session started or closed (the workbench tells every viewer)."""
        if self.mode == "list":
            self._subscribe_all()
            self.send({"type": "sessions", "sessions": self._summaries()})
            self._refresh_thumbnails()

    async def _pump_events(self) -> None:
        while True:
            await self._wake_events.wait()
            if self.session is not None:
                # Drawn after the agent's action, not during it: the page's work would
                # compete with the action for the machine.
                await self.session.activity.until_agent_idle(_DEFER_S)
            self._wake_events.clear()
            for name, subscription in list(self._subscriptions.items()):
                for event in subscription.ready():
                    self._on_event(name, event)

    def _on_event(self, name: str, event: ActivityEvent) -> None:
        if self.mode == "list":
            if event.kind in _LIST_EVENTS:
                self._summary_soon()
                if event.kind == "call":
                    self._refresh_thumbnails(name)
            return
        session = self.session
        if session is None or session.name != name:
            return
        watched = self.tab.id if self.tab is not None else None
        kind, data = event.kind, event.data
        if kind in _TAB_EVENTS and event.tab_id != watched:
            return
        if kind == "snapshot":
            if self.overlay:
                self.send({"type": "snapshot", **data}, session)
        elif kind == "tabs":
            self.send({"type": "tabs", **tabs_view(session)}, session)
            active = session.active_tab
            if self.tab is None or self.tab.closed or (self._follow and active is not self.tab):
                self._watch_tab(active)
        elif kind == "person":
            self.send({"type": "person", "tab": watched, "taken_over": data["taken_over"]})
        elif kind == "closed":
            self._stop_feed()
            self.send({"type": "closed", "session": name, "reason": data.get("reason", "")})
        else:
            self.send({"type": kind, **data}, session)

    def _summaries(self) -> list[dict[str, Any]]:
        return [
            session.redactor.redact_value(session_summary(session))
            for session in self.bench.sessions()
        ]

    def _summary_soon(self) -> None:
        if self._summary_pending is None:
            loop = asyncio.get_running_loop()
            self._summary_pending = loop.call_later(_SUMMARY_DELAY_S, self._send_summary)

    def _send_summary(self) -> None:
        self._summary_pending = None
        if self.mode == "list":
            self.send({"type": "sessions", "sessions": self._summaries()})

    def _refresh_thumbnails(self, only: str | None = None) -> None:
        loop = asyncio.get_running_loop()
        for session in self.bench.sessions():
            if only is not None and session.name != only:
                continue
            last = self._thumbnails_at.get(session.name, -_THUMBNAIL_EVERY_S)
            if loop.time() - last < _THUMBNAIL_EVERY_S:
                continue
            self._thumbnails_at[session.name] = loop.time()
            self._tasks.spawn(self._thumbnail(session), f"{self.label} thumbnail")

    async def _thumbnail(self, session: WatchedSession) -> None:
        tab = session.active_tab
        if tab is None or tab.closed:
            return
        try:
            data = await thumbnail(tab, Budget(_INPUT_S))
        except TabwardenError as exc:
            logger.debug("no thumbnail of %s: %s", session.name, exc)
            return
        self.send({"type": "thumbnail", "session": session.name, "data": data})

    # ---- watching a session and a tab ------------------------------------------------

    def _watch(self, session: WatchedSession, tab_id: str | None) -> None:
        self.mode = "session"
        self.session = session
        self._subscribe_all()
        tab = session.get_tab(tab_id) if tab_id else session.active_tab
        self._follow = tab_id is None
        self._watch_tab(tab, announce=False)
        view = session_view(session, self.tab)
        view["taken_over"] = session.activity.person_in_control is not None
        view["consent"] = [q.to_dict() for q in self.bench.consent.open_questions()]
        self.send({"type": "session", **view}, session)

    def _watch_tab(self, tab: WatchedTab | None, *, announce: bool = True) -> None:
        if tab is self.tab and self._feed is not None:
            return
        self._stop_feed()
        self.tab = tab if tab is not None and not tab.closed else None
        if self.tab is None:
            return
        if announce and self.session is not None:
            view = session_view(self.session, self.tab)
            self.send({"type": "session", **view}, self.session)
        self._feed_task = self._tasks.spawn(
            self._frames(self.tab), f"{self.label} frames {self.tab.id}"
        )

    def _stop_feed(self) -> None:
        if self._feed_task is not None:
            self._feed_task.cancel()
            self._feed_task = None
        if self._feed is not None:
            self._feed.close()
            self._feed = None

    async def _frames(self, tab: WatchedTab) -> None:
        try:
            feed = await open_feed(tab, Budget(_INPUT_S))
        except TabwardenError as exc:
            self.send({"type": "error", "message": exc.message, "hint": exc.hint})
            return
        if self._feed_task is not asyncio.current_task():
            feed.close()  # another tab was picked meanwhile
            return
        self._feed = feed
        activity = self.session.activity if self.session is not None else None
        first = True
        shown_after = activity.last_call if activity is not None else None
        while not tab.closed and not feed.closed:
            if activity is not None:
                await activity.until_agent_idle(_DEFER_S)  # see _pump_events
            # After an agent's call, the view must show its outcome: a screencast paused
            # for the call and started again sends a frame of its own, but one that does
            # not (a loaded machine, a page that stopped painting) is made up for by a
            # still capture.
            acted = activity is not None and activity.last_call is not shown_after
            try:
                # Waits a second at a time, so a call that ends meanwhile is noticed.
                got = await feed.next(Budget(_STILL_AFTER_S))
            except TabwardenError:
                return  # the tab went away, or the feed was closed
            if got is None and not (first or acted):
                continue  # nothing repainted (a background tab paints nothing)
            if activity is not None:
                shown_after = activity.last_call
            frame = await self._still(tab) if got is None else LiveFrame.of(got)
            first = False
            if frame is None:
                continue
            self._shown.clear()
            self._awaiting = frame.seq
            self._send_frame(tab.id, frame)
            # Flow control: the next frame (the newest by then) goes once the page has
            # shown this one, so frames never queue in the socket or the page.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._shown.wait(), _SHOWN_WAIT_S)

    async def _still(self, tab: WatchedTab) -> LiveFrame | None:
        """A still page whose screencast sent nothing yet: what it shows, captured once."""
        try:
            return await still_frame(tab, Budget(_INPUT_S))
        except TabwardenError as exc:
            logger.debug("no still frame of tab %s: %s", tab.id, exc)
            return None

    def _unwatch(self) -> None:
        self._hand_back()
        self._stop_feed()
        self.mode, self.session, self.tab = "list", None, None
        self._subscribe_all()
        self.send({"type": "sessions", "sessions": self._summaries()})
        self._refresh_thumbnails()

    # ---- taking over -----------------------------------------------------------------

    def _take_over(self) -> None:
        session = self._watched()
        session.activity.take_over(self.label)
        self._takeover = CallRecord(
            tool="take_over", args={}, by="person", tab_id=self.tab.id if self.tab else None
        )
        session.activity.call_started(self._takeover)

    def _hand_back(self) -> None:
        session, record = self.session, self._takeover
        self._takeover = None
        if session is None or record is None:
            return
        if session.activity.person_in_control == self.label:
            session.activity.hand_back()
        kinds = sorted({str(mark.get("name")) for mark in record.marks})
        record.finish(ok=True, text=f"the person handed back ({', '.join(kinds) or 'no input'})")
        session.activity.call_ended(record)

    async def _input(self, event: dict[str, Any]) -> None:
        session, tab, record = self._watched(), self.tab, self._takeover
        if record is None or session.activity.person_in_control != self.label:
            raise InvalidArgument(
                "input is taken only while this page is in control",
                hint="press Take over first",
            )
        if tab is None or tab.closed:
            raise InvalidArgument("no tab is shown", hint="pick a tab")
        if self._forwarder is None or self._forwarder.tab is not tab:
            self._forwarder = InputForwarder(tab)
        done = await self._forwarder.forward(event, Budget(_INPUT_S))
        if done is not None:
            record.marks.append({"tab": tab.id, **done})
            session.activity.publish("action", {"call": record.id, "tab": tab.id, **done}, tab.id)

    async def _forward_inputs(self) -> None:
        while True:
            await self._input_ready.wait()
            self._input_ready.clear()
            while self._inputs:
                request_id, message = self._inputs.pop(0)
                await self._answer(request_id, self._on_input, message)

    # ---- what the page asks ----------------------------------------------------------

    async def _handle_text(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            self.send({"type": "error", "message": "not JSON", "hint": "send JSON objects"})
            return
        if not isinstance(message, dict):
            self.send({"type": "error", "message": "not an object", "hint": "send JSON objects"})
            return
        kind = message.get("type")
        handler = self._handlers().get(str(kind))
        request_id = message.get("id")
        if handler is None:
            self._reply_error(request_id, InvalidArgument(f"unknown message type {kind!r}"))
            return
        if kind == "shown":
            await handler(message)  # frequent, quick, answered by nothing
            return
        if kind == "input":
            # In order, on a task of their own: a slow one (a tab in the background, an
            # agent's action holding the input lock) never holds up the page's other
            # requests, hand back among them.
            self._inputs.append((request_id, message))
            self._input_ready.set()
            return
        self._tasks.spawn(self._answer(request_id, handler, message), f"{self.label} {kind}")

    async def _answer(
        self,
        request_id: Any,
        handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]],
        message: dict[str, Any],
    ) -> None:
        token = acting_person.set(True)
        try:
            result = await handler(message)
        except TabwardenError as exc:
            self._reply_error(request_id, exc)
            return
        except Exception as exc:  # a page's request must never end the viewer
            logger.exception("workbench request %s failed", message.get("type"))
            self._reply_error(request_id, TabwardenError(f"{type(exc).__name__}: {exc}"))
            return
        finally:
            acting_person.reset(token)
        if request_id is not None:
            self.send({"type": "reply", "id": request_id, "ok": True, "result": result or {}})

    def _reply_error(self, request_id: Any, exc: TabwardenError) -> None:
        error = {"message": exc.message, "hint": exc.hint}
        if request_id is None:
            self.send({"type": "error", **error})
        else:
            self.send({"type": "reply", "id": request_id, "ok": False, "error": error})

    def _handlers(
        self,
    ) -> dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]]:
        return {
            "list": self._on_list,
            "watch": self._on_watch,
            "unwatch": self._on_unwatch,
            "shown": self._on_shown,
            "overlay": self._on_overlay,
            "dialog": self._on_dialog,
            "takeover": self._on_takeover,
            "input": self._on_input,
            "navigate": self._on_navigate,
            "switch_tab": self._on_switch_tab,
            "close_tab": self._on_close_tab,
            "consent": self._on_consent,
            "network_detail": self._on_network_detail,
            "storage": self._on_storage,
            "save_screenshot": self._on_save_screenshot,
        }

    def _watched(self) -> WatchedSession:
        if self.session is None or self.session.closed:
            raise SessionNotFound("no session is open in this page", hint="pick a session")
        return self.session

    def _watched_tab(self) -> WatchedTab:
        if self.tab is None or self.tab.closed:
            raise InvalidArgument("no tab is shown", hint="pick a tab")
        return self.tab

    async def _on_list(self, message: dict[str, Any]) -> dict[str, Any] | None:
        self._unwatch()
        return None

    async def _on_watch(self, message: dict[str, Any]) -> dict[str, Any] | None:
        session = self.bench.session(str(message.get("session", "")))
        tab_id = message.get("tab")
        if self.session is not session:
            self._hand_back()
        self._watch(session, str(tab_id) if tab_id else None)
        return {"session": session.name, "tab": self.tab.id if self.tab else None}

    async def _on_unwatch(self, message: dict[str, Any]) -> dict[str, Any] | None:
        self._unwatch()
        return None

    async def _on_shown(self, message: dict[str, Any]) -> dict[str, Any] | None:
        seq = message.get("seq")
        if self._feed is not None and isinstance(seq, int):
            self._feed.shown(seq)
            if seq >= self._awaiting:
                self._shown.set()
        return None

    async def _on_overlay(self, message: dict[str, Any]) -> dict[str, Any] | None:
        self.overlay = bool(message.get("on", True))
        if self.overlay and self.session is not None and self.tab is not None:
            boxes = self.session.activity.boxes_of(self.tab.id)
            if boxes is not None:
                self.send({"type": "snapshot", **boxes}, self.session)
        return None

    async def _on_dialog(self, message: dict[str, Any]) -> dict[str, Any] | None:
        session = self._watched()
        action = message.get("action")
        if action not in ("accept", "dismiss"):
            raise InvalidArgument(
                f"action={action!r} is not a dialog answer", hint="accept or dismiss"
            )
        prompt = message.get("prompt_text")
        closed = await session.answer_pending_dialog(
            accept=action == "accept",
            prompt_text=str(prompt) if prompt is not None else None,
            dialog_id=str(message.get("dialog_id") or "") or None,
            budget=Budget(_CALL_S),
            closed_by="user",
        )
        return closed.to_dict()

    async def _on_takeover(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if message.get("on"):
            self._take_over()
        else:
            self._hand_back()
        return {"taken_over": self._takeover is not None}

    async def _on_input(self, message: dict[str, Any]) -> dict[str, Any] | None:
        event = message.get("event")
        if not isinstance(event, dict):
            raise InvalidArgument("input needs an event object", hint="see the protocol")
        await self._input(event)
        return None

    async def _on_navigate(self, message: dict[str, Any]) -> dict[str, Any] | None:
        session, tab = self._watched(), self._watched_tab()
        action = message.get("action")
        record = CallRecord(tool=f"person {action}", args={"url": message.get("url")}, by="person")
        record.tab_id = tab.id
        session.activity.call_started(record)
        try:
            if action == "back":
                result = await tab.back(timeout_ms=_CALL_S * 1000)
            elif action == "forward":
                result = await tab.forward(timeout_ms=_CALL_S * 1000)
            elif action == "reload":
                result = await tab.reload(timeout_ms=_CALL_S * 1000)
            elif action == "go":
                result = await tab.navigate(
                    str(message.get("url") or ""), timeout_ms=_CALL_S * 1000
                )
            else:
                raise InvalidArgument(
                    f"action={action!r} is not a navigation", hint="back, forward, reload or go"
                )
        except TabwardenError as exc:
            record.finish(ok=False, error={"message": exc.message, "hint": exc.hint})
            session.activity.call_ended(record)
            raise
        record.finish(ok=True, text=str(result))
        session.activity.call_ended(record)
        return {"url": result.url, "status": result.status}

    async def _on_switch_tab(self, message: dict[str, Any]) -> dict[str, Any] | None:
        session = self._watched()
        tab = await session.switch_tab(str(message.get("tab", "")), timeout_ms=_CALL_S * 1000)
        self._follow = True  # the tab picked is the active one now
        self._watch_tab(tab)
        return {"tab": tab.id}

    async def _on_close_tab(self, message: dict[str, Any]) -> dict[str, Any] | None:
        session = self._watched()
        await session.close_tab(str(message.get("tab", "")), timeout_ms=_CALL_S * 1000)
        return None

    async def _on_consent(self, message: dict[str, Any]) -> dict[str, Any] | None:
        taken = self.bench.consent.answer(
            str(message.get("request_id", "")), bool(message.get("allow"))
        )
        if not taken:
            raise InvalidArgument(
                "that attach request is no longer open", hint="it was answered or timed out"
            )
        return None

    async def _on_network_detail(self, message: dict[str, Any]) -> dict[str, Any] | None:
        session = self._watched()
        tab = session.get_tab(str(message.get("tab") or self._watched_tab().id))
        report = await tab.network(
            request_id=str(message.get("request_id", "")), timeout_ms=_CALL_S * 1000
        )
        return session.redactor.redact_value(report.to_dict())  # type: ignore[no-any-return]

    async def _on_storage(self, message: dict[str, Any]) -> dict[str, Any] | None:
        session, tab = self._watched(), self._watched_tab()
        cookies = await tab.storage("get", "cookies", timeout_ms=_CALL_S * 1000)
        local = await tab.storage("get", "local", timeout_ms=_CALL_S * 1000)
        result = {"cookies": cookies.to_dict(), "local_storage": local.to_dict()}
        return session.redactor.redact_value(result)  # type: ignore[no-any-return]

    async def _on_save_screenshot(self, message: dict[str, Any]) -> dict[str, Any] | None:
        session = self._watched()
        try:
            data = base64.b64decode(str(message.get("png", "")), validate=True)
        except (binascii.Error, ValueError):
            raise InvalidArgument(
                "png must be a base64 PNG image", hint="send the canvas as PNG"
            ) from None
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise InvalidArgument(
                "png is not a PNG image", hint="send canvas.toDataURL('image/png')"
            )
        path = session.paths.output_path("screenshots", None, suffix=".png", stem="workbench")
        path.write_bytes(data)
        note = str(message.get("note") or "")
        if note:
            path.with_suffix(".txt").write_text(note + "\n", encoding="utf-8")
        return {"path": str(path)}
