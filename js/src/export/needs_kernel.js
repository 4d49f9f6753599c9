// What a saved page (`perfweave export`) says when a control needs Python: the person's action
// in their own words, never the internal request name.

/** @type {Record<string, string>} request action -> what the person tried, as they would say it */
const ACTIONS = {
  rows: "Showing more rows",
  cols: "Showing more classes",
  toggle: "Expanding or collapsing rows",
  expand_all: "Expanding everything below a row",
  sort: "Sorting",
  search: "Searching names",
  search_step: "Stepping through search matches",
  filter: "Filtering the tree",
  squash: "Squashing the tree",
  undo: "Undoing a step",
  focus: "Focusing on a subtree",
  drop: "Dropping a subtree",
  select: "Selecting",
  stat: "Changing the statistic",
  color_by: "Coloring profiles",
  matrix: "Redrawing the matrix",
  set: "Changing this control",
  zoom: "Zooming in",
  zoom_out: "Zooming out",
  control: "Changing this control",
};

/**
 * The message for `action` on a page without a kernel.
 * @param {string} action
 * @returns {string}
 */
export function needsKernel(action) {
  const what = ACTIONS[action] || "This action";
  return `${what} needs the notebook's running Python kernel; this page is a saved copy ` +
    "(open the notebook in JupyterLab, or run `perfweave app`).";
}
