// The explorer's cell formats (`npm test`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { withUnit } from "../src/explorer/format.js";
import { compact, tickText } from "../src/lib/format.js";

test("seconds take the step that keeps them at or above 1, long runs in whole seconds", () => {
  assert.equal(withUnit(0.4776, "s"), "477.6 ms");
  assert.equal(withUnit(50.8, "s"), "50.80 s");
  assert.equal(withUnit(1608.49, "s"), "1,608 s"); // not "1.61k s"
  assert.equal(withUnit(2.5e7, "s"), "25.0M s");
  assert.equal(withUnit(12, "µs"), "12.00 µs");
  assert.equal(withUnit(0, "s"), "0 s");
});

test("other units keep their value; no unit is compact", () => {
  assert.equal(withUnit(2048, "B"), "2.05 kB");
  assert.equal(withUnit(1608.49, ""), "1.61k");
  assert.equal(withUnit(Number.NaN, "s"), "–");
});

test("compact writes 3 significant digits past 1,000, never '100.00M'", () => {
  assert.equal(compact(1e8), "100M");
  assert.equal(compact(486.2e9), "486G");
  assert.equal(compact(12.71e6), "12.7M");
  assert.equal(compact(1700), "1.70k");
  assert.equal(compact(999.7e3), "1.00M"); // not "1000k"
});

test("a tick drops trailing zeros: decades read 1k, 10k, 100k", () => {
  assert.deepEqual([1e3, 1e4, 1e5, 1e6].map(tickText), ["1k", "10k", "100k", "1M"]);
  assert.equal(tickText(1700), "1.7k");
  assert.equal(tickText(12.71e6), "12.7M");
  assert.equal(tickText(486.2), "486");
  assert.equal(tickText(0.5), "0.5");
});
