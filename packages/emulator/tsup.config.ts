import { defineConfig } from 'tsup';

// Entries: the library (`startEmulator`), the `pfc-emulator` bin (its shebang
// is kept by esbuild and tsup marks the file executable), and the emulator in
// a process of its own: `process.js` (Node built-ins only, so a host loads it
// without the emulator; `@pfc/emulator/process`) and the `child.js` it forks;
// `decoder-reason.js` (sharp only), for the batch's own sharp use.
export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts', 'src/process.ts', 'src/child.ts', 'src/decoder-reason.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  // Declarations for the entries that have importers.
  dts: { entry: { index: 'src/index.ts', process: 'src/process.ts', 'decoder-reason': 'src/decoder-reason.ts' } },
});
