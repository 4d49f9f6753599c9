// What one rendered flame graph holds: the model, its elements, the held frames and the view
// drawn from them.

/**
 * @typedef {Object} Meta
 * @property {number} version Python's view_version these frames answer
 * @property {number} layout which layout and colour keys the frames belong to
 * @property {number} zoom the node filling the width (-1: none)
 * @property {number} zoom_value the zoomed node's value (the total without a zoom)
 * @property {{node: number, name: string}[]} path root .. zoomed node (the breadcrumb)
 * @property {number} total the roots' sum
 * @property {import("../lib/format.js").ColumnFormat} format the values' one format
 * @property {string} unit
 * @property {string} metric
 * @property {number} nodes nodes in the graph
 * @property {number} [shown] frames drawn (at least one pixel wide; runs not counted)
 * @property {{pattern: string, count: number, text: string}} search
 * @property {boolean} compare
 * @property {boolean} [predicted] the values are predicted by models (hatched: a guess)
 * @property {string} [test] the comparison's test and threshold
 * @property {boolean} [tested]
 * @property {[string, string]} [labels] the two sides' names
 * @property {string} total_text the total in the values' format
 * @property {{root: number, tau: number, below: number | null,
 *   forest: {value: number, x1: number, exclusive: number}}} [held] what a frames reply holds
 */

/**
 * The view drawn: its frames (those of the held set at least a pixel wide, and the runs of
 * narrower ones gathered: `node` -1) as columns, each depth's frames in order of x.
 * @typedef {Object} Frames
 * @property {Meta} meta
 * @property {Record<string, any>} cols node, code (the name's code; -1: a run), name, depth,
 *   x0, x1 (fractions of the view's width), value, exclusive, hidden, and what the set has of
 *   guess, key and the comparison's columns
 * @property {number} n frames
 * @property {number} depth deepest depth + 1
 * @property {Int32Array} rowStart where each depth's frames start in rowIdx
 * @property {Int32Array} rowIdx frame indices by depth, then x
 * @property {number} gathered frames that each gather frames narrower than a pixel
 */

/**
 * The search the page shows: Python's, or the page's own until Python answers.
 * @typedef {Object} Search
 * @property {string} pattern
 * @property {Uint8Array | null} matched by name code: 1 where the name matches
 */

/**
 * @typedef {Object} View
 * @property {import("../lib/types.js").Model} model
 * @property {HTMLElement} root
 * @property {HTMLElement} plot the scrolling box the canvas stays at the top of
 * @property {HTMLCanvasElement} canvas as tall as the rows in view
 * @property {HTMLElement} spacer makes the plot as tall as every row
 * @property {HTMLElement} tooltip
 * @property {Frames | null} frames
 * @property {Search} search
 * @property {number} hover frame index under the pointer (-1: none)
 * @property {number} [width] the widget's width as its ResizeObserver last measured it
 * @property {number} scrollTop the plot's scroll position as its scroll event last said
 * @property {(action: keyof typeof import("./protocol.js").ACTIONS, args?: Record<string, any>) => Promise<any>} act
 */

/** Height of one row of frames, CSS pixels. */
export const ROW = 18;

/**
 * The frame at (fx, depth) (fx a fraction of the width), or -1.
 * @param {Frames} f @param {number} fx @param {number} depth
 */
export function frameAt(f, fx, depth) {
  if (depth < 0 || depth >= f.depth) return -1;
  let lo = f.rowStart[depth], hi = f.rowStart[depth + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const i = f.rowIdx[mid];
    if (fx < f.cols.x0[i]) hi = mid - 1;
    else if (fx >= f.cols.x1[i]) lo = mid + 1;
    else return i;
  }
  return -1;
}

/**
 * Whether frame `i` matches the search shown.
 * @param {Search} s @param {Frames} f @param {number} i
 */
export function matches(s, f, i) {
  const code = f.cols.code[i];
  return Boolean(s.matched && code >= 0 && s.matched[code]);
}
