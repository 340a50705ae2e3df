import type { Packed } from './npm.mjs';
/** VS Code's name for this machine's platform (`linux-x64`, …). */
export function hostTarget(): string;
/** Build the platform .vsix (the extension plus node_modules/@pfc/emulator and its dependencies) into `dest`. */
export function vscodePlatformVsix(options: { tarballs: Packed[]; dest: string; version: string; target?: string }): { file: string; size: number; target: string };
