"""The snapshot's text form: indented lines models already know, paged, searchable, sized.

``- button "Submit" [ref=e7] [disabled]``, ``- textbox "Email" [ref=e4]: jane@x.org``,
``- iframe "Pay" [ref=e11]:`` with the frame's nodes below it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..clipping import clip
from ..counting import counted
from ..errors import InvalidArgument
from ..report_text import ReportText
from ..textmatch import text_pattern
from .model import LeftOut, SnapshotNode

__all__ = [
    "DEFAULT_MAX_CHARS",
    "SnapshotDiff",
    "SnapshotPage",
    "check_max_chars",
    "cursor_text",
    "diff_lines",
    "page_lines",
    "render_lines",
    "select_lines",
]

DEFAULT_MAX_CHARS = 12_000
_CONTEXT_ROLES = frozenset({"heading", "iframe", "dialog", "alertdialog", "alert"})
# Landmarks give context (and drop targets) when they are named.
_NAMED_CONTEXT_ROLES = frozenset(
    {"region", "navigation", "main", "form", "search", "banner", "contentinfo", "complementary"}
)
_CONTAINERS = frozenset({"generic", "clickable", "document", "group", "none", "section"})
_REF_IN_LINE = re.compile(r"\[ref=(e\d+)\]")
_MAX_TEXT = 300
# Where the content the interactive view leaves out is likely to be, best first: the first
# shown of these is offered as a scope.
_CONTENT_ROLES = ("main", "article", "region", "dialog", "alertdialog", "form", "complementary")


def render_lines(
    root: SnapshotNode, *, full: bool, page_url: str = "", left_out: LeftOut | None = None
) -> list[str]:
    """The snapshot as lines: interactive view (default) or every node (``full``).

    ``left_out``: what the walker counted that the interactive view does not show; a last
    line (a comment) says so and how to read it."""
    lines: list[str] = []
    origin = _origin(page_url)
    content_refs: dict[str, str] = {}  # role → the first ref shown with it

    def emit(node: SnapshotNode, depth: int) -> None:
        if _shown(node, full):
            if node.ref and node.role in _CONTENT_ROLES:
                content_refs.setdefault(node.role, node.ref)
            if node.role == "text":
                if node.text:
                    lines.append("  " * depth + "- text: " + _quote(node.text, _MAX_TEXT))
                return
            index = len(lines)
            lines.append("")  # filled once we know whether children follow
            before = len(lines)
            if not (node.role == "combobox" and not node.expanded and not full):
                for child in _children(node):
                    emit(child, depth + 1)
            lines[index] = "  " * depth + _line(node, origin, has_children=len(lines) > before)
        else:
            for child in _children(node):
                emit(child, depth)

    for child in _children(root):
        emit(child, 0)
    if left_out is not None and not left_out.empty and not full:
        scope = next((content_refs[r] for r in _CONTENT_ROLES if r in content_refs), "<ref>")
        lines.append(_left_out_line(left_out, scope))
    return lines


def _left_out_line(left_out: LeftOut, scope: str) -> str:
    """``# not shown: 12 text blocks, 1 table (2,000 rows), 3 images — …``"""
    parts = []
    if left_out.text_blocks:
        parts.append(counted(left_out.text_blocks, "text block"))
    if left_out.tables:
        parts.append(f"{counted(left_out.tables, 'table')} ({counted(left_out.rows, 'row')})")
    if left_out.images:
        parts.append(counted(left_out.images, "image"))
    return f'# not shown: {", ".join(parts)} — snapshot(full=true), find="…" or scope={scope}'


def _children(node: SnapshotNode) -> list[SnapshotNode]:
    """Children, with duplicated text dropped (a button's own label text)."""
    out = []
    for child in node.children:
        if child.role == "text" and child.text and child.text.strip() == node.name.strip():
            continue
        out.append(child)
    return out


def _shown(node: SnapshotNode, full: bool) -> bool:
    if node.role == "document":
        return False
    if full:
        if node.role == "text":
            return bool(node.text and node.text.strip())
        return not (node.role in _CONTAINERS and not node.name and not node.clickable)
    if node.role == "text":
        return False
    if node.interactive:
        return node.bounds is not None or node.role == "option" or node.hidden
    if node.value:
        return True  # a live region with its text (the walker gives no other such value)
    return node.role in _CONTEXT_ROLES or (node.role in _NAMED_CONTEXT_ROLES and bool(node.name))


def _line(node: SnapshotNode, origin: str, *, has_children: bool) -> str:
    parts = [f"- {node.role}"]
    if node.name:
        parts.append(_quote(node.name, 120))
    if node.ref:
        parts.append(f"[ref={node.ref}]")
    if node.level:
        parts.append(f"[level={node.level}]")
    for flag, on in (
        ("disabled", node.disabled),
        ("focused", node.focused),
        ("selected", bool(node.selected)),
        ("required", node.required),
        ("readonly", node.readonly),
        ("password", node.password),
    ):
        if on:
            parts.append(f"[{flag}]")
    if node.checked is True:
        parts.append("[checked]")
    elif node.checked == "mixed":
        parts.append("[checked=mixed]")
    if node.pressed is True:
        parts.append("[pressed]")
    if node.expanded is not None:
        parts.append("[expanded]" if node.expanded else "[expanded=false]")
    if node.url:
        parts.append(f"[url={_short_url(node.url, origin)}]")
    if node.covered_by:
        parts.append(f"[covered by {node.covered_by}]")
    if node.role == "filechooser":
        parts += _chooser_marks(node)
    text = " ".join(parts)
    if node.value and not node.password:
        return f"{text}: {_inline(node.value)}"
    return text + (":" if has_children else "")


def _chooser_marks(node: SnapshotNode) -> list[str]:
    """``[accept=.pdf,image/*] [multiple] [hidden]`` (hidden: the page hides the input; a
    label or button of the page opens it, and upload_file takes its ref)."""
    marks = [f"[accept={_inline(node.accept)[:80]}]"] if node.accept else []
    if node.multiple:
        marks.append("[multiple]")
    if node.hidden:
        marks.append("[hidden]")
    return marks


@dataclass(frozen=True, slots=True)
class SnapshotPage:
    """One page of a snapshot's text, with its size and where to go on."""

    text: str
    chars: int
    tokens: int
    total_lines: int
    start: int
    """The line (of the selected lines) this page starts at."""
    next_cursor: str | None
    """Where the next page starts, e.g. ``s3:120``; None on the last page."""
    remaining_lines: int


def cursor_text(capture: str, line: int) -> str:
    """A cursor: the capture it pages and the line the page starts at (``s3:120``)."""
    return f"{capture}:{line}"


def check_max_chars(max_chars: int) -> None:
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 200:
        raise InvalidArgument(
            f"max_chars={max_chars!r} is too small", hint="use at least 200 (default 12000)"
        )


def select_lines(
    header: list[str], lines: list[str], find: str | None
) -> tuple[list[str], list[str]]:
    """The header and the lines ``find`` (text or ``/regex/``) selects: all without it."""
    if not find:
        return header, lines
    matcher = _matcher(find)
    lines = [line for line in lines if matcher(line)]
    return [
        *header,
        f"# {counted(len(lines), 'line')} {'matches' if len(lines) == 1 else 'match'} {find!r}",
    ], lines


def page_lines(
    header: list[str],
    lines: list[str],
    *,
    capture: str,
    max_chars: int = DEFAULT_MAX_CHARS,
    start: int = 0,
) -> SnapshotPage:
    """The page of ``lines`` from line ``start`` that fits ``max_chars`` with the header,
    sized; its footer names the cursor of the next page in ``capture``."""
    check_max_chars(max_chars)
    if not 0 <= start <= len(lines):
        raise InvalidArgument(
            f"line {start} is outside this snapshot ({counted(len(lines), 'line')})",
            hint="use the cursor given by the previous page, or 0 to start over",
        )
    header = _fit_header(header, max_chars)
    budget = max_chars - sum(len(h) + 1 for h in header) - _FOOTER_ROOM
    taken: list[str] = []
    used = 0
    index = start
    while index < len(lines):
        line = lines[index]
        cost = len(line) + 1
        if taken and used + cost > budget:
            break
        if not taken and cost > budget:
            line = clip(line, max(_MIN_LINE, budget - 1))  # a page holds at least a line
            cost = len(line) + 1
        taken.append(line)
        used += cost
        index += 1
    remaining = len(lines) - index
    next_cursor = cursor_text(capture, index) if remaining else None
    body = "\n".join([*header, *taken])
    footer = (
        f"# {counted(remaining, 'more line')}: call again with cursor={next_cursor}"
        if remaining
        else ""
    )
    text = _with_size("\n".join(part for part in (body, footer) if part))
    chars = len(text)
    return SnapshotPage(
        text=text,
        chars=chars,
        tokens=chars // 4,
        total_lines=len(lines),
        start=start,
        next_cursor=next_cursor,
        remaining_lines=remaining,
    )


_FOOTER_ROOM = 120
"""The "more lines" footer and the size line."""
_MIN_LINE = 60


def _fit_header(header: list[str], max_chars: int) -> list[str]:
    """The header, its lines clipped when together they would take more than half a page
    (``max_chars`` bounds the whole text, header included)."""
    room = (max_chars - _FOOTER_ROOM) // 2
    if sum(len(h) + 1 for h in header) <= room:
        return header
    each = max(_MIN_LINE, room // max(1, len(header)) - 1)
    return [clip(h, each) for h in header]


def _with_size(text: str) -> str:
    """Append a line stating the size of the whole text, that line included."""
    total = len(text)
    while True:
        line = f"# {total:,} chars ≈ {total // 4:,} tokens"
        if len(text) + 1 + len(line) == total:
            return f"{text}\n{line}"
        total = len(text) + 1 + len(line)


@dataclass(frozen=True, slots=True)
class SnapshotDiff:
    added: list[str]
    removed: list[str]
    changed: list[str]
    truncated: int
    """Lines left out to keep the diff bounded."""

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    @property
    def text(self) -> ReportText:
        out = [f"+ {line.strip()}" for line in self.added]
        out += [f"- {line.strip()}" for line in self.removed]
        out += [f"~ {line.strip()}" for line in self.changed]
        if self.truncated:
            out.append(f"… {counted(self.truncated, 'more change')}: take a snapshot to see them")
        return ReportText("\n".join(out))

    def __str__(self) -> str:
        return self.text


def diff_lines(before: list[str], after: list[str], *, max_lines: int = 30) -> SnapshotDiff:
    """What changed between two interactive views, element by element (by ref)."""
    old = _by_key(before)
    new = _by_key(after)
    added = [line for key, line in new.items() if key not in old]
    removed = [line for key, line in old.items() if key not in new]
    changed = [
        line for key, line in new.items() if key in old and _unfocused(old[key]) != _unfocused(line)
    ]
    total = len(added) + len(removed) + len(changed)
    keep = max_lines
    out: list[list[str]] = []
    for group in (changed, added, removed):
        out.append(group[:keep])
        keep = max(0, keep - len(group))
    return SnapshotDiff(
        added=out[1], removed=out[2], changed=out[0], truncated=total - sum(len(g) for g in out)
    )


def _unfocused(line: str) -> str:
    """Focus moves with every click: not a change worth reporting by itself."""
    return line.replace(" [focused]", "")


def _by_key(lines: list[str]) -> dict[str, str]:
    keyed: dict[str, str] = {}
    for line in lines:
        if line.startswith("#"):
            continue  # a note about the view, not an element
        match = _REF_IN_LINE.search(line)
        keyed[match.group(1) if match else line.strip()] = line
    return keyed


def _matcher(find: str) -> Callable[[str], bool]:
    """Lines that show ``find`` (text matching as in ``wait``: see textmatch.py)."""
    return text_pattern(find, name="find").searcher(collapsed=True)


_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f\u2028\u2029]')


def _quote(text: str, limit: int) -> str:
    text = _inline(text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'  # what json.dumps gives, without its cost on every line
    return json.dumps(text, ensure_ascii=False)


def _inline(text: str) -> str:
    return " ".join(text.split())


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def _short_url(url: str, origin: str) -> str:
    if origin and url.startswith(origin + "/"):
        return url[len(origin) :]
    return url
