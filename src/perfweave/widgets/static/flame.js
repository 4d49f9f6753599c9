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
function frameAt(f, fx, depth) {
  if (depth < 0 || depth >= f.depth) return -1;
  let lo = f.rowStart[depth], hi = f.rowStart[depth + 1] - 1;
  while (lo <= hi) {
    const mid = lo + hi >> 1;
    const i = f.rowIdx[mid];
    if (fx < f.cols.x0[i]) hi = mid - 1;
    else if (fx >= f.cols.x1[i]) lo = mid + 1;
    else return i;
  }
  return -1;
}
function matches(s, f, i) {
  const code = f.cols.code[i];
  return Boolean(s.matched && code >= 0 && s.matched[code]);
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
  if (v.search.pattern) return matches(v.search, f, i) ? MATCH : FADED;
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
  const rows = f ? f.depth : 1;
  return v.model.get("orientation") === "flame" ? (rows - 1 - depth) * ROW : depth * ROW;
}
function plotHeight(v) {
  const rows = v.frames ? Math.max(v.frames.depth, 1) : 1;
  return Math.min(rows * ROW, Number(v.model.get("height")) || 420);
}
function scrollOffset(v) {
  const rows = v.frames ? Math.max(v.frames.depth, 1) : 1;
  return Math.max(0, Math.min(v.scrollTop, rows * ROW - plotHeight(v)));
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
  const rows = f ? Math.max(f.depth, 1) : 1;
  const height = plotHeight(v);
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(width * dpr), hpx = Math.round(height * dpr);
  if (canvas.width !== w || canvas.height !== hpx) {
    canvas.width = w;
    canvas.height = hpx;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  v.spacer.style.height = `${rows * ROW - height}px`;
  canvas.dataset.row = String(ROW);
  const top = scrollOffset(v);
  const ctx = (
    /** @type {CanvasRenderingContext2D} */
    canvas.getContext("2d")
  );
  ctx.setTransform(dpr, 0, 0, dpr, 0, -top * dpr);
  ctx.clearRect(0, top, width, height);
  if (f) {
    const first = Math.floor(top / ROW);
    drawRows(ctx, v, width, first, Math.min(rows, Math.ceil((top + height) / ROW)));
    v.root.dataset.rowsDrawn = `${first}-${Math.min(rows, Math.ceil((top + height) / ROW))}`;
  }
  v.root.dataset.drawMs = (performance.now() - t).toFixed(1);
}
function drawRows(ctx, v, width, first, last) {
  const f = (
    /** @type {import("./state.js").Frames} */
    v.frames
  );
  const c = f.cols;
  const rows = Math.max(f.depth, 1);
  const zoomPath = new Set(f.meta.path.slice(0, -1).map((p) => p.node));
  const selected = Number(v.model.get("selected_node"));
  const byName = !v.search.pattern && !f.meta.compare && v.model.get("color_by") !== "exclusive";
  const flipped = v.model.get("orientation") === "flame";
  const buckets = /* @__PURE__ */ new Map();
  const faded = [];
  const labelled = [];
  const hatched2 = [];
  let outline = -1;
  for (let r = first; r < last; r++) {
    const d = flipped ? rows - 1 - r : r;
    if (d < 0 || d >= f.depth) continue;
    for (let k = f.rowStart[d]; k < f.rowStart[d + 1]; k++) {
      const i = f.rowIdx[k];
      const w = (c.x1[i] - c.x0[i]) * width;
      if (w < 0.5) continue;
      const node = c.node[i];
      if (node === selected) outline = i;
      if (w > 28) labelled.push(i);
      if (c.guess && c.guess[i]) hatched2.push(i);
      if (zoomPath.has(node)) {
        faded.push(i);
        continue;
      }
      const fill = frameCss(v, i, byName);
      const bucket = buckets.get(fill);
      if (bucket) bucket.push(i);
      else buckets.set(fill, [i]);
    }
  }
  const top = (d) => flipped ? (rows - 1 - d) * ROW : d * ROW;
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
  for (const i of hatched2) {
    hatch(ctx, c.x0[i] * width, top(c.depth[i]), Math.max((c.x1[i] - c.x0[i]) * width - 1, 0.5));
  }
  ctx.font = FONT;
  ctx.textBaseline = "middle";
  for (const i of labelled) {
    const x = c.x0[i] * width;
    const label = clipped(ctx, c.name[i], (c.x1[i] - c.x0[i]) * width - 7);
    if (!label) continue;
    ctx.globalAlpha = zoomPath.has(c.node[i]) ? 0.55 : 1;
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
      "width",
      "detail",
      "node",
      "below"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "size",
      "value_before",
      "child_value",
      "child_x1",
      "excl_start",
      "excl_subtree",
      "guess",
      "key",
      "names",
      "name_ids",
      "found",
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
      "width",
      "detail",
      "below"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "size",
      "value_before",
      "child_value",
      "child_x1",
      "excl_start",
      "excl_subtree",
      "guess",
      "key",
      "names",
      "name_ids",
      "found",
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
      "pattern"
    ],
    "key": "found",
    "columns": [
      "code"
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
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "size",
      "value_before",
      "child_value",
      "child_x1",
      "excl_start",
      "excl_subtree",
      "guess",
      "key",
      "names",
      "name_ids",
      "found",
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
var CRUMBS = 10;
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
    const path = f.meta.path;
    const shown = path.length > CRUMBS ? [...path.slice(0, 2), null, ...path.slice(2 - CRUMBS)] : path;
    crumbs.replaceChildren(
      button("all", () => act("zoom", { node: null }), { cls: "pw-fl-crumb", action: "zoom-out" }),
      ...shown.flatMap((p, k) => [
        h("span", { cls: "pw-fl-sep", text: "\u203A" }),
        p === null ? h("span", { cls: "pw-fl-sep", text: `\u2026 ${(path.length - CRUMBS).toLocaleString("en-US")} more` }) : button(p.name, () => act("zoom", { node: p.node }), { cls: `pw-fl-crumb${k === shown.length - 1 ? " pw-fl-current" : ""}` })
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
  const rows = f ? Math.max(f.depth, 1) : 1;
  const top = 24;
  const svg = el("svg", { xmlns: SVG, width, height: rows * ROW + top + 8, "font-family": "system-ui, sans-serif", "font-size": 11.5 });
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
var MAX_CANVAS = 32767;
function downloadPng(v) {
  const f = v.frames;
  const width = canvasWidth(v);
  const dpr = window.devicePixelRatio || 1;
  const rows = Math.min(f ? Math.max(f.depth, 1) : 1, Math.floor(MAX_CANVAS / (ROW * dpr)));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(rows * ROW * dpr);
  const ctx = (
    /** @type {CanvasRenderingContext2D} */
    canvas.getContext("2d")
  );
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (f) drawRows(ctx, v, width, 0, rows);
  canvas.toBlob((blob) => {
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
var TIME_UNITS = [[1, "s"], [1e-3, "ms"], [1e-6, "\xB5s"], [1e-9, "ns"]];
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

// src/flame/tooltip.js
function pText(p) {
  if (!Number.isFinite(p)) return "\u2013";
  return p < 1e-4 ? p.toExponential(1) : p.toFixed(4);
}
function tooltipLines(f, i) {
  const c = f.cols, m = f.meta, fmt = m.format;
  const value = c.value[i];
  const ofTotal = percent(value, m.total);
  const zoomed = m.zoom >= 0 ? `, ${percent(value, m.zoom_value)} of the zoomed frame` : "";
  if (c.node[i] < 0) {
    return [
      `${c.hidden[i].toLocaleString("en-US")} frames, each narrower than a pixel`,
      `together: ${columnText(value, fmt)} (${ofTotal} of the total${zoomed})`,
      "click the frame above them to zoom in and see them"
    ];
  }
  const lines = [c.name[i]];
  if (m.compare) {
    const [a, b] = m.labels || ["a", "b"];
    lines.push(`${a}: ${columnText(c.value_a[i], fmt)} \xB7 ${b}: ${columnText(c.value_b[i], fmt)}`);
    const rel = Number.isFinite(c.relative[i]) ? ` (${(100 * c.relative[i]).toFixed(1)}% of the larger)` : "";
    lines.push(`\u0394 ${a} \u2212 ${b}: ${columnText(c.delta[i], fmt)}${rel}`);
    if (m.tested) {
      const verdict = c.significant[i] ? "significant" : "not significant";
      lines.push(`p = ${pText(c.p_value[i])}, q = ${pText(c.q_value[i])} (${verdict}), n = ${c.n_a[i]} / ${c.n_b[i]}`);
    } else {
      lines.push("no test: one sample per side");
    }
    lines.push(`width: the larger side, ${ofTotal} of the total${zoomed}`);
  } else {
    lines.push(`inclusive: ${columnText(value, fmt)} (${ofTotal} of the total${zoomed})`);
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
  const x = ev.clientX - box.left, y = ev.clientY - box.top + scrollOffset(v);
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
function firstFrames(model) {
  const first = model.get("first_frames");
  const reply = first && first.reply;
  if (!reply || !reply.ok || !reply.frames || !reply.meta) return null;
  if (Number(reply.meta.version) !== Number(model.get("view_version"))) return null;
  return { ...reply, columns: unpack(reply.frames.columns, first.buffers || []) };
}

// src/flame/offline.js
function matchedNames(names, pattern) {
  let re;
  try {
    re = new RegExp(pattern);
  } catch (err) {
    return { error: `search ${JSON.stringify(pattern)}: bad regular expression: ${String(err)}` };
  }
  const matched = new Uint8Array(names.length);
  for (let k = 0; k < names.length; k++) {
    const name = names[k];
    if (name !== void 0 && re.test(name)) matched[k] = 1;
  }
  return { matched };
}
function searchText(held, matched, format) {
  const c = held.cols;
  let count = 0, value = 0, share = 0, inside = -1;
  for (let i = 0; i < held.n; i++) {
    if (!matched[c.name[i]]) continue;
    count++;
    if (c.node[i] < inside) continue;
    value += c.value[i];
    share += c.x1[i] - c.x0[i];
    inside = c.node[i] + c.size[i];
  }
  return `${count.toLocaleString("en-US")} match${count === 1 ? "" : "es"}: ${columnText(value, format)}, ${percent(share, 1)} of the total (frames saved in this page)`;
}

// src/flame/store.js
var DICTIONARY = /* @__PURE__ */ new Set(["names", "name_ids", "found"]);
var KEEP = 4;
function indexOf(s, node) {
  const nodes = s.cols.node;
  let lo = 0, hi = s.n - 1;
  while (lo <= hi) {
    const mid = lo + hi >> 1;
    const m = nodes[mid];
    if (m === node) return mid;
    if (m < node) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
function lowerBound(s, node) {
  const nodes = s.cols.node;
  let lo = 0, hi = s.n;
  while (lo < hi) {
    const mid = lo + hi >> 1;
    if (nodes[mid] < node) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
function gather(a, b, order, source, n) {
  const out = {};
  for (const [k, ca] of Object.entries(a)) {
    const cb = b[k];
    if (cb === void 0) continue;
    const col = Array.isArray(ca) ? new Array(n) : new /** @type {any} */
    ca.constructor(n);
    for (let j = 0; j < n; j++) col[j] = source[j] ? cb[order[j]] : ca[order[j]];
    out[k] = col;
  }
  return out;
}
var Store = class {
  constructor() {
    this.layout = -1;
    this.sets = [];
    this.names = [];
  }
  /**
   * A reply's frames as a held set, merged with `base` (the set the request's `below` came
   * from) where the reply holds only what `base` lacked. The set is kept.
   * @param {any} meta the reply's meta (with `held`) @param {Record<string, any>} cols
   * @param {Held | null} base
   * @returns {Held}
   */
  accept(meta, cols, base) {
    if (meta.layout !== this.layout) {
      this.layout = meta.layout;
      this.sets = [];
      this.names = [];
    }
    const ids = cols.name_ids, names = cols.names;
    for (let k = 0; k < ids.length; k++) this.names[ids[k]] = names[k];
    const frames = {};
    for (const [k, col] of Object.entries(cols)) if (!DICTIONARY.has(k)) frames[k] = col;
    const held = meta.held;
    const root = Number(held.root);
    const fresh = { layout: meta.layout, root, end: 0, tau: Number(held.tau), n: frames.node.length, cols: frames, forest: held.forest };
    const below = held.below !== null && held.below !== void 0 && base && base.layout === meta.layout;
    if (below && fresh.n === 0 && base.root === root) {
      base.tau = Math.min(base.tau, fresh.tau);
      return base;
    }
    const set = below ? merged(
      /** @type {Held} */
      base,
      fresh
    ) : fresh;
    set.end = root < 0 ? Number(meta.nodes) : endOf(set, root);
    this.sets = this.sets.filter((s) => !(s.root === root && s.tau >= set.tau));
    this.sets.push(set);
    const whole = this.sets.filter((s) => s.root < 0).sort((a, b) => a.tau - b.tau).slice(0, 1);
    const others = this.sets.filter((s) => s.root >= 0).slice(-KEEP);
    this.sets = [...whole, ...others];
    return set;
  }
  /**
   * The finest held set that holds `node` (-1: the whole graph) and its subtree, and the
   * node's index in it; null when no set does.
   * @param {number} node
   * @returns {{set: Held, i: number} | null}
   */
  best(node) {
    let found = null;
    for (const s of this.sets) {
      if (s.layout !== this.layout) continue;
      let i = -1;
      if (node < 0) {
        if (s.root >= 0) continue;
      } else {
        if (s.root >= 0 && (node < s.root || node >= s.end)) continue;
        i = indexOf(s, node);
        if (i < 0) continue;
      }
      if (!found || s.tau < found.set.tau) found = { set: s, i };
    }
    return found;
  }
};
function complete(s, i, width) {
  const span = i < 0 ? 1 : s.cols.x1[i] - s.cols.x0[i];
  if (!(span > 0)) return true;
  return s.tau <= span / width * (1 - 1e-12);
}
function endOf(s, root) {
  const i = indexOf(s, root);
  return i < 0 ? root + 1 : root + s.cols.size[i];
}
function merged(base, fresh) {
  const root = fresh.root;
  const bn = base.cols.node, bs = base.cols.size;
  let lo = 0, hi = base.n;
  const path = [];
  if (root >= 0) {
    lo = indexOf(base, root);
    if (lo < 0) return fresh;
    hi = lowerBound(base, root + bs[lo]);
    for (let j = 0; j < lo; j++) if (bn[j] + bs[j] > root) path.push(j);
  }
  const fnodes = fresh.cols.node;
  const n = path.length + (hi - lo) + fresh.n;
  const order = new Int32Array(n);
  const source = new Uint8Array(n);
  let k = 0;
  for (const j of path) order[k++] = j;
  let a = lo, b = 0;
  while (a < hi || b < fresh.n) {
    if (b >= fresh.n || a < hi && bn[a] < fnodes[b]) order[k++] = a++;
    else {
      source[k] = 1;
      order[k++] = b++;
    }
  }
  return { layout: base.layout, root, end: 0, tau: fresh.tau, n, cols: gather(base.cols, fresh.cols, order, source, n), forest: fresh.forest };
}

// src/flame/view.js
var COPIED = ["value_a", "value_b", "delta", "relative", "p_value", "q_value", "significant", "n_a", "n_b", "guess"];
var work = {
  size: 0,
  src: new Int32Array(0),
  x0: new Float64Array(0),
  x1: new Float64Array(0),
  depth: new Int32Array(0),
  runValue: new Float64Array(0),
  runExcl: new Float64Array(0),
  runHidden: new Int32Array(0),
  stI: new Int32Array(0),
  stDepth: new Int32Array(0),
  stCursor: new Float64Array(0),
  stEnd: new Float64Array(0),
  stPrev: new Int32Array(0)
};
function scratch(n) {
  if (work.size < n) {
    const size = Math.max(n, 2 * work.size);
    Object.assign(work, {
      size,
      src: new Int32Array(size),
      x0: new Float64Array(size),
      x1: new Float64Array(size),
      depth: new Int32Array(size),
      runValue: new Float64Array(size),
      runExcl: new Float64Array(size),
      runHidden: new Int32Array(size),
      stI: new Int32Array(size),
      stDepth: new Int32Array(size),
      stCursor: new Float64Array(size),
      stEnd: new Float64Array(size),
      stPrev: new Int32Array(size)
    });
  }
  return work;
}
function grouped2(n) {
  const s = String(Math.trunc(Math.abs(n)));
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if (i && (s.length - i) % 3 === 0) out += ",";
    out += s[i];
  }
  return n < 0 ? `-${out}` : out;
}
function viewOf(held, iz, width, meta, names) {
  const c = held.cols;
  const minWidth = 1 / width;
  const node = c.node, size = c.size, depth = c.depth, x0 = c.x0, x1 = c.x1;
  const value = c.value, excl = c.exclusive, before = c.value_before;
  const childValue = c.child_value, childX1 = c.child_x1, exclStart = c.excl_start, exclSub = c.excl_subtree;
  const zoomed = iz >= 0;
  const zx0 = zoomed ? x0[iz] : 0;
  const span = zoomed ? x1[iz] - x0[iz] : 1;
  const at = zoomed ? (x) => (x - zx0) / span : (x) => x;
  const path = [];
  let lo = 0, hi = held.n;
  if (zoomed) {
    const z = node[iz];
    for (let j = 0; j < iz; j++) if (node[j] + size[j] > z) path.push(j);
    path.sort((a, b) => depth[a] - depth[b]);
    lo = iz;
    hi = span > 0 ? upper(node, iz, held.n, z + size[iz]) : iz + 1;
  }
  const w = scratch(path.length + 2 * (hi - lo) + 2);
  const src = w.src;
  const vx0 = w.x0, vx1 = w.x1, vdepth = w.depth;
  const runValue = w.runValue, runExcl = w.runExcl, runHidden = w.runHidden;
  let n = 0;
  for (const j of path) {
    src[n] = j;
    vx0[n] = 0;
    vx1[n] = 1;
    vdepth[n] = depth[j];
    n++;
  }
  const stI = w.stI, stDepth = w.stDepth, stCursor = w.stCursor, stEnd = w.stEnd, stPrev = w.stPrev;
  let top = -1;
  const forest = held.forest;
  if (!zoomed) {
    top = 0;
    stI[0] = -1;
    stDepth[0] = -1;
    stCursor[0] = 0;
    stEnd[0] = Number(meta.nodes);
    stPrev[0] = -1;
  }
  const run = (t, s, e, prev, next) => {
    const p = stI[t];
    const pStart = p < 0 ? 0 : exclStart[p];
    const valueEnd = next >= 0 ? before[next] : p < 0 ? forest.value : childValue[p];
    const valueStart = prev >= 0 ? before[prev] + value[prev] : 0;
    const exclEnd = next >= 0 ? exclStart[next] : p < 0 ? forest.exclusive : pStart + exclSub[p];
    const exclBegin = prev >= 0 ? exclStart[prev] + exclSub[prev] : p < 0 ? 0 : pStart + excl[p];
    const left = prev >= 0 ? at(x1[prev]) : p < 0 ? 0 : at(x0[p]);
    const right = next >= 0 ? at(x0[next]) : p < 0 ? forest.x1 : at(childX1[p]);
    if (!(right - left >= minWidth)) return;
    src[n] = -1;
    vx0[n] = left;
    vx1[n] = right;
    vdepth[n] = stDepth[t] + 1;
    runValue[n] = valueEnd - valueStart;
    runExcl[n] = exclEnd - exclBegin;
    runHidden[n] = e - s;
    n++;
  };
  const close = () => {
    if (stCursor[top] < stEnd[top]) run(top, stCursor[top], stEnd[top], stPrev[top], -1);
    top--;
  };
  for (let i = lo; i < hi; i++) {
    const a = at(x0[i]), b = at(x1[i]);
    if (i !== iz && !(b - a >= minWidth)) continue;
    const id = node[i], d = depth[i];
    while (top >= 0 && stEnd[top] <= id) close();
    if (top >= 0 && stDepth[top] === d - 1) {
      if (id > stCursor[top]) run(top, stCursor[top], id, stPrev[top], i);
      stCursor[top] = id + size[i];
      stPrev[top] = i;
    }
    src[n] = i;
    vx0[n] = i === iz ? 0 : a;
    vx1[n] = i === iz ? 1 : b;
    vdepth[n] = d;
    n++;
    top++;
    stI[top] = i;
    stDepth[top] = d;
    stCursor[top] = id + 1;
    stEnd[top] = id + size[i];
    stPrev[top] = -1;
  }
  while (top >= 0) close();
  return framesOf(held, meta, names, { n, src, vx0, vx1, vdepth, runValue, runExcl, runHidden }, path, iz);
}
function upper(node, lo, hi, end) {
  while (lo < hi) {
    const mid = lo + hi >> 1;
    if (node[mid] < end) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
function framesOf(held, meta, names, v, path, iz) {
  const c = held.cols, n = v.n, src = v.src;
  const node = new Int32Array(n), code = new Int32Array(n), value = new Float64Array(n);
  const exclusive = new Float64Array(n), hidden = new Int32Array(n);
  const name = new Array(n);
  let gathered = 0, maxDepth = 0;
  for (let k = 0; k < n; k++) {
    const i = src[k];
    if (v.vdepth[k] > maxDepth) maxDepth = v.vdepth[k];
    if (i >= 0) {
      node[k] = c.node[i];
      code[k] = c.name[i];
      value[k] = c.value[i];
      exclusive[k] = c.exclusive[i];
      name[k] = names[c.name[i]] ?? "";
    } else {
      node[k] = -1;
      code[k] = -1;
      value[k] = v.runValue[k];
      exclusive[k] = v.runExcl[k];
      hidden[k] = v.runHidden[k];
      name[k] = `\u2026 ${grouped2(v.runHidden[k])} hidden`;
      gathered++;
    }
  }
  const cols = {
    node,
    code,
    name,
    depth: v.vdepth.slice(0, n),
    x0: v.vx0.slice(0, n),
    x1: v.vx1.slice(0, n),
    value,
    exclusive,
    hidden
  };
  for (const k of COPIED) {
    const col = c[k];
    if (!col) continue;
    const out = new /** @type {any} */
    col.constructor(n);
    const empty = col instanceof Float64Array ? NaN : 0;
    for (let j = 0; j < n; j++) out[j] = src[j] >= 0 ? col[src[j]] : empty;
    cols[k] = out;
  }
  if (c.key) cols.key = Array.from(src.subarray(0, n), (i) => i >= 0 ? c.key[i] : "");
  const depth = cols.depth;
  const rows = n ? maxDepth + 1 : 0;
  const rowStart = new Int32Array(rows + 1);
  for (let k = 0; k < n; k++) rowStart[depth[k] + 1]++;
  for (let d = 0; d < rows; d++) rowStart[d + 1] += rowStart[d];
  const fill = rowStart.slice(0, rows);
  const rowIdx = new Int32Array(n);
  for (let k = 0; k < n; k++) rowIdx[fill[depth[k]]++] = k;
  const z = iz >= 0 ? c.node[iz] : -1;
  const view = {
    ...meta,
    zoom: z,
    zoom_value: iz >= 0 ? c.value[iz] : meta.total,
    path: iz >= 0 ? [...path, iz].map((i) => ({ node: Number(c.node[i]), name: names[c.name[i]] ?? "" })) : [],
    shown: n - gathered
  };
  return { meta: view, cols, n, depth: rows, rowStart, rowIdx, gathered };
}

// src/flame/index.js
var DETAIL = 8;
function render({ model, el: el2 }) {
  const t0 = performance.now();
  const channel = new Channel(model);
  const root = h("div", { cls: "pw-flame" });
  el2.append(root);
  const store = new Store();
  let busy = 0;
  let told = null;
  const v = {
    model,
    root,
    plot: h("div", { cls: "pw-fl-plot" }),
    canvas: (
      /** @type {HTMLCanvasElement} */
      h("canvas", { cls: "pw-fl-canvas" })
    ),
    spacer: h("div", { cls: "pw-fl-spacer" }),
    tooltip: h("div", { cls: "pw-fl-tooltip", attrs: { role: "tooltip" } }),
    frames: null,
    search: { pattern: "", matched: null },
    hover: -1,
    scrollTop: 0,
    act
  };
  v.tooltip.hidden = true;
  v.plot.append(v.canvas, v.spacer, v.tooltip);
  const ui = controls(model, act, (kind) => kind === "svg" ? downloadSvg(v) : downloadPng(v));
  const banner = errorBanner(model);
  root.append(ui.title, ui.toolbar, banner, ui.crumbs, v.plot, ui.legend);
  const setHeight = () => {
    v.plot.style.maxHeight = `${Number(model.get("height")) || 420}px`;
  };
  setHeight();
  const stale = () => (model.get("view_version") || 0) > (told ? told.version : -1);
  let offline = false;
  function showZoom(node) {
    const found2 = store.best(node);
    if (!found2 || !told) return null;
    const width = canvasWidth(v);
    show(viewOf(found2.set, found2.i, width, { ...told, search: searchMeta() }, store.names));
    return { set: found2.set, complete: complete(found2.set, found2.i, width) };
  }
  function searchMeta() {
    const said = told ? told.search : null;
    if (said && said.pattern === v.search.pattern) return said;
    return { pattern: v.search.pattern, count: 0, text: "" };
  }
  function show(frames) {
    v.frames = frames;
    ui.sync(frames);
    draw(v);
    root.dataset.version = String(frames.meta.version);
    root.dataset.zoom = String(frames.meta.zoom);
    root.dataset.shown = String(frames.meta.shown);
    root.dataset.search = v.search.pattern;
  }
  function stamp(key, action, t) {
    root.dataset[`${key}Action`] = action;
    root.dataset[`${key}Ms`] = (performance.now() - t).toFixed(1);
  }
  async function refine(set) {
    const width = canvasWidth(v);
    const i = set.root < 0 ? -1 : indexOf(set, set.root);
    const span = i < 0 ? 1 : set.cols.x1[i] - set.cols.x0[i];
    if (offline || !(span > 0) || set.tau <= span / (width * DETAIL) * (1 + 1e-9)) return;
    let reply;
    try {
      reply = await channel.request("frames", { node: set.root, width, detail: DETAIL, below: set.tau }, { columns: ACTIONS.frames.key });
    } catch {
      return;
    }
    if (reply.offline) {
      offline = true;
      if (typeof reply.claim === "function") reply.claim();
      return;
    }
    if (reply.ok && reply.columns) store.accept(reply.meta, reply.columns, set);
    root.dataset.refined = String(Number(root.dataset.refined || 0) + 1);
    root.dataset.refinedMs = (performance.now() - t0).toFixed(1);
  }
  let wanted = -1;
  async function act(action, args = {}) {
    const t = performance.now();
    const width = canvasWidth(v);
    const before = { frames: v.frames, search: v.search };
    let base = null;
    let done = false;
    let sendArgs = args;
    if (action === "zoom") {
      wanted = args.node === null || args.node === void 0 ? -1 : Number(args.node);
      const found2 = told ? store.best(wanted) : null;
      if (found2) {
        base = found2.set;
        done = complete(found2.set, found2.i, width);
      }
      sendArgs = { node: wanted < 0 ? null : wanted, width, detail: done ? DETAIL : 1, below: base ? base.tau : null };
    } else if (action === "search") {
      sendArgs = { pattern: String(args.pattern || "") };
    } else if (ACTIONS[action].key) {
      sendArgs = { ...args, width };
      if (args.below !== void 0) {
        const found2 = store.best(Number(args.node));
        base = found2 ? found2.set : null;
      }
    }
    busy++;
    const sent = channel.request(action, sendArgs, { columns: ACTIONS[action].key });
    if (action === "zoom" && base) {
      showZoom(wanted);
      stamp("preview", action, t);
      if (done) stamp("complete", action, t);
      root.dataset.completeLocal = done ? "1" : "0";
    } else if (action === "search") {
      const pattern = sendArgs.pattern;
      const found2 = matchedNames(store.names, pattern);
      if (!("error" in found2) && v.frames) {
        v.search = { pattern, matched: pattern ? found2.matched : null };
        show({ ...v.frames, meta: { ...v.frames.meta, search: searchMeta() } });
        stamp("preview", action, t);
      }
    }
    let reply;
    try {
      reply = await sent;
    } catch (err) {
      restore(before);
      return { ok: false, error: String(err) };
    } finally {
      busy--;
    }
    if (reply.offline) {
      offline = true;
      const answered = local(action, args, before, base);
      if (answered) {
        if (typeof reply.claim === "function") reply.claim();
        return answered;
      }
    }
    if (reply.meta) told = reply.meta;
    if (!reply.ok) {
      restore(before);
    } else if (action === "search") {
      found(reply.meta, reply.columns ? reply.columns.code : new Int32Array(0));
      if (v.frames) show({ ...v.frames, meta: { ...v.frames.meta, search: searchMeta() } });
    } else if (reply.columns) {
      const set = store.accept(reply.meta, reply.columns, base);
      if (reply.columns.found) found(reply.meta, reply.columns.found);
      const zoom = Number(reply.meta.zoom);
      if (action !== "zoom") wanted = zoom;
      if (zoom === wanted && !(action === "zoom" && done)) {
        showZoom(zoom);
        if (action === "zoom") stamp("complete", action, t);
      } else if (v.frames) {
        show({ ...v.frames, meta: { ...v.frames.meta, version: reply.meta.version, search: searchMeta() } });
      }
      if (!(action === "zoom" && done)) refine(set);
    } else {
      ui.sync(v.frames);
    }
    stamp("last", action, t);
    if (!busy && stale()) fetchFrames();
    return reply;
  }
  function found(meta, codes) {
    let size = store.names.length;
    for (let k = 0; k < codes.length; k++) if (codes[k] >= size) size = codes[k] + 1;
    const matched = new Uint8Array(size);
    for (let k = 0; k < codes.length; k++) matched[codes[k]] = 1;
    const pattern = meta.search.pattern;
    v.search = { pattern, matched: pattern ? matched : null };
  }
  function restore(before) {
    v.search = before.search;
    if (before.frames) wanted = before.frames.meta.zoom;
    if (before.frames) show(before.frames);
    else ui.sync(v.frames);
  }
  function local(action, args, before, base) {
    if (action === "select") {
      model.set("error", "");
      model.set("selected_node", args.node === null ? -1 : Number(args.node));
      draw(v);
      return { ok: true };
    }
    if (action === "zoom") {
      if (base) {
        model.set("error", "");
        return { ok: true };
      }
      model.set("error", "that frame is not in this saved page");
      restore(before);
      return { ok: false };
    }
    if (action !== "search") return null;
    const pattern = String(args.pattern || "");
    const found2 = matchedNames(store.names, pattern);
    const whole = store.best(-1);
    if ("error" in found2 || !whole || !told) {
      model.set("error", "error" in found2 ? found2.error : "this saved page holds no frames");
      restore(before);
      return { ok: false };
    }
    const text = pattern ? searchText(whole.set, found2.matched, told.format) : "";
    told = { ...told, search: { pattern, count: 0, text } };
    v.search = { pattern, matched: pattern ? found2.matched : null };
    model.set("error", "");
    if (v.frames) show({ ...v.frames, meta: { ...v.frames.meta, search: searchMeta() } });
    return { ok: true };
  }
  function drawFirst(reply) {
    told = reply.meta;
    const set = store.accept(reply.meta, reply.columns, null);
    if (reply.columns.found) found(reply.meta, reply.columns.found);
    wanted = Number(reply.meta.zoom);
    lastWidth = canvasWidth(v);
    showZoom(wanted);
    root.dataset.firstDrawMs = (performance.now() - t0).toFixed(1);
    root.dataset.firstFromState = "1";
    root.dataset.ready = "1";
    refine(set);
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
    if (!v.frames) return;
    const drawn = showZoom(v.frames.meta.zoom);
    if (drawn && !drawn.complete && !offline) {
      act("frames", { node: v.frames.meta.zoom, detail: 1, below: drawn.set.tau });
    }
  });
  resize.observe(v.plot);
  let scrolled = 0;
  const onScroll = () => {
    v.scrollTop = v.plot.scrollTop;
    if (!scrolled) scrolled = requestAnimationFrame(() => {
      scrolled = 0;
      if (v.frames) draw(v);
    });
  };
  v.plot.addEventListener("scroll", onScroll, { passive: true });
  for (const k of Object.keys(TRAITS)) model.on(`change:${k}`, onChange);
  model.on("change:height", setHeight);
  model.on("change:view_version", onVersion);
  ui.sync(null);
  requestAnimationFrame(() => {
    const first = firstFrames(model);
    if (first) drawFirst(first);
    else fetchFrames();
  });
  return () => {
    channel.close();
    resize.disconnect();
    unlisten();
    v.plot.removeEventListener("scroll", onScroll);
    if (scrolled) cancelAnimationFrame(scrolled);
    for (const k of Object.keys(TRAITS)) model.off(`change:${k}`, onChange);
    model.off("change:height", setHeight);
    model.off("change:view_version", onVersion);
  };
}
var index_default = { render };
export {
  DETAIL,
  index_default as default
};
