// Mouse on the canvas: hover reads the exact block value locally, a drag zooms, a click
// selects a block or a row, a double-click zooms out.
import { h } from "../lib/dom.js";
import { compact, exact, grouped, plural } from "../lib/format.js";
import { AXIS, MARG } from "./draw.js";
import { colRange, rowRange, words } from "./state.js";

/** @typedef {import("./state.js").View} View */
/** @typedef {{area: string, i: number, j: number, mx: number, my: number, t?: number}} Hit */

/**
 * What is under the mouse: a cell, a row label, a row or a column marginal.
 * @param {View} v
 * @param {MouseEvent} ev
 * @returns {Hit | null}
 */
function blockAt(v, ev) {
  const g = v.geom;
  if (!g || !v.matrix || g.cw === undefined || g.ch === undefined) return null;
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

/** Row block `i` in words: with rank groups, the group numbers and then their ranks.
 * @param {View} v @param {number} i */
function rowWho(v, i) {
  const matrix = /** @type {import("./state.js").Matrix} */ (v.matrix);
  const ranks = matrix.cols.row_labels[i];
  if (v.model.get("group_by") !== "rows") return ranks;
  const groups = rowRange(matrix, i);
  return `${groups.includes("-") ? "groups" : "group"} ${groups}, ranks ${ranks}`;
}

/** The tooltip's lines for a hit. @param {View} v @param {Hit} b */
function tooltipLines(v, b) {
  const matrix = /** @type {import("./state.js").Matrix} */ (v.matrix);
  const { cols, nc } = matrix;
  const unit = v.model.get("unit");
  const w = words(v.model);
  if (b.area === "cell") {
    const value = cols.values[b.i * nc + b.j];
    const none = Number(value) === 0;
    return {
      value: exact(value),
      lines: [`${w.rows}: ${rowWho(v, b.i)}`, `${w.cols}: ${colRange(matrix, b.j)}`,
        none ? `no messages (0 ${unit})` : `${v.model.get("reduce")} ${unit}: ${grouped(value)}`],
    };
  }
  if (b.area === "row-label" || b.area === "row-marginal") {
    const n = Number(cols.row_ranks[b.i]);
    return {
      value: exact(cols.row_sum[b.i]),
      lines: [`${w.rows}: ${rowWho(v, b.i)} (${plural(n, "rank")})`,
        `sum ${unit}: ${grouped(cols.row_sum[b.i])}`,
        `mean per rank: ${compact(Number(cols.row_sum[b.i]) / n)}`,
        `max per rank: ${grouped(cols.row_max[b.i])}`],
    };
  }
  return {
    value: exact(cols.col_sum[b.j]),
    lines: [`${w.cols}: ${colRange(matrix, b.j)}`, `sum ${unit}: ${grouped(cols.col_sum[b.j])}`,
      `max per column: ${grouped(cols.col_max[b.j])}`],
  };
}

/** @param {View} v @param {Hit} b */
function showTooltip(v, b) {
  const { value, lines } = tooltipLines(v, b);
  const tip = v.tooltip;
  tip.dataset.value = value;
  tip.replaceChildren(...lines.map((l) => h("div", { text: l })));
  tip.hidden = false;
  tip.style.left = `${Math.min(b.mx + 14, ((v.geom && v.geom.width) || 600) - 220)}px`;
  tip.style.top = `${b.my + 14}px`;
  v.root.dataset.hoverMs = (performance.now() - (b.t || 0)).toFixed(2);
}

/**
 * Wire the canvas; returns what removes the window listener.
 * @param {View} v
 * @returns {() => void}
 */
export function listen(v) {
  const { canvas, rect, tooltip } = v;
  /** @type {{x0: number, y0: number, x1: number, y1: number, b: Hit} | null} */
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
        left: `${Math.min(drag.x0, x)}px`, top: `${Math.min(drag.y0, y)}px`,
        width: `${Math.abs(x - drag.x0)}px`, height: `${Math.abs(y - drag.y0)}px`,
      });
      rect.hidden = Math.abs(x - drag.x0) + Math.abs(y - drag.y0) < 5;
      tooltip.hidden = true;
      return;
    }
    const b = blockAt(v, ev);
    if (!b) { tooltip.hidden = true; return; }
    b.t = t;
    showTooltip(v, b);
  });
  canvas.addEventListener("mouseleave", () => { tooltip.hidden = true; });
  canvas.addEventListener("mousedown", (ev) => {
    const b = blockAt(v, ev);
    if (!b || b.area !== "cell" || ev.button !== 0) return;
    drag = { x0: b.mx, y0: b.my, x1: b.mx, y1: b.my, b };
    ev.preventDefault();
  });
  const clamp = (/** @type {number} */ k, /** @type {number} */ n) => Math.max(0, Math.min(n - 1, k));
  /** @param {MouseEvent} ev */
  const onUp = (ev) => {
    if (!drag || !v.matrix || !v.geom) return;
    const d = drag;
    const g = /** @type {Required<import("./state.js").Geometry>} */ (v.geom);
    drag = null;
    rect.hidden = true;
    if (Math.abs(d.x1 - d.x0) + Math.abs(d.y1 - d.y0) < 5) {
      if (ev.detail <= 1) v.act("select", { row_block: d.b.i, col_block: d.b.j });
      return;
    }
    const { cols, nr, nc } = v.matrix;
    const i0 = clamp(Math.floor((Math.min(d.y0, d.y1) - g.y) / g.ch), nr);
    const i1 = clamp(Math.floor((Math.max(d.y0, d.y1) - g.y - 0.001) / g.ch), nr);
    const j0 = clamp(Math.floor((Math.min(d.x0, d.x1) - g.x) / g.cw), nc);
    const j1 = clamp(Math.floor((Math.max(d.x0, d.x1) - g.x - 0.001) / g.cw), nc);
    v.act("zoom", {
      rows: [Number(cols.row_edges[i0]), Number(cols.row_edges[i1 + 1])],
      cols: [Number(cols.col_edges[j0]), Number(cols.col_edges[j1 + 1])],
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
