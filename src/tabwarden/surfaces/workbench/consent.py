"""Attach requests shown to the person at the workbench, and their answers.

A tool call that asks to attach to a real browser without consent waits here (within
its budget) while the workbench shows what that browser holds; the first allow or deny
from any open page reaches the waiting call. With no page open, nobody can answer: the
call is refused at once, as it is without a workbench.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...backends.external import AttachRequest
from ...budget import Budget
from ...errors import DeadlineExceeded

__all__ = ["ConsentDesk", "ConsentQuestion"]


@dataclass(slots=True)
class ConsentQuestion:
    id: str
    request: AttachRequest
    answer: asyncio.Future[bool]

    def to_dict(self) -> dict[str, Any]:
        request = self.request
        return {
            "id": self.id,
            "cdp_url": request.cdp_url,
            "product": request.product,
            "profile": request.profile,
            "description": request.describe(),
            "tabs": [{"url": t.url, "title": t.title} for t in request.tabs or ()],
        }


class ConsentDesk:
    """Open attach requests; ``broadcast(message)`` sends to every open page."""

    def __init__(
        self, broadcast: Callable[[dict[str, Any]], None], viewers: Callable[[], int]
    ) -> None:
        self._broadcast = broadcast
        self._viewers = viewers
        self._open: dict[str, ConsentQuestion] = {}
        self._ids = itertools.count(1)

    def open_questions(self) -> list[ConsentQuestion]:
        return list(self._open.values())

    async def ask(self, request: AttachRequest, budget: Budget) -> bool | None:
        """The person's answer: True, False, or None (no page open, or no answer in time)."""
        if self._viewers() == 0:
            return None
        question = ConsentQuestion(
            f"c-{next(self._ids)}", request, asyncio.get_running_loop().create_future()
        )
        self._open[question.id] = question
        self._broadcast({"type": "consent", "request": question.to_dict()})
        answer: bool | None = None
        try:
            answer = await budget.run(
                asyncio.shield(question.answer), what="waiting for the person's answer"
            )
        except DeadlineExceeded:
            answer = None
        finally:
            self._open.pop(question.id, None)
            if not question.answer.done():
                question.answer.cancel()
            self._broadcast({"type": "consent_closed", "id": question.id, "allowed": answer})
        return answer

    def answer(self, question_id: str, allow: bool) -> bool:
        """Record a page's answer; False when the question is no longer open."""
        question = self._open.get(question_id)
        if question is None or question.answer.done():
            return False
        question.answer.set_result(bool(allow))
        return True
