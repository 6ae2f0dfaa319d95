"""Saving pages as PDF into the workspace, with print options; outside paths refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import tabwarden
from tabwarden.diagnostics.pdf import parse_margins
from tabwarden.errors import InvalidArgument, PathNotAllowed
from tabwarden.safety.paths import WorkspacePaths


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pdf-ws")


@pytest.fixture(scope="module")
async def session(workspace):
    async with tabwarden.launch(isolated=True, workspace=workspace) as browser:
        yield browser


@pytest.fixture(scope="module")
async def tab(session, server):
    return await session.new_tab(server.url("/files_print.html"))


@pytest.mark.browser
async def test_save_pdf_writes_a_pdf_into_the_workspace(tab, workspace):
    pdf = await tab.save_pdf()
    assert pdf.path.parent == workspace / "tabwarden-output" / "pdf"
    data = pdf.path.read_bytes()
    assert data.startswith(b"%PDF")
    assert pdf.bytes == len(data)
    assert pdf.pages == 3
    assert f"to {pdf.path} ({pdf.bytes:,} bytes, 3 pages)" in str(pdf)


@pytest.mark.browser
async def test_print_options_change_the_output(tab):
    portrait = await tab.save_pdf("portrait.pdf", paper_format="A4")
    landscape = await tab.save_pdf(
        "landscape", landscape=True, paper_format="a4", margins="1cm 2cm", scale=0.8
    )
    assert portrait.path.name == "portrait.pdf" and landscape.path.name == "landscape.pdf"
    # A4 is 595 x 842 points; landscape swaps them.
    assert b"/MediaBox [0 0 595" in portrait.path.read_bytes()
    assert b"/MediaBox [0 0 842" in landscape.path.read_bytes()
    first_two = await tab.save_pdf("two", page_ranges="1-2")
    assert first_two.pages == 2
    again = await tab.save_pdf("portrait.pdf", paper_format="A4")
    assert again.path.name == "portrait-2.pdf"  # never overwrites


@pytest.mark.browser
async def test_pdf_outside_the_workspace_is_refused(tab, tmp_path):
    with pytest.raises(PathNotAllowed, match="outside the workspace"):
        await tab.save_pdf("/tmp/x.pdf")
    with pytest.raises(PathNotAllowed, match=r"'\.\.'"):
        await tab.save_pdf("../../x.pdf")
    with pytest.raises(PathNotAllowed):
        await tab.save_pdf(str(tmp_path / "elsewhere.pdf"))
    assert not (tmp_path / "elsewhere.pdf").exists()


@pytest.mark.browser
async def test_bad_print_options_are_clear_errors(tab):
    with pytest.raises(InvalidArgument, match="paper_format='B9'"):
        await tab.save_pdf(paper_format="B9")
    with pytest.raises(InvalidArgument, match="scale"):
        await tab.save_pdf(scale=5)
    with pytest.raises(InvalidArgument, match="page_ranges"):
        await tab.save_pdf(page_ranges="9-12")
    with pytest.raises(InvalidArgument, match="not a length"):
        await tab.save_pdf(margins="wide")


def test_margins_are_css_like_shorthand():
    assert parse_margins("1in") == dict.fromkeys(
        ("marginTop", "marginRight", "marginBottom", "marginLeft"), 1.0
    )
    two = parse_margins("2.54cm 25.4mm")
    assert two["marginTop"] == pytest.approx(1.0) and two["marginLeft"] == pytest.approx(1.0)
    four = parse_margins("1in 72pt 96px 0")
    assert [four[k] for k in ("marginTop", "marginRight", "marginBottom", "marginLeft")] == [
        1.0,
        1.0,
        1.0,
        0.0,
    ]
    with pytest.raises(InvalidArgument, match="1 to 4"):
        parse_margins("1 2 3 4 5")


def test_a_refused_output_path_creates_nothing(tmp_path):
    paths = WorkspacePaths(tmp_path)
    with pytest.raises(PathNotAllowed):
        paths.output_path("pdf", "/tmp/x.pdf", suffix=".pdf")
    with pytest.raises(PathNotAllowed):
        paths.output_path("pdf", "../x.pdf", suffix=".pdf")
    assert list(tmp_path.iterdir()) == []
