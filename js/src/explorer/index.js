// CalltreeExplorer front end: a virtualised tree table (ARIA treegrid) over rows that Python
// sends window by window (perfweave/widgets/explorer.py). The modules: state (protocol types,
// page state), controls (toolbar, elements), draw (header, rows, tooltips), events (requests,
// keyboard, model changes); the protocol (traits, requests, reply keys) is generated from
// Python in ./protocol.js.
import { Channel } from "../lib/request.js";
import { VirtualRows } from "../lib/virtual.js";
import { buildControls } from "./controls.js";
import { fillRow, makeRow } from "./draw.js";
import { ROWS, accept, acceptPushed, act, firstWindow, viewport, wantRows, wire } from "./events.js";
import { ExplorerState, ROW_H } from "./state.js";

/** @typedef {import("./state.js").Ctx} Ctx */
/** @typedef {import("./draw.js").RowEl} RowEl */

/**
 * Draw the explorer in `el`; returns the cleanup.
 * @param {{ model: import("./protocol.js").WidgetModel, el: HTMLElement }} props
 */
function render({ model, el }) {
  const t0 = performance.now();
  const ctx = /** @type {Ctx} */ ({
    model,
    state: new ExplorerState(model),
    channel: new Channel(model),
    els: buildControls(model, el),
  });
  ctx.act = (action, args) => act(ctx, action, args);
  ctx.wantRows = () => { wantRows(ctx); };
  ctx.rows = new VirtualRows(ctx.els.body, {
    rowHeight: ROW_H,
    make: () => makeRow(ctx),
    fill: (row, r) => fillRow(ctx, /** @type {RowEl} */ (row), r),
  });
  ctx.channel.onPush((resp) => acceptPushed(ctx, resp));
  const unwire = wire(ctx);
  const ready = (/** @type {import("./state.js").Response} */ resp) => {
    accept(ctx, resp);
    ctx.els.root.dataset.firstRowsMs = (performance.now() - t0).toFixed(1);
    ctx.els.root.dataset.ready = "1";
  };
  // the first rows came with the widget's state (no round trip), unless the view changed
  const first = firstWindow(model);
  if (first) {
    ready(first);
  } else {
    const [start, count] = viewport(ctx);
    ctx.channel.request("rows", { start, count }, ROWS).then(ready, () => {
      /* the banner says the kernel did not answer */
    });
  }
  return () => {
    ctx.channel.close();
    unwire();
  };
}

export default { render };
