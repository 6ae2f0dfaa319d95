// The live view: frames of the watched tab, the agent's snapshot boxes, its actions,
// and the person's input while taken over.

import { byTestId, h } from "./dom.js";

const MARK_LIFETIME_MS = 3000;
const MOVE_INTERVAL_MS = 33; // about 30 mouse moves a second
const WHEEL_LINE_PX = 40;
const MODIFIER_BITS = { altKey: 1, ctrlKey: 2, metaKey: 4, shiftKey: 8 };
const BUTTONS = ["left", "middle", "right"];
const SMALL_SCALE = 0.6; // below it, the refs' labels shrink so that they hide less of the page

function modifiers(event) {
  let bits = 0;
  for (const [name, bit] of Object.entries(MODIFIER_BITS)) if (event[name]) bits |= bit;
  return bits;
}

/** "click · e12 · Send", without the ref twice when the label already names it. */
function actionLabel(action) {
  const label = action.label ?? "";
  const parts = [action.name];
  if (action.ref && !label.includes(action.ref)) parts.push(action.ref);
  if (label) parts.push(label);
  return parts.filter(Boolean).join(" · ");
}

export class LiveView {
  constructor(conn) {
    this.conn = conn;
    this.wrap = byTestId("stage-wrap");
    this.stage = byTestId("live-stage");
    this.canvas = byTestId("live-image");
    this.ctx = this.canvas.getContext("2d");
    this.waiting = byTestId("live-waiting");
    this.overlayLayer = byTestId("overlay-layer");
    this.boxLayer = this.stage.querySelector(".overlay-boxes");
    this.marksDoc = this.stage.querySelector(".marks-doc");
    this.marksView = this.stage.querySelector(".marks-view");
    this.tooltip = byTestId("overlay-tooltip");

    this.frames = 0;
    this.lastShownSeq = null;
    this.meta = null; // meta of the frame on screen
    this.frameTab = null; // the tab of the frame on screen
    this.decoding = false;
    this.nextFrame = null; // newest frame that came in while one was decoding
    this.scale = 1; // workbench CSS px per page viewport CSS px
    this.snapshot = null;
    this.boxesByRef = new Map();
    this.liveMarks = new Set(); // how to place each action mark still shown
    this.overlayOn = true;
    this.takenOver = false;
    this.lastMove = 0;
    this.moveTimer = null;
    this.pendingMove = null;

    new ResizeObserver(() => this.layout()).observe(this.wrap);
    this.bindOverlayHover();
    this.bindInput();
  }

  // ----- frames -----

  reset() {
    this.meta = null;
    this.frameTab = null;
    this.nextFrame = null;
    this.snapshot = null;
    this.boxLayer.replaceChildren();
    this.marksDoc.replaceChildren();
    this.marksView.replaceChildren();
    this.liveMarks.clear();
    this.tooltip.hidden = true;
    this.stage.hidden = true;
    this.waiting.hidden = false;
    this.waiting.textContent = "Waiting for the first frame…";
  }

  onFrame(message) {
    if (this.decoding) {
      this.nextFrame = message; // only the newest waiting frame is ever shown
      return;
    }
    this.show(message);
  }

  async show(message) {
    this.decoding = true;
    try {
      const image = new Image();
      image.src = `data:image/jpeg;base64,${message.data}`;
      await image.decode();
      const first = this.meta === null;
      if (this.canvas.width !== image.naturalWidth || this.canvas.height !== image.naturalHeight) {
        this.canvas.width = image.naturalWidth;
        this.canvas.height = image.naturalHeight;
      }
      this.ctx.drawImage(image, 0, 0);
      const sizeChanged = first || !this.meta || this.meta.deviceWidth !== message.meta.deviceWidth
        || this.meta.deviceHeight !== message.meta.deviceHeight;
      const tabChanged = this.frameTab !== message.tab;
      this.meta = message.meta;
      this.frameTab = message.tab;
      this.frames += 1;
      this.lastShownSeq = message.seq;
      this.stage.hidden = false;
      this.waiting.hidden = true;
      if (sizeChanged) this.layout();
      else {
        if (tabChanged) this.renderBoxes();
        this.placeDocLayers();
      }
      this.conn.send({ type: "shown", seq: message.seq });
    } catch {
      // A frame that does not decode is skipped; the next one replaces it.
    } finally {
      this.decoding = false;
    }
    if (this.nextFrame) {
      const next = this.nextFrame;
      this.nextFrame = null;
      this.show(next);
    }
  }

  /** Fit the page's viewport (its real aspect ratio) into the space available. */
  layout() {
    if (!this.meta) return;
    const { deviceWidth, deviceHeight } = this.meta;
    const availW = Math.max(50, this.wrap.clientWidth - 24);
    const availH = Math.max(50, this.wrap.clientHeight - 24);
    this.scale = Math.min(availW / deviceWidth, availH / deviceHeight);
    this.stage.style.width = `${deviceWidth * this.scale}px`;
    this.stage.style.height = `${deviceHeight * this.scale}px`;
    this.stage.classList.toggle("small", this.scale < SMALL_SCALE);
    this.renderBoxes();
    for (const place of this.liveMarks) place();
    this.placeDocLayers();
  }

  /** Document px → stage px: the layers holding boxes move with the page's scroll. */
  placeDocLayers() {
    if (!this.meta) return;
    const zoom = this.meta.pageScaleFactor || 1;
    const dx = -(this.meta.scrollOffsetX || 0) * this.scale * zoom;
    const dy = -(this.meta.scrollOffsetY || 0) * this.scale * zoom;
    for (const layer of [this.boxLayer, this.marksDoc]) {
      layer.style.transform = `translate(${dx}px, ${dy}px)`;
    }
  }

  /** Scale of a document px in stage px (pinch zoom included). */
  get docScale() {
    return this.scale * ((this.meta && this.meta.pageScaleFactor) || 1);
  }

  // ----- what the agent sees -----

  setSnapshot(snapshot) {
    this.snapshot = snapshot;
    this.boxesByRef = new Map((snapshot?.boxes ?? []).map((box) => [box.ref, box]));
    this.renderBoxes();
  }

  setOverlay(on) {
    this.overlayOn = on;
    this.overlayLayer.hidden = !on;
    if (!on) this.tooltip.hidden = true;
  }

  renderBoxes() {
    const boxes = this.snapshot && this.snapshot.tab === this.frameTab ? this.snapshot.boxes : [];
    const s = this.docScale;
    this.boxLayer.replaceChildren(...boxes.map((box) => {
      const el = h("div", {
        class: "overlay-box", "data-testid": "overlay-box", "data-ref": box.ref, role: "img",
        "data-role": box.role, "aria-label": `${box.role} ${box.name ?? ""} (${box.ref})`.trim(),
      }, h("span", { class: "ref", "aria-hidden": "true" }, box.ref));
      el.style.left = `${box.x * s}px`;
      el.style.top = `${box.y * s}px`;
      el.style.width = `${Math.max(1, box.w * s)}px`;
      el.style.height = `${Math.max(1, box.h * s)}px`;
      if (box.y * s < (s < SMALL_SCALE ? 11 : 16)) el.classList.add("low");
      return el;
    }));
  }

  bindOverlayHover() {
    this.boxLayer.addEventListener("mouseover", (event) => {
      const el = event.target.closest(".overlay-box");
      if (!el) return;
      const box = this.boxesByRef.get(el.dataset.ref);
      if (!box) return;
      this.tooltip.replaceChildren(
        h("div", {}, h("span", { class: "role" }, box.role), " ", h("strong", {}, box.name || "(no name)")),
        h("div", {}, "ref ", h("code", { "data-testid": "overlay-tooltip-ref" }, box.ref)));
      this.tooltip.hidden = false;
      const stageRect = this.stage.getBoundingClientRect();
      const rect = el.getBoundingClientRect();
      const left = Math.min(rect.left - stageRect.left, stageRect.width - 240);
      const below = rect.bottom - stageRect.top + 6;
      const top = below + 60 > stageRect.height ? rect.top - stageRect.top - 60 : below;
      this.tooltip.style.left = `${Math.max(0, left)}px`;
      this.tooltip.style.top = `${Math.max(0, top)}px`;
    });
    this.boxLayer.addEventListener("mouseleave", () => { this.tooltip.hidden = true; });
  }

  // ----- what the agent does -----

  onAction(action) {
    if (this.frameTab !== null && action.tab !== this.frameTab) return;
    const label = actionLabel(action);
    const attrs = { "data-testid": "action-mark", "data-tool": action.name, "data-ref": action.ref ?? "" };
    const marks = []; // [layer, element, place(): positions it at the current scale]
    const points = action.points ?? [];
    if (points.length) {
      if (points.length > 1) {
        const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        svg.setAttribute("class", "action-path");
        svg.setAttribute("aria-hidden", "true");
        const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
        svg.append(line);
        marks.push([this.marksView, svg, () => line.setAttribute(
          "points", points.map((p) => `${p.x * this.scale},${p.y * this.scale}`).join(" "))]);
      }
      points.forEach((point, i) => {
        const showLabel = i === 0 || point.kind === "drop";
        const el = h("div", { class: `action-mark point kind-${point.kind}`, ...attrs, "data-kind": point.kind },
          showLabel ? h("span", { class: "label" }, label) : null);
        marks.push([this.marksView, el, () => {
          el.classList.toggle("flip", point.x * this.scale > this.stage.clientWidth - 180);
          el.style.left = `${point.x * this.scale}px`;
          el.style.top = `${point.y * this.scale}px`;
        }]);
      });
    } else if (action.ref && this.boxesByRef.has(action.ref) && this.snapshot?.tab === this.frameTab) {
      const box = this.boxesByRef.get(action.ref);
      const el = h("div", { class: "action-mark box", ...attrs }, h("span", { class: "label" }, label));
      marks.push([this.marksDoc, el, () => {
        const d = this.docScale;
        el.style.left = `${box.x * d - 2}px`;
        el.style.top = `${box.y * d - 2}px`;
        el.style.width = `${box.w * d + 4}px`;
        el.style.height = `${box.h * d + 4}px`;
      }]);
    } else {
      marks.push([this.marksView, h("div", { class: "action-mark banner", ...attrs }, h("span", { class: "label" }, label)), () => {}]);
    }
    for (const [layer, el, place] of marks) {
      place();
      layer.append(el);
      this.liveMarks.add(place);
      setTimeout(() => {
        el.remove();
        this.liveMarks.delete(place);
      }, MARK_LIFETIME_MS);
    }
  }

  // ----- the person's input -----

  setTakenOver(on) {
    this.takenOver = on;
    this.stage.classList.toggle("taken-over", on);
    this.stage.tabIndex = on ? 0 : -1;
    if (on) this.stage.focus({ preventScroll: true });
  }

  /** Stage px of a mouse event → page viewport CSS px. */
  viewportPoint(event) {
    const rect = this.canvas.getBoundingClientRect();
    const w = this.meta?.deviceWidth ?? rect.width;
    const hgt = this.meta?.deviceHeight ?? rect.height;
    const x = ((event.clientX - rect.left) / rect.width) * w;
    const y = ((event.clientY - rect.top) / rect.height) * hgt;
    return { x: Math.max(0, Math.min(w - 1, x)), y: Math.max(0, Math.min(hgt - 1, y)) };
  }

  sendInput(event) {
    this.conn.send({ type: "input", event });
  }

  mouseEvent(action, event, extra = {}) {
    const { x, y } = this.viewportPoint(event);
    return {
      kind: "mouse", action, x, y, button: BUTTONS[event.button] ?? "left",
      clickCount: Math.max(1, event.detail || 1), deltaX: 0, deltaY: 0, modifiers: modifiers(event), ...extra,
    };
  }

  bindInput() {
    const stage = this.stage;
    stage.addEventListener("mousedown", (event) => {
      if (!this.takenOver || !this.meta) return;
      event.preventDefault();
      stage.focus({ preventScroll: true });
      this.flushMove();
      this.sendInput(this.mouseEvent("down", event));
    });
    stage.addEventListener("mouseup", (event) => {
      if (!this.takenOver || !this.meta) return;
      event.preventDefault();
      this.flushMove();
      this.sendInput(this.mouseEvent("up", event));
    });
    stage.addEventListener("mousemove", (event) => {
      if (!this.takenOver || !this.meta) return;
      this.pendingMove = this.mouseEvent("move", event, { button: "left", clickCount: 0 });
      const wait = MOVE_INTERVAL_MS - (performance.now() - this.lastMove);
      if (wait <= 0) this.flushMove();
      else if (!this.moveTimer) this.moveTimer = setTimeout(() => this.flushMove(), wait);
    });
    stage.addEventListener("wheel", (event) => {
      if (!this.takenOver || !this.meta) return;
      event.preventDefault();
      const unit = event.deltaMode === 1 ? WHEEL_LINE_PX : event.deltaMode === 2 ? this.meta.deviceHeight : 1;
      this.sendInput(this.mouseEvent("wheel", event, {
        button: "left", clickCount: 0, deltaX: event.deltaX * unit, deltaY: event.deltaY * unit,
      }));
    }, { passive: false });
    stage.addEventListener("contextmenu", (event) => {
      if (this.takenOver) event.preventDefault();
    });
    stage.addEventListener("keydown", (event) => this.key("down", event));
    stage.addEventListener("keyup", (event) => this.key("up", event));
    stage.addEventListener("paste", (event) => {
      if (!this.takenOver) return;
      event.preventDefault();
      const text = event.clipboardData?.getData("text/plain") ?? "";
      if (text) this.sendInput({ kind: "text", text });
    });
  }

  flushMove() {
    clearTimeout(this.moveTimer);
    this.moveTimer = null;
    if (!this.pendingMove) return;
    this.sendInput(this.pendingMove);
    this.pendingMove = null;
    this.lastMove = performance.now();
  }

  key(action, event) {
    if (!this.takenOver) return;
    const shortcut = event.ctrlKey || event.metaKey;
    // Ctrl/Cmd+V is left to the browser so that the paste event brings the text.
    if (shortcut && event.key.toLowerCase() === "v") return;
    event.preventDefault();
    event.stopPropagation();
    let text = "";
    if (action === "down" && !shortcut) {
      if (event.key.length === 1) text = event.key;
      else if (event.key === "Enter") text = "\r";
    }
    this.sendInput({ kind: "key", action, key: event.key, code: event.code, text, modifiers: modifiers(event) });
  }

  // ----- read by tests and the screenshot tool -----

  overlayBoxes() {
    return [...this.boxLayer.querySelectorAll(".overlay-box")].map((el) => {
      const r = el.getBoundingClientRect();
      return { ref: el.dataset.ref, left: r.left, top: r.top, width: r.width, height: r.height };
    });
  }

  liveRect() {
    const r = this.canvas.getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width, height: r.height, right: r.right, bottom: r.bottom, x: r.x, y: r.y };
  }
}
