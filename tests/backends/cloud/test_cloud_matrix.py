"""docs/backends-matrix.md is generated from the providers' declared capabilities."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

from tabwarden.backends.cloud import PROVIDERS, Capabilities
from tabwarden.backends.cloud.matrix import MATRIX_PATH, capability_rows, matrix_markdown

ROOT = Path(__file__).resolve().parents[3]


def test_the_matrix_doc_matches_the_code() -> None:
    path = ROOT / MATRIX_PATH
    assert path.is_file(), (
        f"{MATRIX_PATH} is missing: run python -m tabwarden.backends.cloud.matrix"
    )
    assert path.read_text(encoding="utf-8") == matrix_markdown(), (
        f"{MATRIX_PATH} is stale: run python -m tabwarden.backends.cloud.matrix"
    )


def test_each_backend_is_a_row_with_each_declared_flag(tmp_path: Path) -> None:
    rows = capability_rows()
    assert list(rows) == ["local", *PROVIDERS, "grid"]
    table = matrix_markdown().splitlines()
    flags = [f.name for f in fields(Capabilities)]
    for name, caps in rows.items():
        (line,) = [row for row in table if row.startswith(f"| `{name}` |")]
        cells = [cell.strip() for cell in line.strip("|").split("|")][1:]
        assert cells == ["yes" if getattr(caps, flag) else "no" for flag in flags]
    assert rows["browserbase"].dialog_bridge and rows["browserbase"].ends_on_disconnect
    written = subprocess.run(
        [sys.executable, "-m", "tabwarden.backends.cloud.matrix", str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
    )
    assert (tmp_path / MATRIX_PATH).read_text(encoding="utf-8") == matrix_markdown()
    assert MATRIX_PATH in written.stdout
