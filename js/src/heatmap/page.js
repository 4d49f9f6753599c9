// The page around the canvas: toolbar, banner, unreadable files, note, plot and side panel,
// and `sync()`, which shows Python's state in all of them.
import { errorBanner } from "../lib/banner.js";
import { h } from "../lib/dom.js";
import { controls } from "./controls.js";
import { drawSide } from "./side.js";

/** @typedef {import("./state.js").View} View */

/**
 * Lay out the page in `v.root`; returns `sync()`, which puts every part back to the model.
 * @param {View} v
 * @returns {() => void}
 */
export function layoutPage(v) {
  const { model } = v;
  const { toolbar, sync: syncToolbar } = controls(model, (action, args) => v.act(action, args));
  const loadErrors = h("details", { cls: "pw-hm-load-errors" });
  const note = h("div", { cls: "pw-hm-note" });
  const plot = h("div", { cls: "pw-hm-plot" }, [v.canvas, v.rect, v.tooltip]);
  const main = h("div", { cls: "pw-hm-main" }, [plot, v.side]);
  v.root.append(toolbar, errorBanner(model), loadErrors, note, main);

  return function sync() {
    // nothing loaded (e.g. a directory with no count files): only the message is shown
    const empty = !(model.get("group_labels") || []).length;
    toolbar.hidden = empty;
    main.hidden = empty;
    syncToolbar();
    const errs = model.get("load_errors") || [];
    loadErrors.replaceChildren(h("summary", { text: `${errs.length} file(s) could not be read` }),
      ...errs.map((e) => h("div", { cls: "pw-hm-load-error", text: e })));
    loadErrors.hidden = errs.length === 0;
    note.textContent = model.get("note") || "";
    note.hidden = !note.textContent;
    drawSide(v.side, model);
  };
}
