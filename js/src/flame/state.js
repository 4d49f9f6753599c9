// What one rendered flame graph holds: the model, its elements and the frames drawn.

/**
 * @typedef {Object} Meta
 * @property {number} version Python's view_version these frames answer
 * @property {number} zoom the node filling the width (-1: none)
 * @property {number} zoom_value the zoomed node's value (the total without a zoom)
 * @property {{node: number, name: string}[]} path root .. zoomed node (the breadcrumb)
 * @property {number} total the roots' sum
 * @property {import("../lib/format.js").ColumnFormat} format the values' one format
 * @property {string} unit
 * @property {string} metric
 * @property {number} nodes nodes in the graph
 * @property {number} shown frames sent (at least one pixel wide)
 * @property {{pattern: string, count: number, text: string}} search
 * @property {boolean} compare
 * @property {boolean} [predicted] the values are predicted by models (hatched: a guess)
 * @property {string} [test] the comparison's test and threshold
 * @property {boolean} [tested]
 * @property {[string, string]} [labels] the two sides' names
 * @property {string} total_text the total in the values' format
 */

/**
 * @typedef {Object} Frames
 * @property {Meta} meta
 * @property {Record<string, any>} cols the reply's binary columns
 * @property {number} n frames
 * @property {number} depth deepest depth + 1
 * @property {number[][]} byDepth frame indices per depth, by x0
 * @property {number} gathered frames that each gather frames narrower than a pixel
 */

/**
 * @typedef {Object} View
 * @property {import("../lib/types.js").Model} model
 * @property {HTMLElement} root
 * @property {HTMLCanvasElement} canvas
 * @property {HTMLElement} tooltip
 * @property {Frames | null} frames
 * @property {number} hover frame index under the pointer (-1: none)
 * @property {number} [width] the widget's width as its ResizeObserver last measured it
 * @property {(action: keyof typeof import("./protocol.js").ACTIONS, args?: Record<string, any>) => Promise<any>} act
 */

/** Height of one row of frames, CSS pixels. */
export const ROW = 18;

/**
 * Frames of a reply, indexed by depth for hit tests.
 * @param {Meta} meta @param {Record<string, any>} cols
 * @returns {Frames}
 */
export function framesOf(meta, cols) {
  const n = cols.node.length;
  /** @type {number[][]} */
  const byDepth = [];
  let gathered = 0;
  for (let i = 0; i < n; i++) {
    const d = cols.depth[i];
    (byDepth[d] ||= []).push(i);
    if (cols.node[i] < 0) gathered++;
  }
  for (const row of byDepth) if (row) row.sort((a, b) => cols.x0[a] - cols.x0[b]);
  return { meta, cols, n, depth: byDepth.length, byDepth, gathered };
}

/**
 * The frame at (fx, depth) (fx a fraction of the width), or -1.
 * @param {Frames} f @param {number} fx @param {number} depth
 */
export function frameAt(f, fx, depth) {
  const row = f.byDepth[depth];
  if (!row) return -1;
  let lo = 0, hi = row.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const i = row[mid];
    if (fx < f.cols.x0[i]) hi = mid - 1;
    else if (fx >= f.cols.x1[i]) lo = mid + 1;
    else return i;
  }
  return -1;
}
