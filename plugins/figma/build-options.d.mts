import type { BuildOptions } from 'esbuild';
export function mainBuildOptions(root: string): BuildOptions & { write: false };
export function uiBuildOptions(root: string): BuildOptions & { write: false };
