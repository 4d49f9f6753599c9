// The explorer's cell formats (`npm test`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { withUnit } from "../src/explorer/format.js";

test("seconds take the step that keeps them at or above 1, long runs in whole seconds", () => {
  assert.equal(withUnit(0.4776, "s"), "477.6 ms");
  assert.equal(withUnit(50.8, "s"), "50.80 s");
  assert.equal(withUnit(1608.49, "s"), "1,608 s"); // not "1.61k s"
  assert.equal(withUnit(2.5e7, "s"), "25.00M s");
  assert.equal(withUnit(12, "µs"), "12.00 µs");
  assert.equal(withUnit(0, "s"), "0 s");
});

test("other units keep their value; no unit is compact", () => {
  assert.equal(withUnit(2048, "B"), "2.05 kB");
  assert.equal(withUnit(1608.49, ""), "1.61k");
  assert.equal(withUnit(Number.NaN, "s"), "–");
});
