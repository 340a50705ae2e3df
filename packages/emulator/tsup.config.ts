import { defineConfig } from 'tsup';

// Two entries: the library (`startEmulator`) and the `pfc-emulator` bin. The
// bin's shebang is kept by esbuild and tsup marks the file executable.
export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  // Declarations for the library entry only (the workers and the bin have no importers).
  dts: { entry: { index: 'src/index.ts' } },
});
