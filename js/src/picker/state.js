// The rows a ClassPicker table holds: one window of rows x one page of class columns, as
// the kernel sent it (perfweave/widgets/_picker_table.py `_window`).

/** @typedef {import("../lib/columns.js").NumericColumn} NumericColumn */
/** @typedef {import("./protocol.js").WidgetModel} Model */

/**
 * One window of rows: key names per key column, then samples and % per row x class.
 * @typedef {object} RowWindow
 * @property {number} version the table version it belongs to
 * @property {number} start first row
 * @property {number} n rows held
 * @property {string[][]} keys per key column, the names of the rows held
 * @property {NumericColumn} samples rows x classes (row-major)
 * @property {NumericColumn} pct rows x classes (row-major)
 * @property {string[]} classes the class names of the page
 * @property {number} col_start first class of the page
 */

/**
 * A window reply (pushed by Python after a change, or answering a request).
 * @typedef {object} WindowReply
 * @property {boolean} ok
 * @property {number} version
 * @property {string[]} classes
 * @property {number} col_start
 * @property {number} class_count
 * @property {{ start: number, total: number, columns: import("../lib/types.js").ColumnHeader[] }} rows
 */

/** Key columns of the table (their labels). @param {Model} model @returns {string[]} */
export function keyLabels(model) {
  return model.get("key_labels") || [];
}

/**
 * The window of `reply` with its unpacked `columns`, or null when the reply is stale (an
 * older table version) or failed.
 * @param {Model} model
 * @param {WindowReply | null | undefined} reply
 * @param {Record<string, any>} columns
 * @returns {RowWindow | null}
 */
export function windowOf(model, reply, columns) {
  if (!reply || !reply.ok || !reply.rows || reply.version !== model.get("version")) return null;
  const nk = keyLabels(model).length;
  /** @type {string[][]} */
  const keys = [];
  for (let i = 0; i < nk; i++) keys.push(columns[`k${i}`] || []);
  const header = reply.rows.columns.find((c) => c.key === "samples");
  return {
    version: reply.version,
    start: reply.rows.start,
    n: header ? header.shape[0] : 0,
    keys,
    samples: columns.samples,
    pct: columns.pct,
    classes: reply.classes,
    col_start: reply.col_start,
  };
}

/**
 * Whether rows `first`..`last` (exclusive) of the current table version are all held.
 * @param {Model} model @param {RowWindow | null} win @param {number} first @param {number} last
 */
export function holds(model, win, first, last) {
  return Boolean(win && win.version === model.get("version") && first >= win.start
    && last <= win.start + win.n);
}
