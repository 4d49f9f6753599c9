// The page/kernel protocol of SpecBox: generated from perfweave.widgets._spec_box by
// `python -m perfweave.widgets._protocol`; do not edit (tests/widgets/test_protocols.py
// checks it is fresh and that this folder keeps to it).

/** The synced traits of SpecBox and their types (the contract's own, `error`
 * and `request_timeout`, are WidgetBase's).
 * @typedef {{ label: string, placeholder: string, value: string }} Traits */
/** The page's model, typed by the traits.
 * @typedef {import("../lib/types.js").TypedModel<Traits>} WidgetModel */

/** Synced traits the page redraws on, and their types. */
export const TRAITS = {
  "value": "string"
};

/** Synced traits the page reads but does not redraw on. */
export const READ_ONLY = {
  "label": "string",
  "placeholder": "string"
};

/** The requests the page may send: their arguments, and the reply key holding the
 * binary columns with the columns it holds. */
export const ACTIONS = {
  "complete": {
    "args": [
      "typed"
    ],
    "key": "",
    "columns": []
  },
  "apply": {
    "args": [
      "spec"
    ],
    "key": "",
    "columns": []
  }
};
