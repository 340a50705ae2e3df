/**
 * A 429 on a request other than a job start (an upload ticket, the upload
 * itself) is a request rate: the request waits its `Retry-After` and is sent
 * again, and the jobs at once stay where they are. Only a refused job start
 * (the account's jobs in progress) lowers them.
 */
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import { type FetchLike, RateLimitError, type RetryInfo } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import { type BatchEvent, createNodeFetch, openBackend, planBatch, runBatch } from '../src/index';
import { solidJpegs, tempDir } from './helpers';

/**
 * Every other upload ticket (`GET …/upload`) and every other upload (`PUT`)
 * answered 429 with `Retry-After: 0`, as a service over its request rate
 * does; everything else reaches the emulator.
 */
function rateLimitedFetch(): { fetch: FetchLike; refused: () => number } {
  const inner = createNodeFetch();
  const seen = { ticket: 0, put: 0 };
  let refused = 0;
  const fetch: FetchLike = async (input, init = {}) => {
    const url = new URL(String(input));
    const method = (init.method ?? 'GET').toUpperCase();
    const kind = method === 'PUT' ? 'put' : method === 'GET' && url.pathname.endsWith('/upload') ? 'ticket' : undefined;
    if (kind && seen[kind]++ % 2 === 0) {
      refused++;
      if (init.body instanceof ReadableStream) await init.body.cancel();
      return new Response(JSON.stringify({ message: 'rate limit: too many requests' }), { status: 429, headers: { 'Content-Type': 'application/json', 'Retry-After': '0' } });
    }
    return inner(input, init);
  };
  return { fetch, refused: () => refused };
}

describe('429s judged by the request they answer', () => {
  it('a request-rate 429 on uploads is waited out without lowering the jobs at once', async () => {
    const files = 16;
    const emu = await startEmulator({ engine: {}, container: false, bgr: false, processingMs: 40, workers: 8 });
    try {
      const root = tempDir();
      await solidJpegs(join(root, 'in'), files, { prefix: 'r', width: 64, height: 48 });
      const limited = rateLimitedFetch();
      const retried: RetryInfo[] = [];
      const opened = await openBackend({ emulatorUrl: emu.web, fetch: limited.fetch, onRetry: (i) => retried.push(i) });
      const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
      const notices: string[] = [];
      const onEvent = (e: BatchEvent) => {
        if (e.type === 'notice') notices.push(e.message);
      };
      const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, concurrency: 4, attempts: 1, rateLimited: opened.rateLimited!, onEvent });
      await opened.close();
      // The 429s happened, were retried (each file uploaded once), and no file failed.
      expect(limited.refused()).toBeGreaterThanOrEqual(files);
      const rate = retried.filter((i) => i.error instanceof RateLimitError);
      expect(rate.length).toBe(limited.refused());
      expect(rate.every((i) => i.rateLimit === 'requests')).toBe(true);
      expect(summary.corrected).toBe(files);
      expect(emu.stats().requests['upload.put']).toBe(files);
      // The jobs at once never changed: the service refused no job.
      expect(notices.filter((m) => /job\(s\) at once/.test(m))).toEqual([]);
    } finally {
      await emu.close();
    }
  }, 60_000);
});
