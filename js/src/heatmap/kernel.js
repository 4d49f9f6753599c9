// Requests to Python: a reply holding a matrix is drawn; a refused change or no answer puts
// the controls back to Python's state. Timings land on the root's data attributes.
import { Channel } from "../lib/request.js";
import { cellsWanted, draw } from "./draw.js";
import { ACTIONS } from "./protocol.js";

/** @typedef {import("./state.js").View} View */
/** @typedef {import("./state.js").ActionName} ActionName */

/**
 * Give `v` its request path (`v.act`); returns `fetchMatrix()`, `stale()` and `close()`.
 * @param {View} v
 * @param {() => void} sync puts the page back to the model
 * @param {number} t0 when render() started (for data-first-draw-ms)
 */
export function connect(v, sync, t0) {
  const { model, root } = v;
  const channel = new Channel(model);
  let busy = 0;
  const stale = () => (model.get("view_version") || 0) > (v.matrix ? v.matrix.meta.version : -1);

  /** @param {any} reply */
  function accept(reply) {
    const cols = reply.columns;
    const shape = cols.values.shape;
    v.matrix = { meta: reply.meta, cols, nr: shape[0], nc: shape[1] };
    sync();
    draw(v);
    root.dataset.view = JSON.stringify(reply.meta.view);
    root.dataset.version = String(reply.meta.version);
  }

  /**
   * Send a request; a matrix in the reply is drawn, a refused change puts the controls back.
   * @param {ActionName} action
   * @param {Record<string, any>} [args]
   */
  async function act(action, args = {}) {
    const t = performance.now();
    busy++;
    let reply;
    try {
      reply = await channel.request(action, args, { columns: ACTIONS[action].key || undefined });
    } catch (err) {
      sync(); // no answer (the kernel is gone): the last view stays as it was
      return { ok: false, error: String(err) };
    } finally {
      busy--;
    }
    if (reply.ok && reply.columns) accept(reply);
    if (!reply.ok) sync(); // a refused change: the selects show Python's state again
    root.dataset.lastAction = action;
    root.dataset.lastMs = (performance.now() - t).toFixed(1);
    if (!busy && stale()) fetchMatrix();
    return reply;
  }

  async function fetchMatrix() {
    const reply = await act("matrix", { max_cells: cellsWanted(v) });
    if (!root.dataset.ready && (reply.ok || model.get("error"))) {
      root.dataset.firstDrawMs = (performance.now() - t0).toFixed(1);
      root.dataset.ready = "1";
    }
  }

  v.act = act;
  return { fetchMatrix, stale, idle: () => busy === 0, close: () => channel.close() };
}
