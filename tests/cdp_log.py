"""Records the CDP commands a block of code sends: when each was written and answered."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tabwarden.cdp.connection import CDPConnection


@dataclass
class Command:
    method: str
    params: dict[str, Any]
    sent: float
    answered: float = float("inf")


@contextlib.contextmanager
def recorded_commands() -> Iterator[list[Command]]:
    """Every command sent on any connection while the block runs, in the order sent."""
    commands: list[Command] = []
    original = CDPConnection.send

    async def send(self: CDPConnection, method: str, params: Any = None, **kwargs: Any) -> Any:
        command = Command(method, dict(params or {}), time.monotonic())
        commands.append(command)
        try:
            return await original(self, method, params, **kwargs)
        finally:
            command.answered = time.monotonic()

    CDPConnection.send = send  # type: ignore[method-assign]
    try:
        yield commands
    finally:
        CDPConnection.send = original  # type: ignore[method-assign]
