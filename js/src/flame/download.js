// The chart as a file: PNG (every row drawn, as on the canvas) or SVG (a rectangle and a clipped label per
// frame drawn, the title and legend as text). Names are set as text nodes and serialised by
// the browser, so a name never becomes markup.
import { css, textOn } from "./colors.js";
import { canvasWidth, clipped, drawRows, FONT, frameColor, rowTop } from "./draw.js";
import { ROW } from "./state.js";

/** @typedef {import("./state.js").View} View */

const SVG = "http://www.w3.org/2000/svg";

/** @param {string} tag @param {Record<string, string | number>} attrs */
function el(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** Save `blob` as `name` (a link clicked, then let go). @param {Blob} blob @param {string} name */
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A file name from the metric: letters, digits, dots and dashes. @param {View} v @param {string} ext */
function fileName(v, ext) {
  const metric = String(v.model.get("metric") || "flame").replace(/[^\w.-]+/g, "_").replace(/^_+|_+$/g, "");
  return `flame_${metric}.${ext}`;
}

/** The chart as an SVG document's text. @param {View} v @returns {string} */
export function svgText(v) {
  const f = v.frames;
  const width = canvasWidth(v);
  const rows = f ? Math.max(f.depth, 1) : 1;
  const top = 24;
  const svg = el("svg", { xmlns: SVG, width, height: rows * ROW + top + 8, "font-family": "system-ui, sans-serif", "font-size": 11.5 });
  const title = el("text", { x: 0, y: 15, "font-weight": "bold" });
  title.textContent = String(v.model.get("title") || "");
  svg.append(title);
  const ctx = /** @type {CanvasRenderingContext2D} */ (v.canvas.getContext("2d"));
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

/** Download the chart as SVG. @param {View} v */
export function downloadSvg(v) {
  save(new Blob([svgText(v)], { type: "image/svg+xml" }), fileName(v, "svg"));
}

/** The tallest canvas a browser draws, in device pixels. */
const MAX_CANVAS = 32767;

/** Download the chart as PNG: every row (as many as a canvas can hold), at the screen's
 * pixel density. @param {View} v */
export function downloadPng(v) {
  const f = v.frames;
  const width = canvasWidth(v);
  const dpr = window.devicePixelRatio || 1;
  const rows = Math.min(f ? Math.max(f.depth, 1) : 1, Math.floor(MAX_CANVAS / (ROW * dpr)));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(rows * ROW * dpr);
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (f) drawRows(ctx, v, width, 0, rows);
  canvas.toBlob((blob) => { if (blob) save(blob, fileName(v, "png")); }, "image/png");
}
