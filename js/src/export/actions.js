// What a saved page (`perfweave export`) says a control needs Python for, by request
// name: generated from the widgets' protocols by `python -m perfweave.widgets._protocol`;
// do not edit.

/** @type {Record<string, string>} request action -> what the person tried */
export const ACTIONS = {
  "apply": "Applying a profile specification",
  "color_by": "Coloring profiles",
  "cols": "Showing more classes",
  "complete": "Completing the profile specification",
  "cursor": "Moving the row cursor",
  "drop": "Dropping a subtree",
  "expand_all": "Expanding everything below a row",
  "filter": "Filtering the tree",
  "focus": "Focusing on a subtree",
  "frames": "Drawing the flame graph",
  "matrix": "Redrawing the matrix",
  "rows": "Showing more rows",
  "search": "Searching names",
  "search_step": "Stepping through search matches",
  "select": "Selecting",
  "set": "Changing this control",
  "sort": "Sorting",
  "squash": "Squashing the tree",
  "stat": "Changing the statistic",
  "toggle": "Expanding or collapsing rows",
  "undo": "Undoing a step",
  "zoom": "Zooming in",
  "zoom_out": "Zooming out"
};
