// Number formatting: compact for cells, exact for tooltips.

/**
 * Exact text of a value as Python holds it (int64 as BigInt, float64 shortest repr).
 * @param {number | bigint} v
 * @returns {string}
 */
export function exact(v) {
  if (typeof v === "bigint") return v.toString();
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v);
}

/**
 * A value for a reader to see whole: 12 significant digits, so the noise of summing
 * floats never shows ("0.091", not "0.09100000000000001"); big integers exactly.
 * @param {number | bigint} v
 */
export function precise(v) {
  if (typeof v === "bigint" || !Number.isFinite(v) || Number.isInteger(v)) return exact(v);
  return String(Number(v.toPrecision(12)));
}

const SUFFIX = ["", "k", "M", "G", "T"];

/**
 * Short text for a cell: 1,000 and up in 3 significant digits with a k/M/G/T suffix
 * ("486G", "12.7M"), below it with a few decimals ("477.6").
 * @param {number | bigint} v
 * @returns {string}
 */
export function compact(v) {
  if (typeof v === "bigint") {
    if (v > -10000n && v < 10000n) return v.toString();
    v = Number(v);
  }
  if (Number.isNaN(v)) return "–";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a < 1e-3 || a >= 1e15) return v.toExponential(2); // never a suffix that reads as "e"
  if (a < 1000) return a >= 100 ? v.toFixed(1) : a >= 10 ? v.toFixed(2) : v.toFixed(3);
  let tier = Math.min(SUFFIX.length - 1, Math.floor(Math.log10(a) / 3));
  let y = v / 10 ** (3 * tier);
  if (Math.abs(Number(y.toPrecision(3))) >= 1000 && tier < SUFFIX.length - 1) {
    tier += 1; // 999.7k reads "1.00M", not "1000k"
    y = v / 10 ** (3 * tier);
  }
  const ay = Math.abs(y);
  return y.toFixed(ay >= 100 ? 0 : ay >= 10 ? 1 : 2) + SUFFIX[tier]; // "486G", "48.6G", "4.86G"
}

/**
 * A chart tick: 3 significant digits without trailing zeros ("1k", "100M", "12.7M",
 * "486"), as a reader of decades on a log scale expects.
 * @param {number} v
 * @returns {string}
 */
export function tickText(v) {
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1000) return String(Number(v.toPrecision(3))); // "486", "0.5"
  return compact(v).replace(/\.(\d*?)0+(?=[kMGT]?$)/, (_, kept) => (kept ? `.${kept}` : ""));
}

/**
 * Percent of a total, or "" when the total is not usable.
 * @param {number | bigint} v
 * @param {number} total
 * @returns {string}
 */
export function percent(v, total) {
  const x = Number(v);
  if (!total || !Number.isFinite(x)) return "";
  const p = (100 * x) / total;
  if (p !== 0 && Math.abs(p) < 0.05) return p > 0 ? "<0.1%" : ">-0.1%";
  return Math.abs(p) >= 9.95 ? `${p.toFixed(0)}%` : `${p.toFixed(1)}%`;
}

/** An integer (number, BigInt or its exact text) with thousands separators: "5,486,477,093";
 * anything else (a float, "–") is returned as text unchanged.
 * @param {number | bigint | string} v */
export function grouped(v) {
  const text = typeof v === "string" ? v : exact(v);
  return /^-?\d{4,}$/.test(text) ? text.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : text;
}

/** @type {[number, string][]} */
const TIME_UNITS = [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]];

/**
 * Seconds in the largest of s, ms, µs, ns that keeps the number at or above 1 (ns below).
 * @param {number} x seconds
 * @returns {[number, string]} the value in that unit, and the unit
 */
export function secondsIn(x) {
  const a = Math.abs(x);
  const [scale, unit] = TIME_UNITS.find(([s]) => a >= s) || TIME_UNITS[TIME_UNITS.length - 1];
  return [x / scale, unit];
}

/** Seconds in one format for every timing: three significant digits and a unit that keeps
 * the number at or above 1 ("48.0 ms", "14.0 µs", "1.20 s"; minutes stay seconds).
 * @param {number | bigint} v */
export function seconds(v) {
  const x = Number(v);
  if (!Number.isFinite(x)) return "–";
  if (x === 0) return "0 s";
  const [y, unit] = secondsIn(x);
  const digits = Math.abs(y) >= 100 ? 0 : Math.abs(y) >= 10 ? 1 : 2;
  return `${y >= 1000 ? grouped(Math.round(y)) : y.toFixed(digits)} ${unit}`;
}

/** "1 rank", "2 ranks". @param {number | bigint} n @param {string} word @param {string} [many] */
export function plural(n, word, many = `${word}s`) {
  return `${grouped(n)} ${Number(n) === 1 ? word : many}`;
}

/**
 * A column's one format, chosen in Python from the whole column
 * (perfweave.calltree.numbers.column_format): divide by `scale`, write `decimals`
 * decimals (e-notation when `exponent`), then `unit`.
 * @typedef {object} ColumnFormat
 * @property {number} scale
 * @property {string} unit "s", "ms", "kB", "M" (a bare prefix is written onto the number), ""
 * @property {number} decimals
 * @property {boolean} exponent
 * @property {string} [base] the column's unit before its step, in which a value too small
 *   for the step is written in a step of its own
 */

/** seconds per time unit a column may be in (numbers.TIME_UNITS) */
const TIME_SECONDS = /** @type {Record<string, number>} */ ({ s: 1, ms: 1e-3, "µs": 1e-6, us: 1e-6, ns: 1e-9 });
/** SI prefixes of quantities that are not times (numbers._PREFIXES) */
const PREFIXES = ["", "k", "M", "G", "T", "P", "E"];
/** significant digits of a column's largest magnitude (numbers.DIGITS) */
const DIGITS = 4;

/**
 * The format a column of the one value `x` in `unit` has (numbers.column_format of [x]):
 * its own step of s/ms/µs/ns or SI prefix, and 4 significant digits.
 * @param {number} x
 * @param {string} unit
 * @returns {ColumnFormat}
 */
export function ownFormat(x, unit) {
  const top = Math.abs(x);
  let scale = 1;
  let shown = unit;
  if (unit in TIME_SECONDS) {
    if (top > 0) {
      const sec = top * TIME_SECONDS[unit];
      const [s, name] = TIME_UNITS.find(([t]) => sec >= t) || TIME_UNITS[TIME_UNITS.length - 1];
      scale = s / TIME_SECONDS[unit];
      shown = name;
    }
  } else if (!["%", "×"].includes(unit) && top >= 1e6) {
    const tier = Math.min(PREFIXES.length - 1, Math.floor(Math.log10(top) / 3));
    scale = 1000 ** tier;
    shown = PREFIXES[tier] + unit;
  }
  const shownTop = top / scale;
  if (shownTop === 0 || (Number.isInteger(x) && scale === 1)) {
    return { scale, unit: shown, decimals: 0, exponent: false, base: unit };
  }
  const decimals = Math.max(0, DIGITS - 1 - Math.floor(Math.log10(shownTop)));
  if (decimals > MAX_DECIMALS) return { scale, unit: shown, decimals: DIGITS - 1, exponent: true, base: unit };
  return { scale, unit: shown, decimals, exponent: false, base: unit };
}

/** SI prefixes a bare unit may be (written onto the number: "1.200M"). */
export const BARE_PREFIXES = ["k", "M", "G", "T", "P", "E"];
/** more decimals than this and a value is written in e-notation (numbers.MAX_DECIMALS) */
const MAX_DECIMALS = 6;

/**
 * A value in its column's format: the same step, decimals and notation in every cell of a
 * column ("68.16 s" above "0.02 s", never "68.16" above "2.56e-4"); an exact 0 is "0",
 * NaN a dash. Whole numbers written as they are stay exact (int64 as BigInt).
 * @param {number | bigint} v
 * @param {ColumnFormat} fmt
 * @returns {string}
 */
export function columnText(v, fmt) {
  const unit = fmt.unit || "";
  const tail = !unit ? "" : BARE_PREFIXES.includes(unit) ? unit : ` ${unit}`;
  if (typeof v === "bigint" && fmt.scale === 1 && fmt.decimals === 0 && !fmt.exponent) {
    return `${grouped(v)}${tail}`;
  }
  const x = Number(v);
  if (Number.isNaN(x)) return "–";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return `0${tail}`;
  const y = x / fmt.scale;
  if (fmt.exponent) return `${y.toExponential(fmt.decimals)}${tail}`;
  let decimals = fmt.decimals;
  if (Number(Math.abs(y).toFixed(decimals)) === 0) { // a value that is not 0 never reads as 0
    decimals = 1 - Math.floor(Math.log10(Math.abs(y)));
    if (decimals > MAX_DECIMALS) {
      // too small for the column's step: in a step of its own ("3.000 ns", "24 B")
      return fmt.base === undefined ? `${y.toExponential(1)}${tail}` : columnText(x, ownFormat(x, fmt.base));
    }
  }
  const [whole, frac] = y.toFixed(decimals).split(".");
  const sign = whole.startsWith("-") ? "-" : "";
  const digits = sign ? whole.slice(1) : whole;
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""}${tail}`;
}
