/**
 * jpeg-js's encoder on its own. It answers `Buffer.from(bytes)` when loaded as
 * CommonJS, as it is in the panel's bundle, and UXP has no `Buffer`:
 * `scripts/build.mjs` makes that `Uint8Array.from` (see there).
 */
declare module 'jpeg-js/lib/encoder.js' {
  function encode(
    image: { data: Uint8Array; width: number; height: number },
    quality?: number,
  ): { data: Uint8Array; width: number; height: number };
  export = encode;
}
