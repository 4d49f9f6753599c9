// DOM helpers: every name that reaches the page is set as text, never as markup.

/**
 * @typedef {object} ElementOptions
 * @property {string} [cls] class names
 * @property {string} [text] text content (never markup)
 * @property {Record<string, string>} [attrs] attributes
 * @property {string} [title] tooltip
 */

/**
 * Create an element with classes, attributes and text content.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {ElementOptions} [options]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, { cls, text, attrs, title } = {}, children = []) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  if (title !== undefined) node.title = title;
  if (attrs) for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}

/**
 * A button that runs `onClick`; its label is text.
 * @param {string} label
 * @param {(ev: MouseEvent) => void} onClick
 * @param {{ cls?: string, title?: string, action?: string }} [options]
 * @returns {HTMLButtonElement}
 */
export function button(label, onClick, { cls = "", title, action } = {}) {
  const b = h("button", { cls: `pw-btn ${cls}`.trim(), text: label, title });
  b.type = "button";
  if (action) b.dataset.action = action;
  b.addEventListener("click", onClick);
  return b;
}

/**
 * Give a <select> the options `[[value, label], ...]` (rebuilt only when they changed;
 * labels are text) and, when given, the selected `value`.
 * @param {HTMLSelectElement} select
 * @param {[string, string][]} options
 * @param {string} [value]
 */
export function fillSelect(select, options, value) {
  const same = select.options.length === options.length &&
    options.every(([v, t], i) => select.options[i].value === v && select.options[i].textContent === t);
  if (!same) {
    select.replaceChildren(...options.map(([v, t]) => h("option", { text: t, attrs: { value: v } })));
  }
  if (value !== undefined) select.value = value;
}
