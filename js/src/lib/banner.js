// The error banner of a widget: one element per view that shows the model's `error` trait as
// text (never markup), dismissable. `showLocal` shows a message that only the page knows (the
// kernel did not answer; this is a saved page without a kernel) without touching the model,
// since a model change could not reach a kernel that is gone. Python's next `error` change
// (or a reply from the kernel, see request.js) replaces it.
import { h, button } from "./dom.js";

/** @typedef {import("./types.js").Model} Model */

/**
 * A banner element with `showLocal(message)` (shows a page-only message; "" hides it).
 * @typedef {HTMLDivElement & { showLocal: (message: string) => void }} Banner
 */

/** @type {WeakMap<object, Set<Banner>>} banners drawn for each model (one per view) */
const BANNERS = new WeakMap();

/**
 * The banner of one view of `model`.
 * @param {Model} model
 * @returns {Banner}
 */
export function errorBanner(model) {
  const text = h("span", { cls: "pw-error-text" });
  const el = /** @type {Banner} */ (h("div", { cls: "pw-error", attrs: { role: "alert" } }, [text]));
  el.append(button("×", () => { el.hidden = true; }, { cls: "pw-error-close", title: "dismiss" }));
  /** @param {string} msg @param {boolean} local */
  const put = (msg, local) => {
    text.textContent = msg;
    el.hidden = !msg;
    if (local) el.dataset.local = "1";
    else delete el.dataset.local;
  };
  const show = () => put(model.get("error") || "", false);
  el.showLocal = (message) => put(message, Boolean(message));
  model.on("change:error", show);
  show();
  let set = BANNERS.get(model);
  if (!set) BANNERS.set(model, (set = new Set()));
  set.add(el);
  return el;
}

/**
 * Show `message` in every banner drawn for `model` (page only, the model is not changed);
 * `""` takes a page-only message away again (Python's own `error` is shown then).
 * @param {Model} model
 * @param {string} message
 * @returns {number} how many banners show it
 */
export function showLocal(model, message) {
  const set = BANNERS.get(model);
  if (!set) return 0;
  let shown = 0;
  for (const el of [...set]) {
    if (!el.isConnected) {
      set.delete(el); // its view was closed
      continue;
    }
    if (message) el.showLocal(message);
    else if (el.dataset.local) el.showLocal(model.get("error") || "");
    shown++;
  }
  return shown;
}
