import { defineConfig } from 'tsup';

// Two entries: the engine (`@pfc/batch`) and the HTML report (`@pfc/batch/report`).
// The report makes thumbnails with the native `sharp`; keeping it off the main
// entry lets hosts that cannot carry native modules (the VS Code .vsix) bundle
// the engine without it.
export default defineConfig({
  entry: { index: 'src/index.ts', report: 'src/report.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  // Bundled declarations for the published package (exports.types points here).
  dts: true,
});
