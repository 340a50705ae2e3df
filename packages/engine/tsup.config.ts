import { defineConfig } from 'tsup';

export default defineConfig({
  // vision-worker: the worker thread script of src/vision (faces, segmentation), found next to index.js at run time.
  entry: { index: 'src/index.ts', 'vision-worker': 'src/vision/worker.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  dts: false,
});
