// Drawing on the one canvas: the block matrix (one pixel per block, scaled without
// smoothing), the rank-range axes, the marginal bars, the color bar and the title.
import { lut, rgb } from "../lib/colormap.js";
import { grouped, tickText } from "../lib/format.js";
import { colRange, rangeText, rowRange, words } from "./state.js";

export const LEFT = 150; // row labels
export const TOP = 50; // title and color-bar legend
export const MARG = 64; // marginal bars (right of and below the matrix)
export const AXIS = 34; // column labels
const BAR_W = 14; // color bar
const BAR_LABELS = 78;
const TABLE = lut(); // index 0 (zero) is set per theme in draw()
const DARK_ZERO = [58, 58, 58];
const LIGHT_ZERO = [TABLE[0], TABLE[1], TABLE[2]];

/** @typedef {import("./state.js").View} View */
/** @typedef {import("./state.js").Geometry} Geometry */
/** @typedef {import("./state.js").Theme} Theme */

/**
 * Canvas colors from the theme's CSS variables (JupyterLab's light or dark theme).
 * @param {HTMLElement} el
 * @returns {Theme}
 */
function theme(el) {
  const cs = getComputedStyle(el);
  const get = (/** @type {string} */ name, /** @type {string} */ fallback) => cs.getPropertyValue(name).trim() || fallback;
  const m = (cs.color || "").match(/\d+(\.\d+)?/g);
  const dark = m ? (0.299 * Number(m[0]) + 0.587 * Number(m[1]) + 0.114 * Number(m[2])) > 140 : false; // light text
  return {
    dark,
    fg: get("--pw-fg", "#222"),
    muted: get("--pw-muted", "#555"),
    frame: dark ? "#9a9a9a" : "#888",
    bar: dark ? "#7fa7d6" : "#4e79a7",
  };
}

/**
 * Where things go: the side panel sits beside the plot when there is room, below it otherwise.
 * @param {View} v
 * @returns {Geometry}
 */
export function layout(v) {
  const avail = v.root.clientWidth || 800;
  const width = Math.max(420, avail >= 1160 ? Math.min(900, avail - 370) : Math.min(900, avail - 4));
  const height = v.model.get("height") || 520;
  const s = Math.max(120, Math.min(width - LEFT - MARG - BAR_W - BAR_LABELS - 16, height - TOP - AXIS - MARG - 8));
  // no wider than what is drawn, so the side panel sits right beside the color bar
  return { width: Math.min(width, LEFT + s + MARG + BAR_W + BAR_LABELS + 16), height, x: LEFT, y: TOP, s };
}

/** Blocks per axis this canvas can show (device pixels, at most 900). @param {View} v */
export function cellsWanted(v) {
  const g = layout(v);
  return Math.max(1, Math.min(900, Math.floor(g.s * (window.devicePixelRatio || 1))));
}

/** Draw the matrix held in `v.matrix`. @param {View} v */
export function draw(v) {
  if (!v.matrix) return;
  const t = performance.now();
  const { canvas, model, root } = v;
  const g = layout(v);
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(g.width * dpr);
  canvas.height = Math.round(g.height * dpr);
  canvas.style.width = `${g.width}px`;
  canvas.style.height = `${g.height}px`;
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
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
  /** @type {CanvasRenderingContext2D} */ (off.getContext("2d")).putImageData(img, 0, 0);
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
  } else { // nothing to color: say so where the colors would be, not an empty scale
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
  const rows = by === "rank" ? `${w.who} ${rangeText(view.rows)}`
    : `${w.who} by ${by === "host" ? "host" : "rank group"}: ${by === "host" ? "hosts" : "groups"} ${rangeText(view.rows)} of ${grouped(meta.n_rows)}`;
  ctx.fillText(`${model.get("direction")} ${model.get("unit")}: ${rows} × ${w.cols} ${rangeText(view.cols)}` +
    `  (${nr}×${nc} blocks, ${model.get("reduce")} per block)`, 4, 12);
  root.dataset.drawMs = (performance.now() - t).toFixed(1);
  root.dataset.blocks = `${nr}x${nc}`;
}

/** @param {CanvasRenderingContext2D} ctx @param {View} v */
function drawAxes(ctx, v) {
  const g = /** @type {Required<Geometry>} */ (v.geom);
  const m = /** @type {import("./state.js").Matrix} */ (v.matrix);
  const { cols, nr, nc } = m;
  ctx.font = "11px sans-serif";
  ctx.fillStyle = g.theme.fg;
  // rows: label every block that has room (at least 13 px apart); rank groups by their
  // numbers, as the title counts them (their ranks are in the tooltip)
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  const byGroup = v.model.get("group_by") === "rows";
  const rstep = Math.max(1, Math.ceil(13 / g.ch));
  for (let i = 0; i < nr; i += rstep) {
    let label = byGroup ? rowRange(m, i) : cols.row_labels[i];
    const colon = label.indexOf(": ");
    if (colon > 0 && label.length > 24) { // host: ranks -> short host name: ranks
      label = label.slice(0, colon).split(".")[0] + label.slice(colon);
    }
    if (label.length > 24) label = label.slice(0, 23) + "…";
    ctx.fillText(label, g.x - 4, g.y + (i + 0.5) * g.ch);
  }
  // columns: ranges at block boundaries, every ~60 px
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const cstep = Math.max(1, Math.ceil(60 / g.cw));
  for (let j = 0; j < nc; j += cstep) {
    const text = colRange(m, j), cx = g.x + (j + 0.5) * g.cw;
    if (cx + ctx.measureText(text).width / 2 > g.x + g.s + 4) continue; // keep clear of the bars
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

/** @param {CanvasRenderingContext2D} ctx @param {View} v */
function drawMarginals(ctx, v) {
  const g = /** @type {Required<Geometry>} */ (v.geom);
  const { cols, nr, nc } = /** @type {import("./state.js").Matrix} */ (v.matrix);
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
  // whole counts and bytes read whole: "max 4", not "max 4.000"
  const sums = [`max ${tickText(rmax)}`, `column sum (max ${tickText(cmax)})`];
  v.root.dataset.sums = JSON.stringify(sums); // the canvas's words, for a reader test
  ctx.fillText(sums[0], x0, g.y + g.s + 14, MARG - 8); // clear of the color bar
  ctx.textAlign = "right";
  ctx.textBaseline = "top";
  ctx.fillText(sums[1], g.x - 4, y0 + 4);
}

/**
 * The ticks of a linear color bar from 0 to `hi`: round whole steps (1, 2 or 5 × 10^k, at
 * least 1: a block holds whole counts or bytes, never 0.25 of one) and the top itself.
 * @param {number} hi
 * @returns {number[]}
 */
export function linearTicks(hi) {
  const raw = hi / 4;
  const decade = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, ([1, 2, 5, 10].map((m) => m * decade).find((s) => s >= raw) || raw));
  const out = [];
  for (let k = 1; k * step < 0.94 * hi; k++) out.push(k * step); // clear of the top's label
  out.push(hi);
  return out;
}

/** @param {CanvasRenderingContext2D} ctx @param {View} v */
function drawColorBar(ctx, v) {
  const g = /** @type {Required<Geometry>} */ (v.geom);
  const { meta } = /** @type {import("./state.js").Matrix} */ (v.matrix);
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
  /** @type {[number, number][]} */
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
      // the bar's foot is the smallest non-zero color: zero has its own swatch below
      for (const val of linearTicks(hi)) ticks.push([val, 1 - val / hi]);
    }
  }
  const labels = ticks.map(([val]) => tickText(val));
  ticks.forEach(([, f], k) => {
    ctx.fillRect(x + BAR_W, y + f * hh, 3, 1);
    ctx.fillText(labels[k], x + BAR_W + 5, y + f * hh);
  });
  v.root.dataset.colorTicks = JSON.stringify(labels); // the canvas's words, for a reader test
  ctx.fillText("0 (none)", x + BAR_W + 5, y + hh + 11);
  ctx.textBaseline = "bottom";
  ctx.fillText(`${v.model.get("unit")}, ${log ? "log" : "linear"}`, x - 2, y - 19);
  ctx.fillText(`${v.model.get("reduce")} per block`, x - 2, y - 8);
}
