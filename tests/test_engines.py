"""The engines' declared table: every tool has a row, every member named exists, the
generated docs/engines-matrix.md matches, and what Firefox does not do fails clearly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabwarden import engines
from tabwarden.errors import EngineUnsupported
from tabwarden.firefox import FirefoxPage, FirefoxSession
from tabwarden.tools.catalog import TOOLS
from tabwarden.tools.firefox import FIREFOX_HANDLERS

ROOT = Path(__file__).resolve().parents[1]


def test_every_tool_has_a_row_and_no_row_names_a_missing_tool():
    assert set(engines.FIREFOX) == {tool.name for tool in TOOLS}


def test_every_member_named_for_firefox_exists():
    owners = {"FirefoxPage": FirefoxPage, "FirefoxSession": FirefoxSession}
    for tool, support in engines.FIREFOX.items():
        if support.supported:
            owner, _, member = support.member.partition(".")
            assert hasattr(owners[owner], member), f"{tool}: {support.member} is missing"
        else:
            assert support.why_not, f"{tool}: say why Firefox does not do it"


def test_the_generated_matrix_is_up_to_date():
    written = (ROOT / engines.MATRIX_PATH).read_text(encoding="utf-8")
    served = frozenset(FIREFOX_HANDLERS)
    assert written == engines.matrix_markdown(served), "run: python -m tabwarden.reference"


def test_a_tool_firefox_does_not_do_is_refused_with_why():
    with pytest.raises(EngineUnsupported) as caught:
        engines.check_firefox("browser_cdp")
    assert "not on this engine (firefox)" in str(caught.value)
    assert "CDP is Chromium's protocol" in str(caught.value)
    engines.check_firefox("browser_click")  # done: no error


class _NoSession:
    """A page's host that must never be reached: a refused call fails before it."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the refused call reached its session ({name})")


@pytest.mark.parametrize("name", ["terminate_script", "cdp", "trace_start"])
async def test_a_tab_call_firefox_does_not_do_raises_engine_unsupported(name):
    page = FirefoxPage(_NoSession(), "t1", "context", "about:blank")  # type: ignore[arg-type]
    with pytest.raises(EngineUnsupported) as caught:
        await getattr(page, name)("e1")
    assert f"browser_{name}" in str(caught.value)
