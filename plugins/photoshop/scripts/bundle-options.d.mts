import type { BuildOptions } from 'esbuild';

export const PANEL_BUNDLE: BuildOptions;
