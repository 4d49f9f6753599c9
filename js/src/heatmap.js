// CountMatrixHeatmap front end: one canvas draws the block matrix Python aggregated to
// this canvas's resolution (uint8 colour per block), the rank-range axes, the marginal
// bars and the colour bar; hover reads the exact block value (int64 as BigInt) locally.
// See perfweave/widgets/heatmap.py.
import { errorBanner } from "./lib/banner.js";
import { lut, rgb } from "./lib/colormap.js";
import { button, fillSelect, h } from "./lib/dom.js";
import { compact, exact } from "./lib/format.js";
import { Channel } from "./lib/request.js";

const LEFT = 150; // row labels
const TOP = 50; // title and colour-bar legend
const MARG = 64; // marginal bars (right of and below the matrix)
const AXIS = 34; // column labels
const BAR_W = 14; // colour bar
const BAR_LABELS = 78;
const PATTERN_LINES = 12; // pattern tallies listed in the side panel
const TABLE = lut(); // index 0 (zero) is set per theme in draw()
const DARK_ZERO = [58, 58, 58];
const LIGHT_ZERO = [TABLE[0], TABLE[1], TABLE[2]];
const GROUP_BY = [["rank", "rank"], ["rows", "identical rows"], ["host", "host"]];

/** Canvas colours from the theme's CSS variables (JupyterLab's light or dark theme). */
function theme(el) {
  const cs = getComputedStyle(el);
  const get = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  const m = (cs.color || "").match(/\d+(\.\d+)?/g);
  const dark = m ? (0.299 * m[0] + 0.587 * m[1] + 0.114 * m[2]) > 140 : false; // light text
  return {
    dark,
    fg: get("--pw-fg", "#222"),
    muted: get("--pw-muted", "#555"),
    frame: dark ? "#9a9a9a" : "#888",
    bar: dark ? "#7fa7d6" : "#4e79a7",
  };
}

/** "5486477093" -> "5,486,477,093" (the exact digits, grouped for reading). */
function digits(text) {
  return /^-?\d{5,}$/.test(text) ? text.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : text;
}

function render({ model, el }) {
  const t0 = performance.now();
  const channel = new Channel(model);
  const root = h("div", { cls: "pw-heatmap" });
  el.append(root);

  // ---------------------------------------------------------------- controls
  const selects = {};
  const control = (name, label, options) => {
    const s = h("select", { cls: `pw-hm-${name}`, attrs: { "aria-label": label } });
    fillSelect(s, options);
    s.addEventListener("change", () => {
      let v = s.value;
      if (name === "lead_rank" || name === "group") v = Number(v);
      act("set", { name, value: v });
    });
    selects[name] = s;
    return h("label", { cls: "pw-hm-control" }, [h("span", { text: label }), s]);
  };
  const toolbar = h("div", { cls: "pw-toolbar" }, [
    control("lead_rank", "lead rank", []),
    control("group", "call group", []),
    control("direction", "matrix", [["send", "send"], ["recv", "recv"]]),
    control("unit", "unit", [["counts", "counts"], ["bytes", "bytes"]]),
    control("scale", "scale", [["linear", "linear"], ["log", "log"]]),
    control("reduce", "block", [["max", "max"], ["sum", "sum"]]),
    control("group_by", "group rows by", GROUP_BY),
    button("Zoom out", () => act("zoom_out"), { action: "zoom-out", title: "back to the previous view (or double-click)" }),
  ]);
  const loadErrors = h("details", { cls: "pw-hm-load-errors" });
  const note = h("div", { cls: "pw-hm-note" });
  const canvas = h("canvas", { cls: "pw-hm-canvas" });
  const rect = h("div", { cls: "pw-hm-rect" });
  rect.hidden = true;
  const tooltip = h("div", { cls: "pw-hm-tooltip", attrs: { role: "tooltip" } });
  tooltip.hidden = true;
  const plot = h("div", { cls: "pw-hm-plot" }, [canvas, rect, tooltip]);
  const side = h("div", { cls: "pw-hm-side" });
  const main = h("div", { cls: "pw-hm-main" }, [plot, side]);
  root.append(toolbar, errorBanner(model), loadErrors, note, main);

  let state = null; // {meta, cols, nr, nc}
  let geom = null; // {x, y, s, cw, ch}
  let busy = 0;

  function syncControls() {
    // nothing loaded (e.g. a directory with no count files): only the message is shown
    const empty = !(model.get("group_labels") || []).length;
    toolbar.hidden = empty;
    main.hidden = empty;
    const ranks = model.get("lead_ranks") || [];
    fillSelect(selects.lead_rank, ranks.map((r) => [String(r), String(r)]), String(model.get("lead_rank")));
    const labels = model.get("group_labels") || [];
    fillSelect(selects.group, labels.map((l, i) => [String(i), l]), String(model.get("group_index")));
    for (const k of ["direction", "unit", "scale", "reduce", "group_by"]) selects[k].value = model.get(k);
    const host = selects.group_by.querySelector("option[value=host]");
    host.disabled = !model.get("hosts_known");
    host.title = host.disabled ? "no location file names the hosts of these calls" : "";
    const errs = model.get("load_errors") || [];
    loadErrors.replaceChildren(h("summary", { text: `${errs.length} file(s) could not be read` }),
      ...errs.map((e) => h("div", { cls: "pw-hm-load-error", text: e })));
    loadErrors.hidden = errs.length === 0;
    note.textContent = model.get("note") || "";
    note.hidden = !note.textContent;
    drawSide();
  }

  // ---------------------------------------------------------------- side panel
  function drawSide() {
    const info = model.get("info") || {};
    const sel = model.get("selection_state") || {};
    const parts = [];
    if (info.calls) {
      parts.push(h("h4", { text: `${info.collective}, ${info.calls}` }));
      const hosts = info.hosts ? `, ${info.hosts} host${info.hosts === 1 ? "" : "s"}` : "";
      parts.push(h("div", { text: `communicator size ${info.comm_size}, datatype ${info.datatype_size} B, ${info.rank_groups} rank groups${hosts}` }));
    }
    if (sel.ranks !== undefined) {
      parts.push(h("h4", { text: "Selection" }));
      parts.push(h("div", { cls: "pw-hm-selection", text: `rows ${sel.ranks} → columns ${sel.peers}: ${sel.total} ${model.get("unit")}` }));
    }
    if (info.pattern) {
      parts.push(h("h4", { text: `Pattern #${info.pattern.number} (${info.pattern.categories.join(", ")})` }));
      const list = h("ul", { cls: "pw-hm-patterns" });
      const lines = info.patterns || [];
      for (const line of lines.slice(0, PATTERN_LINES)) list.append(h("li", { text: line }));
      if (lines.length > PATTERN_LINES) {
        list.append(h("li", { cls: "pw-hm-muted", text: `… ${lines.length - PATTERN_LINES} more tallies (heatmap.info["patterns"])` }));
      }
      parts.push(list);
    }
    if (info.stats) {
      parts.push(h("h4", { text: `Statistics (${model.get("direction")}, per call)` }));
      parts.push(table([["", "value"], ...info.stats.map(([k, v]) => [k.replace("_", " "), v === null ? "–" : String(v)])]));
    }
    parts.push(h("h4", { text: "Timings (s, over ranks and calls)" }));
    if (info.timings && info.timings.length) {
      parts.push(table([["", "n", "min", "mean", "max"],
        ...info.timings.map(([m, n, lo, mean, hi]) => [m, String(n), compact(lo), compact(mean), compact(hi)])]));
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

  // ---------------------------------------------------------------- drawing
  function layout() {
    // the side panel sits beside the plot when there is room, below it otherwise
    const avail = root.clientWidth || 800;
    const width = Math.max(420, avail >= 1160 ? Math.min(900, avail - 370) : Math.min(900, avail - 4));
    const height = model.get("height") || 520;
    const s = Math.max(120, Math.min(width - LEFT - MARG - BAR_W - BAR_LABELS - 16, height - TOP - AXIS - MARG - 8));
    // no wider than what is drawn, so the side panel sits right beside the colour bar
    return { width: Math.min(width, LEFT + s + MARG + BAR_W + BAR_LABELS + 16), height, x: LEFT, y: TOP, s };
  }

  function cellsWanted() {
    const g = layout();
    return Math.max(1, Math.min(900, Math.floor(g.s * (window.devicePixelRatio || 1))));
  }

  function draw() {
    if (!state) return;
    const t = performance.now();
    const g = layout();
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(g.width * dpr);
    canvas.height = Math.round(g.height * dpr);
    canvas.style.width = `${g.width}px`;
    canvas.style.height = `${g.height}px`;
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.width, g.height);
    const { cols, meta, nr, nc } = state;
    const th = theme(root);
    g.theme = th;
    TABLE.set(th.dark ? DARK_ZERO : LIGHT_ZERO, 0);
    root.dataset.theme = th.dark ? "dark" : "light";
    // the matrix: one pixel per block, scaled without smoothing
    const img = new ImageData(nc, nr);
    const px = new Uint32Array(img.data.buffer);
    const lut32 = new Uint32Array(TABLE.buffer);
    const colour = cols.colour;
    for (let i = 0; i < colour.length; i++) px[i] = lut32[colour[i]];
    const off = document.createElement("canvas");
    off.width = nc;
    off.height = nr;
    off.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(off, g.x, g.y, g.s, g.s);
    ctx.strokeStyle = th.frame;
    ctx.lineWidth = 1;
    ctx.strokeRect(g.x - 0.5, g.y - 0.5, g.s + 1, g.s + 1);
    geom = { ...g, cw: g.s / nc, ch: g.s / nr };
    drawAxes(ctx, g);
    drawMarginals(ctx, g);
    drawColourBar(ctx, g);
    // title
    const dir = model.get("direction");
    ctx.fillStyle = th.fg;
    ctx.font = "bold 12px sans-serif";
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    const v = meta.view;
    const by = model.get("group_by");
    const rows = by === "rank" ? `${who()} ${rangeText(v.rows)}`
      : `${who()} by ${by === "host" ? "host" : "rank group"}: ${by === "host" ? "hosts" : "groups"} ${rangeText(v.rows)} of ${meta.n_rows}`;
    ctx.fillText(`${dir} ${model.get("unit")}: ${rows} × ${colsWord()} ${rangeText(v.cols)}` +
      `  (${nr}×${nc} blocks, ${model.get("reduce")} per block)`, 4, 12);
    root.dataset.drawMs = (performance.now() - t).toFixed(1);
    root.dataset.blocks = `${nr}x${nc}`;
  }

  const who = () => (model.get("direction") === "send" ? "senders" : "receivers");
  const rowsWord = () => ({ rank: who(), rows: `rank groups of ${who()}`, host: `hosts of ${who()}` }[model.get("group_by")] || who());
  const axisWord = () => ({ rank: `${who()} (rank ranges)`, rows: `rank groups of ${who()} (their ranks)`, host: `${who()} by host (host: ranks)` }[model.get("group_by")] || who());
  const colsWord = () => (model.get("direction") === "send" ? "receivers" : "senders");
  const rangeText = (r) => (r[1] - r[0] === 1 ? `${r[0]}` : `${r[0]}-${r[1] - 1}`);

  function colRange(j) {
    const e = state.cols.col_edges;
    const a = Number(e[j]), b = Number(e[j + 1]);
    return b - a === 1 ? `${a}` : `${a}-${b - 1}`;
  }

  function drawAxes(ctx, g) {
    const { cols, nr, nc } = state;
    ctx.font = "11px sans-serif";
    ctx.fillStyle = g.theme.fg;
    // rows: label every block that has room (at least 13 px apart)
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    const rstep = Math.max(1, Math.ceil(13 / geom.ch));
    for (let i = 0; i < nr; i += rstep) {
      let label = cols.row_labels[i];
      const colon = label.indexOf(": ");
      if (colon > 0 && label.length > 24) { // host: ranks -> short host name: ranks
        label = label.slice(0, colon).split(".")[0] + label.slice(colon);
      }
      if (label.length > 24) label = label.slice(0, 23) + "…";
      ctx.fillText(label, g.x - 4, g.y + (i + 0.5) * geom.ch);
    }
    // columns: ranges at block boundaries, every ~60 px
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    const cstep = Math.max(1, Math.ceil(60 / geom.cw));
    for (let j = 0; j < nc; j += cstep) {
      const text = colRange(j), cx = g.x + (j + 0.5) * geom.cw;
      if (cx + ctx.measureText(text).width / 2 > g.x + g.s + 4) continue; // keep clear of the bars
      ctx.fillText(text, cx, g.y + g.s + 3);
    }
    ctx.fillStyle = g.theme.muted;
    ctx.fillText(`${colsWord()} (rank ranges)`, g.x + g.s / 2, g.y + g.s + 18);
    ctx.save();
    ctx.translate(10, g.y + g.s / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "middle";
    ctx.fillText(axisWord(), 0, 0);
    ctx.restore();
  }

  function drawMarginals(ctx, g) {
    const { cols, nr, nc } = state;
    const rs = Array.from(cols.row_sum, Number), cs = Array.from(cols.col_sum, Number);
    const rmax = Math.max(...rs, 0), cmax = Math.max(...cs, 0);
    ctx.fillStyle = g.theme.bar;
    const x0 = g.x + g.s + 6, y0 = g.y + g.s + AXIS;
    for (let i = 0; i < nr; i++) {
      if (rmax > 0 && rs[i] > 0) ctx.fillRect(x0, g.y + i * geom.ch, Math.max(1, (MARG - 10) * rs[i] / rmax), Math.max(1, geom.ch - (geom.ch > 3 ? 1 : 0)));
    }
    for (let j = 0; j < nc; j++) {
      if (cmax > 0 && cs[j] > 0) {
        const hgt = Math.max(1, (MARG - 14) * cs[j] / cmax);
        ctx.fillRect(g.x + j * geom.cw, y0 + (MARG - 14) - hgt, Math.max(1, geom.cw - (geom.cw > 3 ? 1 : 0)), hgt);
      }
    }
    ctx.fillStyle = g.theme.muted;
    ctx.font = "10px sans-serif";
    ctx.textAlign = "left";
    ctx.textBaseline = "bottom";
    ctx.fillText("row sum", x0, g.y - 2);
    ctx.fillText(`max ${compact(rmax)}`, x0, g.y + g.s + 14, MARG - 8); // clear of the colour bar
    ctx.textAlign = "right";
    ctx.textBaseline = "top";
    ctx.fillText(`column sum (max ${compact(cmax)})`, g.x - 4, y0 + 4);
  }

  function drawColourBar(ctx, g) {
    const { meta } = state;
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
    const log = model.get("scale") === "log";
    const lo = meta.lo, hi = meta.hi;
    const ticks = [];
    if (hi > 0) {
      if (log && hi > lo) {
        ticks.push([lo, 1]);
        for (let p = Math.ceil(Math.log10(lo)); p <= Math.floor(Math.log10(hi)); p++) {
          const v = 10 ** p;
          const f = (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
          if (f > 0.06 && f < 0.94) ticks.push([v, 1 - f]);
        }
        ticks.push([hi, 0]);
      } else {
        for (const f of [0, 0.25, 0.5, 0.75, 1]) ticks.push([lo + (hi - lo) * f, 1 - f]);
      }
    }
    for (const [v, f] of ticks) {
      ctx.fillRect(x + BAR_W, y + f * hh, 3, 1);
      ctx.fillText(compact(v), x + BAR_W + 5, y + f * hh);
    }
    ctx.fillText("0", x + BAR_W + 5, y + hh + 11);
    ctx.textBaseline = "bottom";
    ctx.fillText(`${model.get("unit")}, ${log ? "log" : "linear"}`, x - 2, y - 19);
    ctx.fillText(`${model.get("reduce")} per block`, x - 2, y - 8);
  }

  // ---------------------------------------------------------------- interaction
  function blockAt(ev) {
    if (!geom || !state) return null;
    const r = canvas.getBoundingClientRect();
    const mx = ev.clientX - r.left, my = ev.clientY - r.top;
    const inX = mx >= geom.x && mx < geom.x + geom.s, inY = my >= geom.y && my < geom.y + geom.s;
    const j = Math.floor((mx - geom.x) / geom.cw), i = Math.floor((my - geom.y) / geom.ch);
    if (inX && inY) return { area: "cell", i, j, mx, my };
    if (inY && mx < geom.x) return { area: "row-label", i, mx, my };
    if (inY && mx > geom.x + geom.s && mx < geom.x + geom.s + MARG) return { area: "row-marginal", i, mx, my };
    if (inX && my > geom.y + geom.s + AXIS && my < geom.y + geom.s + AXIS + MARG) return { area: "col-marginal", j, mx, my };
    return null;
  }

  function showTooltip(b) {
    const { cols, nc } = state;
    const unit = model.get("unit");
    let lines;
    if (b.area === "cell") {
      const v = cols.values[b.i * nc + b.j];
      lines = [`${rowsWord()}: ${cols.row_labels[b.i]}`, `${colsWord()}: ${colRange(b.j)}`,
        `${model.get("reduce")} ${unit}: ${digits(exact(v))}`];
      tooltip.dataset.value = exact(v);
    } else if (b.area === "row-label" || b.area === "row-marginal") {
      const n = Number(cols.row_ranks[b.i]);
      lines = [`${rowsWord()}: ${cols.row_labels[b.i]} (${n} rank${n === 1 ? "" : "s"})`,
        `sum ${unit}: ${digits(exact(cols.row_sum[b.i]))}`,
        `mean per rank: ${compact(Number(cols.row_sum[b.i]) / n)}`,
        `max per rank: ${digits(exact(cols.row_max[b.i]))}`];
      tooltip.dataset.value = exact(cols.row_sum[b.i]);
    } else {
      lines = [`${colsWord()}: ${colRange(b.j)}`, `sum ${unit}: ${digits(exact(cols.col_sum[b.j]))}`,
        `max per column: ${digits(exact(cols.col_max[b.j]))}`];
      tooltip.dataset.value = exact(cols.col_sum[b.j]);
    }
    tooltip.replaceChildren(...lines.map((l) => h("div", { text: l })));
    tooltip.hidden = false;
    tooltip.style.left = `${Math.min(b.mx + 14, (geom.width || 600) - 220)}px`;
    tooltip.style.top = `${b.my + 14}px`;
    root.dataset.hoverMs = (performance.now() - b.t).toFixed(2);
  }

  let drag = null;
  canvas.addEventListener("mousemove", (ev) => {
    const t = performance.now();
    if (drag) {
      const r = canvas.getBoundingClientRect();
      const x = Math.max(geom.x, Math.min(ev.clientX - r.left, geom.x + geom.s));
      const y = Math.max(geom.y, Math.min(ev.clientY - r.top, geom.y + geom.s));
      drag.x1 = x;
      drag.y1 = y;
      Object.assign(rect.style, {
        left: `${Math.min(drag.x0, x)}px`, top: `${Math.min(drag.y0, y)}px`,
        width: `${Math.abs(x - drag.x0)}px`, height: `${Math.abs(y - drag.y0)}px`,
      });
      rect.hidden = Math.abs(x - drag.x0) + Math.abs(y - drag.y0) < 5;
      tooltip.hidden = true;
      return;
    }
    const b = blockAt(ev);
    if (!b) { tooltip.hidden = true; return; }
    b.t = t;
    showTooltip(b);
  });
  canvas.addEventListener("mouseleave", () => { tooltip.hidden = true; });
  canvas.addEventListener("mousedown", (ev) => {
    const b = blockAt(ev);
    if (!b || b.area !== "cell" || ev.button !== 0) return;
    drag = { x0: b.mx, y0: b.my, x1: b.mx, y1: b.my, b };
    ev.preventDefault();
  });
  window.addEventListener("mouseup", onUp);
  function onUp(ev) {
    if (!drag) return;
    const d = drag;
    drag = null;
    rect.hidden = true;
    if (Math.abs(d.x1 - d.x0) + Math.abs(d.y1 - d.y0) < 5) {
      if (ev.detail <= 1) act("select", { row_block: d.b.i, col_block: d.b.j }, false);
      return;
    }
    const { cols, nr, nc } = state;
    const i0 = clamp(Math.floor((Math.min(d.y0, d.y1) - geom.y) / geom.ch), nr);
    const i1 = clamp(Math.floor((Math.max(d.y0, d.y1) - geom.y - 0.001) / geom.ch), nr);
    const j0 = clamp(Math.floor((Math.min(d.x0, d.x1) - geom.x) / geom.cw), nc);
    const j1 = clamp(Math.floor((Math.max(d.x0, d.x1) - geom.x - 0.001) / geom.cw), nc);
    act("zoom", {
      rows: [Number(cols.row_edges[i0]), Number(cols.row_edges[i1 + 1])],
      cols: [Number(cols.col_edges[j0]), Number(cols.col_edges[j1 + 1])],
    });
  }
  const clamp = (k, n) => Math.max(0, Math.min(n - 1, k));
  canvas.addEventListener("dblclick", (ev) => {
    const b = blockAt(ev);
    if (b && b.area === "cell") act("zoom_out");
  });
  canvas.addEventListener("click", (ev) => {
    const b = blockAt(ev);
    if (b && b.area === "row-label") act("select", { row_block: b.i });
  });

  // ---------------------------------------------------------------- requests
  async function act(action, args = {}) {
    const t = performance.now();
    busy++;
    let reply;
    try {
      reply = await channel.request(action, args);
    } catch (err) {
      // no answer from the kernel (lib/request.js shows it in the banner): the selects show
      // Python's last state again, as after a refused change
      syncControls();
      throw err;
    } finally {
      busy--;
    }
    if (reply.ok && reply.columns) accept(reply);
    if (!reply.ok) syncControls(); // a refused change: the selects show Python's state again
    root.dataset.lastAction = action;
    root.dataset.lastMs = (performance.now() - t).toFixed(1);
    if (!busy && (model.get("view_version") || 0) > (state ? state.meta.version : -1)) fetchMatrix();
    return reply;
  }

  function accept(reply) {
    const cols = reply.columns;
    const shape = cols.values.shape;
    state = { meta: reply.meta, cols, nr: shape[0], nc: shape[1] };
    syncControls();
    draw();
    root.dataset.view = JSON.stringify(reply.meta.view);
    root.dataset.version = String(reply.meta.version);
  }

  async function fetchMatrix() {
    const reply = await act("matrix", { max_cells: cellsWanted() });
    if (!root.dataset.ready && (reply.ok || model.get("error"))) {
      root.dataset.firstDrawMs = (performance.now() - t0).toFixed(1);
      root.dataset.ready = "1";
    }
  }

  const onChange = () => syncControls();
  const onVersion = () => {
    if (!busy && (model.get("view_version") || 0) > (state ? state.meta.version : -1)) fetchMatrix();
  };
  const traits = ["lead_ranks", "lead_rank", "group_labels", "group_index", "direction", "unit",
    "scale", "reduce", "group_by", "hosts_known", "info", "selection_state", "load_errors", "note"];
  // JupyterLab switches themes by attributes on <body>: redraw the canvas in the new colours
  const themeWatch = new MutationObserver(() => draw());
  themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  for (const k of traits) model.on(`change:${k}`, onChange);
  model.on("change:view_version", onVersion);
  syncControls();
  if (model.get("error") && !(model.get("group_labels") || []).length) {
    root.dataset.ready = "1"; // nothing to draw: the banner says why
  } else {
    requestAnimationFrame(() => fetchMatrix());
  }

  return () => {
    channel.close();
    themeWatch.disconnect();
    window.removeEventListener("mouseup", onUp);
    for (const k of traits) model.off(`change:${k}`, onChange);
    model.off("change:view_version", onVersion);
  };
}

export default { render };
