// ClassPicker report table: a virtual list of rows and one page of class columns,
// over binary row windows that Python pushes after each change (and sends on scroll).
// See perfweave/widgets/_picker_table.py. Every value is set as text.
import { errorBanner } from "./lib/banner.js";
import { unpack } from "./lib/columns.js";
import { button, h } from "./lib/dom.js";
import { Channel } from "./lib/request.js";
import { VirtualRows } from "./lib/virtual.js";

const ROW_H = 22;
const FETCH_BEFORE = 60;
const FETCH_COUNT = 200;
const SAMPLES_W = 76, PCT_W = 58;

function keysWidth(nk) {
  return 160 + 110 * Math.max(0, nk - 1);
}

function pct(v) {
  if (!Number.isFinite(v)) return "";
  return v.toFixed(2);
}

function render({ model, el }) {
  const channel = new Channel(model);
  const kind = model.get("kind") === "inverted" ? "pw-picker-invlist" : "pw-picker-reportlist";
  const root = h("div", { cls: `pw-picker-table ${kind}` });
  el.append(root);
  const pageLabel = h("span", { cls: "pw-pt-page" });
  const prev = button("◀", () => turn(-1), { cls: "pw-pt-prev", title: "previous classes" });
  const next = button("▶", () => turn(1), { cls: "pw-pt-next", title: "next classes" });
  const note = h("span", { cls: "pw-pt-note" });
  const bar = h("div", { cls: "pw-pt-bar" }, [prev, pageLabel, next, note]);
  const head = h("div", { cls: "pw-pt-head", attrs: { role: "row" } });
  const body = h("div", { cls: "pw-pt-body", attrs: { role: "grid", tabindex: "0" } });
  root.append(errorBanner(model), bar, head, body);

  // the window of rows held: {version, start, n, keys: string[][], samples, pct, classes}
  let win = null;
  let fetching = false;
  let again = false;

  const rows = new VirtualRows(body, {
    rowHeight: ROW_H,
    make: () => h("div", { cls: "pw-pt-row", attrs: { role: "row" } }),
    fill: fillRow,
  });

  function ncells() {
    return (model.get("key_labels") || []).length + 2 * (win ? win.classes.length : 0);
  }

  function fillRow(el, row) {
    const need = ncells();
    while (el.childElementCount < need) el.append(h("div", { cls: "pw-pt-cell" }));
    while (el.childElementCount > need) el.lastChild.remove();
    const k = win ? row - win.start : -1;
    const have = win && k >= 0 && k < win.n;
    const cells = el.children;
    const nk = win ? win.keys.length : 0;
    for (let i = 0; i < nk; i++) {
      cells[i].textContent = have ? win.keys[i][k] : "";
      cells[i].title = have ? win.keys[i][k] : "";
      cells[i].className = "pw-pt-cell pw-pt-key";
    }
    const nc = win ? win.classes.length : 0;
    for (let j = 0; j < nc; j++) {
      const s = cells[nk + 2 * j], p = cells[nk + 2 * j + 1];
      s.className = "pw-pt-cell pw-pt-num";
      p.className = "pw-pt-cell pw-pt-num pw-pt-pct";
      s.textContent = have ? String(win.samples[k * nc + j]) : "";
      p.textContent = have ? pct(win.pct[k * nc + j]) : "";
    }
    el.classList.toggle("pw-pt-odd", row % 2 === 1);
    el.dataset.row = String(row);
    if (!have) want();
  }

  function layout() {
    const nk = (model.get("key_labels") || []).length;
    const nc = win ? win.classes.length : 0;
    const tpl = [];
    // the spare width goes to the names and the class columns alike (rows are separate
    // grids, so no column may size to its content)
    // in proportion to the longest name of each key column and to each class name, so
    // long paths get the room that short names leave
    const chars = model.get("key_chars") || [];
    for (let i = 0; i < nk; i++) {
      const fr = Math.min(60, Math.max(8, chars[i] || 0));
      tpl.push(`minmax(${i === nk - 1 ? 160 : 110}px, ${fr}fr)`);
    }
    for (let j = 0; j < nc; j++) {
      const fr = Math.min(30, Math.max(6, win.classes[j].length - 8));
      tpl.push(`minmax(${SAMPLES_W}px, ${fr}fr)`, `${PCT_W}px`);
    }
    root.style.setProperty("--pw-pt-cols", tpl.join(" "));
    // below this width the table scrolls sideways instead of squeezing the columns
    const min = `${keysWidth(nk) + (SAMPLES_W + PCT_W) * nc}px`;
    head.style.minWidth = min;
    body.style.minWidth = min;
    const total = model.get("row_count");
    body.style.height = `${Math.min(model.get("height"), Math.max(2, total) * ROW_H + 2)}px`;
  }

  function drawHead() {
    const keys = model.get("key_labels") || [];
    const sortKey = model.get("sort_column");
    const arrow = model.get("sort_descending") ? " ▼" : " ▲";
    // a header click sorts by its column in Python (a second click flips the direction)
    const sortable = (cell, column) => {
      cell.classList.add("pw-pt-sortable");
      cell.dataset.column = column;
      cell.setAttribute("role", "columnheader");
      if (column === sortKey) {
        cell.textContent += arrow;
        cell.classList.add("pw-pt-sorted");
      }
      cell.addEventListener("click", () => sortBy(column));
      return cell;
    };
    const top = keys.map((k) => sortable(h("div", { cls: "pw-pt-hcell pw-pt-hkey", text: k, title: k }), k));
    const classes = win ? win.classes : [];
    for (const c of classes) {
      top.push(h("div", { cls: "pw-pt-hcell pw-pt-hclass", text: c, title: c }));
    }
    const sub = keys.map(() => h("div", { cls: "pw-pt-hcell pw-pt-hsub" }));
    const [va, vb] = model.get("value_labels") || ["samples", "%"];
    for (let j = 0; j < classes.length; j++) {
      const c = classes[j];
      sub.push(sortable(h("div", { cls: "pw-pt-hcell pw-pt-hsub pw-pt-num", text: va, title: `sort by ${c} ${va}` }), `${c} ${va}`));
      sub.push(sortable(h("div", { cls: "pw-pt-hcell pw-pt-hsub pw-pt-num", text: vb, title: `sort by ${c} ${vb}` }), `${c} ${vb}`));
    }
    head.replaceChildren(
      h("div", { cls: "pw-pt-hrow" }, top),
      h("div", { cls: "pw-pt-hrow" }, sub),
    );
    const n = model.get("class_count");
    const c0 = win ? win.col_start : 0;
    pageLabel.textContent = n
      ? `classes ${c0 + 1}–${c0 + classes.length} of ${n}` : "no classes";
    prev.disabled = c0 <= 0;
    next.disabled = c0 + classes.length >= n;
    bar.classList.toggle("pw-pt-onepage", n <= model.get("page"));
    note.textContent = model.get("note") || "";
  }

  function accept(msg, columns) {
    if (!msg || !msg.ok || !msg.rows || msg.version !== model.get("version")) return false;
    const nk = (model.get("key_labels") || []).length;
    const keys = [];
    for (let i = 0; i < nk; i++) keys.push(columns[`k${i}`] || []);
    win = {
      version: msg.version,
      start: msg.rows.start,
      n: msg.rows.columns.length ? msg.rows.columns.find((c) => c.key === "samples").shape[0] : 0,
      keys,
      samples: columns.samples,
      pct: columns.pct,
      classes: msg.classes,
      col_start: msg.col_start,
    };
    root.dataset.version = String(msg.version);
    root.dataset.classes = String(msg.class_count);
    root.dataset.rows = String(msg.rows.total);
    layout();
    drawHead();
    rows.setTotal(msg.rows.total);
    rows.draw();
    const v = msg.version;
    setTimeout(fitPage, 0);
    requestAnimationFrame(() => {
      root.dataset.drawnAt = String(performance.now());
      root.dataset.drawn = String(v);
    });
    return true;
  }

  async function fetchRows(action, extra = {}) {
    if (fetching) { again = true; return; }
    fetching = true;
    try {
      const [first] = rows.range();
      const start = Math.max(0, first - FETCH_BEFORE);
      const resp = await channel.request(action, { start, count: FETCH_COUNT, ...extra }, { columns: "rows" });
      accept(resp, resp.columns || {});
    } finally {
      fetching = false;
    }
    if (again) { again = false; want(); }
  }

  function want() {
    const [first, last] = rows.range();
    if (win && win.version === model.get("version") && first >= win.start
        && last <= win.start + win.n) return;
    if (!fetching) queueMicrotask(() => fetchRows("rows"));
    else again = true;
  }

  // as many classes side by side as the width holds (at least one)
  function fitPage() {
    const width = root.clientWidth;
    if (!width || !win) return;
    const nk = (model.get("key_labels") || []).length;
    const fit = Math.max(1, Math.floor((width - keysWidth(nk) - 4) / (SAMPLES_W + PCT_W)));
    if (fit !== model.get("page")) {
      fetchRows("cols", { col_start: win.col_start, page: fit });
    }
  }
  const resize = new ResizeObserver(() => fitPage());
  resize.observe(root);

  function sortBy(column) {
    body.scrollTop = 0;
    channel.request("sort", { column, start: 0, count: FETCH_COUNT }, { columns: "rows" })
      .then((resp) => accept(resp, resp.columns || {}));
  }

  function turn(step) {
    const c0 = win ? win.col_start : 0;
    fetchRows("cols", { col_start: c0 + step * model.get("page") });
  }

  const onPush = (msg, buffers) => {
    if (!msg || msg.type !== "push") return;
    root.dataset.receivedAt = String(performance.now());
    accept(msg, unpack(msg.rows.columns, buffers || []));
  };
  model.on("msg:custom", onPush);
  const onNote = () => drawHead();
  model.on("change:note", onNote);
  fetchRows("rows");
  return () => {
    model.off("msg:custom", onPush);
    resize.disconnect();
    model.off("change:note", onNote);
    channel.close();
  };
}

export default { render };
