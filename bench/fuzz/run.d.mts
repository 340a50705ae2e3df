/** Types of run.mjs for the TypeScript tests (test/reliability). */
export interface FuzzFinding {
  why: string;
  got?: number | string;
  index?: number;
  regression?: string;
  open?: string;
  case?: SerializedCase;
  body?: string;
  stderr?: string;
}
export interface SerializedCase {
  api: 'web' | 'container' | 'bgr';
  kind?: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyBase64?: string;
  rawBase64?: string;
  declaredLength?: number;
  truncate?: boolean;
  note?: string;
  open?: string;
  match?: { api: string; method: string; pathPrefix: string; status: number };
}
export interface FuzzReport {
  seed: number;
  countPerApi: number;
  apis: string[];
  strace: boolean;
  straceWritesInside?: number;
  sent: number;
  noAnswer: Record<string, number>;
  byApi: Record<string, { sent: number; statuses: Record<string, number> }>;
  failures: FuzzFinding[];
  knownOpen: FuzzFinding[];
  crashes: number;
  sandbox: string[];
  regressions: number;
  durationMs: number;
  clean: boolean;
}
export const REGRESSIONS_FILE: string;
export function runFuzz(options?: { seed?: number; count?: number; apis?: string[]; concurrency?: number; strace?: boolean; log?: (m: string) => void }): Promise<FuzzReport>;
export function serializeCase(api: string, c: unknown): SerializedCase;
export function deserializeCase(s: SerializedCase): SerializedCase & { body?: Buffer; raw?: Buffer };
