"""Reading the workbench page a test opened in a Chromium driven by tabwarden: evaluate
in it, wait until it shows something, find an element's ref (for the workbench tests of
either engine's sessions)."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from tabwarden.tab import Tab

__all__ = ["WAIT_S", "page_value", "ref_in", "until_shown"]

WAIT_S = 30.0


async def page_value(viewer: Tab, expression: str) -> Any:
    """Evaluate in the workbench page."""
    return (await viewer.evaluate(expression)).value


async def until_shown(viewer: Tab, expression: str, what: str) -> Any:
    """The expression's value once truthy, polled within ``WAIT_S``."""
    deadline = time.monotonic() + WAIT_S
    while True:
        value = await page_value(viewer, expression)
        if value:
            return value
        assert time.monotonic() < deadline, f"the workbench never showed {what}"
        await asyncio.sleep(0.05)


async def ref_in(viewer: Tab, role_and_name: str) -> str:
    """The ref of the workbench's element with this role and name (``button "Take over"``;
    a name alone, ``"Live view"``, matches whatever role it is shown with)."""
    any_role = r"[\w-]+"
    role = any_role if role_and_name.startswith('"') else re.escape(role_and_name.split(" ")[0])
    name = re.escape(role_and_name if role == any_role else role_and_name.split(" ", 1)[1])
    # The element's own line, not one it covers ("[covered by button …]").
    own_line = re.compile(rf"^\s*- {role} {name} \[ref=(e\d+)\]", re.MULTILINE)
    deadline = time.monotonic() + WAIT_S
    while True:
        text = str(await viewer.snapshot())
        if found := own_line.search(text):
            return found.group(1)
        assert time.monotonic() < deadline, f"no {role_and_name} in the workbench:\n{text}"
        await asyncio.sleep(0.1)
