import { defineConfig } from 'tsup';

// platform "neutral": a `node:*` import under src fails the build, which is
// how core proves it runs in a browser iframe and in UXP as well as in Node.
// Published as an SDK: ESM (`.js`) and CommonJS (`.cjs`) builds, each with its
// own declarations (`.d.ts` / `.d.cts`, emitted by tsc per file with declaration
// maps, scripts/packaging/declarations.mjs), so `import` and `require`
// consumers under every `moduleResolution` get types that match the file they
// load (checked by publint and @arethetypeswrong/cli in test/packaging).
export default defineConfig({
  // `media`: the format sniffer alone, for code that must not pull the clients in
  // (Figma's main thread has no fetch, URL or AbortSignal; its bundle stays small).
  entry: { index: 'src/index.ts', media: 'src/media/sniff.ts' },
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: 'es2022',
  sourcemap: true,
  clean: true,
  // Declarations (per file, with maps into the shipped `src`) come from tsc: see the build script.
  dts: false,
});
