// CalltreeExplorer front end, events: requests to Python and their replies, the keyboard,
// the inputs, and the model's changes.
//
// Focus stays where the person put it: a reply never moves it (a query typed into the filter
// box while an earlier one is answered must reach Python, not select a row).
import { unpack } from "../lib/columns.js";
import { drawDetails, drawHead, drawLegend, drawStatus, fitHeight, hideTip, layout } from "./draw.js";
import { drawBoxes, drawEnsembleBar, drawFilterHint, drawHistory } from "./controls.js";
import { ACTIONS, TRAITS } from "./protocol.js";
import { EXPANDED, FETCH_BEFORE, FETCH_COUNT, PARENT, ROW_H } from "./state.js";

/** @typedef {import("./state.js").Ctx} Ctx */
/** @typedef {import("./state.js").Response} Response */

/** The key of a reply that carries rows (the contract's named reply key). */
export const ROWS = { columns: ACTIONS.rows.key };

/**
 * The window of rows to ask for: some before the first row in view, a screenful after.
 * @param {Ctx} ctx
 * @returns {[number, number]}
 */
export function viewport(ctx) {
  const [first] = ctx.rows.range();
  return [Math.max(0, first - FETCH_BEFORE), FETCH_COUNT];
}

/**
 * The first window of rows Python sent with the widget's state (`first_window`: the reply
 * the first `rows` request would get), as a response with its columns unpacked; null when
 * there is none or it shows an older view than the model's.
 * @param {import("./state.js").Model} model
 * @returns {Response | null}
 */
export function firstWindow(model) {
  const first = model.get("first_window");
  const reply = first && first.reply;
  if (!reply || !reply.rows || Number(reply.version) !== Number(model.get("view_version"))) {
    return null;
  }
  return { ...reply, type: "response", columns: unpack(reply.rows.columns, first.buffers || []) };
}

/**
 * Take a reply's rows, scroll where it says, redraw.
 * @param {Ctx} ctx
 * @param {Response} resp
 */
export function accept(ctx, resp) {
  const { state, rows, els } = ctx;
  if (resp.version !== undefined && resp.version !== null) {
    // rows of an older view (a reply the channel held for order, after Python pushed a
    // newer view's rows): drawing them would put the old rows back over the new ones
    if (Number(resp.version) < state.version) return;
    state.version = Number(resp.version);
  }
  if (resp.rows) {
    const held = cursorRow(ctx); // the cursor stays on its row's node as rows open above it
    state.start = resp.rows.start;
    state.total = resp.rows.total;
    state.cols = resp.columns;
    rows.setTotal(state.total);
    fitHeight(ctx);
    if (held && state.cols) {
      const k = state.cols.vid.indexOf(held.vid);
      if (k >= 0 && state.cols.node[k] === held.node) state.cursor = state.start + k;
    }
    if (state.cursor >= state.total) state.cursor = Math.max(0, state.total - 1);
  }
  if (resp.scroll_to >= 0) {
    state.cursor = resp.scroll_to;
    rows.reveal(resp.scroll_to, true);
  }
  els.body.setAttribute("aria-rowcount", String(state.total));
  const drawn = rows.draw();
  drawStatus(ctx);
  els.root.dataset.rows = String(drawn[1] - drawn[0]);
  els.root.dataset.rowsAt = performance.now().toFixed(1);
}

/**
 * Rows the kernel pushed after a change made in Python (the same rows a fetch would bring):
 * taken at once, and the version they show is remembered so that the version's change
 * does not fetch them again.
 * @param {Ctx} ctx
 * @param {Response} resp
 */
export function acceptPushed(ctx, resp) {
  if (resp.key !== "rows" || !resp.rows) return;
  ctx.state.version = Number(resp.version);
  accept(ctx, resp);
  const root = ctx.els.root;
  root.dataset.pushes = String(Number(root.dataset.pushes || 0) + 1);
}

/** @param {Ctx} ctx */
function covered(ctx) {
  const [a, b] = ctx.rows.range();
  const c = ctx.state.cols;
  return Boolean(c) && a >= ctx.state.start && Math.min(b, ctx.state.total) <= ctx.state.start + c?.vid.length;
}

/**
 * Ask for the rows in view (one request at a time; a scroll meanwhile asks once more).
 * @param {Ctx} ctx
 */
export async function wantRows(ctx) {
  const { state } = ctx;
  if (state.fetching) {
    state.again = true;
    return;
  }
  state.fetching = true;
  try {
    do {
      state.again = false;
      const [start, count] = viewport(ctx);
      accept(ctx, await ctx.channel.request("rows", { start, count }, ROWS));
    } while (state.again && !covered(ctx));
  } catch (err) {
    if (!(err instanceof Error && err.name === "KernelTimeout")) throw err;
    // the banner says the kernel did not answer; the rows drawn stay usable
  } finally {
    state.fetching = false;
  }
}

/**
 * Run an action in Python; the reply carries the rows of the current viewport. Resolves
 * with the reply, or null when the kernel did not answer (the banner says so).
 * @param {Ctx} ctx
 * @param {import("./state.js").Action} action
 * @param {Record<string, any>} [args]
 * @returns {Promise<Response | null>}
 */
export async function act(ctx, action, args = {}) {
  const t = performance.now();
  hideTip(ctx);
  let resp;
  try {
    resp = await ctx.channel.request(action, { ...args, viewport: viewport(ctx) }, ROWS);
  } catch (err) {
    if (err instanceof Error && err.name === "KernelTimeout") return null;
    throw err;
  }
  accept(ctx, resp);
  const root = ctx.els.root;
  root.dataset.lastAction = action;
  root.dataset.lastMs = (performance.now() - t).toFixed(1);
  root.dataset.actions = String(Number(root.dataset.actions || 0) + 1);
  return resp;
}

/** @param {Ctx} ctx */
function cursorRow(ctx) {
  const { state } = ctx;
  const k = state.indexOf(state.cursor);
  const c = state.cols;
  if (k < 0 || !c) return null;
  return { k, vid: c.vid[k], node: c.node[k], flags: c.flags[k], parentRow: c.parent_row[k] };
}

/** Milliseconds the cursor rests on a row before Python is told (keys held down skip rows). */
const CURSOR_REST_MS = 120;

/**
 * Tell Python which node the keyboard cursor rests on, when a linked view asked for it
 * (`report_cursor`). A kernel that does not answer is said by the banner, as for any request.
 * @param {Ctx} ctx
 */
function tellCursor(ctx) {
  if (!ctx.model.get("report_cursor")) return;
  clearTimeout(ctx.state.cursorTimer);
  ctx.state.cursorTimer = window.setTimeout(() => {
    const cur = cursorRow(ctx);
    if (!cur || cur.node === ctx.state.toldCursor) return;
    ctx.state.toldCursor = cur.node;
    ctx.channel.request("cursor", { node: cur.node }).catch(() => { /* the banner says it */ });
  }, CURSOR_REST_MS);
}

/**
 * @param {Ctx} ctx
 * @param {import("./state.js").Action} action
 */
function onCursor(ctx, action) {
  const cur = cursorRow(ctx);
  if (cur) ctx.act(action, { vid: cur.vid });
}

/**
 * "Expand all": below the cursor row; on a leaf or with no cursor row, the whole tree (Python
 * stops at a row budget and its notice says so).
 * @param {Ctx} ctx
 */
function expandAll(ctx) {
  const cur = cursorRow(ctx);
  ctx.act("expand_all", { vid: cur ? cur.vid : -1 });
}

/**
 * @param {Ctx} ctx
 * @param {number} row
 */
function moveCursor(ctx, row) {
  const { state, rows } = ctx;
  state.cursor = Math.max(0, Math.min(state.total - 1, row));
  rows.reveal(state.cursor);
  rows.draw();
  if (!covered(ctx)) ctx.wantRows();
  tellCursor(ctx);
}

/**
 * The table's keys (ARIA treegrid): arrows, pages, Home/End move the cursor; → opens,
 * ← closes or goes to the parent; Enter/Space selects.
 * @param {Ctx} ctx
 * @param {KeyboardEvent} ev
 */
function onTableKey(ctx, ev) {
  const { state, els } = ctx;
  const cur = cursorRow(ctx);
  const page = Math.max(1, Math.floor(els.body.clientHeight / ROW_H) - 1);
  switch (ev.key) {
    case "ArrowDown": moveCursor(ctx, state.cursor + 1); break;
    case "ArrowUp": moveCursor(ctx, state.cursor - 1); break;
    case "PageDown": moveCursor(ctx, state.cursor + page); break;
    case "PageUp": moveCursor(ctx, state.cursor - page); break;
    case "Home": moveCursor(ctx, 0); break;
    case "End": moveCursor(ctx, state.total - 1); break;
    case "ArrowRight":
      if (cur && cur.flags & PARENT) {
        if (cur.flags & EXPANDED) moveCursor(ctx, state.cursor + 1);
        else ctx.act("toggle", { vid: cur.vid });
      }
      break;
    case "ArrowLeft":
      if (cur && cur.flags & EXPANDED) ctx.act("toggle", { vid: cur.vid });
      else if (cur && cur.parentRow >= 0) moveCursor(ctx, cur.parentRow);
      break;
    case "Enter":
    case " ":
      if (cur) ctx.act("select", { vid: cur.vid, add: ev.ctrlKey || ev.metaKey });
      break;
    default:
      return;
  }
  ev.preventDefault();
}

/**
 * Wire the controls, the keyboard and the model's changes; returns the cleanup.
 * @param {Ctx} ctx
 * @returns {() => void}
 */
export function wire(ctx) {
  const { els, model } = ctx;
  const b = els.buttons;
  const applyFilter = () => {
    const query = els.filterInput.value.trim();
    if (query) ctx.act("filter", { query });
  };
  /** @type {[HTMLElement, string, () => void][]} */
  const clicks = [
    [b.prev, "click", () => ctx.act("search_step", { step: -1 })],
    [b.next, "click", () => ctx.act("search_step", { step: 1 })],
    [b.filter, "click", applyFilter],
    [b.squash, "click", () => ctx.act("squash")],
    [b.focus, "click", () => onCursor(ctx, "focus")],
    [b.drop, "click", () => onCursor(ctx, "drop")],
    [b["expand-all"], "click", () => expandAll(ctx)],
    [b.undo, "click", () => ctx.act("undo")],
    [els.statSelect, "change", () => ctx.act("stat", { stat: els.statSelect.value })],
    [els.colorSelect, "change", () => ctx.act("color_by", { column: els.colorSelect.value || null })],
  ];
  for (const [el, type, fn] of clicks) el.addEventListener(type, fn);
  els.body.addEventListener("keydown", (ev) => onTableKey(ctx, ev));

  let searchTimer = 0;
  els.searchInput.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => ctx.act("search", { pattern: els.searchInput.value }), 250);
  });
  els.searchInput.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    clearTimeout(searchTimer);
    const s = model.get("search_state") || {};
    if (s.pattern === els.searchInput.value && s.count) ctx.act("search_step", { step: ev.shiftKey ? -1 : 1 });
    else ctx.act("search", { pattern: els.searchInput.value });
  });
  els.filterInput.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") applyFilter();
  });

  const redrawAll = () => {
    layout(ctx);
    drawHead(ctx);
    drawEnsembleBar(els, ctx.state);
    drawLegend(ctx);
    drawHistory(els, model);
    drawFilterHint(els, ctx.state);
    drawStatus(ctx);
    drawDetails(ctx);
  };
  const onColumns = () => {
    redrawAll();
    ctx.rows.draw();
  };
  const onVersion = () => {
    // a Python-side change (a method called in the notebook): fetch the rows again,
    // unless a request of ours is in flight (its reply brings the new rows) or the kernel
    // pushed this version's rows already
    setTimeout(() => {
      if (ctx.state.version >= Number(model.get("view_version"))) return;
      if (!ctx.channel.pending) ctx.wantRows();
    }, 0);
  };
  const status = () => drawStatus(ctx);
  const details = () => drawDetails(ctx);
  // a search or filter set from Python shows in its box (the person's typing is left alone)
  const boxes = drawBoxes(els, model);
  /** @type {(keyof typeof TRAITS)[]} the traits whose change redraws the table */
  const traits = ["columns", "sort_column", "sort_descending", "history_labels", "glyph", "height"];
  for (const t of traits) model.on(`change:${t}`, onColumns);
  model.on("change:search_state", status);
  model.on("change:search_state", boxes);
  model.on("change:filter_query", boxes);
  model.on("change:notice", status);
  model.on("change:selected_count", status);
  model.on("change:details", details);
  model.on("change:view_version", onVersion);
  redrawAll();
  return () => {
    for (const t of traits) model.off(`change:${t}`, onColumns);
    model.off("change:search_state", status);
    model.off("change:search_state", boxes);
    model.off("change:filter_query", boxes);
    model.off("change:notice", status);
    model.off("change:selected_count", status);
    model.off("change:details", details);
    model.off("change:view_version", onVersion);
  };
}
