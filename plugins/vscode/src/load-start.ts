/**
 * Imported first by extension.ts, so this runs before the rest of the bundle is
 * evaluated: the activation time logged includes loading the bundle.
 */
export const loadStart = performance.now();
