// A click on a cell picks it: the page sets `selected`, Python picks the pair.

/**
 * Listen for cell clicks on the grid; returns the function that stops listening.
 * @param {import("./protocol.js").WidgetModel} model
 * @param {HTMLElement} grid
 * @returns {() => void}
 */
export function listen(model, grid) {
  /** @param {MouseEvent} ev */
  const onClick = (ev) => {
    const target = /** @type {HTMLElement | null} */ (ev.target);
    const cell = target && target.closest ? /** @type {HTMLElement | null} */ (target.closest(".pw-matrix-cell")) : null;
    if (!cell) return;
    model.set("selected", [Number(cell.dataset.row), Number(cell.dataset.col)]);
    model.save_changes();
  };
  grid.addEventListener("click", onClick);
  return () => grid.removeEventListener("click", onClick);
}
