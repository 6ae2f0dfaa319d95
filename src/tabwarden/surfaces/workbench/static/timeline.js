// The timeline: every call of the watched session, newest first, with its receipt on click.

import { argsSummary, byTestId, clockTime, formatDuration, h } from "./dom.js";

const MAX_CALLS = 500;

/** Tool names without the "browser_" every one of them starts with. */
export function toolLabel(tool) {
  return String(tool ?? "").replace(/^browser_/, "");
}

function callState(call) {
  if (call.ok === null || call.ok === undefined) return "running";
  return call.ok ? "ok" : "error";
}

export class Timeline {
  constructor({ onReplay } = {}) {
    this.onReplay = onReplay ?? (() => {});
    this.list = byTestId("timeline-list");
    this.count = byTestId("timeline-count");
    this.detail = byTestId("timeline-detail");
    this.calls = new Map(); // id -> call, in arrival order
    this.entries = new Map(); // id -> element
    this.selected = null;
    byTestId("timeline-detail-close").addEventListener("click", () => this.select(null));
  }

  reset(calls = []) {
    const selected = this.selected;
    this.calls.clear();
    this.entries.clear();
    this.list.replaceChildren();
    this.selected = null;
    for (const call of calls) this.upsert(call);
    // A session re-sent (another tab watched) keeps the call the person was reading.
    if (selected !== null && this.calls.has(selected)) {
      this.selected = selected;
      this.entries.get(selected).firstChild.setAttribute("aria-current", "true");
    } else this.select(null);
  }

  upsert(call) {
    const known = this.calls.get(call.id);
    const merged = known ? { ...known, ...call } : call;
    this.calls.set(call.id, merged);
    const el = this.entry(merged);
    const old = this.entries.get(call.id);
    if (old) old.replaceWith(el);
    else this.list.prepend(el);
    this.entries.set(call.id, el);
    while (this.calls.size > MAX_CALLS) {
      const [oldest] = this.calls.keys();
      this.calls.delete(oldest);
      this.entries.get(oldest)?.remove();
      this.entries.delete(oldest);
    }
    this.count.textContent = `${this.calls.size} call${this.calls.size === 1 ? "" : "s"}`;
    if (this.selected === call.id) this.showDetail(merged);
  }

  entry(call) {
    const state = callState(call);
    const status = state === "running" ? h("span", { class: "spinner", "aria-label": "running" })
      : h("span", { "aria-label": state === "ok" ? "succeeded" : "failed" }, state === "ok" ? "✓" : "✗");
    const when = clockTime(call.started);
    const el = h("li", {},
      h("button", {
        type: "button", class: "timeline-entry", "data-testid": "timeline-entry", "data-call-id": call.id,
        "data-state": state, "data-tool": call.tool, "aria-current": this.selected === call.id ? "true" : "false",
        "aria-label": `${toolLabel(call.tool)} ${state === "running" ? "running" : `${state === "ok" ? "ok" : "failed"} in ${formatDuration(call.duration_ms)}`}${call.by === "person" ? " by a person" : ""}`,
        title: when, onclick: () => this.select(this.selected === call.id ? null : call.id),
      },
      h("span", { class: "status" }, status),
      h("span", {}, h("span", { class: "tool" }, toolLabel(call.tool)),
        call.by === "person" ? h("span", { class: "by-person" }, "by a person") : null),
      h("span", { class: "dur" }, state === "running" ? "running" : formatDuration(call.duration_ms)),
      h("span", { class: "args" }, argsSummary(call.args) || " ")));
    return el;
  }

  select(id) {
    this.selected = id;
    for (const [callId, el] of this.entries) {
      el.firstChild.setAttribute("aria-current", callId === id ? "true" : "false");
    }
    const call = id === null ? null : this.calls.get(id);
    this.detail.hidden = !call;
    if (call) {
      this.showDetail(call);
      // Show again where the call acted, as it was drawn when it ran.
      for (const mark of call.marks ?? []) this.onReplay({ ref: null, points: [], ...mark, tab: mark.tab ?? call.tab, call: call.id });
    }
  }

  showDetail(call) {
    const state = callState(call);
    byTestId("timeline-detail-title").textContent =
      `${toolLabel(call.tool)} — ${state === "running" ? "running" : state === "ok" ? "ok" : "error"}${call.duration_ms != null ? ` in ${formatDuration(call.duration_ms)}` : ""}`;
    byTestId("call-args").textContent = argsSummary(call.args);
    const error = byTestId("call-error");
    error.hidden = !call.error;
    if (call.error) {
      error.replaceChildren(h("div", {}, call.error.message),
        call.error.hint ? h("div", { class: "hint" }, call.error.hint) : null);
    }
    byTestId("call-receipt").textContent = call.text || (state === "running" ? "Still running…" : "(no text)");
  }
}
