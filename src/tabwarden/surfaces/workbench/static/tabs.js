// The tab strip and the address bar of the watched session.

import { byTestId, favicon, h, toast } from "./dom.js";

const LOAD_LABELS = { loading: "Loading", interactive: "Interactive, still loading resources", complete: "Loaded" };

export class TabStrip {
  constructor(conn, { onWatchTab, isTakenOver }) {
    this.conn = conn;
    this.onWatchTab = onWatchTab;
    this.isTakenOver = isTakenOver;
    this.strip = byTestId("tab-strip");
    this.address = byTestId("address-url");
    this.loadState = byTestId("load-state");
    this.followButton = byTestId("follow-agent");
    this.tabs = [];
    this.active = null; // the agent's tab
    this.watching = null; // the tab whose frames are shown
    this.pinned = false; // the person chose a tab other than the agent's

    byTestId("nav-back").addEventListener("click", () => this.navigate("back"));
    byTestId("nav-forward").addEventListener("click", () => this.navigate("forward"));
    byTestId("nav-reload").addEventListener("click", () => this.navigate("reload"));
    byTestId("address-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const url = this.normaliseUrl(this.address.value);
      if (url) this.navigate("go", url);
    });
    this.address.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        this.address.value = this.watchedTab()?.url ?? "";
        this.address.blur();
      }
    });
    this.followButton.addEventListener("click", () => {
      this.pinned = false;
      this.onWatchTab(null);
      this.render();
    });
  }

  reset(tabs, active, watching) {
    this.tabs = tabs ?? [];
    this.active = active ?? null;
    this.watching = watching ?? active ?? null;
    this.pinned = this.watching !== null && this.watching !== this.active;
    this.render();
  }

  setTabs(tabs, active) {
    this.tabs = tabs ?? [];
    this.active = active ?? null;
    if (!this.tabs.some((t) => t.id === this.watching)) this.pinned = false;
    if (!this.pinned && this.active !== null && this.watching !== this.active) {
      // Follow the agent to the tab it uses now.
      this.watching = this.active;
      this.onWatchTab(null);
    }
    this.render();
  }

  setWatching(tabId) {
    if (tabId === this.watching) return;
    this.watching = tabId;
    this.render();
  }

  onLoad(message) {
    const tab = this.tabs.find((t) => t.id === message.tab);
    if (!tab) return;
    tab.load = message.state;
    if (message.url) tab.url = message.url;
    this.render();
  }

  watchedTab() {
    return this.tabs.find((t) => t.id === this.watching) ?? null;
  }

  render() {
    this.strip.replaceChildren(...this.tabs.map((tab) => this.tabElement(tab)));
    const tab = this.watchedTab();
    if (document.activeElement !== this.address) this.address.value = tab?.url ?? "";
    const state = tab?.load ?? "complete";
    this.loadState.dataset.state = state;
    this.loadState.setAttribute("aria-label", LOAD_LABELS[state] ?? state);
    this.loadState.title = LOAD_LABELS[state] ?? state;
    this.followButton.hidden = !this.pinned || this.watching === this.active;
  }

  tabElement(tab) {
    const title = tab.title || tab.url || "New tab";
    const opener = tab.opener ? this.tabs.find((t) => t.id === tab.opener) : null;
    const selected = tab.id === this.watching;
    const el = h("div", {
      class: "tab", role: "tab", tabindex: selected ? "0" : "-1", "aria-selected": selected ? "true" : "false",
      "data-testid": "tab-strip-tab", "data-tab-id": tab.id, "data-active": tab.active || tab.id === this.active ? "true" : "false",
      "aria-label": title, title: `${title}\n${tab.url}${tab.id === this.active ? "\nThe agent's current tab" : ""}`,
      onclick: () => this.pick(tab),
      onkeydown: (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); this.pick(tab); } },
    },
    favicon(tab.url, tab.title),
    tab.opener ? h("span", { class: "opener", "data-testid": "tab-opener", title: `Opened by ${opener?.title || opener?.url || tab.opener}`, "aria-label": "opened by another tab" }, "↳") : null,
    h("span", { class: "tab-title" }, title),
    tab.id === this.active ? h("span", { class: "agent-dot", title: "The agent's current tab", "data-testid": "tab-agent-mark" }) : null,
    h("button", {
      type: "button", class: "tab-close", "data-testid": "tab-close", "aria-label": `Close tab ${title}`, title: "Close tab",
      onclick: (event) => { event.stopPropagation(); this.close(tab); },
    }, "×"));
    return el;
  }

  pick(tab) {
    if (this.isTakenOver() && tab.id !== this.active) {
      // The person drives the browser: make it the browser's tab too.
      this.conn.request("switch_tab", { tab: tab.id }).catch((e) => toast(e.message, e.hint));
    }
    this.pinned = tab.id !== this.active;
    this.watching = tab.id;
    this.onWatchTab(this.pinned ? tab.id : null);
    this.render();
  }

  close(tab) {
    this.conn.request("close_tab", { tab: tab.id }).catch((e) => toast(e.message, e.hint));
  }

  navigate(action, url = null) {
    if (action === "go") this.address.blur();
    this.conn.request("navigate", { action, url }).catch((e) => toast(e.message, e.hint));
  }

  normaliseUrl(text) {
    const value = text.trim();
    if (!value) return "";
    if (/^(localhost|127\.|\[::1\])/i.test(value)) return `http://${value}`;
    if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return value;
    return `https://${value}`;
  }
}
