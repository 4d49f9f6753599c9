// What one rendered heatmap holds: the model, its elements, the matrix shown and its geometry.
import { h } from "../lib/dom.js";

/**
 * @typedef {Object} Meta
 * @property {number} lo smallest positive value of the color scale
 * @property {number} hi largest value of the color scale
 * @property {boolean} exact whether the values are exact (int64)
 * @property {{rows: number[], cols: number[]}} view rows (units) and columns (ranks) shown
 * @property {number} n_rows units in the matrix
 * @property {number} n_cols columns in the matrix
 * @property {number} version Python's view_version this matrix answers
 */

/**
 * @typedef {Object} Matrix
 * @property {Meta} meta
 * @property {Record<string, any>} cols the reply's binary columns (typed arrays, labels)
 * @property {number} nr row blocks
 * @property {number} nc column blocks
 */

/**
 * @typedef {Object} Geometry
 * @property {number} width
 * @property {number} height
 * @property {number} x left of the matrix
 * @property {number} y top of the matrix
 * @property {number} s side of the (square) matrix in CSS pixels
 * @property {number} [cw] width of a column block
 * @property {number} [ch] height of a row block
 * @property {Theme} [theme]
 */

/**
 * @typedef {Object} Theme
 * @property {boolean} dark
 * @property {string} fg
 * @property {string} muted
 * @property {string} frame
 * @property {string} bar
 */

/** @typedef {import("./protocol.js").WidgetModel} WidgetModel */
/** @typedef {keyof typeof import("./protocol.js").ACTIONS} ActionName */

/**
 * @typedef {Object} View
 * @property {WidgetModel} model the anywidget model, typed by the protocol
 * @property {HTMLElement} root
 * @property {HTMLCanvasElement} canvas
 * @property {HTMLElement} tooltip
 * @property {HTMLElement} rect the drag rectangle
 * @property {HTMLElement} side the side panel
 * @property {Matrix | null} matrix the matrix drawn
 * @property {Geometry | null} geom where it was drawn
 * @property {(action: ActionName, args?: Record<string, any>) => Promise<any>} act
 */

/**
 * A view's state before it is drawn: its elements, nothing drawn, no request path yet.
 * @param {WidgetModel} model
 * @param {HTMLElement} root
 * @returns {View}
 */
export function newView(model, root) {
  const v = {
    model,
    root,
    canvas: /** @type {HTMLCanvasElement} */ (h("canvas", { cls: "pw-hm-canvas" })),
    rect: h("div", { cls: "pw-hm-rect" }),
    tooltip: h("div", { cls: "pw-hm-tooltip", attrs: { role: "tooltip" } }),
    side: h("div", { cls: "pw-hm-side" }),
    matrix: null,
    geom: null,
    act: async () => ({ ok: false, error: "not connected" }),
  };
  v.rect.hidden = true;
  v.tooltip.hidden = true;
  return v;
}

/**
 * Words for the axes: who sends or receives, as rows and as columns.
 * @param {WidgetModel} model
 */
export function words(model) {
  const senders = model.get("direction") === "send";
  const who = senders ? "senders" : "receivers";
  /** @type {string} */
  const by = model.get("group_by");
  /** @type {Record<string, string>} */
  const rows = { rank: who, rows: `rank groups of ${who}`, host: `hosts of ${who}` };
  /** @type {Record<string, string>} */
  const axis = {
    rank: `${who} (rank ranges)`,
    rows: `rank groups of ${who} (group numbers)`,
    host: `${who} by host (host: ranks)`,
  };
  return {
    who,
    cols: senders ? "receivers" : "senders",
    rows: rows[by] || who,
    axis: axis[by] || who,
  };
}

/** `[a, b)` as "a" or "a-(b-1)". @param {number[]} r */
export function rangeText(r) {
  return r[1] - r[0] === 1 ? `${r[0]}` : `${r[0]}-${r[1] - 1}`;
}

/** The units (ranks, rank groups or hosts) of row block `i` as text. @param {Matrix} matrix @param {number} i */
export function rowRange(matrix, i) {
  const e = matrix.cols.row_edges;
  return rangeText([Number(e[i]), Number(e[i + 1])]);
}

/** The ranks of column block `j` as text. @param {Matrix} matrix @param {number} j */
export function colRange(matrix, j) {
  const e = matrix.cols.col_edges;
  return rangeText([Number(e[j]), Number(e[j + 1])]);
}
