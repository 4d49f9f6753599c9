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
// In order: a channel has a random name and numbers the requests it sends 1, 2, 3, ...
// (`channel`, `seq`). Python applies them in that order whatever order the transport hands
// them over in (perfweave/widgets/_base.py, RequestOrder), and the channel resolves the
// responses in the same order: a response that comes before an earlier request's is held
// until that one is answered or has timed out. So what a person types and clicks reaches
// Python, and its replies reach the view, in the order it was done.
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
 * @property {Response} [answer] the response, once it came (held for earlier requests')
 */

/** A name for a channel that no other view of the page picks (random; ids are not secrets). */
function channelName() {
  const bytes = new Uint8Array(8);
  const c = globalThis.crypto;
  if (c && c.getRandomValues) c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

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
    /** this channel's name: Python keeps each channel's requests in their own order */
    this.name = channelName();
    this.next = 1;
    /** requests sent so far: the next one sent is number `sent + 1` (its `seq`) */
    this.sent = 0;
    /** @type {Map<number, Waiting>} requests not resolved yet, in the order they were made */
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
      if (!entry || entry.answer) return;
      clearTimeout(entry.timer);
      entry.answer = { ...msg, columns: columnsOf(msg, entry.key, buffers) };
      this.release();
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
        this.release(); // later requests' responses no longer wait for this one
      };
      const timer = setTimeout(fail, ms);
      this.waiting.set(id, { resolve, key: options.columns, timer });
      const seq = this.sent + 1; // a request that could not be sent leaves no gap
      try {
        this.model.send({ type: "request", id, channel: this.name, seq, action, args });
        this.sent = seq;
      } catch {
        clearTimeout(timer); // no connection to a kernel at all: say so now
        fail();
      }
    });
  }

  /** Resolve the responses that came, in the order their requests were made, up to the
   * first request still unanswered. */
  release() {
    for (const [id, entry] of this.waiting) {
      if (!entry.answer) return;
      this.waiting.delete(id);
      entry.resolve(entry.answer);
    }
  }

  /**
   * Call `fn` with every message the kernel pushes unasked (columns unpacked).
   * @param {(r: Response) => void} fn
   */
  onPush(fn) {
    this.pushed.push(fn);
  }

  /** Requests sent and not resolved yet (unanswered, or answered before an earlier one). */
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
