// MergePanel's correlation matrix (perfweave/widgets/_matrix.py): an HTML grid with
// abbreviated HEM names (the full name on hover), cells on a diverging red-white-blue scale
// whose value text is black or white by the cell's lightness, a click that picks a pair, and
// one "not available: why" line instead of a grid when there is no matrix. Names are text.
// The traits it redraws on are its protocol's (./protocol.js, generated from Python).
import { errorBanner } from "../lib/banner.js";
import { h } from "../lib/dom.js";
import { draw } from "./draw.js";
import { listen } from "./events.js";
import { TRAITS } from "./protocol.js";
import { readState } from "./state.js";

/** @param {{ model: import("./protocol.js").WidgetModel, el: HTMLElement }} args */
function render({ model, el }) {
  /** @type {import("./draw.js").MatrixView} */
  const view = {
    title: h("div", { cls: "pw-matrix-title" }),
    note: h("div", { cls: "pw-matrix-note" }),
    grid: h("div", { cls: "pw-matrix-grid", attrs: { role: "grid" } }),
    root: h("div", { cls: "pw-matrix" }),
  };
  view.root.append(errorBanner(model), view.title, view.note, view.grid);
  el.append(view.root);
  // one draw per message from Python: its traits' change events fire one after another
  let queued = false;
  const redraw = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => { queued = false; draw(view, readState(model)); });
  };
  const events = Object.keys(TRAITS).map((name) => `change:${name}`);
  for (const e of events) model.on(e, redraw);
  const stop = listen(model, view.grid);
  draw(view, readState(model));
  return () => {
    for (const e of events) model.off(e, redraw);
    stop();
  };
}

export default { render };
