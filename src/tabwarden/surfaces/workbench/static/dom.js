// Small DOM helpers shared by the workbench modules.

/** Build an element: h("div", {class: "x", "data-testid": "y", onclick: fn}, child, "text"). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** The one element with this data-testid (inside root). */
export function byTestId(id, root = document) {
  return root.querySelector(`[data-testid="${id}"]`);
}

export function formatDuration(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

export function formatBytes(n) {
  if (n === null || n === undefined || n < 0) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** "12 s ago", "3 min ago" from an epoch in seconds. */
export function ago(epochS) {
  if (!epochS) return "";
  const s = Math.max(0, Date.now() / 1000 - epochS);
  if (s < 5) return "just now";
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

export function clockTime(epochS) {
  if (!epochS) return "";
  return new Date(epochS * 1000).toLocaleTimeString([], { hour12: false });
}

/** One line for a call's arguments: ref=e12 text="hello" … (long values clipped). */
export function argsSummary(args) {
  if (!args) return "";
  return Object.entries(args)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => {
      let text = typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
      if (text.length > 60) text = text.slice(0, 57) + "…";
      return `${k}=${text}`;
    })
    .join(" ");
}

export const PROFILE_LABELS = {
  workspace: "workspace profile",
  throwaway: "throwaway profile",
  attached: "your browser (attached)",
};

export function profileBadge(profile, attrs = {}) {
  return h("span", {
    class: `badge profile-${profile}`,
    title: {
      workspace: "A tabwarden workspace profile: kept between runs",
      throwaway: "A fresh profile, deleted when the session ends",
      attached: "A real browser tabwarden attached to, with its own logins",
    }[profile] ?? "",
    ...attrs,
  }, PROFILE_LABELS[profile] ?? profile ?? "unknown profile");
}

export function setProfileBadge(el, profile) {
  const fresh = profileBadge(profile);
  el.className = fresh.className;
  el.title = fresh.title;
  el.textContent = fresh.textContent;
}

/** A tab's favicon: <origin>/favicon.ico, or the first letter of its host or title on error. */
export function favicon(url, title) {
  let origin = null;
  let host = "";
  try {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") {
      origin = u.origin;
      host = u.hostname;
    }
  } catch { /* about:blank, data: and such have no favicon */ }
  const named = /^[\d.]+$|^\[/.test(host) ? "" : host.replace(/^www\./, "");
  const letter = ((named || title || "?").trim()[0] || "?");
  const fallback = h("span", { class: "favicon-letter", "aria-hidden": "true", "data-testid": "tab-favicon" }, letter);
  if (!origin) return fallback;
  const img = h("img", { class: "favicon", alt: "", src: `${origin}/favicon.ico`, "data-testid": "tab-favicon",
                         referrerpolicy: "no-referrer", loading: "lazy" });
  img.addEventListener("error", () => img.replaceWith(fallback), { once: true });
  return img;
}

/** Show a short message in the corner: errors carry the server's hint. */
const recentToasts = new Map(); // text -> time shown, so a repeated error shows once

export function toast(message, hint = "", kind = "error") {
  const key = `${message}\n${hint}`;
  const now = Date.now();
  if (now - (recentToasts.get(key) ?? 0) < 4000) return;
  recentToasts.set(key, now);
  const box = byTestId("toasts");
  const el = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status", "data-testid": "toast" },
    h("div", {}, message), hint ? h("div", { class: "hint" }, hint) : null);
  box.append(el);
  setTimeout(() => el.remove(), 9000);
  while (box.children.length > 4) box.firstChild.remove();
}

/** Show or hide a modal; while one is open the page behind it is inert. */
export function showModal(modal, open) {
  modal.hidden = !open;
  const anyOpen = [...document.querySelectorAll(".modal-backdrop")].some((m) => !m.hidden);
  for (const el of document.querySelectorAll("body > header, body > main")) el.inert = anyOpen;
}
