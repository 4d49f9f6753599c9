// Frame colours: a stable hash of the name (or module), the exclusive share, or a
// comparison's difference (grey where it is not significant).

/** FNV-1a of a string: the same name gets the same colour in every view and session.
 * @param {string} s */
export function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A warm colour of a name (oranges and yellows, dark text reads on all of them).
 * @param {string} key @returns {[number, number, number]} */
export function nameColor(key) {
  const h = hash(key);
  const v1 = (h & 0xff) / 255, v2 = ((h >>> 8) & 0xff) / 255, v3 = ((h >>> 16) & 0xff) / 255;
  return [Math.round(215 + 40 * v1), Math.round(110 + 120 * v2), Math.round(40 + 50 * v3)];
}

/** @param {[number, number, number]} a @param {[number, number, number]} b @param {number} t
 * @returns {[number, number, number]} */
function mix(a, b, t) {
  const u = Math.max(0, Math.min(1, t));
  const at = (/** @type {number} */ k) => Math.round(a[k] + (b[k] - a[k]) * u);
  return [at(0), at(1), at(2)];
}

const PALE = /** @type {[number, number, number]} */ ([255, 241, 204]);
const DEEP = /** @type {[number, number, number]} */ ([189, 40, 30]);
/** Exclusive share (0: all time in children .. 1: all its own) as pale yellow .. deep red.
 * @param {number} share */
export function shareColor(share) {
  return mix(PALE, DEEP, Number.isFinite(share) ? share : 0);
}

export const MORE = /** @type {[number, number, number]} */ ([214, 39, 40]);
export const LESS = /** @type {[number, number, number]} */ ([33, 102, 172]);
export const SAME = /** @type {[number, number, number]} */ ([246, 246, 246]);
export const NOT_SIGNIFICANT = /** @type {[number, number, number]} */ ([205, 205, 205]);

/** A difference relative to the larger side (-1..1): red where a is larger, blue where b is;
 * the square root makes a 10% difference visible.
 * @param {number} relative @param {boolean} significant */
export function deltaColor(relative, significant) {
  if (!significant) return NOT_SIGNIFICANT;
  const r = Number.isFinite(relative) ? relative : 0;
  return mix(SAME, r >= 0 ? MORE : LESS, Math.sqrt(Math.abs(r)));
}

/** Text on a colour: black, or white on a dark one. @param {[number, number, number]} c */
export function textOn(c) {
  return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 140 ? "#fff" : "#111";
}

/** @param {[number, number, number]} c */
export function css(c) {
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}
