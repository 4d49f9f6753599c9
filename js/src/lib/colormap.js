// A sequential color map (viridis control points, interpolated) as a 256-entry RGBA
// lookup table: index 0 is "zero / no data" (light grey), 1..255 low to high.

const STOPS = [
  [68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142],
  [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37],
];
export const ZERO_RGB = [236, 236, 236];

/** @returns {Uint8ClampedArray} 256 RGBA entries */
export function lut() {
  const out = new Uint8ClampedArray(256 * 4);
  out.set([...ZERO_RGB, 255], 0);
  for (let i = 1; i < 256; i++) {
    const t = ((i - 1) / 254) * (STOPS.length - 1);
    const k = Math.min(STOPS.length - 2, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) out[i * 4 + c] = STOPS[k][c] + (STOPS[k + 1][c] - STOPS[k][c]) * f;
    out[i * 4 + 3] = 255;
  }
  return out;
}

/**
 * CSS color of entry `i` of a lookup table.
 * @param {Uint8ClampedArray} table
 * @param {number} i
 */
export function rgb(table, i) {
  return `rgb(${table[i * 4]},${table[i * 4 + 1]},${table[i * 4 + 2]})`;
}
