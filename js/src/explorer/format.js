// Numbers of the explorer with their units: seconds scaled to ms/µs/ns, bytes to kB/MB/GB.
import { columnText, compact, grouped, precise, secondsIn } from "../lib/format.js";

/**
 * A cell's text: in its column's one format (sent with the column), else compact with the
 * column's unit.
 * @param {number | bigint} v
 * @param {{ unit?: string, format?: import("../lib/format.js").ColumnFormat }} col
 * @returns {string}
 */
export function cellText(v, col) {
  return col.format ? columnText(v, col.format) : withUnit(v, col.unit);
}

/** @type {Record<string, number>} */
const SECONDS = { s: 1, ms: 1e-3, "µs": 1e-6, ns: 1e-9 };

/**
 * A cell's text: compact, with the unit where the column has one.
 * @param {number | bigint} v
 * @param {string} [unit]
 * @returns {string}
 */
export function withUnit(v, unit) {
  const x = Number(v);
  if (!unit || !Number.isFinite(x)) return compact(v);
  if (unit in SECONDS) {
    const s = x * SECONDS[unit];
    if (s === 0) return "0 s";
    const [y, scaled] = secondsIn(s);
    // a long run in whole seconds ("1,608 s"), not kilo-seconds
    if (Math.abs(y) >= 1000 && Math.abs(y) < 1e7) return `${grouped(Math.round(y))} ${scaled}`;
    return `${compact(y)} ${scaled}`;
  }
  const text = compact(v);
  const m = /^(-?[\d.]+)([kMGT])$/.exec(text);
  return m ? `${m[1]} ${m[2]}${unit}` : `${text} ${unit}`;
}

/**
 * A tooltip's value with its unit (12 significant digits: no float noise).
 * @param {number | bigint} v
 * @param {string} [unit]
 */
export function exactWithUnit(v, unit) {
  return unit ? `${precise(v)} ${unit}` : precise(v);
}

/**
 * An imbalance (max / mean): "1.25×".
 * @param {number | bigint} v
 */
export function ratio(v) {
  const x = Number(v);
  return Number.isFinite(x) ? `${x.toFixed(2)}×` : "–";
}
