"""The workbench page's files: what they load exists, they ship in the wheel, and the page
answers every message of the wire protocol (docs/workbench-protocol.md). No browser."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "src" / "tabwarden"
STATIC = PACKAGE / "surfaces" / "workbench" / "static"
PROTOCOL = ROOT / "docs" / "workbench-protocol.md"

IMPORT = re.compile(r"""^\s*import\s[^'"]*?from\s+["'](?P<path>[^"']+)["']""", re.MULTILINE)


def page_files() -> list[Path]:
    return sorted(p for p in STATIC.iterdir() if p.is_file())


def protocol_section(title: str) -> str:
    text = PROTOCOL.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_index_loads_the_stylesheet_and_the_entry_module_from_static() -> None:
    index = (STATIC / "index.html").read_text(encoding="utf-8")
    loaded = re.findall(r"""(?:href|src)="/static/([^"]+)\"""", index)
    assert sorted(loaded) == ["app.css", "app.js", "favicon.svg"]
    for name in loaded:
        assert (STATIC / name).is_file()


def test_every_module_import_is_a_file_of_the_page() -> None:
    modules = [p for p in page_files() if p.suffix == ".js"]
    assert modules
    for module in modules:
        for match in IMPORT.finditer(module.read_text(encoding="utf-8")):
            target = match.group("path")
            assert target.startswith("./"), f"{module.name} imports {target} from outside the page"
            assert (STATIC / target[2:]).is_file(), f"{module.name} imports a missing {target}"


def test_the_page_ships_in_the_wheel_as_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["tabwarden"]
    for path in page_files():
        relative = path.relative_to(PACKAGE).as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), relative


def test_the_page_handles_every_message_the_server_sends() -> None:
    section = protocol_section("Server → page")
    kinds = set(re.findall(r'^\w+\s+\{"type":"(\w+)"', section, re.MULTILINE))
    assert {"hello", "frame", "snapshot", "action", "consent"} <= kinds
    app = (STATIC / "app.js").read_text(encoding="utf-8")
    handled = set(re.findall(r"^      (\w+)\(m\) \{", app, re.MULTILINE))
    assert kinds - handled == set()


def test_the_page_sends_only_messages_of_the_protocol() -> None:
    section = protocol_section("Page → server")
    known = set(re.findall(r'"type":"(\w+)"', section))
    sent: set[str] = set()
    for module in (p for p in page_files() if p.suffix == ".js"):
        text = module.read_text(encoding="utf-8")
        sent |= set(re.findall(r'send\(\{ type: "(\w+)"', text))
        sent |= set(re.findall(r'request\("(\w+)"', text))
    assert sent, "no message found: the pattern no longer matches the page's code"
    assert sent - known == set()


@pytest.mark.parametrize(
    "testid",
    [
        "session-card", "live-image", "overlay-box", "action-mark", "timeline-entry",
        "dialog-banner", "dialog-accept", "dialog-dismiss", "dialog-prompt", "takeover-button",
        "handback-button", "network-filter", "network-row", "tab-strip-tab", "address-url",
        "consent-allow", "consent-deny", "screenshot-button", "connection-status",
    ],
)  # fmt: skip
def test_the_page_marks_its_main_parts_for_tests(testid: str) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in page_files())
    assert f'data-testid="{testid}"' in text or f'"data-testid": "{testid}"' in text


def test_the_page_loads_nothing_from_the_network() -> None:
    for path in page_files():
        text = path.read_text(encoding="utf-8")
        external = re.findall(r"""(?:src|href|from|url\()\s*=?\s*["']?(https?://[^"')\s]+)""", text)
        assert external == [], f"{path.name} loads {external}"
