// The diagnostics drawer: console, network, downloads, storage, emulation, trace and
// recording, recent dialogs.

import { byTestId, clockTime, formatBytes, formatDuration, h } from "./dom.js";

const MAX_CONSOLE = 1000;
const MAX_NETWORK = 1000;
const LEVEL_RANK = { debug: 0, verbose: 0, log: 1, info: 1, warning: 2, warn: 2, error: 3, exception: 3 };

function stateText(state) {
  if (!state) return "unknown";
  const parts = [state.active ? "on" : "off"];
  for (const [key, value] of Object.entries(state)) {
    if (key !== "active" && value !== null && value !== undefined && value !== "") parts.push(`${key}: ${value}`);
  }
  return parts.join(" · ");
}

function prettyJson(value) {
  return typeof value === "string" ? value : JSON.stringify(value ?? {}, null, 2);
}

// The parts of a request's details, under the names the server may give them.
const DETAIL_PARTS = [
  ["request", "Request"], ["request_headers", "Request headers"], ["post_data", "Posted data"],
  ["response", "Response"], ["response_headers", "Response headers"], ["headers", "Headers"],
  ["body", "Response body"],
];

function detailSections(result) {
  const details = result.details ?? result;
  const parts = DETAIL_PARTS.filter(([key]) => details[key] !== undefined && details[key] !== null);
  if (!parts.length) return [h("pre", { "data-testid": "network-detail-all" }, prettyJson(result))];
  const notes = [details.post_data_note, details.body_note].filter(Boolean);
  return [
    ...parts.flatMap(([key, title]) => [h("h3", {}, title),
      h("pre", { "data-testid": `network-detail-${key.replace(/_/g, "-")}` }, prettyJson(details[key]))]),
    ...notes.map((note) => h("p", { class: "muted small" }, note)),
  ];
}

/** A table of cookies or storage entries: a list, {items: [...]}, or {origin: {key: value}}. */
function itemsTable(value, testid) {
  let rows = Array.isArray(value) ? value : Array.isArray(value?.items) ? value.items : null;
  if (rows === null && value && typeof value === "object") {
    rows = Object.entries(value).flatMap(([origin, entries]) => (entries && typeof entries === "object"
      ? Object.entries(entries).map(([key, v]) => ({ origin, key, value: v }))
      : [{ key: origin, value: entries }]));
  }
  rows = rows ?? [];
  const notes = Array.isArray(value?.notes) ? value.notes : [];
  if (!rows.length) {
    return h("div", { "data-testid": testid }, h("p", { class: "muted" }, "None."), notes.map((n) => h("p", { class: "muted small" }, n)));
  }
  const preferred = ["origin", "name", "key", "value", "domain", "path", "expires", "secure", "httpOnly", "sameSite"];
  const present = new Set(rows.flatMap((r) => Object.keys(r)));
  const columns = [...preferred.filter((c) => present.has(c)), ...[...present].filter((c) => !preferred.includes(c))].slice(0, 8);
  const cell = (v) => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
  return h("div", { "data-testid": testid },
    h("table", {}, h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))),
      h("tbody", {}, rows.map((r) => h("tr", {}, columns.map((c) => h("td", {}, cell(r[c]))))))),
    notes.map((n) => h("p", { class: "muted small" }, n)));
}

export class Diagnostics {
  constructor(conn, { watchedTab }) {
    this.conn = conn;
    this.watchedTab = watchedTab;
    this.drawer = byTestId("diagnostics");
    this.body = this.drawer.querySelector(".drawer-body");
    this.toggle = byTestId("drawer-toggle");
    this.tabs = [...this.drawer.querySelectorAll('[role="tab"]')];
    this.current = "console";
    this.console = [];
    this.network = new Map();
    this.downloads = new Map();
    this.recentDialogs = [];
    this.selectedRequest = null;
    this.dirty = new Set();
    this.renderQueued = false;

    for (const tab of this.tabs) {
      tab.setAttribute("aria-selected", "false");
      tab.addEventListener("click", () => this.open(tab.dataset.panel));
    }
    this.toggle.addEventListener("click", () => this.setOpen(this.body.hidden));
    byTestId("console-level").addEventListener("change", () => this.renderConsole());
    byTestId("network-filter").addEventListener("input", () => this.renderNetwork());
    byTestId("network-failed-only").addEventListener("change", () => this.renderNetwork());
    byTestId("storage-load").addEventListener("click", () => this.loadStorage());
  }

  setOpen(open) {
    this.body.hidden = !open;
    this.drawer.classList.toggle("open", open);
    this.toggle.setAttribute("aria-expanded", String(open));
    this.toggle.setAttribute("aria-label", open ? "Hide diagnostics" : "Show diagnostics");
    this.toggle.innerHTML = open ? "&#9660;" : "&#9650;";
    if (open) this.showPanel(this.current);
    else for (const tab of this.tabs) tab.setAttribute("aria-selected", "false");
  }

  open(panel) {
    if (!this.body.hidden && this.current === panel) {
      this.setOpen(false);
      return;
    }
    this.current = panel;
    this.setOpen(true);
  }

  showPanel(panel) {
    for (const tab of this.tabs) tab.setAttribute("aria-selected", String(tab.dataset.panel === panel));
    for (const el of this.body.querySelectorAll('[role="tabpanel"]')) el.hidden = el.dataset.panel !== panel;
    if (panel === "console") this.renderConsole();
    if (panel === "network") this.renderNetwork();
  }

  reset(session) {
    this.console = (session.console ?? []).slice(-MAX_CONSOLE);
    this.network = new Map((session.network ?? []).map((e) => [e.id, e]));
    this.downloads = new Map((session.downloads ?? []).map((d) => [d.guid, d]));
    this.recentDialogs = session.recent_dialogs ?? [];
    this.selectedRequest = null;
    byTestId("network-detail").hidden = true;
    byTestId("storage-result").replaceChildren();
    this.setEmulation(session.emulation);
    this.setCapture("trace", session.trace);
    this.setCapture("recording", session.recording);
    this.renderConsole();
    this.renderNetwork();
    this.renderDownloads();
    this.renderDialogs();
  }

  /** Busy pages log and fetch a lot: draw a list at most once a frame, and its rows only
   * while its panel is open (the tab's count is kept current either way). */
  renderSoon(panel) {
    this.dirty.add(panel);
    if (this.renderQueued) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      const dirty = [...this.dirty];
      this.dirty.clear();
      for (const name of dirty) {
        if (name === "console") this.renderConsole();
        if (name === "network") this.renderNetwork();
      }
    });
  }

  isShown(panel) {
    return !this.body.hidden && this.current === panel;
  }

  // ----- console -----

  addConsole(tab, entry) {
    this.console.push({ tab, ...entry });
    if (this.console.length > MAX_CONSOLE) this.console.splice(0, this.console.length - MAX_CONSOLE);
    this.renderSoon("console");
  }

  renderConsole() {
    const errors = this.console.filter((e) => LEVEL_RANK[e.level] === 3).length;
    this.setCount("console", errors || "", errors > 0);
    if (!this.isShown("console")) return;
    const min = byTestId("console-level").value;
    const rank = min ? LEVEL_RANK[min] : -1;
    const rows = this.console.filter((e) => (LEVEL_RANK[e.level] ?? 1) >= rank);
    const list = byTestId("console-rows");
    const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
    list.replaceChildren(...rows.map((e) => h("li", {
      "data-testid": "console-row", "data-level": e.level, title: (e.stack ?? []).join("\n") || null,
    },
    e.url ? h("span", { class: "where", title: e.url }, `${e.url.split("/").pop() || e.url}${e.line > 0 ? `:${e.line}` : ""}`) : null,
    h("span", { class: "muted" }, `${clockTime(e.at)} ${e.level} `), e.text)));
    if (atBottom) list.scrollTop = list.scrollHeight;
  }

  // ----- network -----

  addNetwork(tab, entry) {
    const known = this.network.get(entry.id);
    this.network.set(entry.id, { tab, ...known, ...entry });
    if (this.network.size > MAX_NETWORK) this.network.delete(this.network.keys().next().value);
    this.renderSoon("network");
  }

  renderNetwork() {
    const failed = [...this.network.values()].filter((e) => e.failed || e.status >= 400).length;
    this.setCount("network", failed ? `${this.network.size} · ${failed} failed` : this.network.size || "", failed > 0);
    if (!this.isShown("network")) return;
    const text = byTestId("network-filter").value.trim().toLowerCase();
    const failedOnly = byTestId("network-failed-only").checked;
    const rows = [...this.network.values()].filter((e) => {
      if (failedOnly && !(e.failed || (e.status && e.status >= 400))) return false;
      if (!text) return true;
      return [e.url, e.method, e.status, e.type, e.failed].some((v) => v != null && String(v).toLowerCase().includes(text));
    });
    byTestId("network-rows").replaceChildren(...rows.map((e) => {
      const failed = Boolean(e.failed) || (e.status >= 400);
      return h("tr", {
        class: `network-row${failed ? " failed" : ""}`, "data-testid": "network-row", "data-request-id": e.id,
        tabindex: "0", "aria-selected": e.id === this.selectedRequest ? "true" : "false",
        onclick: () => this.detail(e),
        onkeydown: (event) => { if (event.key === "Enter") this.detail(e); },
      },
      h("td", {}, e.method ?? ""),
      h("td", {}, e.failed ? e.failed : e.status ?? "…"),
      h("td", { class: "url", title: e.url }, e.url),
      h("td", {}, e.type ?? ""),
      h("td", { class: "num" }, formatDuration(e.duration_ms)),
      h("td", { class: "num" }, formatBytes(e.size)));
    }));
  }

  async detail(entry) {
    this.selectedRequest = entry.id;
    this.renderNetwork();
    const box = byTestId("network-detail");
    box.hidden = false;
    box.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    try {
      const result = await this.conn.request("network_detail", { tab: entry.tab ?? this.watchedTab(), request_id: entry.id });
      if (this.selectedRequest !== entry.id) return;
      box.replaceChildren(
        h("div", { class: "panel-head" }, h("strong", {}, `${entry.method ?? ""} ${entry.status ?? ""}`),
          h("button", { type: "button", class: "icon", "aria-label": "Close request details",
            onclick: () => { box.hidden = true; this.selectedRequest = null; this.renderNetwork(); } }, "×")),
        h("p", { class: "small", style: "word-break: break-all" }, entry.url),
        ...detailSections(result));
    } catch (error) {
      box.replaceChildren(h("p", { class: "error-text", role: "alert" }, error.message),
        error.hint ? h("p", { class: "muted small" }, error.hint) : null);
    }
  }

  // ----- downloads -----

  addDownload(entry) {
    this.downloads.set(entry.guid, { ...this.downloads.get(entry.guid), ...entry });
    this.renderDownloads();
  }

  renderDownloads() {
    const list = byTestId("download-rows");
    const rows = [...this.downloads.values()];
    list.replaceChildren(...rows.map((d) => {
      // The protocol's names, or those of the session's download records.
      const name = d.filename || d.suggested_name || (d.path ? d.path.split(/[\\/]/).pop() : "") || d.url;
      const done = d.bytes ?? d.received_bytes;
      const total = d.total ?? d.total_bytes;
      return h("li", {
        class: `download-row${d.executable ? " executable" : ""}`, "data-testid": "download-row",
        "data-executable": d.executable ? "true" : "false", "data-state": d.state,
      },
      d.executable ? h("span", { "data-testid": "download-executable" }, "⚠ executable file — ") : null,
      `${name}  ${d.state ?? ""}  ${formatBytes(done)}${total ? ` / ${formatBytes(total)}` : ""}`,
      (d.reasons ?? []).length ? h("div", {}, d.reasons.join("; ")) : null,
      d.error ? h("div", { class: "error-text" }, d.error) : null,
      h("div", { class: "muted" }, d.path || d.url));
    }));
    if (!rows.length) list.append(h("li", { class: "muted" }, "No downloads."));
    this.setCount("downloads", rows.length || "", rows.some((d) => d.executable));
  }

  // ----- storage, emulation, trace, recording -----

  async loadStorage() {
    const out = byTestId("storage-result");
    out.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    try {
      const result = await this.conn.request("storage");
      out.replaceChildren(
        h("h3", {}, "Cookies"), itemsTable(result.cookies, "storage-cookies"),
        h("h3", {}, "Local storage"), itemsTable(result.local_storage, "storage-local"));
    } catch (error) {
      out.replaceChildren(h("p", { class: "error-text", role: "alert" }, error.message),
        error.hint ? h("p", { class: "muted small" }, error.hint) : null);
    }
  }

  setEmulation(state) {
    const entries = Object.entries(state ?? {}).filter(([, v]) => v !== null && v !== undefined);
    const dl = byTestId("emulation-state");
    dl.replaceChildren(...entries.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, typeof v === "object" ? JSON.stringify(v) : String(v))]));
    if (!entries.length) dl.append(h("dt", {}, "Nothing emulated"), h("dd", {}, ""));
  }

  setCapture(kind, state) {
    byTestId(`${kind}-state`).textContent = stateText(state);
    byTestId(`${kind}-state`).dataset.active = state?.active ? "true" : "false";
    const trace = byTestId("trace-state").dataset.active === "true";
    const recording = byTestId("recording-state").dataset.active === "true";
    this.setCount("capture", [trace && "trace", recording && "rec"].filter(Boolean).join(" · "), false);
  }

  // ----- dialogs -----

  addClosedDialog(dialog) {
    this.recentDialogs = [...this.recentDialogs.filter((d) => d.id !== dialog.id), dialog].slice(-50);
    this.renderDialogs();
  }

  renderDialogs() {
    const list = byTestId("recent-dialogs");
    list.replaceChildren(...[...this.recentDialogs].reverse().map((d) => h("li", {
      "data-testid": "recent-dialog", "data-closed-by": d.closed_by ?? "",
    },
    h("strong", {}, d.type), ` “${d.message ?? ""}” — `,
    d.accepted === true ? "accepted" : d.accepted === false ? "dismissed" : "closed",
    d.closed_by ? ` by ${d.closed_by}` : "", d.closed_at ? h("span", { class: "muted" }, `  ${clockTime(d.closed_at)}`) : null,
    d.url ? h("div", { class: "muted" }, d.url) : null)));
    if (!this.recentDialogs.length) list.append(h("li", { class: "muted" }, "No dialogs yet."));
    this.setCount("dialogs", this.recentDialogs.length || "", false);
  }

  setCount(panel, text, alert) {
    const el = this.drawer.querySelector(`[data-panel="${panel}"] .count`);
    if (!el) return;
    el.textContent = text === "" || text === 0 ? "" : String(text);
    el.classList.toggle("alert", Boolean(alert));
  }
}

