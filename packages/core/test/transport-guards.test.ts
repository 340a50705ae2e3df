/**
 * Promises of the transport that hand mutations of `src/transport.ts` found
 * unwatched: each test here fails when its rule is taken out. What is checked
 * is what the service sees (the requests made, their address and headers) and
 * what the caller gets (the answer or the typed error, the waits asked for).
 */
import { describe, expect, it } from 'vitest';
import { APIError, RateLimitError, TimeoutError, Transport } from '@pfc/core';
import { FakeFetch, json, recordingSleep } from './helpers/fake-fetch';

const BASE = 'https://svc.test/v2';

function transport(http: FakeFetch, extra: Partial<ConstructorParameters<typeof Transport>[0]> = {}) {
  const s = recordingSleep();
  return { t: new Transport({ baseURL: BASE, fetch: http.fetch, sleep: s.sleep, ...extra }), delays: s.delays };
}

describe('retries', () => {
  it('retryRateLimited: false throws a 429 at once, for a caller that waits it out itself (one request, no wait)', async () => {
    const http = new FakeFetch().fail('GET', /\/pfc/, { status: 429, headers: { 'retry-after': '2' } }).on('GET', /\/pfc/, () => json({ ok: true }));
    const { t, delays } = transport(http);
    const err = await t.json('/pfc', { retryRateLimited: false, rateLimit: 'jobs' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(http.calls).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('a backoff never waits longer than retryMaxDelayMs (with its jitter), however many retries', async () => {
    const http = new FakeFetch().fail('GET', /\/thing/, ...Array.from({ length: 8 }, () => 'reset' as const)).on('GET', /\/thing/, () => json({}));
    const { t, delays } = transport(http, { maxRetries: 8, retryBaseDelayMs: 250, retryMaxDelayMs: 1000 });
    await t.json('/thing');
    expect(delays).toHaveLength(8);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1250);
    // From the third retry on, the cap is what is waited (±25 %).
    for (const d of delays.slice(3)) expect(d).toBeGreaterThanOrEqual(750);
  });

  it('clients failing at the same moment do not retry in step: the waits are jittered', async () => {
    const waits = await Promise.all(Array.from({ length: 12 }, async () => {
      const http = new FakeFetch().fail('GET', /\/thing/, 'reset').on('GET', /\/thing/, () => json({}));
      const { t, delays } = transport(http, { retryBaseDelayMs: 1000 });
      await t.json('/thing');
      return delays[0]!;
    }));
    expect(new Set(waits).size).toBeGreaterThan(1);
  });
});

describe('the request', () => {
  it('a base address with a trailing slash: paths below it have one slash, as the service routes them', async () => {
    const http = new FakeFetch().on('GET', /./, () => json({}));
    const { t } = transport(http, { baseURL: `${BASE}/` });
    await t.json('/upload');
    await t.json('presets');
    expect(http.calls.map((c) => c.url.href)).toEqual([`${BASE}/upload`, `${BASE}/presets`]);
  });

  it("a request's own header wins over the client's credential header of the same name", async () => {
    const http = new FakeFetch().on('PUT', /./, () => new Response(null, { status: 200 }));
    const { t } = transport(http, { authHeaders: () => ({ 'X-API-KEY': 'account-key' }) });
    await t.request('/presets/p1/file', { method: 'PUT', headers: { 'X-API-KEY': 'preset-upload-key' }, body: new Uint8Array([1]) });
    expect(http.calls[0]!.headers.get('x-api-key')).toBe('preset-upload-key');
  });

  it('an error answer of status 0 (Response.error(): a network error a browser reports as an answer) is an error, never a success', async () => {
    const http = new FakeFetch().on('GET', /./, () => Response.error());
    const { t } = transport(http, { maxRetries: 0 });
    const err = await t.json('/thing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
  });

  it('a byte body has more time than the inactivity limit, 10 s a MB: a 1 MB upload answered after 300 ms with a 100 ms limit succeeds', async () => {
    const slowAnswer = () => new Promise<Response>((resolve) => setTimeout(() => resolve(new Response(null, { status: 200 })), 300));
    const http = new FakeFetch().on('PUT', /./, slowAnswer).on('GET', /./, slowAnswer);
    const { t } = transport(http, { timeout: 100, maxRetries: 0 });
    await expect(t.request('/upload', { method: 'PUT', body: new Uint8Array(1_000_000) })).resolves.toMatchObject({ status: 200 });
    // Without a body, the same wait is over the limit.
    const err = await t.request('/thing', { method: 'GET' }).catch((e: unknown) => e);
    expect(http.calls).toHaveLength(2);
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it('a file stream whose request fails is cancelled: the file is closed, not left open until the process ends', async () => {
    let cancelled = false;
    const file = new ReadableStream<Uint8Array>({
      pull: (c) => c.enqueue(new Uint8Array(16)),
      cancel: () => {
        cancelled = true;
      },
    });
    const refused: typeof globalThis.fetch = () => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }));
    const t = new Transport({ baseURL: BASE, fetch: refused, sleep: recordingSleep().sleep });
    await expect(t.request('/upload', { method: 'PUT', body: file })).rejects.toThrow();
    expect(cancelled).toBe(true);
  });
});
