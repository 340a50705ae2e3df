import { defineConfig } from 'tsup';

// Entries: the engine (`@pfc/batch`), the HTML report (`@pfc/batch/report`),
// the greyscale-to-RGB copy (`@pfc/batch/rgb`), and the worker thread of the
// JPEG rewrites (`@pfc/batch/rewrite-worker`, found beside the engine's files;
// a host that bundles the engine bundles it too, beside its bundle). The report
// and the copy use the native `sharp`; keeping it off the main entry lets hosts
// that cannot carry native modules (the VS Code .vsix) bundle the engine without it.
export default defineConfig({
  entry: { index: 'src/index.ts', report: 'src/report.ts', rgb: 'src/rgb.ts', 'rewrite-worker': 'src/rewrite-worker.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  // Bundled declarations for the published package (exports.types points here).
  dts: true,
});
