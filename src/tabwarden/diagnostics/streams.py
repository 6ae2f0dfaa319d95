"""Reading a CDP stream (``IO.read`` until ``eof``) into a file, chunk by chunk.

PDFs and traces can be large: they come as a stream handle and are written as
they arrive, so they never sit whole in memory or in one WebSocket message.
"""

from __future__ import annotations

import base64
import contextlib
from pathlib import Path

from ..budget import Budget
from ..cdp.session import CDPSession
from ..errors import TabwardenError

__all__ = ["CHUNK_BYTES", "save_stream"]

CHUNK_BYTES = 1 << 20
"""How much one ``IO.read`` asks for."""


async def save_stream(session: CDPSession, handle: str, path: Path, budget: Budget) -> int:
    """Write the stream ``handle`` (opened on ``session``) to ``path``; returns the bytes
    written. The stream is closed either way; a partial file is removed on failure."""
    written = 0
    try:
        with path.open("xb") as file:  # never overwrite: the caller picked a fresh name
            while True:
                chunk = await session.send(
                    "IO.read", {"handle": handle, "size": CHUNK_BYTES}, budget=budget
                )
                data = chunk.get("data", "")
                raw = base64.b64decode(data) if chunk.get("base64Encoded") else data.encode()
                file.write(raw)
                written += len(raw)
                if chunk.get("eof"):
                    break
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    finally:
        with contextlib.suppress(TabwardenError):
            await session.send("IO.close", {"handle": handle}, budget=Budget(2.0))
    return written
