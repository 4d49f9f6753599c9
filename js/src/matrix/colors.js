// The matrix's diverging color scale (d3's RdBu, as bqplot's "RdBu") and the text color that
// reads on each cell.

/** d3's RdBu: -top red, 0 near white, +top blue */
const RDBU = [
  "#67001f", "#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7",
  "#d1e5f0", "#92c5de", "#4393c3", "#2166ac", "#053061",
];

/** @param {string} hex @returns {[number, number, number]} */
function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * The color of `v` on -top..top, and whether white text reads on it.
 * @param {number} v @param {number} top
 * @returns {{ bg: string, light: boolean }}
 */
export function cellColor(v, top) {
  if (!Number.isFinite(v)) return { bg: "#d0d0d0", light: false };
  const t = Math.min(1, Math.max(0, (v / (top || 1) + 1) / 2)) * (RDBU.length - 1);
  const k = Math.min(RDBU.length - 2, Math.floor(t));
  const a = rgb(RDBU[k]), b = rgb(RDBU[k + 1]), f = t - k;
  const c = a.map((x, i) => Math.round(x + (b[i] - x) * f));
  // relative luminance (sRGB), then the text (white or black) of the higher contrast ratio:
  // with pure black and white one of them always reaches 4.5:1 (WCAG AA)
  const lin = c.map((x) => { const s = x / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
  const lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  const onWhite = 1.05 / (lum + 0.05), onBlack = (lum + 0.05) / 0.05;
  return { bg: `rgb(${c[0]},${c[1]},${c[2]})`, light: onWhite > onBlack };
}
