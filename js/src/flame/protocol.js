// The page/kernel protocol of FlameGraph, written once for the page; a Python test
// (tests/widgets/test_flame.py) checks it against perfweave/widgets/flame.py.

/** Synced traits the page redraws its controls on. */
export const TRAITS = ["orientation", "color_by", "metric", "metrics", "title", "selected_node", "height"];

/** Synced traits the page reads but does not redraw on (`view_version` asks for frames).
 * The contract's own traits (`error`, `request_timeout`) are WidgetBase's. */
export const READ_ONLY = ["view_version", "zoom_node", "search_pattern"];

/** Requests the page sends (Python's `_actions`). */
export const ACTIONS = ["frames", "zoom", "search", "select", "set"];

/** The reply key holding the frames' binary columns, and the columns it holds. */
export const FRAMES_KEY = "frames";
export const FRAME_COLUMNS = ["node", "name", "key", "depth", "x0", "x1", "value", "exclusive", "match"];
/** The columns a comparison adds. */
export const COMPARE_COLUMNS = [
  "value_a", "value_b", "delta", "relative", "p_value", "q_value", "significant", "n_a", "n_b",
];

/** The page's option controls and their choices (Python's ORIENTATIONS and COLOR_BY).
 * @type {Record<string, [string, string][]>} */
export const CONTROLS = {
  orientation: [["icicle", "icicle (root on top)"], ["flame", "flame (root at the bottom)"]],
  color_by: [["name", "colour by name"], ["module", "colour by module"], ["exclusive", "colour by exclusive share"]],
};
