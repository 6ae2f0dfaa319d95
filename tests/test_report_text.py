"""Every report has one shape: ``text`` is a str, ``str(report)`` prints it, and the older
call form ``report.text()`` still answers the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tabwarden.actions.receipt import Receipt
from tabwarden.diagnostics.console import ConsoleReport
from tabwarden.diagnostics.network import NetworkReport, RequestFilter
from tabwarden.diagnostics.pdf import PdfFile
from tabwarden.diagnostics.storage import StorageResult
from tabwarden.diagnostics.trace import TraceFile
from tabwarden.navigation import NavigationResult
from tabwarden.report_text import ReportText
from tabwarden.snapshot import Snapshot, SnapshotNode, SnapshotPage

REPORTS: list[Any] = [
    Receipt("click", "e7", "", "t1", "http://x.test/", "X", 12),
    NavigationResult("t1", "http://x.test/", "X", 200, "OK", "load", ("commit", "load"), 30),
    ConsoleReport("t1", (), 0, "all", None, 0, 100, 0, 0, False, "F1"),
    NetworkReport("t1", (), 0, RequestFilter.parse(status="4xx"), 0, 100, 0),
    StorageResult("save_state", "state", "1 cookie", file="/ws/tabwarden-output/state/a.json"),
    PdfFile(Path("/ws/tabwarden-output/pdf/p.pdf"), 1234, 2),
    TraceFile(Path("/ws/tabwarden-output/traces/t.json"), 10, 3, 40, False),
    Snapshot(
        "t1",
        "http://x.test/",
        "X",
        False,
        SnapshotNode(role="document", name=""),
        SnapshotPage("# tab t1\n- button [ref=e1]", 25, 6, 1, 0, None, 0),
        [],
    ),
]


@pytest.mark.parametrize("report", REPORTS, ids=lambda r: type(r).__name__)
def test_text_is_a_string_printing_shows_it_and_calling_still_works(report: Any) -> None:
    assert isinstance(report.text, ReportText) and isinstance(report.text, str)
    assert report.text
    assert str(report) == report.text == report.text()
    assert f"{report}" == report.text


def test_replies_that_wrote_a_file_name_its_full_path() -> None:
    for report in REPORTS[4:7]:
        assert "/ws/tabwarden-output/" in report.text
