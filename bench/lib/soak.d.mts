/** Types of soak.mjs for the TypeScript tests (test/reliability). */
export interface SoakResult {
  count: number;
  seed: number;
  hangsInjected: boolean;
  jobTimeout: string | null;
  run1: { corrected: number; failed: number; /** Files failed with JobTimeoutError (the per-job limit). */ timedOut: number; cancelled: number; exitCode: number | null; ms: number; stoppedBecause?: string; failureReasons: Record<string, number> };
  injected: Record<string, number>;
  rerun: { corrected: number; upToDate: number; failed: number; exitCode: number | null; jobs: number; redoesOnlyFailed: boolean };
  outputs: number;
  duplicates: number;
  partials: number;
  unexpectedFiles: string[];
  badOutputs: string[];
  originalsChanged: number;
  secrets: { hits: string[]; searched: { texts: number; files: number; bytes: number } };
  outDir: string;
}
export function soakFaults(seed: number, options?: { hang?: boolean }): object;
export function jobTimeoutFlag(): Promise<{ flag: string; unit: 'ms' | 's' } | undefined>;
export function runSoak(options: { dir: string; count?: number; seed?: number; concurrency?: number; processingMs?: number; jobTimeoutS?: number; log?: (m: string) => void; onSecret?: (key: string) => void }): Promise<SoakResult>;
