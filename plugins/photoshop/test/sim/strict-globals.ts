/**
 * Cuts the e2e page down to what a UXP panel has, so that a panel relying on
 * anything else fails here as it would in Photoshop:
 * - only the globals UXP documents stay (the list below, with its sources);
 * - `URL` keeps only `createObjectURL` and `revokeObjectURL`: no constructor;
 * - `AbortSignal` loses its events and `timeout()`/`any()`, as UXP documents it;
 * - `fetch` ignores `signal` (and the other options UXP does not document) and
 *   refuses addresses outside the manifest's `network.domains`.
 */

/** ECMAScript's own globals (ECMA-262 §19), present in every JavaScript engine, UXP's too. */
const ECMASCRIPT = [
  'globalThis', 'Infinity', 'NaN', 'undefined', 'eval', 'isFinite', 'isNaN', 'parseFloat', 'parseInt',
  'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape',
  'Object', 'Function', 'Boolean', 'Symbol', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError',
  'SyntaxError', 'TypeError', 'URIError', 'Number', 'BigInt', 'Math', 'Date', 'String', 'RegExp', 'Array',
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef',
  'FinalizationRegistry', 'ArrayBuffer', 'DataView', 'Atomics', 'JSON', 'Promise', 'Proxy', 'Reflect', 'Intl',
];

/**
 * The globals `@adobe/cc-ext-uxp-types` 7.3 declares (`uxp/index.d.ts`, every top-level
 * `declare class|function|var` outside a module, lines 693–8940), plus `FormData` (its
 * `declare module "global"`, line 1430) and `Request` (fetch's input type, line 1424).
 */
const UXP_TYPINGS = [
  'LocalStorage', 'SessionStorage', 'CountQueuingStrategy', 'ReadableStreamDefaultController', 'ReadableStreamDefaultReader',
  'ReadableStream', 'TransformStreamDefaultController', 'TransformStream', 'WritableStreamDefaultController',
  'WritableStreamDefaultWriter', 'WritableStream', 'Crypto', 'Blob', 'ImageBlob', 'Path', 'fetch', 'FormData', 'Request',
  'Headers', 'Response', 'WebSocket', 'XMLHttpRequest', 'AbortController', 'AbortSignal', 'ClassList', 'CanvasGradient',
  'CanvasRenderingContext2D', 'Path2D', 'alert', 'confirm', 'prompt', 'CustomElementRegistry', 'HTMLAnchorElement',
  'HTMLBodyElement', 'HTMLButtonElement', 'HTMLCanvasElement', 'HTMLDialogElement', 'HTMLElement', 'HTMLHeadElement',
  'HTMLHtmlElement', 'HTMLImageElement', 'HTMLInputElement', 'HTMLLabelElement', 'HTMLLinkElement', 'HTMLMenuElement',
  'HTMLMenuItemElement', 'HTMLOptionElement', 'HTMLProgressElement', 'HTMLScriptElement', 'HTMLSelectElement',
  'HTMLSlotElement', 'HTMLStyleElement', 'HTMLTemplateElement', 'HTMLTextAreaElement', 'HTMLVideoElement',
  'HTMLWebViewElement', 'BaseUIEvent', 'CloseEvent', 'DragEvent', 'ErrorEvent', 'Event', 'EventTarget', 'GestureEvent',
  'KeyboardEvent', 'MessageEvent', 'PointerEvent', 'ProgressEvent', 'Clipboard', 'DOMTokenList', 'Attr', 'CharacterData',
  'Comment', 'Document', 'DocumentFragment', 'Element', 'HTMLCollection', 'NamedNodeMap', 'Node', 'NodeFilter', 'NodeList',
  'ShadowRoot', 'Text', 'TreeWalker', 'crypto', 'localStorage', 'sessionStorage', 'path', 'document',
];

/** Documented in AdobeDocs/uxp-photoshop but not in the typings (file under `src/pages/uxp-api/reference-js/`). */
const UXP_DOCS = [
  'IntersectionObserver', 'IntersectionObserverEntry', 'ResizeObserver', 'ResizeObserverEntry', 'ResizeObserverSize', // global-members/html-dom/index.md
  'getComputedStyle', // global-members/html-dom/get-computed-style.md
  // global-members/image-blob/image-blob.md documents `URL.createObjectURL` only: the page keeps a `URL` with
  // that (and its revoke), no constructor. `URLSearchParams` is not kept: fetch.md:48 names it as a body type, but
  // ps-reference/changelog/index.md:32 dates the global to UXP 9.1 (Photoshop 27.4), later than the UXP modelled.
  'URL',
  'console', // guides/debugging
  'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', // used by Adobe's samples (uxp-photoshop-plugin-samples jszip-sample/src/index.js:149)
  'navigator', // manifest-v5/index.md:205 (navigator.clipboard)
  'require', // UXP's module loader (require('photoshop'), require('uxp'))
  'window', 'self', 'location', 'top', 'parent', 'frames', // the global object itself and what the browser will not let go
];

/** What the harness itself keeps: the test API and Playwright's hooks. */
const HARNESS = (name: string) => name.startsWith('__');
/*
 * MutationObserver and requestAnimationFrame are not kept either (UXP documents neither): the e2e test drives the
 * page only through Playwright calls that run in its isolated utility world (click, fill, textContent, which
 * have their own copies of these globals) and plain page.evaluate polling, never waitForFunction/$$eval, whose
 * main-world helper would need them.
 */
const ALLOWED = new Set([...ECMASCRIPT, ...UXP_TYPINGS, ...UXP_DOCS]);

/** The page's own `URL` class, taken before the page is cut down (the harness still parses addresses with it). */
const PageURL = globalThis.URL;

/** Whether `url` is covered by a manifest `network.domains` value (`"all"` or entries like `https://*.example.com:8443`). */
export function domainAllowed(domains: string[] | 'all', url: string): boolean {
  if (domains === 'all') return true;
  const u = new PageURL(url);
  const defaultPort = (protocol: string) => (protocol === 'https:' || protocol === 'wss:' ? '443' : '80');
  return domains.some((entry) => {
    const m = /^([a-z]+:)\/\/(\*\.)?([^/:]+)(?::(\d+))?\/?$/i.exec(entry);
    if (!m) return false;
    const [, protocol, wildcard, host, port] = m;
    if (protocol!.toLowerCase() !== u.protocol) return false;
    // A port-less entry stands for the scheme's default port only.
    if ((port ?? defaultPort(u.protocol)) !== (u.port || defaultPort(u.protocol))) return false;
    const h = u.hostname.toLowerCase();
    return wildcard ? h.endsWith(`.${host!.toLowerCase()}`) : h === host!.toLowerCase();
  });
}

/** The request options UXP's fetch documents (fetch.md:42-49). */
const FETCH_OPTIONS = ['method', 'headers', 'body', 'credentials'];

export function restrictToUxpGlobals(domains: string[] | 'all'): string[] {
  const scope = globalThis as unknown as Record<string, unknown>;
  const pageFetch = (scope.fetch as typeof fetch).bind(globalThis);
  const removed: string[] = [];
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (ALLOWED.has(name) || HARNESS(name)) continue;
    if (/^on[a-z]+$/.test(name)) continue; // event-handler attributes of the window, not APIs
    if (Reflect.deleteProperty(globalThis, name)) removed.push(name);
  }
  // abort-signal.md:9-33: aborted, reason, throwIfAborted() and static abort() — no events.
  const proto = (scope.AbortSignal as { prototype: object }).prototype;
  for (const member of ['addEventListener', 'removeEventListener', 'dispatchEvent', 'onabort']) {
    Object.defineProperty(proto, member, { value: undefined, configurable: true });
  }
  for (const member of ['timeout', 'any']) Reflect.deleteProperty(scope.AbortSignal as object, member);
  scope.URL = { createObjectURL: PageURL.createObjectURL.bind(PageURL), revokeObjectURL: PageURL.revokeObjectURL.bind(PageURL) };
  scope.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof PageURL ? input.href : (input as Request).url;
    if (!domainAllowed(domains, url)) {
      return Promise.reject(new TypeError(`Permission denied: ${new PageURL(url).origin} is not in the manifest's requiredPermissions.network.domains`));
    }
    const plain: Record<string, unknown> = {};
    for (const k of FETCH_OPTIONS) if (init && (init as Record<string, unknown>)[k] !== undefined) plain[k] = (init as Record<string, unknown>)[k];
    return pageFetch(input, plain);
  };
  return removed;
}
