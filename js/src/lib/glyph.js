// Small canvas glyphs: a box plot of a node's values across profiles with the profiles as
// points (strip), colored by a metadata category.

export const PALETTE = [
  "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
];

/**
 * Where a strip position (0..254) sits on a glyph `width` pixels wide.
 * @param {number} p
 * @param {number} width
 */
export function stripX(p, width) {
  return 4 + (p / 254) * (width - 8);
}

/**
 * Draw quartiles [min, q1, med, q3, max] and the profiles' positions on a canvas.
 * `strip`: one byte per profile, 0..254 along [min(0, lowest), highest], 255 = no value.
 * @param {HTMLCanvasElement} canvas
 * @param {number[]} quartiles
 * @param {ArrayLike<number>} strip
 * @param {ArrayLike<number>} codes palette index of each profile
 */
export function drawDistribution(canvas, quartiles, strip, codes) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || 120;
  const hgt = canvas.clientHeight || 16;
  if (canvas.width !== w * ratio) {
    canvas.width = w * ratio;
    canvas.height = hgt * ratio;
  }
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, hgt);
  const [lo, q1, med, q3, hi] = quartiles;
  if (!Number.isFinite(hi)) return;
  const min = Math.min(0, lo);
  const span = hi - min || 1;
  const x = (/** @type {number} */ v) => 4 + ((v - min) / span) * (w - 8);
  const mid = hgt / 2;
  ctx.strokeStyle = "#555";
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(x(lo), mid);
  ctx.lineTo(x(hi), mid);
  ctx.stroke();
  ctx.fillStyle = "rgba(78,121,167,0.25)";
  ctx.fillRect(x(q1), 3, Math.max(1, x(q3) - x(q1)), hgt - 6);
  ctx.strokeRect(x(q1), 3, Math.max(1, x(q3) - x(q1)), hgt - 6);
  ctx.strokeStyle = "#222";
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(x(med), 2);
  ctx.lineTo(x(med), hgt - 2);
  ctx.stroke();
  for (let i = 0; i < strip.length; i++) {
    if (strip[i] === 255) continue;
    ctx.fillStyle = PALETTE[(codes[i] || 0) % PALETTE.length];
    const jitter = ((i * 7919) % 7) - 3;
    const px = stripX(strip[i], w);
    ctx.fillRect(px - 1, mid + jitter - 1, 2.5, 2.5);
  }
}
