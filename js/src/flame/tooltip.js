// What hovering a frame says: its name, inclusive and exclusive values in the metric's one
// format, and its share of the whole and of the zoomed frame (with a comparison: both sides,
// the difference and its test). Every line is text.
import { h } from "../lib/dom.js";
import { columnText, percent } from "../lib/format.js";

/** @typedef {import("./state.js").Frames} Frames */

/** @param {number} p */
function pText(p) {
  if (!Number.isFinite(p)) return "–";
  return p < 1e-4 ? p.toExponential(1) : p.toFixed(4);
}

/**
 * The tooltip's lines for frame `i`.
 * @param {Frames} f @param {number} i
 * @returns {string[]}
 */
export function tooltipLines(f, i) {
  const c = f.cols, m = f.meta, fmt = m.format;
  const value = c.value[i];
  const ofTotal = percent(value, m.total);
  const zoomed = m.zoom >= 0 ? `, ${percent(value, m.zoom_value)} of the zoomed frame` : "";
  if (c.node[i] < 0) {
    return [
      `${c.hidden[i].toLocaleString("en-US")} frames, each narrower than a pixel`,
      `together: ${columnText(value, fmt)} (${ofTotal} of the total${zoomed})`,
      "click the frame above them to zoom in and see them",
    ];
  }
  const lines = [c.name[i]];
  if (m.compare) {
    const [a, b] = m.labels || ["a", "b"];
    lines.push(`${a}: ${columnText(c.value_a[i], fmt)} · ${b}: ${columnText(c.value_b[i], fmt)}`);
    const rel = Number.isFinite(c.relative[i]) ? ` (${(100 * c.relative[i]).toFixed(1)}% of the larger)` : "";
    lines.push(`Δ ${a} − ${b}: ${columnText(c.delta[i], fmt)}${rel}`);
    if (m.tested) {
      const verdict = c.significant[i] ? "significant" : "not significant";
      lines.push(`p = ${pText(c.p_value[i])}, q = ${pText(c.q_value[i])} (${verdict}), n = ${c.n_a[i]} / ${c.n_b[i]}`);
    } else {
      lines.push("no test: one sample per side");
    }
    lines.push(`width: the larger side, ${ofTotal} of the total${zoomed}`);
  } else {
    lines.push(`inclusive: ${columnText(value, fmt)} (${ofTotal} of the total${zoomed})`);
    lines.push(`exclusive: ${columnText(c.exclusive[i], fmt)}`);
  }
  if (m.predicted) {
    lines.push(c.guess[i] ? "predicted by a poorly fitted model (or none): a guess" : "predicted by its model");
  }
  return lines;
}

/**
 * Show the tooltip for frame `i` near the window point (x, y), or hide it (i < 0).
 * @param {HTMLElement} tip @param {Frames | null} f @param {number} i
 * @param {number} x @param {number} y @param {number} width
 */
export function showTooltip(tip, f, i, x, y, width) {
  if (!f || i < 0) {
    tip.hidden = true;
    return;
  }
  const lines = tooltipLines(f, i);
  tip.replaceChildren(...lines.map((text, k) => h("div", { cls: k ? "" : "pw-fl-tip-name", text })));
  tip.hidden = false;
  tip.dataset.node = String(f.cols.node[i]);
  // fixed to the window, so a short plot never clips it
  const left = Math.min(x + 14, Math.max(0, width - 350));
  const top = y + 16 + 90 > window.innerHeight ? y - 16 - tip.offsetHeight : y + 16;
  tip.style.left = `${left}px`;
  tip.style.top = `${Math.max(0, top)}px`;
}
