// The esbuild options of the two bundles, shared by build.mjs and the tests
// that run the bundled main thread in the simulated Figma sandbox.
import { join } from 'node:path';

// Figma's main-thread sandbox runs modern JavaScript (ES2020+), but no DOM or Node.
const common = { bundle: true, minify: true, legalComments: 'none', logLevel: 'warning', write: false };

/** @param {string} root the plugin folder */
export function mainBuildOptions(root) {
  return { ...common, entryPoints: [join(root, 'src/main/code.ts')], format: 'iife', target: 'es2020', platform: 'neutral' };
}

/** @param {string} root the plugin folder */
export function uiBuildOptions(root) {
  return { ...common, entryPoints: [join(root, 'src/ui/main.ts')], format: 'iife', target: 'es2020', platform: 'browser' };
}
