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

// src/picker.js
var ROW_H = 22;
var FETCH_BEFORE = 60;
var FETCH_COUNT = 200;
var SAMPLES_W = 76;
var PCT_W = 58;
function keysWidth(nk) {
  return 160 + 110 * Math.max(0, nk - 1);
}
function pct(v) {
  if (!Number.isFinite(v)) return "";
  return v.toFixed(2);
}
function render({ model, el }) {
  const channel = new Channel(model);
  const kind = model.get("kind") === "inverted" ? "pw-picker-invlist" : "pw-picker-reportlist";
  const root = h("div", { cls: `pw-picker-table ${kind}` });
  el.append(root);
  const pageLabel = h("span", { cls: "pw-pt-page" });
  const prev = button("\u25C0", () => turn(-1), { cls: "pw-pt-prev", title: "previous classes" });
  const next = button("\u25B6", () => turn(1), { cls: "pw-pt-next", title: "next classes" });
  const note = h("span", { cls: "pw-pt-note" });
  const bar = h("div", { cls: "pw-pt-bar" }, [prev, pageLabel, next, note]);
  const head = h("div", { cls: "pw-pt-head", attrs: { role: "row" } });
  const body = h("div", { cls: "pw-pt-body", attrs: { role: "grid", tabindex: "0" } });
  root.append(errorBanner(model), bar, head, body);
  let win = null;
  let fetching = false;
  let again = false;
  const rows = new VirtualRows(body, {
    rowHeight: ROW_H,
    make: () => h("div", { cls: "pw-pt-row", attrs: { role: "row" } }),
    fill: fillRow
  });
  function ncells() {
    return (model.get("key_labels") || []).length + 2 * (win ? win.classes.length : 0);
  }
  function fillRow(el2, row) {
    const need = ncells();
    while (el2.childElementCount < need) el2.append(h("div", { cls: "pw-pt-cell" }));
    while (el2.childElementCount > need) el2.lastChild.remove();
    const k = win ? row - win.start : -1;
    const have = win && k >= 0 && k < win.n;
    const cells = el2.children;
    const nk = win ? win.keys.length : 0;
    for (let i = 0; i < nk; i++) {
      cells[i].textContent = have ? win.keys[i][k] : "";
      cells[i].title = have ? win.keys[i][k] : "";
      cells[i].className = "pw-pt-cell pw-pt-key";
    }
    const nc = win ? win.classes.length : 0;
    for (let j = 0; j < nc; j++) {
      const s = cells[nk + 2 * j], p = cells[nk + 2 * j + 1];
      s.className = "pw-pt-cell pw-pt-num";
      p.className = "pw-pt-cell pw-pt-num pw-pt-pct";
      s.textContent = have ? String(win.samples[k * nc + j]) : "";
      p.textContent = have ? pct(win.pct[k * nc + j]) : "";
    }
    el2.classList.toggle("pw-pt-odd", row % 2 === 1);
    el2.dataset.row = String(row);
    if (!have) want();
  }
  function layout() {
    const nk = (model.get("key_labels") || []).length;
    const nc = win ? win.classes.length : 0;
    const tpl = [];
    const chars = model.get("key_chars") || [];
    for (let i = 0; i < nk; i++) {
      const fr = Math.min(60, Math.max(8, chars[i] || 0));
      tpl.push(`minmax(${i === nk - 1 ? 160 : 110}px, ${fr}fr)`);
    }
    for (let j = 0; j < nc; j++) {
      const fr = Math.min(30, Math.max(6, win.classes[j].length - 8));
      tpl.push(`minmax(${SAMPLES_W}px, ${fr}fr)`, `${PCT_W}px`);
    }
    root.style.setProperty("--pw-pt-cols", tpl.join(" "));
    const min = `${keysWidth(nk) + (SAMPLES_W + PCT_W) * nc}px`;
    head.style.minWidth = min;
    body.style.minWidth = min;
    const total = model.get("row_count");
    body.style.height = `${Math.min(model.get("height"), Math.max(2, total) * ROW_H + 2)}px`;
  }
  function drawHead() {
    const keys = model.get("key_labels") || [];
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
      cell.addEventListener("click", () => sortBy(column));
      return cell;
    };
    const top = keys.map((k) => sortable(h("div", { cls: "pw-pt-hcell pw-pt-hkey", text: k, title: k }), k));
    const classes = win ? win.classes : [];
    for (const c of classes) {
      top.push(h("div", { cls: "pw-pt-hcell pw-pt-hclass", text: c, title: c }));
    }
    const sub = keys.map(() => h("div", { cls: "pw-pt-hcell pw-pt-hsub" }));
    const [va, vb] = model.get("value_labels") || ["samples", "%"];
    for (let j = 0; j < classes.length; j++) {
      const c = classes[j];
      sub.push(sortable(h("div", { cls: "pw-pt-hcell pw-pt-hsub pw-pt-num", text: va, title: `sort by ${c} ${va}` }), `${c} ${va}`));
      sub.push(sortable(h("div", { cls: "pw-pt-hcell pw-pt-hsub pw-pt-num", text: vb, title: `sort by ${c} ${vb}` }), `${c} ${vb}`));
    }
    head.replaceChildren(
      h("div", { cls: "pw-pt-hrow" }, top),
      h("div", { cls: "pw-pt-hrow" }, sub)
    );
    const n = model.get("class_count");
    const c0 = win ? win.col_start : 0;
    pageLabel.textContent = n ? `classes ${c0 + 1}\u2013${c0 + classes.length} of ${n}` : "no classes";
    prev.disabled = c0 <= 0;
    next.disabled = c0 + classes.length >= n;
    bar.classList.toggle("pw-pt-onepage", n <= model.get("page"));
    note.textContent = model.get("note") || "";
  }
  function accept(msg, columns) {
    if (!msg || !msg.ok || !msg.rows || msg.version !== model.get("version")) return false;
    const nk = (model.get("key_labels") || []).length;
    const keys = [];
    for (let i = 0; i < nk; i++) keys.push(columns[`k${i}`] || []);
    win = {
      version: msg.version,
      start: msg.rows.start,
      n: msg.rows.columns.length ? msg.rows.columns.find((c) => c.key === "samples").shape[0] : 0,
      keys,
      samples: columns.samples,
      pct: columns.pct,
      classes: msg.classes,
      col_start: msg.col_start
    };
    root.dataset.version = String(msg.version);
    root.dataset.classes = String(msg.class_count);
    root.dataset.rows = String(msg.rows.total);
    layout();
    drawHead();
    rows.setTotal(msg.rows.total);
    rows.draw();
    const v = msg.version;
    setTimeout(fitPage, 0);
    requestAnimationFrame(() => {
      root.dataset.drawnAt = String(performance.now());
      root.dataset.drawn = String(v);
    });
    return true;
  }
  async function fetchRows(action, extra = {}) {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      const [first] = rows.range();
      const start = Math.max(0, first - FETCH_BEFORE);
      const resp = await channel.request(action, { start, count: FETCH_COUNT, ...extra });
      accept(resp, resp.columns || {});
    } finally {
      fetching = false;
    }
    if (again) {
      again = false;
      want();
    }
  }
  function want() {
    const [first, last] = rows.range();
    if (win && win.version === model.get("version") && first >= win.start && last <= win.start + win.n) return;
    if (!fetching) queueMicrotask(() => fetchRows("rows"));
    else again = true;
  }
  function fitPage() {
    const width = root.clientWidth;
    if (!width || !win) return;
    const nk = (model.get("key_labels") || []).length;
    const fit = Math.max(1, Math.floor((width - keysWidth(nk) - 4) / (SAMPLES_W + PCT_W)));
    if (fit !== model.get("page")) {
      fetchRows("cols", { col_start: win.col_start, page: fit });
    }
  }
  const resize = new ResizeObserver(() => fitPage());
  resize.observe(root);
  function sortBy(column) {
    body.scrollTop = 0;
    channel.request("sort", { column, start: 0, count: FETCH_COUNT }).then((resp) => accept(resp, resp.columns || {}));
  }
  function turn(step) {
    const c0 = win ? win.col_start : 0;
    fetchRows("cols", { col_start: c0 + step * model.get("page") });
  }
  const onPush = (msg, buffers) => {
    if (!msg || msg.type !== "push") return;
    root.dataset.receivedAt = String(performance.now());
    accept(msg, unpack(msg.rows.columns, buffers || []));
  };
  model.on("msg:custom", onPush);
  const onNote = () => drawHead();
  model.on("change:note", onNote);
  fetchRows("rows");
  return () => {
    model.off("msg:custom", onPush);
    resize.disconnect();
    model.off("change:note", onNote);
    channel.close();
  };
}
var picker_default = { render };
export {
  picker_default as default
};
