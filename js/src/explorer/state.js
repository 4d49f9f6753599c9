// CalltreeExplorer front end, state: the protocol's types, constants and the page-side state.
// Python (perfweave/widgets/explorer.py) holds the tree; the page holds one window of rows.

/** @typedef {import("./protocol.js").WidgetModel} Model */
/** @typedef {keyof typeof import("./protocol.js").ACTIONS} Action a request the page may send */
/** @typedef {import("../lib/request.js").Channel} Channel */
/** @typedef {import("../lib/request.js").Response} Response */
/** @typedef {import("../lib/virtual.js").VirtualRows} VirtualRows */

/**
 * A shown column (explorer.py `Column.spec`).
 * @typedef {object} ColumnSpec
 * @property {string} key
 * @property {string} label header text
 * @property {"inc" | "exc" | "value" | "diff" | "extra" | "text" | "ratio" | "excess"} kind
 * @property {number} total what bars and percentages are relative to
 * @property {string} [unit] "s", "B"... ("" when the name does not say)
 * @property {string} [share] what a percentage is of ("% of the whole run")
 * @property {import("../lib/format.js").ColumnFormat} [format] the one format of its cells
 */

/**
 * The distribution glyph of each row: a node's values across the profiles of an ensemble,
 * or across the ranks/threads of a frame.
 * @typedef {object} GlyphState
 * @property {string} metric
 * @property {string} [unit]
 * @property {string} stat
 * @property {string} what "profiles" or "ranks"
 * @property {string[]} profiles one label per point (profile or rank)
 * @property {string} color_by
 * @property {string[]} categories
 * @property {number[]} codes palette index per point
 * @property {string[]} stats statistics the ensemble can show
 * @property {string[]} color_columns metadata columns to color by
 */

/**
 * The rows of one reply (`rows` key): typed arrays per column, `c<i>` per shown column.
 * @typedef {Record<string, any>} RowColumns
 */

/** @typedef {{ title: string, lines: string[] }} Details */

export const ROW_H = 24;
export const INDENT = 14;
export const FETCH_BEFORE = 100;
export const FETCH_COUNT = 300;
/** row flags (explorer.py) */
export const EXPANDED = 1, MATCH = 2, SELECTED = 4, CURRENT = 8, PARENT = 16;
/** column kinds drawn without a bar or a percentage */
export const PLAIN_KINDS = ["extra", "text", "ratio", "excess"];

/** The page's view of the rows: which window it holds and where the cursor is. */
export class ExplorerState {
  /** @param {Model} model */
  constructor(model) {
    this.model = model;
    /** first row of the window held */
    this.start = 0;
    /** rows the table has */
    this.total = 0;
    /** @type {RowColumns | null} */
    this.cols = null;
    /** row of the keyboard cursor */
    this.cursor = 0;
    this.fetching = false;
    this.again = false;
    /** the view version whose rows the kernel pushed last (-1: none) */
    this.version = -1;
    /** @type {number | undefined} pending report of the cursor's node to Python */
    this.cursorTimer = undefined;
    /** the node last reported under the cursor (-1: none) */
    this.toldCursor = -1;
  }

  /** @returns {ColumnSpec[]} */
  columns() {
    return this.model.get("columns") || [];
  }

  /** @returns {string} "frame", "ensemble" or "compare" */
  mode() {
    return this.model.get("mode");
  }

  /** @returns {Partial<GlyphState>} */
  glyph() {
    return this.model.get("glyph") || {};
  }

  /** Whether rows draw a distribution glyph. */
  hasGlyph() {
    return Boolean(this.glyph().metric);
  }

  /**
   * Row `r`'s position in the window held, or -1.
   * @param {number} r
   */
  indexOf(r) {
    const k = r - this.start;
    return this.cols && k >= 0 && k < this.cols.vid.length ? k : -1;
  }
}

/**
 * Everything the modules share: the model, the page's state, the elements, the rows, and the
 * two ways to ask Python (an action, or the rows in view).
 * @typedef {object} Ctx
 * @property {Model} model
 * @property {ExplorerState} state
 * @property {Channel} channel
 * @property {import("./controls.js").Elements} els
 * @property {VirtualRows} rows
 * @property {(action: Action, args?: Record<string, any>) => Promise<Response | null>} act
 * @property {() => void} wantRows
 */
