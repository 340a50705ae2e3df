import { defineConfig } from 'tsup';

export default defineConfig({
  // vision-worker / upscale-worker: the worker thread scripts of src/vision (faces, segmentation) and
  // src/upscale (ESRGAN), found next to index.js at run time.
  entry: { index: 'src/index.ts', 'vision-worker': 'src/vision/worker.ts', 'upscale-worker': 'src/upscale/worker.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  dts: false,
});
