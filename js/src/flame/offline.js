// A saved page (`perfweave export`) has no kernel: its flame graph zooms and searches on the
// frames saved with it (every frame at least 1/16384 of the whole, see Python's first-draw
// request), as Python would on them. A frame's subtree is the frames below it inside its
// span (children nest inside their parent, siblings never overlap).
import { columnText, percent } from "../lib/format.js";

/** @typedef {import("./state.js").Frames} Frames */
/** @typedef {import("./state.js").Meta} Meta */

const EPS = 1e-12;

/**
 * Rows `idx` of every column (typed arrays stay typed).
 * @param {Record<string, any>} cols @param {number[]} idx
 * @returns {Record<string, any>}
 */
function rows(cols, idx) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, col] of Object.entries(cols)) {
    if (Array.isArray(col)) out[k] = idx.map((i) => col[i]);
    else {
      const Arr = /** @type {any} */ (col.constructor);
      const arr = new Arr(idx.length);
      for (let j = 0; j < idx.length; j++) arr[j] = col[idx[j]];
      out[k] = arr;
    }
  }
  return out;
}

/** The index of `node`'s frame, or -1. @param {Frames} f @param {number} node */
function indexOf(f, node) {
  for (let i = 0; i < f.n; i++) if (Number(f.cols.node[i]) === node) return i;
  return -1;
}

/**
 * The saved frames zoomed on `node` (null: the whole graph): its subtree re-based to the
 * width, its ancestors spanning it. Null when the node was not saved.
 * @param {Frames} full @param {number | null} node
 * @returns {{meta: Meta, cols: Record<string, any>} | null}
 */
export function zoomed(full, node) {
  const c = full.cols;
  const meta = { ...full.meta, zoom: -1, zoom_value: full.meta.total, path: /** @type {Meta["path"]} */ ([]) };
  if (node === null || node < 0) return { meta, cols: c };
  const z = indexOf(full, node);
  if (z < 0) return null;
  const x0 = c.x0[z], x1 = c.x1[z], d = c.depth[z], span = x1 - x0;
  const mid = (x0 + x1) / 2;
  const path = [];
  const inside = [];
  const depth = c.depth, left = c.x0, right = c.x1, nodes = c.node;
  for (let i = 0; i < full.n; i++) {
    const di = depth[i];
    if (di < d) {
      if (left[i] <= mid && mid < right[i] && nodes[i] >= 0) path.push(i);
    } else if (i === z || (di > d && left[i] >= x0 - EPS && right[i] <= x1 + EPS)) inside.push(i);
  }
  path.sort((a, b) => c.depth[a] - c.depth[b]);
  const out = rows(c, [...path, ...inside]);
  for (let k = 0; k < path.length; k++) { out.x0[k] = 0; out.x1[k] = 1; }
  for (let k = path.length; k < out.x0.length; k++) {
    out.x0[k] = span > 0 ? (out.x0[k] - x0) / span : 0;
    out.x1[k] = span > 0 ? (out.x1[k] - x0) / span : 1;
  }
  meta.zoom = node;
  meta.zoom_value = c.value[z];
  meta.path = [...path, z].map((i) => ({ node: Number(c.node[i]), name: c.name[i] }));
  meta.shown = inside.length + path.length;
  return { meta, cols: out };
}

/**
 * The saved frames with the matches of `pattern` (a regular expression, searched anywhere
 * in the name) marked, and what they hold: a match under a matching ancestor counts once.
 * @param {Frames} full @param {string} pattern
 * @returns {{meta: Meta, cols: Record<string, any>} | {error: string}}
 */
export function searched(full, pattern) {
  const c = full.cols;
  const match = new Uint8Array(full.n);
  const meta = { ...full.meta, search: { pattern: "", count: 0, text: "" } };
  if (!pattern) return { meta, cols: { ...c, match } };
  let re;
  try {
    re = new RegExp(pattern);
  } catch (err) {
    return { error: `search ${JSON.stringify(pattern)}: bad regular expression: ${String(err)}` };
  }
  const hits = [];
  for (let i = 0; i < full.n; i++) {
    if (c.node[i] >= 0 && re.test(c.name[i])) { match[i] = 1; hits.push(i); }
  }
  // a match inside another match's span and deeper is counted with it
  let value = 0, share = 0;
  for (const i of hits) {
    const under = hits.some((j) => c.depth[j] < c.depth[i] && c.x0[j] <= c.x0[i] + EPS && c.x1[i] <= c.x1[j] + EPS);
    if (!under) { value += c.value[i]; share += c.x1[i] - c.x0[i]; }
  }
  const count = hits.length;
  const text = `${count.toLocaleString("en-US")} match${count === 1 ? "" : "es"}: ` +
    `${columnText(value, full.meta.format)}, ${percent(share, 1)} of the total (frames saved in this page)`;
  meta.search = { pattern, count, text };
  return { meta, cols: { ...c, match } };
}
