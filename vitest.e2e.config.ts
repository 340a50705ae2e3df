import { defineConfig } from 'vitest/config';

// Host end-to-end tests: real Chromium (Figma, Photoshop, the CLI's report) and
// a real VS Code (code-server). `test/e2e/setup.mjs` installs what they need.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts', 'test/packaging/**/*.e2e.ts', 'plugins/*/test/**/*.e2e.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    passWithNoTests: true,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
