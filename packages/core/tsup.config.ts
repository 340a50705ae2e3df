import { defineConfig } from 'tsup';

// platform "neutral": a `node:*` import under src fails the build, which is
// how core proves it runs in a browser iframe and in UXP as well as in Node.
export default defineConfig({
  // `media`: the format sniffer alone, for code that must not pull the clients in
  // (Figma's main thread has no fetch, URL or AbortSignal; its bundle stays small).
  entry: { index: 'src/index.ts', media: 'src/media/sniff.ts' },
  format: ['esm'],
  platform: 'neutral',
  target: 'es2022',
  sourcemap: true,
  clean: true,
  dts: false,
});
