"""The text of a report, one shape for every report (snapshots, receipts, navigation,
console, network, storage, files): ``report.text`` is a ``str``, ``str(report)`` is that
text, and calling it (``report.text()``) gives it too, for code written when some reports
had a method."""

from __future__ import annotations

__all__ = ["ReportText"]


class ReportText(str):
    """A report's text: a ``str`` that can also be called, returning itself."""

    __slots__ = ()

    def __call__(self) -> str:
        return str(self)
