// CountMatrixHeatmap front end: one canvas draws the block matrix Python aggregated to this
// canvas's resolution (uint8 color per block), the rank-range axes, the marginal bars and
// the color bar; hover reads the exact block value (int64 as BigInt) locally.
// See perfweave/widgets/heatmap.py; the protocol is generated into ./protocol.js.
import { h } from "../lib/dom.js";
import { draw } from "./draw.js";
import { listen } from "./events.js";
import { connect } from "./kernel.js";
import { layoutPage } from "./page.js";
import { TRAITS } from "./protocol.js";
import { newView } from "./state.js";

/** @param {{model: import("./protocol.js").WidgetModel, el: HTMLElement}} args */
function render({ model, el }) {
  const t0 = performance.now();
  const root = h("div", { cls: "pw-heatmap" });
  el.append(root);
  const v = newView(model, root);
  const sync = layoutPage(v);
  const kernel = connect(v, sync, t0);

  const onChange = () => sync();
  const onVersion = () => { if (kernel.idle() && kernel.stale()) kernel.fetchMatrix(); };
  const unlisten = listen(v);
  // JupyterLab switches themes by attributes on <body>: redraw the canvas in the new colors
  const themeWatch = new MutationObserver(() => draw(v));
  themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  const traits = Object.keys(TRAITS);
  for (const k of traits) model.on(`change:${k}`, onChange);
  model.on("change:view_version", onVersion);
  sync();
  if (model.get("error") && !(model.get("group_labels") || []).length) {
    root.dataset.ready = "1"; // nothing to draw: the banner says why
  } else {
    requestAnimationFrame(() => kernel.fetchMatrix());
  }

  return () => {
    kernel.close();
    themeWatch.disconnect();
    unlisten();
    for (const k of traits) model.off(`change:${k}`, onChange);
    model.off("change:view_version", onVersion);
  };
}

export default { render };
