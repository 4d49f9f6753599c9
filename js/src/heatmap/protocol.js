// The page/kernel protocol of CountMatrixHeatmap: generated from perfweave.widgets.heatmap by
// `python -m perfweave.widgets._protocol`; do not edit (tests/widgets/test_protocols.py
// checks it is fresh and that this folder keeps to it).

/** The synced traits of CountMatrixHeatmap and their types (the contract's own, `error`
 * and `request_timeout`, are WidgetBase's).
 * @typedef {{ direction: string, group_by: string, group_index: number, group_labels: string[], height: number, hosts_known: boolean, info: Record<string, any>, lead_rank: number, lead_ranks: number[], load_errors: string[], max_cells: number, note: string, reduce: string, scale: string, selection_state: Record<string, any>, unit: string, view_state: Record<string, any>, view_version: number }} Traits */
/** The page's model, typed by the traits.
 * @typedef {import("../lib/types.js").TypedModel<Traits>} WidgetModel */

/** Synced traits the page redraws on, and their types. */
export const TRAITS = {
  "direction": "string",
  "group_by": "string",
  "group_index": "number",
  "group_labels": "string[]",
  "hosts_known": "boolean",
  "info": "Record<string, any>",
  "lead_rank": "number",
  "lead_ranks": "number[]",
  "load_errors": "string[]",
  "note": "string",
  "reduce": "string",
  "scale": "string",
  "selection_state": "Record<string, any>",
  "unit": "string"
};

/** Synced traits the page reads but does not redraw on. */
export const READ_ONLY = {
  "height": "number",
  "max_cells": "number",
  "view_state": "Record<string, any>",
  "view_version": "number"
};

/** The requests the page may send: their arguments, and the reply key holding the
 * binary columns with the columns it holds. */
export const ACTIONS = {
  "matrix": {
    "args": [
      "max_cells"
    ],
    "key": "matrix",
    "columns": [
      "values",
      "color",
      "row_edges",
      "col_edges",
      "row_sum",
      "row_max",
      "row_ranks",
      "col_sum",
      "col_max",
      "row_labels"
    ]
  },
  "set": {
    "args": [
      "name",
      "value"
    ],
    "key": "matrix",
    "columns": [
      "values",
      "color",
      "row_edges",
      "col_edges",
      "row_sum",
      "row_max",
      "row_ranks",
      "col_sum",
      "col_max",
      "row_labels"
    ]
  },
  "zoom": {
    "args": [
      "rows",
      "cols"
    ],
    "key": "matrix",
    "columns": [
      "values",
      "color",
      "row_edges",
      "col_edges",
      "row_sum",
      "row_max",
      "row_ranks",
      "col_sum",
      "col_max",
      "row_labels"
    ]
  },
  "zoom_out": {
    "args": [],
    "key": "matrix",
    "columns": [
      "values",
      "color",
      "row_edges",
      "col_edges",
      "row_sum",
      "row_max",
      "row_ranks",
      "col_sum",
      "col_max",
      "row_labels"
    ]
  },
  "select": {
    "args": [
      "row_block",
      "col_block"
    ],
    "key": "",
    "columns": []
  }
};

/** The page's option controls and their choices ([value, label]).
 * @type {Record<string, [string, string][]>} */
export const CONTROLS = {
  "direction": [
    [
      "send",
      "send"
    ],
    [
      "recv",
      "recv"
    ]
  ],
  "unit": [
    [
      "counts",
      "counts"
    ],
    [
      "bytes",
      "bytes"
    ]
  ],
  "scale": [
    [
      "linear",
      "linear"
    ],
    [
      "log",
      "log"
    ]
  ],
  "reduce": [
    [
      "max",
      "max"
    ],
    [
      "sum",
      "sum"
    ]
  ],
  "group_by": [
    [
      "rank",
      "rank"
    ],
    [
      "rows",
      "identical rows"
    ],
    [
      "host",
      "host"
    ]
  ]
};
