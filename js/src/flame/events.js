// Pointer events on the canvas: hover shows the tooltip, a click zooms into the frame and
// selects it (a linked explorer reveals it).
import { unpack } from "../lib/columns.js";
import { canvasWidth, scrollOffset } from "./draw.js";
import { frameAt, ROW } from "./state.js";
import { showTooltip } from "./tooltip.js";

/** @typedef {import("./state.js").View} View */

/** The frame under a pointer event, or -1. @param {View} v @param {MouseEvent} ev */
export function frameUnder(v, ev) {
  const f = v.frames;
  if (!f) return -1;
  const box = v.canvas.getBoundingClientRect();
  const x = ev.clientX - box.left, y = ev.clientY - box.top + scrollOffset(v);
  const row = Math.floor(y / ROW);
  const depth = v.model.get("orientation") === "flame" ? f.depth - 1 - row : row;
  return frameAt(f, x / canvasWidth(v), depth);
}

/** @param {View} v @returns {() => void} removes the listeners */
export function listen(v) {
  /** @param {MouseEvent} ev */
  const move = (ev) => {
    const i = frameUnder(v, ev);
    v.hover = i;
    showTooltip(v.tooltip, v.frames, i, ev.clientX, ev.clientY, window.innerWidth);
    v.canvas.style.cursor = i >= 0 && v.frames && v.frames.cols.node[i] >= 0 ? "pointer" : "default";
  };
  const leave = () => {
    v.hover = -1;
    showTooltip(v.tooltip, null, -1, 0, 0, 0);
  };
  /** @param {MouseEvent} ev */
  const click = async (ev) => {
    const i = frameUnder(v, ev);
    if (i < 0 || !v.frames) return;
    const node = Number(v.frames.cols.node[i]);
    if (node < 0) return; // frames gathered: their parent zooms in on them
    v.act("select", { node }); // sent first, answered first: no need to wait for it
    await v.act("zoom", { node });
  };
  v.canvas.addEventListener("mousemove", move);
  v.canvas.addEventListener("mouseleave", leave);
  v.canvas.addEventListener("click", click);
  return () => {
    v.canvas.removeEventListener("mousemove", move);
    v.canvas.removeEventListener("mouseleave", leave);
    v.canvas.removeEventListener("click", click);
  };
}

/**
 * The first frames Python sent with the widget's state (`first_frames`: the reply the first
 * `frames` request would get), as a reply with its columns unpacked; null when there are
 * none or they show an older view than the model's.
 * @param {import("./protocol.js").WidgetModel} model
 * @returns {{ok: boolean, meta: any, columns: Record<string, any>} | null}
 */
export function firstFrames(model) {
  const first = model.get("first_frames");
  const reply = first && first.reply;
  if (!reply || !reply.ok || !reply.frames || !reply.meta) return null;
  if (Number(reply.meta.version) !== Number(model.get("view_version"))) return null;
  return { ...reply, columns: unpack(reply.frames.columns, first.buffers || []) };
}
