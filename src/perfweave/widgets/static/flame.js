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
  const el2 = (
    /** @type {Banner} */
    h("div", { cls: "pw-error", attrs: { role: "alert" } }, [text])
  );
  el2.append(button("\xD7", () => {
    el2.hidden = true;
  }, { cls: "pw-error-close", title: "dismiss" }));
  const put = (msg, local) => {
    text.textContent = msg;
    el2.hidden = !msg;
    if (local) el2.dataset.local = "1";
    else delete el2.dataset.local;
  };
  const show = () => put(model.get("error") || "", false);
  el2.showLocal = (message) => put(message, Boolean(message));
  model.on("change:error", show);
  show();
  let set = BANNERS.get(model);
  if (!set) BANNERS.set(model, set = /* @__PURE__ */ new Set());
  set.add(el2);
  return el2;
}
function showLocal(model, message) {
  const set = BANNERS.get(model);
  if (!set) return 0;
  let shown = 0;
  for (const el2 of [...set]) {
    if (!el2.isConnected) {
      set.delete(el2);
      continue;
    }
    if (message) el2.showLocal(message);
    else if (el2.dataset.local) el2.showLocal(model.get("error") || "");
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

// src/flame/colors.js
function hash(s) {
  let h2 = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h2 ^= s.charCodeAt(i);
    h2 = Math.imul(h2, 16777619);
  }
  return h2 >>> 0;
}
function nameColor(key) {
  const h2 = hash(key);
  const v1 = (h2 & 255) / 255, v2 = (h2 >>> 8 & 255) / 255, v3 = (h2 >>> 16 & 255) / 255;
  return [Math.round(215 + 40 * v1), Math.round(110 + 120 * v2), Math.round(40 + 50 * v3)];
}
function mix(a, b, t) {
  const u = Math.max(0, Math.min(1, t));
  const at = (k) => Math.round(a[k] + (b[k] - a[k]) * u);
  return [at(0), at(1), at(2)];
}
var PALE = (
  /** @type {[number, number, number]} */
  [255, 241, 204]
);
var DEEP = (
  /** @type {[number, number, number]} */
  [189, 40, 30]
);
function shareColor(share) {
  return mix(PALE, DEEP, Number.isFinite(share) ? share : 0);
}
var MORE = (
  /** @type {[number, number, number]} */
  [214, 39, 40]
);
var LESS = (
  /** @type {[number, number, number]} */
  [33, 102, 172]
);
var SAME = (
  /** @type {[number, number, number]} */
  [246, 246, 246]
);
var NOT_SIGNIFICANT = (
  /** @type {[number, number, number]} */
  [205, 205, 205]
);
function deltaColor(relative, significant) {
  if (!significant) return NOT_SIGNIFICANT;
  const r = Number.isFinite(relative) ? relative : 0;
  return mix(SAME, r >= 0 ? MORE : LESS, Math.sqrt(Math.abs(r)));
}
function textOn(c) {
  return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 140 ? "#fff" : "#111";
}
function css(c) {
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// src/flame/state.js
var ROW = 18;
function framesOf(meta, cols) {
  const n = cols.node.length;
  const byDepth = [];
  let gathered = 0;
  for (let i = 0; i < n; i++) {
    const d = cols.depth[i];
    (byDepth[d] || (byDepth[d] = [])).push(i);
    if (cols.node[i] < 0) gathered++;
  }
  for (const row of byDepth) if (row) row.sort((a, b) => cols.x0[a] - cols.x0[b]);
  return { meta, cols, n, depth: byDepth.length, byDepth, gathered };
}
function frameAt(f, fx, depth) {
  const row = f.byDepth[depth];
  if (!row) return -1;
  let lo = 0, hi = row.length - 1;
  while (lo <= hi) {
    const mid = lo + hi >> 1;
    const i = row[mid];
    if (fx < f.cols.x0[i]) hi = mid - 1;
    else if (fx >= f.cols.x1[i]) lo = mid + 1;
    else return i;
  }
  return -1;
}

// src/flame/draw.js
var FONT = "11.5px system-ui, -apple-system, 'Segoe UI', sans-serif";
var MATCH = (
  /** @type {[number, number, number]} */
  [214, 60, 214]
);
var FADED = (
  /** @type {[number, number, number]} */
  [232, 232, 232]
);
var GATHERED = (
  /** @type {[number, number, number]} */
  [200, 200, 200]
);
function frameColor(v, i) {
  const f = (
    /** @type {import("./state.js").Frames} */
    v.frames
  );
  const c = f.cols;
  if (c.node[i] < 0) return GATHERED;
  if (f.meta.search.pattern) return c.match[i] ? MATCH : FADED;
  if (f.meta.compare) return deltaColor(c.relative[i], c.significant[i] === 1);
  if (v.model.get("color_by") === "exclusive") {
    return shareColor(c.value[i] > 0 ? c.exclusive[i] / c.value[i] : 0);
  }
  return nameColor(c.key ? c.key[i] : c.name[i]);
}
function canvasWidth(v) {
  return Math.max(200, Math.floor(v.width || v.root.clientWidth || 800));
}
function rowTop(v, depth) {
  const f = v.frames;
  const rows2 = f ? f.depth : 1;
  return v.model.get("orientation") === "flame" ? (rows2 - 1 - depth) * ROW : depth * ROW;
}
var MEASURED = /* @__PURE__ */ new Map();
function widthOf(ctx, text) {
  const known = MEASURED;
  let w = known.get(text);
  if (w === void 0) {
    if (known.size > 1e5) known.clear();
    w = ctx.measureText(text).width;
    known.set(text, w);
  }
  return w;
}
function clipped(ctx, text, room) {
  const whole = widthOf(ctx, text);
  if (whole <= room) return text;
  const per = whole / Math.max(text.length, 1);
  let n = Math.max(0, Math.min(text.length - 1, Math.floor((room - widthOf(ctx, "\u2026")) / per)));
  while (n > 0 && widthOf(ctx, `${text.slice(0, n)}\u2026`) > room) n--;
  while (n + 1 < text.length && widthOf(ctx, `${text.slice(0, n + 1)}\u2026`) <= room) n++;
  return n >= 2 ? `${text.slice(0, n)}\u2026` : "";
}
function hatch(ctx, x, y, w) {
  ctx.save();
  ctx.beginPath();
  ctx.rect(x, y, w, ROW - 1);
  ctx.clip();
  ctx.strokeStyle = "rgba(0, 0, 0, 0.45)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let k = x - ROW; k < x + w; k += 5) {
    ctx.moveTo(k, y + ROW);
    ctx.lineTo(k + ROW, y);
  }
  ctx.stroke();
  ctx.restore();
}
var NAMED = /* @__PURE__ */ new Map();
function frameCss(v, i, byName) {
  if (!byName) return css(frameColor(v, i));
  const c = (
    /** @type {import("./state.js").Frames} */
    v.frames.cols
  );
  if (c.node[i] < 0) return css(GATHERED);
  const key = c.key ? c.key[i] : c.name[i];
  let fill = NAMED.get(key);
  if (!fill) {
    if (NAMED.size > 2e5) NAMED.clear();
    fill = css(nameColor(key));
    NAMED.set(key, fill);
  }
  return fill;
}
function draw(v) {
  const t = performance.now();
  const f = v.frames;
  const canvas = v.canvas;
  const width = canvasWidth(v);
  const rows2 = f ? Math.max(f.depth, 1) : 1;
  const height = rows2 * ROW;
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  canvas.dataset.row = String(ROW);
  const ctx = (
    /** @type {CanvasRenderingContext2D} */
    canvas.getContext("2d")
  );
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  if (!f) return;
  const c = f.cols;
  const zoomPath = new Set(f.meta.path.slice(0, -1).map((p) => p.node));
  const selected = Number(v.model.get("selected_node"));
  const byName = !f.meta.search.pattern && !f.meta.compare && v.model.get("color_by") !== "exclusive";
  const buckets = /* @__PURE__ */ new Map();
  const faded = [];
  const labelled = [];
  let outline = -1;
  for (let i = 0; i < f.n; i++) {
    const w = (c.x1[i] - c.x0[i]) * width;
    if (w < 0.5) continue;
    const node = Number(c.node[i]);
    if (node === selected) outline = i;
    if (w > 28) labelled.push(i);
    if (zoomPath.has(node)) {
      faded.push(i);
      continue;
    }
    const fill = frameCss(v, i, byName);
    const bucket = buckets.get(fill);
    if (bucket) bucket.push(i);
    else buckets.set(fill, [i]);
  }
  const flipped = v.model.get("orientation") === "flame";
  const top = (d) => flipped ? (rows2 - 1 - d) * ROW : d * ROW;
  const rect = (i) => {
    ctx.rect(c.x0[i] * width, top(c.depth[i]), Math.max((c.x1[i] - c.x0[i]) * width - 1, 0.5), ROW - 1);
  };
  for (const [fill, frames] of buckets) {
    ctx.fillStyle = fill;
    ctx.beginPath();
    for (const i of frames) rect(i);
    ctx.fill();
  }
  ctx.globalAlpha = 0.55;
  for (const i of faded) {
    ctx.fillStyle = frameCss(v, i, byName);
    ctx.beginPath();
    rect(i);
    ctx.fill();
  }
  ctx.globalAlpha = 1;
  if (c.guess) {
    for (let i = 0; i < f.n; i++) {
      const w = (c.x1[i] - c.x0[i]) * width;
      if (c.guess[i] && w >= 0.5) hatch(ctx, c.x0[i] * width, top(c.depth[i]), Math.max(w - 1, 0.5));
    }
  }
  ctx.font = FONT;
  ctx.textBaseline = "middle";
  for (const i of labelled) {
    const x = c.x0[i] * width;
    const label = clipped(ctx, c.name[i], (c.x1[i] - c.x0[i]) * width - 7);
    if (!label) continue;
    ctx.globalAlpha = zoomPath.has(Number(c.node[i])) ? 0.55 : 1;
    ctx.fillStyle = textOn(frameColor(v, i));
    ctx.fillText(label, x + 3, top(c.depth[i]) + ROW / 2);
  }
  ctx.globalAlpha = 1;
  if (outline >= 0) {
    ctx.strokeStyle = "#111";
    ctx.lineWidth = 2;
    const x = c.x0[outline] * width;
    ctx.strokeRect(x + 1, top(c.depth[outline]) + 1, (c.x1[outline] - c.x0[outline]) * width - 2, ROW - 3);
  }
  v.root.dataset.drawMs = (performance.now() - t).toFixed(1);
}

// src/flame/protocol.js
var TRAITS = {
  "color_by": "string",
  "height": "number",
  "metric": "string",
  "metrics": "string[]",
  "orientation": "string",
  "selected_node": "number",
  "title": "string"
};
var ACTIONS = {
  "frames": {
    "args": [
      "width"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "key",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "match",
      "hidden",
      "guess",
      "value_a",
      "value_b",
      "delta",
      "relative",
      "p_value",
      "q_value",
      "significant",
      "n_a",
      "n_b"
    ]
  },
  "zoom": {
    "args": [
      "node",
      "width"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "key",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "match",
      "hidden",
      "guess",
      "value_a",
      "value_b",
      "delta",
      "relative",
      "p_value",
      "q_value",
      "significant",
      "n_a",
      "n_b"
    ]
  },
  "search": {
    "args": [
      "pattern",
      "width"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "key",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "match",
      "hidden",
      "guess",
      "value_a",
      "value_b",
      "delta",
      "relative",
      "p_value",
      "q_value",
      "significant",
      "n_a",
      "n_b"
    ]
  },
  "select": {
    "args": [
      "node"
    ],
    "key": "",
    "columns": []
  },
  "set": {
    "args": [
      "width",
      "metric",
      "orientation",
      "color_by"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "key",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "match",
      "hidden",
      "guess",
      "value_a",
      "value_b",
      "delta",
      "relative",
      "p_value",
      "q_value",
      "significant",
      "n_a",
      "n_b"
    ]
  }
};
var CONTROLS = {
  "orientation": [
    [
      "icicle",
      "icicle (root on top)"
    ],
    [
      "flame",
      "flame (root at the bottom)"
    ]
  ],
  "color_by": [
    [
      "name",
      "colour by name"
    ],
    [
      "module",
      "colour by module"
    ],
    [
      "exclusive",
      "colour by exclusive share"
    ]
  ]
};

// src/flame/controls.js
function controls(model, act, download) {
  const title = h("div", { cls: "pw-fl-title" });
  const metric = h("select", { attrs: { "aria-label": "metric" } });
  metric.addEventListener("change", () => act("set", { metric: metric.value }));
  const orientation = h("select", { attrs: { "aria-label": "orientation" } });
  orientation.addEventListener("change", () => act("set", { orientation: orientation.value }));
  const colorBy = h("select", { attrs: { "aria-label": "colour" } });
  colorBy.addEventListener("change", () => act("set", { color_by: colorBy.value }));
  const search = h("input", { cls: "pw-fl-search", attrs: { type: "search", placeholder: "search (regex), Enter", "aria-label": "search" } });
  search.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") act("search", { pattern: search.value });
    if (ev.key === "Escape") {
      search.value = "";
      act("search", { pattern: "" });
    }
  });
  const clear = button("\xD7", () => {
    search.value = "";
    act("search", { pattern: "" });
  }, { title: "end the search", action: "clear-search" });
  const found = h("span", { cls: "pw-fl-found" });
  const svg = button("SVG", () => download("svg"), { title: "download the chart as SVG", action: "download-svg" });
  const png = button("PNG", () => download("png"), { title: "download the chart as PNG", action: "download-png" });
  const toolbar = h("div", { cls: "pw-toolbar" }, [metric, orientation, colorBy, search, clear, svg, png, found]);
  const crumbs = h("div", { cls: "pw-fl-crumbs", attrs: { "aria-label": "zoom path" } });
  const legend = h("div", { cls: "pw-fl-legend" });
  function sync(f) {
    title.textContent = model.get("title") || "";
    const metrics = (
      /** @type {string[]} */
      model.get("metrics") || []
    );
    fillSelect(metric, metrics.map((m) => [m, m]), model.get("metric"));
    fillSelect(orientation, CONTROLS.orientation, model.get("orientation"));
    fillSelect(colorBy, CONTROLS.color_by, model.get("color_by"));
    colorBy.hidden = Boolean(f && f.meta.compare);
    if (!f) return;
    const s = f.meta.search;
    if (document.activeElement !== search) search.value = s.pattern;
    found.textContent = s.text;
    crumbs.replaceChildren(
      button("all", () => act("zoom", { node: null }), { cls: "pw-fl-crumb", action: "zoom-out" }),
      ...f.meta.path.flatMap((p, k) => [
        h("span", { cls: "pw-fl-sep", text: "\u203A" }),
        button(p.name, () => act("zoom", { node: p.node }), { cls: `pw-fl-crumb${k === f.meta.path.length - 1 ? " pw-fl-current" : ""}` })
      ])
    );
    crumbs.hidden = f.meta.path.length === 0;
    legend.replaceChildren(...legendItems(model, f));
  }
  return { title, toolbar, crumbs, legend, sync };
}
function swatch(c, text) {
  const box = h("span", { cls: "pw-fl-swatch" });
  box.style.background = css(c);
  return h("span", { cls: "pw-fl-key" }, [box, text]);
}
function hatched(text) {
  const box = h("span", { cls: "pw-fl-swatch pw-fl-hatched" });
  return h("span", { cls: "pw-fl-key" }, [box, text]);
}
function legendItems(model, f) {
  const m = f.meta;
  const width = h("span", { text: `width: inclusive ${m.metric}${m.compare ? " of the larger side" : ""} (the whole: ${m.total_text})` });
  if (m.search.pattern) {
    return [width, swatch([214, 60, 214], `matches /${m.search.pattern}/`), swatch([232, 232, 232], "other frames")];
  }
  if (m.compare) {
    const [a, b] = m.labels || ["a", "b"];
    const out = [width, swatch(MORE, `${a} larger`), swatch(LESS, `${b} larger`), swatch(SAME, "equal")];
    if (m.tested) out.push(swatch(NOT_SIGNIFICANT, "difference not significant"));
    out.push(h("span", { cls: "pw-fl-test", text: m.test || "" }));
    return out;
  }
  const extra = [];
  if (f.gathered > 0) {
    extra.push(swatch(GATHERED, "frames narrower than a pixel, gathered"));
  }
  if (m.predicted) extra.push(hatched("poorly fitted model or none: a guess"));
  if (model.get("color_by") === "exclusive") {
    return [width, swatch(shareColor(0), "0% exclusive"), swatch(shareColor(0.5), "50%"), swatch(shareColor(1), "100% of the frame is its own time"), ...extra];
  }
  const what = model.get("color_by") === "module" ? "module" : "name";
  return [width, h("span", { cls: "pw-fl-muted", text: `colour: a hash of the ${what} (the same ${what}, the same colour)` }), ...extra];
}

// src/flame/download.js
var SVG = "http://www.w3.org/2000/svg";
function el(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1e3);
}
function fileName(v, ext) {
  const metric = String(v.model.get("metric") || "flame").replace(/[^\w.-]+/g, "_").replace(/^_+|_+$/g, "");
  return `flame_${metric}.${ext}`;
}
function svgText(v) {
  const f = v.frames;
  const width = canvasWidth(v);
  const rows2 = f ? Math.max(f.depth, 1) : 1;
  const top = 24;
  const svg = el("svg", { xmlns: SVG, width, height: rows2 * ROW + top + 8, "font-family": "system-ui, sans-serif", "font-size": 11.5 });
  const title = el("text", { x: 0, y: 15, "font-weight": "bold" });
  title.textContent = String(v.model.get("title") || "");
  svg.append(title);
  const ctx = (
    /** @type {CanvasRenderingContext2D} */
    v.canvas.getContext("2d")
  );
  ctx.font = FONT;
  if (f) {
    const c = f.cols;
    for (let i = 0; i < f.n; i++) {
      const x = c.x0[i] * width;
      const w = (c.x1[i] - c.x0[i]) * width;
      if (w < 0.5) continue;
      const y = rowTop(v, c.depth[i]) + top;
      const col = frameColor(v, i);
      const g = el("g", {});
      const tip = el("title", {});
      tip.textContent = c.name[i];
      g.append(tip, el("rect", { x: x.toFixed(2), y, width: Math.max(w - 1, 0.5).toFixed(2), height: ROW - 1, fill: css(col) }));
      const text = w > 28 ? clipped(ctx, c.name[i], w - 7) : "";
      if (text) {
        const label = el("text", { x: (x + 3).toFixed(2), y: y + ROW / 2 + 4, fill: textOn(col) });
        label.textContent = text;
        g.append(label);
      }
      svg.append(g);
    }
  }
  return new XMLSerializer().serializeToString(svg);
}
function downloadSvg(v) {
  save(new Blob([svgText(v)], { type: "image/svg+xml" }), fileName(v, "svg"));
}
function downloadPng(v) {
  v.canvas.toBlob((blob) => {
    if (blob) save(blob, fileName(v, "png"));
  }, "image/png");
}

// src/lib/format.js
function exact(v) {
  if (typeof v === "bigint") return v.toString();
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v);
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
    if (decimals > MAX_DECIMALS) return `${y.toExponential(1)}${tail}`;
  }
  const [whole, frac] = y.toFixed(decimals).split(".");
  const sign = whole.startsWith("-") ? "-" : "";
  const digits = sign ? whole.slice(1) : whole;
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""}${tail}`;
}

// src/flame/tooltip.js
function pText(p) {
  if (!Number.isFinite(p)) return "\u2013";
  return p < 1e-4 ? p.toExponential(1) : p.toFixed(4);
}
function tooltipLines(f, i) {
  const c = f.cols, m = f.meta, fmt = m.format;
  const value = c.value[i];
  const ofTotal = percent(value, m.total);
  const zoomed2 = m.zoom >= 0 ? `, ${percent(value, m.zoom_value)} of the zoomed frame` : "";
  if (c.node[i] < 0) {
    return [
      `${c.hidden[i].toLocaleString("en-US")} frames, each narrower than a pixel`,
      `together: ${columnText(value, fmt)} (${ofTotal} of the total${zoomed2})`,
      "click the frame above them to zoom in and see them"
    ];
  }
  const lines = [c.name[i]];
  if (m.compare) {
    const [a, b] = m.labels || ["a", "b"];
    lines.push(`${a}: ${columnText(c.value_a[i], fmt)}   ${b}: ${columnText(c.value_b[i], fmt)}`);
    const rel = Number.isFinite(c.relative[i]) ? ` (${(100 * c.relative[i]).toFixed(1)}% of the larger)` : "";
    lines.push(`\u0394 ${a} \u2212 ${b}: ${columnText(c.delta[i], fmt)}${rel}`);
    if (m.tested) {
      const verdict = c.significant[i] ? "significant" : "not significant";
      lines.push(`p = ${pText(c.p_value[i])}, q = ${pText(c.q_value[i])} (${verdict}), n = ${c.n_a[i]} / ${c.n_b[i]}`);
    } else {
      lines.push("no test: one sample per side");
    }
    lines.push(`width: the larger side, ${ofTotal} of the total${zoomed2}`);
  } else {
    lines.push(`inclusive: ${columnText(value, fmt)} (${ofTotal} of the total${zoomed2})`);
    lines.push(`exclusive: ${columnText(c.exclusive[i], fmt)}`);
  }
  if (m.predicted) {
    lines.push(c.guess[i] ? "predicted by a poorly fitted model (or none): a guess" : "predicted by its model");
  }
  return lines;
}
function showTooltip(tip, f, i, x, y, width) {
  if (!f || i < 0) {
    tip.hidden = true;
    return;
  }
  const lines = tooltipLines(f, i);
  tip.replaceChildren(...lines.map((text, k) => h("div", { cls: k ? "" : "pw-fl-tip-name", text })));
  tip.hidden = false;
  tip.dataset.node = String(f.cols.node[i]);
  const left = Math.min(x + 14, Math.max(0, width - 350));
  const top = y + 16 + 90 > window.innerHeight ? y - 16 - tip.offsetHeight : y + 16;
  tip.style.left = `${left}px`;
  tip.style.top = `${Math.max(0, top)}px`;
}

// src/flame/events.js
function frameUnder(v, ev) {
  const f = v.frames;
  if (!f) return -1;
  const box = v.canvas.getBoundingClientRect();
  const x = ev.clientX - box.left, y = ev.clientY - box.top;
  const row = Math.floor(y / ROW);
  const depth = v.model.get("orientation") === "flame" ? f.depth - 1 - row : row;
  return frameAt(f, x / canvasWidth(v), depth);
}
function listen(v) {
  const move = (ev) => {
    const i = frameUnder(v, ev);
    v.hover = i;
    showTooltip(v.tooltip, v.frames, i, ev.clientX, ev.clientY, window.innerWidth);
    v.canvas.style.cursor = i >= 0 && v.frames && v.frames.cols.node[i] >= 0 ? "pointer" : "default";
  };
  const leave = () => {
    v.hover = -1;
    showTooltip(v.tooltip, null, -1, 0, 0, 0);
  };
  const click = async (ev) => {
    const i = frameUnder(v, ev);
    if (i < 0 || !v.frames) return;
    const node = Number(v.frames.cols.node[i]);
    if (node < 0) return;
    v.act("select", { node });
    await v.act("zoom", { node });
  };
  v.canvas.addEventListener("mousemove", move);
  v.canvas.addEventListener("mouseleave", leave);
  v.canvas.addEventListener("click", click);
  return () => {
    v.canvas.removeEventListener("mousemove", move);
    v.canvas.removeEventListener("mouseleave", leave);
    v.canvas.removeEventListener("click", click);
  };
}

// src/flame/offline.js
var EPS = 1e-12;
function rows(cols, idx) {
  const out = {};
  for (const [k, col] of Object.entries(cols)) {
    if (Array.isArray(col)) out[k] = idx.map((i) => col[i]);
    else {
      const Arr = (
        /** @type {any} */
        col.constructor
      );
      const arr = new Arr(idx.length);
      for (let j = 0; j < idx.length; j++) arr[j] = col[idx[j]];
      out[k] = arr;
    }
  }
  return out;
}
function indexOf(f, node) {
  for (let i = 0; i < f.n; i++) if (Number(f.cols.node[i]) === node) return i;
  return -1;
}
function zoomed(full, node) {
  const c = full.cols;
  const meta = { ...full.meta, zoom: -1, zoom_value: full.meta.total, path: (
    /** @type {Meta["path"]} */
    []
  ) };
  if (node === null || node < 0) return { meta, cols: c };
  const z = indexOf(full, node);
  if (z < 0) return null;
  const x0 = c.x0[z], x1 = c.x1[z], d = c.depth[z], span = x1 - x0;
  const mid = (x0 + x1) / 2;
  const path = [];
  const inside = [];
  const depth = c.depth, left = c.x0, right = c.x1, nodes = c.node;
  for (let i = 0; i < full.n; i++) {
    const di = depth[i];
    if (di < d) {
      if (left[i] <= mid && mid < right[i] && nodes[i] >= 0) path.push(i);
    } else if (i === z || di > d && left[i] >= x0 - EPS && right[i] <= x1 + EPS) inside.push(i);
  }
  path.sort((a, b) => c.depth[a] - c.depth[b]);
  const out = rows(c, [...path, ...inside]);
  for (let k = 0; k < path.length; k++) {
    out.x0[k] = 0;
    out.x1[k] = 1;
  }
  for (let k = path.length; k < out.x0.length; k++) {
    out.x0[k] = span > 0 ? (out.x0[k] - x0) / span : 0;
    out.x1[k] = span > 0 ? (out.x1[k] - x0) / span : 1;
  }
  meta.zoom = node;
  meta.zoom_value = c.value[z];
  meta.path = [...path, z].map((i) => ({ node: Number(c.node[i]), name: c.name[i] }));
  meta.shown = inside.length + path.length;
  return { meta, cols: out };
}
function searched(full, pattern) {
  const c = full.cols;
  const match = new Uint8Array(full.n);
  const meta = { ...full.meta, search: { pattern: "", count: 0, text: "" } };
  if (!pattern) return { meta, cols: { ...c, match } };
  let re;
  try {
    re = new RegExp(pattern);
  } catch (err) {
    return { error: `search ${JSON.stringify(pattern)}: bad regular expression: ${String(err)}` };
  }
  const hits = [];
  for (let i = 0; i < full.n; i++) {
    if (c.node[i] >= 0 && re.test(c.name[i])) {
      match[i] = 1;
      hits.push(i);
    }
  }
  let value = 0, share = 0;
  for (const i of hits) {
    const under = hits.some((j) => c.depth[j] < c.depth[i] && c.x0[j] <= c.x0[i] + EPS && c.x1[i] <= c.x1[j] + EPS);
    if (!under) {
      value += c.value[i];
      share += c.x1[i] - c.x0[i];
    }
  }
  const count = hits.length;
  const text = `${count.toLocaleString("en-US")} match${count === 1 ? "" : "es"}: ${columnText(value, full.meta.format)}, ${percent(share, 1)} of the total (frames saved in this page)`;
  meta.search = { pattern, count, text };
  return { meta, cols: { ...c, match } };
}

// src/flame/index.js
function render({ model, el: el2 }) {
  const t0 = performance.now();
  const channel = new Channel(model);
  const root = h("div", { cls: "pw-flame" });
  el2.append(root);
  let busy = 0;
  const v = {
    model,
    root,
    canvas: (
      /** @type {HTMLCanvasElement} */
      h("canvas", { cls: "pw-fl-canvas" })
    ),
    tooltip: h("div", { cls: "pw-fl-tooltip", attrs: { role: "tooltip" } }),
    frames: null,
    hover: -1,
    act
  };
  v.tooltip.hidden = true;
  const ui = controls(model, act, (kind) => kind === "svg" ? downloadSvg(v) : downloadPng(v));
  const plot = h("div", { cls: "pw-fl-plot" }, [v.canvas, v.tooltip]);
  const banner = errorBanner(model);
  root.append(ui.title, ui.toolbar, banner, ui.crumbs, plot, ui.legend);
  const setHeight = () => {
    plot.style.maxHeight = `${Number(model.get("height")) || 420}px`;
  };
  setHeight();
  const stale = () => (model.get("view_version") || 0) > (v.frames ? v.frames.meta.version : -1);
  async function act(action, args = {}) {
    const t = performance.now();
    busy++;
    let reply;
    const { key } = ACTIONS[action];
    const sent = channel.request(action, key ? { ...args, width: canvasWidth(v) } : args, { columns: key });
    const before = v.frames;
    preview(action, args, t);
    try {
      reply = await sent;
    } catch (err) {
      if (before && v.frames !== before) show(before.meta, before.cols);
      ui.sync(v.frames);
      return { ok: false, error: String(err) };
    } finally {
      busy--;
    }
    if (reply.offline) {
      offline.known = true;
      const answered = offline.full ? local(action, args) : null;
      if (answered) {
        if (typeof reply.claim === "function") reply.claim();
        return answered;
      }
    }
    if (reply.columns) accept(reply);
    else ui.sync(v.frames);
    root.dataset.lastAction = action;
    root.dataset.lastMs = (performance.now() - t).toFixed(1);
    if (!busy && stale()) fetchFrames();
    return reply;
  }
  function preview(action, args, t) {
    const f = v.frames;
    if (!f || offline.known) return;
    let view = null;
    if (action === "zoom" && args.node !== null && args.node !== void 0) {
      const onPath = f.meta.path.some((p) => p.node === Number(args.node));
      if (!onPath) view = zoomed(f, Number(args.node));
    } else if (action === "search" && args.pattern) {
      const found = searched(f, String(args.pattern));
      if (!("error" in found)) view = { meta: { ...found.meta, search: { ...found.meta.search, text: "" } }, cols: found.cols };
    }
    if (!view) return;
    show(view.meta, view.cols);
    root.dataset.previewAction = action;
    root.dataset.previewMs = (performance.now() - t).toFixed(1);
  }
  const offline = { full: null, zoom: null, pattern: "", known: false };
  function local(action, args) {
    const full = (
      /** @type {import("./state.js").Frames} */
      offline.full
    );
    if (action === "select") {
      model.set("error", "");
      model.set("selected_node", args.node === null ? -1 : Number(args.node));
      draw(v);
      return { ok: true };
    }
    if (action !== "zoom" && action !== "search") return null;
    const zoom = action === "zoom" ? args.node === null || args.node === void 0 ? null : Number(args.node) : offline.zoom;
    const pattern = action === "search" ? String(args.pattern || "") : offline.pattern;
    const found = searched(full, pattern);
    const view = "error" in found ? null : zoomed(framesOf(found.meta, found.cols), zoom);
    if (!view) {
      model.set("error", "error" in found ? found.error : "that frame is not in this saved page");
      ui.sync(v.frames);
      return { ok: false };
    }
    offline.zoom = zoom;
    offline.pattern = pattern;
    model.set("error", "");
    show(view.meta, view.cols);
    return { ok: true };
  }
  function accept(reply) {
    const m = reply.meta;
    if (!offline.full && m.zoom === -1 && !m.search.pattern) offline.full = framesOf(m, reply.columns);
    show(m, reply.columns);
  }
  function show(meta, cols) {
    const reply = { meta, columns: cols };
    v.frames = framesOf(reply.meta, reply.columns);
    ui.sync(v.frames);
    draw(v);
    root.dataset.version = String(reply.meta.version);
    root.dataset.zoom = String(reply.meta.zoom);
    root.dataset.shown = String(reply.meta.shown);
    root.dataset.search = reply.meta.search.pattern;
  }
  async function fetchFrames() {
    const reply = await act("frames");
    if (!root.dataset.ready && (reply.ok || model.get("error"))) {
      root.dataset.firstDrawMs = (performance.now() - t0).toFixed(1);
      root.dataset.ready = "1";
    }
  }
  const onChange = () => {
    ui.sync(v.frames);
    draw(v);
  };
  const onVersion = () => {
    if (!busy && stale()) fetchFrames();
  };
  const unlisten = listen(v);
  let lastWidth = 0;
  const resize = new ResizeObserver((entries) => {
    const box = entries[entries.length - 1];
    if (box && box.contentRect.width > 0) v.width = box.contentRect.width;
    const w = canvasWidth(v);
    if (Math.abs(w - lastWidth) < 2) return;
    lastWidth = w;
    if (v.frames) draw(v);
  });
  resize.observe(root);
  for (const k of Object.keys(TRAITS)) model.on(`change:${k}`, onChange);
  model.on("change:height", setHeight);
  model.on("change:view_version", onVersion);
  ui.sync(null);
  requestAnimationFrame(() => fetchFrames());
  return () => {
    channel.close();
    resize.disconnect();
    unlisten();
    for (const k of Object.keys(TRAITS)) model.off(`change:${k}`, onChange);
    model.off("change:height", setHeight);
    model.off("change:view_version", onVersion);
  };
}
var index_default = { render };
export {
  index_default as default
};
