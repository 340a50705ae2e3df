/**
 * How the panel's code is bundled for UXP (scripts/build.mjs), shared with the
 * test that runs the bundled codec where Node's globals are absent.
 */
export const PANEL_BUNDLE = {
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  // UXP loads plain scripts and provides `require` for its own modules.
  external: ['photoshop', 'uxp'],
  // UXP has no Buffer (src/image/png.ts cites the list of its globals). jpeg-js's encoder, bundled as CommonJS,
  // returns `Buffer.from(byteArray)`; a Uint8Array of the same bytes is what the panel reads from it.
  define: { 'Buffer.from': 'Uint8Array.from' },
};
