// src/lib/dom.js
function h(tag, { cls, text, attrs, title } = {}, children = []) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== void 0) node.textContent = text;
  if (title !== void 0) node.title = title;
  if (attrs) for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}
function button(label, onClick, { cls = "", title, action } = {}) {
  const b = h("button", { cls: `pw-btn ${cls}`.trim(), text: label, title });
  b.type = "button";
  if (action) b.dataset.action = action;
  b.addEventListener("click", onClick);
  return b;
}

// src/lib/banner.js
var BANNERS = /* @__PURE__ */ new WeakMap();
function errorBanner(model) {
  const text = h("span", { cls: "pw-error-text" });
  const el = (
    /** @type {Banner} */
    h("div", { cls: "pw-error", attrs: { role: "alert" } }, [text])
  );
  el.append(button("\xD7", () => {
    el.hidden = true;
  }, { cls: "pw-error-close", title: "dismiss" }));
  const put = (msg, local) => {
    text.textContent = msg;
    el.hidden = !msg;
    if (local) el.dataset.local = "1";
    else delete el.dataset.local;
  };
  const show = () => put(model.get("error") || "", false);
  el.showLocal = (message) => put(message, Boolean(message));
  model.on("change:error", show);
  show();
  let set = BANNERS.get(model);
  if (!set) BANNERS.set(model, set = /* @__PURE__ */ new Set());
  set.add(el);
  return el;
}

// src/matrix/colors.js
var RDBU = [
  "#67001f",
  "#b2182b",
  "#d6604d",
  "#f4a582",
  "#fddbc7",
  "#f7f7f7",
  "#d1e5f0",
  "#92c5de",
  "#4393c3",
  "#2166ac",
  "#053061"
];
function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [n >> 16 & 255, n >> 8 & 255, n & 255];
}
function cellColor(v, top) {
  if (!Number.isFinite(v)) return { bg: "#d0d0d0", light: false };
  const t = Math.min(1, Math.max(0, (v / (top || 1) + 1) / 2)) * (RDBU.length - 1);
  const k = Math.min(RDBU.length - 2, Math.floor(t));
  const a = rgb(RDBU[k]), b = rgb(RDBU[k + 1]), f = t - k;
  const c = a.map((x, i) => Math.round(x + (b[i] - x) * f));
  const lin = c.map((x) => {
    const s = x / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  const onWhite = 1.05 / (lum + 0.05), onBlack = (lum + 0.05) / 0.05;
  return { bg: `rgb(${c[0]},${c[1]},${c[2]})`, light: onWhite > onBlack };
}

// src/matrix/draw.js
var VALUE_CELL = 30;
var SIDE = 210;
var MIN_CELL = 12;
var MAX_CELL = 36;
function cellText(v) {
  return Number.isFinite(v) ? (Math.abs(v) < 5e-3 ? 0 : v).toFixed(2) : "\u2013";
}
function draw(view, s) {
  const { names, labels, values, top, selected } = s;
  const n = names.length;
  view.title.textContent = s.title;
  view.note.textContent = s.note;
  view.note.hidden = !s.note;
  view.grid.hidden = !n || n * n !== values.length;
  view.root.dataset.n = String(n);
  if (view.grid.hidden) {
    view.grid.replaceChildren();
    return;
  }
  const size = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(SIDE / n)));
  const showValues = size >= VALUE_CELL;
  view.grid.style.gridTemplateColumns = `max-content repeat(${n}, ${size}px)`;
  view.grid.style.setProperty("--pw-cell", `${size}px`);
  const cells = [h("div", { cls: "pw-matrix-corner" })];
  for (let j = 0; j < n; j++) {
    cells.push(h("div", { cls: "pw-matrix-col", text: labels[j] || names[j], title: names[j] }));
  }
  for (let i = 0; i < n; i++) {
    cells.push(h("div", { cls: "pw-matrix-row", text: labels[i] || names[i], title: names[i] }));
    for (let j = 0; j < n; j++) {
      const v = values[i * n + j];
      const { bg, light } = cellColor(v, top);
      const cell = h("div", {
        cls: "pw-matrix-cell" + (light ? " pw-light" : ""),
        text: showValues ? cellText(v) : "",
        title: `${names[i]} \xD7 ${names[j]}: ${Number.isFinite(v) ? v.toFixed(3) : "no value"}`,
        attrs: { role: "gridcell", "data-row": String(i), "data-col": String(j) }
      });
      cell.style.background = bg;
      if (selected.length === 2 && selected[0] === i && selected[1] === j) cell.classList.add("pw-picked");
      cells.push(cell);
    }
  }
  view.grid.replaceChildren(...cells);
}

// src/matrix/events.js
function listen(model, grid) {
  const onClick = (ev) => {
    const target = (
      /** @type {HTMLElement | null} */
      ev.target
    );
    const cell = target && target.closest ? (
      /** @type {HTMLElement | null} */
      target.closest(".pw-matrix-cell")
    ) : null;
    if (!cell) return;
    model.set("selected", [Number(cell.dataset.row), Number(cell.dataset.col)]);
    model.save_changes();
  };
  grid.addEventListener("click", onClick);
  return () => grid.removeEventListener("click", onClick);
}

// src/matrix/protocol.js
var TRAITS = {
  "labels": "string[]",
  "names": "string[]",
  "note": "string",
  "selected": "number[]",
  "title": "string",
  "top": "number",
  "values": "DataView"
};

// src/lib/columns.js
function bytesOf(view) {
  const src = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return src.slice().buffer;
}
var decoder = new TextDecoder("utf-8");

// src/matrix/state.js
function floats(data) {
  if (!data) return new Float64Array(0);
  return new Float64Array(bytesOf(data instanceof DataView ? data : new DataView(data)));
}
function readState(model) {
  return {
    names: model.get("names") || [],
    labels: model.get("labels") || [],
    values: floats(model.get("values")),
    top: model.get("top") || 1,
    title: model.get("title") || "",
    note: model.get("note") || "",
    selected: model.get("selected") || []
  };
}

// src/matrix/index.js
function render({ model, el }) {
  const view = {
    title: h("div", { cls: "pw-matrix-title" }),
    note: h("div", { cls: "pw-matrix-note" }),
    grid: h("div", { cls: "pw-matrix-grid", attrs: { role: "grid" } }),
    root: h("div", { cls: "pw-matrix" })
  };
  view.root.append(errorBanner(model), view.title, view.note, view.grid);
  el.append(view.root);
  let queued = false;
  const redraw = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      draw(view, readState(model));
    });
  };
  const events = Object.keys(TRAITS).map((name) => `change:${name}`);
  for (const e of events) model.on(e, redraw);
  const stop = listen(model, view.grid);
  draw(view, readState(model));
  return () => {
    for (const e of events) model.off(e, redraw);
    stop();
  };
}
var index_default = { render };
export {
  index_default as default
};
