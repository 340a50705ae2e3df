/** Types of sandbox.mjs for the TypeScript tests (test/reliability). */
export const STRACE_CALLS: string;
export function straceAvailable(): boolean;
export function makeSandbox(root: string, seed: number): { root: string; dataDir: string; cwd: string; secret: string; straceLog: string; check(): string[] };
export function straceViolations(logFile: string, dirs: { dataDir: string; cwd: string }): { violations: string[]; writesInside: number };
