// What a saved page (`perfweave export`) says a control needs Python for, by request
// name: generated from the widgets' protocols by `python -m perfweave.widgets._protocol`;
// do not edit.

/** @type {Record<string, string>} request action -> what the person tried */
export const ACTIONS = {
  "cols": "Showing more classes",
  "frames": "Drawing the flame graph",
  "rows": "Showing more rows",
  "search": "Searching names",
  "select": "Selecting",
  "set": "Changing this control",
  "sort": "Sorting",
  "zoom": "Zooming in"
};
