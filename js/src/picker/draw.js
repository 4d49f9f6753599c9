// Drawing a ClassPicker table: the grid template, the two header rows and the cells of a
// row. Every name is set as text (textContent), never as markup.
import { h } from "../lib/dom.js";
import { grouped } from "../lib/format.js";
import { keyLabels } from "./state.js";

/** @typedef {import("./protocol.js").WidgetModel} Model */
/** @typedef {import("./state.js").RowWindow} RowWindow */

export const ROW_H = 22;
export const SAMPLES_W = 76, PCT_W = 58;

/** Pixels the key columns need at least. @param {number} nk */
export function keysWidth(nk) {
  return 160 + 110 * Math.max(0, nk - 1);
}

/** A percentage with two decimals ("" when missing). @param {number} v */
export function pct(v) {
  return Number.isFinite(v) ? v.toFixed(2) : "";
}

/**
 * A class name as text that may wrap after its ":" (EVENT:COUNT), never inside a number
 * (a <wbr> between text nodes: nothing added to the text itself).
 * @param {string} name @returns {Node[]}
 */
function breakable(name) {
  /** @type {Node[]} */
  const out = [];
  name.split(":").forEach((part, k, all) => {
    out.push(document.createTextNode(k < all.length - 1 ? `${part}:` : part));
    if (k < all.length - 1) out.push(document.createElement("wbr"));
  });
  return out;
}

/**
 * Show row `row` in the row element `el` (blank while its window has not arrived).
 * @param {HTMLElement} el @param {number} row @param {Model} model @param {RowWindow | null} win
 * @returns {boolean} whether the row's values were held
 */
export function fillRow(el, row, model, win) {
  const nk = win ? win.keys.length : keyLabels(model).length;
  const nc = win ? win.classes.length : 0;
  const need = nk + 2 * nc;
  while (el.childElementCount < need) el.append(h("div", { cls: "pw-pt-cell" }));
  while (el.childElementCount > need && el.lastChild) el.lastChild.remove();
  const k = win ? row - win.start : -1;
  const have = Boolean(win && k >= 0 && k < win.n);
  const cells = /** @type {HTMLCollectionOf<HTMLElement>} */ (el.children);
  for (let i = 0; i < nk; i++) {
    const name = have && win ? win.keys[i][k] : "";
    cells[i].textContent = name;
    cells[i].title = name;
    cells[i].className = "pw-pt-cell pw-pt-key";
  }
  for (let j = 0; j < nc; j++) {
    const s = cells[nk + 2 * j], p = cells[nk + 2 * j + 1];
    s.className = "pw-pt-cell pw-pt-num";
    p.className = "pw-pt-cell pw-pt-num pw-pt-pct";
    s.textContent = have && win ? grouped(win.samples[k * nc + j]) : ""; // counts as counts: 5,601
    p.textContent = have && win ? pct(Number(win.pct[k * nc + j])) : "";
  }
  el.classList.toggle("pw-pt-odd", row % 2 === 1);
  el.dataset.row = String(row);
  return have;
}

/**
 * Size the columns: names and class columns share the spare width in proportion to the
 * longest name of each key column and to each class name; below the minimum width the
 * table scrolls sideways instead of squeezing them.
 * @param {{ root: HTMLElement, head: HTMLElement, body: HTMLElement }} parts
 * @param {Model} model @param {RowWindow | null} win
 */
export function layout({ root, head, body }, model, win) {
  const nk = keyLabels(model).length;
  const classes = win ? win.classes : [];
  /** @type {string[]} */
  const tpl = [];
  /** @type {number[]} */
  const chars = model.get("key_chars") || [];
  for (let i = 0; i < nk; i++) {
    const fr = Math.min(60, Math.max(8, chars[i] || 0));
    tpl.push(`minmax(${i === nk - 1 ? 160 : 110}px, ${fr}fr)`);
  }
  for (const c of classes) {
    const fr = Math.min(30, Math.max(6, c.length - 8));
    tpl.push(`minmax(${SAMPLES_W}px, ${fr}fr)`, `${PCT_W}px`);
  }
  root.style.setProperty("--pw-pt-cols", tpl.join(" "));
  const min = `${keysWidth(nk) + (SAMPLES_W + PCT_W) * classes.length}px`;
  head.style.minWidth = min;
  body.style.minWidth = min;
  const total = Number(model.get("row_count"));
  body.style.height = `${Math.min(Number(model.get("height")), Math.max(2, total) * ROW_H + 2)}px`;
}

/**
 * The two header rows: key names and class names, then "samples" and "%" under each class.
 * A click on a sortable header calls `onSort(column)`.
 * @param {HTMLElement} head @param {Model} model @param {RowWindow | null} win
 * @param {(column: string) => void} onSort
 */
export function drawHead(head, model, win, onSort) {
  const keys = keyLabels(model);
  const sortKey = model.get("sort_column");
  const arrow = model.get("sort_descending") ? " ▼" : " ▲";
  /** @param {HTMLElement} cell @param {string} column */
  const sortable = (cell, column) => {
    cell.classList.add("pw-pt-sortable");
    cell.dataset.column = column;
    cell.setAttribute("role", "columnheader");
    if (column === sortKey) {
      cell.textContent += arrow;
      cell.classList.add("pw-pt-sorted");
    }
    cell.addEventListener("click", () => onSort(column));
    return cell;
  };
  /** @type {HTMLElement[]} */
  const top = keys.map((k) => sortable(h("div", { cls: "pw-pt-hcell pw-pt-hkey", text: k, title: k }), k));
  const classes = win ? win.classes : [];
  for (const c of classes) {
    top.push(h("div", { cls: "pw-pt-hcell pw-pt-hclass", title: c }, breakable(c)));
  }
  /** @type {HTMLElement[]} */
  const sub = keys.map(() => h("div", { cls: "pw-pt-hcell pw-pt-hsub" }));
  const [va, vb] = model.get("value_labels") || ["samples", "%"];
  for (const c of classes) {
    for (const v of [va, vb]) {
      const cell = h("div", { cls: "pw-pt-hcell pw-pt-hsub pw-pt-num", text: v, title: `sort by ${c} ${v}` });
      sub.push(sortable(cell, `${c} ${v}`));
    }
  }
  head.replaceChildren(h("div", { cls: "pw-pt-hrow" }, top), h("div", { cls: "pw-pt-hrow" }, sub));
}
