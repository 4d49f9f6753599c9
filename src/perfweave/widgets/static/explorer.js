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
function fillSelect(select, options, value) {
  const same = select.options.length === options.length && options.every(([v, t], i) => select.options[i].value === v && select.options[i].textContent === t);
  if (!same) {
    select.replaceChildren(...options.map(([v, t]) => h("option", { text: t, attrs: { value: v } })));
  }
  if (value !== void 0) select.value = value;
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
function showLocal(model, message) {
  const set = BANNERS.get(model);
  if (!set) return 0;
  let shown = 0;
  for (const el of [...set]) {
    if (!el.isConnected) {
      set.delete(el);
      continue;
    }
    if (message) el.showLocal(message);
    else if (el.dataset.local) el.showLocal(model.get("error") || "");
    shown++;
  }
  return shown;
}

// src/lib/columns.js
var ARRAYS = {
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  float32: Float32Array,
  float64: Float64Array
};
function bytesOf(view) {
  const src = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return src.slice().buffer;
}
var decoder = new TextDecoder("utf-8");
function unpack(header, buffers) {
  const out = {};
  let i = 0;
  for (const col of header) {
    if (col.dtype === "str") {
      const data = new Uint8Array(bytesOf(buffers[i]));
      const ends = new Uint32Array(bytesOf(buffers[i + 1]));
      const strings = new Array(ends.length);
      let start = 0;
      for (let k = 0; k < ends.length; k++) {
        strings[k] = decoder.decode(data.subarray(start, ends[k]));
        start = ends[k];
      }
      out[col.key] = strings;
      i += 2;
    } else {
      const Arr = ARRAYS[col.dtype];
      if (!Arr) throw new Error(`unknown column dtype ${col.dtype}`);
      const arr = new Arr(bytesOf(buffers[i]));
      arr.shape = col.shape;
      out[col.key] = arr;
      i += 1;
    }
  }
  return out;
}
function row2d(arr, r) {
  const k = (
    /** @type {number[]} */
    arr.shape[1]
  );
  return Array.from(
    /** @type {ArrayLike<number | bigint>} */
    arr.subarray(r * k, (r + 1) * k),
    Number
  );
}

// src/lib/format.js
function exact(v) {
  if (typeof v === "bigint") return v.toString();
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v);
}
var SUFFIX = ["", "k", "M", "G", "T"];
function compact(v) {
  if (typeof v === "bigint") {
    if (v > -10000n && v < 10000n) return v.toString();
    v = Number(v);
  }
  if (Number.isNaN(v)) return "\u2013";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a < 1e-3 || a >= 1e15) return v.toExponential(2);
  if (a < 1e3) return a >= 100 ? v.toFixed(1) : a >= 10 ? v.toFixed(2) : v.toFixed(3);
  const tier = Math.min(SUFFIX.length - 1, Math.floor(Math.log10(a) / 3));
  return (v / 10 ** (3 * tier)).toFixed(2) + SUFFIX[tier];
}
function percent(v, total) {
  const x = Number(v);
  if (!total || !Number.isFinite(x)) return "";
  const p = 100 * x / total;
  if (p !== 0 && Math.abs(p) < 0.05) return p > 0 ? "<0.1%" : ">-0.1%";
  return Math.abs(p) >= 9.95 ? `${p.toFixed(0)}%` : `${p.toFixed(1)}%`;
}

// src/lib/glyph.js
var PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#59a14f",
  "#e15759",
  "#76b7b2",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac"
];
function drawDistribution(canvas, quartiles, strip, codes) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || 120;
  const hgt = canvas.clientHeight || 16;
  if (canvas.width !== w * ratio) {
    canvas.width = w * ratio;
    canvas.height = hgt * ratio;
  }
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, hgt);
  const [lo, q1, med, q3, hi] = quartiles;
  if (!Number.isFinite(hi)) return;
  const min = Math.min(0, lo);
  const span = hi - min || 1;
  const x = (v) => 4 + (v - min) / span * (w - 8);
  const mid = hgt / 2;
  ctx.strokeStyle = "#555";
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(x(lo), mid);
  ctx.lineTo(x(hi), mid);
  ctx.stroke();
  ctx.fillStyle = "rgba(78,121,167,0.25)";
  ctx.fillRect(x(q1), 3, Math.max(1, x(q3) - x(q1)), hgt - 6);
  ctx.strokeRect(x(q1), 3, Math.max(1, x(q3) - x(q1)), hgt - 6);
  ctx.strokeStyle = "#222";
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(x(med), 2);
  ctx.lineTo(x(med), hgt - 2);
  ctx.stroke();
  for (let i = 0; i < strip.length; i++) {
    if (strip[i] === 255) continue;
    ctx.fillStyle = PALETTE[(codes[i] || 0) % PALETTE.length];
    const jitter = i * 7919 % 7 - 3;
    const px = 4 + strip[i] / 254 * (w - 8);
    ctx.fillRect(px - 1, mid + jitter - 1, 2.5, 2.5);
  }
}

// src/lib/request.js
var DEFAULT_TIMEOUT_MS = 1e4;
var KERNEL_GONE = "The Python kernel did not answer (it may have stopped or restarted); the view is unchanged.";
var KernelTimeout = class extends Error {
  /** @param {string} action @param {number} ms */
  constructor(action, ms) {
    super(KERNEL_GONE);
    this.name = "KernelTimeout";
    this.action = action;
    this.ms = ms;
  }
};
if (typeof window !== "undefined" && !/** @type {any} */
window.__pwKernelTimeoutQuiet) {
  /** @type {any} */
  window.__pwKernelTimeoutQuiet = true;
  window.addEventListener("unhandledrejection", (ev) => {
    if (ev.reason && ev.reason.name === "KernelTimeout") ev.preventDefault();
  });
}
function searchColumns(msg) {
  return msg.rows || Object.values(msg).find(
    (v) => v && typeof v === "object" && Array.isArray(v.columns)
  );
}
var Channel = class {
  /** @param {Model} model */
  constructor(model) {
    this.model = model;
    this.next = 1;
    this.waiting = /* @__PURE__ */ new Map();
    this.timedOut = false;
    this.onMessage = (msg, buffers) => {
      if (!msg || msg.type !== "response") return;
      if (this.timedOut) {
        this.timedOut = false;
        showLocal(this.model, "");
      }
      const entry = this.waiting.get(msg.id);
      if (!entry) return;
      this.waiting.delete(msg.id);
      clearTimeout(entry.timer);
      const holder = entry.key === void 0 ? searchColumns(msg) : msg[entry.key];
      const columns = holder && Array.isArray(holder.columns) ? unpack(holder.columns, buffers || []) : null;
      entry.resolve({ ...msg, columns });
    };
    model.on("msg:custom", this.onMessage);
  }
  /** Milliseconds a request waits: the model's `request_timeout` (seconds) or the default. */
  get timeoutMs() {
    const seconds = Number(this.model.get("request_timeout"));
    return seconds > 0 ? seconds * 1e3 : DEFAULT_TIMEOUT_MS;
  }
  /**
   * Send `action` with `args`; resolves with the response and its unpacked columns, rejects
   * with a KernelTimeout when the kernel does not answer in time.
   * @param {string} action
   * @param {Record<string, any>} [args]
   * @param {RequestOptions} [options]
   * @returns {Promise<Response>}
   */
  request(action, args = {}, options = {}) {
    const id = this.next++;
    const ms = options.timeoutMs ?? this.timeoutMs;
    return new Promise((resolve, reject) => {
      const fail = () => {
        this.waiting.delete(id);
        this.timedOut = true;
        showLocal(this.model, KERNEL_GONE);
        reject(new KernelTimeout(action, ms));
      };
      const timer = setTimeout(fail, ms);
      this.waiting.set(id, { resolve, key: options.columns, timer });
      try {
        this.model.send({ type: "request", id, action, args });
      } catch {
        clearTimeout(timer);
        fail();
      }
    });
  }
  /** Requests sent and not answered yet. */
  get pending() {
    return this.waiting.size;
  }
  close() {
    this.model.off("msg:custom", this.onMessage);
    for (const entry of this.waiting.values()) clearTimeout(entry.timer);
    this.waiting.clear();
  }
};

// src/lib/virtual.js
var VirtualRows = class {
  /**
   * @param {HTMLElement} body the scroll container
   * @param {VirtualOptions} options
   */
  constructor(body, { rowHeight, overscan = 8, maxPool = 200, make, fill }) {
    this.body = body;
    this.rowHeight = rowHeight;
    this.overscan = overscan;
    this.maxPool = maxPool;
    this.make = make;
    this.fill = fill;
    this.total = 0;
    this.pool = [];
    this.spacer = document.createElement("div");
    this.spacer.className = "pw-spacer";
    body.append(this.spacer);
    this.frame = 0;
    body.addEventListener("scroll", () => this.schedule());
  }
  /**
   * First and last (exclusive) rows in view, with overscan.
   * @returns {[number, number]}
   */
  range() {
    const h2 = this.body.clientHeight || this.rowHeight * 20;
    const first = Math.floor(this.body.scrollTop / this.rowHeight);
    const last = Math.ceil((this.body.scrollTop + h2) / this.rowHeight);
    return [
      Math.max(0, first - this.overscan),
      Math.min(this.total, last + this.overscan)
    ];
  }
  /** @param {number} total */
  setTotal(total) {
    this.total = total;
    this.spacer.style.height = `${total * this.rowHeight}px`;
  }
  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }
  /**
   * Place pool elements on the rows in view; returns the range drawn.
   * @returns {[number, number]}
   */
  draw() {
    const [start, stop] = this.range();
    const need = Math.min(this.maxPool, stop - start);
    while (this.pool.length < need) {
      const el = this.make();
      this.pool.push(el);
      this.spacer.append(el);
    }
    for (let k = 0; k < this.pool.length; k++) {
      const el = this.pool[k];
      const row = start + k;
      if (k < need) {
        el.hidden = false;
        el.style.transform = `translateY(${row * this.rowHeight}px)`;
        this.fill(el, row);
      } else {
        el.hidden = true;
      }
    }
    return [start, start + need];
  }
  /**
   * Scroll so that `row` is in view (centred when it was out of view).
   * @param {number} row
   * @param {boolean} [centre]
   */
  reveal(row, centre = false) {
    const top = row * this.rowHeight;
    const h2 = this.body.clientHeight;
    if (centre || top < this.body.scrollTop || top + this.rowHeight > this.body.scrollTop + h2) {
      this.body.scrollTop = centre ? Math.max(0, top - h2 / 2) : top < this.body.scrollTop ? top : top + this.rowHeight - h2;
    }
  }
};

// src/explorer.js
var ROW_H = 24;
var INDENT = 14;
var FETCH_BEFORE = 100;
var FETCH_COUNT = 300;
var EXPANDED = 1;
var MATCH = 2;
var SELECTED = 4;
var CURRENT = 8;
var PARENT = 16;
function render({ model, el }) {
  const t0 = performance.now();
  const channel = new Channel(model);
  const root = h("div", { cls: "pw-explorer" });
  el.append(root);
  const searchInput = h("input", {
    cls: "pw-search-input",
    attrs: { type: "search", placeholder: "Search names (regex)", "aria-label": "search names" }
  });
  const searchCount = h("span", { cls: "pw-search-count" });
  const filterInput = h("input", {
    cls: "pw-filter-input",
    attrs: {
      type: "text",
      placeholder: "filter: `time (inc)` > 5%  or  name =~ '^MPI_'  or  MATCH ...",
      title: 'A row query (`time (inc)` > 5%, name =~ \'^MPI_\', and / or / not) or a Hatchet call-path query: MATCH (".", p)->("*") WHERE p."name" STARTS WITH "MPI"',
      "aria-label": "filter query"
    }
  });
  const toolbar = h("div", { cls: "pw-toolbar" }, [
    h("div", { cls: "pw-group pw-search" }, [
      searchInput,
      button("\u25C0", () => act("search_step", { step: -1 }), { title: "previous match", action: "prev" }),
      button("\u25B6", () => act("search_step", { step: 1 }), { title: "next match", action: "next" }),
      searchCount
    ]),
    h("div", { cls: "pw-group pw-filter" }, [
      filterInput,
      button("Filter", () => applyFilter(), { cls: "pw-primary", action: "filter" }),
      button("Squash", () => act("squash"), { title: "drop nodes without rows", action: "squash" })
    ]),
    h("div", { cls: "pw-group pw-node-actions" }, [
      button("Focus", () => onCursor("focus"), { title: "keep only the cursor row's subtree", action: "focus" }),
      button("Drop", () => onCursor("drop"), { title: "remove the cursor row's subtree", action: "drop" }),
      button("Expand all", () => onCursor("expand_all"), { title: "open everything below the cursor row", action: "expand-all" })
    ])
  ]);
  const statSelect = h("select", { cls: "pw-stat", attrs: { "aria-label": "statistic" } });
  const colorSelect = h("select", { cls: "pw-color-by", attrs: { "aria-label": "colour by" } });
  statSelect.addEventListener("change", () => act("stat", { stat: statSelect.value }));
  colorSelect.addEventListener("change", () => act("color_by", { column: colorSelect.value || null }));
  const ensembleBar = h("div", { cls: "pw-group pw-ensemble" }, [
    h("label", { text: "statistic" }),
    statSelect,
    h("label", { text: "colour profiles by" }),
    colorSelect
  ]);
  toolbar.append(ensembleBar);
  const historyBar = h("div", { cls: "pw-history" });
  const banner = errorBanner(model);
  const head = h("div", { cls: "pw-head", attrs: { role: "row" } });
  const body = h("div", {
    cls: "pw-body",
    // JupyterLab's notebook shortcuts (arrows, Enter) must not take the tree's keys
    attrs: {
      role: "treegrid",
      tabindex: "0",
      "aria-label": "calltree",
      "data-lm-suppress-shortcuts": "true"
    }
  });
  const status = h("div", { cls: "pw-status", attrs: { "aria-live": "polite" } });
  const legend = h("div", { cls: "pw-legend" });
  const tooltip = h("div", { cls: "pw-tooltip", attrs: { role: "tooltip" } });
  tooltip.hidden = true;
  root.append(toolbar, historyBar, banner, legend, head, body, status, tooltip);
  const state = { start: 0, total: 0, cols: null, cursor: 0, fetching: false, again: false };
  function columns() {
    return model.get("columns") || [];
  }
  function mode() {
    return model.get("mode");
  }
  function hasGlyph() {
    return mode() === "ensemble" && (model.get("glyph") || {}).metric;
  }
  function layout() {
    const widths = columns().map((c) => `${Math.min(230, Math.max(150, 4 * c.label.length + 40))}px`);
    const tpl = ["minmax(260px, 1fr)", ...widths];
    if (hasGlyph()) tpl.push("150px");
    root.style.setProperty("--pw-cols", tpl.join(" "));
    fitHeight();
  }
  function fitHeight() {
    const need = Math.max(3, state.total) * ROW_H + 2;
    body.style.height = `${Math.min(model.get("height"), need)}px`;
  }
  function drawHead() {
    head.replaceChildren();
    const sortKey = model.get("sort_column");
    const desc = model.get("sort_descending");
    head.append(h("div", { cls: "pw-hcell pw-hname", text: "Node", attrs: { role: "columnheader" } }));
    for (const col of columns()) {
      const sorted = col.key === sortKey;
      const cell = h("div", {
        cls: `pw-hcell pw-hmetric${sorted ? " pw-sorted" : ""}`,
        attrs: {
          role: "columnheader",
          "data-col": col.key,
          "aria-sort": sorted ? desc ? "descending" : "ascending" : "none"
        },
        title: `${col.label}: click to sort children by it`
      });
      cell.append(h("span", { cls: "pw-hlabel", text: col.label }));
      if (sorted) cell.append(h("span", { cls: "pw-arrow", text: desc ? " \u25BC" : " \u25B2" }));
      cell.addEventListener(
        "click",
        () => act("sort", { column: col.key, descending: sorted ? !desc : true })
      );
      head.append(cell);
    }
    if (hasGlyph()) {
      const g = model.get("glyph");
      head.append(h("div", {
        cls: "pw-hcell pw-hglyph",
        text: `${g.metric} across ${g.profiles.length} profiles`,
        attrs: { role: "columnheader" }
      }));
    }
  }
  function drawEnsembleBar() {
    const g = model.get("glyph") || {};
    ensembleBar.hidden = !hasGlyph();
    if (ensembleBar.hidden) return;
    fillSelect(statSelect, (g.stats || []).map((s) => [s, s]), g.stat);
    fillSelect(colorSelect, [["", "(none)"], ...(g.color_columns || []).map((c) => [c, c])], g.color_by || "");
  }
  function drawLegend() {
    legend.replaceChildren();
    const g = model.get("glyph") || {};
    if (mode() === "compare") {
      legend.append(
        h("span", { cls: "pw-key pw-key-pos" }),
        h("span", { text: " a slower than b   " }),
        h("span", { cls: "pw-key pw-key-neg" }),
        h("span", { text: " a faster than b" })
      );
    } else if (hasGlyph() && g.categories && g.categories.length) {
      legend.append(h("span", { text: `${g.color_by}: ` }));
      g.categories.forEach((name, i) => {
        const key = h("span", { cls: "pw-key" });
        key.style.background = PALETTE[i % PALETTE.length];
        legend.append(key, h("span", { text: ` ${name}   ` }));
      });
    }
    legend.hidden = !legend.childNodes.length;
  }
  function drawHistory() {
    historyBar.replaceChildren();
    const labels = model.get("history_labels") || [];
    if (!labels.length) {
      historyBar.hidden = true;
      return;
    }
    historyBar.hidden = false;
    historyBar.append(h("span", { cls: "pw-history-title", text: "History:" }));
    for (const label of labels) historyBar.append(h("span", { cls: "pw-chip", text: label }));
    historyBar.append(button("Undo", () => act("undo"), { action: "undo", title: "take back the last step" }));
  }
  function drawStatus() {
    const s = model.get("search_state") || {};
    searchCount.textContent = s.pattern ? `${s.count ? s.current : 0} / ${s.count}` : "";
    const parts = [
      `${state.total.toLocaleString()} rows shown`,
      `${model.get("node_count").toLocaleString()} nodes`
    ];
    const sel = model.get("selected_count");
    if (sel) parts.push(`${sel} selected`);
    const sortCol = columns().find((c) => c.key === model.get("sort_column"));
    if (sortCol) parts.push(`children sorted by ${sortCol.label} ${model.get("sort_descending") ? "\u2193" : "\u2191"}`);
    status.textContent = parts.join(" \xB7 ");
  }
  function makeRow() {
    const row = h("div", { cls: "pw-row", attrs: { role: "row" } });
    const toggle = h("span", { cls: "pw-toggle", attrs: { "aria-hidden": "true" } });
    const name = h("span", { cls: "pw-name" });
    const nameCell = h("div", { cls: "pw-cell pw-name-cell", attrs: { role: "gridcell" } }, [toggle, name]);
    row.append(nameCell);
    row._toggle = toggle;
    row._name = name;
    row._nameCell = nameCell;
    row._metrics = [];
    row._glyph = null;
    toggle.addEventListener("click", (ev) => {
      ev.stopPropagation();
      if (row._vid >= 0 && row._parent) act("toggle", { vid: row._vid });
    });
    row.addEventListener("click", (ev) => {
      if (row._vid < 0) return;
      state.cursor = row._row;
      act("select", { vid: row._vid, add: ev.ctrlKey || ev.metaKey });
    });
    row.addEventListener("dblclick", () => {
      if (row._vid >= 0 && row._parent) act("toggle", { vid: row._vid });
    });
    return row;
  }
  function ensureCells(row) {
    const cols = columns();
    while (row._metrics.length < cols.length) {
      const bar = h("div", { cls: "pw-bar" });
      const val = h("span", { cls: "pw-val" });
      const pct = h("span", { cls: "pw-pct" });
      const cell = h("div", { cls: "pw-cell pw-metric", attrs: { role: "gridcell" } }, [bar, val, pct]);
      cell._bar = bar;
      cell._val = val;
      cell._pct = pct;
      cell._index = row._metrics.length;
      cell.addEventListener("mouseenter", () => showTip(row, cell));
      cell.addEventListener("mouseleave", hideTip);
      row._metrics.push(cell);
      row.append(cell);
    }
    while (row._metrics.length > cols.length) row._metrics.pop().remove();
    if (hasGlyph() && !row._glyph) {
      const canvas = h("canvas", { cls: "pw-canvas" });
      row._glyph = h("div", { cls: "pw-cell pw-glyph", attrs: { role: "gridcell" } }, [canvas]);
      row._glyph._canvas = canvas;
      row._glyph.addEventListener("mouseenter", () => showGlyphTip(row));
      row._glyph.addEventListener("mouseleave", hideTip);
      row.append(row._glyph);
    } else if (!hasGlyph() && row._glyph) {
      row._glyph.remove();
      row._glyph = null;
    } else if (row._glyph) {
      row.append(row._glyph);
    }
  }
  function fillRow(row, r) {
    ensureCells(row);
    row.dataset.row = r;
    const k = r - state.start;
    const c = state.cols;
    if (!c || k < 0 || k >= c.vid.length) {
      row._vid = -1;
      row._parent = false;
      for (const a of ["data-node", "aria-level", "aria-expanded", "aria-selected"]) row.removeAttribute(a);
      row.classList.remove("pw-selected", "pw-match", "pw-current", "pw-cursor");
      if (row._glyph) row._glyph._canvas.getContext("2d").clearRect(0, 0, row._glyph._canvas.width, row._glyph._canvas.height);
      row.classList.add("pw-loading");
      row._name.textContent = "\u2026";
      row._toggle.textContent = "";
      for (const cell of row._metrics) {
        cell._val.textContent = "";
        cell._pct.textContent = "";
        cell._bar.style.width = "0";
      }
      wantRows();
      return;
    }
    row.classList.remove("pw-loading");
    const flags = c.flags[k];
    row._vid = c.vid[k];
    row._row = r;
    row._k = k;
    row._parent = (flags & PARENT) !== 0;
    row.dataset.node = c.node[k];
    row.setAttribute("aria-level", String(c.depth[k] + 1));
    if (row._parent) row.setAttribute("aria-expanded", String((flags & EXPANDED) !== 0));
    else row.removeAttribute("aria-expanded");
    row.setAttribute("aria-selected", String((flags & SELECTED) !== 0));
    row.classList.toggle("pw-selected", (flags & SELECTED) !== 0);
    row.classList.toggle("pw-match", (flags & MATCH) !== 0);
    row.classList.toggle("pw-current", (flags & CURRENT) !== 0);
    row.classList.toggle("pw-cursor", r === state.cursor);
    row._toggle.textContent = row._parent ? flags & EXPANDED ? "\u25BE" : "\u25B8" : "";
    row._nameCell.style.paddingLeft = `${6 + c.depth[k] * INDENT}px`;
    const name = c.name[k];
    row._name.textContent = name;
    row._nameCell.title = row._parent ? `${name}  (${c.nchild[k]} children)` : name;
    const cols = columns();
    for (let i = 0; i < cols.length; i++) fillMetric(row._metrics[i], cols[i], c[`c${i}`][k]);
    if (row._glyph) {
      drawDistribution(
        row._glyph._canvas,
        row2d(c.quartiles, k),
        c.strip.subarray(k * c.strip.shape[1], (k + 1) * c.strip.shape[1]),
        (model.get("glyph") || {}).codes || []
      );
    }
  }
  function fillMetric(cell, col, v) {
    cell._val.textContent = compact(v);
    cell._pct.textContent = col.kind === "diff" ? "" : percent(v, col.total);
    const x = Number(v);
    const frac = col.total && Number.isFinite(x) ? Math.min(1, Math.abs(x) / col.total) : 0;
    if (col.kind === "diff") {
      cell._bar.className = `pw-bar pw-diff ${x > 0 ? "pw-pos" : x < 0 ? "pw-neg" : ""}`;
      cell._bar.style.width = `${frac * 50}%`;
      cell._bar.style.left = x < 0 ? `${50 - frac * 50}%` : "50%";
    } else {
      cell._bar.className = `pw-bar pw-${col.kind}`;
      cell._bar.style.left = "0";
      cell._bar.style.width = `${frac * 100}%`;
    }
  }
  function placeTip(anchor) {
    const box = anchor.getBoundingClientRect();
    const rootBox = root.getBoundingClientRect();
    tooltip.hidden = false;
    const left = Math.min(box.left - rootBox.left, rootBox.width - tooltip.offsetWidth - 4);
    tooltip.style.left = `${Math.max(0, left)}px`;
    tooltip.style.top = `${box.bottom - rootBox.top + 2}px`;
  }
  function showTip(row, cell) {
    if (row._vid < 0) return;
    const col = columns()[cell._index];
    const v = state.cols[`c${cell._index}`][row._k];
    const lines = [
      `${col.label}: ${exact(v)}`,
      col.kind === "diff" ? "" : `${percent(v, col.total) || "\u2013"} of the total ${exact(col.total)}`,
      `node ${row.dataset.node}: ${state.cols.name[row._k]}`
    ].filter(Boolean);
    tooltip.replaceChildren(...lines.map((t) => h("div", { text: t })));
    tooltip.dataset.value = exact(v);
    placeTip(cell);
  }
  function showGlyphTip(row) {
    if (row._vid < 0) return;
    const g = model.get("glyph");
    const [lo, q1, med, q3, hi] = row2d(state.cols.quartiles, row._k);
    tooltip.replaceChildren(
      h("div", { text: `${g.metric} across ${g.profiles.length} profiles` }),
      h("div", { text: `min ${exact(lo)} \xB7 q1 ${exact(q1)} \xB7 median ${exact(med)}` }),
      h("div", { text: `q3 ${exact(q3)} \xB7 max ${exact(hi)}` }),
      ...extremes(g.profiles, row._k).map((t) => h("div", { text: t }))
    );
    tooltip.dataset.value = exact(med);
    placeTip(row._glyph);
  }
  function extremes(labels, k) {
    const c = state.cols;
    const n = c.strip.shape[1];
    const pos = c.strip.subarray(k * n, (k + 1) * n);
    let lo = 255, hi = -1;
    for (const p of pos) if (p !== 255) {
      lo = Math.min(lo, p);
      hi = Math.max(hi, p);
    }
    if (hi < 0 || lo === hi) return [];
    const named = (v) => {
      const at = [];
      pos.forEach((p, i) => {
        if (p === v) at.push(labels[i]);
      });
      return at.slice(0, 3).join(", ") + (at.length > 3 ? ` +${at.length - 3}` : "");
    };
    return [`lowest: ${named(lo)}`, `highest: ${named(hi)}`];
  }
  function hideTip() {
    tooltip.hidden = true;
  }
  const rows = new VirtualRows(body, { rowHeight: ROW_H, make: makeRow, fill: fillRow });
  function viewport() {
    const [first] = rows.range();
    return [Math.max(0, first - FETCH_BEFORE), FETCH_COUNT];
  }
  function accept(resp) {
    if (resp.rows) {
      state.start = resp.rows.start;
      state.total = resp.rows.total;
      state.cols = resp.columns;
      rows.setTotal(state.total);
      fitHeight();
      if (state.cursor >= state.total) state.cursor = Math.max(0, state.total - 1);
    }
    if (resp.scroll_to >= 0) {
      state.cursor = resp.scroll_to;
      rows.reveal(resp.scroll_to, true);
    }
    body.setAttribute("aria-rowcount", String(state.total));
    const drawn = rows.draw();
    drawStatus();
    root.dataset.rows = String(drawn[1] - drawn[0]);
    return resp;
  }
  function covered() {
    const [a, b] = rows.range();
    const c = state.cols;
    return c && a >= state.start && Math.min(b, state.total) <= state.start + c.vid.length;
  }
  async function wantRows() {
    if (state.fetching) {
      state.again = true;
      return;
    }
    state.fetching = true;
    try {
      do {
        state.again = false;
        const [start2, count2] = viewport();
        accept(await channel.request("rows", { start: start2, count: count2 }));
      } while (state.again && !covered());
    } finally {
      state.fetching = false;
    }
  }
  async function act(action, args = {}) {
    const t = performance.now();
    hideTip();
    const resp = await channel.request(action, { ...args, viewport: viewport() });
    accept(resp);
    root.dataset.lastAction = action;
    root.dataset.lastMs = (performance.now() - t).toFixed(1);
    if (resp.ok) body.focus({ preventScroll: true });
    return resp;
  }
  function applyFilter() {
    const query = filterInput.value.trim();
    if (query) act("filter", { query });
  }
  function cursorRow() {
    const k = state.cursor - state.start;
    if (!state.cols || k < 0 || k >= state.cols.vid.length) return null;
    return { k, vid: state.cols.vid[k], flags: state.cols.flags[k], parentRow: state.cols.parent_row[k] };
  }
  function onCursor(action) {
    const cur = cursorRow();
    if (cur) act(action, { vid: cur.vid });
  }
  function moveCursor(row) {
    state.cursor = Math.max(0, Math.min(state.total - 1, row));
    rows.reveal(state.cursor);
    rows.draw();
    if (!covered()) wantRows();
  }
  body.addEventListener("keydown", (ev) => {
    const cur = cursorRow();
    const page = Math.max(1, Math.floor(body.clientHeight / ROW_H) - 1);
    switch (ev.key) {
      case "ArrowDown":
        moveCursor(state.cursor + 1);
        break;
      case "ArrowUp":
        moveCursor(state.cursor - 1);
        break;
      case "PageDown":
        moveCursor(state.cursor + page);
        break;
      case "PageUp":
        moveCursor(state.cursor - page);
        break;
      case "Home":
        moveCursor(0);
        break;
      case "End":
        moveCursor(state.total - 1);
        break;
      case "ArrowRight":
        if (cur && cur.flags & PARENT) {
          if (cur.flags & EXPANDED) moveCursor(state.cursor + 1);
          else act("toggle", { vid: cur.vid });
        }
        break;
      case "ArrowLeft":
        if (cur && cur.flags & EXPANDED) act("toggle", { vid: cur.vid });
        else if (cur && cur.parentRow >= 0) moveCursor(cur.parentRow);
        break;
      case "Enter":
      case " ":
        if (cur) act("select", { vid: cur.vid, add: ev.ctrlKey || ev.metaKey });
        break;
      default:
        return;
    }
    ev.preventDefault();
  });
  let searchTimer = 0;
  searchInput.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => act("search", { pattern: searchInput.value }), 250);
  });
  searchInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      clearTimeout(searchTimer);
      const s = model.get("search_state") || {};
      if (s.pattern === searchInput.value && s.count) act("search_step", { step: ev.shiftKey ? -1 : 1 });
      else act("search", { pattern: searchInput.value });
    }
  });
  filterInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") applyFilter();
  });
  function redrawAll() {
    layout();
    drawHead();
    drawEnsembleBar();
    drawLegend();
    drawHistory();
    drawStatus();
  }
  const onColumns = () => {
    redrawAll();
    rows.draw();
  };
  const onVersion = () => {
    setTimeout(() => {
      if (!channel.pending) wantRows();
    }, 0);
  };
  const traits = ["columns", "sort_column", "sort_descending", "history_labels", "glyph", "height"];
  for (const t of traits) model.on(`change:${t}`, onColumns);
  model.on("change:search_state", drawStatus);
  model.on("change:selected_count", drawStatus);
  model.on("change:view_version", onVersion);
  redrawAll();
  const [start, count] = viewport();
  channel.request("rows", { start, count }).then((resp) => {
    accept(resp);
    root.dataset.firstRowsMs = (performance.now() - t0).toFixed(1);
    root.dataset.ready = "1";
  });
  return () => {
    channel.close();
    for (const t of traits) model.off(`change:${t}`, onColumns);
    model.off("change:search_state", drawStatus);
    model.off("change:selected_count", drawStatus);
    model.off("change:view_version", onVersion);
  };
}
var explorer_default = { render };
export {
  explorer_default as default
};
