import { defineConfig } from 'tsup';

export default defineConfig({
  // vision-worker / upscale-worker: the worker thread scripts of src/vision (faces, segmentation) and
  // src/upscale (ESRGAN), band-worker the helper threads of src/image/bands.ts; found next to index.js at run time.
  entry: { index: 'src/index.ts', 'vision-worker': 'src/vision/worker.ts', 'upscale-worker': 'src/upscale/worker.ts', 'band-worker': 'src/image/band-worker.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  // Declarations for the library entry only (the workers and the bin have no importers).
  dts: { entry: { index: 'src/index.ts' } },
});
