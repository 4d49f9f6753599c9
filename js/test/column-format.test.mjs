// One number format per column (`npm test`): the page writes a column's cells in the
// format Python chose for the whole column (perfweave.calltree.numbers.column_format).
// The expected texts are the ones tests/calltree/test_numbers.py expects of Python.
import { test } from "node:test";
import assert from "node:assert/strict";
import { columnText } from "../src/lib/format.js";
import { cellText } from "../src/explorer/format.js";

const SECONDS_2 = { scale: 1, unit: "s", decimals: 2, exponent: false };

test("a column of a Caliper profile's times: one step, one number of decimals", () => {
  // time of the sampling profile's nodes: 2.56e-4 ... 68.16 s, chosen as "s" with 2 decimals
  const texts = [2.56e-4, 0.001, 0.016, 5.664, 68.16].map((v) => columnText(v, SECONDS_2));
  // a value that is not 0 never reads as 0: two significant digits of its own
  assert.deepEqual(texts, ["0.00026 s", "0.0010 s", "0.02 s", "5.66 s", "68.16 s"]);
  for (const t of texts) {
    assert.doesNotMatch(t, /e[-+]/); // never e-notation beside plain decimals
    assert.match(t, / s$/); // one step
  }
  const whole = { scale: 1, unit: "s", decimals: 0, exponent: false };
  assert.deepEqual([1616.2, 0.0489, 0, 3e-9].map((v) => columnText(v, whole)),
    ["1,616 s", "0.049 s", "0 s", "3.0e-9 s"]);
});

test("whole seconds with separators: the at-target column never mixes 1,616 s and 507.9 s", () => {
  const fmt = { scale: 1, unit: "s", decimals: 0, exponent: false };
  assert.deepEqual([1616.2, 507.9].map((v) => columnText(v, fmt)), ["1,616 s", "508 s"]);
  const ms = { scale: 1e-3, unit: "ms", decimals: 1, exponent: false };
  assert.equal(columnText(0.8, ms), "800.0 ms"); // not "800m"
  assert.equal(columnText(-0.0125, ms), "-12.5 ms");
});

test("counts read as counts: exact int64, prefixes only where the column is large", () => {
  const whole = { scale: 1, unit: "", decimals: 0, exponent: false };
  assert.equal(columnText(987654n, whole), "987,654");
  assert.equal(columnText(1024, whole), "1,024");
  assert.equal(columnText(32768n, whole), "32,768");
  const mega = { scale: 1e6, unit: "M", decimals: 3, exponent: false };
  assert.equal(columnText(1.2e6, mega), "1.200M"); // a bare prefix is written onto the number
  assert.equal(columnText(12n, mega), "0.000012M");
  const gigabytes = { scale: 1e9, unit: "GB", decimals: 3, exponent: false };
  assert.equal(columnText(5.4864e9, gigabytes), "5.486 GB");
});

test("e-notation only for a whole column, written as Python writes it", () => {
  const tiny = { scale: 1, unit: "", decimals: 3, exponent: true };
  assert.deepEqual([3e-4, 1e-5].map((v) => columnText(v, tiny)), ["3.000e-4", "1.000e-5"]);
});

test("zero, missing and infinite values", () => {
  assert.equal(columnText(0, SECONDS_2), "0 s");
  assert.equal(columnText(Number.NaN, SECONDS_2), "–");
  assert.equal(columnText(-Infinity, SECONDS_2), "-inf");
});

test("a cell uses its column's format, and the compact text only without one", () => {
  assert.equal(cellText(2.56e-4, { unit: "s", format: SECONDS_2 }), "0.00026 s");
  assert.equal(cellText(2.56e-4, { unit: "s" }), "256.0 µs");
});

test("a tooltip never shows the noise of summing floats", async () => {
  const { precise } = await import("../src/lib/format.js");
  assert.equal(precise(0.09100000000000001), "0.091");
  assert.equal(precise(0.1 + 0.2), "0.3");
  assert.equal(precise(12345678901234567n), "12345678901234567"); // int64 exactly
  assert.equal(precise(543731), "543731");
  assert.equal(precise(2.5e-7), "2.5e-7");
});

test("a value too small for its column's step reads in a step of its own, as in Python", () => {
  // the explorer's hostile-names page: counts of 4.6e18 and 3 in one column
  const exa = { scale: 1e18, unit: "E", decimals: 3, exponent: false, base: "" };
  assert.deepEqual([4.612e18, 3, 9e15, 7].map((v) => columnText(v, exa)),
    ["4.612E", "3", "0.009E", "7"]);
  const gigabytes = { scale: 1e9, unit: "GB", decimals: 3, exponent: false, base: "B" };
  assert.equal(columnText(24, gigabytes), "24 B");
  const whole = { scale: 1, unit: "s", decimals: 0, exponent: false, base: "s" };
  assert.equal(columnText(3e-9, whole), "3.000 ns");
  const ms = { scale: 1e3, unit: "s", decimals: 3, exponent: false, base: "ms" };
  assert.equal(columnText(4e-9, ms), "0.004000 ns");
});
