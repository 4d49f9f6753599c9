// The frames the page holds. Python sends frames as **held sets** (perfweave/widgets/
// _flame_page.py): every frame of a view (a node's subtree, or the whole graph) at least
// `tau` wide (a fraction of the total), sorted by node id (preorder), with the sums the page
// gathers narrower frames from. A zoom into a frame a set holds is drawn from that set
// (./view.js); it is complete when the set reaches a pixel of the new view. A reply sent
// with `below` (the threshold of the set the page used) carries only the frames narrower
// than it, and is merged with that set into the new view's set.

/**
 * @typedef {Object} Held
 * @property {number} layout the layout the frames belong to (Python's `layout` in meta)
 * @property {number} root the node whose subtree the set covers (-1: the whole graph)
 * @property {number} end node ids of the subtree end here (root + its size)
 * @property {number} tau every frame of the subtree at least this wide is in the set
 * @property {number} n frames
 * @property {Record<string, any>} cols the frame columns, sorted by node id
 * @property {{value: number, x1: number, exclusive: number}} forest the roots' sums
 */

/** The reply columns that are not frames: the name dictionary, the search's names. */
const DICTIONARY = new Set(["names", "name_ids", "found"]);

/** How many held sets the page keeps (the whole graph's is kept besides). */
const KEEP = 4;

/**
 * The index of `node` in a held set (sorted by node), or -1.
 * @param {Held} s @param {number} node
 */
export function indexOf(s, node) {
  const nodes = s.cols.node;
  let lo = 0, hi = s.n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = nodes[mid];
    if (m === node) return mid;
    if (m < node) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The first index whose node is at least `node`. @param {Held} s @param {number} node */
export function lowerBound(s, node) {
  const nodes = s.cols.node;
  let lo = 0, hi = s.n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (nodes[mid] < node) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Rows `order` of every column, as `source` of each row says: 0 = `a`, 1 = `b`
 * (typed arrays stay typed).
 * @param {Record<string, any>} a @param {Record<string, any>} b
 * @param {Int32Array} order @param {Uint8Array} source @param {number} n
 * @returns {Record<string, any>}
 */
function gather(a, b, order, source, n) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, ca] of Object.entries(a)) {
    const cb = b[k];
    if (cb === undefined) continue; // a column one side lacks: not a column of the set
    const col = Array.isArray(ca) ? new Array(n) : new (/** @type {any} */ (ca.constructor))(n);
    for (let j = 0; j < n; j++) col[j] = source[j] ? cb[order[j]] : ca[order[j]];
    out[k] = col;
  }
  return out;
}

/** The page's held sets and the names their frames' codes stand for. */
export class Store {
  constructor() {
    /** the layout the sets belong to (-1: none yet) */
    this.layout = -1;
    /** @type {Held[]} newest last */
    this.sets = [];
    /** @type {string[]} name code -> name */
    this.names = [];
  }

  /**
   * A reply's frames as a held set, merged with `base` (the set the request's `below` came
   * from) where the reply holds only what `base` lacked. The set is kept.
   * @param {any} meta the reply's meta (with `held`) @param {Record<string, any>} cols
   * @param {Held | null} base
   * @returns {Held}
   */
  accept(meta, cols, base) {
    if (meta.layout !== this.layout) {
      this.layout = meta.layout;
      this.sets = [];
      this.names = [];
    }
    const ids = cols.name_ids, names = cols.names;
    for (let k = 0; k < ids.length; k++) this.names[ids[k]] = names[k];
    /** @type {Record<string, any>} */
    const frames = {};
    for (const [k, col] of Object.entries(cols)) if (!DICTIONARY.has(k)) frames[k] = col;
    const held = meta.held;
    const root = Number(held.root);
    const fresh = { layout: meta.layout, root, end: 0, tau: Number(held.tau), n: frames.node.length, cols: frames, forest: held.forest };
    const below = held.below !== null && held.below !== undefined && base && base.layout === meta.layout;
    if (below && fresh.n === 0 && base.root === root) {
      base.tau = Math.min(base.tau, fresh.tau); // nothing it lacked: it holds the finer view too
      return base;
    }
    const set = below ? merged(/** @type {Held} */ (base), fresh) : fresh;
    set.end = root < 0 ? Number(meta.nodes) : endOf(set, root);
    // a set of the same view and no finer is superseded; the finest whole graph's is kept
    this.sets = this.sets.filter((s) => !(s.root === root && s.tau >= set.tau));
    this.sets.push(set);
    const whole = this.sets.filter((s) => s.root < 0).sort((a, b) => a.tau - b.tau).slice(0, 1);
    const others = this.sets.filter((s) => s.root >= 0).slice(-KEEP);
    this.sets = [...whole, ...others];
    return set;
  }

  /**
   * The finest held set that holds `node` (-1: the whole graph) and its subtree, and the
   * node's index in it; null when no set does.
   * @param {number} node
   * @returns {{set: Held, i: number} | null}
   */
  best(node) {
    let found = null;
    for (const s of this.sets) {
      if (s.layout !== this.layout) continue;
      let i = -1;
      if (node < 0) {
        if (s.root >= 0) continue;
      } else {
        if (s.root >= 0 && (node < s.root || node >= s.end)) continue;
        i = indexOf(s, node);
        if (i < 0) continue;
      }
      if (!found || s.tau < found.set.tau) found = { set: s, i };
    }
    return found;
  }
}

/**
 * Whether `s` holds every frame of the view of frame `i` (-1: the whole graph) that is at
 * least a pixel wide on a canvas `width` pixels wide (the view is complete without Python).
 * @param {Held} s @param {number} i @param {number} width
 */
export function complete(s, i, width) {
  const span = i < 0 ? 1 : s.cols.x1[i] - s.cols.x0[i];
  if (!(span > 0)) return true; // a frame of no width is its view alone
  return s.tau <= (span / width) * (1 - 1e-12);
}

/** The end of `root`'s subtree in node ids. @param {Held} s @param {number} root */
function endOf(s, root) {
  const i = indexOf(s, root);
  return i < 0 ? root + 1 : root + s.cols.size[i];
}

/**
 * `base`'s frames of `fresh.root`'s subtree and its ancestors, with `fresh`'s frames (the
 * narrower ones of that subtree `base` lacked), as one set sorted by node id.
 * @param {Held} base @param {Held} fresh
 * @returns {Held}
 */
function merged(base, fresh) {
  const root = fresh.root;
  const bn = base.cols.node, bs = base.cols.size;
  let lo = 0, hi = base.n;
  /** @type {number[]} */
  const path = [];
  if (root >= 0) {
    lo = indexOf(base, root);
    if (lo < 0) return fresh; // cannot happen: the request came from a set holding root
    hi = lowerBound(base, root + bs[lo]);
    for (let j = 0; j < lo; j++) if (bn[j] + bs[j] > root) path.push(j);
  }
  const fnodes = fresh.cols.node;
  const n = path.length + (hi - lo) + fresh.n;
  const order = new Int32Array(n);
  const source = new Uint8Array(n);
  let k = 0;
  for (const j of path) order[k++] = j;
  let a = lo, b = 0;
  while (a < hi || b < fresh.n) {
    if (b >= fresh.n || (a < hi && bn[a] < fnodes[b])) order[k++] = a++;
    else { source[k] = 1; order[k++] = b++; }
  }
  return { layout: base.layout, root, end: 0, tau: fresh.tau, n, cols: gather(base.cols, fresh.cols, order, source, n), forest: fresh.forest };
}
