import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  clean: true,
  // Declarations for the library entry only (the workers and the bin have no importers).
  dts: { entry: { index: 'src/index.ts' } },
});
