// The toolbar (metric, orientation, colouring, search), the breadcrumb and the legend.
import { button, fillSelect, h } from "../lib/dom.js";
import { css, LESS, MORE, NOT_SIGNIFICANT, SAME, shareColor } from "./colors.js";
import { GATHERED } from "./draw.js";
import { CONTROLS } from "./protocol.js";

/** @typedef {import("./state.js").Frames} Frames */

/** The most calls the breadcrumb names (a longer path shows its first two and last ones). */
const CRUMBS = 10;
/** @typedef {import("../lib/types.js").Model} Model */

/**
 * @param {Model} model
 * @param {import("./state.js").View["act"]} act
 * @param {(kind: "svg" | "png") => void} download
 */
export function controls(model, act, download) {
  const title = h("div", { cls: "pw-fl-title" });
  const metric = h("select", { attrs: { "aria-label": "metric" } });
  metric.addEventListener("change", () => act("set", { metric: metric.value }));
  const orientation = h("select", { attrs: { "aria-label": "orientation" } });
  orientation.addEventListener("change", () => act("set", { orientation: orientation.value }));
  const colorBy = h("select", { attrs: { "aria-label": "colour" } });
  colorBy.addEventListener("change", () => act("set", { color_by: colorBy.value }));
  const search = h("input", { cls: "pw-fl-search", attrs: { type: "search", placeholder: "search (regex), Enter", "aria-label": "search" } });
  search.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") act("search", { pattern: search.value });
    if (ev.key === "Escape") { search.value = ""; act("search", { pattern: "" }); }
  });
  const clear = button("×", () => { search.value = ""; act("search", { pattern: "" }); }, { title: "end the search", action: "clear-search" });
  const found = h("span", { cls: "pw-fl-found" });
  const svg = button("SVG", () => download("svg"), { title: "download the chart as SVG", action: "download-svg" });
  const png = button("PNG", () => download("png"), { title: "download the chart as PNG", action: "download-png" });
  const toolbar = h("div", { cls: "pw-toolbar" }, [metric, orientation, colorBy, search, clear, svg, png, found]);
  const crumbs = h("div", { cls: "pw-fl-crumbs", attrs: { "aria-label": "zoom path" } });
  const legend = h("div", { cls: "pw-fl-legend" });

  /** Put the controls to Python's state; the breadcrumb, search line and legend to `f`.
   * @param {Frames | null} f */
  function sync(f) {
    title.textContent = model.get("title") || "";
    const metrics = /** @type {string[]} */ (model.get("metrics") || []);
    fillSelect(metric, metrics.map((m) => [m, m]), model.get("metric"));
    fillSelect(orientation, CONTROLS.orientation, model.get("orientation"));
    fillSelect(colorBy, CONTROLS.color_by, model.get("color_by"));
    colorBy.hidden = Boolean(f && f.meta.compare);
    if (!f) return;
    const s = f.meta.search;
    if (document.activeElement !== search) search.value = s.pattern;
    found.textContent = s.text;
    const path = f.meta.path;
    // a deep zoom's path has thousands of calls: its first and last ones, the rest counted
    const shown = path.length > CRUMBS ? [...path.slice(0, 2), null, ...path.slice(2 - CRUMBS)] : path;
    crumbs.replaceChildren(
      button("all", () => act("zoom", { node: null }), { cls: "pw-fl-crumb", action: "zoom-out" }),
      ...shown.flatMap((p, k) => [
        h("span", { cls: "pw-fl-sep", text: "›" }),
        p === null
          ? h("span", { cls: "pw-fl-sep", text: `… ${(path.length - CRUMBS).toLocaleString("en-US")} more` })
          : button(p.name, () => act("zoom", { node: p.node }), { cls: `pw-fl-crumb${k === shown.length - 1 ? " pw-fl-current" : ""}` }),
      ]),
    );
    crumbs.hidden = f.meta.path.length === 0;
    legend.replaceChildren(...legendItems(model, f));
  }
  return { title, toolbar, crumbs, legend, sync };
}

/** @param {[number, number, number]} c @param {string} text */
function swatch(c, text) {
  const box = h("span", { cls: "pw-fl-swatch" });
  box.style.background = css(c);
  return h("span", { cls: "pw-fl-key" }, [box, text]);
}

/** A legend key with the hatching of a guessed frame. @param {string} text */
function hatched(text) {
  const box = h("span", { cls: "pw-fl-swatch pw-fl-hatched" });
  return h("span", { cls: "pw-fl-key" }, [box, text]);
}

/** @param {Model} model @param {Frames} f @returns {HTMLElement[]} */
function legendItems(model, f) {
  const m = f.meta;
  const width = h("span", { text: `width: inclusive ${m.metric}${m.compare ? " of the larger side" : ""} (the whole: ${m.total_text})` });
  if (m.search.pattern) {
    return [width, swatch([214, 60, 214], `matches /${m.search.pattern}/`), swatch([232, 232, 232], "other frames")];
  }
  if (m.compare) {
    const [a, b] = m.labels || ["a", "b"];
    const out = [width, swatch(MORE, `${a} larger`), swatch(LESS, `${b} larger`), swatch(SAME, "equal")];
    if (m.tested) out.push(swatch(NOT_SIGNIFICANT, "difference not significant"));
    out.push(h("span", { cls: "pw-fl-test", text: m.test || "" }));
    return out;
  }
  const extra = [];
  if (f.gathered > 0) {
    extra.push(swatch(GATHERED, "frames narrower than a pixel, gathered"));
  }
  if (m.predicted) extra.push(hatched("poorly fitted model or none: a guess"));
  if (model.get("color_by") === "exclusive") {
    return [width, swatch(shareColor(0), "0% exclusive"), swatch(shareColor(0.5), "50%"), swatch(shareColor(1), "100% of the frame is its own time"), ...extra];
  }
  const what = model.get("color_by") === "module" ? "module" : "name";
  return [width, h("span", { cls: "pw-fl-muted", text: `colour: a hash of the ${what} (the same ${what}, the same colour)` }), ...extra];
}
