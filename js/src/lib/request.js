// Request/response over anywidget custom messages (see perfweave/widgets/_base.py).
//
// `channel.request(action, args, {columns: "rows"})` sends `{type: "request", id, action,
// args}` and resolves with the kernel's response, whose binary columns are found under the
// NAMED key (`response.rows.columns` is the column header) and unpacked into
// `response.columns`. A request that gets no answer within the timeout (the model's
// `request_timeout` seconds, 10 s by default; `{timeoutMs}` overrides it per call) rejects with
// a `KernelTimeout`, and every banner of the widget says the kernel did not answer: the view is
// left as it was, so it stays usable. The first response that arrives later takes the message
// away again (the kernel is back).
//
// The kernel may also push `{type: "push", key, version, [key]: {columns, ...}}` unasked (a
// change made from Python or another widget): `channel.onPush(fn)` receives it with its
// columns unpacked, which saves the page a request and its round trip.
import { unpack } from "./columns.js";
import { showLocal } from "./banner.js";

/** @typedef {import("./types.js").Model} Model */

export const DEFAULT_TIMEOUT_MS = 10000;
export const KERNEL_GONE =
  "The Python kernel did not answer (it may have stopped or restarted); the view is unchanged.";

/** A request the kernel did not answer in time (or could not be sent: its connection is gone). */
export class KernelTimeout extends Error {
  /** @param {string} action @param {number} ms */
  constructor(action, ms) {
    super(KERNEL_GONE);
    this.name = "KernelTimeout";
    this.action = action;
    this.ms = ms;
  }
}

/**
 * A response from the kernel, with its binary columns unpacked.
 * @typedef {{ type: "response" | "push", id?: number, ok: boolean, error?: string,
 *             columns: Record<string, any> | null, [key: string]: any }} Response
 */

/**
 * @typedef {object} RequestOptions
 * @property {string} [columns] the reply key whose `columns` header describes the buffers
 *   (without it the response has `columns: null`)
 * @property {number} [timeoutMs] give up after this many milliseconds
 */

/**
 * @typedef {object} Waiting
 * @property {(r: Response) => void} resolve
 * @property {string | undefined} key
 * @property {ReturnType<typeof setTimeout>} timer
 */

// A KernelTimeout that a caller did not catch has been shown in the widget's banner already:
// it is not reported a second time as an uncaught error (the page stays quiet and usable).
if (typeof window !== "undefined" && !(/** @type {any} */ (window)).__pwKernelTimeoutQuiet) {
  (/** @type {any} */ (window)).__pwKernelTimeoutQuiet = true;
  window.addEventListener("unhandledrejection", (ev) => {
    if (ev.reason && ev.reason.name === "KernelTimeout") ev.preventDefault();
  });
}

/**
 * The binary columns a message holds under `key` (its `columns` header), unpacked; null
 * without that key.
 * @param {any} msg @param {string | undefined} key @param {DataView[]} [buffers]
 * @returns {Record<string, any> | null}
 */
function columnsOf(msg, key, buffers) {
  const holder = key === undefined ? undefined : msg[key];
  return holder && Array.isArray(holder.columns) ? unpack(holder.columns, buffers || []) : null;
}

export class Channel {
  /** @param {Model} model */
  constructor(model) {
    this.model = model;
    this.next = 1;
    /** @type {Map<number, Waiting>} */
    this.waiting = new Map();
    /** whether a timeout's message is shown (a later response takes it away) */
    this.timedOut = false;
    /** @type {((r: Response) => void)[]} */
    this.pushed = [];
    /** @param {any} msg @param {DataView[]} [buffers] */
    this.onMessage = (msg, buffers) => {
      if (msg && msg.type === "push" && typeof msg.key === "string") {
        const columns = columnsOf(msg, msg.key, buffers);
        for (const fn of this.pushed) fn({ ...msg, columns });
        return;
      }
      if (!msg || msg.type !== "response") return;
      if (this.timedOut) {
        this.timedOut = false;
        showLocal(this.model, "");
      }
      const entry = this.waiting.get(msg.id);
      if (!entry) return;
      this.waiting.delete(msg.id);
      clearTimeout(entry.timer);
      entry.resolve({ ...msg, columns: columnsOf(msg, entry.key, buffers) });
    };
    model.on("msg:custom", this.onMessage);
  }

  /** Milliseconds a request waits: the model's `request_timeout` (seconds) or the default. */
  get timeoutMs() {
    const seconds = Number(this.model.get("request_timeout"));
    return seconds > 0 ? seconds * 1000 : DEFAULT_TIMEOUT_MS;
  }

  /**
   * Send `action` with `args`; resolves with the response and its unpacked columns, rejects
   * with a KernelTimeout when the kernel does not answer in time.
   * @param {string} action
   * @param {Record<string, any>} [args]
   * @param {RequestOptions} [options]
   * @returns {Promise<Response>}
   */
  request(action, args = {}, options = {}) {
    const id = this.next++;
    const ms = options.timeoutMs ?? this.timeoutMs;
    return new Promise((resolve, reject) => {
      const fail = () => {
        this.waiting.delete(id);
        this.timedOut = true;
        showLocal(this.model, KERNEL_GONE);
        reject(new KernelTimeout(action, ms));
      };
      const timer = setTimeout(fail, ms);
      this.waiting.set(id, { resolve, key: options.columns, timer });
      try {
        this.model.send({ type: "request", id, action, args });
      } catch {
        clearTimeout(timer); // no connection to a kernel at all: say so now
        fail();
      }
    });
  }

  /**
   * Call `fn` with every message the kernel pushes unasked (columns unpacked).
   * @param {(r: Response) => void} fn
   */
  onPush(fn) {
    this.pushed.push(fn);
  }

  /** Requests sent and not answered yet. */
  get pending() {
    return this.waiting.size;
  }

  close() {
    this.model.off("msg:custom", this.onMessage);
    this.pushed = [];
    for (const entry of this.waiting.values()) clearTimeout(entry.timer);
    this.waiting.clear();
  }
}
