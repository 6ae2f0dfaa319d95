// The workbench page: routes between the session grid and one session, and hands each
// server message to the part of the page that shows it. Wire protocol: docs/workbench-protocol.md.

import { Connection } from "./conn.js";
import { Diagnostics } from "./diagnostics.js";
import { byTestId, h, setProfileBadge, toast } from "./dom.js";
import { LiveView } from "./live.js";
import { ConsentModal, DialogBanner, ScreenshotTool } from "./modals.js";
import { SessionGrid } from "./sessions.js";
import { TabStrip } from "./tabs.js";
import { Timeline } from "./timeline.js";

const PROTOCOL_VERSION = 1;
const WATCH_RETRIES = 3;

class Workbench {
  constructor(token) {
    this.conn = new Connection(token);
    this.route = { view: "list", session: null };
    this.watched = null; // name of the session whose "session" message we hold
    this.summaries = [];
    this.takenOver = false;
    this.ownTakeover = false; // this page asked to take over (input is taken from it only)
    this.overlayOn = true;
    this.watchRetries = 0;
    this.watchedTab = null; // the tab asked for in the last watch (null: the agent's)
    this.framesAtWatch = 0;

    this.grid = new SessionGrid();
    this.live = new LiveView(this.conn);
    this.timeline = new Timeline({ onReplay: (mark) => this.live.onAction({ name: "", ...mark }) });
    this.tabs = new TabStrip(this.conn, {
      onWatchTab: (tab) => this.watch(this.route.session, tab),
      isTakenOver: () => this.takenOver,
    });
    this.diagnostics = new Diagnostics(this.conn, { watchedTab: () => this.live.frameTab ?? this.tabs.watching });
    this.dialogs = new DialogBanner(this.conn, {
      // Named only when it is not the tab on screen.
      tabTitle: (id) => (id && id !== (this.live.frameTab ?? this.tabs.watching)
        ? (this.tabs.tabs.find((t) => t.id === id)?.title || id) : ""),
    });
    this.consent = new ConsentModal(this.conn);
    this.screenshot = new ScreenshotTool(this.conn, { sourceCanvas: this.live.canvas });

    this.handlers = this.makeHandlers();
    this.bindControls();
    this.conn.addEventListener("status", (e) => this.showStatus(e.detail));
    this.conn.addEventListener("open", () => this.applyRoute());
    this.conn.addEventListener("close", () => {
      this.watched = null;
      byTestId("stage-wrap").classList.add("offline");
      this.personInControl(false); // the server hands back when a page leaves
    });
    this.conn.addEventListener("refused", (e) => this.showAuthError(
      `The workbench refused this page's token${e.detail ? ` (${e.detail})` : ""}.`));
    this.conn.addEventListener("message", (e) => this.dispatch(e.detail));
    window.addEventListener("hashchange", () => this.onHashChange());
    this.onHashChange();
    this.conn.start();
  }

  // ----- routing -----

  parseHash() {
    const match = location.hash.match(/^#\/s\/(.+)$/);
    return match ? { view: "session", session: decodeURIComponent(match[1]) } : { view: "list", session: null };
  }

  onHashChange() {
    const route = this.parseHash();
    const changed = route.view !== this.route.view || route.session !== this.route.session;
    this.route = route;
    byTestId("sessions-view").hidden = route.view !== "list";
    byTestId("session-view").hidden = route.view !== "session";
    const crumbs = byTestId("breadcrumb");
    if (route.view === "list") {
      crumbs.replaceChildren("Sessions");
      document.title = "tabwarden workbench";
    } else {
      crumbs.replaceChildren(h("a", { href: "#/" }, "Sessions"), " › ", route.session);
      document.title = `${route.session} — tabwarden workbench`;
    }
    if (changed || !this.started) this.applyRoute();
    this.started = true;
  }

  applyRoute() {
    if (!this.conn.isOpen) return;
    if (this.route.view === "list") {
      if (this.watched !== null) this.conn.send({ type: "unwatch" });
      this.watched = null;
      this.personInControl(false);
      this.conn.send({ type: "list" });
    } else {
      this.openSession(this.route.session);
    }
  }

  openSession(name) {
    this.watched = null;
    byTestId("stage-wrap").classList.remove("offline");
    this.live.reset();
    this.timeline.reset();
    this.dialogs.reset([]);
    this.personInControl(false);
    byTestId("session-name").textContent = name;
    byTestId("session-closed").hidden = true;
    byTestId("session-closed").dataset.reason = "";
    this.applySummary();
    this.watch(name, null);
  }

  watch(name, tab, { retry = false } = {}) {
    if (!retry) this.watchRetries = 0;
    this.watchedTab = tab;
    this.framesAtWatch = this.live.frames;
    this.conn.send({ type: "watch", session: name, tab });
    if (this.overlayOn === false) this.conn.send({ type: "overlay", on: false });
  }

  // ----- server messages -----

  dispatch(m) {
    const handler = this.handlers[m.type];
    if (handler) handler.call(this, m);
  }

  makeHandlers() {
    return {
      hello(m) {
        if (m.version !== PROTOCOL_VERSION) {
          toast(`The workbench server speaks protocol ${m.version}; this page speaks ${PROTOCOL_VERSION}.`,
            "Reload the page; if this stays, the page and server come from different tabwarden versions.");
        }
        this.setSummaries(m.sessions);
        for (const request of m.consent ?? []) this.consent.add(request);
      },
      sessions(m) { this.setSummaries(m.sessions); },
      thumbnail(m) { this.grid.setThumbnail(m.session, m.data); },
      session(m) {
        if (!this.isRouteSession(m.session)) return;
        this.watched = this.route.session;
        setProfileBadge(byTestId("profile-badge"), m.profile);
        byTestId("session-product").textContent = [m.product, m.backend].filter(Boolean).join(" · ");
        byTestId("session-closed").hidden = true;
        byTestId("session-closed").dataset.reason = "";
        this.tabs.reset(m.tabs, m.active, m.watching);
        this.timeline.reset(m.calls);
        this.live.setSnapshot(m.snapshot);
        this.diagnostics.reset(m);
        this.dialogs.reset(m.dialogs);
        for (const request of m.consent ?? []) this.consent.add(request);
        this.personInControl(Boolean(m.taken_over));
        if (!m.watching) this.live.waiting.textContent = "This session has no tab to show.";
        this.applySummary();
        this.updateTitle();
      },
      tabs(m) {
        if (!this.watching()) return;
        this.tabs.setTabs(m.tabs, m.active);
      },
      load(m) { if (this.watching()) this.tabs.onLoad(m); },
      frame(m) {
        if (!this.watching()) return;
        const tabChanged = m.tab !== this.live.frameTab;
        this.live.onFrame(m);
        if (tabChanged) this.tabs.setWatching(m.tab);
      },
      snapshot(m) { if (this.watching()) this.live.setSnapshot(m); },
      call_started(m) { if (this.watching()) { this.timeline.upsert(m.call); this.applySummary(); } },
      call(m) { if (this.watching()) { this.timeline.upsert(m.call); this.applySummary(); } },
      action(m) { if (this.watching()) this.live.onAction(m); },
      dialog_opened(m) {
        if (!this.watching()) return;
        this.dialogs.opened(m.dialog);
        this.updateTitle();
      },
      dialog_closed(m) {
        if (!this.watching()) return;
        this.dialogs.closed(m.dialog);
        this.diagnostics.addClosedDialog(m.dialog);
        this.updateTitle();
      },
      console(m) { if (this.watching()) this.diagnostics.addConsole(m.tab, m.entry); },
      network(m) { if (this.watching()) this.diagnostics.addNetwork(m.tab, m.entry); },
      download(m) { if (this.watching()) this.diagnostics.addDownload(m.entry); },
      emulation(m) { if (this.watching()) this.diagnostics.setEmulation(m.state); },
      trace(m) { if (this.watching()) this.diagnostics.setCapture("trace", m.state); },
      recording(m) { if (this.watching()) this.diagnostics.setCapture("recording", m.state); },
      person(m) { if (this.watching()) this.personInControl(Boolean(m.taken_over)); },
      consent(m) { this.consent.add(m.request); },
      consent_closed(m) { this.consent.closed(m.id); },
      closed(m) {
        if (!this.isRouteSession(m.session)) return;
        this.watched = null;
        this.personInControl(false);
        const box = byTestId("session-closed");
        box.textContent = `This session ended${m.reason ? `: ${m.reason}` : "."}`;
        box.dataset.reason = "closed";
        box.hidden = false;
        this.dialogs.reset([]);
        this.live.waiting.textContent = "The session ended.";
      },
      error(m) {
        toast(m.message, m.hint);
        this.retryWatch();
      },
    };
  }

  /** A watch that brought an error and no frame (the live view failed to start) is
   * asked again, a few times, a little later each time. */
  retryWatch() {
    if (this.route.view !== "session" || this.live.frames > this.framesAtWatch) return;
    if (this.watchRetries >= WATCH_RETRIES) return;
    const session = this.route.session;
    const delay = 500 * 2 ** this.watchRetries;
    this.watchRetries += 1;
    setTimeout(() => {
      if (this.route.session === session && this.live.frames === this.framesAtWatch && this.conn.isOpen) {
        this.watch(session, this.watchedTab, { retry: true });
      }
    }, delay);
  }

  /** A message about the session this page shows. Only a message naming another live
   * session is someone else's: a name the redactor replaced still means ours. */
  isRouteSession(name) {
    if (this.route.view !== "session") return false;
    return name === this.route.session || !this.summaries.some((s) => s.name === name);
  }

  watching() {
    return this.route.view === "session" && this.watched === this.route.session;
  }

  setSummaries(sessions) {
    this.summaries = sessions ?? [];
    this.grid.setSessions(this.summaries);
    this.applySummary();
    this.updateTitle();
    if (this.route.view !== "session") return;
    const present = this.summaries.some((x) => x.name === this.route.session);
    const box = byTestId("session-closed");
    if (!present && !this.watched && box.dataset.reason !== "closed") {
      box.textContent = `No live session is named “${this.route.session}”.`;
      box.hidden = false;
      box.dataset.reason = "missing";
    } else if (present && !this.watched && box.dataset.reason === "missing" && this.conn.isOpen) {
      // The session this link names has started: open it.
      this.openSession(this.route.session);
    }
  }

  /** The session bar's live flags, from the list summary and the calls still running. */
  applySummary() {
    if (this.route.view !== "session") return;
    const s = this.summaries.find((x) => x.name === this.route.session);
    const running = [...this.timeline.calls.values()]
      .some((c) => (c.ok === null || c.ok === undefined) && c.by !== "person");
    byTestId("session-busy-indicator").hidden = !(running || s?.busy);
    if (s && !this.watched) setProfileBadge(byTestId("profile-badge"), s.profile);
  }

  // ----- controls -----

  bindControls() {
    const takeover = byTestId("takeover-button");
    takeover.addEventListener("click", () => this.requestTakeover(!this.takenOver));
    byTestId("handback-button").addEventListener("click", () => this.requestTakeover(false));
    byTestId("overlay-toggle").addEventListener("click", () => {
      this.overlayOn = !this.overlayOn;
      byTestId("overlay-toggle").setAttribute("aria-pressed", String(this.overlayOn));
      this.live.setOverlay(this.overlayOn);
      this.conn.send({ type: "overlay", on: this.overlayOn });
    });
    byTestId("screenshot-button").addEventListener("click", () => {
      if (!this.screenshot.open()) toast("No frame to capture yet", "Wait for the live view to show the page.");
    });
  }

  /** Someone is (or no one is) in control of the watched session: this page, or another. */
  personInControl(anyone) {
    if (!anyone) this.ownTakeover = false;
    this.setTakenOver(anyone && this.ownTakeover);
    byTestId("taken-over-elsewhere").hidden = !(anyone && !this.ownTakeover);
  }

  async requestTakeover(on) {
    const button = byTestId("takeover-button");
    button.disabled = true;
    const before = this.ownTakeover;
    this.ownTakeover = on; // so that the "person" message the request causes is read as ours
    try {
      const result = await this.conn.request("takeover", { on });
      this.ownTakeover = typeof result.taken_over === "boolean" ? result.taken_over : on;
      this.personInControl(this.ownTakeover);
      const shown = this.live.frameTab ?? this.tabs.watching;
      if (this.ownTakeover && shown) {
        // The browser takes input only in the tab it shows in front: bring the watched
        // one there (a popup may have taken the front), as the tab the person now drives.
        this.conn.request("switch_tab", { tab: shown }).catch((e) => toast(e.message, e.hint));
      }
    } catch (error) {
      this.ownTakeover = before;
      toast(error.message, error.hint);
    } finally {
      button.disabled = false;
    }
  }

  setTakenOver(on) {
    this.takenOver = on;
    this.live.setTakenOver(on);
    byTestId("takeover-banner").hidden = !on;
    const button = byTestId("takeover-button");
    button.textContent = on ? "Hand back" : "Take over";
    button.setAttribute("aria-pressed", String(on));
  }

  /** The browser tab's title says when a dialog waits, so a person sees it from elsewhere. */
  updateTitle() {
    if (this.route.view !== "session") {
      const waiting = this.summaries.reduce((n, s) => n + (s.pending_dialogs || 0), 0);
      document.title = `${waiting ? `(${waiting}) ` : ""}tabwarden workbench`;
      return;
    }
    const waiting = this.dialogs.dialogs.length;
    document.title = `${waiting ? `(${waiting}) ` : ""}${this.route.session} — tabwarden workbench`;
  }

  showStatus({ state, text }) {
    const el = byTestId("connection-status");
    el.dataset.state = state;
    el.querySelector(".conn-text").textContent = text;
  }

  showAuthError(text) {
    byTestId("auth-error").hidden = false;
    byTestId("auth-error").querySelector(".notice-text").textContent = text;
    byTestId("sessions-view").hidden = true;
    byTestId("session-view").hidden = true;
  }
}

function start() {
  const token = new URLSearchParams(location.search).get("token");
  if (!token) {
    const el = byTestId("auth-error");
    el.hidden = false;
    el.querySelector(".notice-text").textContent = "This link has no token.";
    byTestId("connection-status").dataset.state = "refused";
    byTestId("connection-status").querySelector(".conn-text").textContent = "No token";
    return;
  }
  const bench = new Workbench(token);
  const live = bench.live;
  // Read-only state for end-to-end tests.
  window.__workbench = Object.freeze({
    get frames() { return live.frames; },
    get lastShownSeq() { return live.lastShownSeq; },
    get lastFrameMeta() { return live.meta ? { ...live.meta } : null; },
    overlayBoxes: () => live.overlayBoxes(),
    liveRect: () => live.liveRect(),
  });
}

start();
