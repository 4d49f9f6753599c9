// Drawing one matrix: the labelled grid of colored cells, or the "not available" line.
// Names reach the page as text only.
import { h } from "../lib/dom.js";
import { cellColor } from "./colors.js";

/** cells at least this wide show their value */
const VALUE_CELL = 30;
/** the grid's side in pixels (cells shrink to fit, within MIN_CELL..MAX_CELL) */
const SIDE = 210, MIN_CELL = 12, MAX_CELL = 36;

/**
 * @typedef {Object} MatrixView
 * @property {HTMLElement} root
 * @property {HTMLElement} title
 * @property {HTMLElement} note
 * @property {HTMLElement} grid
 */

/**
 * A value as its cell shows it: two decimals, no "-0.00", a dash for no value.
 * @param {number} v @returns {string}
 */
export function cellText(v) {
  return Number.isFinite(v) ? (Math.abs(v) < 0.005 ? 0 : v).toFixed(2) : "–";
}

/**
 * Draw `s` into the view's elements.
 * @param {MatrixView} view
 * @param {import("./state.js").MatrixState} s
 */
export function draw(view, s) {
  const { names, labels, values, top, selected } = s;
  const n = names.length;
  view.title.textContent = s.title;
  view.note.textContent = s.note;
  view.note.hidden = !s.note;
  view.grid.hidden = !n || n * n !== values.length;
  view.root.dataset.n = String(n);
  if (view.grid.hidden) { view.grid.replaceChildren(); return; }
  const size = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(SIDE / n)));
  const showValues = size >= VALUE_CELL;
  view.grid.style.gridTemplateColumns = `max-content repeat(${n}, ${size}px)`;
  view.grid.style.setProperty("--pw-cell", `${size}px`);
  const cells = [h("div", { cls: "pw-matrix-corner" })];
  for (let j = 0; j < n; j++) {
    cells.push(h("div", { cls: "pw-matrix-col", text: labels[j] || names[j], title: names[j] }));
  }
  for (let i = 0; i < n; i++) {
    cells.push(h("div", { cls: "pw-matrix-row", text: labels[i] || names[i], title: names[i] }));
    for (let j = 0; j < n; j++) {
      const v = values[i * n + j];
      const { bg, light } = cellColor(v, top);
      const cell = h("div", {
        cls: "pw-matrix-cell" + (light ? " pw-light" : ""),
        text: showValues ? cellText(v) : "",
        title: `${names[i]} × ${names[j]}: ${Number.isFinite(v) ? v.toFixed(3) : "no value"}`,
        attrs: { role: "gridcell", "data-row": String(i), "data-col": String(j) },
      });
      cell.style.background = bg;
      if (selected.length === 2 && selected[0] === i && selected[1] === j) cell.classList.add("pw-picked");
      cells.push(cell);
    }
  }
  view.grid.replaceChildren(...cells);
}
