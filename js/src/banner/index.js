// ErrorBanner (perfweave/widgets/_base.py): the banner of a composite widget (ClassPicker,
// MergePanel, ScalingView), the same element the anywidgets draw at their top.
import { errorBanner } from "../lib/banner.js";

/** @param {{ model: import("../lib/types.js").Model, el: HTMLElement }} view */
function render({ model, el }) {
  el.append(errorBanner(model));
}

export default { render };
