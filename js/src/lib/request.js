// Request/response over anywidget custom messages (see perfweave/widgets/_base.py).
import { unpack } from "./columns.js";

export class Channel {
  constructor(model) {
    this.model = model;
    this.next = 1;
    this.waiting = new Map();
    this.onMessage = (msg, buffers) => {
      if (!msg || msg.type !== "response") return;
      const entry = this.waiting.get(msg.id);
      if (!entry) return;
      this.waiting.delete(msg.id);
      // binary columns ride under one payload key holding {columns: header} (`rows` for
      // the explorer, `matrix` for the heatmap)
      const holder = msg.rows || Object.values(msg).find(
        (v) => v && typeof v === "object" && Array.isArray(v.columns));
      const columns = holder ? unpack(holder.columns, buffers || []) : null;
      entry.resolve({ ...msg, columns });
    };
    model.on("msg:custom", this.onMessage);
  }

  /** Send `action` with `args`; resolves with the response and its unpacked columns. */
  request(action, args = {}) {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, { resolve });
      this.model.send({ type: "request", id, action, args });
    });
  }

  get pending() {
    return this.waiting.size;
  }

  close() {
    this.model.off("msg:custom", this.onMessage);
    this.waiting.clear();
  }
}
