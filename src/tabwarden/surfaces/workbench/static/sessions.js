// The grid of live sessions: one card per session, with its latest thumbnail.

import { ago, byTestId, h, profileBadge } from "./dom.js";
import { toolLabel } from "./timeline.js";

export class SessionGrid {
  constructor() {
    this.grid = byTestId("session-grid");
    this.empty = byTestId("sessions-empty");
    this.count = byTestId("session-count");
    this.sessions = [];
    this.thumbnails = new Map(); // name -> data URL
    setInterval(() => this.refreshTimes(), 5000);
  }

  setSessions(sessions) {
    this.sessions = sessions ?? [];
    for (const name of this.thumbnails.keys()) {
      if (!this.sessions.some((s) => s.name === name)) this.thumbnails.delete(name);
    }
    this.render();
  }

  setThumbnail(name, data) {
    const url = `data:image/jpeg;base64,${data}`;
    this.thumbnails.set(name, url);
    const card = this.grid.querySelector(`[data-session="${CSS.escape(name)}"]`);
    if (!card) return;
    const img = card.querySelector("img");
    if (img) img.src = url;
    else card.querySelector(".thumb").replaceChildren(this.thumbImage(name, url));
  }

  thumbImage(name, url) {
    return h("img", { src: url, alt: `What session ${name} shows`, "data-testid": "session-thumbnail" });
  }

  render() {
    this.empty.hidden = this.sessions.length > 0;
    this.count.textContent = this.sessions.length ? `${this.sessions.length} live` : "";
    this.grid.replaceChildren(...this.sessions.map((s) => h("li", {}, this.card(s))));
  }

  card(s) {
    const url = this.thumbnails.get(s.name);
    const page = s.active ? (s.active.title || s.active.url) : "No tab";
    const flags = [
      profileBadge(s.profile, { "data-testid": "session-profile" }),
      s.engine ? h("span", { class: "badge", "data-testid": "session-engine", "data-engine": s.engine }, s.engine) : null,
      h("span", { class: "badge", "data-testid": "session-tabs" }, `${s.tabs} tab${s.tabs === 1 ? "" : "s"}`),
      s.busy ? h("span", { class: "badge busy", "data-testid": "session-busy" }, h("span", { class: "spinner", "aria-hidden": "true" }), " working") : null,
      s.pending_dialogs ? h("span", { class: "badge dialogs", "data-testid": "session-dialogs" },
        `${s.pending_dialogs} dialog${s.pending_dialogs === 1 ? "" : "s"} waiting`) : null,
      s.taken_over ? h("span", { class: "badge person", "data-testid": "session-taken-over" }, "a person is in control") : null,
    ];
    const last = s.last_call ? h("span", { class: "muted", "data-at": s.last_call.at, "data-testid": "session-last-call" },
      `last: ${toolLabel(s.last_call.tool)} · ${ago(s.last_call.at)}`) : null;
    return h("a", {
      class: `session-card${s.pending_dialogs ? " has-dialog" : ""}`, href: `#/s/${encodeURIComponent(s.name)}`,
      "data-testid": "session-card", "data-session": s.name,
      "aria-label": `Open session ${s.name}: ${page}`,
    },
    h("div", { class: "thumb" }, url ? this.thumbImage(s.name, url) : h("span", { class: "muted small" }, "no picture yet")),
    h("div", { class: "card-body" },
      h("div", { class: "card-title" }, h("strong", {}, s.name), h("span", { class: "muted small" }, [s.product, s.backend].filter(Boolean).join(" · "))),
      h("div", { class: "card-page", title: s.active?.url ?? "" }, page),
      h("div", { class: "card-flags" }, flags),
      last));
  }

  refreshTimes() {
    for (const el of this.grid.querySelectorAll("[data-testid=session-last-call]")) {
      const s = this.sessions.find((x) => x.last_call && String(x.last_call.at) === el.dataset.at);
      if (s) el.textContent = `last: ${toolLabel(s.last_call.tool)} · ${ago(s.last_call.at)}`;
    }
  }
}
