// The page/kernel protocol of FlameGraph: generated from perfweave.widgets.flame by
// `python -m perfweave.widgets._protocol`; do not edit (tests/widgets/test_protocols.py
// checks it is fresh and that this folder keeps to it).

/** The synced traits of FlameGraph and their types (the contract's own, `error`
 * and `request_timeout`, are WidgetBase's).
 * @typedef {{ color_by: string, first_frames: Record<string, any>, height: number, metric: string, metrics: string[], orientation: string, search_pattern: string, selected_node: number, title: string, view_version: number, zoom_node: number }} Traits */
/** The page's model, typed by the traits.
 * @typedef {import("../lib/types.js").TypedModel<Traits>} WidgetModel */

/** Synced traits the page redraws on, and their types. */
export const TRAITS = {
  "color_by": "string",
  "height": "number",
  "metric": "string",
  "metrics": "string[]",
  "orientation": "string",
  "selected_node": "number",
  "title": "string"
};

/** Synced traits the page reads but does not redraw on. */
export const READ_ONLY = {
  "first_frames": "Record<string, any>",
  "search_pattern": "string",
  "view_version": "number",
  "zoom_node": "number"
};

/** The requests the page may send: their arguments, and the reply key holding the
 * binary columns with the columns it holds. */
export const ACTIONS = {
  "frames": {
    "args": [
      "width",
      "detail",
      "node",
      "below"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "size",
      "value_before",
      "child_value",
      "child_x1",
      "excl_start",
      "excl_subtree",
      "guess",
      "key",
      "names",
      "name_ids",
      "found",
      "value_a",
      "value_b",
      "delta",
      "relative",
      "p_value",
      "q_value",
      "significant",
      "n_a",
      "n_b"
    ]
  },
  "zoom": {
    "args": [
      "node",
      "width",
      "detail",
      "below"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "size",
      "value_before",
      "child_value",
      "child_x1",
      "excl_start",
      "excl_subtree",
      "guess",
      "key",
      "names",
      "name_ids",
      "found",
      "value_a",
      "value_b",
      "delta",
      "relative",
      "p_value",
      "q_value",
      "significant",
      "n_a",
      "n_b"
    ]
  },
  "search": {
    "args": [
      "pattern"
    ],
    "key": "found",
    "columns": [
      "code"
    ]
  },
  "select": {
    "args": [
      "node"
    ],
    "key": "",
    "columns": []
  },
  "set": {
    "args": [
      "width",
      "metric",
      "orientation",
      "color_by"
    ],
    "key": "frames",
    "columns": [
      "node",
      "name",
      "depth",
      "x0",
      "x1",
      "value",
      "exclusive",
      "size",
      "value_before",
      "child_value",
      "child_x1",
      "excl_start",
      "excl_subtree",
      "guess",
      "key",
      "names",
      "name_ids",
      "found",
      "value_a",
      "value_b",
      "delta",
      "relative",
      "p_value",
      "q_value",
      "significant",
      "n_a",
      "n_b"
    ]
  }
};

/** The page's option controls and their choices ([value, label]).
 * @type {Record<string, [string, string][]>} */
export const CONTROLS = {
  "orientation": [
    [
      "icicle",
      "icicle (root on top)"
    ],
    [
      "flame",
      "flame (root at the bottom)"
    ]
  ],
  "color_by": [
    [
      "name",
      "colour by name"
    ],
    [
      "module",
      "colour by module"
    ],
    [
      "exclusive",
      "colour by exclusive share"
    ]
  ]
};
