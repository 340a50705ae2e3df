import { readdirSync, existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// One root config, one project per package (vitest "projects"). Tests import
// the built packages (`npm test` builds first), as the hosts and the CLI do.
// Host end-to-end tests that need Chromium or VS Code live in `*.e2e.ts`
// files and run only with `npm run test:e2e` (vitest.e2e.config.ts).
const dirs = ['packages', 'plugins'].flatMap((root) =>
  readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(`${root}/${d.name}/package.json`))
    .map((d) => `${root}/${d.name}`),
);

export default defineConfig({
  test: {
    projects: [
      ...dirs.map((dir) => ({
        extends: true as const,
        test: { name: dir.split('/')[1]!, root: dir, include: ['test/**/*.test.ts'] },
      })),
      { extends: true as const, test: { name: 'e2e', root: 'test', include: ['**/*.test.ts'] } },
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // `expect.poll` waits for what a test drives to show (a notification, a log line): 1 s by default, which a loaded
    // machine can overrun while the product is right. It ends as soon as the check holds, so only a failure waits longer.
    expect: { poll: { timeout: 10_000 } },
    passWithNoTests: true,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
