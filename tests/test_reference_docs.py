"""The reference docs are generated from the code and must not drift from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabwarden.reference import generate

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("relative", "content"), sorted(generate().items()))
def test_reference_doc_matches_the_code(relative: str, content: str) -> None:
    path = ROOT / relative
    assert path.is_file(), f"{relative} is missing: run python -m tabwarden.reference"
    assert path.read_text(encoding="utf-8") == content, (
        f"{relative} is stale: regenerate it with python -m tabwarden.reference"
    )


def test_every_tool_and_parameter_is_documented() -> None:
    from tabwarden.tools.catalog import TOOLS

    tools_md = generate()["docs/reference/tools.md"]
    for spec in TOOLS:
        assert f"## {spec.name}" in tools_md
        for name in spec.params.model_fields:
            assert f"| `{name}` |" in tools_md, f"{spec.name}.{name} is not documented"
