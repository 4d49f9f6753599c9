// The page/kernel protocol of CountMatrixHeatmap, written once for the page; a Python test
// (tests/widgets/test_heatmap_protocol.py) checks it against perfweave/widgets/heatmap.py.

/** Synced traits the page redraws its controls and side panel on. */
export const TRAITS = [
  "lead_ranks", "lead_rank", "group_labels", "group_index", "direction", "unit", "scale",
  "reduce", "group_by", "hosts_known", "info", "selection_state", "load_errors", "note",
];

/** Synced traits the page reads but does not redraw on (`view_version` asks for a matrix).
 * The contract's own traits (`error`, `request_timeout`) are WidgetBase's, not listed here. */
export const READ_ONLY = ["height", "max_cells", "view_state", "view_version"];

/** Requests the page sends (Python's `_actions`). */
export const ACTIONS = ["matrix", "set", "zoom", "zoom_out", "select"];

/** The reply key holding a matrix's binary columns, and the columns it holds. */
export const MATRIX_KEY = "matrix";
export const MATRIX_COLUMNS = [
  "values", "color", "row_edges", "col_edges", "row_sum", "row_max", "row_ranks", "col_sum",
  "col_max", "row_labels",
];

/** The page's option controls and their choices (Python's `_CONTROLS`).
 * @type {Record<string, [string, string][]>} */
export const CONTROLS = {
  direction: [["send", "send"], ["recv", "recv"]],
  unit: [["counts", "counts"], ["bytes", "bytes"]],
  scale: [["linear", "linear"], ["log", "log"]],
  reduce: [["max", "max"], ["sum", "sum"]],
  group_by: [["rank", "rank"], ["rows", "identical rows"], ["host", "host"]],
};
