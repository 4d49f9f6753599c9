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
function channelName() {
  const bytes = new Uint8Array(8);
  const c = globalThis.crypto;
  if (c && c.getRandomValues) c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
if (typeof window !== "undefined" && !/** @type {any} */
window.__pwKernelTimeoutQuiet) {
  /** @type {any} */
  window.__pwKernelTimeoutQuiet = true;
  window.addEventListener("unhandledrejection", (ev) => {
    if (ev.reason && ev.reason.name === "KernelTimeout") ev.preventDefault();
  });
}
function columnsOf(msg, key, buffers) {
  const holder = key === void 0 ? void 0 : msg[key];
  return holder && Array.isArray(holder.columns) ? unpack(holder.columns, buffers || []) : null;
}
var Channel = class {
  /** @param {Model} model */
  constructor(model) {
    this.model = model;
    this.name = channelName();
    this.next = 1;
    this.sent = 0;
    this.waiting = /* @__PURE__ */ new Map();
    this.timedOut = false;
    this.pushed = [];
    this.onMessage = (msg, buffers) => {
      if (msg && msg.type === "push" && typeof msg.key === "string") {
        const columns = columnsOf(msg, msg.key, buffers);
        for (const fn of this.pushed) fn({ ...msg, columns });
        return;
      }
      if (!msg || msg.type !== "response") return;
      if (this.timedOut) {
        this.timedOut = false;
        showLocal(this.model, "");
      }
      const entry = this.waiting.get(msg.id);
      if (!entry || entry.answer) return;
      clearTimeout(entry.timer);
      entry.answer = { ...msg, columns: columnsOf(msg, entry.key, buffers) };
      this.release();
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
        this.release();
      };
      const timer = setTimeout(fail, ms);
      this.waiting.set(id, { resolve, key: options.columns, timer });
      const seq = this.sent + 1;
      try {
        this.model.send({ type: "request", id, channel: this.name, seq, action, args });
        this.sent = seq;
      } catch {
        clearTimeout(timer);
        fail();
      }
    });
  }
  /** Resolve the responses that came, in the order their requests were made, up to the
   * first request still unanswered. */
  release() {
    for (const [id, entry] of this.waiting) {
      if (!entry.answer) return;
      this.waiting.delete(id);
      entry.resolve(entry.answer);
    }
  }
  /**
   * Call `fn` with every message the kernel pushes unasked (columns unpacked).
   * @param {(r: Response) => void} fn
   */
  onPush(fn) {
    this.pushed.push(fn);
  }
  /** Requests sent and not resolved yet (unanswered, or answered before an earlier one). */
  get pending() {
    return this.waiting.size;
  }
  close() {
    this.model.off("msg:custom", this.onMessage);
    this.pushed = [];
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

// src/explorer/controls.js
var MAX_CHIPS = 5;
var FILTER_HELP = 'A row query (`time (inc)` > 5%, name =~ \'^MPI_\', and / or / not), in an ensemble also on statistics (`Avg time/rank_std` > 0.1), or a Hatchet call-path query: MATCH (".", p)->("*") WHERE p."name" STARTS WITH "MPI"';
function buildControls(model, el) {
  const root = h("div", { cls: "pw-explorer" });
  el.append(root);
  const searchInput = h("input", {
    cls: "pw-search-input",
    attrs: { type: "search", placeholder: "Search names (regex)", "aria-label": "search names" }
  });
  const searchCount = h("span", { cls: "pw-search-count" });
  const filterInput = h("input", {
    cls: "pw-filter-input",
    attrs: { type: "text", title: FILTER_HELP, "aria-label": "filter query" }
  });
  const buttons = {};
  const action = (label, action2, title, cls) => buttons[action2] = button(label, () => {
  }, { action: action2, title, cls });
  const toolbar = h("div", { cls: "pw-toolbar" }, [
    h("div", { cls: "pw-group pw-search" }, [
      searchInput,
      action("\u25C0", "prev", "previous match"),
      action("\u25B6", "next", "next match"),
      searchCount
    ]),
    h("div", { cls: "pw-group pw-filter" }, [
      filterInput,
      action("Filter", "filter", "keep the rows the query selects (then squash)", "pw-primary"),
      action("Squash", "squash", "drop nodes without rows")
    ]),
    h("div", { cls: "pw-group pw-node-actions" }, [
      action("Focus", "focus", "keep only the cursor row's subtree"),
      action("Drop", "drop", "remove the cursor row's subtree"),
      action(
        "Expand all",
        "expand-all",
        "open everything below the cursor row (on a leaf or with no cursor row: the whole tree, up to 10,000 rows)"
      )
    ])
  ]);
  const statSelect = h("select", { cls: "pw-stat", attrs: { "aria-label": "statistic" } });
  const colorSelect = h("select", { cls: "pw-color-by", attrs: { "aria-label": "color by" } });
  const ensembleBar = h("div", { cls: "pw-group pw-ensemble" }, [
    h("label", { text: "statistic" }),
    statSelect,
    h("label", { text: "color profiles by" }),
    colorSelect
  ]);
  toolbar.append(ensembleBar);
  const historySteps = h("span", { cls: "pw-history-steps" });
  const historyBar = h("div", { cls: "pw-history" }, [
    h("span", { cls: "pw-history-title", text: "History:" }),
    action("Undo", "undo", "take back the last step"),
    historySteps
  ]);
  historyBar.hidden = true;
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
  const details = h("div", { cls: "pw-details", attrs: { "aria-live": "polite" } });
  const legend = h("div", { cls: "pw-legend" });
  const tooltip = h("div", { cls: "pw-tooltip", attrs: { role: "tooltip" } });
  tooltip.hidden = true;
  details.hidden = true;
  const table = h("div", { cls: "pw-table" }, [head, body]);
  root.append(toolbar, historyBar, banner, legend, table, status, details, tooltip);
  return {
    root,
    searchInput,
    searchCount,
    filterInput,
    statSelect,
    colorSelect,
    ensembleBar,
    historyBar,
    historySteps,
    head,
    body,
    status,
    details,
    legend,
    tooltip,
    buttons
  };
}
function drawFilterHint(els, state) {
  const metrics = state.columns().filter((c) => ["inc", "exc", "value"].includes(c.kind));
  const sorted = metrics.find((c) => c.key === state.model.get("sort_column"));
  const col = metrics.find((c) => c.kind === "inc") || sorted || metrics[0];
  const metric = state.mode() === "ensemble" ? col?.label.replace(/ \([a-z]+\)$/, "") : col?.key;
  const hint = metric ? `e.g. \`${metric}\` > 5%` : "e.g. name =~ '^MPI_'";
  els.filterInput.placeholder = hint;
  els.filterInput.style.width = `${Math.max(30, hint.length + 4)}ch`;
}
function drawBoxes(els, model) {
  const shown = {};
  const show = (input, key, value) => {
    if (shown[key] === value) return;
    if (input.ownerDocument.activeElement === input) return;
    shown[key] = value;
    if (input.value !== value) input.value = value;
  };
  const draw = () => {
    const s = model.get("search_state") || {};
    show(els.searchInput, "search", s.pattern || "");
    show(els.filterInput, "filter", model.get("filter_query") || "");
  };
  draw();
  return draw;
}
function drawEnsembleBar(els, state) {
  const g = state.glyph();
  els.ensembleBar.hidden = !(state.mode() === "ensemble" && state.hasGlyph());
  if (els.ensembleBar.hidden) return;
  fillSelect(els.statSelect, (g.stats || []).map((s) => [s, s]), g.stat);
  fillSelect(
    els.colorSelect,
    [["", "(none)"], ...(g.color_columns || []).map((c) => (
      /** @type {[string, string]} */
      [c, c]
    ))],
    g.color_by || ""
  );
}
function drawHistory(els, model) {
  const labels = model.get("history_labels") || [];
  els.historyBar.hidden = !labels.length;
  const shown = labels.length > MAX_CHIPS ? [labels[0], null, ...labels.slice(labels.length - (MAX_CHIPS - 1))] : labels;
  els.historySteps.replaceChildren(...shown.map((label) => {
    if (label !== null) return h("span", { cls: "pw-chip", text: label, title: label });
    const hidden = labels.slice(1, labels.length - (MAX_CHIPS - 1));
    return h("span", {
      cls: "pw-chip pw-chip-more",
      text: `+${hidden.length} more`,
      title: hidden.join("\n")
    });
  }));
}

// src/lib/format.js
function exact(v) {
  if (typeof v === "bigint") return v.toString();
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v);
}
function precise(v) {
  if (typeof v === "bigint" || !Number.isFinite(v) || Number.isInteger(v)) return exact(v);
  return String(Number(v.toPrecision(12)));
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
  let tier = Math.min(SUFFIX.length - 1, Math.floor(Math.log10(a) / 3));
  let y = v / 10 ** (3 * tier);
  if (Math.abs(Number(y.toPrecision(3))) >= 1e3 && tier < SUFFIX.length - 1) {
    tier += 1;
    y = v / 10 ** (3 * tier);
  }
  const ay = Math.abs(y);
  return y.toFixed(ay >= 100 ? 0 : ay >= 10 ? 1 : 2) + SUFFIX[tier];
}
function percent(v, total) {
  const x = Number(v);
  if (!total || !Number.isFinite(x)) return "";
  const p = 100 * x / total;
  if (p !== 0 && Math.abs(p) < 0.05) return p > 0 ? "<0.1%" : ">-0.1%";
  return Math.abs(p) >= 9.95 ? `${p.toFixed(0)}%` : `${p.toFixed(1)}%`;
}
function grouped(v) {
  const text = typeof v === "string" ? v : exact(v);
  return /^-?\d{4,}$/.test(text) ? text.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : text;
}
var TIME_UNITS = [[1, "s"], [1e-3, "ms"], [1e-6, "\xB5s"], [1e-9, "ns"]];
function secondsIn(x) {
  const a = Math.abs(x);
  const [scale, unit] = TIME_UNITS.find(([s]) => a >= s) || TIME_UNITS[TIME_UNITS.length - 1];
  return [x / scale, unit];
}
var TIME_SECONDS = (
  /** @type {Record<string, number>} */
  { s: 1, ms: 1e-3, "\xB5s": 1e-6, us: 1e-6, ns: 1e-9 }
);
var PREFIXES = ["", "k", "M", "G", "T", "P", "E"];
var DIGITS = 4;
function ownFormat(x, unit) {
  const top = Math.abs(x);
  let scale = 1;
  let shown = unit;
  if (unit in TIME_SECONDS) {
    if (top > 0) {
      const sec = top * TIME_SECONDS[unit];
      const [s, name] = TIME_UNITS.find(([t]) => sec >= t) || TIME_UNITS[TIME_UNITS.length - 1];
      scale = s / TIME_SECONDS[unit];
      shown = name;
    }
  } else if (!["%", "\xD7"].includes(unit) && top >= 1e6) {
    const tier = Math.min(PREFIXES.length - 1, Math.floor(Math.log10(top) / 3));
    scale = 1e3 ** tier;
    shown = PREFIXES[tier] + unit;
  }
  const shownTop = top / scale;
  if (shownTop === 0 || Number.isInteger(x) && scale === 1) {
    return { scale, unit: shown, decimals: 0, exponent: false, base: unit };
  }
  const decimals = Math.max(0, DIGITS - 1 - Math.floor(Math.log10(shownTop)));
  if (decimals > MAX_DECIMALS) return { scale, unit: shown, decimals: DIGITS - 1, exponent: true, base: unit };
  return { scale, unit: shown, decimals, exponent: false, base: unit };
}
var BARE_PREFIXES = ["k", "M", "G", "T", "P", "E"];
var MAX_DECIMALS = 6;
function columnText(v, fmt) {
  const unit = fmt.unit || "";
  const tail = !unit ? "" : BARE_PREFIXES.includes(unit) ? unit : ` ${unit}`;
  if (typeof v === "bigint" && fmt.scale === 1 && fmt.decimals === 0 && !fmt.exponent) {
    return `${grouped(v)}${tail}`;
  }
  const x = Number(v);
  if (Number.isNaN(x)) return "\u2013";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return `0${tail}`;
  const y = x / fmt.scale;
  if (fmt.exponent) return `${y.toExponential(fmt.decimals)}${tail}`;
  let decimals = fmt.decimals;
  if (Number(Math.abs(y).toFixed(decimals)) === 0) {
    decimals = 1 - Math.floor(Math.log10(Math.abs(y)));
    if (decimals > MAX_DECIMALS) {
      return fmt.base === void 0 ? `${y.toExponential(1)}${tail}` : columnText(x, ownFormat(x, fmt.base));
    }
  }
  const [whole, frac] = y.toFixed(decimals).split(".");
  const sign = whole.startsWith("-") ? "-" : "";
  const digits = sign ? whole.slice(1) : whole;
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""}${tail}`;
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
function stripX(p, width) {
  return 4 + p / 254 * (width - 8);
}
function drawDistribution(canvas, quartiles, strip, codes) {
  const ratio2 = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || 120;
  const hgt = canvas.clientHeight || 16;
  if (canvas.width !== w * ratio2) {
    canvas.width = w * ratio2;
    canvas.height = hgt * ratio2;
  }
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.setTransform(ratio2, 0, 0, ratio2, 0, 0);
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
    const px = stripX(strip[i], w);
    ctx.fillRect(px - 1, mid + jitter - 1, 2.5, 2.5);
  }
}

// src/explorer/format.js
function cellText(v, col) {
  return col.format ? columnText(v, col.format) : withUnit(v, col.unit);
}
var SECONDS = { s: 1, ms: 1e-3, "\xB5s": 1e-6, ns: 1e-9 };
function withUnit(v, unit) {
  const x = Number(v);
  if (!unit || !Number.isFinite(x)) return compact(v);
  if (unit in SECONDS) {
    const s = x * SECONDS[unit];
    if (s === 0) return "0 s";
    const [y, scaled] = secondsIn(s);
    if (Math.abs(y) >= 1e3 && Math.abs(y) < 1e7) return `${grouped(Math.round(y))} ${scaled}`;
    return `${compact(y)} ${scaled}`;
  }
  const text = compact(v);
  const m = /^(-?[\d.]+)([kMGT])$/.exec(text);
  return m ? `${m[1]} ${m[2]}${unit}` : `${text} ${unit}`;
}
function exactWithUnit(v, unit) {
  return unit ? `${precise(v)} ${unit}` : precise(v);
}
function ratio(v) {
  const x = Number(v);
  return Number.isFinite(x) ? `${x.toFixed(2)}\xD7` : "\u2013";
}

// src/explorer/state.js
var ROW_H = 24;
var INDENT = 14;
var FETCH_BEFORE = 100;
var FETCH_COUNT = 300;
var EXPANDED = 1;
var MATCH = 2;
var SELECTED = 4;
var CURRENT = 8;
var PARENT = 16;
var PLAIN_KINDS = ["extra", "text", "ratio", "excess"];
var ExplorerState = class {
  /** @param {Model} model */
  constructor(model) {
    this.model = model;
    this.start = 0;
    this.total = 0;
    this.cols = null;
    this.cursor = 0;
    this.fetching = false;
    this.again = false;
    this.version = -1;
    this.cursorTimer = void 0;
    this.toldCursor = -1;
  }
  /** @returns {ColumnSpec[]} */
  columns() {
    return this.model.get("columns") || [];
  }
  /** @returns {string} "frame", "ensemble" or "compare" */
  mode() {
    return this.model.get("mode");
  }
  /** @returns {Partial<GlyphState>} */
  glyph() {
    return this.model.get("glyph") || {};
  }
  /** Whether rows draw a distribution glyph. */
  hasGlyph() {
    return Boolean(this.glyph().metric);
  }
  /**
   * Row `r`'s position in the window held, or -1.
   * @param {number} r
   */
  indexOf(r) {
    const k = r - this.start;
    return this.cols && k >= 0 && k < this.cols.vid.length ? k : -1;
  }
};

// src/explorer/draw.js
function layout(ctx) {
  const widths = ctx.state.columns().map((c) => c.kind === "ratio" ? "110px" : `${Math.round(Math.min(240, Math.max(140, 7 * c.label.length + 24)))}px`);
  const tpl = ["minmax(240px, 1fr)", ...widths];
  if (ctx.state.hasGlyph()) tpl.push("150px");
  ctx.els.root.style.setProperty("--pw-cols", tpl.join(" "));
  const least = tpl.reduce((sum, w) => sum + parseInt(w.replace(/^minmax\(/, ""), 10), 0);
  ctx.els.root.style.setProperty("--pw-min", `${least}px`);
  fitHeight(ctx);
}
function fitHeight(ctx) {
  const need = Math.max(3, ctx.state.total) * ROW_H + 2;
  ctx.els.body.style.height = `${Math.min(ctx.model.get("height"), need)}px`;
}
function shownUnit(col) {
  const step = col.format?.unit;
  if (step === void 0) return col.unit || "";
  return BARE_PREFIXES.includes(step) ? col.unit || "" : step;
}
function columnNote(col) {
  if (col.kind === "ratio") return "max / mean";
  const unit = shownUnit(col);
  if (col.kind === "excess") return unit ? `${unit} \xB7 max \u2212 mean` : "max \u2212 mean";
  const parts = [];
  if (unit) parts.push(unit);
  const whole = Number.isFinite(Number(col.total)) && Number(col.total) !== 0;
  if (col.share && col.kind !== "diff" && whole) parts.push(col.share);
  return parts.join(" \xB7 ");
}
function drawHead(ctx) {
  const { els, model, state } = ctx;
  els.head.replaceChildren();
  const sortKey = model.get("sort_column");
  const desc = model.get("sort_descending");
  els.head.append(h("div", { cls: "pw-hcell pw-hname", text: "Node", attrs: { role: "columnheader" } }));
  for (const col of state.columns()) {
    const sorted = col.key === sortKey;
    const note = columnNote(col);
    const cell = h("div", {
      cls: `pw-hcell pw-hmetric${sorted ? " pw-sorted" : ""}`,
      attrs: {
        role: "columnheader",
        "data-col": col.key,
        "aria-sort": sorted ? desc ? "descending" : "ascending" : "none"
      },
      title: `${col.label}${note ? ` (${note})` : ""}: click to sort children by it`
    });
    const label = h("span", { cls: "pw-hlabel", text: col.label });
    if (sorted) label.append(h("span", { cls: "pw-arrow", text: desc ? " \u25BC" : " \u25B2" }));
    cell.append(label);
    if (note) cell.append(h("span", { cls: "pw-hnote", text: note }));
    cell.addEventListener("click", () => ctx.act("sort", { column: col.key, descending: sorted ? !desc : true }));
    els.head.append(cell);
  }
  if (state.hasGlyph()) {
    const g = state.glyph();
    const what = g.what || "profiles";
    els.head.append(h("div", {
      cls: "pw-hcell pw-hglyph",
      text: `${g.metric} across ${(g.profiles || []).length} ${what}`,
      attrs: { role: "columnheader" },
      title: `box: quartiles and median; whiskers: min and max; one point per ${what.replace(/s$/, "")}`
    }));
  }
}
function drawLegend(ctx) {
  const { els, state } = ctx;
  const legend = els.legend;
  legend.replaceChildren();
  const g = state.glyph();
  if (state.mode() === "compare") {
    legend.append(
      h("span", { cls: "pw-key pw-key-pos" }),
      h("span", { text: " a slower than b   " }),
      h("span", { cls: "pw-key pw-key-neg" }),
      h("span", { text: " a faster than b" })
    );
  } else if (state.hasGlyph() && g.categories && g.categories.length) {
    legend.append(h("span", { text: `${g.color_by}: ` }));
    g.categories.forEach((name, i) => {
      const key = h("span", { cls: "pw-key" });
      key.style.background = PALETTE[i % PALETTE.length];
      legend.append(key, h("span", { text: ` ${name}   ` }));
    });
  }
  legend.hidden = !legend.childNodes.length;
}
function drawStatus(ctx) {
  const { els, model, state } = ctx;
  const s = model.get("search_state") || {};
  els.searchCount.textContent = s.pattern ? `${s.count ? s.current : 0} / ${s.count}` : "";
  const parts = [
    `${state.total.toLocaleString()} rows shown`,
    `${Number(model.get("node_count")).toLocaleString()} nodes`
  ];
  const sel = model.get("selected_count");
  if (sel) parts.push(`${sel} selected`);
  const sortCol = state.columns().find((c) => c.key === model.get("sort_column"));
  if (sortCol) parts.push(`children sorted by ${sortCol.label} ${model.get("sort_descending") ? "\u2193" : "\u2191"}`);
  els.status.replaceChildren(parts.join(" \xB7 "));
  const notice = model.get("notice");
  if (notice) els.status.append(h("span", { cls: "pw-notice", text: notice }));
}
function drawDetails(ctx) {
  const d = (
    /** @type {import("./state.js").Details | null} */
    ctx.model.get("details")
  );
  const box = ctx.els.details;
  box.replaceChildren();
  box.hidden = !(d && d.lines && d.lines.length);
  if (box.hidden || !d) return;
  box.append(h("div", { cls: "pw-details-title", text: d.title }));
  for (const line of d.lines) box.append(h("div", { cls: "pw-details-line", text: line }));
}
function makeRow(ctx) {
  const row = (
    /** @type {RowEl} */
    h("div", { cls: "pw-row", attrs: { role: "row" } })
  );
  const toggle = h("span", { cls: "pw-toggle", attrs: { "aria-hidden": "true" } });
  const name = h("span", { cls: "pw-name" });
  const nameCell = h("div", { cls: "pw-cell pw-name-cell", attrs: { role: "gridcell" } }, [toggle, name]);
  row.append(nameCell);
  Object.assign(row, {
    _toggle: toggle,
    _name: name,
    _nameCell: nameCell,
    _metrics: [],
    _glyph: null,
    _vid: -1,
    _parent: false,
    _row: -1,
    _k: -1
  });
  toggle.addEventListener("click", (ev) => {
    ev.stopPropagation();
    if (row._vid >= 0 && row._parent) ctx.act("toggle", { vid: row._vid });
  });
  row.addEventListener("click", (ev) => {
    if (row._vid < 0) return;
    ctx.state.cursor = row._row;
    ctx.act("select", { vid: row._vid, add: ev.ctrlKey || ev.metaKey });
  });
  row.addEventListener("dblclick", () => {
    if (row._vid >= 0 && row._parent) ctx.act("toggle", { vid: row._vid });
  });
  return row;
}
function ensureCells(ctx, row) {
  const cols = ctx.state.columns();
  while (row._metrics.length < cols.length) {
    const bar = h("div", { cls: "pw-bar" });
    const track = h("div", { cls: "pw-track" }, [bar]);
    const val = h("span", { cls: "pw-val" });
    const pct = h("span", { cls: "pw-pct" });
    const cell = (
      /** @type {MetricCell} */
      h("div", { cls: "pw-cell pw-metric", attrs: { role: "gridcell" } }, [track, val, pct])
    );
    Object.assign(cell, { _bar: bar, _val: val, _pct: pct, _index: row._metrics.length });
    cell.addEventListener("mouseenter", () => showTip(ctx, row, cell));
    cell.addEventListener("mouseleave", () => hideTip(ctx));
    row._metrics.push(cell);
    row.append(cell);
  }
  while (row._metrics.length > cols.length) row._metrics.pop()?.remove();
  const glyph = ctx.state.hasGlyph();
  if (glyph && !row._glyph) {
    const canvas = h("canvas", { cls: "pw-canvas" });
    const cell = (
      /** @type {GlyphCell} */
      h("div", { cls: "pw-cell pw-glyph", attrs: { role: "gridcell" } }, [canvas])
    );
    cell._canvas = canvas;
    cell.addEventListener("mousemove", (ev) => showGlyphTip(ctx, row, ev));
    cell.addEventListener("mouseleave", () => hideTip(ctx));
    row._glyph = cell;
    row.append(cell);
  } else if (!glyph && row._glyph) {
    row._glyph.remove();
    row._glyph = null;
  } else if (row._glyph) {
    row.append(row._glyph);
  }
}
function fillRow(ctx, row, r) {
  const { state } = ctx;
  ensureCells(ctx, row);
  row.dataset.row = String(r);
  const k = state.indexOf(r);
  const c = state.cols;
  if (!c || k < 0) {
    row._vid = -1;
    row._parent = false;
    for (const a of ["data-node", "aria-level", "aria-expanded", "aria-selected"]) row.removeAttribute(a);
    row.classList.remove("pw-selected", "pw-match", "pw-current", "pw-cursor");
    if (row._glyph) {
      const cv = row._glyph._canvas;
      cv.getContext("2d")?.clearRect(0, 0, cv.width, cv.height);
    }
    row.classList.add("pw-loading");
    row._name.textContent = "\u2026";
    row._toggle.textContent = "";
    for (const cell of row._metrics) {
      cell._val.textContent = "";
      cell._pct.textContent = "";
      cell._bar.style.width = "0";
    }
    ctx.wantRows();
    return;
  }
  row.classList.remove("pw-loading");
  const flags = c.flags[k];
  row._vid = c.vid[k];
  row._row = r;
  row._k = k;
  row._parent = (flags & PARENT) !== 0;
  row.dataset.node = String(c.node[k]);
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
  const cols = state.columns();
  for (let i = 0; i < cols.length; i++) fillMetric(row._metrics[i], cols[i], c[`c${i}`][k]);
  if (row._glyph) {
    const n = c.strip.shape[1];
    drawDistribution(
      row._glyph._canvas,
      row2d(c.quartiles, k),
      c.strip.subarray(k * n, (k + 1) * n),
      state.glyph().codes || []
    );
  }
}
function fillMetric(cell, col, v) {
  if (PLAIN_KINDS.includes(col.kind)) {
    cell._val.textContent = col.kind === "text" ? String(v) : col.kind === "ratio" ? ratio(v) : cellText(v, col);
    cell._pct.textContent = "";
    cell._pct.hidden = true;
    cell._bar.className = "pw-bar";
    cell._bar.style.width = "0";
    return;
  }
  cell._val.textContent = cellText(v, col);
  cell._pct.textContent = col.kind === "diff" ? "" : percent(v, col.total);
  cell._pct.hidden = col.kind === "diff";
  const x = Number(v);
  const frac = col.total && Number.isFinite(x) ? Math.min(1, Math.abs(x) / col.total) : 0;
  if (col.kind === "diff") {
    cell._bar.className = `pw-bar pw-diff ${x > 0 ? "pw-pos" : x < 0 ? "pw-neg" : ""}`;
    const half = frac * 50 < 0.5 ? 0 : frac * 50;
    cell._bar.style.width = `${half}%`;
    cell._bar.style.left = x < 0 ? `${50 - half}%` : "50%";
  } else {
    cell._bar.className = `pw-bar pw-${col.kind}`;
    cell._bar.style.left = "0";
    cell._bar.style.width = `${frac * 100}%`;
  }
}
function placeTip(ctx, anchor) {
  const { root, tooltip } = ctx.els;
  const box = anchor.getBoundingClientRect();
  const rootBox = root.getBoundingClientRect();
  tooltip.hidden = false;
  const left = Math.min(box.left - rootBox.left, rootBox.width - tooltip.offsetWidth - 4);
  tooltip.style.left = `${Math.max(0, left)}px`;
  tooltip.style.top = `${box.bottom - rootBox.top + 2}px`;
}
function showTip(ctx, row, cell) {
  const c = ctx.state.cols;
  if (row._vid < 0 || !c) return;
  const col = ctx.state.columns()[cell._index];
  const v = c[`c${cell._index}`][row._k];
  const plain = PLAIN_KINDS.includes(col.kind) || col.kind === "diff";
  const lines = [
    `${col.label}: ${col.kind === "ratio" ? `${precise(v)} (max / mean)` : col.kind === "excess" ? `${exactWithUnit(v, col.unit)} (max \u2212 mean)` : exactWithUnit(v, col.unit)}`,
    // "48% of the whole run: 0.19 s" (the header's note reads "% of the whole run"); none
    // where the cell shows none: a total of 0 or unknown is no whole to take a share of
    plain || !percent(v, col.total) ? "" : `${percent(v, col.total)} ${(col.share || "of the total").replace(/^% /, "")}: ${exactWithUnit(col.total, col.unit)}`,
    `node ${row.dataset.node}: ${c.name[row._k]}`
  ].filter(Boolean);
  const tip = ctx.els.tooltip;
  tip.replaceChildren(...lines.map((t) => h("div", { text: t })));
  tip.dataset.value = exact(v);
  placeTip(ctx, cell);
}
function showGlyphTip(ctx, row, ev) {
  const c = ctx.state.cols;
  const g = ctx.state.glyph();
  if (row._vid < 0 || !c || !row._glyph) return;
  const labels = g.profiles || [];
  const what = g.what || "profiles";
  const unit = g.unit || "";
  const [lo, q1, med, q3, hi] = row2d(c.quartiles, row._k);
  const n = c.strip.shape[1];
  const pos = c.strip.subarray(row._k * n, (row._k + 1) * n);
  const lines = [
    `${g.metric} across ${labels.length} ${what}`,
    `min ${exactWithUnit(lo, unit)} \xB7 q1 ${precise(q1)} \xB7 median ${precise(med)}`,
    `q3 ${precise(q3)} \xB7 max ${exactWithUnit(hi, unit)}`
  ];
  const canvas = row._glyph._canvas;
  const near = pointAt(pos, ev.clientX - canvas.getBoundingClientRect().left, canvas.clientWidth || 120);
  if (near.length) lines.push(`here: ${names(labels, near)}`);
  lines.push(...extremes(labels, pos));
  const tip = ctx.els.tooltip;
  tip.replaceChildren(...lines.map((t) => h("div", { text: t })));
  tip.dataset.value = exact(med);
  tip.dataset.point = near.length ? labels[near[0]] : "";
  placeTip(ctx, row._glyph);
}
function pointAt(pos, x, width) {
  const at = [];
  for (let i = 0; i < pos.length; i++) {
    if (pos[i] === 255) continue;
    if (Math.abs(stripX(pos[i], width) - x) <= 3) at.push(i);
  }
  return at;
}
function names(labels, which) {
  const shown = which.slice(0, 3).map((i) => labels[i]).join(", ");
  return shown + (which.length > 3 ? ` +${which.length - 3}` : "");
}
function extremes(labels, pos) {
  let lo = 255, hi = -1;
  for (let i = 0; i < pos.length; i++) {
    const p = pos[i];
    if (p !== 255) {
      lo = Math.min(lo, p);
      hi = Math.max(hi, p);
    }
  }
  if (hi < 0 || lo === hi) return [];
  const at = (v) => {
    const which = [];
    for (let i = 0; i < pos.length; i++) if (pos[i] === v) which.push(i);
    return names(labels, which);
  };
  return [`lowest: ${at(lo)}`, `highest: ${at(hi)}`];
}
function hideTip(ctx) {
  ctx.els.tooltip.hidden = true;
}

// src/explorer/protocol.js
var ACTIONS = {
  "rows": {
    "args": [
      "start",
      "count"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "toggle": {
    "args": [
      "vid",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "expand_all": {
    "args": [
      "vid",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "sort": {
    "args": [
      "column",
      "descending",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "search": {
    "args": [
      "pattern",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "search_step": {
    "args": [
      "step",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "filter": {
    "args": [
      "query",
      "squash",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "squash": {
    "args": [
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "undo": {
    "args": [
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "focus": {
    "args": [
      "vid",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "drop": {
    "args": [
      "vid",
      "subtree",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "select": {
    "args": [
      "vid",
      "add",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "stat": {
    "args": [
      "stat",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "color_by": {
    "args": [
      "column",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "cursor": {
    "args": [
      "node"
    ],
    "key": "",
    "columns": []
  }
};

// src/explorer/events.js
var ROWS = { columns: ACTIONS.rows.key };
function viewport(ctx) {
  const [first] = ctx.rows.range();
  return [Math.max(0, first - FETCH_BEFORE), FETCH_COUNT];
}
function firstWindow(model) {
  const first = model.get("first_window");
  const reply = first && first.reply;
  if (!reply || !reply.rows || Number(reply.version) !== Number(model.get("view_version"))) {
    return null;
  }
  return { ...reply, type: "response", columns: unpack(reply.rows.columns, first.buffers || []) };
}
function accept(ctx, resp) {
  const { state, rows, els } = ctx;
  if (resp.version !== void 0 && resp.version !== null) {
    if (Number(resp.version) < state.version) return;
    state.version = Number(resp.version);
  }
  if (resp.rows) {
    const held = cursorRow(ctx);
    state.start = resp.rows.start;
    state.total = resp.rows.total;
    state.cols = resp.columns;
    rows.setTotal(state.total);
    fitHeight(ctx);
    if (held && state.cols) {
      const k = state.cols.vid.indexOf(held.vid);
      if (k >= 0 && state.cols.node[k] === held.node) state.cursor = state.start + k;
    }
    if (state.cursor >= state.total) state.cursor = Math.max(0, state.total - 1);
  }
  if (resp.scroll_to >= 0) {
    state.cursor = resp.scroll_to;
    rows.reveal(resp.scroll_to, true);
  }
  els.body.setAttribute("aria-rowcount", String(state.total));
  const drawn = rows.draw();
  drawStatus(ctx);
  els.root.dataset.rows = String(drawn[1] - drawn[0]);
  els.root.dataset.rowsAt = performance.now().toFixed(1);
}
function acceptPushed(ctx, resp) {
  if (resp.key !== "rows" || !resp.rows) return;
  ctx.state.version = Number(resp.version);
  accept(ctx, resp);
  const root = ctx.els.root;
  root.dataset.pushes = String(Number(root.dataset.pushes || 0) + 1);
}
function covered(ctx) {
  const [a, b] = ctx.rows.range();
  const c = ctx.state.cols;
  return Boolean(c) && a >= ctx.state.start && Math.min(b, ctx.state.total) <= ctx.state.start + c?.vid.length;
}
async function wantRows(ctx) {
  const { state } = ctx;
  if (state.fetching) {
    state.again = true;
    return;
  }
  state.fetching = true;
  try {
    do {
      state.again = false;
      const [start, count] = viewport(ctx);
      accept(ctx, await ctx.channel.request("rows", { start, count }, ROWS));
    } while (state.again && !covered(ctx));
  } catch (err) {
    if (!(err instanceof Error && err.name === "KernelTimeout")) throw err;
  } finally {
    state.fetching = false;
  }
}
async function act(ctx, action, args = {}) {
  const t = performance.now();
  hideTip(ctx);
  let resp;
  try {
    resp = await ctx.channel.request(action, { ...args, viewport: viewport(ctx) }, ROWS);
  } catch (err) {
    if (err instanceof Error && err.name === "KernelTimeout") return null;
    throw err;
  }
  accept(ctx, resp);
  const root = ctx.els.root;
  root.dataset.lastAction = action;
  root.dataset.lastMs = (performance.now() - t).toFixed(1);
  root.dataset.actions = String(Number(root.dataset.actions || 0) + 1);
  return resp;
}
function cursorRow(ctx) {
  const { state } = ctx;
  const k = state.indexOf(state.cursor);
  const c = state.cols;
  if (k < 0 || !c) return null;
  return { k, vid: c.vid[k], node: c.node[k], flags: c.flags[k], parentRow: c.parent_row[k] };
}
var CURSOR_REST_MS = 120;
function tellCursor(ctx) {
  if (!ctx.model.get("report_cursor")) return;
  clearTimeout(ctx.state.cursorTimer);
  ctx.state.cursorTimer = window.setTimeout(() => {
    const cur = cursorRow(ctx);
    if (!cur || cur.node === ctx.state.toldCursor) return;
    ctx.state.toldCursor = cur.node;
    ctx.channel.request("cursor", { node: cur.node }).catch(() => {
    });
  }, CURSOR_REST_MS);
}
function onCursor(ctx, action) {
  const cur = cursorRow(ctx);
  if (cur) ctx.act(action, { vid: cur.vid });
}
function expandAll(ctx) {
  const cur = cursorRow(ctx);
  ctx.act("expand_all", { vid: cur ? cur.vid : -1 });
}
function moveCursor(ctx, row) {
  const { state, rows } = ctx;
  state.cursor = Math.max(0, Math.min(state.total - 1, row));
  rows.reveal(state.cursor);
  rows.draw();
  if (!covered(ctx)) ctx.wantRows();
  tellCursor(ctx);
}
function onTableKey(ctx, ev) {
  const { state, els } = ctx;
  const cur = cursorRow(ctx);
  const page = Math.max(1, Math.floor(els.body.clientHeight / ROW_H) - 1);
  switch (ev.key) {
    case "ArrowDown":
      moveCursor(ctx, state.cursor + 1);
      break;
    case "ArrowUp":
      moveCursor(ctx, state.cursor - 1);
      break;
    case "PageDown":
      moveCursor(ctx, state.cursor + page);
      break;
    case "PageUp":
      moveCursor(ctx, state.cursor - page);
      break;
    case "Home":
      moveCursor(ctx, 0);
      break;
    case "End":
      moveCursor(ctx, state.total - 1);
      break;
    case "ArrowRight":
      if (cur && cur.flags & PARENT) {
        if (cur.flags & EXPANDED) moveCursor(ctx, state.cursor + 1);
        else ctx.act("toggle", { vid: cur.vid });
      }
      break;
    case "ArrowLeft":
      if (cur && cur.flags & EXPANDED) ctx.act("toggle", { vid: cur.vid });
      else if (cur && cur.parentRow >= 0) moveCursor(ctx, cur.parentRow);
      break;
    case "Enter":
    case " ":
      if (cur) ctx.act("select", { vid: cur.vid, add: ev.ctrlKey || ev.metaKey });
      break;
    default:
      return;
  }
  ev.preventDefault();
}
function wire(ctx) {
  const { els, model } = ctx;
  const b = els.buttons;
  const applyFilter = () => {
    const query = els.filterInput.value.trim();
    if (query) ctx.act("filter", { query });
  };
  const clicks = [
    [b.prev, "click", () => ctx.act("search_step", { step: -1 })],
    [b.next, "click", () => ctx.act("search_step", { step: 1 })],
    [b.filter, "click", applyFilter],
    [b.squash, "click", () => ctx.act("squash")],
    [b.focus, "click", () => onCursor(ctx, "focus")],
    [b.drop, "click", () => onCursor(ctx, "drop")],
    [b["expand-all"], "click", () => expandAll(ctx)],
    [b.undo, "click", () => ctx.act("undo")],
    [els.statSelect, "change", () => ctx.act("stat", { stat: els.statSelect.value })],
    [els.colorSelect, "change", () => ctx.act("color_by", { column: els.colorSelect.value || null })]
  ];
  for (const [el, type, fn] of clicks) el.addEventListener(type, fn);
  els.body.addEventListener("keydown", (ev) => onTableKey(ctx, ev));
  let searchTimer = 0;
  els.searchInput.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => ctx.act("search", { pattern: els.searchInput.value }), 250);
  });
  els.searchInput.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    clearTimeout(searchTimer);
    const s = model.get("search_state") || {};
    if (s.pattern === els.searchInput.value && s.count) ctx.act("search_step", { step: ev.shiftKey ? -1 : 1 });
    else ctx.act("search", { pattern: els.searchInput.value });
  });
  els.filterInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") applyFilter();
  });
  const redrawAll = () => {
    layout(ctx);
    drawHead(ctx);
    drawEnsembleBar(els, ctx.state);
    drawLegend(ctx);
    drawHistory(els, model);
    drawFilterHint(els, ctx.state);
    drawStatus(ctx);
    drawDetails(ctx);
  };
  const onColumns = () => {
    redrawAll();
    ctx.rows.draw();
  };
  const onVersion = () => {
    setTimeout(() => {
      if (ctx.state.version >= Number(model.get("view_version"))) return;
      if (!ctx.channel.pending) ctx.wantRows();
    }, 0);
  };
  const status = () => drawStatus(ctx);
  const details = () => drawDetails(ctx);
  const boxes = drawBoxes(els, model);
  const traits = ["columns", "sort_column", "sort_descending", "history_labels", "glyph", "height"];
  for (const t of traits) model.on(`change:${t}`, onColumns);
  model.on("change:search_state", status);
  model.on("change:search_state", boxes);
  model.on("change:filter_query", boxes);
  model.on("change:notice", status);
  model.on("change:selected_count", status);
  model.on("change:details", details);
  model.on("change:view_version", onVersion);
  redrawAll();
  return () => {
    for (const t of traits) model.off(`change:${t}`, onColumns);
    model.off("change:search_state", status);
    model.off("change:search_state", boxes);
    model.off("change:filter_query", boxes);
    model.off("change:notice", status);
    model.off("change:selected_count", status);
    model.off("change:details", details);
    model.off("change:view_version", onVersion);
  };
}

// src/explorer/index.js
function render({ model, el }) {
  const t0 = performance.now();
  const ctx = (
    /** @type {Ctx} */
    {
      model,
      state: new ExplorerState(model),
      channel: new Channel(model),
      els: buildControls(model, el)
    }
  );
  ctx.act = (action, args) => act(ctx, action, args);
  ctx.wantRows = () => {
    wantRows(ctx);
  };
  ctx.rows = new VirtualRows(ctx.els.body, {
    rowHeight: ROW_H,
    make: () => makeRow(ctx),
    fill: (row, r) => fillRow(
      ctx,
      /** @type {RowEl} */
      row,
      r
    )
  });
  ctx.channel.onPush((resp) => acceptPushed(ctx, resp));
  const unwire = wire(ctx);
  const ready = (resp) => {
    accept(ctx, resp);
    ctx.els.root.dataset.firstRowsMs = (performance.now() - t0).toFixed(1);
    ctx.els.root.dataset.ready = "1";
  };
  const first = firstWindow(model);
  if (first) {
    ready(first);
  } else {
    const [start, count] = viewport(ctx);
    ctx.channel.request("rows", { start, count }, ROWS).then(ready, () => {
    });
  }
  return () => {
    ctx.channel.close();
    unwire();
  };
}
var index_default = { render };
export {
  index_default as default
};
