// CalltreeExplorer front end: a virtualised tree table (ARIA treegrid) over rows that
// Python sends window by window (see perfweave/widgets/explorer.py).
import { errorBanner } from "./lib/banner.js";
import { row2d } from "./lib/columns.js";
import { button, fillSelect, h } from "./lib/dom.js";
import { compact, exact, percent } from "./lib/format.js";
import { drawDistribution, PALETTE } from "./lib/glyph.js";
import { Channel } from "./lib/request.js";
import { VirtualRows } from "./lib/virtual.js";

const ROW_H = 24;
const INDENT = 14;
const FETCH_BEFORE = 100;
const FETCH_COUNT = 300;
const EXPANDED = 1, MATCH = 2, SELECTED = 4, CURRENT = 8, PARENT = 16;

function render({ model, el }) {
  const t0 = performance.now();
  const channel = new Channel(model);
  const root = h("div", { cls: "pw-explorer" });
  el.append(root);

  // ---------------------------------------------------------------- toolbar
  const searchInput = h("input", {
    cls: "pw-search-input",
    attrs: { type: "search", placeholder: "Search names (regex)", "aria-label": "search names" },
  });
  const searchCount = h("span", { cls: "pw-search-count" });
  const filterInput = h("input", {
    cls: "pw-filter-input",
    attrs: {
      type: "text",
      placeholder: "filter: `time (inc)` > 5%  or  name =~ '^MPI_'  or  MATCH ...",
      title:
        "A row query (`time (inc)` > 5%, name =~ '^MPI_', and / or / not) or a Hatchet " +
        'call-path query: MATCH (".", p)->("*") WHERE p."name" STARTS WITH "MPI"',
      "aria-label": "filter query",
    },
  });
  const toolbar = h("div", { cls: "pw-toolbar" }, [
    h("div", { cls: "pw-group pw-search" }, [
      searchInput,
      button("◀", () => act("search_step", { step: -1 }), { title: "previous match", action: "prev" }),
      button("▶", () => act("search_step", { step: 1 }), { title: "next match", action: "next" }),
      searchCount,
    ]),
    h("div", { cls: "pw-group pw-filter" }, [
      filterInput,
      button("Filter", () => applyFilter(), { cls: "pw-primary", action: "filter" }),
      button("Squash", () => act("squash"), { title: "drop nodes without rows", action: "squash" }),
    ]),
    h("div", { cls: "pw-group pw-node-actions" }, [
      button("Focus", () => onCursor("focus"), { title: "keep only the cursor row's subtree", action: "focus" }),
      button("Drop", () => onCursor("drop"), { title: "remove the cursor row's subtree", action: "drop" }),
      button("Expand all", () => onCursor("expand_all"), { title: "open everything below the cursor row", action: "expand-all" }),
    ]),
  ]);
  // ensemble controls: the statistic shown and the metadata column colouring profiles
  const statSelect = h("select", { cls: "pw-stat", attrs: { "aria-label": "statistic" } });
  const colorSelect = h("select", { cls: "pw-color-by", attrs: { "aria-label": "colour by" } });
  statSelect.addEventListener("change", () => act("stat", { stat: statSelect.value }));
  colorSelect.addEventListener("change", () => act("color_by", { column: colorSelect.value || null }));
  const ensembleBar = h("div", { cls: "pw-group pw-ensemble" }, [
    h("label", { text: "statistic" }), statSelect,
    h("label", { text: "colour profiles by" }), colorSelect,
  ]);
  toolbar.append(ensembleBar);
  const historyBar = h("div", { cls: "pw-history" });
  const banner = errorBanner(model);

  // ---------------------------------------------------------------- table
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
  const legend = h("div", { cls: "pw-legend" });
  const tooltip = h("div", { cls: "pw-tooltip", attrs: { role: "tooltip" } });
  tooltip.hidden = true;
  root.append(toolbar, historyBar, banner, legend, head, body, status, tooltip);

  const state = { start: 0, total: 0, cols: null, cursor: 0, fetching: false, again: false };

  function columns() {
    return model.get("columns") || [];
  }
  function mode() {
    return model.get("mode");
  }
  function hasGlyph() {
    return mode() === "ensemble" && (model.get("glyph") || {}).metric;
  }

  function layout() {
    // a metric column is wide enough for its label on two lines, and its numbers
    const widths = columns().map((c) => `${Math.min(230, Math.max(150, 4 * c.label.length + 40))}px`);
    const tpl = ["minmax(260px, 1fr)", ...widths];
    if (hasGlyph()) tpl.push("150px");
    root.style.setProperty("--pw-cols", tpl.join(" "));
    fitHeight();
  }

  function fitHeight() {
    // as tall as the rows need, at most `height` pixels (then it scrolls)
    const need = Math.max(3, state.total) * ROW_H + 2;
    body.style.height = `${Math.min(model.get("height"), need)}px`;
  }

  function drawHead() {
    head.replaceChildren();
    const sortKey = model.get("sort_column");
    const desc = model.get("sort_descending");
    head.append(h("div", { cls: "pw-hcell pw-hname", text: "Node", attrs: { role: "columnheader" } }));
    for (const col of columns()) {
      const sorted = col.key === sortKey;
      const cell = h("div", {
        cls: `pw-hcell pw-hmetric${sorted ? " pw-sorted" : ""}`,
        attrs: {
          role: "columnheader",
          "data-col": col.key,
          "aria-sort": sorted ? (desc ? "descending" : "ascending") : "none",
        },
        title: `${col.label}: click to sort children by it`,
      });
      cell.append(h("span", { cls: "pw-hlabel", text: col.label }));
      if (sorted) cell.append(h("span", { cls: "pw-arrow", text: desc ? " ▼" : " ▲" }));
      cell.addEventListener("click", () =>
        act("sort", { column: col.key, descending: sorted ? !desc : true }),
      );
      head.append(cell);
    }
    if (hasGlyph()) {
      const g = model.get("glyph");
      head.append(h("div", {
        cls: "pw-hcell pw-hglyph",
        text: `${g.metric} across ${g.profiles.length} profiles`,
        attrs: { role: "columnheader" },
      }));
    }
  }

  function drawEnsembleBar() {
    const g = model.get("glyph") || {};
    ensembleBar.hidden = !hasGlyph();
    if (ensembleBar.hidden) return;
    fillSelect(statSelect, (g.stats || []).map((s) => [s, s]), g.stat);
    fillSelect(colorSelect, [["", "(none)"], ...(g.color_columns || []).map((c) => [c, c])], g.color_by || "");
  }

  function drawLegend() {
    legend.replaceChildren();
    const g = model.get("glyph") || {};
    if (mode() === "compare") {
      legend.append(
        h("span", { cls: "pw-key pw-key-pos" }), h("span", { text: " a slower than b   " }),
        h("span", { cls: "pw-key pw-key-neg" }), h("span", { text: " a faster than b" }),
      );
    } else if (hasGlyph() && g.categories && g.categories.length) {
      legend.append(h("span", { text: `${g.color_by}: ` }));
      g.categories.forEach((name, i) => {
        const key = h("span", { cls: "pw-key" });
        key.style.background = PALETTE[i % PALETTE.length];
        legend.append(key, h("span", { text: ` ${name}   ` }));
      });
    }
    legend.hidden = !legend.childNodes.length;
  }

  function drawHistory() {
    historyBar.replaceChildren();
    const labels = model.get("history_labels") || [];
    if (!labels.length) {
      historyBar.hidden = true;
      return;
    }
    historyBar.hidden = false;
    historyBar.append(h("span", { cls: "pw-history-title", text: "History:" }));
    for (const label of labels) historyBar.append(h("span", { cls: "pw-chip", text: label }));
    historyBar.append(button("Undo", () => act("undo"), { action: "undo", title: "take back the last step" }));
  }

  function drawStatus() {
    const s = model.get("search_state") || {};
    searchCount.textContent = s.pattern ? `${s.count ? s.current : 0} / ${s.count}` : "";
    const parts = [
      `${state.total.toLocaleString()} rows shown`,
      `${model.get("node_count").toLocaleString()} nodes`,
    ];
    const sel = model.get("selected_count");
    if (sel) parts.push(`${sel} selected`);
    const sortCol = columns().find((c) => c.key === model.get("sort_column"));
    if (sortCol) parts.push(`children sorted by ${sortCol.label} ${model.get("sort_descending") ? "↓" : "↑"}`);
    status.textContent = parts.join(" · ");
  }

  // ---------------------------------------------------------------- rows
  function makeRow() {
    const row = h("div", { cls: "pw-row", attrs: { role: "row" } });
    const toggle = h("span", { cls: "pw-toggle", attrs: { "aria-hidden": "true" } });
    const name = h("span", { cls: "pw-name" });
    const nameCell = h("div", { cls: "pw-cell pw-name-cell", attrs: { role: "gridcell" } }, [toggle, name]);
    row.append(nameCell);
    row._toggle = toggle;
    row._name = name;
    row._nameCell = nameCell;
    row._metrics = [];
    row._glyph = null;
    toggle.addEventListener("click", (ev) => {
      ev.stopPropagation();
      if (row._vid >= 0 && row._parent) act("toggle", { vid: row._vid });
    });
    row.addEventListener("click", (ev) => {
      if (row._vid < 0) return;
      state.cursor = row._row;
      act("select", { vid: row._vid, add: ev.ctrlKey || ev.metaKey });
    });
    row.addEventListener("dblclick", () => {
      if (row._vid >= 0 && row._parent) act("toggle", { vid: row._vid });
    });
    return row;
  }

  function ensureCells(row) {
    const cols = columns();
    while (row._metrics.length < cols.length) {
      const bar = h("div", { cls: "pw-bar" });
      const val = h("span", { cls: "pw-val" });
      const pct = h("span", { cls: "pw-pct" });
      const cell = h("div", { cls: "pw-cell pw-metric", attrs: { role: "gridcell" } }, [bar, val, pct]);
      cell._bar = bar;
      cell._val = val;
      cell._pct = pct;
      cell._index = row._metrics.length;
      cell.addEventListener("mouseenter", () => showTip(row, cell));
      cell.addEventListener("mouseleave", hideTip);
      row._metrics.push(cell);
      row.append(cell);
    }
    while (row._metrics.length > cols.length) row._metrics.pop().remove();
    if (hasGlyph() && !row._glyph) {
      const canvas = h("canvas", { cls: "pw-canvas" });
      row._glyph = h("div", { cls: "pw-cell pw-glyph", attrs: { role: "gridcell" } }, [canvas]);
      row._glyph._canvas = canvas;
      row._glyph.addEventListener("mouseenter", () => showGlyphTip(row));
      row._glyph.addEventListener("mouseleave", hideTip);
      row.append(row._glyph);
    } else if (!hasGlyph() && row._glyph) {
      row._glyph.remove();
      row._glyph = null;
    } else if (row._glyph) {
      row.append(row._glyph); // keep it last
    }
  }

  function fillRow(row, r) {
    ensureCells(row);
    row.dataset.row = r;
    const k = r - state.start;
    const c = state.cols;
    if (!c || k < 0 || k >= c.vid.length) {
      // a placeholder until the rows arrive: nothing of the row drawn here before stays
      row._vid = -1;
      row._parent = false;
      for (const a of ["data-node", "aria-level", "aria-expanded", "aria-selected"]) row.removeAttribute(a);
      row.classList.remove("pw-selected", "pw-match", "pw-current", "pw-cursor");
      if (row._glyph) row._glyph._canvas.getContext("2d").clearRect(0, 0, row._glyph._canvas.width, row._glyph._canvas.height);
      row.classList.add("pw-loading");
      row._name.textContent = "…";
      row._toggle.textContent = "";
      for (const cell of row._metrics) {
        cell._val.textContent = "";
        cell._pct.textContent = "";
        cell._bar.style.width = "0";
      }
      wantRows();
      return;
    }
    row.classList.remove("pw-loading");
    const flags = c.flags[k];
    row._vid = c.vid[k];
    row._row = r;
    row._k = k;
    row._parent = (flags & PARENT) !== 0;
    row.dataset.node = c.node[k];
    row.setAttribute("aria-level", String(c.depth[k] + 1));
    if (row._parent) row.setAttribute("aria-expanded", String((flags & EXPANDED) !== 0));
    else row.removeAttribute("aria-expanded");
    row.setAttribute("aria-selected", String((flags & SELECTED) !== 0));
    row.classList.toggle("pw-selected", (flags & SELECTED) !== 0);
    row.classList.toggle("pw-match", (flags & MATCH) !== 0);
    row.classList.toggle("pw-current", (flags & CURRENT) !== 0);
    row.classList.toggle("pw-cursor", r === state.cursor);
    row._toggle.textContent = row._parent ? ((flags & EXPANDED) ? "▾" : "▸") : "";
    row._nameCell.style.paddingLeft = `${6 + c.depth[k] * INDENT}px`;
    const name = c.name[k];
    row._name.textContent = name;
    row._nameCell.title = row._parent ? `${name}  (${c.nchild[k]} children)` : name;
    const cols = columns();
    for (let i = 0; i < cols.length; i++) fillMetric(row._metrics[i], cols[i], c[`c${i}`][k]);
    if (row._glyph) {
      drawDistribution(
        row._glyph._canvas,
        row2d(c.quartiles, k),
        c.strip.subarray(k * c.strip.shape[1], (k + 1) * c.strip.shape[1]),
        (model.get("glyph") || {}).codes || [],
      );
    }
  }

  function fillMetric(cell, col, v) {
    if (col.kind === "text" || col.kind === "extra") {
      // a column set with set_extra_columns: its value (text as text), no bar, no share
      cell._val.textContent = col.kind === "text" ? String(v) : compact(v);
      cell._pct.textContent = "";
      cell._bar.className = "pw-bar";
      cell._bar.style.width = "0";
      return;
    }
    cell._val.textContent = compact(v);
    cell._pct.textContent = col.kind === "diff" ? "" : percent(v, col.total);
    const x = Number(v);
    const frac = col.total && Number.isFinite(x) ? Math.min(1, Math.abs(x) / col.total) : 0;
    if (col.kind === "diff") {
      cell._bar.className = `pw-bar pw-diff ${x > 0 ? "pw-pos" : x < 0 ? "pw-neg" : ""}`;
      cell._bar.style.width = `${frac * 50}%`;
      cell._bar.style.left = x < 0 ? `${50 - frac * 50}%` : "50%";
    } else {
      cell._bar.className = `pw-bar pw-${col.kind}`;
      cell._bar.style.left = "0";
      cell._bar.style.width = `${frac * 100}%`;
    }
  }

  // ---------------------------------------------------------------- tooltips
  function placeTip(anchor) {
    // below the cell, kept inside the widget on the right
    const box = anchor.getBoundingClientRect();
    const rootBox = root.getBoundingClientRect();
    tooltip.hidden = false;
    const left = Math.min(box.left - rootBox.left, rootBox.width - tooltip.offsetWidth - 4);
    tooltip.style.left = `${Math.max(0, left)}px`;
    tooltip.style.top = `${box.bottom - rootBox.top + 2}px`;
  }

  function showTip(row, cell) {
    if (row._vid < 0) return;
    const col = columns()[cell._index];
    const v = state.cols[`c${cell._index}`][row._k];
    const lines = [
      `${col.label}: ${exact(v)}`,
      col.kind === "diff" || col.kind === "text" || col.kind === "extra"
        ? ""
        : `${percent(v, col.total) || "–"} of the total ${exact(col.total)}`,
      `node ${row.dataset.node}: ${state.cols.name[row._k]}`,
    ].filter(Boolean);
    tooltip.replaceChildren(...lines.map((t) => h("div", { text: t })));
    tooltip.dataset.value = exact(v);
    placeTip(cell);
  }

  function showGlyphTip(row) {
    if (row._vid < 0) return;
    const g = model.get("glyph");
    const [lo, q1, med, q3, hi] = row2d(state.cols.quartiles, row._k);
    tooltip.replaceChildren(
      h("div", { text: `${g.metric} across ${g.profiles.length} profiles` }),
      h("div", { text: `min ${exact(lo)} · q1 ${exact(q1)} · median ${exact(med)}` }),
      h("div", { text: `q3 ${exact(q3)} · max ${exact(hi)}` }),
      ...extremes(g.profiles, row._k).map((t) => h("div", { text: t })),
    );
    tooltip.dataset.value = exact(med);
    placeTip(row._glyph);
  }

  // The profiles (by their readable labels) at the low and high end of a row's glyph: the
  // strip's positions (0..254, 255 = no value), so profiles within 1/254 of the range tie.
  function extremes(labels, k) {
    const c = state.cols;
    const n = c.strip.shape[1];
    const pos = c.strip.subarray(k * n, (k + 1) * n);
    let lo = 255, hi = -1;
    for (const p of pos) if (p !== 255) { lo = Math.min(lo, p); hi = Math.max(hi, p); }
    if (hi < 0 || lo === hi) return [];
    const named = (v) => {
      const at = [];
      pos.forEach((p, i) => { if (p === v) at.push(labels[i]); });
      return at.slice(0, 3).join(", ") + (at.length > 3 ? ` +${at.length - 3}` : "");
    };
    return [`lowest: ${named(lo)}`, `highest: ${named(hi)}`];
  }

  function hideTip() {
    tooltip.hidden = true;
  }

  // ---------------------------------------------------------------- data flow
  const rows = new VirtualRows(body, { rowHeight: ROW_H, make: makeRow, fill: fillRow });

  function viewport() {
    const [first] = rows.range();
    return [Math.max(0, first - FETCH_BEFORE), FETCH_COUNT];
  }

  function accept(resp) {
    if (resp.rows) {
      state.start = resp.rows.start;
      state.total = resp.rows.total;
      state.cols = resp.columns;
      rows.setTotal(state.total);
      fitHeight();
      if (state.cursor >= state.total) state.cursor = Math.max(0, state.total - 1);
    }
    if (resp.scroll_to >= 0) {
      state.cursor = resp.scroll_to;
      rows.reveal(resp.scroll_to, true);
    }
    body.setAttribute("aria-rowcount", String(state.total));
    const drawn = rows.draw();
    drawStatus();
    root.dataset.rows = String(drawn[1] - drawn[0]);
    return resp;
  }

  function covered() {
    const [a, b] = rows.range();
    const c = state.cols;
    return c && a >= state.start && Math.min(b, state.total) <= state.start + c.vid.length;
  }

  async function wantRows() {
    if (state.fetching) {
      state.again = true;
      return;
    }
    state.fetching = true;
    try {
      do {
        state.again = false;
        const [start, count] = viewport();
        accept(await channel.request("rows", { start, count }));
      } while (state.again && !covered());
    } finally {
      state.fetching = false;
    }
  }

  /** Run an action in Python; the response carries the rows of the current viewport. */
  async function act(action, args = {}) {
    const t = performance.now();
    hideTip();
    const resp = await channel.request(action, { ...args, viewport: viewport() });
    accept(resp);
    root.dataset.lastAction = action;
    root.dataset.lastMs = (performance.now() - t).toFixed(1);
    if (resp.ok) body.focus({ preventScroll: true });
    return resp;
  }

  function applyFilter() {
    const query = filterInput.value.trim();
    if (query) act("filter", { query });
  }

  function cursorRow() {
    const k = state.cursor - state.start;
    if (!state.cols || k < 0 || k >= state.cols.vid.length) return null;
    return { k, vid: state.cols.vid[k], flags: state.cols.flags[k], parentRow: state.cols.parent_row[k] };
  }

  function onCursor(action) {
    const cur = cursorRow();
    if (cur) act(action, { vid: cur.vid });
  }

  function moveCursor(row) {
    state.cursor = Math.max(0, Math.min(state.total - 1, row));
    rows.reveal(state.cursor);
    rows.draw();
    if (!covered()) wantRows();
  }

  // ---------------------------------------------------------------- keyboard & inputs
  body.addEventListener("keydown", (ev) => {
    const cur = cursorRow();
    const page = Math.max(1, Math.floor(body.clientHeight / ROW_H) - 1);
    switch (ev.key) {
      case "ArrowDown": moveCursor(state.cursor + 1); break;
      case "ArrowUp": moveCursor(state.cursor - 1); break;
      case "PageDown": moveCursor(state.cursor + page); break;
      case "PageUp": moveCursor(state.cursor - page); break;
      case "Home": moveCursor(0); break;
      case "End": moveCursor(state.total - 1); break;
      case "ArrowRight":
        if (cur && cur.flags & PARENT) {
          if (cur.flags & EXPANDED) moveCursor(state.cursor + 1);
          else act("toggle", { vid: cur.vid });
        }
        break;
      case "ArrowLeft":
        if (cur && cur.flags & EXPANDED) act("toggle", { vid: cur.vid });
        else if (cur && cur.parentRow >= 0) moveCursor(cur.parentRow);
        break;
      case "Enter":
      case " ":
        if (cur) act("select", { vid: cur.vid, add: ev.ctrlKey || ev.metaKey });
        break;
      default:
        return;
    }
    ev.preventDefault();
  });

  let searchTimer = 0;
  searchInput.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => act("search", { pattern: searchInput.value }), 250);
  });
  searchInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      clearTimeout(searchTimer);
      const s = model.get("search_state") || {};
      if (s.pattern === searchInput.value && s.count) act("search_step", { step: ev.shiftKey ? -1 : 1 });
      else act("search", { pattern: searchInput.value });
    }
  });
  filterInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") applyFilter();
  });

  // ---------------------------------------------------------------- model changes
  function redrawAll() {
    layout();
    drawHead();
    drawEnsembleBar();
    drawLegend();
    drawHistory();
    drawStatus();
  }
  const onColumns = () => {
    redrawAll();
    rows.draw();
  };
  const onVersion = () => {
    // a Python-side change (a method called in the notebook): fetch the rows again,
    // unless a request of ours is in flight (its response brings the new rows)
    setTimeout(() => {
      if (!channel.pending) wantRows();
    }, 0);
  };
  const traits = ["columns", "sort_column", "sort_descending", "history_labels", "glyph", "height"];
  for (const t of traits) model.on(`change:${t}`, onColumns);
  model.on("change:search_state", drawStatus);
  model.on("change:selected_count", drawStatus);
  model.on("change:view_version", onVersion);

  redrawAll();
  const [start, count] = viewport();
  channel.request("rows", { start, count }).then((resp) => {
    accept(resp);
    root.dataset.firstRowsMs = (performance.now() - t0).toFixed(1);
    root.dataset.ready = "1";
  });

  return () => {
    channel.close();
    for (const t of traits) model.off(`change:${t}`, onColumns);
    model.off("change:search_state", drawStatus);
    model.off("change:selected_count", drawStatus);
    model.off("change:view_version", onVersion);
  };
}

export default { render };
