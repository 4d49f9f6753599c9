// The view the page draws, made from a held set (./store.js) by the core's rule
// (perfweave.calltree.flame, FlameLayout.drawn): the zoomed frame's ancestors spanning the
// width, every frame of its subtree at least a pixel wide with x re-based to the zoomed
// frame (the arithmetic of FlameLayout._spans, so the same frames pass), and each run of
// neighbouring siblings narrower than a pixel under a drawn frame gathered into one frame,
// kept where the run together is a pixel wide (FlameLayout.narrow). A run's nodes are one
// id range in preorder, so its count and sums come from the held frames around it
// (FrameSums): no frame of the run needs to be held.

/** @typedef {import("./store.js").Held} Held */
/** @typedef {import("./state.js").Meta} Meta */
/** @typedef {import("./state.js").Frames} Frames */

/** The columns of a held set a view copies per frame (a run gets 0 or NaN). */
const COPIED = ["value_a", "value_b", "delta", "relative", "p_value", "q_value", "significant", "n_a", "n_b", "guess"];

/** Working arrays of viewOf, kept between views (a view of a large set would otherwise
 * allocate megabytes each time); the view's own columns are copies. */
const work = {
  size: 0,
  src: new Int32Array(0), x0: new Float64Array(0), x1: new Float64Array(0), depth: new Int32Array(0),
  runValue: new Float64Array(0), runExcl: new Float64Array(0), runHidden: new Int32Array(0),
  stI: new Int32Array(0), stDepth: new Int32Array(0), stCursor: new Float64Array(0),
  stEnd: new Float64Array(0), stPrev: new Int32Array(0),
};

/** The working arrays, at least `n` long. @param {number} n */
function scratch(n) {
  if (work.size < n) {
    const size = Math.max(n, 2 * work.size);
    Object.assign(work, {
      size,
      src: new Int32Array(size), x0: new Float64Array(size), x1: new Float64Array(size),
      depth: new Int32Array(size), runValue: new Float64Array(size), runExcl: new Float64Array(size),
      runHidden: new Int32Array(size), stI: new Int32Array(size), stDepth: new Int32Array(size),
      stCursor: new Float64Array(size), stEnd: new Float64Array(size), stPrev: new Int32Array(size),
    });
  }
  return work;
}

/** `n` with a comma every three digits (as toLocaleString("en-US"), without its cost).
 * @param {number} n */
export function grouped(n) {
  const s = String(Math.trunc(Math.abs(n)));
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if (i && (s.length - i) % 3 === 0) out += ",";
    out += s[i];
  }
  return n < 0 ? `-${out}` : out;
}

/**
 * The view of `held` zoomed on the frame at index `iz` (-1: the whole graph) on a canvas
 * `width` pixels wide.
 * @param {Held} held @param {number} iz @param {number} width
 * @param {Meta} meta what the view says (zoom, path and shown are set here)
 * @param {string[]} names name code -> name
 * @returns {Frames}
 */
export function viewOf(held, iz, width, meta, names) {
  const c = held.cols;
  const minWidth = 1 / width;
  const node = c.node, size = c.size, depth = c.depth, x0 = c.x0, x1 = c.x1;
  const value = c.value, excl = c.exclusive, before = c.value_before;
  const childValue = c.child_value, childX1 = c.child_x1, exclStart = c.excl_start, exclSub = c.excl_subtree;
  const zoomed = iz >= 0;
  const zx0 = zoomed ? x0[iz] : 0;
  const span = zoomed ? x1[iz] - x0[iz] : 1;
  /** x re-based to the zoomed frame, as FlameLayout._spans does @param {number} x */
  const at = zoomed ? (/** @type {number} */ x) => (x - zx0) / span : (/** @type {number} */ x) => x;

  // the ancestors of the zoomed frame: held frames whose subtree holds it, by depth
  /** @type {number[]} */
  const path = [];
  let lo = 0, hi = held.n;
  if (zoomed) {
    const z = node[iz];
    for (let j = 0; j < iz; j++) if (node[j] + size[j] > z) path.push(j);
    path.sort((a, b) => depth[a] - depth[b]);
    lo = iz;
    hi = span > 0 ? upper(node, iz, held.n, z + size[iz]) : iz + 1;
  }
  // a frame per held frame at most, and a run at most per drawn frame and one more
  const w = scratch(path.length + 2 * (hi - lo) + 2);
  const src = w.src; // held index, or -1 for a gathered run
  const vx0 = w.x0, vx1 = w.x1, vdepth = w.depth;
  const runValue = w.runValue, runExcl = w.runExcl, runHidden = w.runHidden;
  let n = 0;
  for (const j of path) {
    src[n] = j; vx0[n] = 0; vx1[n] = 1; vdepth[n] = depth[j]; n++;
  }

  // drawn frames open on a stack (index -1 is the whole graph above the roots); a run is
  // closed where the next drawn sibling starts or its parent's subtree ends
  const stI = w.stI, stDepth = w.stDepth, stCursor = w.stCursor, stEnd = w.stEnd, stPrev = w.stPrev;
  let top = -1;
  const forest = held.forest;
  if (!zoomed) {
    top = 0;
    stI[0] = -1; stDepth[0] = -1; stCursor[0] = 0; stEnd[0] = Number(meta.nodes); stPrev[0] = -1;
  }

  /** Gather the run of nodes [s, e) under the frame on stack slot `t`, between drawn
   * siblings `prev` and `next` (held indices, -1: the parent's start or end).
   * @param {number} t @param {number} s @param {number} e @param {number} prev @param {number} next */
  const run = (t, s, e, prev, next) => {
    const p = stI[t];
    const pStart = p < 0 ? 0 : exclStart[p];
    const valueEnd = next >= 0 ? before[next] : p < 0 ? forest.value : childValue[p];
    const valueStart = prev >= 0 ? before[prev] + value[prev] : 0;
    const exclEnd = next >= 0 ? exclStart[next] : p < 0 ? forest.exclusive : pStart + exclSub[p];
    const exclBegin = prev >= 0 ? exclStart[prev] + exclSub[prev] : p < 0 ? 0 : pStart + excl[p];
    const left = prev >= 0 ? at(x1[prev]) : p < 0 ? 0 : at(x0[p]);
    const right = next >= 0 ? at(x0[next]) : p < 0 ? forest.x1 : at(childX1[p]);
    if (!(right - left >= minWidth)) return;
    src[n] = -1; vx0[n] = left; vx1[n] = right; vdepth[n] = stDepth[t] + 1;
    runValue[n] = valueEnd - valueStart;
    runExcl[n] = exclEnd - exclBegin;
    runHidden[n] = e - s;
    n++;
  };
  const close = () => {
    if (stCursor[top] < stEnd[top]) run(top, stCursor[top], stEnd[top], stPrev[top], -1);
    top--;
  };

  for (let i = lo; i < hi; i++) {
    const a = at(x0[i]), b = at(x1[i]);
    if (i !== iz && !(b - a >= minWidth)) continue;
    const id = node[i], d = depth[i];
    while (top >= 0 && stEnd[top] <= id) close();
    if (top >= 0 && stDepth[top] === d - 1) {
      if (id > stCursor[top]) run(top, stCursor[top], id, stPrev[top], i);
      stCursor[top] = id + size[i];
      stPrev[top] = i;
    }
    src[n] = i; vx0[n] = i === iz ? 0 : a; vx1[n] = i === iz ? 1 : b; vdepth[n] = d; n++;
    top++;
    stI[top] = i; stDepth[top] = d; stCursor[top] = id + 1; stEnd[top] = id + size[i]; stPrev[top] = -1;
  }
  while (top >= 0) close();
  return framesOf(held, meta, names, { n, src, vx0, vx1, vdepth, runValue, runExcl, runHidden }, path, iz);
}

/** The first index in [lo, hi) whose node is at least `end`.
 * @param {ArrayLike<number>} node @param {number} lo @param {number} hi @param {number} end */
function upper(node, lo, hi, end) {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (node[mid] < end) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The view's columns (copied from the held set; a run's name says how many it gathers),
 * with each depth's frames in order of x for drawing and hit tests.
 * @param {Held} held @param {Meta} meta @param {string[]} names
 * @param {{n: number, src: Int32Array, vx0: Float64Array, vx1: Float64Array, vdepth: Int32Array,
 *   runValue: Float64Array, runExcl: Float64Array, runHidden: Int32Array}} v
 * @param {number[]} path @param {number} iz
 * @returns {Frames}
 */
function framesOf(held, meta, names, v, path, iz) {
  const c = held.cols, n = v.n, src = v.src;
  const node = new Int32Array(n), code = new Int32Array(n), value = new Float64Array(n);
  const exclusive = new Float64Array(n), hidden = new Int32Array(n);
  /** @type {string[]} */
  const name = new Array(n);
  let gathered = 0, maxDepth = 0;
  for (let k = 0; k < n; k++) {
    const i = src[k];
    if (v.vdepth[k] > maxDepth) maxDepth = v.vdepth[k];
    if (i >= 0) {
      node[k] = c.node[i]; code[k] = c.name[i]; value[k] = c.value[i]; exclusive[k] = c.exclusive[i];
      name[k] = names[c.name[i]] ?? "";
    } else {
      node[k] = -1; code[k] = -1; value[k] = v.runValue[k]; exclusive[k] = v.runExcl[k];
      hidden[k] = v.runHidden[k];
      name[k] = `… ${grouped(v.runHidden[k])} hidden`;
      gathered++;
    }
  }
  /** @type {Record<string, any>} */
  const cols = {
    node, code, name, depth: v.vdepth.slice(0, n), x0: v.vx0.slice(0, n), x1: v.vx1.slice(0, n),
    value, exclusive, hidden,
  };
  for (const k of COPIED) {
    const col = c[k];
    if (!col) continue;
    const out = new (/** @type {any} */ (col.constructor))(n);
    const empty = col instanceof Float64Array ? NaN : 0;
    for (let j = 0; j < n; j++) out[j] = src[j] >= 0 ? col[src[j]] : empty;
    cols[k] = out;
  }
  if (c.key) cols.key = Array.from(src.subarray(0, n), (i) => (i >= 0 ? c.key[i] : ""));
  // each depth's frames, in the order they were made (left to right within a depth)
  const depth = cols.depth;
  const rows = n ? maxDepth + 1 : 0;
  const rowStart = new Int32Array(rows + 1);
  for (let k = 0; k < n; k++) rowStart[depth[k] + 1]++;
  for (let d = 0; d < rows; d++) rowStart[d + 1] += rowStart[d];
  const fill = rowStart.slice(0, rows);
  const rowIdx = new Int32Array(n);
  for (let k = 0; k < n; k++) rowIdx[fill[depth[k]]++] = k;
  const z = iz >= 0 ? c.node[iz] : -1;
  const view = {
    ...meta,
    zoom: z,
    zoom_value: iz >= 0 ? c.value[iz] : meta.total,
    path: iz >= 0 ? [...path, iz].map((i) => ({ node: Number(c.node[i]), name: names[c.name[i]] ?? "" })) : [],
    shown: n - gathered,
  };
  return { meta: view, cols, n, depth: rows, rowStart, rowIdx, gathered };
}
