// What one matrix shows, read from its model (perfweave/widgets/_matrix.py).
import { bytesOf } from "../lib/columns.js";

/**
 * @typedef {Object} MatrixState
 * @property {string[]} names full HEM names (hover), row order = column order
 * @property {string[]} labels their abbreviations (the row and column labels)
 * @property {Float64Array} values n x n, row-major (NaN: no value)
 * @property {number} top the color scale runs -top..+top
 * @property {string} title
 * @property {string} note "" or "not available: why" (shown instead of the grid)
 * @property {number[]} selected the picked cell [row, column], or []
 */

/** @param {DataView | ArrayBuffer | null} data @returns {Float64Array} */
function floats(data) {
  if (!data) return new Float64Array(0);
  return new Float64Array(bytesOf(data instanceof DataView ? data : new DataView(data)));
}

/**
 * @param {import("./protocol.js").WidgetModel} model
 * @returns {MatrixState}
 */
export function readState(model) {
  return {
    names: model.get("names") || [],
    labels: model.get("labels") || [],
    values: floats(model.get("values")),
    top: model.get("top") || 1,
    title: model.get("title") || "",
    note: model.get("note") || "",
    selected: model.get("selected") || [],
  };
}
