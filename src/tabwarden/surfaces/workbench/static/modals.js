// What asks the person to decide: pending page dialogs, consent to attach, and the
// screenshot with a note.

import { byTestId, h, showModal } from "./dom.js";

export class DialogBanner {
  constructor(conn, { tabTitle } = {}) {
    this.conn = conn;
    this.tabTitle = tabTitle ?? (() => "");
    this.banner = byTestId("dialog-banner");
    this.prompt = byTestId("dialog-prompt");
    this.promptLabel = this.banner.querySelector(".dialog-prompt-label");
    this.error = byTestId("dialog-error");
    this.dialogs = [];
    this.shownId = null;
    byTestId("dialog-accept").addEventListener("click", () => this.answer("accept"));
    byTestId("dialog-dismiss").addEventListener("click", () => this.answer("dismiss"));
    this.prompt.addEventListener("keydown", (event) => {
      if (event.key === "Enter") this.answer("accept");
      if (event.key === "Escape") this.answer("dismiss");
    });
  }

  reset(dialogs) {
    this.dialogs = [...(dialogs ?? [])];
    this.render();
  }

  opened(dialog) {
    this.dialogs = [...this.dialogs.filter((d) => d.id !== dialog.id), dialog];
    this.render();
  }

  closed(dialog) {
    this.dialogs = this.dialogs.filter((d) => d.id !== dialog.id);
    this.render();
  }

  render() {
    const dialog = this.dialogs[0];
    this.banner.hidden = !dialog;
    if (!dialog) {
      this.shownId = null;
      return;
    }
    if (dialog.id === this.shownId) {
      byTestId("dialog-more").textContent = this.more();
      return;
    }
    this.shownId = dialog.id;
    this.banner.dataset.dialogId = dialog.id;
    this.banner.dataset.dialogType = dialog.type;
    const kind = { alert: "Alert", confirm: "Confirm", prompt: "Prompt", beforeunload: "Leave page?" }[dialog.type] ?? dialog.type;
    byTestId("dialog-kind").textContent = `${kind} — the page is waiting for an answer`;
    const where = this.tabTitle(dialog.tab_id);
    byTestId("dialog-where").textContent = where ? `in the tab “${where}”` : "";
    byTestId("dialog-message").textContent = dialog.message || "(no message)";
    const isPrompt = dialog.type === "prompt";
    this.promptLabel.hidden = !isPrompt;
    this.prompt.value = isPrompt ? dialog.default_prompt ?? "" : "";
    byTestId("dialog-dismiss").hidden = dialog.type === "alert";
    byTestId("dialog-accept").textContent = dialog.type === "alert" ? "OK" : dialog.type === "beforeunload" ? "Leave" : "Accept";
    byTestId("dialog-dismiss").textContent = dialog.type === "beforeunload" ? "Stay" : "Dismiss";
    byTestId("dialog-more").textContent = this.more();
    this.error.hidden = true;
    this.setBusy(false);
  }

  more() {
    const rest = this.dialogs.length - 1;
    return rest > 0 ? `${rest} more waiting` : "";
  }

  setBusy(busy) {
    byTestId("dialog-accept").disabled = busy;
    byTestId("dialog-dismiss").disabled = busy;
  }

  async answer(action) {
    const dialog = this.dialogs[0];
    if (!dialog) return;
    this.setBusy(true);
    this.error.hidden = true;
    try {
      await this.conn.request("dialog", {
        dialog_id: dialog.id, action, prompt_text: dialog.type === "prompt" && action === "accept" ? this.prompt.value : null,
      });
      // dialog_closed removes it; until then the buttons stay disabled.
    } catch (error) {
      this.error.textContent = `${error.message}${error.hint ? ` — ${error.hint}` : ""}`;
      this.error.hidden = false;
      this.setBusy(false);
    }
  }
}

export class ConsentModal {
  constructor(conn) {
    this.conn = conn;
    this.modal = byTestId("consent-modal");
    this.error = byTestId("consent-error");
    this.requests = [];
    byTestId("consent-allow").addEventListener("click", () => this.answer(true));
    byTestId("consent-deny").addEventListener("click", () => this.answer(false));
  }

  add(request) {
    this.requests = [...this.requests.filter((r) => r.id !== request.id), request];
    this.render();
  }

  closed(id) {
    this.requests = this.requests.filter((r) => r.id !== id);
    this.render();
  }

  render() {
    const request = this.requests[0];
    showModal(this.modal, Boolean(request));
    if (!request) delete this.modal.dataset.requestId;
    if (!request || this.modal.dataset.requestId === String(request.id)) return;
    this.modal.dataset.requestId = request.id;
    byTestId("consent-description").textContent = request.description || "An agent asks to control a browser that is already running.";
    byTestId("consent-endpoint").textContent = [request.cdp_url, request.profile && `profile: ${request.profile}`].filter(Boolean).join(" · ");
    const tabs = request.tabs ?? [];
    byTestId("consent-tabs").replaceChildren(...(tabs.length ? tabs.map((t) => h("li", { "data-testid": "consent-tab" },
      t.title || "(untitled)", h("div", { class: "muted" }, t.url))) : [h("li", { class: "muted" }, "No open tabs")]));
    this.error.hidden = true;
    byTestId("consent-allow").disabled = false;
    byTestId("consent-deny").disabled = false;
    byTestId("consent-deny").focus();
  }

  async answer(allow) {
    const request = this.requests[0];
    if (!request) return;
    byTestId("consent-allow").disabled = true;
    byTestId("consent-deny").disabled = true;
    try {
      await this.conn.request("consent", { request_id: request.id, allow });
      this.closed(request.id);
    } catch (error) {
      this.error.textContent = `${error.message}${error.hint ? ` — ${error.hint}` : ""}`;
      this.error.hidden = false;
      byTestId("consent-allow").disabled = false;
      byTestId("consent-deny").disabled = false;
    }
  }
}

const NOTE_FONT_PX = 18;

export class ScreenshotTool {
  constructor(conn, { sourceCanvas }) {
    this.conn = conn;
    this.source = sourceCanvas;
    this.modal = byTestId("screenshot-modal");
    this.canvas = byTestId("screenshot-canvas");
    this.ctx = this.canvas.getContext("2d");
    this.note = byTestId("screenshot-note");
    this.frozen = null;
    this.box = null;
    this.dragFrom = null;
    byTestId("screenshot-cancel").addEventListener("click", () => this.close());
    byTestId("screenshot-save").addEventListener("click", () => this.save());
    this.modal.addEventListener("keydown", (event) => { if (event.key === "Escape") this.close(); });
    this.canvas.addEventListener("pointerdown", (event) => {
      this.canvas.setPointerCapture(event.pointerId);
      this.dragFrom = this.point(event);
      this.box = null;
      this.draw();
    });
    this.canvas.addEventListener("pointermove", (event) => {
      if (!this.dragFrom) return;
      const to = this.point(event);
      this.box = {
        x: Math.min(this.dragFrom.x, to.x), y: Math.min(this.dragFrom.y, to.y),
        w: Math.abs(to.x - this.dragFrom.x), h: Math.abs(to.y - this.dragFrom.y),
      };
      this.draw();
    });
    this.canvas.addEventListener("pointerup", () => {
      this.dragFrom = null;
      if (this.box && (this.box.w < 3 || this.box.h < 3)) this.box = null;
      this.draw();
    });
  }

  open() {
    if (!this.source.width) return false;
    this.frozen = document.createElement("canvas");
    this.frozen.width = this.source.width;
    this.frozen.height = this.source.height;
    this.frozen.getContext("2d").drawImage(this.source, 0, 0);
    this.canvas.width = this.frozen.width;
    this.canvas.height = this.frozen.height;
    this.box = null;
    this.note.value = "";
    byTestId("screenshot-path").hidden = true;
    byTestId("screenshot-error").hidden = true;
    byTestId("screenshot-save").disabled = false;
    showModal(this.modal, true);
    this.draw();
    this.note.focus();
    return true;
  }

  close() {
    showModal(this.modal, false);
    this.frozen = null;
  }

  /** Pointer position in the frozen image's pixels. */
  point(event) {
    const rect = this.canvas.getBoundingClientRect();
    return {
      x: Math.max(0, Math.min(this.canvas.width, ((event.clientX - rect.left) / rect.width) * this.canvas.width)),
      y: Math.max(0, Math.min(this.canvas.height, ((event.clientY - rect.top) / rect.height) * this.canvas.height)),
    };
  }

  draw(withNote = false) {
    if (!this.frozen) return;
    const ctx = this.ctx;
    ctx.drawImage(this.frozen, 0, 0);
    const line = Math.max(2, Math.round(this.canvas.width / 400));
    if (this.box) {
      ctx.strokeStyle = "#ff3b1f";
      ctx.lineWidth = line * 1.5;
      ctx.strokeRect(this.box.x, this.box.y, this.box.w, this.box.h);
    }
    const text = this.note.value.trim();
    if (withNote && text) this.drawNote(text, line);
  }

  drawNote(text, line) {
    const ctx = this.ctx;
    const size = Math.max(NOTE_FONT_PX, Math.round(this.canvas.width / 60));
    ctx.font = `600 ${size}px system-ui, sans-serif`;
    const maxWidth = Math.min(this.canvas.width * 0.6, 40 * size);
    const lines = [];
    for (const para of text.split("\n")) {
      let current = "";
      for (const word of para.split(/\s+/)) {
        const trial = current ? `${current} ${word}` : word;
        if (ctx.measureText(trial).width > maxWidth && current) {
          lines.push(current);
          current = word;
        } else current = trial;
      }
      lines.push(current);
    }
    const pad = size * 0.5;
    const width = Math.max(...lines.map((l) => ctx.measureText(l).width)) + pad * 2;
    const height = lines.length * size * 1.3 + pad * 2 - size * 0.3;
    let x = this.box ? this.box.x : pad;
    let y = this.box ? this.box.y + this.box.h + line * 2 : this.canvas.height - height - pad;
    if (y + height > this.canvas.height) y = this.box ? Math.max(0, this.box.y - height - line * 2) : 0;
    x = Math.max(0, Math.min(x, this.canvas.width - width));
    ctx.fillStyle = "rgba(255, 245, 157, 0.96)";
    ctx.strokeStyle = "#ff3b1f";
    ctx.lineWidth = line;
    ctx.fillRect(x, y, width, height);
    ctx.strokeRect(x, y, width, height);
    ctx.fillStyle = "#1d1d1d";
    ctx.textBaseline = "top";
    lines.forEach((l, i) => ctx.fillText(l, x + pad, y + pad + i * size * 1.3));
  }

  async save() {
    this.draw(true);
    const png = this.canvas.toDataURL("image/png").replace(/^data:image\/png;base64,/, "");
    const pathEl = byTestId("screenshot-path");
    const errorEl = byTestId("screenshot-error");
    byTestId("screenshot-save").disabled = true;
    errorEl.hidden = true;
    try {
      const result = await this.conn.request("save_screenshot", { png, note: this.note.value });
      pathEl.replaceChildren("Saved to ", h("code", {}, result.path));
      pathEl.hidden = false;
    } catch (error) {
      errorEl.textContent = `${error.message}${error.hint ? ` — ${error.hint}` : ""}`;
      errorEl.hidden = false;
      byTestId("screenshot-save").disabled = false;
      this.draw();
    }
  }
}
