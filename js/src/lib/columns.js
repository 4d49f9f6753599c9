// Binary columns from a widget message (see perfweave/widgets/_transport.py).
// Each numeric column is viewed as the typed array of its exact dtype: int64 stays a
// BigInt64Array, float64 a Float64Array. Strings come as UTF-8 bytes plus end offsets.

/**
 * A numeric column: the typed array of its dtype, with its shape.
 * @typedef {(Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array
 *   | BigInt64Array | BigUint64Array | Float32Array | Float64Array) & { shape?: number[] }} NumericColumn
 */
/** @typedef {import("./types.js").ColumnHeader} ColumnHeader */

/** @type {Record<string, new (buffer: ArrayBuffer) => NumericColumn>} */
const ARRAYS = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  float32: Float32Array, float64: Float64Array,
};

/** The bytes of `view` in an ArrayBuffer of their own. @param {ArrayBufferView} view @returns {ArrayBuffer} */
export function bytesOf(view) {
  // buffers may sit at any offset of a shared ArrayBuffer: copy to an aligned one
  const src = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return src.slice().buffer;
}

const decoder = new TextDecoder("utf-8");

/**
 * The columns of a message: header `[{key, dtype, shape}]` and its buffers (DataViews).
 * @param {ColumnHeader[]} header
 * @param {ArrayBufferView[]} buffers
 * @returns {Record<string, any>} key -> typed array (numbers) or string[]
 */
export function unpack(header, buffers) {
  /** @type {Record<string, any>} */
  const out = {};
  let i = 0;
  for (const col of header) {
    if (col.dtype === "str") {
      const data = new Uint8Array(bytesOf(buffers[i]));
      const ends = new Uint32Array(bytesOf(buffers[i + 1]));
      const strings = new Array(ends.length);
      let start = 0;
      for (let k = 0; k < ends.length; k++) {
        strings[k] = decoder.decode(data.subarray(start, ends[k]));
        start = ends[k];
      }
      out[col.key] = strings;
      i += 2;
    } else {
      const Arr = ARRAYS[col.dtype];
      if (!Arr) throw new Error(`unknown column dtype ${col.dtype}`);
      const arr = new Arr(bytesOf(buffers[i]));
      arr.shape = col.shape;
      out[col.key] = arr;
      i += 1;
    }
  }
  return out;
}

/**
 * Row `r` of a 2-D column (shape [rows, k]) as a plain array of numbers.
 * @param {NumericColumn} arr
 * @param {number} r
 * @returns {number[]}
 */
export function row2d(arr, r) {
  const k = /** @type {number[]} */ (arr.shape)[1];
  return Array.from(/** @type {ArrayLike<number | bigint>} */ (arr.subarray(r * k, (r + 1) * k)), Number);
}
