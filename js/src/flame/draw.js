// Drawing the view on one canvas: a row per depth (root on top for an icicle, at the
// bottom for a flame), names clipped to their frame. The canvas is as tall as the plot, and
// only the rows in view are drawn (a deep calltree has thousands of rows: a canvas that tall
// is past what a browser draws). A canvas draws text as pixels, so no name ever becomes
// markup.
import { css, deltaColor, nameColor, shareColor, textOn } from "./colors.js";
import { matches, ROW } from "./state.js";

/** @typedef {import("./state.js").View} View */

export const FONT = "11.5px system-ui, -apple-system, 'Segoe UI', sans-serif";
const MATCH = /** @type {[number, number, number]} */ ([214, 60, 214]);
const FADED = /** @type {[number, number, number]} */ ([232, 232, 232]);
/** The colour of a frame that gathers frames narrower than a pixel. */
export const GATHERED = /** @type {[number, number, number]} */ ([200, 200, 200]);

/**
 * The colour of frame `i`.
 * @param {View} v @param {number} i
 * @returns {[number, number, number]}
 */
export function frameColor(v, i) {
  const f = /** @type {import("./state.js").Frames} */ (v.frames);
  const c = f.cols;
  if (c.node[i] < 0) return GATHERED;
  if (v.search.pattern) return matches(v.search, f, i) ? MATCH : FADED;
  if (f.meta.compare) return deltaColor(c.relative[i], c.significant[i] === 1);
  if (v.model.get("color_by") === "exclusive") {
    return shareColor(c.value[i] > 0 ? c.exclusive[i] / c.value[i] : 0);
  }
  return nameColor(c.key ? c.key[i] : c.name[i]); // the key is sent where it is not the name
}

/** Canvas width in CSS pixels: the widget's. @param {View} v */
export function canvasWidth(v) {
  return Math.max(200, Math.floor(v.width || v.root.clientWidth || 800));
}

/** The y of a depth's row in the whole chart. @param {View} v @param {number} depth */
export function rowTop(v, depth) {
  const f = v.frames;
  const rows = f ? f.depth : 1;
  return v.model.get("orientation") === "flame" ? (rows - 1 - depth) * ROW : depth * ROW;
}

/** The plot's height: the rows, at most the widget's `height`. @param {View} v */
export function plotHeight(v) {
  const rows = v.frames ? Math.max(v.frames.depth, 1) : 1;
  return Math.min(rows * ROW, Number(v.model.get("height")) || 420);
}

/** How far the plot is scrolled: the rows above the canvas, in CSS pixels. @param {View} v */
export function scrollOffset(v) {
  const rows = v.frames ? Math.max(v.frames.depth, 1) : 1;
  return Math.max(0, Math.min(v.scrollTop, rows * ROW - plotHeight(v)));
}

/** Label widths measured in FONT, the labels' one font (a calltree repeats its names, and a
 * redraw measures the same labels again; reading ctx.font back would cost a string a call).
 * @type {Map<string, number>} */
const MEASURED = new Map();

/** The width of `text` in FONT (the context's font when labels are drawn), measured once.
 * @param {CanvasRenderingContext2D} ctx @param {string} text */
function widthOf(ctx, text) {
  const known = MEASURED;
  let w = known.get(text);
  if (w === undefined) {
    if (known.size > 100_000) known.clear();
    w = ctx.measureText(text).width;
    known.set(text, w);
  }
  return w;
}

/** `text` cut to fit `room` pixels, with an ellipsis ("" when under two letters fit): the cut
 * is estimated from the whole text's width per letter, then corrected a letter at a time.
 * @param {CanvasRenderingContext2D} ctx @param {string} text @param {number} room */
export function clipped(ctx, text, room) {
  const whole = widthOf(ctx, text);
  if (whole <= room) return text;
  const per = whole / Math.max(text.length, 1);
  let n = Math.max(0, Math.min(text.length - 1, Math.floor((room - widthOf(ctx, "…")) / per)));
  while (n > 0 && widthOf(ctx, `${text.slice(0, n)}…`) > room) n--;
  while (n + 1 < text.length && widthOf(ctx, `${text.slice(0, n + 1)}…`) <= room) n++;
  return n >= 2 ? `${text.slice(0, n)}…` : "";
}

/** Diagonal strokes over a frame: a prediction from a poorly fitted model (or none).
 * @param {CanvasRenderingContext2D} ctx @param {number} x @param {number} y @param {number} w */
export function hatch(ctx, x, y, w) {
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

/** A name's colour as CSS, hashed once per name (a calltree repeats its names).
 * @type {Map<string, string>} */
const NAMED = new Map();

/** The colour of frame `i` as CSS, through the name cache where the colour is a name's.
 * @param {View} v @param {number} i @param {boolean} byName */
function frameCss(v, i, byName) {
  if (!byName) return css(frameColor(v, i));
  const c = /** @type {import("./state.js").Frames} */ (v.frames).cols;
  if (c.node[i] < 0) return css(GATHERED);
  const key = c.key ? c.key[i] : c.name[i];
  let fill = NAMED.get(key);
  if (!fill) {
    if (NAMED.size > 200_000) NAMED.clear();
    fill = css(nameColor(key));
    NAMED.set(key, fill);
  }
  return fill;
}

/** Draw the rows in view: the canvas is as tall as the plot and stays at its top while
 * the spacer below it makes the plot scroll over every row. @param {View} v */
export function draw(v) {
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
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  ctx.setTransform(dpr, 0, 0, dpr, 0, -top * dpr);
  ctx.clearRect(0, top, width, height);
  if (f) {
    const first = Math.floor(top / ROW);
    drawRows(ctx, v, width, first, Math.min(rows, Math.ceil((top + height) / ROW)));
    v.root.dataset.rowsDrawn = `${first}-${Math.min(rows, Math.ceil((top + height) / ROW))}`;
  }
  v.root.dataset.drawMs = (performance.now() - t).toFixed(1);
}

/**
 * Draw the chart's rows `first` to `last` (exclusive; rows from the top) at their place in
 * the whole chart: the rectangles one path per colour, then the hatching, the labels of
 * frames wide enough, and the selection's outline.
 * @param {CanvasRenderingContext2D} ctx @param {View} v @param {number} width
 * @param {number} first @param {number} last
 */
export function drawRows(ctx, v, width, first, last) {
  const f = /** @type {import("./state.js").Frames} */ (v.frames);
  const c = f.cols;
  const rows = Math.max(f.depth, 1);
  const zoomPath = new Set(f.meta.path.slice(0, -1).map((p) => p.node));
  const selected = Number(v.model.get("selected_node"));
  const byName = !v.search.pattern && !f.meta.compare && v.model.get("color_by") !== "exclusive";
  const flipped = v.model.get("orientation") === "flame";
  /** @type {Map<string, number[]>} css colour -> frames of that colour */
  const buckets = new Map();
  /** @type {number[]} */
  const faded = [];
  /** @type {number[]} */
  const labelled = [];
  /** @type {number[]} */
  const hatched = [];
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
      if (c.guess && c.guess[i]) hatched.push(i);
      if (zoomPath.has(node)) { faded.push(i); continue; } // ancestors of the zoomed frame
      const fill = frameCss(v, i, byName);
      const bucket = buckets.get(fill);
      if (bucket) bucket.push(i);
      else buckets.set(fill, [i]);
    }
  }
  /** the y of a depth's row (rowTop, without asking the model per frame) @param {number} d */
  const top = (d) => (flipped ? (rows - 1 - d) * ROW : d * ROW);
  /** @param {number} i */
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
  for (const i of hatched) {
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
