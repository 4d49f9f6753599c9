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

// src/picker/controls.js
function pageBar(turn) {
  const label = h("span", { cls: "pw-pt-page" });
  const prev = button("\u25C0", () => turn(-1), { cls: "pw-pt-prev", title: "previous classes" });
  const next = button("\u25B6", () => turn(1), { cls: "pw-pt-next", title: "next classes" });
  const note = h("span", { cls: "pw-pt-note" });
  const el = h("div", { cls: "pw-pt-bar" }, [prev, label, next, note]);
  return {
    el,
    update(model, win) {
      const n = Number(model.get("class_count"));
      const c0 = win ? win.col_start : 0;
      const shown = win ? win.classes.length : 0;
      label.textContent = n ? `classes ${c0 + 1}\u2013${c0 + shown} of ${n}` : "no classes";
      prev.disabled = c0 <= 0;
      next.disabled = c0 + shown >= n;
      el.classList.toggle("pw-pt-onepage", n <= Number(model.get("page")));
      note.textContent = model.get("note") || "";
    }
  };
}

// src/lib/format.js
function exact(v) {
  if (typeof v === "bigint") return v.toString();
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v);
}
function grouped(v) {
  const text = typeof v === "string" ? v : exact(v);
  return /^-?\d{4,}$/.test(text) ? text.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : text;
}

// src/picker/state.js
function keyLabels(model) {
  return model.get("key_labels") || [];
}
function windowOf(model, reply, columns) {
  if (!reply || !reply.ok || !reply.rows || reply.version !== model.get("version")) return null;
  const nk = keyLabels(model).length;
  const keys = [];
  for (let i = 0; i < nk; i++) keys.push(columns[`k${i}`] || []);
  const header = reply.rows.columns.find((c) => c.key === "samples");
  return {
    version: reply.version,
    start: reply.rows.start,
    n: header ? header.shape[0] : 0,
    keys,
    samples: columns.samples,
    pct: columns.pct,
    classes: reply.classes,
    col_start: reply.col_start
  };
}
function holds(model, win, first, last) {
  return Boolean(win && win.version === model.get("version") && first >= win.start && last <= win.start + win.n);
}

// src/picker/draw.js
var ROW_H = 22;
var SAMPLES_W = 76;
var PCT_W = 58;
function keysWidth(nk) {
  return 160 + 110 * Math.max(0, nk - 1);
}
function pct(v) {
  return Number.isFinite(v) ? v.toFixed(2) : "";
}
function breakable(name) {
  const out = [];
  name.split(":").forEach((part, k, all) => {
    out.push(document.createTextNode(k < all.length - 1 ? `${part}:` : part));
    if (k < all.length - 1) out.push(document.createElement("wbr"));
  });
  return out;
}
function fillRow(el, row, model, win) {
  const nk = win ? win.keys.length : keyLabels(model).length;
  const nc = win ? win.classes.length : 0;
  const need = nk + 2 * nc;
  while (el.childElementCount < need) el.append(h("div", { cls: "pw-pt-cell" }));
  while (el.childElementCount > need && el.lastChild) el.lastChild.remove();
  const k = win ? row - win.start : -1;
  const have = Boolean(win && k >= 0 && k < win.n);
  const cells = (
    /** @type {HTMLCollectionOf<HTMLElement>} */
    el.children
  );
  for (let i = 0; i < nk; i++) {
    const name = have && win ? win.keys[i][k] : "";
    cells[i].textContent = name;
    cells[i].title = name;
    cells[i].className = "pw-pt-cell pw-pt-key";
  }
  for (let j = 0; j < nc; j++) {
    const s = cells[nk + 2 * j], p = cells[nk + 2 * j + 1];
    s.className = "pw-pt-cell pw-pt-num";
    p.className = "pw-pt-cell pw-pt-num pw-pt-pct";
    s.textContent = have && win ? grouped(win.samples[k * nc + j]) : "";
    p.textContent = have && win ? pct(Number(win.pct[k * nc + j])) : "";
  }
  el.classList.toggle("pw-pt-odd", row % 2 === 1);
  el.dataset.row = String(row);
  return have;
}
function layout({ root, head, body }, model, win) {
  const nk = keyLabels(model).length;
  const classes = win ? win.classes : [];
  const tpl = [];
  const chars = model.get("key_chars") || [];
  for (let i = 0; i < nk; i++) {
    const fr = Math.min(60, Math.max(8, chars[i] || 0));
    tpl.push(`minmax(${i === nk - 1 ? 160 : 110}px, ${fr}fr)`);
  }
  for (const c of classes) {
    const fr = Math.min(30, Math.max(6, c.length - 8));
    tpl.push(`minmax(${SAMPLES_W}px, ${fr}fr)`, `${PCT_W}px`);
  }
  root.style.setProperty("--pw-pt-cols", tpl.join(" "));
  const min = `${keysWidth(nk) + (SAMPLES_W + PCT_W) * classes.length}px`;
  head.style.minWidth = min;
  body.style.minWidth = min;
  const total = Number(model.get("row_count"));
  body.style.height = `${Math.min(Number(model.get("height")), Math.max(2, total) * ROW_H + 2)}px`;
}
function drawHead(head, model, win, onSort) {
  const keys = keyLabels(model);
  const sortKey = model.get("sort_column");
  const arrow = model.get("sort_descending") ? " \u25BC" : " \u25B2";
  const sortable = (cell, column) => {
    cell.classList.add("pw-pt-sortable");
    cell.dataset.column = column;
    cell.setAttribute("role", "columnheader");
    if (column === sortKey) {
      cell.textContent += arrow;
      cell.classList.add("pw-pt-sorted");
    }
    cell.addEventListener("click", () => onSort(column));
    return cell;
  };
  const top = keys.map((k) => sortable(h("div", { cls: "pw-pt-hcell pw-pt-hkey", text: k, title: k }), k));
  const classes = win ? win.classes : [];
  for (const c of classes) {
    top.push(h("div", { cls: "pw-pt-hcell pw-pt-hclass", title: c }, breakable(c)));
  }
  const sub = keys.map(() => h("div", { cls: "pw-pt-hcell pw-pt-hsub" }));
  const [va, vb] = model.get("value_labels") || ["samples", "%"];
  for (const c of classes) {
    for (const v of [va, vb]) {
      const cell = h("div", { cls: "pw-pt-hcell pw-pt-hsub pw-pt-num", text: v, title: `sort by ${c} ${v}` });
      sub.push(sortable(cell, `${c} ${v}`));
    }
  }
  head.replaceChildren(h("div", { cls: "pw-pt-hrow" }, top), h("div", { cls: "pw-pt-hrow" }, sub));
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

// src/picker/protocol.js
var TRAITS = {
  "note": "string"
};
var ACTIONS = {
  "rows": {
    "args": [
      "start",
      "count",
      "version"
    ],
    "key": "rows",
    "columns": [
      "k0",
      "k1",
      "k2",
      "samples",
      "pct"
    ]
  },
  "cols": {
    "args": [
      "start",
      "count",
      "col_start",
      "page"
    ],
    "key": "rows",
    "columns": [
      "k0",
      "k1",
      "k2",
      "samples",
      "pct"
    ]
  },
  "sort": {
    "args": [
      "column",
      "start",
      "count"
    ],
    "key": "rows",
    "columns": [
      "k0",
      "k1",
      "k2",
      "samples",
      "pct"
    ]
  }
};

// src/picker/events.js
var FETCH_BEFORE = 60;
var FETCH_COUNT = 200;
var TableRequests = class {
  /**
   * @param {Model} model
   * @param {() => [number, number]} range the rows in view
   * @param {(reply: WindowReply, columns: Record<string, any>) => void} accept
   */
  constructor(model, range, accept) {
    this.channel = new Channel(model);
    this.range = range;
    this.accept = accept;
    this.fetching = false;
    this.again = false;
  }
  /**
   * Ask for the window around the rows in view (`action`: "rows" or "cols").
   * @param {"rows" | "cols"} action @param {Record<string, any>} [extra]
   */
  async fetch(action, extra = {}) {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = true;
    try {
      const [first] = this.range();
      const start = Math.max(0, first - FETCH_BEFORE);
      const reply = await this.channel.request(action, { start, count: FETCH_COUNT, ...extra }, { columns: ACTIONS[action].key });
      this.accept(
        /** @type {any} */
        reply,
        reply.columns || {}
      );
    } finally {
      this.fetching = false;
    }
    if (this.again) {
      this.again = false;
      this.want();
    }
  }
  /** Rows are missing from the window: fetch them (once the request in flight returns). */
  want() {
    if (!this.fetching) queueMicrotask(() => this.fetch("rows"));
    else this.again = true;
  }
  /** A header click: sort by `column` in Python, from the top. @param {string} column */
  sort(column) {
    return this.channel.request("sort", { column, start: 0, count: FETCH_COUNT }, { columns: ACTIONS.sort.key }).then((reply) => this.accept(
      /** @type {any} */
      reply,
      reply.columns || {}
    ));
  }
  close() {
    this.channel.close();
  }
};

// src/picker/index.js
function render({ model, el }) {
  const kind = model.get("kind") === "inverted" ? "pw-picker-invlist" : "pw-picker-reportlist";
  const root = h("div", { cls: `pw-picker-table ${kind}` });
  el.append(root);
  const head = h("div", { cls: "pw-pt-head", attrs: { role: "row" } });
  const body = h("div", { cls: "pw-pt-body", attrs: { role: "grid", tabindex: "0" } });
  let win = null;
  const rows = new VirtualRows(body, {
    rowHeight: ROW_H,
    make: () => h("div", { cls: "pw-pt-row", attrs: { role: "row" } }),
    fill: (rowEl, row) => {
      if (!fillRow(rowEl, row, model, win)) want();
    }
  });
  const accept = (reply, columns) => {
    const got = windowOf(model, reply, columns);
    if (!got) return;
    win = got;
    root.dataset.version = String(reply.version);
    root.dataset.classes = String(reply.class_count);
    root.dataset.rows = String(reply.rows.total);
    layout({ root, head, body }, model, win);
    redrawHead();
    rows.setTotal(reply.rows.total);
    rows.draw();
    const v = reply.version;
    setTimeout(fitPage, 0);
    requestAnimationFrame(() => {
      root.dataset.drawnAt = String(performance.now());
      root.dataset.drawn = String(v);
    });
  };
  const requests = new TableRequests(model, () => rows.range(), accept);
  const bar = pageBar((step) => {
    const c0 = win ? win.col_start : 0;
    requests.fetch("cols", { col_start: c0 + step * Number(model.get("page")) });
  });
  root.append(errorBanner(model), bar.el, head, body);
  function want() {
    const [first, last] = rows.range();
    if (!holds(model, win, first, last)) requests.want();
  }
  function redrawHead() {
    drawHead(head, model, win, (column) => {
      body.scrollTop = 0;
      requests.sort(column);
    });
    bar.update(model, win);
  }
  function fitPage() {
    const width = root.clientWidth;
    if (!width || !win) return;
    const nk = keyLabels(model).length;
    const fit = Math.max(1, Math.floor((width - keysWidth(nk) - 4) / (SAMPLES_W + PCT_W)));
    if (fit !== model.get("page")) requests.fetch("cols", { col_start: win.col_start, page: fit });
  }
  const resize = new ResizeObserver(() => fitPage());
  resize.observe(root);
  requests.channel.onPush((pushed) => {
    root.dataset.receivedAt = String(performance.now());
    accept(
      /** @type {any} */
      pushed,
      pushed.columns || {}
    );
  });
  for (const k of Object.keys(TRAITS)) model.on(`change:${k}`, redrawHead);
  requests.fetch("rows");
  return () => {
    resize.disconnect();
    for (const k of Object.keys(TRAITS)) model.off(`change:${k}`, redrawHead);
    requests.close();
  };
}
var index_default = { render };
export {
  index_default as default
};
