// The side panel: the call group, the selection, its pattern, statistics and timings.
import { h } from "../lib/dom.js";
import { grouped, plural, seconds } from "../lib/format.js";

const PATTERN_LINES = 12; // pattern tallies listed
/** The core's pattern categories in words. */
/** @type {Record<string, string>} */
const CATEGORY = { "1->N": "one to many", "N->1": "many to one", "N->N": "many to many", empty: "no messages", other: "irregular" };
/** Statistics rows: the core's name -> what a reader calls it. */
/** @type {Record<string, string>} */
const STAT = {
  bytes: "bytes", messages: "messages", zeros: "zero counts", min_nonzero: "smallest non-zero count",
  max: "largest count", large: "messages ≥ 200 bytes", small: "messages < 200 bytes (incl. zeros)",
};

/**
 * Fill `side` from the model's `info` and `selection_state`.
 * @param {HTMLElement} side
 * @param {import("./protocol.js").WidgetModel} model
 */
export function drawSide(side, model) {
  const info = model.get("info") || {};
  const sel = model.get("selection_state") || {};
  const parts = [];
  if (info.calls) {
    // a group of 121 scattered calls names them all: two lines here, the whole list on hover
    const title = `${info.collective} ${info.calls}`;
    parts.push(h("h4", { cls: "pw-hm-title", text: title, title }));
    const hosts = info.hosts ? `, ${plural(info.hosts, "host")}` : "";
    parts.push(h("div", {
      text: `communicator of ${plural(info.comm_size, "rank")}, ${grouped(info.datatype_size)}-byte datatype, ` +
        `${plural(info.rank_groups, "group")} of ranks with identical rows${hosts}`,
    }));
  }
  if (sel.ranks !== undefined) {
    parts.push(h("h4", { text: "Selection" }));
    parts.push(h("div", { cls: "pw-hm-selection", text: `rows ${sel.ranks} → columns ${sel.peers}: ${grouped(sel.total)} ${model.get("unit")}` }));
  }
  if (info.pattern) {
    const cats = info.pattern.categories.map((/** @type {string} */ c) => CATEGORY[c] || c).join(", ");
    parts.push(h("h4", { text: `Pattern ${info.pattern.number}: ${cats}` }));
    const list = h("ul", { cls: "pw-hm-patterns" });
    const lines = info.patterns || [];
    for (const line of lines.slice(0, PATTERN_LINES)) list.append(h("li", { text: line }));
    if (lines.length > PATTERN_LINES) {
      list.append(h("li", { cls: "pw-hm-muted", text: `… ${lines.length - PATTERN_LINES} more (heatmap.info["patterns"])` }));
    }
    parts.push(list);
  }
  if (info.stats) {
    parts.push(h("h4", { text: `Statistics of one call (${model.get("direction")})` }));
    parts.push(table([["", "value"], ...info.stats.map((/** @type {[string, any]} */ [k, v]) =>
      [STAT[k] || k.replace("_", " "), v === null ? "–" : grouped(v)])]));
  }
  parts.push(h("h4", { text: "Timings over ranks and calls" }));
  if (info.timings && info.timings.length) {
    parts.push(table([["", "n", "min", "mean", "max"],
      ...info.timings.map((/** @type {[string, number, number, number, number]} */ [m, n, lo, mean, hi]) =>
        [m.replace("_", " "), grouped(n), seconds(lo), seconds(mean), seconds(hi)])]));
  } else {
    parts.push(h("div", { cls: "pw-hm-muted", text: "no timings for these calls" }));
  }
  side.replaceChildren(...parts);
}

/** @param {string[][]} rows header first */
function table(rows) {
  const t = h("table", { cls: "pw-hm-table" });
  rows.forEach((r, i) => t.append(h("tr", {}, r.map((c) => h(i ? "td" : "th", { text: c })))));
  return t;
}
