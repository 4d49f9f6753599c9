// A search on the page: which names match a pattern (the page's highlight until Python's
// matches arrive), and for a saved page without a kernel (`perfweave export`) what the
// matches hold, over the frames saved with it (every frame at least 1/16384 of the whole,
// see Python's first-draw request), as Python says it: a match under a matching ancestor
// counts once.
import { columnText, percent } from "../lib/format.js";

/** @typedef {import("./store.js").Held} Held */

/**
 * Which names match the regular expression `pattern` (searched anywhere in the name), by
 * name code.
 * @param {string[]} names name code -> name @param {string} pattern
 * @returns {{matched: Uint8Array} | {error: string}}
 */
export function matchedNames(names, pattern) {
  let re;
  try {
    re = new RegExp(pattern);
  } catch (err) {
    return { error: `search ${JSON.stringify(pattern)}: bad regular expression: ${String(err)}` };
  }
  const matched = new Uint8Array(names.length);
  for (let k = 0; k < names.length; k++) {
    const name = names[k];
    if (name !== undefined && re.test(name)) matched[k] = 1;
  }
  return { matched };
}

/**
 * What the matches of a held set of the whole graph hold, as the search line says it: their
 * count, their value counted once and their share of the total.
 * @param {Held} held @param {Uint8Array} matched by name code
 * @param {import("../lib/format.js").ColumnFormat} format
 */
export function searchText(held, matched, format) {
  const c = held.cols;
  let count = 0, value = 0, share = 0, inside = -1;
  for (let i = 0; i < held.n; i++) {
    if (!matched[c.name[i]]) continue;
    count++;
    if (c.node[i] < inside) continue; // under a matching ancestor: counted with it
    value += c.value[i];
    share += c.x1[i] - c.x0[i];
    inside = c.node[i] + c.size[i];
  }
  return `${count.toLocaleString("en-US")} match${count === 1 ? "" : "es"}: ` +
    `${columnText(value, format)}, ${percent(share, 1)} of the total (frames saved in this page)`;
}
