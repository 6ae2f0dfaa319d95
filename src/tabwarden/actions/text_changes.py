"""Text an action made appear or go away, as a receipt reports it.

A MutationObserver in tabwarden's isolated world of the top-level document, started
just before the action's input, records the nodes added and removed, the text edited,
and the attributes that show and hide things (``hidden``, ``open``, a ``style`` with
``display: none``, a class such as ``hidden`` or ``d-none``) with their values from
before; the receipt's settle step reads it. Text is taken a block at a time (inline
content reads as part of its paragraph, list item or cell), visible text only, and
what a re-render takes away and puts back the same cancels out. Text inside controls
is left to the receipt's diff of the interactive view, which names them with refs.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from ..budget import Budget
from ..counting import counted
from ..errors import CDPError
from ..frames import FrameRegistry
from ..snapshot.walker import world

__all__ = ["TextChanges", "TextWatch"]

_SHOWN = 5
"""Lines of text changes a receipt shows."""
_CLIP = 150
_SAME_AS_DIFF = 40
"""A text whose first this many characters the diff shows already is not repeated."""

_WATCH = """function(lifetimeMs, idleMs) {
  const G = globalThis;
  if (G.__tabwardenText) G.__tabwardenText.stop();
  const MAX_NODES = 10000, MAX_LISTED = 20, MAX_TEXT = 300;
  // Text inside these is not reported here: a control's label is in the view's diff.
  const SKIP = "script,style,template,noscript,head,title,[aria-hidden=true],button,a[href]," +
    "input,select,textarea,label,summary,option,[contenteditable]:not([contenteditable=false])," +
    "[role=button],[role=link],[role=tab],[role=menuitem],[role=option],[role=checkbox]," +
    "[role=radio],[role=switch],[role=textbox],[role=combobox]";
  // What the attributes that show and hide things said before the action, per element
  // (the first record of each holds the value from before).
  const HIDING = {
    hidden: (v) => v !== null,
    open: (v) => v === null,  // a closed <details> or <dialog>
    style: (v) => /display\\s*:\\s*none|visibility\\s*:\\s*hidden/i.test(v || ""),
    class: (v) => /(^|\\s)(hidden|hide|d-none|is-hidden|invisible|collapsed?)(\\s|$)/i
      .test(v || ""),
  };
  const added = new Set(), edited = new Set(), removed = [], before = new Map();
  const blank = (n) => n.nodeType === 3 && !/\\S/.test(n.data);  // between elements
  let overflow = false;  // more changed than it keeps
  const take = (records) => {
    for (const r of records) {
      if (r.type === "characterData") {
        if (edited.size < MAX_NODES) edited.add(r.target); else overflow = true;
      } else if (r.type === "attributes") {
        let old = before.get(r.target);
        if (!old) {
          if (before.size >= MAX_NODES) continue;  // styles churning (an animation)
          before.set(r.target, old = {});
        }
        if (!(r.attributeName in old)) old[r.attributeName] = r.oldValue;
      } else {
        for (const n of r.removedNodes) {
          if (added.delete(n) || blank(n)) continue;  // came and went, or holds no text
          if (removed.length < MAX_NODES) removed.push([r.target, n]); else overflow = true;
        }
        for (const n of r.addedNodes) {
          if (blank(n)) continue;
          if (added.size < MAX_NODES) added.add(n); else overflow = true;
        }
      }
    }
  };
  const observer = new MutationObserver(take);
  observer.observe(document, {
    subtree: true, childList: true, characterData: true,
    attributes: true, attributeOldValue: true, attributeFilter: Object.keys(HIDING),
  });
  const squash = (s) => (s || "").replace(/\\s+/g, " ").trim();
  const clip = (s) => (s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s);
  // The block a node's text belongs to: inline content reads as part of its paragraph.
  const blockOf = (node) => {
    let el = node.nodeType === 1 ? node : node.parentElement;
    for (let up = 0; el && up < 4; up++) {
      const parent = el.parentElement;
      if (!parent || parent === document.body || parent === document.documentElement) break;
      const display = getComputedStyle(el).display;
      if (!display.startsWith("inline") && display !== "contents") break;
      el = parent;
    }
    return el;
  };
  // Hidden before the action by one of its attributes (true), shown (false), or not known.
  const wasHidden = (el, old) => {
    let shown = false;
    for (const name in old) {
      if (HIDING[name](old[name])) return true;
      shown = shown || HIDING[name](el.getAttribute(name));  // hidden by it now
    }
    return shown ? false : null;
  };
  // innerText follows layout (hidden parts left out); a large block is read raw.
  const visibleText = (el) => clip(squash(
    el.getElementsByTagName("*").length > 200 ? el.textContent : el.innerText));
  function collect() {
    // Read again only while the receipt still settles: then it stops by itself.
    clearTimeout(timer);
    timer = setTimeout(stop, idleMs);
    take(observer.takeRecords());
    const skips = new Map();
    const skipped = (el) => {  // in or under what SKIP names (closest(), remembered)
      if (!el || el.nodeType !== 1) return false;
      let skip = skips.get(el);
      if (skip === undefined) skips.set(el, skip = el.matches(SKIP) || skipped(el.parentElement));
      return skip;
    };
    const revealed = [], hidden = [];
    for (const [el, old] of before) {
      if (!el.isConnected || skipped(el)) continue;
      const was = wasHidden(el, old);
      if (was === true && el.checkVisibility()) revealed.push(el);  // shown by the action
      else if (was === false && !el.checkVisibility()) hidden.push(el);  // hidden by it
    }
    // Text that went away, by its raw text (no layout needed).
    const left = new Map();
    const away = (text) => { if (text) left.set(text, (left.get(text) || 0) + 1); };
    for (const [parent, n] of removed) {
      if (skipped(parent) || (n.nodeType === 1 && n.matches(SKIP))) continue;
      let fresh = false;  // taken out of something the action put in: never there before
      for (let up = parent; up && !fresh; up = up.parentNode) fresh = added.has(up);
      if (!fresh && (n.nodeType === 1 || n.nodeType === 3)) away(squash(n.textContent));
    }
    for (const el of hidden) away(squash(el.textContent));
    // What a re-render took out and put back the same cancels out, node for node; the
    // rest is read a block at a time.
    const blocks = new Set(revealed);
    for (const n of added) {
      if ((n.nodeType !== 1 && n.nodeType !== 3) || !n.isConnected) continue;
      const raw = squash(n.textContent);
      const same = raw && left.get(raw);
      if (same) left.set(raw, same - 1);
      else if (raw) blocks.add(blockOf(n));
    }
    for (const n of edited) if (n.isConnected) blocks.add(blockOf(n));
    let more = 0;
    const appeared = [];
    for (const el of blocks) {
      if (!el || skipped(el)) continue;
      let outer = false;  // inside another block that is reported whole
      for (let up = el.parentElement; up && !outer; up = up.parentElement) outer = blocks.has(up);
      if (outer || !el.checkVisibility()) continue;
      if (appeared.length >= MAX_LISTED) { more++; continue; }
      const text = visibleText(el);
      if (text) appeared.push(text);
    }
    const gone = [];
    for (const [text, count] of left) {
      for (let i = 0; i < count; i++) {
        if (gone.length >= MAX_LISTED) more++; else gone.push(clip(text));
      }
    }
    return { appeared, gone, more, overflow };
  }
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
    if (G.__tabwardenText === watch) delete G.__tabwardenText;
  }
  let timer = setTimeout(stop, lifetimeMs);  // an action that failed never reads it
  const watch = G.__tabwardenText = { collect, stop };
}"""
"""Starts a watch in the world it is called in (replacing one an earlier action left):
``globalThis.__tabwardenText.collect()`` says what it saw so far. It stops by itself
``lifetimeMs`` after it started, or ``idleMs`` after it was last read."""

_INSTALL_AND_START = (
    f"function(lifetimeMs, idleMs) {{ globalThis.__tabwardenTextStart = {_WATCH};"
    " globalThis.__tabwardenTextStart(lifetimeMs, idleMs); return true; }"
)
_START = (
    "function(lifetimeMs, idleMs) { const start = globalThis.__tabwardenTextStart;"
    " if (!start) return false; start(lifetimeMs, idleMs); return true; }"
)
"""Installed once per world: an action's call is then short (compiling the watch on every
action cost a tenth of a millisecond before its input)."""


class TextWatch:
    """One tab's text watch: started before each action in tabwarden's world of the
    top-level document, and installed there once per world."""

    def __init__(self) -> None:
        self._installed: tuple[weakref.ref[FrameRegistry], int] | None = None
        """The frame registry and the world of its top-level document where the watch's
        code is installed."""

    @property
    def installed_in(self) -> int | None:
        """The world (execution context) where the watch is installed; None before the
        first action, or once the tab's registry is gone."""
        if self._installed is None or self._installed[0]() is None:
            return None
        return self._installed[1]

    async def start(
        self, registry: FrameRegistry, lifetime_ms: float, idle_ms: float, budget: Budget
    ) -> int:
        """Start the watch in tabwarden's world of the top-level document; returns that
        world (its execution context). The world is known after any snapshot: then nothing
        is awaited before the command is written, so it goes out ahead of the action's
        own."""
        context = await world(registry, registry.main_frame_id, budget)
        installed = self._installed
        here = installed is not None and installed[0]() is registry and installed[1] == context
        arguments = [{"value": lifetime_ms}, {"value": idle_ms}]
        for declaration in (_START, _INSTALL_AND_START):
            if declaration is _START and not here:
                continue
            reply = await registry.main_session.send(
                "Runtime.callFunctionOn",
                {
                    "functionDeclaration": declaration,
                    "executionContextId": context,
                    "arguments": arguments,
                    "returnByValue": True,
                },
                budget=budget,
            )
            if reply.get("result", {}).get("value") is True:
                self._installed = (weakref.ref(registry), context)
                return context
        raise CDPError("Runtime.callFunctionOn", -32000, "the text watch did not start")


@dataclass(frozen=True)
class TextChanges:
    """Text that appeared (or changed) and went away during an action, bounded."""

    appeared: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    more: int = 0
    """Changes left out to keep the receipt short."""
    overflow: bool = False
    """The page changed more than the watch keeps track of: there is more than it says."""

    @classmethod
    def from_page(cls, found: Any) -> TextChanges | None:
        """From what the watch's ``collect()`` returned (None when it did not run)."""
        if not isinstance(found, dict):
            return None
        more = found.get("more")
        return cls(
            [t for t in found.get("appeared", ()) if isinstance(t, str)],
            [t for t in found.get("gone", ()) if isinstance(t, str)],
            more if isinstance(more, int) else 0,
            found.get("overflow") is True,
        )

    @property
    def empty(self) -> bool:
        return not (self.appeared or self.gone or self.more or self.overflow)

    def lines(self, shown: str = "") -> list[str]:
        """The receipt's lines, leaving out text that ``shown`` (the diff's text) holds."""
        appeared = [t for t in self.appeared if t[:_SAME_AS_DIFF] not in shown]
        gone = [t for t in self.gone if t[:_SAME_AS_DIFF] not in shown]
        out = [f"text appeared: {_quoted(t)}" for t in appeared[:_SHOWN]]
        out += [f"text went away: {_quoted(t)}" for t in gone[: max(0, _SHOWN - len(out))]]
        left = len(appeared) + len(gone) - len(out) + self.more
        if self.overflow:
            out.append("… and more: the page changed a lot, snapshot(full=true) to read it")
        elif left:
            out.append(
                f"… {counted(left, 'more text change')}: snapshot(full=true) to read the page"
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "appeared": self.appeared,
            "gone": self.gone,
            "more": self.more,
            "overflow": self.overflow,
        }


def _quoted(text: str) -> str:
    if len(text) > _CLIP:
        text = text[: _CLIP - 1] + "…"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
