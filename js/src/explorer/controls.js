// CalltreeExplorer front end, controls: the toolbar (search, filter, node actions, ensemble
// choices), the history chips, and the elements of the table. Handlers are wired in events.js.
import { errorBanner } from "../lib/banner.js";
import { button, fillSelect, h } from "../lib/dom.js";

/** @typedef {import("./state.js").ExplorerState} ExplorerState */
/** @typedef {import("./protocol.js").WidgetModel} Model */

/**
 * @typedef {object} Elements
 * @property {HTMLDivElement} root
 * @property {HTMLInputElement} searchInput
 * @property {HTMLSpanElement} searchCount
 * @property {HTMLInputElement} filterInput
 * @property {HTMLSelectElement} statSelect
 * @property {HTMLSelectElement} colorSelect
 * @property {HTMLDivElement} ensembleBar
 * @property {HTMLDivElement} historyBar
 * @property {HTMLSpanElement} historySteps the history's chips (after its title and Undo)
 * @property {HTMLDivElement} head
 * @property {HTMLDivElement} body
 * @property {HTMLDivElement} status
 * @property {HTMLDivElement} details
 * @property {HTMLDivElement} legend
 * @property {HTMLDivElement} tooltip
 * @property {Record<string, HTMLButtonElement>} buttons by action name
 */

/** chips shown before a long history is folded */
const MAX_CHIPS = 5;

const FILTER_HELP =
  "A row query (`time (inc)` > 5%, name =~ '^MPI_', and / or / not), in an ensemble also " +
  "on statistics (`Avg time/rank_std` > 0.1), or a Hatchet call-path query: " +
  'MATCH (".", p)->("*") WHERE p."name" STARTS WITH "MPI"';

/**
 * Build the widget's elements inside `el`.
 * @param {Model} model
 * @param {HTMLElement} el
 * @returns {Elements}
 */
export function buildControls(model, el) {
  const root = h("div", { cls: "pw-explorer" });
  el.append(root);
  const searchInput = h("input", {
    cls: "pw-search-input",
    attrs: { type: "search", placeholder: "Search names (regex)", "aria-label": "search names" },
  });
  const searchCount = h("span", { cls: "pw-search-count" });
  const filterInput = h("input", {
    cls: "pw-filter-input",
    attrs: { type: "text", title: FILTER_HELP, "aria-label": "filter query" },
  });
  /** @type {Record<string, HTMLButtonElement>} */
  const buttons = {};
  /** @param {string} label @param {string} action @param {string} [title] @param {string} [cls] */
  const action = (label, action, title, cls) =>
    (buttons[action] = button(label, () => {}, { action, title, cls }));
  const toolbar = h("div", { cls: "pw-toolbar" }, [
    h("div", { cls: "pw-group pw-search" }, [
      searchInput,
      action("◀", "prev", "previous match"),
      action("▶", "next", "next match"),
      searchCount,
    ]),
    h("div", { cls: "pw-group pw-filter" }, [
      filterInput,
      action("Filter", "filter", "keep the rows the query selects (then squash)", "pw-primary"),
      action("Squash", "squash", "drop nodes without rows"),
    ]),
    h("div", { cls: "pw-group pw-node-actions" }, [
      action("Focus", "focus", "keep only the cursor row's subtree"),
      action("Drop", "drop", "remove the cursor row's subtree"),
      action("Expand all", "expand-all",
        "open everything below the cursor row (on a leaf or with no cursor row: the whole " +
        "tree, up to 10,000 rows)"),
    ]),
  ]);
  const statSelect = h("select", { cls: "pw-stat", attrs: { "aria-label": "statistic" } });
  const colorSelect = h("select", { cls: "pw-color-by", attrs: { "aria-label": "color by" } });
  const ensembleBar = h("div", { cls: "pw-group pw-ensemble" }, [
    h("label", { text: "statistic" }), statSelect,
    h("label", { text: "color profiles by" }), colorSelect,
  ]);
  toolbar.append(ensembleBar);
  // the Undo button is made once and stays first: chips change under a burst of steps, and
  // a click must not land on a button that was replaced or moved between press and release
  const historySteps = h("span", { cls: "pw-history-steps" });
  const historyBar = h("div", { cls: "pw-history" }, [
    h("span", { cls: "pw-history-title", text: "History:" }),
    action("Undo", "undo", "take back the last step"),
    historySteps,
  ]);
  historyBar.hidden = true;
  const banner = errorBanner(model);
  const head = h("div", { cls: "pw-head", attrs: { role: "row" } });
  const body = h("div", {
    cls: "pw-body",
    // JupyterLab's notebook shortcuts (arrows, Enter) must not take the tree's keys
    attrs: {
      role: "treegrid",
      tabindex: "0",
      "aria-label": "calltree",
      "data-lm-suppress-shortcuts": "true",
    },
  });
  const status = h("div", { cls: "pw-status", attrs: { "aria-live": "polite" } });
  const details = h("div", { cls: "pw-details", attrs: { "aria-live": "polite" } });
  const legend = h("div", { cls: "pw-legend" });
  const tooltip = h("div", { cls: "pw-tooltip", attrs: { role: "tooltip" } });
  tooltip.hidden = true;
  details.hidden = true;
  // the header and its rows scroll sideways together when the columns are wider than the
  // output (a ScalingView's extra columns in a 768 px notebook): nothing is cut off
  const table = h("div", { cls: "pw-table" }, [head, body]);
  root.append(toolbar, historyBar, banner, legend, table, status, details, tooltip);
  return {
    root, searchInput, searchCount, filterInput, statSelect, colorSelect, ensembleBar,
    historyBar, historySteps, head, body, status, details, legend, tooltip, buttons,
  };
}

/**
 * The filter box's example query, from the column the table is sorted by, and a width that
 * shows it whole.
 * @param {Elements} els
 * @param {ExplorerState} state
 */
export function drawFilterHint(els, state) {
  // a metric the query language knows (an imbalance or extra column is not in the table)
  const metrics = state.columns().filter((c) => ["inc", "exc", "value"].includes(c.kind));
  const sorted = metrics.find((c) => c.key === state.model.get("sort_column"));
  const col = metrics.find((c) => c.kind === "inc") || sorted || metrics[0];
  const metric = state.mode() === "ensemble" ? col?.label.replace(/ \([a-z]+\)$/, "") : col?.key;
  const hint = metric ? `e.g. \`${metric}\` > 5%` : "e.g. name =~ '^MPI_'";
  els.filterInput.placeholder = hint;
  els.filterInput.style.width = `${Math.max(30, hint.length + 4)}ch`;
}

/**
 * Keep the search and filter boxes showing what Python holds: the search pattern and the
 * last filter's query, set from a notebook as well as typed. A box is only written when that
 * value changed (a sort re-sends the same pattern) and never while it has the focus (the
 * person is typing). Shows the values at once; returns the function to call on a change.
 * @param {Elements} els
 * @param {Model} model
 * @returns {() => void}
 */
export function drawBoxes(els, model) {
  /** @type {Record<string, string | undefined>} */
  const shown = {};
  /** @param {HTMLInputElement} input @param {string} key @param {string} value */
  const show = (input, key, value) => {
    if (shown[key] === value) return;
    if (input.ownerDocument.activeElement === input) return; // typing: leave it
    shown[key] = value;
    if (input.value !== value) input.value = value;
  };
  const draw = () => {
    const s = model.get("search_state") || {};
    show(els.searchInput, "search", s.pattern || "");
    show(els.filterInput, "filter", model.get("filter_query") || "");
  };
  draw();
  return draw;
}

/**
 * The ensemble's statistic and coloring choices (hidden for a frame).
 * @param {Elements} els
 * @param {ExplorerState} state
 */
export function drawEnsembleBar(els, state) {
  const g = state.glyph();
  els.ensembleBar.hidden = !(state.mode() === "ensemble" && state.hasGlyph());
  if (els.ensembleBar.hidden) return;
  fillSelect(els.statSelect, (g.stats || []).map((s) => [s, s]), g.stat);
  fillSelect(
    els.colorSelect,
    [["", "(none)"], ...(g.color_columns || []).map((c) => /** @type {[string, string]} */ ([c, c]))],
    g.color_by || "",
  );
}

/**
 * The history's chips (and the bar hidden while there are none); its Undo button stays.
 * @param {Elements} els
 * @param {Model} model
 */
export function drawHistory(els, model) {
  /** @type {string[]} */
  const labels = model.get("history_labels") || [];
  els.historyBar.hidden = !labels.length;
  // a long history keeps one line: its first step, "+N", and the last steps (all on hover)
  const shown = labels.length > MAX_CHIPS
    ? [labels[0], null, ...labels.slice(labels.length - (MAX_CHIPS - 1))]
    : labels;
  els.historySteps.replaceChildren(...shown.map((label) => {
    if (label !== null) return h("span", { cls: "pw-chip", text: label, title: label });
    const hidden = labels.slice(1, labels.length - (MAX_CHIPS - 1));
    return h("span", {
      cls: "pw-chip pw-chip-more",
      text: `+${hidden.length} more`,
      title: hidden.join("\n"),
    });
  }));
}
