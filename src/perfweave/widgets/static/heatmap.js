// src/heatmap.js
var heatmap_default = { render({ model, el }) {
  el.textContent = "heatmap";
} };
export {
  heatmap_default as default
};
