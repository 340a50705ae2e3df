/** Types of http.mjs for the TypeScript tests (test/reliability). */
export interface FuzzOutcome {
  status: number | 'no-answer';
  error?: string;
  body?: string;
  interim?: number;
}
export function send(baseUrl: string, c: { method?: string; path?: string; headers?: Record<string, string>; body?: Buffer; raw?: Buffer; declaredLength?: number; truncate?: boolean }): Promise<FuzzOutcome>;
