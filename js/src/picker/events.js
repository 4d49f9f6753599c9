// Talking to the kernel: rows and class pages asked for as the person scrolls, turns a page
// or clicks a header, and the windows Python pushes after each change. Replies carry their
// columns under the key the protocol names (./protocol.js, perfweave/widgets/_base.py).
import { Channel } from "../lib/request.js";
import { ACTIONS } from "./protocol.js";

/** @typedef {import("./protocol.js").WidgetModel} Model */
/** @typedef {import("./state.js").WindowReply} WindowReply */

const FETCH_BEFORE = 60;
export const FETCH_COUNT = 200;

/**
 * Requests of one table view: at most one window request in flight, a later wish is kept and
 * asked for when it returns (a fast scroll never queues a backlog).
 */
export class TableRequests {
  /**
   * @param {Model} model
   * @param {() => [number, number]} range the rows in view
   * @param {(reply: WindowReply, columns: Record<string, any>) => void} accept
   */
  constructor(model, range, accept) {
    this.channel = new Channel(model);
    this.range = range;
    this.accept = accept;
    this.fetching = false;
    this.again = false;
  }

  /**
   * Ask for the window around the rows in view (`action`: "rows" or "cols").
   * @param {"rows" | "cols"} action @param {Record<string, any>} [extra]
   */
  async fetch(action, extra = {}) {
    if (this.fetching) { this.again = true; return; }
    this.fetching = true;
    try {
      const [first] = this.range();
      const start = Math.max(0, first - FETCH_BEFORE);
      const reply = await this.channel.request(action, { start, count: FETCH_COUNT, ...extra }, { columns: ACTIONS[action].key });
      this.accept(/** @type {any} */ (reply), reply.columns || {});
    } finally {
      this.fetching = false;
    }
    if (this.again) { this.again = false; this.want(); }
  }

  /** Rows are missing from the window: fetch them (once the request in flight returns). */
  want() {
    if (!this.fetching) queueMicrotask(() => this.fetch("rows"));
    else this.again = true;
  }

  /** A header click: sort by `column` in Python, from the top. @param {string} column */
  sort(column) {
    return this.channel.request("sort", { column, start: 0, count: FETCH_COUNT }, { columns: ACTIONS.sort.key })
      .then((reply) => this.accept(/** @type {any} */ (reply), reply.columns || {}));
  }

  close() {
    this.channel.close();
  }
}
