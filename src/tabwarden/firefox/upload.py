"""Uploads on a Firefox tab: files into a file input (hidden ones too), or through the
file chooser an element opens when clicked, with BiDi's ``input.setFiles``.

What the ref names decides how, as on Chromium (actions/upload.py, the same scripts,
path rules and receipt details):

* a file input, or a label of one: its files are set at once; a hidden input needs no
  pointer;
* anything else (a styled button whose script clicks a hidden input): it is clicked
  while ``input.fileDialogOpened`` is subscribed for the tab, and the input the chooser
  was opened for gets the files. No chooser within ``_CHOOSER_WAIT_S`` is an error that
  says what to use instead.

Not on Firefox: drop zones (BiDi cannot read an element's ``drop`` listeners nor drag
files from outside the page). Every path goes through the workspace rules first
(``safety/paths.py``), before anything touches the page.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from ..actions.upload import (
    INPUT_INFO_JS,
    WHAT_IT_IS_JS,
    WHAT_TO_USE,
    attached,
    input_words,
    readable_files,
)
from ..budget import Budget
from ..cdp.protocol import Event
from ..errors import DeadlineExceeded, InvalidArgument, NotActionable, TabwardenError
from ..safety.paths import WorkspacePaths
from .calling import InputPage, call_on, call_on_remote
from .pointer import click_element

__all__ = ["CHOOSER_EVENT", "upload_files"]

JSONObject = dict[str, Any]

CHOOSER_EVENT = "input.fileDialogOpened"
_CHOOSER_WAIT_S = 2.0
"""How long a click may take to open its file chooser (script opens one while handling
the click, so it comes at once; the bound only matters when nothing opens)."""


async def upload_files(
    page: InputPage,
    ref: str,
    paths: Sequence[str],
    budget: Budget,
    workspace: WorkspacePaths,
) -> tuple[str, str]:
    """Give ``paths`` to the file input or chooser opener ``ref`` names. Returns how the
    receipt names it and what was done."""
    files = readable_files(paths, workspace)
    context, element = await page.element(ref, budget)
    label = page.label(ref)
    found = await call_on_remote(page, context, element, WHAT_IT_IS_JS, budget)
    shared = found.get("sharedId")
    if found.get("type") == "node" and isinstance(shared, str):
        return label, await _set_input(
            page, context, {"sharedId": shared}, label, ref, files, budget
        )
    if not files:
        raise InvalidArgument("no files were given", hint="pass one path or more")
    field = found.get("value") if found.get("type") == "string" else ""
    if field:  # clicking it would open no chooser: say so without touching it
        raise NotActionable(
            f"{label} is a {field}, which takes no files",
            ref=ref,
            reason="not-file-input",
            hint=WHAT_TO_USE,
        )
    return label, await _through_chooser(page, ref, label, files, budget)


async def _set_input(
    page: InputPage,
    context: str,
    field: JSONObject,
    label: str,
    ref: str,
    files: list[str],
    budget: Budget,
) -> str:
    info = await call_on(page, context, field, INPUT_INFO_JS, budget)
    if info["disabled"]:
        raise NotActionable(
            f"{label} is disabled",
            ref=ref,
            reason="disabled",
            hint="it may need other fields filled first; wait for it to be enabled, then retry",
        )
    if len(files) > 1 and not info["multiple"]:
        raise InvalidArgument(
            f"{label} takes one file, {len(files)} were given", hint="pass one path"
        )
    await _set(page, context, field, files, budget)
    if not files:
        return "cleared its files"
    return attached(files, info["accept"], "")


async def _set(
    page: InputPage, context: str, field: JSONObject, files: list[str], budget: Budget
) -> None:
    # Firefox fires input and change on the input, as after a real choice.
    await page.session.connection.send(
        "input.setFiles", {"context": context, "element": field, "files": files}, budget=budget
    )


async def _through_chooser(
    page: InputPage, ref: str, label: str, files: list[str], budget: Budget
) -> str:
    """Click the element ``ref`` names and give the files to the chooser it opens."""
    connection = page.session.connection
    contexts = [page.context, *page.frames]
    with connection.event_queue([CHOOSER_EVENT]) as opened:
        subscription = await connection.subscribe_remote([CHOOSER_EVENT], budget)
        try:
            await click_element(page, ref, budget)
            event = await _chooser_opened(opened, contexts, label, ref, budget)
        finally:
            # Its own budget: this runs after the call's may have run out.
            with contextlib.suppress(TabwardenError):
                await connection.unsubscribe_remote(subscription, Budget(2.0))
    context = str(event.params.get("context", page.context))
    field = event.params.get("element")
    shared = field.get("sharedId") if isinstance(field, dict) else None
    if not isinstance(shared, str):
        raise NotActionable(
            f"clicking {label} opened the browser's file picker with no file input behind "
            "it, which cannot be given files",
            ref=ref,
            reason="file-picker",
            hint="look for another way the page takes files: a filechooser in the snapshot",
        )
    if len(files) > 1 and not event.params.get("multiple", False):
        raise InvalidArgument(
            f"the file chooser {label} opens takes one file, {len(files)} were given",
            hint="pass one path",
        )
    target = {"sharedId": shared}
    info: dict[str, Any] = {}
    with contextlib.suppress(TabwardenError):
        info = await call_on(page, context, target, INPUT_INFO_JS, budget)
    await _set(page, context, target, files, budget)
    return attached(files, str(info.get("accept", "")), input_words(info))


async def _chooser_opened(
    opened: Any, contexts: list[str], label: str, ref: str, budget: Budget
) -> Event:
    wait = budget.child(_CHOOSER_WAIT_S)
    while True:
        try:
            event: Event = await opened.get(wait, what="waiting for a file chooser")
        except DeadlineExceeded:
            if budget.expired:
                raise
            raise NotActionable(
                f"clicking {label} opened no file chooser within {_CHOOSER_WAIT_S:g} s "
                "(the click itself went through)",
                ref=ref,
                reason="no-file-chooser",
                hint=WHAT_TO_USE,
            ) from None
        if event.params.get("context") in contexts:
            return event
