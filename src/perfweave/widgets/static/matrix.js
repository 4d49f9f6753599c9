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

// src/lib/columns.js
function bytesOf(view) {
  const src = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return src.slice().buffer;
}
var decoder = new TextDecoder("utf-8");

// src/matrix/index.js
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
var VALUE_CELL = 30;
var SIDE = 210;
var MIN_CELL = 12;
var MAX_CELL = 36;
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
function floats(data) {
  if (!data) return new Float64Array(0);
  return new Float64Array(bytesOf(data instanceof DataView ? data : new DataView(data)));
}
function render({ model, el }) {
  const title = h("div", { cls: "pw-matrix-title" });
  const note = h("div", { cls: "pw-matrix-note" });
  const grid = h("div", { cls: "pw-matrix-grid", attrs: { role: "grid" } });
  const root = h("div", { cls: "pw-matrix" }, [errorBanner(model), title, note, grid]);
  el.append(root);
  function draw() {
    const names = model.get("names") || [];
    const labels = model.get("labels") || [];
    const values = floats(model.get("values"));
    const top = model.get("top") || 1;
    const n = names.length;
    title.textContent = model.get("title") || "";
    note.textContent = model.get("note") || "";
    note.hidden = !note.textContent;
    grid.hidden = !n || n * n !== values.length;
    root.dataset.n = String(n);
    if (grid.hidden) {
      grid.replaceChildren();
      return;
    }
    const size = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(SIDE / n)));
    const showValues = size >= VALUE_CELL;
    grid.style.gridTemplateColumns = `max-content repeat(${n}, ${size}px)`;
    grid.style.setProperty("--pw-cell", `${size}px`);
    const cells = [h("div", { cls: "pw-matrix-corner" })];
    for (let j = 0; j < n; j++) {
      cells.push(h("div", { cls: "pw-matrix-col", text: labels[j] || names[j], title: names[j] }));
    }
    const sel = model.get("selected") || [];
    for (let i = 0; i < n; i++) {
      cells.push(h("div", { cls: "pw-matrix-row", text: labels[i] || names[i], title: names[i] }));
      for (let j = 0; j < n; j++) {
        const v = values[i * n + j];
        const { bg, light } = cellColor(v, top);
        const shown = Number.isFinite(v) ? (Math.abs(v) < 5e-3 ? 0 : v).toFixed(2) : "\u2013";
        const cell = h("div", {
          cls: "pw-matrix-cell" + (light ? " pw-light" : ""),
          text: showValues ? shown : "",
          title: `${names[i]} \xD7 ${names[j]}: ${Number.isFinite(v) ? v.toFixed(3) : "no value"}`,
          attrs: { role: "gridcell", "data-row": String(i), "data-col": String(j) }
        });
        cell.style.background = bg;
        if (sel.length === 2 && sel[0] === i && sel[1] === j) cell.classList.add("pw-picked");
        cells.push(cell);
      }
    }
    grid.replaceChildren(...cells);
  }
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
  const events = ["change:names", "change:values", "change:top", "change:title", "change:note", "change:selected"];
  for (const e of events) model.on(e, draw);
  draw();
  return () => {
    for (const e of events) model.off(e, draw);
    grid.removeEventListener("click", onClick);
  };
}
var index_default = { render };
export {
  cellColor,
  index_default as default
};
