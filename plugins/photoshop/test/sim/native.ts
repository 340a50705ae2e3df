/**
 * The runtime's own facilities the simulated host uses, taken when the
 * simulator loads — before the e2e page is cut down to UXP's globals
 * (`strict-globals.ts`), which the panel must live with but Photoshop's
 * native side does not.
 */
const g = globalThis as unknown as Record<string, unknown>;
const bound = <T>(name: string): T => (typeof g[name] === 'function' ? (g[name] as (...a: unknown[]) => unknown).bind(globalThis) : g[name]) as T;

export const native = {
  TextEncoder: g.TextEncoder as typeof TextEncoder,
  TextDecoder: g.TextDecoder as typeof TextDecoder,
  structuredClone: bound<typeof structuredClone>('structuredClone'),
  fetch: bound<typeof fetch>('fetch'),
  OffscreenCanvas: g.OffscreenCanvas as typeof OffscreenCanvas,
  ImageData: g.ImageData as typeof ImageData,
  createImageBitmap: bound<typeof createImageBitmap>('createImageBitmap'),
  Blob: g.Blob as typeof Blob,
  btoa: bound<typeof btoa>('btoa'),
};
