/** Types of crash.mjs for the TypeScript tests (test/reliability). */
export interface CrashResult {
  count: number;
  kills: number;
  runsStarted: number;
  runs: { moment: string; endedAtMs: number; killed: boolean; exitCode: number | null; correctedBeforeKill: number; temporaryRemovedAtStart: number }[];
  final: { exitCode: number | null; corrected: number; upToDate: number; failed: number };
  temporaryRemoved: number;
  equal: boolean;
  missing: string[];
  extra: string[];
  temporary: string[];
  different: string[];
  byteIdentical: number;
  changedOriginals: number;
  inputs: number;
}
export function runCrash(options: { dir: string; count?: number; kills?: number; seed?: number; concurrency?: number; processingMs?: number; log?: (m: string) => void }): Promise<CrashResult>;
