// What a saved page (`perfweave export`) says when a control needs Python: the person's action
// in their own words, never the internal request name.

import { ACTIONS } from "./actions.js";

/** What a control of a composite (an ipywidgets control, not a request) is, in the same words. */
const CONTROL = "Changing this control";

/**
 * The message for `action` on a page without a kernel.
 * @param {string} action
 * @returns {string}
 */
export function needsKernel(action) {
  const what = action === "control" ? CONTROL : /** @type {Record<string, string>} */ (ACTIONS)[action] || "This action";
  return `${what} needs the notebook's running Python kernel; this page is a saved copy ` +
    "(open the notebook in JupyterLab, or run `perfweave app`).";
}
