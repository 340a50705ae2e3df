import { defineConfig } from 'tsup';

// Three entries: the engine (`@pfc/batch`), the HTML report (`@pfc/batch/report`)
// and the greyscale-to-RGB copy (`@pfc/batch/rgb`). The last two use the native
// `sharp`; keeping it off the main entry lets hosts that cannot carry native
// modules (the VS Code .vsix) bundle the engine without it.
export default defineConfig({
  entry: { index: 'src/index.ts', report: 'src/report.ts', rgb: 'src/rgb.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  // Bundled declarations for the published package (exports.types points here).
  dts: true,
});
