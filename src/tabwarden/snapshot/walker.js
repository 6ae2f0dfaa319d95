// The snapshot walker: installed once in tabwarden's isolated world of each frame (the
// page's own scripts cannot see or change it); W.snapshot() returns the frame's
// accessibility view as JSON text. One pass over the flat tree (open shadow roots
// included) computes role, accessible name, states, bounds and clickability, and gives
// every element it reports a handle that stays the same while the element lives (a
// WeakMap in this world), so refs survive re-renders of other parts of the page.
// Installed rather than sent with each call: V8 then keeps its compiled, optimised
// code between snapshots (a call on a 1,000-element page took 9-11 ms with the code
// sent each time, 5-6 ms installed).
//
// W.snapshot(options, listenerElements): options = {all, added, gone, drops}. Elements
// with click-like or drop event listeners are found over CDP (script cannot see
// listeners): `added` are their backend ids, in the order of listenerElements; `gone` are
// ids whose listeners were removed; `drops` are the ids of those that take drops. The
// interactive walk also counts what only the full view shows (returned as `o`: text
// blocks, tables, their rows, images).
(() => {
  const G = globalThis;
  if (G.__tabwardenWalker) return;
  const ids = new WeakMap();
  const byId = new Map();
  let next = 1;
  const idOf = (el) => {
    let id = ids.get(el);
    if (id === undefined) {
      id = next++;
      ids.set(el, id);
      byId.set(id, new WeakRef(el));
    }
    return id;
  };
  const element = (id) => {
    const ref = byId.get(id);
    const el = ref && ref.deref();
    if (!el) byId.delete(id);
    return el && el.isConnected ? el : null;
  };
  // Handles count from 1 in every world: the token tells this world's handles from
  // those of a world that came before it in the same frame.
  const token = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const W = G.__tabwardenWalker = {
    token, idOf, element, snapshot,
    rects: new WeakMap(),  // element → [x, y, width, height, since when] as last reported
    // Elements with click listeners, by backend id: given once (resolving one costs a
    // round trip), kept while they live, dropped when their listeners are gone.
    listening: new Map(),
    prune() { for (const [id, ref] of byId) if (!ref.deref()) byId.delete(id); },
    changedSince: (seen) => changes !== seen,
  };

  // Whether the page changed since a snapshot (its later pages are read from one walk):
  // `changes` counts what was seen after a snapshot armed the observer. The observer
  // stops at the first change, so a busy page pays for one batch of records per
  // snapshot, not for each of its mutations. Typing, checking and choosing change
  // properties rather than the DOM: their events count too.
  let changes = 0;
  const changed = () => { changes++; observer.disconnect(); };
  const observer = new MutationObserver(changed);
  const OBSERVED = { subtree: true, childList: true, attributes: true, characterData: true };
  for (const type of ["input", "change"]) document.addEventListener(type, changed, true);
  const MAX_NAME = 200;

  const INTERACTIVE = new Set([
    "button", "link", "textbox", "searchbox", "combobox", "listbox", "option", "checkbox",
    "radio", "switch", "slider", "spinbutton", "menuitem", "menuitemcheckbox",
    "menuitemradio", "tab", "treeitem", "gridcell", "columnheader", "disclosuretriangle",
    "date", "datetime", "inputtime", "colorwell", "filechooser",
  ]);
  // Shown in the interactive view for context (landmarks only when named).
  const CONTEXT = new Set(["heading", "iframe", "dialog", "alertdialog", "alert"]);
  // Live regions: the interactive view shows their text (a status message, an error).
  // aria-live on an element with no role of its own reads as the role of that politeness.
  const LIVE = new Set(["status", "alert", "log"]);
  const LIVE_ROLE_OF = { polite: "status", assertive: "alert" };
  const MAX_LIVE = 200;
  const TABLES = new Set(["table", "grid", "treegrid"]);
  const LANDMARKS = new Set([
    "region", "navigation", "main", "form", "search", "banner", "contentinfo",
    "complementary",
  ]);
  // Lists and tables that take clicks hand them to their items (a menu of <li>, rows
  // of a table): a pointer cursor on one of these starts again on each item.
  const ITEM_HOLDERS = new Set(["list", "table", "rowgroup"]);
  // Roles never made clickable: they are acted on already, shown for context, or (a
  // label) forward the click to a control that is shown.
  const NOT_CLICKABLE = new Set([...INTERACTIVE, ...CONTEXT, ...LANDMARKS, ...ITEM_HOLDERS,
                                 "label", "listbox"]);
  const NAME_FROM_CONTENT = new Set([
    "button", "link", "heading", "option", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "treeitem", "checkbox", "radio", "switch", "cell", "gridcell",
    "columnheader", "rowheader", "disclosuretriangle", "tooltip", "listitem", "row",
    "label", "legend", "caption", "term", "definition", "paragraph", "strong", "emphasis",
  ]);
  const VALUE_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "slider"]);
  const SKIP_TAGS = new Set([
    "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "BASE",
  ]);
  const ARIA_ROLES = new Set([
    "alert", "alertdialog", "application", "article", "banner", "blockquote", "button",
    "caption", "cell", "checkbox", "code", "columnheader", "combobox", "complementary",
    "contentinfo", "definition", "deletion", "dialog", "directory", "document", "emphasis",
    "feed", "figure", "form", "generic", "grid", "gridcell", "group", "heading", "img",
    "insertion", "link", "list", "listbox", "listitem", "log", "main", "mark", "marquee",
    "math", "menu", "menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "meter",
    "navigation", "none", "note", "option", "paragraph", "presentation", "progressbar",
    "radio", "radiogroup", "region", "row", "rowgroup", "rowheader", "scrollbar", "search",
    "searchbox", "separator", "slider", "spinbutton", "status", "strong", "subscript",
    "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox",
    "time", "timer", "toolbar", "tooltip", "tree", "treegrid", "treeitem",
  ]);
  const INPUT_ROLES = {
    button: "button", submit: "button", reset: "button", image: "button", file: "filechooser",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
    search: "searchbox", date: "date", "datetime-local": "datetime", month: "date",
    week: "date", time: "inputtime", color: "colorwell", hidden: "",
  };

  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const clip = (s) => (s.length > MAX_NAME ? s.slice(0, MAX_NAME) : s);

  function implicitRole(el, tag) {
    switch (tag) {
      case "A": case "AREA": return el.hasAttribute("href") ? "link" : "";
      case "BUTTON": return "button";
      case "INPUT": {
        const type = (el.getAttribute("type") || "text").toLowerCase();
        if (type in INPUT_ROLES) return INPUT_ROLES[type];
        return el.hasAttribute("list") ? "combobox" : "textbox";
      }
      case "TEXTAREA": return "textbox";
      case "SELECT": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "OPTION": return "option";
      case "OPTGROUP": return "group";
      case "H1": case "H2": case "H3": case "H4": case "H5": case "H6": return "heading";
      case "NAV": return "navigation";
      case "MAIN": return "main";
      case "ASIDE": return "complementary";
      case "FORM": return "form";
      case "SEARCH": return "search";
      case "SECTION": return "region";
      case "HEADER": return el.closest("article,aside,main,nav,section") ? "" : "banner";
      case "FOOTER": return el.closest("article,aside,main,nav,section") ? "" : "contentinfo";
      case "DIALOG": return "dialog";
      case "IFRAME": case "FRAME": return "iframe";
      case "IMG": return el.getAttribute("alt") === "" ? "" : "img";
      case "SVG": return "";
      case "UL": case "OL": case "MENU": return "list";
      case "LI": return "listitem";
      case "TABLE": return "table";
      case "TR": return "row";
      case "TD": return "cell";
      case "TH": return "columnheader";
      case "P": return "paragraph";
      case "LABEL": return "label";
      case "SUMMARY": return "disclosuretriangle";
      case "DETAILS": case "FIELDSET": return "group";
      case "ARTICLE": return "article";
      case "BLOCKQUOTE": return "blockquote";
      case "FIGURE": return "figure";
      case "HR": return "separator";
      case "PROGRESS": return "progressbar";
      case "METER": return "meter";
      case "OUTPUT": return "status";
      case "DL": return "list";
      case "DT": return "term";
      case "DD": return "definition";
      case "CODE": return "code";
      case "STRONG": case "B": return all ? "strong" : "";
      case "EM": case "I": return all ? "emphasis" : "";
      default: return "";
    }
  }

  function roleOf(el, tag) {
    const explicit = el.getAttribute("role");
    if (explicit) {
      for (const token of explicit.toLowerCase().split(/\s+/)) {
        if (ARIA_ROLES.has(token)) return token === "presentation" ? "none" : token;
      }
    }
    return implicitRole(el, tag);
  }

  // Inputs whose value is no text a reader sees (a checkbox's "on", a colour's
  // "#000000"): embedded in a label they give its name nothing (accname's embedded
  // controls: only text fields, selects and ranges give their value).
  const VALUE_NOT_TEXT = new Set(["checkbox", "radio", "color", "file", "hidden", "password"]);

  // Text of a subtree for names: text nodes, alt of images, values of embedded
  // controls; scripts and hidden-by-attribute parts left out; bounded.
  function textOf(node, skip, budget) {
    let out = "";
    for (let child = node.firstChild; child && out.length < budget; child = child.nextSibling) {
      if (child.nodeType === 3) {
        out += child.data;
      } else if (child.nodeType === 1) {
        if (child === skip || SKIP_TAGS.has(child.tagName) || child.hidden) continue;
        if (child.getAttribute("aria-hidden") === "true") continue;
        const tag = child.tagName;
        if (tag === "IMG" || (tag === "INPUT" && child.type === "image")) {
          out += " " + (child.getAttribute("alt") || "") + " ";
        } else if (tag === "INPUT") {
          out += VALUE_NOT_TEXT.has(child.type) ? " " : " " + child.value + " ";
        } else if (tag === "SELECT") {
          const opt = child.selectedOptions && child.selectedOptions[0];
          out += " " + (opt ? opt.textContent : "") + " ";
        } else if (tag === "TEXTAREA") {
          out += " " + child.value + " ";
        } else {
          const label = child.getAttribute("aria-label");
          out += label ? " " + label + " " : " " + textOf(child.shadowRoot || child, skip, budget - out.length) + " ";
        }
      }
    }
    return out;
  }

  function byIds(el, attr) {
    const root = el.getRootNode();
    const parts = [];
    for (const id of attr.split(/\s+/)) {
      const target = id && (root.getElementById ? root.getElementById(id) : document.getElementById(id));
      if (target) parts.push(target.getAttribute("aria-label") || textOf(target, null, MAX_NAME));
    }
    return squash(parts.join(" "));
  }

  function nameOf(el, tag, role) {
    const labelledby = el.getAttribute("aria-labelledby");
    if (labelledby) {
      const name = byIds(el, labelledby);
      if (name) return name;
    }
    const label = squash(el.getAttribute("aria-label"));
    if (label) return label;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
      const type = tag === "INPUT" ? el.type : "";
      if (type === "button" || type === "submit" || type === "reset") {
        return squash(el.value) || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
      }
      if (type === "image") return squash(el.getAttribute("alt") || el.value || "Submit");
      if (el.labels && el.labels.length) {
        const parts = [];
        for (const l of el.labels) parts.push(textOf(l, el, MAX_NAME));
        const name = squash(parts.join(" "));
        if (name) return name;
      }
      return squash(el.getAttribute("title") || el.getAttribute("placeholder") || "");
    }
    if (tag === "IMG" || tag === "AREA") return squash(el.getAttribute("alt") || el.getAttribute("title"));
    if (tag === "IFRAME" || tag === "FRAME") return squash(el.getAttribute("title") || el.getAttribute("name"));
    if (tag === "FIELDSET") {
      const legend = el.querySelector(":scope > legend");
      if (legend) return squash(textOf(legend, null, MAX_NAME));
    }
    if (tag === "TABLE" && el.caption) return squash(textOf(el.caption, null, MAX_NAME));
    if (tag === "FIGURE") {
      const caption = el.querySelector(":scope > figcaption");
      if (caption) return squash(textOf(caption, null, MAX_NAME));
    }
    if (NAME_FROM_CONTENT.has(role) || tag === "SUMMARY" || tag === "LABEL") {
      const text = squash(textOf(el.shadowRoot || el, null, MAX_NAME * 2));
      if (text) return text;
    }
    return squash(el.getAttribute("title"));
  }

  // One snapshot's state: set at its start, dropped at its end (a snapshot runs in one
  // task, start to end).
  let all = false;
  let listeners = new Set();
  let drops = new Set();  // elements with drop listeners (drop zones)
  let focused = null;
  let now = 0;
  let scrollX = 0, scrollY = 0, viewportW = 0, viewportH = 0;
  let overlays = [];     // positioned, hit-testable boxes that can cover others
  let editableBody = null; // the body of a document edited as a whole (an editor frame)
  let interactive = [];  // [element, node] of reported interactive elements
  let nodeOf = new Map(); // element → its reported node (for naming covers)
  // Elements with aria-live, found at once per document and shadow root (cheaper than
  // reading the attribute of every element).
  let marked = new Set();
  // What the interactive view leaves out, counted as the walk goes (see walkNode).
  let textBlocks = 0, tables = 0, rows = 0, images = 0;
  let openBlock = false;  // the nearest block-level ancestor has text not counted yet
  let quiet = false;      // inside text the view shows (a heading, a label…) or a table

  function ariaBool(el, name) {
    const v = el.getAttribute(name);
    return v === null ? null : v === "mixed" ? "mixed" : v === "true";
  }

  // A reported node: short keys keep the JSON small (read by walker.py).
  function report(el, tag, role, cs, rect, visible) {
    const node = { r: role, h: W.idOf(el) };
    const name = nameOf(el, tag, role);
    if (name) node.n = clip(name);
    if (visible) node.b = [rect.left + scrollX, rect.top + scrollY, rect.width, rect.height];
    let f = 0;
    if (tag === "INPUT" && el.type === "password") { node.p = 1; }
    const input = role === "filechooser" && tag === "LABEL" ? el.control : el;
    if (input.disabled === true || el.getAttribute("aria-disabled") === "true") f |= 1;
    if (el === focused) f |= 2;
    if (el.required === true || el.getAttribute("aria-required") === "true") f |= 4;
    if (el.readOnly === true || el.getAttribute("aria-readonly") === "true") f |= 8;
    if (f) node.f = f;
    if (role === "filechooser") {
      if (input.accept) node.ac = clip(input.accept);
      if (input.multiple) node.m = 1;
      const names = input.files ? [...input.files].map((file) => file.name).join(", ") : "";
      if (names) node.v = clip(names);
    }
    if (tag === "INPUT" && (el.type === "checkbox" || el.type === "radio")) {
      node.ck = el.indeterminate ? "mixed" : el.checked;
    } else if (role === "checkbox" || role === "radio" || role === "switch" ||
               role === "menuitemcheckbox" || role === "menuitemradio") {
      const v = ariaBool(el, "aria-checked");
      node.ck = v === null ? false : v;
    }
    if (tag === "OPTION") node.s = el.selected;
    else {
      const sel = ariaBool(el, "aria-selected");
      if (sel !== null) node.s = sel;
    }
    const pressed = ariaBool(el, "aria-pressed");
    if (pressed !== null) node.pr = pressed;
    const expanded = ariaBool(el, "aria-expanded");
    if (expanded !== null) node.e = expanded === true;
    else if (tag === "SELECT" && role === "combobox") node.e = false;
    else if (tag === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS") {
      node.e = el.parentElement.open;
    }
    if (role === "heading") {
      const level = parseInt(el.getAttribute("aria-level") || tag.slice(1), 10);
      node.l = Number.isFinite(level) ? level : 2;
    } else if (el.hasAttribute("aria-level")) {
      const level = parseInt(el.getAttribute("aria-level"), 10);
      if (Number.isFinite(level)) node.l = level;
    }
    if (role === "link") {
      const href = el.getAttribute("href");
      if (href) node.u = href;
    }
    if (VALUE_ROLES.has(role) && !node.p) {
      let value = "";
      if (tag === "INPUT" || tag === "TEXTAREA") value = el.value;
      else if (tag === "SELECT") {
        const opt = el.selectedOptions[0];
        value = opt ? squash(opt.textContent) : "";
      } else if (el.isContentEditable) value = squash(el.innerText);
      else value = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") || "";
      if (value) node.v = clip(value);
    }
    if ((tag === "IFRAME" || tag === "FRAME") && rect) {
      // Where the frame's content starts in this document (border box + borders + padding).
      node.o = [
        rect.left + scrollX + el.clientLeft + (parseFloat(cs.paddingLeft) || 0),
        rect.top + scrollY + el.clientTop + (parseFloat(cs.paddingTop) || 0),
      ];
    }
    nodeOf.set(el, node);
    return node;
  }

  // Walks the children of `parent` (an element, a shadow root or a slot's assigned
  // nodes) into `out`. `pointer`: the parent has cursor:pointer (the cursor only counts
  // where it starts); `inside`: an interactive ancestor was reported.
  function walkChildren(parent, out, pointer, inside, hidden) {
    let child;
    if (parent.nodeType === 11) observer.observe(parent, OBSERVED);  // a shadow root
    if (parent.tagName === "SLOT") {
      const assigned = parent.assignedNodes({ flatten: false });
      if (assigned.length) {
        for (const node of assigned) walkNode(node, out, pointer, inside, hidden);
        return;
      }
    }
    if (!all) {  // text is only read through names here: elements are enough
      for (child = parent.firstElementChild; child; child = child.nextElementSibling) {
        walkNode(child, out, pointer, inside, hidden);
      }
      return;
    }
    for (child = parent.firstChild; child; child = child.nextSibling) {
      walkNode(child, out, pointer, inside, hidden);
    }
  }

  function walkNode(node, out, pointer, inside, hidden) {
    if (node.nodeType === 3) {
      if (all && !hidden) {
        const text = squash(node.data);
        if (text) out.push({ r: "text", t: text.length > 1000 ? text.slice(0, 1000) : text });
      }
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node;
    const tag = el.tagName;
    if (SKIP_TAGS.has(tag) || el.getAttribute("aria-hidden") === "true") return;
    const cs = getComputedStyle(el);
    const display = cs.display;
    if (display === "none") {
      if (tag === "INPUT" && el.type === "file" && !hidden && !shownLabel(el)) {
        const node_ = report(el, tag, "filechooser", cs, null, false);
        node_.hd = 1;
        out.push(node_);
      }
      return;
    }
    const visibility = cs.visibility;
    const isHidden = hidden ? visibility !== "visible" : visibility === "hidden" || visibility === "collapse";
    let role = roleOf(el, tag);
    // The cursor only matters where no interactive ancestor was reported (clickables).
    const cursorPointer = !inside && cs.cursor === "pointer";
    // Boxes are read only where they matter (a reported node, a possible clickable,
    // a possible cover): most elements of a large page are none of these.
    let rect = null;
    let visible = false;
    const measure = () => {
      if (rect === null && display !== "contents") {
        rect = el.getBoundingClientRect();
        visible = rect.width > 0 && rect.height > 0 && !isHidden;
      }
      return visible;
    };
    // File choosers: a file input, or the label that opens one the page conceals (the
    // label stands for it; the input itself is then left out).
    let concealedInput = false;
    let omitted = false;
    if (role === "filechooser" && tag === "INPUT") {
      if (concealed(el, cs)) {
        if (hidden || shownLabel(el)) omitted = true;
        else concealedInput = true;
      }
    } else if (tag === "LABEL" && role === "label") {
      const control = el.control;
      if (control && control.tagName === "INPUT" && control.type === "file" && concealed(control)) {
        role = "filechooser";
      }
    }
    let clickable = false;
    let editable = false;  // an editing host: a contenteditable, an editable document's body
    if (!inside && (role === "" || role === "generic" || role === "none" || role === "textbox") &&
        el.isContentEditable &&
        (!(el.parentElement && el.parentElement.isContentEditable) || el === editableBody)) {
      editable = true;
      role = "textbox";
    } else if (!inside && !NOT_CLICKABLE.has(role) &&
               (listeners.has(el) || (cursorPointer && !pointer) || el.hasAttribute("onclick") ||
                el.getAttribute("draggable") === "true") && measure()) {
      // No role to act on (a div, a list item, a table row, an image) but the page
      // handles clicks on it.
      clickable = true;
    }
    const roleInteractive = INTERACTIVE.has(role);
    // A live region says what just happened (a status message, an error): the
    // interactive view shows it with its text, when it has any.
    let liveRole = "";
    if (!all && !inside && !clickable && !editable && !roleInteractive) {
      const politeness = marked.has(el) ? el.getAttribute("aria-live") : null;
      if (LIVE.has(role)) liveRole = politeness === "off" ? "" : role;
      else if (politeness === "polite" || politeness === "assertive") {
        liveRole = role && role !== "generic" && role !== "none" ? role : LIVE_ROLE_OF[politeness];
      }
    }
    const liveText = liveRole && measure() ? liveTextOf(el) : "";
    let shownRole = "";
    if (clickable) {
      shownRole = el.getAttribute("draggable") === "true" ? "draggable"
        : drops.has(el) ? "dropzone" : "clickable";
    } else if (omitted) {
      shownRole = "";
    } else if (liveText) {
      shownRole = liveRole;
    } else if (role && role !== "none" && role !== "generic" && (
      all || roleInteractive || CONTEXT.has(role) || role === "listbox" ||
      // The interactive view shows landmarks only when they are named.
      (LANDMARKS.has(role) && (el.hasAttribute("aria-label") ||
                               el.hasAttribute("aria-labelledby") || el.hasAttribute("title"))))) {
      shownRole = role;
    }
    if (shownRole) measure();
    // A concealed input is listed without a box: it cannot be clicked where it is.
    const shown = visible && !concealedInput;
    const node_ = shownRole ? report(el, tag, shownRole, cs, rect, shown) : null;
    if (node_ && clickable) node_.k = 1;
    if (node_ && concealedInput) node_.hd = 1;
    if (node_ && liveText) node_.v = liveText;
    if (node_ && shown && (clickable || roleInteractive)) {
      interactive.push([el, node_]);
      // Kept with the time it was first seen there: snapshots that keep finding it in
      // the same place tell an element at rest (see pointer.py's stability check).
      const b = node_.b;
      const seen = W.rects.get(el);
      const since = seen && seen[0] === b[0] && seen[1] === b[1] && seen[2] === b[2] &&
        seen[3] === b[3] ? seen[4] : now;
      W.rects.set(el, [b[0], b[1], b[2], b[3], since]);
    }
    const position = cs.position;
    if ((position === "fixed" || position === "absolute" || position === "sticky") &&
        cs.pointerEvents !== "none" && measure()) {
      overlays.push([el, rect]);
    }
    if (tag === "IFRAME" || tag === "FRAME") {
      if (node_) out.push(node_);
      return;
    }
    const children = node_ ? [] : out;
    // What only the full view shows is counted on the way (no walk of its own): images,
    // tables with their rows, and blocks of text (a block-level element and its inline
    // content, counted once) outside what the view shows (controls, headings, labels,
    // live regions) and outside tables.
    const wasOpen = openBlock, wasQuiet = quiet;
    const shadow = el.shadowRoot;
    let ownBlock = false;
    if (!all && !inside && !isHidden) {
      if (role === "img" && !node_) {
        if (measure() && rect.width > 1 && rect.height > 1) images++;
      } else if (TABLES.has(role)) {
        tables++;
        rows += tag === "TABLE" ? el.rows.length : el.querySelectorAll('[role="row"]').length;
        quiet = true;
      }
      if (quiet) {
        // counted as a table, or shown
      } else if (liveText || role === "heading" || tag === "LABEL" ||
                 (node_ && (roleInteractive || clickable))) {
        quiet = true;
      } else {
        if (display !== "contents" && !display.startsWith("inline")) ownBlock = openBlock = true;
        if (openBlock && hasOwnText(shadow || el, tag)) { textBlocks++; openBlock = false; }
      }
    }
    // A field's inner text is its value (masked for passwords), shown already; the full
    // view still shows what an editing host holds (its paragraphs can be typed into).
    const field = editable ? !all : role === "textbox" || role === "searchbox";
    if (!field) {
      const childInside = inside || clickable || (node_ !== null && roleInteractive);
      const hiddenBelow = hidden || isHidden;
      const childPointer = cursorPointer && !ITEM_HOLDERS.has(role);
      if (shadow) {
        if (!all) markLive(shadow);
        walkChildren(shadow, children, childPointer, childInside, hiddenBelow);
      } else walkChildren(el, children, childPointer, childInside, hiddenBelow);
    }
    quiet = wasQuiet;
    if (ownBlock) openBlock = wasOpen;
    if (!node_) return;
    if (clickable && hasInteractive(children)) {
      // A wrapper (a <label> around a checkbox, a card around its link): the controls
      // inside are what to act on.
      delete node_.k;
      for (const child of children) out.push(child);
      return;
    }
    if (clickable && !node_.n) {
      const text = squash(textOf(el, null, MAX_NAME));
      if (text) node_.n = clip(text);
    }
    if (editable) {
      if (el === editableBody) node_.d = 1;  // named after its <iframe> when it has no name
      // Text alone is the value already.
      if (children.length === 1 && children[0].r === "text") children.length = 0;
    }
    if (children.length) node_.c = children;
    out.push(node_);
  }

  // A file input the page hides itself (display:none, invisible, transparent, a pixel or
  // two, off-screen, clipped away) — the common styled pattern, where a label or a button
  // opens it.
  function concealed(input, cs) {
    cs = cs || getComputedStyle(input);
    if (cs.display === "none" || cs.visibility !== "visible") return true;
    if (parseFloat(cs.opacity) < 0.05 || cs.clip === "rect(0px, 0px, 0px, 0px)") return true;
    const r = input.getBoundingClientRect();
    return r.width <= 2 || r.height <= 2 || r.right + scrollX <= 0 || r.bottom + scrollY <= 0;
  }

  // A label of the input that is on show (it opens the input's chooser when clicked).
  function shownLabel(input) {
    for (const label of input.labels || []) {
      if (!label.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      const r = label.getBoundingClientRect();
      if (r.width > 2 && r.height > 2) return label;
    }
    return null;
  }

  function markLive(root) {
    for (const el of root.querySelectorAll("[aria-live]")) marked.add(el);
  }

  function liveTextOf(el) {
    const text = squash(textOf(el.shadowRoot || el, null, MAX_LIVE * 2));
    return text.length > MAX_LIVE ? text.slice(0, MAX_LIVE - 1) + "…" : text;
  }

  // Whether an element (or its shadow root) holds text of its own, not only inside child
  // elements: its first or last child is text. Looking at those two keeps this cheap on
  // every element; text between inline elements only is found through them. (`data` is
  // read first: elements have none, and most text between elements is blank.)
  const NON_SPACE = /\S/;
  const isText = (node) => {
    if (node === null) return false;
    const data = node.data;
    return typeof data === "string" && NON_SPACE.test(data) && node.nodeType === 3;
  };
  function hasOwnText(holder, tag) {
    if (tag === "SLOT") {
      const assigned = holder.assignedNodes({ flatten: false });
      if (assigned.length) return isText(assigned[0]) || isText(assigned[assigned.length - 1]);
    }
    return isText(holder.firstChild) || isText(holder.lastChild);
  }

  function hasInteractive(nodes) {
    for (const n of nodes) {
      if (n.k || INTERACTIVE.has(n.r) || (n.c && hasInteractive(n.c))) return true;
    }
    return false;
  }

  function snapshot(options, listenerElements) {
    all = !!options.all;
    for (const id of options.gone || []) W.listening.delete(id);
    (options.added || []).forEach((id, i) => {
      if (listenerElements[i]) W.listening.set(id, new WeakRef(listenerElements[i]));
    });
    listeners = new Set();
    drops = new Set();
    const dropIds = new Set(options.drops || []);
    for (const [id, ref] of W.listening) {
      const el = ref.deref();
      if (el) {
        listeners.add(el);
        if (dropIds.has(id)) drops.add(el);
      } else W.listening.delete(id);
    }
    focused = document.activeElement;
    while (focused && focused.shadowRoot && focused.shadowRoot.activeElement) {
      focused = focused.shadowRoot.activeElement;
    }
    now = performance.now();
    scrollX = window.scrollX; scrollY = window.scrollY;
    viewportW = window.innerWidth; viewportH = window.innerHeight;
    overlays = []; interactive = []; nodeOf = new Map();
    // A document that is edited as a whole (a rich-text editor's frame: designMode, or a
    // contenteditable body) is one textbox: its body.
    const body = document.body;
    editableBody = body && (document.designMode === "on" || body.isContentEditable) ? body : null;
    // The body is the active element of any document where nothing has the focus.
    if (focused === editableBody && editableBody && !document.hasFocus()) focused = null;
    observer.disconnect();
    observer.observe(document, OBSERVED);
    textBlocks = tables = rows = images = 0;
    quiet = false;
    marked = new Set();
    try {
      const roots = [];
      const top = body || document.documentElement;
      if (editableBody) walkNode(editableBody, roots, false, false, false);
      else if (top) {
        if (!all) markLive(document);
        openBlock = !all && !hasOwnText(top, top.tagName);
        if (!all && !openBlock) textBlocks++;
        walkChildren(top, roots, false, false, false);
      }
      markCovered();
      if (Math.random() < 0.05) W.prune();
      // o: what the interactive view leaves out (the full view shows it all).
      const o = all ? undefined : [textBlocks, tables, rows, images];
      return JSON.stringify({
        n: roots, sx: scrollX, sy: scrollY, t: document.title, w: W.token, c: changes, o,
      });
    } finally {
      // Hold no elements between snapshots.
      listeners = new Set(); drops = new Set(); focused = null; overlays = []; interactive = [];
      nodeOf = new Map(); editableBody = null; marked = new Set();
    }
  }

  // Covered: an interactive element whose centre lies under a positioned box that is
  // not its ancestor or descendant is hit-tested; what the hit finds is the cover.
  function markCovered() {
    if (!overlays.length) return;
    for (const [el, node] of interactive) {
      const b = node.b;
      const cx = b[0] - scrollX + b[2] / 2, cy = b[1] - scrollY + b[3] / 2;
      if (cx < 0 || cy < 0 || cx >= viewportW || cy >= viewportH) continue;
      let suspect = false;
      for (const [over, r] of overlays) {
        if (over === el || cx < r.left || cx > r.right || cy < r.top || cy > r.bottom) continue;
        if (over.contains(el) || el.contains(over)) continue;
        suspect = true;
        break;
      }
      if (!suspect || !(node.k || INTERACTIVE.has(node.r))) continue;
      const root = el.getRootNode();
      const hit = (root.elementFromPoint ? root : document).elementFromPoint(cx, cy);
      if (!hit || hit === el || el.contains(hit) || hit.contains(el)) continue;
      let cover = hit;
      while (cover && !(nodeOf.has(cover) && nodeOf.get(cover).r !== "text")) cover = cover.parentElement;
      const named = cover ? nodeOf.get(cover) : null;
      node.x = named ? { h: named.h } : {};
      let desc = hit.tagName.toLowerCase();
      if (hit.id) desc += "#" + hit.id;
      else if (typeof hit.className === "string" && hit.className.trim()) {
        desc += "." + hit.className.trim().split(/\s+/).slice(0, 2).join(".");
      }
      node.x.d = desc;
    }
  }
})()
