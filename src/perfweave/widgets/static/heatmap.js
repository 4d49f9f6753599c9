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

// src/lib/colormap.js
var STOPS = [
  [68, 1, 84],
  [72, 40, 120],
  [62, 74, 137],
  [49, 104, 142],
  [38, 130, 142],
  [31, 158, 137],
  [53, 183, 121],
  [109, 205, 89],
  [180, 222, 44],
  [253, 231, 37]
];
var ZERO_RGB = [236, 236, 236];
function lut() {
  const out = new Uint8ClampedArray(256 * 4);
  out.set([...ZERO_RGB, 255], 0);
  for (let i = 1; i < 256; i++) {
    const t = (i - 1) / 254 * (STOPS.length - 1);
    const k = Math.min(STOPS.length - 2, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) out[i * 4 + c] = STOPS[k][c] + (STOPS[k + 1][c] - STOPS[k][c]) * f;
    out[i * 4 + 3] = 255;
  }
  return out;
}
function rgb(table2, i) {
  return `rgb(${table2[i * 4]},${table2[i * 4 + 1]},${table2[i * 4 + 2]})`;
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
  let tier = Math.min(SUFFIX.length - 1, Math.floor(Math.log10(a) / 3));
  let y = v / 10 ** (3 * tier);
  if (Math.abs(Number(y.toPrecision(3))) >= 1e3 && tier < SUFFIX.length - 1) {
    tier += 1;
    y = v / 10 ** (3 * tier);
  }
  const ay = Math.abs(y);
  return y.toFixed(ay >= 100 ? 0 : ay >= 10 ? 1 : 2) + SUFFIX[tier];
}
function tickText(v) {
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e3) return String(Number(v.toPrecision(3)));
  return compact(v).replace(/\.(\d*?)0+(?=[kMGT]?$)/, (_, kept) => kept ? `.${kept}` : "");
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
function seconds(v) {
  const x = Number(v);
  if (!Number.isFinite(x)) return "\u2013";
  if (x === 0) return "0 s";
  const [y, unit] = secondsIn(x);
  const digits = Math.abs(y) >= 100 ? 0 : Math.abs(y) >= 10 ? 1 : 2;
  return `${y >= 1e3 ? grouped(Math.round(y)) : y.toFixed(digits)} ${unit}`;
}
function plural(n, word, many = `${word}s`) {
  return `${grouped(n)} ${Number(n) === 1 ? word : many}`;
}

// src/heatmap/state.js
function newView(model, root) {
  const v = {
    model,
    root,
    canvas: (
      /** @type {HTMLCanvasElement} */
      h("canvas", { cls: "pw-hm-canvas" })
    ),
    rect: h("div", { cls: "pw-hm-rect" }),
    tooltip: h("div", { cls: "pw-hm-tooltip", attrs: { role: "tooltip" } }),
    side: h("div", { cls: "pw-hm-side" }),
    matrix: null,
    geom: null,
    act: async () => ({ ok: false, error: "not connected" })
  };
  v.rect.hidden = true;
  v.tooltip.hidden = true;
  return v;
}
function words(model) {
  const senders = model.get("direction") === "send";
  const who = senders ? "senders" : "receivers";
  const by = model.get("group_by");
  const rows = { rank: who, rows: `rank groups of ${who}`, host: `hosts of ${who}` };
  const axis = {
    rank: `${who} (rank ranges)`,
    rows: `rank groups of ${who} (group numbers)`,
    host: `${who} by host (host: ranks)`
  };
  return {
    who,
    cols: senders ? "receivers" : "senders",
    rows: rows[by] || who,
    axis: axis[by] || who
  };
}
function rangeText(r) {
  return r[1] - r[0] === 1 ? `${r[0]}` : `${r[0]}-${r[1] - 1}`;
}
function rowRange(matrix, i) {
  const e = matrix.cols.row_edges;
  return rangeText([Number(e[i]), Number(e[i + 1])]);
}
function colRange(matrix, j) {
  const e = matrix.cols.col_edges;
  return rangeText([Number(e[j]), Number(e[j + 1])]);
}

// src/heatmap/draw.js
var LEFT = 150;
var TOP = 50;
var MARG = 64;
var AXIS = 34;
var BAR_W = 14;
var BAR_LABELS = 78;
var TABLE = lut();
var DARK_ZERO = [58, 58, 58];
var LIGHT_ZERO = [TABLE[0], TABLE[1], TABLE[2]];
function theme(el) {
  const cs = getComputedStyle(el);
  const get = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  const m = (cs.color || "").match(/\d+(\.\d+)?/g);
  const dark = m ? 0.299 * Number(m[0]) + 0.587 * Number(m[1]) + 0.114 * Number(m[2]) > 140 : false;
  return {
    dark,
    fg: get("--pw-fg", "#222"),
    muted: get("--pw-muted", "#555"),
    frame: dark ? "#9a9a9a" : "#888",
    bar: dark ? "#7fa7d6" : "#4e79a7"
  };
}
function layout(v) {
  const avail = v.root.clientWidth || 800;
  const width = Math.max(420, avail >= 1160 ? Math.min(900, avail - 370) : Math.min(900, avail - 4));
  const height = v.model.get("height") || 520;
  const s = Math.max(120, Math.min(width - LEFT - MARG - BAR_W - BAR_LABELS - 16, height - TOP - AXIS - MARG - 8));
  return { width: Math.min(width, LEFT + s + MARG + BAR_W + BAR_LABELS + 16), height, x: LEFT, y: TOP, s };
}
function cellsWanted(v) {
  const g = layout(v);
  return Math.max(1, Math.min(900, Math.floor(g.s * (window.devicePixelRatio || 1))));
}
function draw(v) {
  if (!v.matrix) return;
  const t = performance.now();
  const { canvas, model, root } = v;
  const g = layout(v);
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(g.width * dpr);
  canvas.height = Math.round(g.height * dpr);
  canvas.style.width = `${g.width}px`;
  canvas.style.height = `${g.height}px`;
  const ctx = (
    /** @type {CanvasRenderingContext2D} */
    canvas.getContext("2d")
  );
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, g.width, g.height);
  const { cols, meta, nr, nc } = v.matrix;
  const th = theme(root);
  g.theme = th;
  TABLE.set(th.dark ? DARK_ZERO : LIGHT_ZERO, 0);
  root.dataset.theme = th.dark ? "dark" : "light";
  const img = new ImageData(nc, nr);
  const px = new Uint32Array(img.data.buffer);
  const lut32 = new Uint32Array(TABLE.buffer);
  const color = cols.color;
  for (let i = 0; i < color.length; i++) px[i] = lut32[color[i]];
  const off = document.createElement("canvas");
  off.width = nc;
  off.height = nr;
  off.getContext("2d").putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(off, g.x, g.y, g.s, g.s);
  ctx.strokeStyle = th.frame;
  ctx.lineWidth = 1;
  ctx.strokeRect(g.x - 0.5, g.y - 0.5, g.s + 1, g.s + 1);
  v.geom = { ...g, cw: g.s / nc, ch: g.s / nr };
  drawAxes(ctx, v);
  drawMarginals(ctx, v);
  if (meta.hi > 0) {
    drawColorBar(ctx, v);
  } else {
    ctx.fillStyle = th.muted;
    ctx.font = "12px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(`no messages in this view: every ${model.get("unit") === "bytes" ? "byte count" : "count"} is 0`, g.x + g.s / 2, g.y + g.s / 2);
  }
  const w = words(model);
  ctx.fillStyle = th.fg;
  ctx.font = "bold 12px sans-serif";
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  const view = meta.view;
  const by = model.get("group_by");
  const rows = by === "rank" ? `${w.who} ${rangeText(view.rows)}` : `${w.who} by ${by === "host" ? "host" : "rank group"}: ${by === "host" ? "hosts" : "groups"} ${rangeText(view.rows)} of ${grouped(meta.n_rows)}`;
  ctx.fillText(`${model.get("direction")} ${model.get("unit")}: ${rows} \xD7 ${w.cols} ${rangeText(view.cols)}  (${nr}\xD7${nc} blocks, ${model.get("reduce")} per block)`, 4, 12);
  root.dataset.drawMs = (performance.now() - t).toFixed(1);
  root.dataset.blocks = `${nr}x${nc}`;
}
function drawAxes(ctx, v) {
  const g = (
    /** @type {Required<Geometry>} */
    v.geom
  );
  const m = (
    /** @type {import("./state.js").Matrix} */
    v.matrix
  );
  const { cols, nr, nc } = m;
  ctx.font = "11px sans-serif";
  ctx.fillStyle = g.theme.fg;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  const byGroup = v.model.get("group_by") === "rows";
  const rstep = Math.max(1, Math.ceil(13 / g.ch));
  for (let i = 0; i < nr; i += rstep) {
    let label = byGroup ? rowRange(m, i) : cols.row_labels[i];
    const colon = label.indexOf(": ");
    if (colon > 0 && label.length > 24) {
      label = label.slice(0, colon).split(".")[0] + label.slice(colon);
    }
    if (label.length > 24) label = label.slice(0, 23) + "\u2026";
    ctx.fillText(label, g.x - 4, g.y + (i + 0.5) * g.ch);
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const cstep = Math.max(1, Math.ceil(60 / g.cw));
  for (let j = 0; j < nc; j += cstep) {
    const text = colRange(m, j), cx = g.x + (j + 0.5) * g.cw;
    if (cx + ctx.measureText(text).width / 2 > g.x + g.s + 4) continue;
    ctx.fillText(text, cx, g.y + g.s + 3);
  }
  const w = words(v.model);
  ctx.fillStyle = g.theme.muted;
  ctx.fillText(`${w.cols} (rank ranges)`, g.x + g.s / 2, g.y + g.s + 18);
  ctx.save();
  ctx.translate(10, g.y + g.s / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = "middle";
  ctx.fillText(w.axis, 0, 0);
  ctx.restore();
}
function drawMarginals(ctx, v) {
  const g = (
    /** @type {Required<Geometry>} */
    v.geom
  );
  const { cols, nr, nc } = (
    /** @type {import("./state.js").Matrix} */
    v.matrix
  );
  const rs = Array.from(cols.row_sum, Number), cs = Array.from(cols.col_sum, Number);
  const rmax = Math.max(...rs, 0), cmax = Math.max(...cs, 0);
  ctx.fillStyle = g.theme.bar;
  const x0 = g.x + g.s + 6, y0 = g.y + g.s + AXIS;
  for (let i = 0; i < nr; i++) {
    if (rmax > 0 && rs[i] > 0) ctx.fillRect(x0, g.y + i * g.ch, Math.max(1, (MARG - 10) * rs[i] / rmax), Math.max(1, g.ch - (g.ch > 3 ? 1 : 0)));
  }
  for (let j = 0; j < nc; j++) {
    if (cmax > 0 && cs[j] > 0) {
      const hgt = Math.max(1, (MARG - 14) * cs[j] / cmax);
      ctx.fillRect(g.x + j * g.cw, y0 + (MARG - 14) - hgt, Math.max(1, g.cw - (g.cw > 3 ? 1 : 0)), hgt);
    }
  }
  ctx.fillStyle = g.theme.muted;
  ctx.font = "10px sans-serif";
  ctx.textAlign = "left";
  ctx.textBaseline = "bottom";
  ctx.fillText("row sum", x0, g.y - 2);
  const sums = [`max ${tickText(rmax)}`, `column sum (max ${tickText(cmax)})`];
  v.root.dataset.sums = JSON.stringify(sums);
  ctx.fillText(sums[0], x0, g.y + g.s + 14, MARG - 8);
  ctx.textAlign = "right";
  ctx.textBaseline = "top";
  ctx.fillText(sums[1], g.x - 4, y0 + 4);
}
function linearTicks(hi) {
  const raw = hi / 4;
  const decade = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * decade).find((s) => s >= raw) || raw);
  const out = [];
  for (let k = 1; k * step < 0.94 * hi; k++) out.push(k * step);
  out.push(hi);
  return out;
}
function drawColorBar(ctx, v) {
  const g = (
    /** @type {Required<Geometry>} */
    v.geom
  );
  const { meta } = (
    /** @type {import("./state.js").Matrix} */
    v.matrix
  );
  const x = g.x + g.s + MARG + 4;
  const y = g.y, hh = g.s;
  for (let k = 0; k < hh; k++) {
    const idx = 1 + Math.round(254 * (1 - k / Math.max(1, hh - 1)));
    ctx.fillStyle = rgb(TABLE, idx);
    ctx.fillRect(x, y + k, BAR_W, 1);
  }
  ctx.fillStyle = rgb(TABLE, 0);
  ctx.fillRect(x, y + hh + 6, BAR_W, 10);
  ctx.strokeStyle = g.theme.frame;
  ctx.strokeRect(x - 0.5, y - 0.5, BAR_W + 1, hh + 1);
  ctx.strokeRect(x - 0.5, y + hh + 5.5, BAR_W + 1, 11);
  ctx.fillStyle = g.theme.fg;
  ctx.font = "10px sans-serif";
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  const log = v.model.get("scale") === "log";
  const lo = meta.lo, hi = meta.hi;
  const ticks = [];
  if (hi > 0) {
    if (log && hi > lo) {
      ticks.push([lo, 1]);
      for (let p = Math.ceil(Math.log10(lo)); p <= Math.floor(Math.log10(hi)); p++) {
        const val = 10 ** p;
        const f = (Math.log(val) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
        if (f > 0.06 && f < 0.94) ticks.push([val, 1 - f]);
      }
      ticks.push([hi, 0]);
    } else {
      for (const val of linearTicks(hi)) ticks.push([val, 1 - val / hi]);
    }
  }
  const labels = ticks.map(([val]) => tickText(val));
  ticks.forEach(([, f], k) => {
    ctx.fillRect(x + BAR_W, y + f * hh, 3, 1);
    ctx.fillText(labels[k], x + BAR_W + 5, y + f * hh);
  });
  v.root.dataset.colorTicks = JSON.stringify(labels);
  ctx.fillText("0 (none)", x + BAR_W + 5, y + hh + 11);
  ctx.textBaseline = "bottom";
  ctx.fillText(`${v.model.get("unit")}, ${log ? "log" : "linear"}`, x - 2, y - 19);
  ctx.fillText(`${v.model.get("reduce")} per block`, x - 2, y - 8);
}

// src/heatmap/events.js
function blockAt(v, ev) {
  const g = v.geom;
  if (!g || !v.matrix || g.cw === void 0 || g.ch === void 0) return null;
  const r = v.canvas.getBoundingClientRect();
  const mx = ev.clientX - r.left, my = ev.clientY - r.top;
  const inX = mx >= g.x && mx < g.x + g.s, inY = my >= g.y && my < g.y + g.s;
  const j = Math.floor((mx - g.x) / g.cw), i = Math.floor((my - g.y) / g.ch);
  if (inX && inY) return { area: "cell", i, j, mx, my };
  if (inY && mx < g.x) return { area: "row-label", i, j: -1, mx, my };
  if (inY && mx > g.x + g.s && mx < g.x + g.s + MARG) return { area: "row-marginal", i, j: -1, mx, my };
  if (inX && my > g.y + g.s + AXIS && my < g.y + g.s + AXIS + MARG) return { area: "col-marginal", i: -1, j, mx, my };
  return null;
}
function rowWho(v, i) {
  const matrix = (
    /** @type {import("./state.js").Matrix} */
    v.matrix
  );
  const ranks = matrix.cols.row_labels[i];
  if (v.model.get("group_by") !== "rows") return ranks;
  const groups = rowRange(matrix, i);
  return `${groups.includes("-") ? "groups" : "group"} ${groups}, ranks ${ranks}`;
}
function tooltipLines(v, b) {
  const matrix = (
    /** @type {import("./state.js").Matrix} */
    v.matrix
  );
  const { cols, nc } = matrix;
  const unit = v.model.get("unit");
  const w = words(v.model);
  if (b.area === "cell") {
    const value = cols.values[b.i * nc + b.j];
    const none = Number(value) === 0;
    return {
      value: exact(value),
      lines: [
        `${w.rows}: ${rowWho(v, b.i)}`,
        `${w.cols}: ${colRange(matrix, b.j)}`,
        none ? `no messages (0 ${unit})` : `${v.model.get("reduce")} ${unit}: ${grouped(value)}`
      ]
    };
  }
  if (b.area === "row-label" || b.area === "row-marginal") {
    const n = Number(cols.row_ranks[b.i]);
    return {
      value: exact(cols.row_sum[b.i]),
      lines: [
        `${w.rows}: ${rowWho(v, b.i)} (${plural(n, "rank")})`,
        `sum ${unit}: ${grouped(cols.row_sum[b.i])}`,
        `mean per rank: ${compact(Number(cols.row_sum[b.i]) / n)}`,
        `max per rank: ${grouped(cols.row_max[b.i])}`
      ]
    };
  }
  return {
    value: exact(cols.col_sum[b.j]),
    lines: [
      `${w.cols}: ${colRange(matrix, b.j)}`,
      `sum ${unit}: ${grouped(cols.col_sum[b.j])}`,
      `max per column: ${grouped(cols.col_max[b.j])}`
    ]
  };
}
function showTooltip(v, b) {
  const { value, lines } = tooltipLines(v, b);
  const tip = v.tooltip;
  tip.dataset.value = value;
  tip.replaceChildren(...lines.map((l) => h("div", { text: l })));
  tip.hidden = false;
  tip.style.left = `${Math.min(b.mx + 14, (v.geom && v.geom.width || 600) - 220)}px`;
  tip.style.top = `${b.my + 14}px`;
  v.root.dataset.hoverMs = (performance.now() - (b.t || 0)).toFixed(2);
}
function listen(v) {
  const { canvas, rect, tooltip } = v;
  let drag = null;
  canvas.addEventListener("mousemove", (ev) => {
    const t = performance.now();
    const g = v.geom;
    if (drag && g) {
      const r = canvas.getBoundingClientRect();
      const x = Math.max(g.x, Math.min(ev.clientX - r.left, g.x + g.s));
      const y = Math.max(g.y, Math.min(ev.clientY - r.top, g.y + g.s));
      drag.x1 = x;
      drag.y1 = y;
      Object.assign(rect.style, {
        left: `${Math.min(drag.x0, x)}px`,
        top: `${Math.min(drag.y0, y)}px`,
        width: `${Math.abs(x - drag.x0)}px`,
        height: `${Math.abs(y - drag.y0)}px`
      });
      rect.hidden = Math.abs(x - drag.x0) + Math.abs(y - drag.y0) < 5;
      tooltip.hidden = true;
      return;
    }
    const b = blockAt(v, ev);
    if (!b) {
      tooltip.hidden = true;
      return;
    }
    b.t = t;
    showTooltip(v, b);
  });
  canvas.addEventListener("mouseleave", () => {
    tooltip.hidden = true;
  });
  canvas.addEventListener("mousedown", (ev) => {
    const b = blockAt(v, ev);
    if (!b || b.area !== "cell" || ev.button !== 0) return;
    drag = { x0: b.mx, y0: b.my, x1: b.mx, y1: b.my, b };
    ev.preventDefault();
  });
  const clamp = (k, n) => Math.max(0, Math.min(n - 1, k));
  const onUp = (ev) => {
    if (!drag || !v.matrix || !v.geom) return;
    const d = drag;
    const g = (
      /** @type {Required<import("./state.js").Geometry>} */
      v.geom
    );
    drag = null;
    rect.hidden = true;
    if (Math.abs(d.x1 - d.x0) + Math.abs(d.y1 - d.y0) < 5) {
      if (ev.detail <= 1) v.act("select", { row_block: d.b.i, col_block: d.b.j });
      return;
    }
    const { cols, nr, nc } = v.matrix;
    const i0 = clamp(Math.floor((Math.min(d.y0, d.y1) - g.y) / g.ch), nr);
    const i1 = clamp(Math.floor((Math.max(d.y0, d.y1) - g.y - 1e-3) / g.ch), nr);
    const j0 = clamp(Math.floor((Math.min(d.x0, d.x1) - g.x) / g.cw), nc);
    const j1 = clamp(Math.floor((Math.max(d.x0, d.x1) - g.x - 1e-3) / g.cw), nc);
    v.act("zoom", {
      rows: [Number(cols.row_edges[i0]), Number(cols.row_edges[i1 + 1])],
      cols: [Number(cols.col_edges[j0]), Number(cols.col_edges[j1 + 1])]
    });
  };
  window.addEventListener("mouseup", onUp);
  canvas.addEventListener("dblclick", (ev) => {
    const b = blockAt(v, ev);
    if (b && b.area === "cell") v.act("zoom_out");
  });
  canvas.addEventListener("click", (ev) => {
    const b = blockAt(v, ev);
    if (b && b.area === "row-label") v.act("select", { row_block: b.i });
  });
  return () => window.removeEventListener("mouseup", onUp);
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
    const seconds2 = Number(this.model.get("request_timeout"));
    return seconds2 > 0 ? seconds2 * 1e3 : DEFAULT_TIMEOUT_MS;
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

// src/heatmap/protocol.js
var TRAITS = {
  "direction": "string",
  "group_by": "string",
  "group_index": "number",
  "group_labels": "string[]",
  "hosts_known": "boolean",
  "info": "Record<string, any>",
  "lead_rank": "number",
  "lead_ranks": "number[]",
  "load_errors": "string[]",
  "note": "string",
  "reduce": "string",
  "scale": "string",
  "selection_state": "Record<string, any>",
  "unit": "string"
};
var ACTIONS = {
  "matrix": {
    "args": [
      "max_cells"
    ],
    "key": "matrix",
    "columns": [
      "values",
      "color",
      "row_edges",
      "col_edges",
      "row_sum",
      "row_max",
      "row_ranks",
      "col_sum",
      "col_max",
      "row_labels"
    ]
  },
  "set": {
    "args": [
      "name",
      "value"
    ],
    "key": "matrix",
    "columns": [
      "values",
      "color",
      "row_edges",
      "col_edges",
      "row_sum",
      "row_max",
      "row_ranks",
      "col_sum",
      "col_max",
      "row_labels"
    ]
  },
  "zoom": {
    "args": [
      "rows",
      "cols"
    ],
    "key": "matrix",
    "columns": [
      "values",
      "color",
      "row_edges",
      "col_edges",
      "row_sum",
      "row_max",
      "row_ranks",
      "col_sum",
      "col_max",
      "row_labels"
    ]
  },
  "zoom_out": {
    "args": [],
    "key": "matrix",
    "columns": [
      "values",
      "color",
      "row_edges",
      "col_edges",
      "row_sum",
      "row_max",
      "row_ranks",
      "col_sum",
      "col_max",
      "row_labels"
    ]
  },
  "select": {
    "args": [
      "row_block",
      "col_block"
    ],
    "key": "",
    "columns": []
  }
};
var CONTROLS = {
  "direction": [
    [
      "send",
      "send"
    ],
    [
      "recv",
      "recv"
    ]
  ],
  "unit": [
    [
      "counts",
      "counts"
    ],
    [
      "bytes",
      "bytes"
    ]
  ],
  "scale": [
    [
      "linear",
      "linear"
    ],
    [
      "log",
      "log"
    ]
  ],
  "reduce": [
    [
      "max",
      "max"
    ],
    [
      "sum",
      "sum"
    ]
  ],
  "group_by": [
    [
      "rank",
      "rank"
    ],
    [
      "rows",
      "identical rows"
    ],
    [
      "host",
      "host"
    ]
  ]
};

// src/heatmap/kernel.js
function connect(v, sync, t0) {
  const { model, root } = v;
  const channel = new Channel(model);
  let busy = 0;
  const stale = () => (model.get("view_version") || 0) > (v.matrix ? v.matrix.meta.version : -1);
  function accept(reply) {
    const cols = reply.columns;
    const shape = cols.values.shape;
    v.matrix = { meta: reply.meta, cols, nr: shape[0], nc: shape[1] };
    sync();
    draw(v);
    root.dataset.view = JSON.stringify(reply.meta.view);
    root.dataset.version = String(reply.meta.version);
  }
  async function act(action, args = {}) {
    const t = performance.now();
    busy++;
    let reply;
    try {
      reply = await channel.request(action, args, { columns: ACTIONS[action].key || void 0 });
    } catch (err) {
      sync();
      return { ok: false, error: String(err) };
    } finally {
      busy--;
    }
    if (reply.ok && reply.columns) accept(reply);
    if (!reply.ok) sync();
    root.dataset.lastAction = action;
    root.dataset.lastMs = (performance.now() - t).toFixed(1);
    if (!busy && stale()) fetchMatrix();
    return reply;
  }
  async function fetchMatrix() {
    const reply = await act("matrix", { max_cells: cellsWanted(v) });
    if (!root.dataset.ready && (reply.ok || model.get("error"))) {
      root.dataset.firstDrawMs = (performance.now() - t0).toFixed(1);
      root.dataset.ready = "1";
    }
  }
  v.act = act;
  return { fetchMatrix, stale, idle: () => busy === 0, close: () => channel.close() };
}

// src/heatmap/controls.js
var LABELS = {
  lead_rank: "lead rank",
  group: "call group",
  direction: "matrix",
  unit: "unit",
  scale: "scale",
  reduce: "block",
  group_by: "group rows by"
};
function controls(model, act) {
  const OPTIONS = (
    /** @type {("direction" | "unit" | "scale" | "reduce" | "group_by")[]} */
    Object.keys(CONTROLS)
  );
  const selects = {};
  const control = (name, options) => {
    const s = (
      /** @type {HTMLSelectElement} */
      h("select", { cls: `pw-hm-${name}`, attrs: { "aria-label": LABELS[name] } })
    );
    fillSelect(s, options);
    s.addEventListener("change", () => {
      let v = s.value;
      if (name === "lead_rank" || name === "group") v = Number(v);
      act("set", { name, value: v });
    });
    selects[name] = s;
    return h("label", { cls: "pw-hm-control" }, [h("span", { text: LABELS[name] }), s]);
  };
  const toolbar = h("div", { cls: "pw-toolbar" }, [
    control("lead_rank", []),
    control("group", []),
    ...Object.entries(CONTROLS).map(([name, options]) => control(name, options)),
    button("Zoom out", () => act("zoom_out"), { action: "zoom-out", title: "back to the previous view (or double-click)" })
  ]);
  function sync() {
    const ranks = model.get("lead_ranks") || [];
    fillSelect(selects.lead_rank, ranks.map((r) => [String(r), String(r)]), String(model.get("lead_rank")));
    const labels = model.get("group_labels") || [];
    fillSelect(selects.group, labels.map((l, i) => [String(i), l]), String(model.get("group_index")));
    for (const k of OPTIONS) selects[k].value = model.get(k);
    const host = (
      /** @type {HTMLOptionElement} */
      selects.group_by.querySelector("option[value=host]")
    );
    host.disabled = !model.get("hosts_known");
    host.title = host.disabled ? "no location file names the hosts of these calls" : "";
  }
  return { toolbar, sync };
}

// src/heatmap/side.js
var PATTERN_LINES = 12;
var CATEGORY = { "1->N": "one to many", "N->1": "many to one", "N->N": "many to many", empty: "no messages", other: "irregular" };
var STAT = {
  bytes: "bytes",
  messages: "messages",
  zeros: "zero counts",
  min_nonzero: "smallest non-zero count",
  max: "largest count",
  large: "messages \u2265 200 bytes",
  small: "messages < 200 bytes (incl. zeros)"
};
function drawSide(side, model) {
  const info = model.get("info") || {};
  const sel = model.get("selection_state") || {};
  const parts = [];
  if (info.calls) {
    const title = `${info.collective} ${info.calls}`;
    parts.push(h("h4", { cls: "pw-hm-title", text: title, title }));
    const hosts = info.hosts ? `, ${plural(info.hosts, "host")}` : "";
    parts.push(h("div", {
      text: `communicator of ${plural(info.comm_size, "rank")}, ${grouped(info.datatype_size)}-byte datatype, ${plural(info.rank_groups, "group")} of ranks with identical rows${hosts}`
    }));
  }
  if (sel.ranks !== void 0) {
    parts.push(h("h4", { text: "Selection" }));
    parts.push(h("div", { cls: "pw-hm-selection", text: `rows ${sel.ranks} \u2192 columns ${sel.peers}: ${grouped(sel.total)} ${model.get("unit")}` }));
  }
  if (info.pattern) {
    const cats = info.pattern.categories.map((c) => CATEGORY[c] || c).join(", ");
    parts.push(h("h4", { text: `Pattern ${info.pattern.number}: ${cats}` }));
    const list = h("ul", { cls: "pw-hm-patterns" });
    const lines = info.patterns || [];
    for (const line of lines.slice(0, PATTERN_LINES)) list.append(h("li", { text: line }));
    if (lines.length > PATTERN_LINES) {
      list.append(h("li", { cls: "pw-hm-muted", text: `\u2026 ${lines.length - PATTERN_LINES} more (heatmap.info["patterns"])` }));
    }
    parts.push(list);
  }
  if (info.stats) {
    parts.push(h("h4", { text: `Statistics of one call (${model.get("direction")})` }));
    parts.push(table([["", "value"], ...info.stats.map(([k, v]) => [STAT[k] || k.replace("_", " "), v === null ? "\u2013" : grouped(v)])]));
  }
  parts.push(h("h4", { text: "Timings over ranks and calls" }));
  if (info.timings && info.timings.length) {
    parts.push(table([
      ["", "n", "min", "mean", "max"],
      ...info.timings.map(([m, n, lo, mean, hi]) => [m.replace("_", " "), grouped(n), seconds(lo), seconds(mean), seconds(hi)])
    ]));
  } else {
    parts.push(h("div", { cls: "pw-hm-muted", text: "no timings for these calls" }));
  }
  side.replaceChildren(...parts);
}
function table(rows) {
  const t = h("table", { cls: "pw-hm-table" });
  rows.forEach((r, i) => t.append(h("tr", {}, r.map((c) => h(i ? "td" : "th", { text: c })))));
  return t;
}

// src/heatmap/page.js
function layoutPage(v) {
  const { model } = v;
  const { toolbar, sync: syncToolbar } = controls(model, (action, args) => v.act(action, args));
  const loadErrors = h("details", { cls: "pw-hm-load-errors" });
  const note = h("div", { cls: "pw-hm-note" });
  const plot = h("div", { cls: "pw-hm-plot" }, [v.canvas, v.rect, v.tooltip]);
  const main = h("div", { cls: "pw-hm-main" }, [plot, v.side]);
  v.root.append(toolbar, errorBanner(model), loadErrors, note, main);
  return function sync() {
    const empty = !(model.get("group_labels") || []).length;
    toolbar.hidden = empty;
    main.hidden = empty;
    syncToolbar();
    const errs = model.get("load_errors") || [];
    loadErrors.replaceChildren(
      h("summary", { text: `${errs.length} file(s) could not be read` }),
      ...errs.map((e) => h("div", { cls: "pw-hm-load-error", text: e }))
    );
    loadErrors.hidden = errs.length === 0;
    note.textContent = model.get("note") || "";
    note.hidden = !note.textContent;
    drawSide(v.side, model);
  };
}

// src/heatmap/index.js
function render({ model, el }) {
  const t0 = performance.now();
  const root = h("div", { cls: "pw-heatmap" });
  el.append(root);
  const v = newView(model, root);
  const sync = layoutPage(v);
  const kernel = connect(v, sync, t0);
  const onChange = () => sync();
  const onVersion = () => {
    if (kernel.idle() && kernel.stale()) kernel.fetchMatrix();
  };
  const unlisten = listen(v);
  const themeWatch = new MutationObserver(() => draw(v));
  themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  const traits = Object.keys(TRAITS);
  for (const k of traits) model.on(`change:${k}`, onChange);
  model.on("change:view_version", onVersion);
  sync();
  if (model.get("error") && !(model.get("group_labels") || []).length) {
    root.dataset.ready = "1";
  } else {
    requestAnimationFrame(() => kernel.fetchMatrix());
  }
  return () => {
    kernel.close();
    themeWatch.disconnect();
    unlisten();
    for (const k of traits) model.off(`change:${k}`, onChange);
    model.off("change:view_version", onVersion);
  };
}
var index_default = { render };
export {
  index_default as default
};
