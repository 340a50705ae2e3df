/**
 * What Figma lets cross between the main thread and the UI, and into
 * `clientStorage` — narrower than the browser's structured clone:
 *
 * - `figma.ui.postMessage`: "objects, arrays, numbers, strings, booleans, null,
 *   undefined, Date objects and Uint8Array objects. However, functions and
 *   prototype chains of objects will not be sent."
 *   (https://developers.figma.com/docs/plugins/api/properties/figma-ui-postmessage)
 * - `figma.clientStorage`: "objects, arrays, strings, numbers, booleans, null,
 *   undefined and Uint8Array"; "Each plugin gets a total of 5MB of storage …
 *   the size of the key to the size of the value converted to JSON … Uint8Array
 *   values count as the size of the Uint8Array"; "The data is specific to your
 *   plugin ID" (https://developers.figma.com/docs/plugins/api/figma-clientStorage).
 *
 * The simulator refuses anything else (a Map, a Blob, an ArrayBuffer, a class
 * instance, a function) with an error instead of quietly cloning it, so code
 * that relies on structuredClone's wider reach fails in the tests as it would
 * in Figma. Types are told apart by their tag, not `instanceof`, because the
 * main thread may run in another realm (the `node:vm` sandbox).
 */

export type CloneRules = 'postMessage' | 'clientStorage';

function tag(v: object): string {
  return Object.prototype.toString.call(v).slice(8, -1);
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** A deep copy of `value` if Figma would carry it under `rules`; throws naming the path and type otherwise. */
export function figmaClone(value: unknown, rules: CloneRules, path = 'value'): unknown {
  if (value === null || value === undefined) return value;
  const t = typeof value;
  if (t === 'string' || t === 'boolean') return value;
  if (t === 'number') return value;
  if (t !== 'object') throw new TypeError(`${rules}: ${path} is a ${t}, which Figma cannot send (objects, arrays, primitives, ${rules === 'postMessage' ? 'Date, ' : ''}Uint8Array only)`);
  const obj = value as object;
  const kind = tag(obj);
  if (kind === 'Uint8Array') return new Uint8Array(obj as Uint8Array);
  if (kind === 'Date' && rules === 'postMessage') return new Date((obj as Date).getTime());
  if (kind === 'Array') return (obj as unknown[]).map((v, i) => figmaClone(v, rules, `${path}[${i}]`));
  if (kind === 'Object' && isPlainObject(obj)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) out[k] = figmaClone(v, rules, `${path}.${k}`);
    return out;
  }
  throw new TypeError(`${rules}: ${path} is a ${kind}, which Figma cannot send (objects, arrays, primitives, ${rules === 'postMessage' ? 'Date, ' : ''}Uint8Array only)`);
}

/** Quota use of one clientStorage entry as Figma documents it: key length + JSON size, Uint8Arrays by byte length. */
export function storageSize(key: string, value: unknown): number {
  let bytes = 0;
  const json = JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && tag(v) === 'Uint8Array') {
      bytes += (v as Uint8Array).byteLength;
      return null;
    }
    return v;
  });
  return key.length + (json === undefined ? 0 : new TextEncoder().encode(json).byteLength) + bytes;
}

/** Figma's clientStorage quota per plugin (5 MB since Version 1, Update 109). */
export const CLIENT_STORAGE_QUOTA = 5 * 1024 * 1024;
