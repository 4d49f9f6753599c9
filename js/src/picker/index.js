// ClassPicker report table: a virtual list of rows and one page of class columns, over
// binary row windows that Python pushes after each change (and sends on scroll). See
// perfweave/widgets/_picker_table.py; the protocol is in ./protocol.js (generated). Modules:
// state (the window held), draw (grid and cells), controls (the page bar), events (requests
// and pushes).
import { errorBanner } from "../lib/banner.js";
import { h } from "../lib/dom.js";
import { VirtualRows } from "../lib/virtual.js";
import { pageBar } from "./controls.js";
import { drawHead, fillRow, keysWidth, layout, PCT_W, ROW_H, SAMPLES_W } from "./draw.js";
import { TableRequests } from "./events.js";
import { TRAITS } from "./protocol.js";
import { holds, keyLabels, windowOf } from "./state.js";

/** @typedef {import("./protocol.js").WidgetModel} Model */
/** @typedef {import("./state.js").RowWindow} RowWindow */
/** @typedef {import("./state.js").WindowReply} WindowReply */

/** @param {{ model: import("./protocol.js").WidgetModel, el: HTMLElement }} view */
function render({ model, el }) {
  const kind = model.get("kind") === "inverted" ? "pw-picker-invlist" : "pw-picker-reportlist";
  const root = h("div", { cls: `pw-picker-table ${kind}` });
  el.append(root);
  const head = h("div", { cls: "pw-pt-head", attrs: { role: "row" } });
  const body = h("div", { cls: "pw-pt-body", attrs: { role: "grid", tabindex: "0" } });
  /** @type {RowWindow | null} the window of rows held */
  let win = null;

  const rows = new VirtualRows(body, {
    rowHeight: ROW_H,
    make: () => h("div", { cls: "pw-pt-row", attrs: { role: "row" } }),
    fill: (rowEl, row) => { if (!fillRow(rowEl, row, model, win)) want(); },
  });
  /** @param {WindowReply} reply @param {Record<string, any>} columns */
  const accept = (reply, columns) => {
    const got = windowOf(model, reply, columns);
    if (!got) return;
    win = got;
    root.dataset.version = String(reply.version);
    root.dataset.classes = String(reply.class_count);
    root.dataset.rows = String(reply.rows.total);
    layout({ root, head, body }, model, win);
    redrawHead();
    rows.setTotal(reply.rows.total);
    rows.draw();
    const v = reply.version;
    setTimeout(fitPage, 0);
    requestAnimationFrame(() => {
      root.dataset.drawnAt = String(performance.now());
      root.dataset.drawn = String(v);
    });
  };
  const requests = new TableRequests(model, () => rows.range(), accept);
  const bar = pageBar((step) => {
    const c0 = win ? win.col_start : 0;
    requests.fetch("cols", { col_start: c0 + step * Number(model.get("page")) });
  });
  root.append(errorBanner(model), bar.el, head, body);

  function want() {
    const [first, last] = rows.range();
    if (!holds(model, win, first, last)) requests.want();
  }
  function redrawHead() {
    drawHead(head, model, win, (column) => {
      body.scrollTop = 0;
      requests.sort(column);
    });
    bar.update(model, win);
  }
  // as many classes side by side as the width holds (at least one)
  function fitPage() {
    const width = root.clientWidth;
    if (!width || !win) return;
    const nk = keyLabels(model).length;
    const fit = Math.max(1, Math.floor((width - keysWidth(nk) - 4) / (SAMPLES_W + PCT_W)));
    if (fit !== model.get("page")) requests.fetch("cols", { col_start: win.col_start, page: fit });
  }
  const resize = new ResizeObserver(() => fitPage());
  resize.observe(root);
  requests.channel.onPush((pushed) => {
    root.dataset.receivedAt = String(performance.now());
    accept(/** @type {any} */ (pushed), pushed.columns || {});
  });
  // the traits the page redraws on (the others arrive with each window)
  for (const k of Object.keys(TRAITS)) model.on(`change:${k}`, redrawHead);
  requests.fetch("rows");
  return () => {
    resize.disconnect();
    for (const k of Object.keys(TRAITS)) model.off(`change:${k}`, redrawHead);
    requests.close();
  };
}

export default { render };
