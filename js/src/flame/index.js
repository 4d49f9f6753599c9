// FlameGraph front end. Python sends held sets of frames (binary columns, ./store.js); the
// page makes the view it draws from them (./view.js) and draws the rows in view on one
// canvas. A click zooms at once from the frames held, complete when they reach a pixel of
// the new view; Python's reply to the zoom then only adds frames the page lacks (or, when
// the zoom went deeper than the frames held, the frames that complete it). Hover is local;
// a search highlights at once and Python's reply says which names match and their share
// (perfweave/widgets/flame.py; the protocol is in ./protocol.js).
import { errorBanner } from "../lib/banner.js";
import { h } from "../lib/dom.js";
import { Channel } from "../lib/request.js";
import { controls } from "./controls.js";
import { downloadPng, downloadSvg } from "./download.js";
import { canvasWidth, draw } from "./draw.js";
import { firstFrames, listen } from "./events.js";
import { matchedNames, searchText } from "./offline.js";
import { ACTIONS, TRAITS } from "./protocol.js";
import { complete, indexOf, Store } from "./store.js";
import { viewOf } from "./view.js";

/** How much finer than its canvas the page holds a view's frames: a zoom into a frame at
 * least 1/DETAIL of the view wide is drawn complete without Python. */
export const DETAIL = 8;

/** @typedef {import("./state.js").Meta} Meta */
/** @typedef {import("./store.js").Held} Held */

/** @param {{model: import("./protocol.js").WidgetModel, el: HTMLElement}} args */
function render({ model, el }) {
  const t0 = performance.now();
  const channel = new Channel(model);
  const root = h("div", { cls: "pw-flame" });
  el.append(root);
  const store = new Store();
  let busy = 0;
  /** Python's last word on the view (search line, breadcrumb, version) @type {Meta | null} */
  let told = null;
  /** @type {import("./state.js").View} */
  const v = {
    model,
    root,
    plot: h("div", { cls: "pw-fl-plot" }),
    canvas: /** @type {HTMLCanvasElement} */ (h("canvas", { cls: "pw-fl-canvas" })),
    spacer: h("div", { cls: "pw-fl-spacer" }),
    tooltip: h("div", { cls: "pw-fl-tooltip", attrs: { role: "tooltip" } }),
    frames: null,
    search: { pattern: "", matched: null },
    hover: -1,
    scrollTop: 0,
    act,
  };
  v.tooltip.hidden = true;
  v.plot.append(v.canvas, v.spacer, v.tooltip);
  const ui = controls(model, act, (kind) => (kind === "svg" ? downloadSvg(v) : downloadPng(v)));
  const banner = errorBanner(model);
  root.append(ui.title, ui.toolbar, banner, ui.crumbs, v.plot, ui.legend);

  const setHeight = () => { v.plot.style.maxHeight = `${Number(model.get("height")) || 420}px`; };
  setHeight();
  const stale = () => (model.get("view_version") || 0) > (told ? told.version : -1);
  /** A saved page without a kernel: a reply said so. */
  let offline = false;

  /**
   * Draw the view of `node` (-1: the whole graph) from the finest set holding it; whether
   * that view is complete (every frame a pixel wide held).
   * @param {number} node @returns {{set: Held, complete: boolean} | null}
   */
  function showZoom(node) {
    const found = store.best(node);
    if (!found || !told) return null;
    const width = canvasWidth(v);
    show(viewOf(found.set, found.i, width, { ...told, search: searchMeta() }, store.names));
    return { set: found.set, complete: complete(found.set, found.i, width) };
  }

  /** The search line the view says: Python's for its pattern, else the page's own. */
  function searchMeta() {
    const said = told ? told.search : null;
    if (said && said.pattern === v.search.pattern) return said;
    return { pattern: v.search.pattern, count: 0, text: "" };
  }

  /** @param {import("./state.js").Frames} frames */
  function show(frames) {
    v.frames = frames;
    ui.sync(frames);
    draw(v);
    root.dataset.version = String(frames.meta.version);
    root.dataset.zoom = String(frames.meta.zoom);
    root.dataset.shown = String(frames.meta.shown);
    root.dataset.search = v.search.pattern;
  }

  /** @param {string} key @param {string} action @param {number} t */
  function stamp(key, action, t) {
    root.dataset[`${key}Action`] = action;
    root.dataset[`${key}Ms`] = (performance.now() - t).toFixed(1);
  }

  /**
   * Ask for the frames of `set`'s view down to 1/DETAIL of a pixel, without waiting: a later
   * zoom into a frame of it is then drawn without Python.
   * @param {Held} set
   */
  async function refine(set) {
    const width = canvasWidth(v);
    const i = set.root < 0 ? -1 : indexOf(set, set.root);
    const span = i < 0 ? 1 : set.cols.x1[i] - set.cols.x0[i];
    if (offline || !(span > 0) || set.tau <= (span / (width * DETAIL)) * (1 + 1e-9)) return;
    let reply;
    try {
      reply = await channel.request("frames", { node: set.root, width, detail: DETAIL, below: set.tau }, { columns: ACTIONS.frames.key });
    } catch {
      return; // the kernel is gone: the banner says so, the view stays
    }
    if (reply.offline) {
      offline = true;
      if (typeof reply.claim === "function") reply.claim();
      return;
    }
    if (reply.ok && reply.columns) store.accept(reply.meta, reply.columns, set);
    root.dataset.refined = String(Number(root.dataset.refined || 0) + 1);
    root.dataset.refinedMs = (performance.now() - t0).toFixed(1); // render() -> finer frames held
  }

  /** the zoom the page shows or waits for (what a reply with frames is drawn for) */
  let wanted = -1;

  /**
   * Send a request, drawing at once what the page can of it. A reply with frames is held
   * (and drawn where the page's view waits for it); a failed one restores the view.
   * @param {keyof typeof ACTIONS} action
   * @param {Record<string, any>} [args]
   */
  async function act(action, args = {}) {
    const t = performance.now();
    const width = canvasWidth(v);
    const before = { frames: v.frames, search: v.search };
    /** @type {Held | null} the set a reply of frames below its threshold completes */
    let base = null;
    let done = false; // the view drawn at once is complete
    let sendArgs = args;
    if (action === "zoom") {
      wanted = args.node === null || args.node === undefined ? -1 : Number(args.node);
      const found = told ? store.best(wanted) : null;
      if (found) {
        base = found.set;
        done = complete(found.set, found.i, width);
      }
      sendArgs = { node: wanted < 0 ? null : wanted, width, detail: done ? DETAIL : 1, below: base ? base.tau : null };
    } else if (action === "search") {
      sendArgs = { pattern: String(args.pattern || "") };
    } else if (ACTIONS[action].key) {
      sendArgs = { ...args, width };
      if (args.below !== undefined) {
        const found = store.best(Number(args.node));
        base = found ? found.set : null;
      }
    }
    busy++;
    const sent = channel.request(action, sendArgs, { columns: ACTIONS[action].key });
    // drawn while Python works on the request
    if (action === "zoom" && base) {
      showZoom(wanted);
      stamp("preview", action, t);
      if (done) stamp("complete", action, t);
      root.dataset.completeLocal = done ? "1" : "0"; // complete before Python's reply
    } else if (action === "search") {
      const pattern = sendArgs.pattern;
      const found = matchedNames(store.names, pattern);
      if (!("error" in found) && v.frames) {
        v.search = { pattern, matched: pattern ? found.matched : null };
        show({ ...v.frames, meta: { ...v.frames.meta, search: searchMeta() } });
        stamp("preview", action, t);
      }
    }
    let reply;
    try {
      reply = await sent;
    } catch (err) {
      // no answer (the kernel is gone): the last view stays as it was
      restore(before);
      return { ok: false, error: String(err) };
    } finally {
      busy--;
    }
    if (reply.offline) {
      offline = true;
      const answered = local(action, args, before, base);
      if (answered) {
        if (typeof reply.claim === "function") reply.claim();
        return answered;
      }
    }
    if (reply.meta) told = reply.meta;
    if (!reply.ok) {
      restore(before);
    } else if (action === "search") {
      found(reply.meta, reply.columns ? reply.columns.code : new Int32Array(0));
      if (v.frames) show({ ...v.frames, meta: { ...v.frames.meta, search: searchMeta() } });
    } else if (reply.columns) {
      const set = store.accept(reply.meta, reply.columns, base);
      if (reply.columns.found) found(reply.meta, reply.columns.found); // Python's search
      const zoom = Number(reply.meta.zoom);
      if (action !== "zoom") wanted = zoom;
      if (zoom === wanted && !(action === "zoom" && done)) {
        showZoom(zoom);
        if (action === "zoom") stamp("complete", action, t);
      } else if (v.frames) {
        show({ ...v.frames, meta: { ...v.frames.meta, version: reply.meta.version, search: searchMeta() } });
      }
      if (!(action === "zoom" && done)) refine(set);
    } else {
      ui.sync(v.frames);
    }
    stamp("last", action, t);
    if (!busy && stale()) fetchFrames();
    return reply;
  }

  /**
   * Python's search: its pattern and the codes of the names it matches.
   * @param {Meta} meta @param {ArrayLike<number>} codes
   */
  function found(meta, codes) {
    let size = store.names.length;
    for (let k = 0; k < codes.length; k++) if (codes[k] >= size) size = codes[k] + 1;
    const matched = new Uint8Array(size);
    for (let k = 0; k < codes.length; k++) matched[codes[k]] = 1;
    const pattern = meta.search.pattern;
    v.search = { pattern, matched: pattern ? matched : null };
  }

  /** @param {{frames: import("./state.js").Frames | null, search: import("./state.js").Search}} before */
  function restore(before) {
    v.search = before.search;
    if (before.frames) wanted = before.frames.meta.zoom;
    if (before.frames) show(before.frames);
    else ui.sync(v.frames);
  }

  /**
   * A saved page's answer to `action` (no kernel), from the frames it saved; a failure shows
   * in the banner. Null for an action the saved frames cannot answer.
   * @param {string} action @param {Record<string, any>} args
   * @param {{frames: import("./state.js").Frames | null, search: import("./state.js").Search}} before
   * @param {Held | null} base the set a zoom was drawn from
   * @returns {{ok: boolean} | null}
   */
  function local(action, args, before, base) {
    if (action === "select") {
      model.set("error", "");
      model.set("selected_node", args.node === null ? -1 : Number(args.node));
      draw(v);
      return { ok: true };
    }
    if (action === "zoom") {
      if (base) { model.set("error", ""); return { ok: true }; }
      model.set("error", "that frame is not in this saved page");
      restore(before);
      return { ok: false };
    }
    if (action !== "search") return null; // the banner says: needs Python
    const pattern = String(args.pattern || "");
    const found = matchedNames(store.names, pattern);
    const whole = store.best(-1);
    if ("error" in found || !whole || !told) {
      model.set("error", "error" in found ? found.error : "this saved page holds no frames");
      restore(before);
      return { ok: false };
    }
    const text = pattern ? searchText(whole.set, found.matched, told.format) : "";
    told = { ...told, search: { pattern, count: 0, text } };
    v.search = { pattern, matched: pattern ? found.matched : null };
    model.set("error", "");
    if (v.frames) show({ ...v.frames, meta: { ...v.frames.meta, search: searchMeta() } });
    return { ok: true };
  }

  /**
   * Draw the first frames Python sent with the widget's state, as the reply to a first
   * `frames` request is drawn, then ask for finer ones (and, on a canvas wider than the set
   * was held for, the frames it lacks) without waiting.
   * @param {{meta: any, columns: Record<string, any>}} reply
   */
  function drawFirst(reply) {
    told = reply.meta;
    const set = store.accept(reply.meta, reply.columns, null);
    if (reply.columns.found) found(reply.meta, reply.columns.found);
    wanted = Number(reply.meta.zoom);
    lastWidth = canvasWidth(v);
    showZoom(wanted);
    root.dataset.firstDrawMs = (performance.now() - t0).toFixed(1);
    root.dataset.firstFromState = "1";
    root.dataset.ready = "1";
    refine(set);
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
    if (!v.frames) return;
    const drawn = showZoom(v.frames.meta.zoom); // which frames are a pixel wide changed
    if (drawn && !drawn.complete && !offline) {
      act("frames", { node: v.frames.meta.zoom, detail: 1, below: drawn.set.tau });
    }
  });
  resize.observe(v.plot);
  let scrolled = 0;
  const onScroll = () => {
    v.scrollTop = v.plot.scrollTop;
    if (!scrolled) scrolled = requestAnimationFrame(() => { scrolled = 0; if (v.frames) draw(v); });
  };
  v.plot.addEventListener("scroll", onScroll, { passive: true });
  for (const k of Object.keys(TRAITS)) model.on(`change:${k}`, onChange);
  model.on("change:height", setHeight);
  model.on("change:view_version", onVersion);
  ui.sync(null);
  requestAnimationFrame(() => {
    // the first frames came with the widget's state (no round trip), unless the view changed
    const first = firstFrames(model);
    if (first) drawFirst(first);
    else fetchFrames();
  });

  return () => {
    channel.close();
    resize.disconnect();
    unlisten();
    v.plot.removeEventListener("scroll", onScroll);
    if (scrolled) cancelAnimationFrame(scrolled);
    for (const k of Object.keys(TRAITS)) model.off(`change:${k}`, onChange);
    model.off("change:height", setHeight);
    model.off("change:view_version", onVersion);
  };
}

export default { render };
