// CountMatrixHeatmap front end: one canvas draws the block matrix Python aggregated to this
// canvas's resolution (uint8 color per block), the rank-range axes, the marginal bars and
// the color bar; hover reads the exact block value (int64 as BigInt) locally.
// See perfweave/widgets/heatmap.py; the protocol is in ./protocol.js.
import { errorBanner } from "../lib/banner.js";
import { h } from "../lib/dom.js";
import { Channel } from "../lib/request.js";
import { controls } from "./controls.js";
import { cellsWanted, draw } from "./draw.js";
import { listen } from "./events.js";
import { MATRIX_KEY, TRAITS } from "./protocol.js";
import { drawSide } from "./side.js";

/** @param {{model: any, el: HTMLElement}} args */
function render({ model, el }) {
  const t0 = performance.now();
  const channel = new Channel(model);
  const root = h("div", { cls: "pw-heatmap" });
  el.append(root);
  let busy = 0;

  /** @type {import("./state.js").View} */
  const v = {
    model,
    root,
    canvas: /** @type {HTMLCanvasElement} */ (h("canvas", { cls: "pw-hm-canvas" })),
    rect: h("div", { cls: "pw-hm-rect" }),
    tooltip: h("div", { cls: "pw-hm-tooltip", attrs: { role: "tooltip" } }),
    side: h("div", { cls: "pw-hm-side" }),
    matrix: null,
    geom: null,
    act,
  };
  v.rect.hidden = true;
  v.tooltip.hidden = true;
  const { toolbar, sync } = controls(model, act);
  const loadErrors = h("details", { cls: "pw-hm-load-errors" });
  const note = h("div", { cls: "pw-hm-note" });
  const plot = h("div", { cls: "pw-hm-plot" }, [v.canvas, v.rect, v.tooltip]);
  const main = h("div", { cls: "pw-hm-main" }, [plot, v.side]);
  const banner = errorBanner(model);
  root.append(toolbar, banner, loadErrors, note, main);

  function syncControls() {
    // nothing loaded (e.g. a directory with no count files): only the message is shown
    const empty = !(model.get("group_labels") || []).length;
    toolbar.hidden = empty;
    main.hidden = empty;
    sync();
    const errs = model.get("load_errors") || [];
    loadErrors.replaceChildren(h("summary", { text: `${errs.length} file(s) could not be read` }),
      ...errs.map((/** @type {string} */ e) => h("div", { cls: "pw-hm-load-error", text: e })));
    loadErrors.hidden = errs.length === 0;
    note.textContent = model.get("note") || "";
    note.hidden = !note.textContent;
    drawSide(v.side, model);
  }

  const stale = () => (model.get("view_version") || 0) > (v.matrix ? v.matrix.meta.version : -1);

  /**
   * Send a request; a matrix in the reply is drawn, a refused change puts the controls back.
   * @param {string} action
   * @param {Record<string, any>} [args]
   */
  async function act(action, args = {}) {
    const t = performance.now();
    busy++;
    let reply;
    try {
      reply = await channel.request(action, args, { columns: MATRIX_KEY });
    } catch (err) {
      syncControls(); // no answer (the kernel is gone): the last view stays as it was
      return { ok: false, error: String(err) };
    } finally {
      busy--;
    }
    if (reply.ok && reply.columns) accept(reply);
    if (!reply.ok) syncControls(); // a refused change: the selects show Python's state again
    root.dataset.lastAction = action;
    root.dataset.lastMs = (performance.now() - t).toFixed(1);
    if (!busy && stale()) fetchMatrix();
    return reply;
  }

  /** @param {any} reply */
  function accept(reply) {
    const cols = reply.columns;
    const shape = cols.values.shape;
    v.matrix = { meta: reply.meta, cols, nr: shape[0], nc: shape[1] };
    syncControls();
    draw(v);
    root.dataset.view = JSON.stringify(reply.meta.view);
    root.dataset.version = String(reply.meta.version);
  }

  async function fetchMatrix() {
    const reply = await act("matrix", { max_cells: cellsWanted(v) });
    if (!root.dataset.ready && (reply.ok || model.get("error"))) {
      root.dataset.firstDrawMs = (performance.now() - t0).toFixed(1);
      root.dataset.ready = "1";
    }
  }

  const onChange = () => syncControls();
  const onVersion = () => { if (!busy && stale()) fetchMatrix(); };
  const unlisten = listen(v);
  // JupyterLab switches themes by attributes on <body>: redraw the canvas in the new colors
  const themeWatch = new MutationObserver(() => draw(v));
  themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  for (const k of TRAITS) model.on(`change:${k}`, onChange);
  model.on("change:view_version", onVersion);
  syncControls();
  if (model.get("error") && !(model.get("group_labels") || []).length) {
    root.dataset.ready = "1"; // nothing to draw: the banner says why
  } else {
    requestAnimationFrame(() => fetchMatrix());
  }

  return () => {
    channel.close();
    themeWatch.disconnect();
    unlisten();
    for (const k of TRAITS) model.off(`change:${k}`, onChange);
    model.off("change:view_version", onVersion);
  };
}

export default { render };
