// MergePanel's correlation matrix (perfweave/widgets/_matrix.py): an HTML grid with
// abbreviated HEM names (the full name on hover), cells on a diverging red-white-blue scale
// whose value text is black or white by the cell's lightness, a click that picks a pair, and
// one "not available: why" line instead of a grid when there is no matrix. Names are text.
import { errorBanner } from "../lib/banner.js";
import { bytesOf } from "../lib/columns.js";
import { h } from "../lib/dom.js";

/** @typedef {import("../lib/types.js").Model} Model */

/** d3's RdBu (bqplot's "RdBu"): -top red, 0 near white, +top blue */
const RDBU = [
  "#67001f", "#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7",
  "#d1e5f0", "#92c5de", "#4393c3", "#2166ac", "#053061",
];
/** cells at least this wide show their value */
const VALUE_CELL = 30;
/** the grid's side in pixels (cells shrink to fit, within MIN_CELL..MAX_CELL) */
const SIDE = 210, MIN_CELL = 12, MAX_CELL = 36;

/** @param {string} hex @returns {[number, number, number]} */
function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * The color of `v` on -top..top, and whether white text reads on it.
 * @param {number} v @param {number} top
 * @returns {{ bg: string, light: boolean }}
 */
export function cellColor(v, top) {
  if (!Number.isFinite(v)) return { bg: "#d0d0d0", light: false };
  const t = Math.min(1, Math.max(0, (v / (top || 1) + 1) / 2)) * (RDBU.length - 1);
  const k = Math.min(RDBU.length - 2, Math.floor(t));
  const a = rgb(RDBU[k]), b = rgb(RDBU[k + 1]), f = t - k;
  const c = a.map((x, i) => Math.round(x + (b[i] - x) * f));
  // relative luminance (sRGB), then the text (white or black) of the higher contrast ratio:
  // with pure black and white one of them always reaches 4.5:1 (WCAG AA)
  const lin = c.map((x) => { const s = x / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
  const lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  const onWhite = 1.05 / (lum + 0.05), onBlack = (lum + 0.05) / 0.05;
  return { bg: `rgb(${c[0]},${c[1]},${c[2]})`, light: onWhite > onBlack };
}

/** @param {DataView | ArrayBuffer | null} data @returns {Float64Array} */
function floats(data) {
  if (!data) return new Float64Array(0);
  return new Float64Array(bytesOf(data instanceof DataView ? data : new DataView(data)));
}

/** @param {{ model: Model, el: HTMLElement }} view */
function render({ model, el }) {
  const title = h("div", { cls: "pw-matrix-title" });
  const note = h("div", { cls: "pw-matrix-note" });
  const grid = h("div", { cls: "pw-matrix-grid", attrs: { role: "grid" } });
  const root = h("div", { cls: "pw-matrix" }, [errorBanner(model), title, note, grid]);
  el.append(root);

  function draw() {
    /** @type {string[]} */
    const names = model.get("names") || [];
    /** @type {string[]} */
    const labels = model.get("labels") || [];
    const values = floats(model.get("values"));
    const top = model.get("top") || 1;
    const n = names.length;
    title.textContent = model.get("title") || "";
    note.textContent = model.get("note") || "";
    note.hidden = !note.textContent;
    grid.hidden = !n || n * n !== values.length;
    root.dataset.n = String(n);
    if (grid.hidden) { grid.replaceChildren(); return; }
    const size = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(SIDE / n)));
    const showValues = size >= VALUE_CELL;
    grid.style.gridTemplateColumns = `max-content repeat(${n}, ${size}px)`;
    grid.style.setProperty("--pw-cell", `${size}px`);
    const cells = [h("div", { cls: "pw-matrix-corner" })];
    for (let j = 0; j < n; j++) {
      cells.push(h("div", { cls: "pw-matrix-col", text: labels[j] || names[j], title: names[j] }));
    }
    const sel = model.get("selected") || [];
    for (let i = 0; i < n; i++) {
      cells.push(h("div", { cls: "pw-matrix-row", text: labels[i] || names[i], title: names[i] }));
      for (let j = 0; j < n; j++) {
        const v = values[i * n + j];
        const { bg, light } = cellColor(v, top);
        // no "-0.00": a value that rounds to zero reads 0.00
        const shown = Number.isFinite(v) ? (Math.abs(v) < 0.005 ? 0 : v).toFixed(2) : "–";
        const cell = h("div", {
          cls: "pw-matrix-cell" + (light ? " pw-light" : ""),
          text: showValues ? shown : "",
          title: `${names[i]} × ${names[j]}: ${Number.isFinite(v) ? v.toFixed(3) : "no value"}`,
          attrs: { role: "gridcell", "data-row": String(i), "data-col": String(j) },
        });
        cell.style.background = bg;
        if (sel.length === 2 && sel[0] === i && sel[1] === j) cell.classList.add("pw-picked");
        cells.push(cell);
      }
    }
    grid.replaceChildren(...cells);
  }

  /** @param {MouseEvent} ev */
  const onClick = (ev) => {
    const target = /** @type {HTMLElement | null} */ (ev.target);
    const cell = target && target.closest ? /** @type {HTMLElement | null} */ (target.closest(".pw-matrix-cell")) : null;
    if (!cell) return;
    model.set("selected", [Number(cell.dataset.row), Number(cell.dataset.col)]);
    model.save_changes();
  };
  grid.addEventListener("click", onClick);
  const events = ["change:names", "change:values", "change:top", "change:title", "change:note", "change:selected"];
  for (const e of events) model.on(e, draw);
  draw();
  return () => {
    for (const e of events) model.off(e, draw);
    grid.removeEventListener("click", onClick);
  };
}

export default { render };
