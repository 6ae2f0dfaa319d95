"""The engines and what each does: one declared table, tool by tool
(docs/engines-matrix.md is generated from it: ``python -m tabwarden.reference`` writes
it with the other generated docs).

Chromium (CDP) does every tool. Firefox (WebDriver BiDi) does what its session
(``FirefoxSession``) and pages (``FirefoxPage``) implement: from the Python API, and
as tools where ``tools/firefox.py`` has a handler (the MCP server and the CLI daemon
with ``browser.engine: firefox``). A tool it does not do is hidden from a Firefox
session's tool list and refused with ``EngineUnsupported`` (never half done).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .errors import EngineUnsupported

__all__ = [
    "ENGINES",
    "FIREFOX",
    "MATRIX_PATH",
    "Engine",
    "FirefoxSupport",
    "check_firefox",
    "matrix_markdown",
]

Engine = Literal["chromium", "firefox"]
ENGINES: tuple[Engine, ...] = ("chromium", "firefox")
MATRIX_PATH = "docs/engines-matrix.md"


@dataclass(frozen=True, slots=True)
class FirefoxSupport:
    """How Firefox does one tool: the member that does it, or why nothing does."""

    member: str = ""
    """``FirefoxPage.click`` or ``FirefoxSession.tabs``; empty: not on Firefox."""
    why_not: str = ""
    """Why not (when ``member`` is empty), or what differs from Chromium."""

    @property
    def supported(self) -> bool:
        return bool(self.member)


def _on(member: str, note: str = "") -> FirefoxSupport:
    return FirefoxSupport(member, note)


def _not(why: str) -> FirefoxSupport:
    return FirefoxSupport("", why)


_NOT_YET = "not built on BiDi yet"

FIREFOX: dict[str, FirefoxSupport] = {
    "browser_navigate": _on(
        "FirefoxPage.navigate",
        "networkidle from the tab's network log (500 ms without a request in flight); the "
        "URL policy holds",
    ),
    "browser_snapshot": _on(
        "FirefoxPage.snapshot",
        "the same walker, text, paging and scope; no listener-only clickables "
        "(BiDi cannot read event listeners)",
    ),
    "browser_click": _on(
        "FirefoxPage.click",
        "any button, click_count, modifiers held; the receipt names no requests or text "
        "changes outside the view (firefox/acting.py)",
    ),
    "browser_fill": _on("FirefoxPage.fill", "text fields and editable elements"),
    "browser_type": _on("FirefoxPage.type"),
    "browser_press": _on("FirefoxPage.press"),
    "browser_hover": _on("FirefoxPage.hover"),
    "browser_select": _on("FirefoxPage.select"),
    "browser_check": _on("FirefoxPage.check"),
    "browser_scroll": _on("FirefoxPage.scroll", "the mouse wheel (input.performActions)"),
    "browser_wait": _on("FirefoxPage.wait", "load_state networkidle from the tab's network log"),
    "browser_back": _on("FirefoxPage.back"),
    "browser_terminate_script": _not(
        "BiDi has no way to stop a running script; closing the tab ends it (docs/firefox.md)"
    ),
    "browser_dialog": _on("FirefoxPage.dialog"),
    "browser_screenshot": _on(
        "FirefoxPage.screenshot",
        "the same parameters and bounds; an element inside a frame is refused (capture "
        "its <iframe>)",
    ),
    "browser_get_text": _on("FirefoxPage.get_text"),
    "browser_tabs": _on("FirefoxSession.tabs"),
    "browser_drag": _on(
        "FirefoxPage.drag",
        "HTML5 drag and drop by drag events dispatched in the page (Firefox does not drop a "
        "synthesized drag); both elements in one frame",
    ),
    "browser_act_batch": _on("FirefoxPage.act_batch"),
    "browser_switch_tab": _on("FirefoxSession.switch_tab"),
    "browser_close_tab": _on("FirefoxPage.close"),
    "browser_forward": _on("FirefoxPage.forward"),
    "browser_reload": _on("FirefoxPage.reload"),
    "browser_close": _on("FirefoxSession.close"),
    "browser_get_content": _on(
        "FirefoxPage.get_content", "the same script and Markdown, read in tabwarden's sandbox"
    ),
    "browser_get_images": _on("FirefoxPage.get_images"),
    "browser_evaluate": _on(
        "FirefoxPage.evaluate",
        "the same parameters and result; a script still running at its deadline is not "
        "stopped (BiDi cannot): closing the tab ends it",
    ),
    "browser_cdp": _not("CDP is Chromium's protocol"),
    "browser_metrics": _on("FirefoxSession.metrics", "evaluations and call counts"),
    "browser_attach": _not("attaching takes a CDP endpoint"),
    "browser_upload_file": _on(
        "FirefoxPage.upload_file",
        "file inputs (hidden too) and file choosers a click opens (input.setFiles); no drop "
        "zones (BiDi cannot read drop listeners)",
    ),
    "browser_console": _on("FirefoxPage.console", "no browser notices (BiDi sends none)"),
    "browser_network": _on(
        "FirefoxPage.network",
        "the same log, filters and details; bodies kept by Firefox up to 10 MB each "
        "(network.addDataCollector); no remote address; failures named as Firefox does "
        "(NS_ERROR_…)",
    ),
    "browser_downloads": _on(
        "FirefoxSession.downloads",
        "saved into the workspace's downloads folder, executables flagged; BiDi reports "
        "only the start and the end (no bytes in between) and cannot cancel one",
    ),
    "browser_save_pdf": _on("FirefoxPage.save_pdf", "the same options (browsingContext.print)"),
    "browser_trace_start": _not("traces are Chromium's (Tracing domain)"),
    "browser_trace_stop": _not("traces are Chromium's (Tracing domain)"),
    "browser_record_start": _not("recordings come from Chromium's screencast"),
    "browser_record_stop": _not("recordings come from Chromium's screencast"),
    "browser_storage": _on(
        "FirefoxPage.storage",
        "cookies, localStorage and sessionStorage: get, set, delete, clear; save_state and "
        "load_state refused",
    ),
    "browser_emulate": _on(
        "FirefoxSession.emulate",
        "viewport, pixel ratio, user agent, locale, timezone, geolocation, offline; mobile, "
        "touch, platform, accept_language, color_scheme, reduced_motion, network and CPU "
        "throttling refused (and mobile device presets)",
    ),
}
"""Tool name → how Firefox does it. Every tool of the registry has a row (a test)."""


def check_firefox(tool: str) -> None:
    """``EngineUnsupported`` for a tool Firefox does not do (with why)."""
    support = FIREFOX.get(tool)
    if support is None or not support.supported:
        why = support.why_not if support is not None else "unknown tool"
        raise EngineUnsupported(
            f"{tool} ({why})",
            "firefox",
            hint="docs/engines-matrix.md lists what Firefox does; use engine chromium for it",
        )


def matrix_markdown(served: frozenset[str] = frozenset()) -> str:
    """The matrix; ``served``: the tools a Firefox session serves (tools/firefox.py)."""
    lines = [
        "# Engine capability matrix",
        "",
        "Generated from the declared table in `src/tabwarden/engines.py` by",
        "`python -m tabwarden.reference`; do not edit by hand. Chromium (CDP) does every",
        "tool. Firefox (WebDriver BiDi, docs/firefox.md) does the tools with a member named",
        'here, from the Python API (`tabwarden.launch(engine="firefox")`); those marked',
        "*served* are also tools of a Firefox session of the MCP server and the CLI daemon",
        "(`--engine firefox`, `browser.engine: firefox`). A Firefox session lists only its",
        "served tools; any other tool, or a parameter a Firefox handler cannot honour, is",
        "refused with `EngineUnsupported`.",
        "",
        "| tool | chromium | firefox | notes |",
        "|---|---|---|---|",
    ]
    for tool, support in FIREFOX.items():
        firefox = f"yes: `{support.member}`" if support.supported else "no"
        if tool in served:
            firefox += ", served"
        lines.append(f"| `{tool}` | yes | {firefox} | {support.why_not} |")
    on = sum(1 for s in FIREFOX.values() if s.supported)
    lines += [
        "",
        f"Firefox does {on} of {len(FIREFOX)} tools; a Firefox session serves {len(served)}.",
        "",
    ]
    return "\n".join(lines)
