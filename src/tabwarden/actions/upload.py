"""Uploads: files into a file input, through the file chooser an element opens, or
dropped onto a drop zone.

What the ref names decides how:

* a file input, or a label of one: its files are set at once (``DOM.setFileInputFiles``);
  a hidden input needs no pointer;
* an element with a ``drop`` listener of its own (a drop zone): the files are dragged
  onto it as from the desktop (``Input.dispatchDragEvent`` with ``data.files``: trusted
  events, files read by the browser, so no size limit), once the page accepts them over
  it (its ``dragover`` handler cancels the event);
* anything else (a styled button whose script clicks a hidden or detached input): it is
  clicked with file choosers intercepted (``Page.setInterceptFileChooserDialog``, per
  target: the session rendering the element), and the chooser it opens
  (``Page.fileChooserOpened``: the input's backend node id, single or multiple) gets the
  files. No chooser within ``_CHOOSER_WAIT_S`` is an error that says what to use instead.

Every path goes through the workspace rules first (``safety/paths.py``), before anything
touches the page. The page sees ``input`` and ``change`` (or the drag events) as from a
real choice.
"""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..budget import Budget
from ..cdp.connection import EventQueue
from ..cdp.protocol import Event
from ..cdp.session import CDPSession
from ..errors import (
    ActionError,
    CDPError,
    DeadlineExceeded,
    InvalidArgument,
    NotActionable,
    TabwardenError,
)
from ..snapshot.walker import world
from . import pointer
from .resolve import Element, call_on, resolve

if TYPE_CHECKING:
    from ..page import Page
    from ..safety.paths import WorkspacePaths

__all__ = [
    "INPUT_INFO_JS",
    "WHAT_IT_IS_JS",
    "WHAT_TO_USE",
    "attached",
    "input_words",
    "readable_files",
    "upload_files",
]

_CHOOSER_WAIT_S = 2.0
"""How long a click may take to open its file chooser. Script opens one while handling
the click (it needs the click's user activation), so it comes at once; the bound only
matters when nothing opens, and then says so."""
_DROP_WAIT_S = 2.0
"""How long the page may take to see a dispatched drag event."""
_DRAG_OPERATIONS = 1 | 2 | 16
"""Copy, link and move (``Input.DragData.dragOperationsMask``): the page picks."""
WHAT_TO_USE = (
    "upload_file takes a filechooser of the snapshot ([hidden] ones too), a button that "
    "opens a file chooser, or a dropzone: take a snapshot and use one of those refs"
)

WHAT_IT_IS_JS = """function() {
  // The file input this element is (or is a label of); else what form field it is, when
  // it is one that opens no chooser; else null.
  const tag = this.tagName;
  const input = tag === 'LABEL' ? this.control : this;
  if (input && input.tagName === 'INPUT' && input.type === 'file') return input;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return tag.toLowerCase();
  if (tag === 'INPUT' && !['button', 'submit', 'reset', 'image'].includes(this.type))
    return 'input type=' + this.type;
  return null;
}"""

INPUT_INFO_JS = """function() {
  const text = (s) => (s || '').replace(/\\s+/g, ' ').trim();
  const root = this.getRootNode();
  let name = text(this.getAttribute('aria-label'));
  const labelledby = this.getAttribute('aria-labelledby');
  if (!name && labelledby && root.getElementById) {
    name = text(labelledby.split(/\\s+/).map(id => {
      const el = root.getElementById(id);
      return el ? el.textContent : '';
    }).join(' '));
  }
  if (!name && this.labels) name = text([...this.labels].map(l => l.textContent).join(' '));
  if (!name) name = text(this.title);
  return {name: name.slice(0, 60), accept: this.accept, multiple: this.multiple,
          disabled: this.disabled, connected: this.isConnected};
}"""

# Drops are watched from tabwarden's world of the drop zone's frame (page script cannot
# see or stop these listeners: they capture at the window, before the page's own): the
# page accepts files by cancelling dragover, and takes them in its drop handler.
_WATCH_DROPS = """function() {
  if (globalThis.__tabwardenDrops) globalThis.__tabwardenDrops.stop();  // one left behind
  const win = this.ownerDocument.defaultView, zone = this;
  const seen = {}, waiting = {};
  const note = (event) => {
    if (!event.composedPath().includes(zone)) return;
    seen[event.type] = event;
    // Answered once the page's handlers have run (they come after this listener).
    if (waiting[event.type]) setTimeout(waiting[event.type], 0);
  };
  // Last, once the page's own handlers ran: a drop they left uncancelled would have the
  // browser open the file in the tab instead of the page keeping it.
  const keep = (event) => { if (event.composedPath().includes(zone)) event.preventDefault(); };
  for (const type of ['dragover', 'drop']) win.addEventListener(type, note, true);
  win.addEventListener('drop', keep);
  globalThis.__tabwardenDrops = {
    seen(type, limitMs) {
      return new Promise(resolve => {
        const answer = () => {
          const event = seen[type];
          resolve(event ? {taken: event.defaultPrevented,
                           effect: event.dataTransfer ? event.dataTransfer.dropEffect : ''}
                        : null);
        };
        if (seen[type]) return setTimeout(answer, 0);
        waiting[type] = answer;
        setTimeout(answer, limitMs);
      });
    },
    stop() {
      for (const type of ['dragover', 'drop']) win.removeEventListener(type, note, true);
      win.removeEventListener('drop', keep);
    },
  };
}"""
_SEEN = "function(type, limitMs) { return globalThis.__tabwardenDrops.seen(type, limitMs); }"
_UNWATCH_DROPS = """function() {
  const watch = globalThis.__tabwardenDrops;
  if (watch) watch.stop();
  delete globalThis.__tabwardenDrops;
}"""


async def upload_files(
    tab: Page, target: str, paths: Sequence[str], budget: Budget, workspace: WorkspacePaths
) -> tuple[str, str]:
    """Give ``paths`` to the file input, chooser opener or drop zone ``target`` names.
    Returns how the receipt names the target and what was done."""
    files = readable_files(paths, workspace)
    element = await resolve(tab, target, budget)
    input_id, field = await _what_it_is(element, budget)
    if input_id is not None:
        return element.label, await _set_input(element, input_id, files, budget)
    if not files:
        raise InvalidArgument("no files were given", hint="pass one path or more")
    if await _takes_drops(element, budget):
        return element.label, await _drop(tab, element, files, budget)
    if field:  # clicking it would open no chooser: say so without touching it
        raise NotActionable(
            f"{element.label} is a {field}, which takes no files",
            ref=element.ref or "",
            reason="not-file-input",
            hint=WHAT_TO_USE,
        )
    return element.label, await _through_chooser(tab, element, files, budget)


def readable_files(paths: Sequence[str], workspace: WorkspacePaths) -> list[str]:
    """Each path resolved (symlinks followed, no '..' escape) inside the workspace or a
    folder allowed for uploads (``PathNotAllowed``), and readable."""
    if isinstance(paths, str):
        paths = [paths]
    resolved = []
    for path in paths:
        file = workspace.readable(path, what="file to upload")
        if not os.access(file, os.R_OK):
            raise InvalidArgument(f"{path!r} cannot be read", hint="check its permissions")
        resolved.append(str(file))
    return resolved


async def _what_it_is(element: Element, budget: Budget) -> tuple[str | None, str]:
    """The objectId of the file input ``element`` is (or is a label of), or else the kind
    of form field it is when that opens no chooser ("" for anything else)."""
    reply = await element.session.send(
        "Runtime.callFunctionOn",
        {
            "objectId": element.object_id,
            "functionDeclaration": WHAT_IT_IS_JS,
            "objectGroup": element.object_group,
        },
        budget=budget,
    )
    result = reply.get("result", {})
    if result.get("objectId"):
        return str(result["objectId"]), ""
    return None, str(result.get("value") or "")


async def _set_input(element: Element, input_id: str, files: list[str], budget: Budget) -> str:
    session = element.session
    info, described = await asyncio.gather(
        call_on(session, input_id, INPUT_INFO_JS, budget),
        session.send("DOM.describeNode", {"objectId": input_id}, budget=budget),
    )
    if info["disabled"]:
        raise NotActionable(
            f"{element.label} is disabled",
            ref=element.ref or "",
            reason="disabled",
            hint="it may need other fields filled first; wait for it to be enabled, then retry",
        )
    _check_count(element, files, multiple=info["multiple"])
    await _set(session, int(described["node"]["backendNodeId"]), files, budget)
    if not files:
        return "cleared its files"
    return attached(files, info["accept"], "")


async def _through_chooser(tab: Page, element: Element, files: list[str], budget: Budget) -> str:
    """Click ``element`` and give the files to the file chooser it opens."""
    point = await pointer.actionable_point(tab, element, budget)
    session = element.session  # choosers are intercepted per target: the element's
    await session.send("Page.setInterceptFileChooserDialog", {"enabled": True}, budget=budget)
    try:
        with session.event_queue(["Page.fileChooserOpened"]) as opened:
            await pointer.click(tab, point, budget)
            event = await _chooser_opened(opened, element, budget)
    finally:
        await _stop_intercepting(session)
    node = event.params.get("backendNodeId")
    if node is None:
        # No input behind it: the File System Access picker (showOpenFilePicker), which
        # CDP cannot answer; intercepted, the page sees it cancelled.
        raise NotActionable(
            f"clicking {element.label} opened the browser's file picker "
            "(showOpenFilePicker), which cannot be given files; the page saw it cancelled",
            ref=element.ref or "",
            reason="file-picker",
            hint="look for another way the page takes files: a filechooser or a dropzone in "
            "the snapshot (drag and drop)",
        )
    if len(files) > 1 and event.params.get("mode") == "selectSingle":
        raise InvalidArgument(
            f"the file chooser {element.label} opens takes one file, {len(files)} were given",
            hint="pass one path",
        )
    frame_id = str(event.params.get("frameId", ""))
    info = await _describe_input(tab, element, frame_id, node, budget)
    await _set(session, int(node), files, budget)
    return attached(files, info.get("accept", ""), input_words(info))


async def _chooser_opened(opened: EventQueue, element: Element, budget: Budget) -> Event:
    try:
        event: Event = await opened.get(
            budget.child(_CHOOSER_WAIT_S), what="waiting for a file chooser"
        )
    except DeadlineExceeded:
        if budget.expired:
            raise
        raise NotActionable(
            f"clicking {element.label} opened no file chooser within {_CHOOSER_WAIT_S:g} s "
            "(the click itself went through)",
            ref=element.ref or "",
            reason="no-file-chooser",
            hint=WHAT_TO_USE,
        ) from None
    return event


async def _stop_intercepting(session: CDPSession) -> None:
    """Choosers are shown again (a budget of its own: this runs after the call's may have
    run out, and must not leave choosers swallowed)."""
    with contextlib.suppress(TabwardenError):
        await session.send(
            "Page.setInterceptFileChooserDialog", {"enabled": False}, budget=Budget(2.0)
        )


async def _describe_input(
    tab: Page, opener: Element, frame_id: str, backend_node_id: int, budget: Budget
) -> dict[str, Any]:
    """Name, accept and whether it is in the document, of the input the chooser ``opener``
    opened is for (read in tabwarden's world of its frame; nothing when that cannot be
    had)."""
    session = opener.session
    try:
        context = await world(tab.frames, frame_id, budget)
        resolved = await session.send(
            "DOM.resolveNode",
            {
                "backendNodeId": backend_node_id,
                "executionContextId": context,
                "objectGroup": opener.object_group,
            },
            budget=budget,
        )
        info: dict[str, Any] = await call_on(
            session, resolved["object"]["objectId"], INPUT_INFO_JS, budget
        )
    except CDPError:
        return {}
    return info


async def _takes_drops(element: Element, budget: Budget) -> bool:
    """Whether the element has a ``drop`` listener of its own. Listeners are asked of the
    element as the page's own world holds it (``DOM.resolveNode`` with no context)."""
    session = element.session
    object_id = element.object_id
    if element.context_id is not None:
        resolved = await session.send(
            "DOM.resolveNode",
            {"backendNodeId": element.backend_node_id, "objectGroup": element.object_group},
            budget=budget,
        )
        object_id = resolved["object"]["objectId"]
    reply = await session.send(
        "DOMDebugger.getEventListeners", {"objectId": object_id, "depth": 0}, budget=budget
    )
    return any(listener.get("type") == "drop" for listener in reply.get("listeners", ()))


async def _drop(tab: Page, element: Element, files: list[str], budget: Budget) -> str:
    """Drag the files from outside the page onto ``element`` and drop them there."""
    point = await pointer.actionable_point(tab, element, budget, need_enabled=False)
    main = tab.frames.main_session
    data = {"items": [], "files": files, "dragOperationsMask": _DRAG_OPERATIONS}

    async def drag(kind: str) -> None:
        await main.send(
            "Input.dispatchDragEvent",
            {"type": kind, "x": point.x, "y": point.y, "data": data},
            budget=budget,
        )

    await call_on(element.session, element.object_id, _WATCH_DROPS, budget)
    try:
        await drag("dragEnter")
        await drag("dragOver")
        over = await _seen(element, "dragover", budget)
        if not over or not over["taken"] or over["effect"] == "none":
            await drag("dragCancel")
            raise NotActionable(
                f"{element.label} does not take dropped files here (the page did not accept "
                "them over it)",
                ref=element.ref or "",
                reason="no-drop",
                hint=WHAT_TO_USE,
            )
        await drag("drop")
        if await _seen(element, "drop", budget) is None:
            raise ActionError(
                f"the files were dropped on {element.label}, but the page saw no drop event",
                hint="take a snapshot: something may lie over it; or use a file input's ref",
            )
    finally:
        with contextlib.suppress(TabwardenError):
            await call_on(element.session, element.object_id, _UNWATCH_DROPS, Budget(2.0))
    return "dropped " + ", ".join(Path(f).name for f in files) + " onto it"


async def _seen(element: Element, kind: str, budget: Budget) -> dict[str, Any] | None:
    limit_ms = min(budget.remaining(), _DROP_WAIT_S) * 1000
    seen: dict[str, Any] | None = await call_on(
        element.session, element.object_id, _SEEN, budget, kind, limit_ms, await_promise=True
    )
    return seen


async def _set(session: CDPSession, backend_node_id: int, files: list[str], budget: Budget) -> None:
    # Chromium fires input and change on the input, as after a real choice.
    await session.send(
        "DOM.setFileInputFiles", {"files": files, "backendNodeId": backend_node_id}, budget=budget
    )


def _check_count(element: Element, files: list[str], *, multiple: bool) -> None:
    if len(files) > 1 and not multiple:
        raise InvalidArgument(
            f"{element.label} takes one file, {len(files)} were given", hint="pass one path"
        )


def attached(files: list[str], accept: str, through: str) -> str:
    """``attached a.pdf, b.png`` [``through the file chooser it opened``] with notes: the
    input it opened, and files its ``accept`` does not ask for."""
    names = [Path(f).name for f in files]
    text = "attached " + ", ".join(names)
    notes = [through] if through else []
    refused = _outside_accept(names, accept)
    if refused:
        notes.append(f"it asks for {accept}: the page may refuse {', '.join(refused)}")
    if through:
        text += " through the file chooser it opened"
    return text + (f" ({'; '.join(notes)})" if notes else "")


def _outside_accept(names: list[str], accept: str) -> list[str]:
    """The names that match none of ``accept``'s extensions and MIME types (the browser
    does not enforce them on set files; pages often do)."""
    tokens = [token.strip().lower() for token in (accept or "").split(",") if token.strip()]
    if not tokens:
        return []
    outside = []
    for name in names:
        lower = name.lower()
        mime = (mimetypes.guess_type(lower)[0] or "").lower()
        if not any(_matches(lower, mime, token) for token in tokens):
            outside.append(name)
    return outside


def _matches(name: str, mime: str, token: str) -> bool:
    if token.startswith("."):
        return name.endswith(token)
    if token.endswith("/*"):
        return mime.startswith(token[:-1])
    return mime == token


def input_words(info: dict[str, Any]) -> str:
    """How a receipt names the input a chooser was for: ``file input "CV"``."""
    if not info:
        return "a file input"
    where = "" if info.get("connected", True) else ", made by script"
    name = f'"{info["name"]}"' if info.get("name") else "unnamed"
    return f"file input {name}{where}"
