// lib/request.js without a browser: a fake model stands for anywidget's (`npm test`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Channel, KernelTimeout, KERNEL_GONE } from "../src/lib/request.js";

/** A model that records what the page sends and lets a test answer as the kernel would. */
function fakeModel(traits = {}) {
  const handlers = new Map();
  return {
    sent: [],
    get: (name) => traits[name],
    set() {},
    save_changes() {},
    send(content) {
      this.sent.push(content);
    },
    on(event, fn) {
      handlers.set(event, fn);
    },
    off(event) {
      handlers.delete(event);
    },
    reply(msg, buffers = []) {
      handlers.get("msg:custom")?.(msg, buffers);
    },
  };
}

const int64 = (values) => new DataView(new BigInt64Array(values).buffer);

test("a reply's columns are read under the named key only", async () => {
  const model = fakeModel();
  const channel = new Channel(model);
  const pending = channel.request("rows", { start: 0 }, { columns: "window" });
  const { id } = model.sent[0];
  assert.deepEqual(model.sent[0],
    { type: "request", id, channel: channel.name, seq: 1, action: "rows", args: { start: 0 } });
  const header = [{ key: "vid", dtype: "int64", shape: [2] }];
  // another key holding a column header is not searched
  model.reply({ type: "response", id, ok: true, other: { columns: [] }, window: { columns: header } },
    [int64([7n, 9n])]);
  const response = await pending;
  assert.equal(response.ok, true);
  assert.deepEqual(Array.from(response.columns.vid), [7n, 9n]);
  assert.equal(channel.pending, 0);
});

test("a reply without the named key has no columns", async () => {
  const model = fakeModel();
  const channel = new Channel(model);
  const pending = channel.request("set", {}, { columns: "matrix" });
  model.reply({ type: "response", id: model.sent[0].id, ok: false, error: "no such rank 9" });
  const response = await pending;
  assert.equal(response.columns, null);
  assert.equal(response.error, "no such rank 9");
});

test("a request the kernel does not answer rejects with KernelTimeout", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] }); // the clock moves only when told
  const model = fakeModel({ request_timeout: 0.05 }); // seconds, from the Python trait
  const channel = new Channel(model);
  const pending = channel.request("toggle", { vid: 3 });
  t.mock.timers.tick(49);
  assert.equal(channel.pending, 1); // still waiting just before the timeout
  t.mock.timers.tick(1);
  await assert.rejects(pending, (err) => {
    assert.ok(err instanceof KernelTimeout);
    assert.equal(err.message, KERNEL_GONE);
    assert.equal(err.action, "toggle");
    assert.equal(err.ms, 50);
    return true;
  });
  assert.equal(channel.pending, 0);
  // a late answer to it is ignored
  model.reply({ type: "response", id: model.sent[0].id, ok: true });
});

test("the timeout defaults to 10 s and a call can set its own", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const channel = new Channel(fakeModel());
  assert.equal(channel.timeoutMs, 10000);
  const pending = channel.request("rows", {}, { timeoutMs: 20 });
  t.mock.timers.tick(20);
  await assert.rejects(pending, KernelTimeout);
});

test("a model whose connection is gone fails at once", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] }); // no timer fires: only an immediate failure
  const model = fakeModel({ request_timeout: 60 });
  model.send = () => {
    throw new Error("Comm is closed");
  };
  await assert.rejects(new Channel(model).request("rows"), KernelTimeout);
});

test("a pushed message reaches onPush with its columns, and answers no request", async () => {
  const model = fakeModel();
  const channel = new Channel(model);
  const got = [];
  channel.onPush((msg) => got.push(msg));
  const pending = channel.request("rows", {}, { columns: "rows" });
  const header = [{ key: "vid", dtype: "int64", shape: [1] }];
  model.reply({ type: "push", key: "rows", version: 4, rows: { columns: header } }, [int64([5n])]);
  assert.equal(got.length, 1);
  assert.equal(got[0].version, 4);
  assert.deepEqual(Array.from(got[0].columns.vid), [5n]);
  assert.equal(channel.pending, 1); // the request still waits for its own response
  model.reply({ type: "response", id: model.sent[0].id, ok: true });
  await pending;
  channel.close();
  model.reply({ type: "push", key: "rows", version: 5, rows: { columns: [] } });
  assert.equal(got.length, 1); // a closed channel passes nothing on
});

test("each channel numbers the requests it sends 1, 2, 3 under its own name", () => {
  const model = fakeModel();
  const first = new Channel(model);
  const second = new Channel(model); // a second view of the same widget
  first.request("filter", { query: "a" });
  first.request("undo");
  second.request("rows");
  first.request("filter", { query: "b" });
  assert.notEqual(first.name, second.name);
  assert.match(first.name, /^[0-9a-f]{16}$/);
  const numbered = model.sent.map((m) => [m.channel === first.name ? "first" : "second", m.seq]);
  assert.deepEqual(numbered, [["first", 1], ["first", 2], ["second", 1], ["first", 3]]);
  first.close();
  second.close();
});

test("a request that could not be sent leaves no gap in the sequence", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const model = fakeModel();
  const channel = new Channel(model);
  channel.request("rows");
  const send = model.send;
  model.send = () => {
    throw new Error("Comm is closed");
  };
  await assert.rejects(channel.request("rows"), KernelTimeout);
  model.send = send;
  channel.request("rows");
  assert.deepEqual(model.sent.map((m) => m.seq), [1, 2]); // Python waits for no lost #2
  channel.close();
});

test("responses resolve in the order the requests were made", async () => {
  const model = fakeModel();
  const channel = new Channel(model);
  const done = [];
  const pending = ["a", "b", "c"].map((q) =>
    channel.request("filter", { query: q }).then((r) => done.push([q, r.ok])));
  const [a, b, c] = model.sent.map((m) => m.id);
  model.reply({ type: "response", id: c, ok: true });
  model.reply({ type: "response", id: b, ok: false, error: "bad b" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(done, []); // held until the first one's answer
  assert.equal(channel.pending, 3);
  model.reply({ type: "response", id: a, ok: true });
  await Promise.all(pending);
  assert.deepEqual(done, [["a", true], ["b", false], ["c", true]]);
  assert.equal(channel.pending, 0);
});

test("a response held for an earlier request goes on once that one times out", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const model = fakeModel({ request_timeout: 1 });
  const channel = new Channel(model);
  const lost = channel.request("filter", { query: "a" });
  const later = channel.request("filter", { query: "b" });
  model.reply({ type: "response", id: model.sent[1].id, ok: true });
  t.mock.timers.tick(999);
  assert.equal(channel.pending, 2); // answered, but held
  t.mock.timers.tick(1); // only the unanswered one times out: the answered one's timer stopped
  await assert.rejects(lost, KernelTimeout);
  assert.equal((await later).ok, true);
  assert.equal(channel.pending, 0);
});
