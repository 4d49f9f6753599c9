// The page/kernel protocol of CalltreeExplorer: generated from perfweave.widgets.explorer by
// `python -m perfweave.widgets._protocol`; do not edit (tests/widgets/test_protocols.py
// checks it is fresh and that this folder keeps to it).

/** The synced traits of CalltreeExplorer and their types (the contract's own, `error`
 * and `request_timeout`, are WidgetBase's).
 * @typedef {{ columns: any[], details: Record<string, any>, filter_query: string, first_window: Record<string, any>, glyph: Record<string, any>, height: number, history_labels: any[], mode: string, node_count: number, notice: string, report_cursor: boolean, row_count: number, search_state: Record<string, any>, selected_count: number, sort_column: string, sort_descending: boolean, view_version: number }} Traits */
/** The page's model, typed by the traits.
 * @typedef {import("../lib/types.js").TypedModel<Traits>} WidgetModel */

/** Synced traits the page redraws on, and their types. */
export const TRAITS = {
  "columns": "any[]",
  "details": "Record<string, any>",
  "filter_query": "string",
  "glyph": "Record<string, any>",
  "height": "number",
  "history_labels": "any[]",
  "notice": "string",
  "search_state": "Record<string, any>",
  "selected_count": "number",
  "sort_column": "string",
  "sort_descending": "boolean"
};

/** Synced traits the page reads but does not redraw on. */
export const READ_ONLY = {
  "first_window": "Record<string, any>",
  "mode": "string",
  "node_count": "number",
  "report_cursor": "boolean",
  "row_count": "number",
  "view_version": "number"
};

/** The requests the page may send: their arguments, and the reply key holding the
 * binary columns with the columns it holds. */
export const ACTIONS = {
  "rows": {
    "args": [
      "start",
      "count"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "toggle": {
    "args": [
      "vid",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "expand_all": {
    "args": [
      "vid",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "sort": {
    "args": [
      "column",
      "descending",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "search": {
    "args": [
      "pattern",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "search_step": {
    "args": [
      "step",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "filter": {
    "args": [
      "query",
      "squash",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "squash": {
    "args": [
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "undo": {
    "args": [
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "focus": {
    "args": [
      "vid",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "drop": {
    "args": [
      "vid",
      "subtree",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "select": {
    "args": [
      "vid",
      "add",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "stat": {
    "args": [
      "stat",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "color_by": {
    "args": [
      "column",
      "viewport"
    ],
    "key": "rows",
    "columns": [
      "vid",
      "node",
      "depth",
      "nchild",
      "parent_row",
      "flags",
      "name",
      "c<i>",
      "quartiles",
      "strip"
    ]
  },
  "cursor": {
    "args": [
      "node"
    ],
    "key": "",
    "columns": []
  }
};
