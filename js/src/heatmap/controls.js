// The toolbar: one <select> per control Python has; a change is a "set" request.
import { button, fillSelect, h } from "../lib/dom.js";
import { CONTROLS } from "./protocol.js";

/** @type {Record<string, string>} */
const LABELS = {
  lead_rank: "lead rank", group: "call group", direction: "matrix", unit: "unit",
  scale: "scale", reduce: "block", group_by: "group rows by",
};

/**
 * Build the toolbar (the option selects' choices are the protocol's CONTROLS); `sync()` puts
 * every control back to Python's state.
 * @param {import("./protocol.js").WidgetModel} model
 * @param {(action: import("./state.js").ActionName, args?: Record<string, any>) => Promise<any>} act
 * @returns {{toolbar: HTMLElement, sync: () => void}}
 */
export function controls(model, act) {
  /** The option traits the selects show (each one of the model's string traits). */
  const OPTIONS = /** @type {("direction" | "unit" | "scale" | "reduce" | "group_by")[]} */ (Object.keys(CONTROLS));
  /** @type {Record<string, HTMLSelectElement>} */
  const selects = {};
  const control = (/** @type {string} */ name, /** @type {[string, string][]} */ options) => {
    const s = /** @type {HTMLSelectElement} */ (h("select", { cls: `pw-hm-${name}`, attrs: { "aria-label": LABELS[name] } }));
    fillSelect(s, options);
    s.addEventListener("change", () => {
      /** @type {string | number} */
      let v = s.value;
      if (name === "lead_rank" || name === "group") v = Number(v);
      act("set", { name, value: v });
    });
    selects[name] = s;
    return h("label", { cls: "pw-hm-control" }, [h("span", { text: LABELS[name] }), s]);
  };
  const toolbar = h("div", { cls: "pw-toolbar" }, [
    control("lead_rank", []),
    control("group", []),
    ...Object.entries(CONTROLS).map(([name, options]) => control(name, options)),
    button("Zoom out", () => act("zoom_out"), { action: "zoom-out", title: "back to the previous view (or double-click)" }),
  ]);

  function sync() {
    const ranks = model.get("lead_ranks") || [];
    fillSelect(selects.lead_rank, ranks.map((r) => [String(r), String(r)]), String(model.get("lead_rank")));
    const labels = model.get("group_labels") || [];
    fillSelect(selects.group, labels.map((l, i) => [String(i), l]), String(model.get("group_index")));
    for (const k of OPTIONS) selects[k].value = model.get(k);
    const host = /** @type {HTMLOptionElement} */ (selects.group_by.querySelector("option[value=host]"));
    host.disabled = !model.get("hosts_known");
    host.title = host.disabled ? "no location file names the hosts of these calls" : "";
  }
  return { toolbar, sync };
}
