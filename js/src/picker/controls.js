// The bar above a ClassPicker table: previous/next page of class columns, which classes
// are shown, and the table's note.
import { button, h } from "../lib/dom.js";

/** @typedef {import("./protocol.js").WidgetModel} Model */
/** @typedef {import("./state.js").RowWindow} RowWindow */

/**
 * @typedef {object} PageBar
 * @property {HTMLDivElement} el
 * @property {(model: Model, win: RowWindow | null) => void} update
 */

/**
 * The page bar; `turn(step)` shows the previous (-1) or next (+1) page of classes.
 * @param {(step: number) => void} turn
 * @returns {PageBar}
 */
export function pageBar(turn) {
  const label = h("span", { cls: "pw-pt-page" });
  const prev = button("◀", () => turn(-1), { cls: "pw-pt-prev", title: "previous classes" });
  const next = button("▶", () => turn(1), { cls: "pw-pt-next", title: "next classes" });
  const note = h("span", { cls: "pw-pt-note" });
  const el = h("div", { cls: "pw-pt-bar" }, [prev, label, next, note]);
  return {
    el,
    update(model, win) {
      const n = Number(model.get("class_count"));
      const c0 = win ? win.col_start : 0;
      const shown = win ? win.classes.length : 0;
      label.textContent = n ? `classes ${c0 + 1}–${c0 + shown} of ${n}` : "no classes";
      prev.disabled = c0 <= 0;
      next.disabled = c0 + shown >= n;
      el.classList.toggle("pw-pt-onepage", n <= Number(model.get("page")));
      note.textContent = model.get("note") || "";
    },
  };
}
