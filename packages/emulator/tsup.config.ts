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
  dts: false,
});
