// FlameGraph front end: Python sends the frames at least one pixel wide (binary columns);
// the page draws them on one canvas, hover reads them locally, a click, the breadcrumb and
// the search ask Python (perfweave/widgets/flame.py; the protocol is in ./protocol.js).
import { errorBanner } from "../lib/banner.js";
import { h } from "../lib/dom.js";
import { Channel } from "../lib/request.js";
import { controls } from "./controls.js";
import { downloadPng, downloadSvg } from "./download.js";
import { canvasWidth, draw } from "./draw.js";
import { listen } from "./events.js";
import { ACTIONS, TRAITS } from "./protocol.js";
import { searched, zoomed } from "./offline.js";
import { framesOf } from "./state.js";

/** @param {{model: import("./protocol.js").WidgetModel, el: HTMLElement}} args */
function render({ model, el }) {
  const t0 = performance.now();
  const channel = new Channel(model);
  const root = h("div", { cls: "pw-flame" });
  el.append(root);
  let busy = 0;

  /** @type {import("./state.js").View} */
  const v = {
    model,
    root,
    canvas: /** @type {HTMLCanvasElement} */ (h("canvas", { cls: "pw-fl-canvas" })),
    tooltip: h("div", { cls: "pw-fl-tooltip", attrs: { role: "tooltip" } }),
    frames: null,
    hover: -1,
    act,
  };
  v.tooltip.hidden = true;
  const ui = controls(model, act, (kind) => (kind === "svg" ? downloadSvg(v) : downloadPng(v)));
  const plot = h("div", { cls: "pw-fl-plot" }, [v.canvas, v.tooltip]);
  const banner = errorBanner(model);
  root.append(ui.title, ui.toolbar, banner, ui.crumbs, plot, ui.legend);

  const setHeight = () => { plot.style.maxHeight = `${Number(model.get("height")) || 420}px`; };
  setHeight();
  const stale = () => (model.get("view_version") || 0) > (v.frames ? v.frames.meta.version : -1);

  /**
   * Send a request; frames in the reply are drawn (a failed one answers the unchanged view).
   * @param {keyof typeof ACTIONS} action
   * @param {Record<string, any>} [args]
   */
  async function act(action, args = {}) {
    const t = performance.now();
    busy++;
    let reply;
    const { key } = ACTIONS[action];
    const sent = channel.request(action, key ? { ...args, width: canvasWidth(v) } : args, { columns: key });
    const before = v.frames;
    preview(action, args, t);
    try {
      reply = await sent;
    } catch (err) {
      // no answer (the kernel is gone): the last view stays as it was
      if (before && v.frames !== before) show(before.meta, before.cols);
      ui.sync(v.frames);
      return { ok: false, error: String(err) };
    } finally {
      busy--;
    }
    if (reply.offline) {
      offline.known = true;
      const answered = offline.full ? local(action, args) : null;
      if (answered) {
        if (typeof reply.claim === "function") reply.claim();
        return answered;
      }
    }
    if (reply.columns) accept(reply);
    else ui.sync(v.frames);
    root.dataset.lastAction = action;
    root.dataset.lastMs = (performance.now() - t).toFixed(1);
    if (!busy && stale()) fetchFrames();
    return reply;
  }

  /**
   * Draw at once what the page can of a zoom into a frame it shows, or of a search's
   * highlight, from the frames at hand (./offline.js); Python's reply then draws the view
   * complete (the frames too narrow to send before, the search's share). `data-preview-ms`
   * is the click -> preview drawn time.
   * @param {string} action @param {Record<string, any>} args @param {number} t
   */
  function preview(action, args, t) {
    const f = v.frames;
    if (!f || offline.known) return;
    let view = null;
    if (action === "zoom" && args.node !== null && args.node !== undefined) {
      const onPath = f.meta.path.some((p) => p.node === Number(args.node));
      if (!onPath) view = zoomed(f, Number(args.node));
    } else if (action === "search" && args.pattern) {
      const found = searched(f, String(args.pattern));
      if (!("error" in found)) view = { meta: { ...found.meta, search: { ...found.meta.search, text: "" } }, cols: found.cols };
    }
    if (!view) return;
    show(view.meta, view.cols);
    root.dataset.previewAction = action;
    root.dataset.previewMs = (performance.now() - t).toFixed(1);
  }

  /** A saved page's zoom and search, on the frames it saved (./offline.js).
   * `known`: a reply said the page has no kernel.
   * @type {{full: import("./state.js").Frames | null, zoom: number | null, pattern: string, known: boolean}} */
  const offline = { full: null, zoom: null, pattern: "", known: false };

  /**
   * Answer `action` from the saved frames (no kernel); a failure shows in the banner. Null
   * for an action the saved frames cannot answer.
   * @param {string} action @param {Record<string, any>} args
   * @returns {{ok: boolean} | null}
   */
  function local(action, args) {
    const full = /** @type {import("./state.js").Frames} */ (offline.full);
    if (action === "select") {
      model.set("error", "");
      model.set("selected_node", args.node === null ? -1 : Number(args.node));
      draw(v);
      return { ok: true };
    }
    if (action !== "zoom" && action !== "search") return null; // the banner says: needs Python
    const zoom = action === "zoom" ? (args.node === null || args.node === undefined ? null : Number(args.node)) : offline.zoom;
    const pattern = action === "search" ? String(args.pattern || "") : offline.pattern;
    const found = searched(full, pattern);
    const view = "error" in found ? null : zoomed(framesOf(found.meta, found.cols), zoom);
    if (!view) {
      model.set("error", "error" in found ? found.error : "that frame is not in this saved page");
      ui.sync(v.frames);
      return { ok: false };
    }
    offline.zoom = zoom;
    offline.pattern = pattern;
    model.set("error", "");
    show(view.meta, view.cols);
    return { ok: true };
  }

  /** @param {any} reply */
  function accept(reply) {
    const m = reply.meta;
    if (!offline.full && m.zoom === -1 && !m.search.pattern) offline.full = framesOf(m, reply.columns);
    show(m, reply.columns);
  }

  /** @param {import("./state.js").Meta} meta @param {Record<string, any>} cols */
  function show(meta, cols) {
    const reply = { meta, columns: cols };
    v.frames = framesOf(reply.meta, reply.columns);
    ui.sync(v.frames);
    draw(v);
    root.dataset.version = String(reply.meta.version);
    root.dataset.zoom = String(reply.meta.zoom);
    root.dataset.shown = String(reply.meta.shown);
    root.dataset.search = reply.meta.search.pattern;
  }

  async function fetchFrames() {
    const reply = await act("frames");
    if (!root.dataset.ready && (reply.ok || model.get("error"))) {
      root.dataset.firstDrawMs = (performance.now() - t0).toFixed(1);
      root.dataset.ready = "1";
    }
  }

  const onChange = () => { ui.sync(v.frames); draw(v); };
  const onVersion = () => { if (!busy && stale()) fetchFrames(); };
  const unlisten = listen(v);
  let lastWidth = 0;
  const resize = new ResizeObserver((entries) => {
    // the width as the observer measured it: reading clientWidth while drawing would make
    // the browser lay the page out again after each change of the toolbar or legend
    const box = entries[entries.length - 1];
    if (box && box.contentRect.width > 0) v.width = box.contentRect.width;
    const w = canvasWidth(v);
    if (Math.abs(w - lastWidth) < 2) return;
    lastWidth = w;
    if (v.frames) draw(v);
  });
  resize.observe(root);
  for (const k of Object.keys(TRAITS)) model.on(`change:${k}`, onChange);
  model.on("change:height", setHeight);
  model.on("change:view_version", onVersion);
  ui.sync(null);
  requestAnimationFrame(() => fetchFrames());

  return () => {
    channel.close();
    resize.disconnect();
    unlisten();
    for (const k of Object.keys(TRAITS)) model.off(`change:${k}`, onChange);
    model.off("change:height", setHeight);
    model.off("change:view_version", onVersion);
  };
}

export default { render };
