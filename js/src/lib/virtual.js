// Virtual rows: a scroll container whose height stands for `total` rows of fixed height,
// and a small pool of row elements moved to the rows in view. However many rows the
// table has, the DOM holds at most `pool` row elements.

/**
 * @typedef {object} VirtualOptions
 * @property {number} rowHeight pixels per row
 * @property {number} [overscan] rows drawn beyond each edge of the view
 * @property {number} [maxPool] most row elements
 * @property {() => HTMLElement} make a new row element
 * @property {(el: any, row: number) => void} fill show row `row` in `el`
 */

export class VirtualRows {
  /**
   * @param {HTMLElement} body the scroll container
   * @param {VirtualOptions} options
   */
  constructor(body, { rowHeight, overscan = 8, maxPool = 200, make, fill }) {
    this.body = body;
    this.rowHeight = rowHeight;
    this.overscan = overscan;
    this.maxPool = maxPool;
    this.make = make; // () -> element
    this.fill = fill; // (element, rowIndex) -> void
    this.total = 0;
    /** @type {HTMLElement[]} */
    this.pool = [];
    this.spacer = document.createElement("div");
    this.spacer.className = "pw-spacer";
    body.append(this.spacer);
    this.frame = 0;
    body.addEventListener("scroll", () => this.schedule());
  }

  /**
   * First and last (exclusive) rows in view, with overscan.
   * @returns {[number, number]}
   */
  range() {
    const h = this.body.clientHeight || this.rowHeight * 20;
    const first = Math.floor(this.body.scrollTop / this.rowHeight);
    const last = Math.ceil((this.body.scrollTop + h) / this.rowHeight);
    return [
      Math.max(0, first - this.overscan),
      Math.min(this.total, last + this.overscan),
    ];
  }

  /** @param {number} total */
  setTotal(total) {
    this.total = total;
    this.spacer.style.height = `${total * this.rowHeight}px`;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /**
   * Place pool elements on the rows in view; returns the range drawn.
   * @returns {[number, number]}
   */
  draw() {
    const [start, stop] = this.range();
    const need = Math.min(this.maxPool, stop - start);
    while (this.pool.length < need) {
      const el = this.make();
      this.pool.push(el);
      this.spacer.append(el);
    }
    for (let k = 0; k < this.pool.length; k++) {
      const el = this.pool[k];
      const row = start + k;
      if (k < need) {
        el.hidden = false;
        el.style.transform = `translateY(${row * this.rowHeight}px)`;
        this.fill(el, row);
      } else {
        el.hidden = true;
      }
    }
    return [start, start + need];
  }

  /**
   * Scroll so that `row` is in view (centred when it was out of view).
   * @param {number} row
   * @param {boolean} [centre]
   */
  reveal(row, centre = false) {
    const top = row * this.rowHeight;
    const h = this.body.clientHeight;
    if (centre || top < this.body.scrollTop || top + this.rowHeight > this.body.scrollTop + h) {
      this.body.scrollTop = centre ? Math.max(0, top - h / 2) : top < this.body.scrollTop
        ? top : top + this.rowHeight - h;
    }
  }
}
