// The page/kernel protocol of ReportTable: generated from perfweave.widgets._picker_table by
// `python -m perfweave.widgets._protocol`; do not edit (tests/widgets/test_protocols.py
// checks it is fresh and that this folder keeps to it).

/** The synced traits of ReportTable and their types (the contract's own, `error`
 * and `request_timeout`, are WidgetBase's).
 * @typedef {{ class_count: number, col_start: number, height: number, key_chars: number[], key_labels: string[], kind: string, note: string, page: number, row_count: number, sort_column: string, sort_descending: boolean, value_labels: string[], version: number }} Traits */
/** The page's model, typed by the traits.
 * @typedef {import("../lib/types.js").TypedModel<Traits>} WidgetModel */

/** Synced traits the page redraws on, and their types. */
export const TRAITS = {
  "note": "string"
};

/** Synced traits the page reads but does not redraw on. */
export const READ_ONLY = {
  "class_count": "number",
  "col_start": "number",
  "height": "number",
  "key_chars": "number[]",
  "key_labels": "string[]",
  "kind": "string",
  "page": "number",
  "row_count": "number",
  "sort_column": "string",
  "sort_descending": "boolean",
  "value_labels": "string[]",
  "version": "number"
};

/** The requests the page may send: their arguments, and the reply key holding the
 * binary columns with the columns it holds. */
export const ACTIONS = {
  "rows": {
    "args": [
      "start",
      "count",
      "version"
    ],
    "key": "rows",
    "columns": [
      "k0",
      "k1",
      "k2",
      "samples",
      "pct"
    ]
  },
  "cols": {
    "args": [
      "start",
      "count",
      "col_start",
      "page"
    ],
    "key": "rows",
    "columns": [
      "k0",
      "k1",
      "k2",
      "samples",
      "pct"
    ]
  },
  "sort": {
    "args": [
      "column",
      "start",
      "count"
    ],
    "key": "rows",
    "columns": [
      "k0",
      "k1",
      "k2",
      "samples",
      "pct"
    ]
  }
};
