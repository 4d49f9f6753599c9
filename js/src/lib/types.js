// Types shared by the front-end modules (JSDoc, checked by `npm run typecheck`).

/**
 * The part of an anywidget model the shared modules use (method signatures, so that a
 * widget's `TypedModel` is one).
 * @typedef {{
 *   get(name: string): any;
 *   set(name: string, value: any): void;
 *   save_changes(): void;
 *   send(content: any, callbacks?: any, buffers?: ArrayBuffer[] | ArrayBufferView[]): void;
 *   on(event: string, handler: (...args: any[]) => void): void;
 *   off(event: string, handler?: (...args: any[]) => void): void;
 * }} Model
 */

/**
 * A widget's model typed by its synced traits (the `Traits` of its generated protocol.js):
 * `get` and `set` accept only the widget's trait names (and the contract's `error` and
 * `request_timeout`), and give or take their types. Method signatures, so that the shared
 * modules taking any `Model` accept it.
 * @template {Record<string, any>} T
 * @typedef {{
 *   get<K extends (keyof T & string) | "error" | "request_timeout">(name: K): K extends keyof T ? T[K] : K extends "error" ? string : number;
 *   set<K extends (keyof T & string) | "error">(name: K, value: K extends keyof T ? T[K] : string): void;
 *   save_changes(): void;
 *   send(content: any, callbacks?: any, buffers?: ArrayBuffer[] | ArrayBufferView[]): void;
 *   on(event: string, handler: (...args: any[]) => void): void;
 *   off(event: string, handler?: (...args: any[]) => void): void;
 * }} TypedModel
 */

/**
 * One binary column as the kernel describes it (perfweave/widgets/_transport.py).
 * @typedef {{ key: string, dtype: string, shape: number[] }} ColumnHeader
 */

export {};
