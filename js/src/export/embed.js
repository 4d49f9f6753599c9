// Offline widget renderer of `perfweave export` (src/perfweave/apps/export/): draws a notebook's
// saved widget state in a standalone HTML page with no network and no kernel.
//
// The page inlines this bundle (ipywidgets' HTML manager with the core controls), then the
// AMD front ends of anywidget, bqplot and bqscales from their Python packages, each wrapped as
// `(function (define) { ... })(perfweaveEmbed.define("<module>"))`. anywidget models carry
// their own front end (`_esm`) in the saved state. perfweave widgets ask Python for their data
// windows; with no kernel, the requests recorded at export time (the first draw) are answered
// from the page, and any other action shows a message in the widget instead.
import * as base from "@jupyter-widgets/base";
import { HTMLManager } from "@jupyter-widgets/html-manager/lib/htmlmanager.js";
import { needsKernel } from "./needs_kernel.js";

const REPLIES_TYPE = "application/vnd.perfweave.replies+json";
const STATE_TYPE = "application/vnd.jupyter.widget-state+json";
const VIEW_TYPE = "application/vnd.jupyter.widget-view+json";
/** @typedef {(...deps: any[]) => any} Factory an AMD module's factory */
/** @typedef {{ payload: Record<string, any>, buffers: string[] }} Recorded a reply kept at export */
/** @typedef {import("@jupyter-widgets/base").WidgetModel} WidgetModel */

/** @type {Map<string, [string[], Factory]>} module name -> [deps, factory], run at first use */
const factories = new Map();
/** @type {Map<string, any>} */
const modules = new Map();
/** @type {Record<string, Record<string, Recorded>> | null} model id -> action -> reply */
let replies = null;

/** An AMD `define` that registers a module under `name`. Its factory runs when the module is
 * first needed (after the page loaded: bqscales reads document.body when it runs). */
/** @param {string} name */
function define(name) {
  /** @param {string[] | Factory} deps @param {Factory} [factory] */
  const amd = (deps, factory) => {
    if (typeof deps === "function") factories.set(name, [[], deps]);
    else if (factory) factories.set(name, [deps, factory]);
  };
  amd.amd = {};
  return amd;
}

/** @param {string} name @returns {any} */
function load(name) {
  if (name === "@jupyter-widgets/base") return base;
  if (!modules.has(name)) {
    const entry = factories.get(name);
    if (!entry) throw new Error(`widget module ${name} is not in this page`);
    modules.set(name, entry[1](...entry[0].map(load)));
  }
  return modules.get(name);
}

/** @param {string} b64 */
function decode(b64) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return new DataView(bytes.buffer);
}

/** @param {string} type */
function scriptJson(type) {
  const tag = document.querySelector(`script[type="${type}"]`);
  return tag ? JSON.parse(tag.textContent || "null") : null;
}

/** Answer a widget's request from the replies recorded when the notebook was exported.
 * @param {WidgetModel} model @param {{ id: number, action: string }} request */
function replay(model, request) {
  const saved = (replies = replies || scriptJson(REPLIES_TYPE) || {});
  const recorded = (saved[model.model_id] || {})[request.action];
  /** @type {Record<string, any>} */
  let message;
  /** @type {DataView[]} */
  let buffers = [];
  if (recorded) {
    message = { ...recorded.payload, type: "response", id: request.id };
    buffers = recorded.buffers.map(decode);
  } else {
    const error = needsKernel(request.action);
    // `offline`: a widget that answers this from what the page saved calls `claim()` (while
    // the response is delivered); otherwise the banner says the kernel is needed
    let claimed = false;
    message = { type: "response", id: request.id, ok: false, error, offline: true, claim: () => { claimed = true; } };
    setTimeout(() => model.trigger("msg:custom", message, buffers), 0);
    setTimeout(() => { if (!claimed) model.set("error", error); }, 0);
    return;
  }
  setTimeout(() => model.trigger("msg:custom", message, buffers), 0);
}

const send = base.WidgetModel.prototype.send;
/** @this {WidgetModel} @param {any} content @param {any} [callbacks] @param {any} [buffers] */
base.WidgetModel.prototype.send = function (content, callbacks, buffers) {
  if (this.comm) return send.call(this, content, callbacks, buffers);
  if (content && content.type === "request") replay(this, content);
};

// A control of a perfweave composite (ClassPicker, MergePanel, ScalingView: a box with the
// class pw-composite, see widgets/_base.py CompositeBase) asks Python for every change. On
// this page its change goes nowhere: the control snaps back to the saved state and the
// composite's banner says why, in the person's words.
/** @type {Map<WidgetModel, WidgetModel>} model of a control -> the composite holding it */
const composites = new Map();

/** Note every model below each composite of the page (once the state is loaded).
 * @param {WidgetModel[]} models */
function findComposites(models) {
  /** @param {WidgetModel} model @param {WidgetModel} top */
  const below = (model, top) => {
    for (const child of model.get("children") || []) {
      if (child && !composites.has(child)) {
        composites.set(child, top);
        below(child, top);
      }
    }
  };
  for (const model of models) {
    if ((model.get("_dom_classes") || []).includes("pw-composite")) below(model, model);
  }
}

const saveChanges = base.WidgetModel.prototype.save_changes;
/** @this {WidgetModel} @param {any} [callbacks] */
base.WidgetModel.prototype.save_changes = function (callbacks) {
  const top = this.comm ? undefined : composites.get(this);
  if (!top) return saveChanges.call(this, callbacks);
  const saved = this.previousAttributes();
  setTimeout(() => this.set(saved), 0); // the control shows the saved state again
  for (const view of Object.values(top.views || {})) {
    Promise.resolve(view).then((v) => {
      const banner = /** @type {any} */ (v && v.el && v.el.querySelector(".pw-error"));
      if (banner && typeof banner.showLocal === "function") banner.showLocal(needsKernel("control"));
    });
  }
};

/** @param {string} name */
function loader(name) {
  return new Promise((resolve) => resolve(load(name)));
}

/** Render every widget view of the page; sets body[data-widgets-rendered] to their number. */
async function render() {
  const state = scriptJson(STATE_TYPE);
  const tags = Array.from(document.querySelectorAll(`script[type="${VIEW_TYPE}"]`));
  let drawn = 0;
  if (state) {
    const manager = new HTMLManager({ loader });
    const models = await manager.set_state(state);
    findComposites(models);
    const byId = new Map(models.map((m) => [m.model_id, m]));
    for (const tag of tags) {
      const model = byId.get(JSON.parse(tag.textContent).model_id);
      if (!model || !tag.parentElement) continue;
      const host = document.createElement("div");
      host.className = "widget-subarea";
      tag.parentElement.insertBefore(host, tag);
      await manager.display_view(manager.create_view(model), host);
      drawn++;
    }
  }
  document.body.dataset.widgetsRendered = String(drawn);
  document.body.dataset.widgetViews = String(tags.length);
}

/** @type {any} */ (window).perfweaveEmbed = { define, render };
const start = () =>
  render().catch((error) => {
    console.error("perfweave export: widgets could not be drawn:", error);
    document.body.dataset.widgetsRendered = "error";
  });
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
