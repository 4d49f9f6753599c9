// Types shared by the front-end modules (JSDoc, checked by `npm run typecheck`).

/**
 * The part of an anywidget model the widgets use.
 * @typedef {object} Model
 * @property {(name: string) => any} get
 * @property {(name: string, value: any) => void} set
 * @property {() => void} save_changes
 * @property {(content: any, callbacks?: any, buffers?: ArrayBuffer[] | ArrayBufferView[]) => void} send
 * @property {(event: string, handler: (...args: any[]) => void) => void} on
 * @property {(event: string, handler?: (...args: any[]) => void) => void} off
 */

/**
 * One binary column as the kernel describes it (perfweave/widgets/_transport.py).
 * @typedef {{ key: string, dtype: string, shape: number[] }} ColumnHeader
 */

export {};
