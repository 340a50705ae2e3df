/**
 * Running the BUILT main-thread bundle (`dist/code.js`) the way Figma does:
 * "plugin code runs on the main thread in a sandbox. The sandbox is a minimal
 * JavaScript environment and does not expose browser APIs" — modern
 * JavaScript and its standard built-ins, plus `figma`, `__html__`,
 * `__uiFiles__` and `console` (https://developers.figma.com/docs/plugins/how-plugins-run,
 * and the globals declared by `@figma/plugin-typings` index.d.ts).
 *
 * Every other global of the host (Node's or the browser's: `setTimeout`,
 * `URL`, `TextEncoder`, `crypto`, `Blob`, `fetch`, `structuredClone`,
 * `document`, `window`, `process`…) is shadowed by an `undefined` parameter,
 * and `globalThis` is a fresh object holding only the allowed names, so main
 * code that reaches for one fails here as it would in Figma. The typings also
 * declare timers and a Figma `fetch` for the main thread; this sandbox leaves
 * them out as well — stricter, because the plugin has no use for them (its
 * network calls run in the UI iframe).
 *
 * One realm with the simulator, so `instanceof Error` and typed arrays behave
 * as in Figma, where the plugin and the API share one.
 */

/** The ECMAScript standard built-ins (ES2023) the sandbox keeps. */
export const LANGUAGE_GLOBALS = [
  'Object', 'Function', 'Array', 'Number', 'Boolean', 'String', 'Symbol', 'BigInt', 'Date', 'RegExp', 'Promise',
  'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError',
  'JSON', 'Math', 'Intl', 'Reflect', 'Proxy', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry',
  'ArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
  'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI',
  'Infinity', 'NaN', 'undefined',
] as const;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Names a strict-mode parameter list cannot hold, and the ones kept. */
const NOT_SHADOWED = new Set<string>(['eval', 'arguments', 'globalThis', ...LANGUAGE_GLOBALS]);

/** Every global of this host the sandbox hides (walks the prototype chain: `window` inherits many). */
export function hostGlobals(): string[] {
  const names = new Set<string>();
  for (let o: object | null = globalThis; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const n of Object.getOwnPropertyNames(o)) if (IDENTIFIER.test(n) && !NOT_SHADOWED.has(n)) names.add(n);
  }
  // Named here too, whatever the host: the point of the sandbox is that these are missing.
  for (const n of ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'URL', 'TextEncoder', 'TextDecoder', 'crypto', 'Blob', 'fetch', 'structuredClone', 'window', 'self', 'document', 'navigator', 'atob', 'btoa', 'process', 'require', 'Buffer']) names.add(n);
  return [...names];
}

export interface SandboxGlobals {
  figma: unknown;
  __html__: string;
  __uiFiles__?: Record<string, string>;
  console?: Pick<Console, 'log' | 'error' | 'warn' | 'info' | 'assert' | 'clear'>;
}

/** Evaluate `code` with only the language built-ins and `globals` in reach. */
export function runInFigmaSandbox(code: string, globals: SandboxGlobals): void {
  const own: Record<string, unknown> = {};
  for (const n of LANGUAGE_GLOBALS) own[n] = (globalThis as Record<string, unknown>)[n];
  const given = { console: globals.console ?? console, __uiFiles__: globals.__uiFiles__ ?? {}, figma: globals.figma, __html__: globals.__html__ };
  Object.assign(own, given);
  const sandboxGlobal = Object.freeze(own);
  const hidden = hostGlobals().filter((n) => !(n in given));
  const params = ['figma', '__html__', '__uiFiles__', 'console', 'globalThis', ...hidden];
  // This IS the sandbox: the built bundle is evaluated with the host's globals shadowed.
  const run = new Function(...params, `"use strict";\n${code}`) as (...args: unknown[]) => void;
  run.call(undefined, given.figma, given.__html__, given.__uiFiles__, given.console, sandboxGlobal, ...hidden.map(() => undefined));
}
