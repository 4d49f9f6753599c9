// src/lib/dom.js
function h(tag, { cls, text, attrs, title } = {}, children = []) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== void 0) node.textContent = text;
  if (title !== void 0) node.title = title;
  if (attrs) for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}
function button(label, onClick, { cls = "", title, action } = {}) {
  const b = h("button", { cls: `pw-btn ${cls}`.trim(), text: label, title });
  b.type = "button";
  if (action) b.dataset.action = action;
  b.addEventListener("click", onClick);
  return b;
}

// src/lib/banner.js
var BANNERS = /* @__PURE__ */ new WeakMap();
function errorBanner(model) {
  const text = h("span", { cls: "pw-error-text" });
  const el = (
    /** @type {Banner} */
    h("div", { cls: "pw-error", attrs: { role: "alert" } }, [text])
  );
  el.append(button("\xD7", () => {
    el.hidden = true;
  }, { cls: "pw-error-close", title: "dismiss" }));
  const put = (msg, local) => {
    text.textContent = msg;
    el.hidden = !msg;
    if (local) el.dataset.local = "1";
    else delete el.dataset.local;
  };
  const show = () => put(model.get("error") || "", false);
  el.showLocal = (message) => put(message, Boolean(message));
  model.on("change:error", show);
  show();
  let set = BANNERS.get(model);
  if (!set) BANNERS.set(model, set = /* @__PURE__ */ new Set());
  set.add(el);
  return el;
}

// src/banner/index.js
function render({ model, el }) {
  el.append(errorBanner(model));
}
var index_default = { render };
export {
  index_default as default
};
