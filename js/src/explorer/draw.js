// CalltreeExplorer front end, drawing: the column layout, the header, the rows (names, bars,
// percentages, glyphs), the legend, the status and details lines, and the tooltips.
import { row2d } from "../lib/columns.js";
import { h } from "../lib/dom.js";
import { BARE_PREFIXES, exact, percent, precise } from "../lib/format.js";
import { drawDistribution, PALETTE, stripX } from "../lib/glyph.js";
import { cellText, exactWithUnit, ratio } from "./format.js";
import {
  CURRENT, EXPANDED, INDENT, MATCH, PARENT, PLAIN_KINDS, ROW_H, SELECTED,
} from "./state.js";

/** @typedef {import("./state.js").Ctx} Ctx */
/** @typedef {import("./state.js").ColumnSpec} ColumnSpec */

/**
 * A metric cell and its parts: the bar in its own track left of the number (a bar never
 * runs through the digits), the value, the share.
 * @typedef {HTMLDivElement & { _bar: HTMLDivElement, _val: HTMLSpanElement,
 *   _pct: HTMLSpanElement, _index: number }} MetricCell
 */
/** @typedef {HTMLDivElement & { _canvas: HTMLCanvasElement }} GlyphCell */
/**
 * A pooled row element and what it shows now (`_vid` -1: a placeholder).
 * @typedef {HTMLDivElement & { _toggle: HTMLSpanElement, _name: HTMLSpanElement,
 *   _nameCell: HTMLDivElement, _metrics: MetricCell[], _glyph: GlyphCell | null,
 *   _vid: number, _parent: boolean, _row: number, _k: number }} RowEl
 */

/**
 * Grid columns: the name, each metric (wide enough for its label on two lines), the glyph.
 * @param {Ctx} ctx
 */
export function layout(ctx) {
  const widths = ctx.state.columns().map((c) =>
    c.kind === "ratio" ? "110px" : `${Math.round(Math.min(240, Math.max(140, 7 * c.label.length + 24)))}px`);
  const tpl = ["minmax(240px, 1fr)", ...widths];
  if (ctx.state.hasGlyph()) tpl.push("150px");
  ctx.els.root.style.setProperty("--pw-cols", tpl.join(" "));
  // the narrowest the columns fit in: below it the table scrolls sideways (.pw-table)
  const least = tpl.reduce((sum, w) => sum + parseInt(w.replace(/^minmax\(/, ""), 10), 0);
  ctx.els.root.style.setProperty("--pw-min", `${least}px`);
  fitHeight(ctx);
}

/**
 * As tall as the rows need, at most `height` pixels (then it scrolls).
 * @param {Ctx} ctx
 */
export function fitHeight(ctx) {
  const need = Math.max(3, ctx.state.total) * ROW_H + 2;
  ctx.els.body.style.height = `${Math.min(ctx.model.get("height"), need)}px`;
}

/**
 * The unit a column's cells are written in: its format's step ("ms" for a column of
 * seconds written in ms), so the header never says "s" above "124.0 ms"; a bare SI prefix
 * is written onto each number ("1.20M"), so the header keeps the column's own unit.
 * @param {ColumnSpec} col
 */
export function shownUnit(col) {
  const step = col.format?.unit;
  if (step === undefined) return col.unit || "";
  return BARE_PREFIXES.includes(step) ? col.unit || "" : step;
}

/**
 * What a column's numbers are: its unit and what its percentages are of.
 * @param {ColumnSpec} col
 */
function columnNote(col) {
  if (col.kind === "ratio") return "max / mean";
  const unit = shownUnit(col);
  if (col.kind === "excess") return unit ? `${unit} · max − mean` : "max − mean";
  const parts = [];
  if (unit) parts.push(unit);
  // a share only where the cells can show one: a total of 0 or unknown is no whole
  const whole = Number.isFinite(Number(col.total)) && Number(col.total) !== 0;
  if (col.share && col.kind !== "diff" && whole) parts.push(col.share);
  return parts.join(" · ");
}

/**
 * The header: one sortable cell per column (label, unit, what a percentage is of).
 * @param {Ctx} ctx
 */
export function drawHead(ctx) {
  const { els, model, state } = ctx;
  els.head.replaceChildren();
  const sortKey = model.get("sort_column");
  const desc = model.get("sort_descending");
  els.head.append(h("div", { cls: "pw-hcell pw-hname", text: "Node", attrs: { role: "columnheader" } }));
  for (const col of state.columns()) {
    const sorted = col.key === sortKey;
    const note = columnNote(col);
    const cell = h("div", {
      cls: `pw-hcell pw-hmetric${sorted ? " pw-sorted" : ""}`,
      attrs: {
        role: "columnheader",
        "data-col": col.key,
        "aria-sort": sorted ? (desc ? "descending" : "ascending") : "none",
      },
      title: `${col.label}${note ? ` (${note})` : ""}: click to sort children by it`,
    });
    const label = h("span", { cls: "pw-hlabel", text: col.label });
    if (sorted) label.append(h("span", { cls: "pw-arrow", text: desc ? " ▼" : " ▲" }));
    cell.append(label);
    if (note) cell.append(h("span", { cls: "pw-hnote", text: note }));
    cell.addEventListener("click", () =>
      ctx.act("sort", { column: col.key, descending: sorted ? !desc : true }));
    els.head.append(cell);
  }
  if (state.hasGlyph()) {
    const g = state.glyph();
    const what = g.what || "profiles";
    els.head.append(h("div", {
      cls: "pw-hcell pw-hglyph",
      text: `${g.metric} across ${(g.profiles || []).length} ${what}`,
      attrs: { role: "columnheader" },
      title: `box: quartiles and median; whiskers: min and max; one point per ${what.replace(/s$/, "")}`,
    }));
  }
}

/**
 * The color key: compare mode's signs, or the ensemble's metadata categories.
 * @param {Ctx} ctx
 */
export function drawLegend(ctx) {
  const { els, state } = ctx;
  const legend = els.legend;
  legend.replaceChildren();
  const g = state.glyph();
  if (state.mode() === "compare") {
    legend.append(
      h("span", { cls: "pw-key pw-key-pos" }), h("span", { text: " a slower than b   " }),
      h("span", { cls: "pw-key pw-key-neg" }), h("span", { text: " a faster than b" }),
    );
  } else if (state.hasGlyph() && g.categories && g.categories.length) {
    legend.append(h("span", { text: `${g.color_by}: ` }));
    g.categories.forEach((name, i) => {
      const key = h("span", { cls: "pw-key" });
      key.style.background = PALETTE[i % PALETTE.length];
      legend.append(key, h("span", { text: ` ${name}   ` }));
    });
  }
  legend.hidden = !legend.childNodes.length;
}

/**
 * The status line (rows, nodes, selection, sort) and the search count.
 * @param {Ctx} ctx
 */
export function drawStatus(ctx) {
  const { els, model, state } = ctx;
  const s = model.get("search_state") || {};
  els.searchCount.textContent = s.pattern ? `${s.count ? s.current : 0} / ${s.count}` : "";
  const parts = [
    `${state.total.toLocaleString()} rows shown`,
    `${Number(model.get("node_count")).toLocaleString()} nodes`,
  ];
  const sel = model.get("selected_count");
  if (sel) parts.push(`${sel} selected`);
  const sortCol = state.columns().find((c) => c.key === model.get("sort_column"));
  if (sortCol) parts.push(`children sorted by ${sortCol.label} ${model.get("sort_descending") ? "↓" : "↑"}`);
  els.status.replaceChildren(parts.join(" · "));
  // what the last action could not do in full ("Expand all" stopped by its row budget)
  const notice = model.get("notice");
  if (notice) els.status.append(h("span", { cls: "pw-notice", text: notice }));
}

/**
 * What Python says about the selected row (its top ranks), under the table.
 * @param {Ctx} ctx
 */
export function drawDetails(ctx) {
  const d = /** @type {import("./state.js").Details | null} */ (ctx.model.get("details"));
  const box = ctx.els.details;
  box.replaceChildren();
  box.hidden = !(d && d.lines && d.lines.length);
  if (box.hidden || !d) return;
  box.append(h("div", { cls: "pw-details-title", text: d.title }));
  for (const line of d.lines) box.append(h("div", { cls: "pw-details-line", text: line }));
}

// ---------------------------------------------------------------- rows

/**
 * A new pooled row element (the handlers act on whatever row it shows when clicked).
 * @param {Ctx} ctx
 * @returns {RowEl}
 */
export function makeRow(ctx) {
  const row = /** @type {RowEl} */ (h("div", { cls: "pw-row", attrs: { role: "row" } }));
  const toggle = h("span", { cls: "pw-toggle", attrs: { "aria-hidden": "true" } });
  const name = h("span", { cls: "pw-name" });
  const nameCell = h("div", { cls: "pw-cell pw-name-cell", attrs: { role: "gridcell" } }, [toggle, name]);
  row.append(nameCell);
  Object.assign(row, {
    _toggle: toggle, _name: name, _nameCell: nameCell, _metrics: [], _glyph: null,
    _vid: -1, _parent: false, _row: -1, _k: -1,
  });
  toggle.addEventListener("click", (ev) => {
    ev.stopPropagation();
    if (row._vid >= 0 && row._parent) ctx.act("toggle", { vid: row._vid });
  });
  row.addEventListener("click", (ev) => {
    if (row._vid < 0) return;
    ctx.state.cursor = row._row;
    ctx.act("select", { vid: row._vid, add: ev.ctrlKey || ev.metaKey });
  });
  row.addEventListener("dblclick", () => {
    if (row._vid >= 0 && row._parent) ctx.act("toggle", { vid: row._vid });
  });
  return row;
}

/**
 * Give a row one cell per shown column (and the glyph cell last, when there is one).
 * @param {Ctx} ctx
 * @param {RowEl} row
 */
function ensureCells(ctx, row) {
  const cols = ctx.state.columns();
  while (row._metrics.length < cols.length) {
    const bar = h("div", { cls: "pw-bar" });
    const track = h("div", { cls: "pw-track" }, [bar]);
    const val = h("span", { cls: "pw-val" });
    const pct = h("span", { cls: "pw-pct" });
    const cell = /** @type {MetricCell} */ (
      h("div", { cls: "pw-cell pw-metric", attrs: { role: "gridcell" } }, [track, val, pct]));
    Object.assign(cell, { _bar: bar, _val: val, _pct: pct, _index: row._metrics.length });
    cell.addEventListener("mouseenter", () => showTip(ctx, row, cell));
    cell.addEventListener("mouseleave", () => hideTip(ctx));
    row._metrics.push(cell);
    row.append(cell);
  }
  while (row._metrics.length > cols.length) row._metrics.pop()?.remove();
  const glyph = ctx.state.hasGlyph();
  if (glyph && !row._glyph) {
    const canvas = h("canvas", { cls: "pw-canvas" });
    const cell = /** @type {GlyphCell} */ (
      h("div", { cls: "pw-cell pw-glyph", attrs: { role: "gridcell" } }, [canvas]));
    cell._canvas = canvas;
    cell.addEventListener("mousemove", (ev) => showGlyphTip(ctx, row, ev));
    cell.addEventListener("mouseleave", () => hideTip(ctx));
    row._glyph = cell;
    row.append(cell);
  } else if (!glyph && row._glyph) {
    row._glyph.remove();
    row._glyph = null;
  } else if (row._glyph) {
    row.append(row._glyph); // keep it last
  }
}

/**
 * Show row `r` of the table in a pooled element (a placeholder until its rows arrive).
 * @param {Ctx} ctx
 * @param {RowEl} row
 * @param {number} r
 */
export function fillRow(ctx, row, r) {
  const { state } = ctx;
  ensureCells(ctx, row);
  row.dataset.row = String(r);
  const k = state.indexOf(r);
  const c = state.cols;
  if (!c || k < 0) {
    // nothing of the row drawn here before stays
    row._vid = -1;
    row._parent = false;
    for (const a of ["data-node", "aria-level", "aria-expanded", "aria-selected"]) row.removeAttribute(a);
    row.classList.remove("pw-selected", "pw-match", "pw-current", "pw-cursor");
    if (row._glyph) {
      const cv = row._glyph._canvas;
      cv.getContext("2d")?.clearRect(0, 0, cv.width, cv.height);
    }
    row.classList.add("pw-loading");
    row._name.textContent = "…";
    row._toggle.textContent = "";
    for (const cell of row._metrics) {
      cell._val.textContent = "";
      cell._pct.textContent = "";
      cell._bar.style.width = "0";
    }
    ctx.wantRows();
    return;
  }
  row.classList.remove("pw-loading");
  const flags = c.flags[k];
  row._vid = c.vid[k];
  row._row = r;
  row._k = k;
  row._parent = (flags & PARENT) !== 0;
  row.dataset.node = String(c.node[k]);
  row.setAttribute("aria-level", String(c.depth[k] + 1));
  if (row._parent) row.setAttribute("aria-expanded", String((flags & EXPANDED) !== 0));
  else row.removeAttribute("aria-expanded");
  row.setAttribute("aria-selected", String((flags & SELECTED) !== 0));
  row.classList.toggle("pw-selected", (flags & SELECTED) !== 0);
  row.classList.toggle("pw-match", (flags & MATCH) !== 0);
  row.classList.toggle("pw-current", (flags & CURRENT) !== 0);
  row.classList.toggle("pw-cursor", r === state.cursor);
  row._toggle.textContent = row._parent ? ((flags & EXPANDED) ? "▾" : "▸") : "";
  row._nameCell.style.paddingLeft = `${6 + c.depth[k] * INDENT}px`;
  const name = c.name[k];
  row._name.textContent = name;
  row._nameCell.title = row._parent ? `${name}  (${c.nchild[k]} children)` : name;
  const cols = state.columns();
  for (let i = 0; i < cols.length; i++) fillMetric(row._metrics[i], cols[i], c[`c${i}`][k]);
  if (row._glyph) {
    const n = c.strip.shape[1];
    drawDistribution(
      row._glyph._canvas,
      row2d(c.quartiles, k),
      c.strip.subarray(k * n, (k + 1) * n),
      state.glyph().codes || [],
    );
  }
}

/**
 * One metric cell: value (with its unit), share of the column's total, bar.
 * @param {MetricCell} cell
 * @param {ColumnSpec} col
 * @param {any} v
 */
function fillMetric(cell, col, v) {
  if (PLAIN_KINDS.includes(col.kind)) {
    // an imbalance, or a column set with set_extra_columns: no bar, no share
    cell._val.textContent = col.kind === "text" ? String(v)
      : col.kind === "ratio" ? ratio(v) : cellText(v, col);
    cell._pct.textContent = "";
    cell._pct.hidden = true;
    cell._bar.className = "pw-bar";
    cell._bar.style.width = "0";
    return;
  }
  cell._val.textContent = cellText(v, col);
  cell._pct.textContent = col.kind === "diff" ? "" : percent(v, col.total);
  cell._pct.hidden = col.kind === "diff"; // a difference has no share: its number ends the cell
  const x = Number(v);
  const frac = col.total && Number.isFinite(x) ? Math.min(1, Math.abs(x) / col.total) : 0;
  if (col.kind === "diff") {
    cell._bar.className = `pw-bar pw-diff ${x > 0 ? "pw-pos" : x < 0 ? "pw-neg" : ""}`;
    // a bar under about a pixel would only draw a hairline
    const half = frac * 50 < 0.5 ? 0 : frac * 50;
    cell._bar.style.width = `${half}%`;
    cell._bar.style.left = x < 0 ? `${50 - half}%` : "50%";
  } else {
    cell._bar.className = `pw-bar pw-${col.kind}`;
    cell._bar.style.left = "0";
    cell._bar.style.width = `${frac * 100}%`;
  }
}

// ---------------------------------------------------------------- tooltips

/**
 * Show the tooltip below `anchor`, kept inside the widget on the right.
 * @param {Ctx} ctx
 * @param {HTMLElement} anchor
 */
function placeTip(ctx, anchor) {
  const { root, tooltip } = ctx.els;
  const box = anchor.getBoundingClientRect();
  const rootBox = root.getBoundingClientRect();
  tooltip.hidden = false;
  const left = Math.min(box.left - rootBox.left, rootBox.width - tooltip.offsetWidth - 4);
  tooltip.style.left = `${Math.max(0, left)}px`;
  tooltip.style.top = `${box.bottom - rootBox.top + 2}px`;
}

/**
 * @param {Ctx} ctx
 * @param {RowEl} row
 * @param {MetricCell} cell
 */
function showTip(ctx, row, cell) {
  const c = ctx.state.cols;
  if (row._vid < 0 || !c) return;
  const col = ctx.state.columns()[cell._index];
  const v = c[`c${cell._index}`][row._k];
  const plain = PLAIN_KINDS.includes(col.kind) || col.kind === "diff";
  const lines = [
    `${col.label}: ${col.kind === "ratio" ? `${precise(v)} (max / mean)`
      : col.kind === "excess" ? `${exactWithUnit(v, col.unit)} (max − mean)` : exactWithUnit(v, col.unit)}`,
    // "48% of the whole run: 0.19 s" (the header's note reads "% of the whole run"); none
    // where the cell shows none: a total of 0 or unknown is no whole to take a share of
    plain || !percent(v, col.total) ? "" : `${percent(v, col.total)} ${(col.share || "of the total").replace(/^% /, "")}: ${exactWithUnit(col.total, col.unit)}`,
    `node ${row.dataset.node}: ${c.name[row._k]}`,
  ].filter(Boolean);
  const tip = ctx.els.tooltip;
  tip.replaceChildren(...lines.map((t) => h("div", { text: t })));
  tip.dataset.value = exact(v);
  placeTip(ctx, cell);
}

/**
 * The glyph's tooltip: quartiles, and the profile or rank under the pointer (else the
 * extremes).
 * @param {Ctx} ctx
 * @param {RowEl} row
 * @param {MouseEvent} ev
 */
function showGlyphTip(ctx, row, ev) {
  const c = ctx.state.cols;
  const g = ctx.state.glyph();
  if (row._vid < 0 || !c || !row._glyph) return;
  const labels = g.profiles || [];
  const what = g.what || "profiles";
  const unit = g.unit || "";
  const [lo, q1, med, q3, hi] = row2d(c.quartiles, row._k);
  const n = c.strip.shape[1];
  const pos = c.strip.subarray(row._k * n, (row._k + 1) * n);
  const lines = [
    `${g.metric} across ${labels.length} ${what}`,
    `min ${exactWithUnit(lo, unit)} · q1 ${precise(q1)} · median ${precise(med)}`,
    `q3 ${precise(q3)} · max ${exactWithUnit(hi, unit)}`,
  ];
  const canvas = row._glyph._canvas;
  const near = pointAt(pos, ev.clientX - canvas.getBoundingClientRect().left, canvas.clientWidth || 120);
  if (near.length) lines.push(`here: ${names(labels, near)}`);
  lines.push(...extremes(labels, pos));
  const tip = ctx.els.tooltip;
  tip.replaceChildren(...lines.map((t) => h("div", { text: t })));
  tip.dataset.value = exact(med);
  tip.dataset.point = near.length ? labels[near[0]] : "";
  placeTip(ctx, row._glyph);
}

/**
 * The points within 3 pixels of `x` on a glyph `width` wide (drawDistribution's scale).
 * @param {ArrayLike<number>} pos
 * @param {number} x
 * @param {number} width
 * @returns {number[]}
 */
function pointAt(pos, x, width) {
  const at = [];
  for (let i = 0; i < pos.length; i++) {
    if (pos[i] === 255) continue;
    if (Math.abs(stripX(pos[i], width) - x) <= 3) at.push(i);
  }
  return at;
}

/**
 * @param {string[]} labels
 * @param {number[]} which
 */
function names(labels, which) {
  const shown = which.slice(0, 3).map((i) => labels[i]).join(", ");
  return shown + (which.length > 3 ? ` +${which.length - 3}` : "");
}

/**
 * The profiles or ranks (by label) at the low and high end of a row's glyph: the strip's
 * positions (0..254, 255 = no value), so points within 1/254 of the range tie.
 * @param {string[]} labels
 * @param {ArrayLike<number>} pos
 * @returns {string[]}
 */
function extremes(labels, pos) {
  let lo = 255, hi = -1;
  for (let i = 0; i < pos.length; i++) {
    const p = pos[i];
    if (p !== 255) { lo = Math.min(lo, p); hi = Math.max(hi, p); }
  }
  if (hi < 0 || lo === hi) return [];
  /** @param {number} v */
  const at = (v) => {
    /** @type {number[]} */
    const which = [];
    for (let i = 0; i < pos.length; i++) if (pos[i] === v) which.push(i);
    return names(labels, which);
  };
  return [`lowest: ${at(lo)}`, `highest: ${at(hi)}`];
}

/** @param {Ctx} ctx */
export function hideTip(ctx) {
  ctx.els.tooltip.hidden = true;
}
