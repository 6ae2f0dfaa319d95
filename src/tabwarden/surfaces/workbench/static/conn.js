// The live channel to the workbench server: one WebSocket, reconnected with backoff.

const REQUEST_TIMEOUT_MS = 30000;
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const POLICY_VIOLATION = 1008; // the server closes with this when the token is refused

export class Connection extends EventTarget {
  constructor(token) {
    super();
    this.token = token;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, timer}
    this.attempt = 0;
    this.everOpened = false;
    this.stopped = false;
    this.retryTimer = null;
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  start() {
    if (this.stopped) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${location.host}/ws?token=${encodeURIComponent(this.token)}`;
    this.status("connecting", this.attempt ? "Reconnecting…" : "Connecting…");
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempt = 0;
      this.everOpened = true;
      this.status("open", "Connected");
      this.dispatchEvent(new Event("open"));
    });
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", (event) => this.closed(ws, event));
  }

  /** Send a message that needs no answer. */
  send(message) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send a request and resolve with its reply's result; reject with {message, hint}. */
  request(type, fields = {}) {
    if (!this.isOpen) {
      return Promise.reject({ message: "Not connected to the workbench", hint: "Wait for the connection to come back, then try again." });
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject({ message: `No answer to ${type} within ${REQUEST_TIMEOUT_MS / 1000} s`, hint: "The session may be busy; try again." });
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ id, type, ...fields }));
    });
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.type === "reply") {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      clearTimeout(waiter.timer);
      if (message.ok) waiter.resolve(message.result ?? {});
      else waiter.reject(message.error ?? { message: "The request failed", hint: "" });
      return;
    }
    this.dispatchEvent(new CustomEvent("message", { detail: message }));
  }

  async closed(ws, event) {
    if (ws !== this.ws) return;
    this.ws = null;
    for (const [, waiter] of this.pending) {
      clearTimeout(waiter.timer);
      waiter.reject({ message: "The connection closed before the answer came", hint: "Try again once reconnected." });
    }
    this.pending.clear();
    this.dispatchEvent(new Event("close"));
    if (event.code === POLICY_VIOLATION || (await this.tokenRefused())) {
      this.stopped = true;
      this.status("refused", "Token refused");
      this.dispatchEvent(new CustomEvent("refused", { detail: event.reason || "" }));
      return;
    }
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.status("closed", `Disconnected — retrying in ${Math.round(delay / 100) / 10} s`);
    this.retryTimer = setTimeout(() => this.start(), delay);
  }

  /** A refused upgrade reaches the page as a plain close (1006): ask over HTTP why. */
  async tokenRefused() {
    try {
      const response = await fetch(`/api/sessions?token=${encodeURIComponent(this.token)}`, { cache: "no-store" });
      return response.status === 401 || response.status === 403;
    } catch {
      return false; // the server is down: keep retrying
    }
  }

  status(state, text) {
    this.dispatchEvent(new CustomEvent("status", { detail: { state, text } }));
  }
}
