// The flame graph page's view, made outside a browser (node), for tests/widgets/
// test_flame_view.py: reads cases of Python's replies (binary columns as base64) on stdin,
// builds each held set as the page does (js/src/flame/store.js, merging a band with the set
// it refines) and writes the view the page would draw (js/src/flame/view.js) as JSON.
import { unpack } from "../../js/src/lib/columns.js";
import { complete, Store } from "../../js/src/flame/store.js";
import { viewOf } from "../../js/src/flame/view.js";

/** @param {{payload: any, buffers: string[]}} reply */
function columns(reply) {
  const buffers = reply.buffers.map((b) => new DataView(Uint8Array.from(Buffer.from(b, "base64")).buffer));
  return unpack(reply.payload.frames.columns, buffers);
}

let text = "";
for await (const chunk of process.stdin) text += chunk;
const out = [];
for (const c of JSON.parse(text)) {
  const store = new Store();
  let set = null;
  for (const reply of c.replies) set = store.accept(reply.payload.meta, columns(reply), set);
  const found = store.best(c.zoom);
  if (!found) { out.push(null); continue; }
  const f = viewOf(found.set, found.i, c.width, c.replies[0].payload.meta, store.names);
  const frames = [];
  for (let k = 0; k < f.n; k++) {
    frames.push([f.cols.node[k], f.cols.name[k], f.cols.depth[k], f.cols.x0[k], f.cols.x1[k],
      f.cols.value[k], f.cols.exclusive[k], f.cols.hidden[k]]);
  }
  out.push({
    frames, root: found.set.root, held: found.set.n, shown: f.meta.shown, path: f.meta.path,
    complete: complete(found.set, found.i, c.width),
  });
}
process.stdout.write(JSON.stringify(out));
