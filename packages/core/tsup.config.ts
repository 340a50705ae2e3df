import { defineConfig } from 'tsup';

// platform "neutral": a `node:*` import under src fails the build, which is
// how core proves it runs in a browser iframe and in UXP as well as in Node.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  platform: 'neutral',
  target: 'es2022',
  sourcemap: true,
  clean: true,
  dts: false,
});
