import { describe, expect, it } from 'vitest';
import {
  type APIError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
  TimeoutError,
  Transport,
  UserAbortError,
  type RetryInfo,
} from '@pfc/core';
import { FakeFetch, json, recordingSleep } from './helpers/fake-fetch';

const BASE = 'https://svc.test/v2';

function transport(http: FakeFetch, extra: Partial<ConstructorParameters<typeof Transport>[0]> = {}) {
  const s = recordingSleep();
  const retries: RetryInfo[] = [];
  const t = new Transport({ baseURL: BASE, fetch: http.fetch, sleep: s.sleep, onRetry: (r) => retries.push(r), ...extra });
  return { t, delays: s.delays, retries };
}

describe('Transport retries', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries %i and then succeeds', async (status) => {
    const http = new FakeFetch().fail('GET', /\/thing/, { status }).on('GET', /\/thing/, () => json({ ok: true }));
    const { t, retries } = transport(http);
    await expect(t.json('/thing')).resolves.toEqual({ ok: true });
    expect(http.calls).toHaveLength(2);
    expect(retries[0]).toMatchObject({ request: 'GET /v2/thing', attempt: 1 });
  });

  it('honours Retry-After in seconds and as an HTTP date, capped by retryAfterMaxMs', async () => {
    const date = new Date(Date.now() + 120_000).toUTCString();
    const http = new FakeFetch()
      .fail('GET', /\/thing/, { status: 429, headers: { 'retry-after': '3' } }, { status: 503, headers: { 'retry-after': date } })
      .on('GET', /\/thing/, () => json({ ok: true }));
    const { t, delays } = transport(http, { retryAfterMaxMs: 60_000 });
    await t.json('/thing');
    expect(delays[0]).toBe(3000);
    // An HTTP date two minutes ahead, capped at 60 s.
    expect(delays[1]).toBe(60_000);
  });

  it('waits out a Retry-After longer than the backoff\'s cap in full by default: an earlier retry would be refused again', async () => {
    const http = new FakeFetch().fail('GET', /\/thing/, { status: 429, headers: { 'retry-after': '120' } }).on('GET', /\/thing/, () => json({ ok: true }));
    const { t, delays } = transport(http);
    await t.json('/thing');
    expect(delays).toEqual([120_000]);
  });

  it('backs off exponentially with jitter when there is no Retry-After', async () => {
    const http = new FakeFetch().fail('GET', /\/thing/, 'reset', 'reset', 'reset').on('GET', /\/thing/, () => json({}));
    const { t, delays } = transport(http, { retryBaseDelayMs: 100 });
    await t.json('/thing');
    expect(delays).toHaveLength(3);
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(100 * 2 ** i * 0.75);
      expect(d).toBeLessThanOrEqual(100 * 2 ** i * 1.25);
    });
  });

  it('gives up after maxRetries with the last typed error', async () => {
    const http = new FakeFetch().fail('GET', /\/thing/, ...Array.from({ length: 5 }, () => ({ status: 503 })));
    const { t } = transport(http, { maxRetries: 2 });
    const err = await t.json('/thing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as InternalServerError).status).toBe(503);
    expect(http.calls).toHaveLength(3);
  });

  it('turns connection resets into ConnectionError after retries, naming the request', async () => {
    const http = new FakeFetch().fail('GET', /\/thing/, 'reset', 'reset');
    const { t } = transport(http, { maxRetries: 1 });
    const err = await t.json('/thing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(String(err)).toMatch(/could not reach GET \/v2\/thing: fetch failed \(ECONNRESET\)/);
  });

  it('does not retry 400 and keeps the parsed body and request id', async () => {
    const http = new FakeFetch().on('GET', /\/thing/, () =>
      json({ error: 'width must be an integer from 32 to 10000' }, { status: 400, headers: { 'x-request-id': 'req-42' } }),
    );
    const { t } = transport(http);
    const err = (await t.json('/thing').catch((e: unknown) => e)) as BadRequestError;
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toBe('GET /v2/thing answered 400: width must be an integer from 32 to 10000');
    expect(err.body).toEqual({ error: 'width must be an integer from 32 to 10000' });
    expect(err.requestId).toBe('req-42');
    expect(http.calls).toHaveLength(1);
  });

  it.each([
    [408, 2], [429, 2], [503, 2], [500, 1], [502, 1], [504, 1], ['reset', 1],
  ] as const)('sends a POST answered %s %i time(s): again only after an answer saying nothing was done', async (fault, sent) => {
    const http = new FakeFetch().fail('POST', /\/make/, fault === 'reset' ? 'reset' : { status: fault }).on('POST', /\/make/, () => json({ made: true }));
    const result = await transport(http).t.json('/make', { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(http.calls).toHaveLength(sent);
    if (sent === 2) expect(result).toEqual({ made: true });
    else expect(result).toBeInstanceOf(fault === 'reset' ? ConnectionError : InternalServerError);
  });

  it.each([401, 403])('does not retry %i (the credential was refused)', async (status) => {
    const http = new FakeFetch().fail('GET', /\/thing/, { status }).on('GET', /\/thing/, () => json({ ok: true }));
    const err = (await transport(http).t.json('/thing').catch((e: unknown) => e)) as APIError;
    expect(err).toBeInstanceOf(status === 401 ? AuthenticationError : PermissionDeniedError);
    expect(http.calls).toHaveLength(1);
  });

  it('calls a body factory once per attempt and never retries a bare stream', async () => {
    let made = 0;
    const http = new FakeFetch().fail('PUT', /\/up/, { status: 503 }).on('PUT', /\/up/, async (req) => json({ got: (await req.arrayBuffer()).byteLength }));
    const { t } = transport(http);
    const body = () => {
      made++;
      return new Uint8Array(10);
    };
    await expect(t.json('/up', { method: 'PUT', body })).resolves.toEqual({ got: 10 });
    expect(made).toBe(2);
    const http2 = new FakeFetch().fail('PUT', /\/up/, { status: 503 }).on('PUT', /\/up/, () => json({}));
    const stream = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new Uint8Array(3)), c.close()) });
    await expect(transport(http2).t.json('/up', { method: 'PUT', body: stream })).rejects.toBeInstanceOf(InternalServerError);
    expect(http2.calls).toHaveLength(1);
  });

  it('throws a failing body factory error as is, without retrying', async () => {
    const http = new FakeFetch().on('PUT', /\/up/, () => json({}));
    const { t } = transport(http);
    const boom = new Error('ENOENT: no such file');
    await expect(t.request('/up', { method: 'PUT', body: () => Promise.reject(boom) })).rejects.toBe(boom);
    expect(http.calls).toHaveLength(0);
  });
});

describe('Transport abort and timeouts', () => {
  it('stops waiting between retries when the caller aborts', async () => {
    const http = new FakeFetch().fail('GET', /\/thing/, { status: 503, headers: { 'retry-after': '3600' } });
    const ctrl = new AbortController();
    // Aborted once the hour's wait has begun, not before it.
    const t = new Transport({ baseURL: BASE, fetch: http.fetch, retryAfterMaxMs: 3_600_000, onRetry: () => setTimeout(() => ctrl.abort(), 20) });
    await expect(t.json('/thing', { signal: ctrl.signal })).rejects.toBeInstanceOf(UserAbortError);
    expect(http.calls).toHaveLength(1);
  });

  it('keeps the caller signal linked while the response body is read', async () => {
    const ctrl = new AbortController();
    let sent = 0;
    const http = new FakeFetch().on('GET', /\/big/, (req) => {
      // A body that sends one chunk, then waits for more until the request is aborted.
      return new Response(
        new ReadableStream<Uint8Array>({
          pull: (c) => {
            if (sent++ === 0) return c.enqueue(new Uint8Array(8));
            return new Promise<void>((_r, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason)));
          },
        }),
      );
    });
    const t = new Transport({ baseURL: BASE, fetch: http.fetch });
    const res = await t.request('/big', { signal: ctrl.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).value?.byteLength).toBe(8);
    const pending = reader.read();
    ctrl.abort();
    await expect(pending).rejects.toBeInstanceOf(UserAbortError);
  });

  it('fails a stalled body read with TimeoutError (inactivity, not total time)', async () => {
    const http = new FakeFetch().on('GET', /\/stall/, (req) =>
      new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise((_r, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason))) })),
    );
    const t = new Transport({ baseURL: BASE, fetch: http.fetch, timeout: 50 });
    const res = await t.request('/stall');
    await expect(res.text()).rejects.toBeInstanceOf(TimeoutError);
  });

  it('does not time out a body the consumer is slow to start reading', async () => {
    // Like a real fetch, the body fails once the request's signal has aborted.
    const http = new FakeFetch().on('GET', /\/late/, (req) =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull: (c) => {
            if (req.signal.aborted) return c.error(req.signal.reason);
            c.enqueue(new TextEncoder().encode('still here'));
            c.close();
          },
        }, { highWaterMark: 0 }),
      ),
    );
    const t = new Transport({ baseURL: BASE, fetch: http.fetch, timeout: 20 });
    const res = await t.request('/late');
    await new Promise((r) => setTimeout(r, 100)); // the consumer is busy elsewhere, longer than the timeout
    await expect(res.text()).resolves.toBe('still here');
  });

  it('leaves no abort listeners on a long-lived signal after many requests', async () => {
    const http = new FakeFetch()
      .on('GET', /\/ok/, () => json({ ok: true }))
      .on('GET', /\/bad/, () => json({ error: 'no' }, { status: 400 }));
    const ctrl = new AbortController();
    let live = 0;
    const add = ctrl.signal.addEventListener.bind(ctrl.signal);
    const remove = ctrl.signal.removeEventListener.bind(ctrl.signal);
    ctrl.signal.addEventListener = ((...a: Parameters<typeof add>) => (live++, add(...a))) as typeof add;
    ctrl.signal.removeEventListener = ((...a: Parameters<typeof remove>) => (live--, remove(...a))) as typeof remove;
    const t = new Transport({ baseURL: BASE, fetch: http.fetch });
    for (let i = 0; i < 200; i++) {
      await t.json('/ok', { signal: ctrl.signal });
      await t.json('/bad', { signal: ctrl.signal }).catch(() => undefined);
      const res = await t.request('/ok', { signal: ctrl.signal });
      await res.body!.cancel();
    }
    expect(live).toBe(0);
  });
});

describe('Transport URLs and secrets', () => {
  it('appends a query without disturbing an existing (signed) one, spaces as %20', () => {
    const t = new Transport({ baseURL: BASE, fetch: new FakeFetch().fetch });
    expect(t.url('https://x.test/status/1?sig=a%2Fb~c', { noRedirect: 'true' }).href).toBe('https://x.test/status/1?sig=a%2Fb~c&noRedirect=true');
    expect(t.url('/pfc', { preset: 'School and Sports', bgColor: '#ff0000', x: 'a+b' }).search).toBe('?preset=School%20and%20Sports&bgColor=%23ff0000&x=a%2Bb');
    expect(t.url('https://x.test/s?noRedirect=false', { noRedirect: 'true' }).search).toBe('?noRedirect=true');
  });

  it('scrubs secrets a server echoes into an error body or message', async () => {
    const secret = 'sk-live-0123456789';
    const http = new FakeFetch().on('GET', /\/me/, () => json({ error: `key ${secret} is not valid` }, { status: 401 }));
    const t = new Transport({ baseURL: BASE, fetch: http.fetch, authHeaders: () => ({ 'X-API-KEY': secret }), secrets: () => [secret] });
    const err = (await t.json('/me').catch((e: unknown) => e)) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toBe('GET /v2/me answered 401: key [redacted] is not valid');
    expect(JSON.stringify(err.body)).not.toContain(secret);
    expect(http.calls[0]!.headers.get('x-api-key')).toBe(secret);
  });

  it('classifies statuses into their error classes', async () => {
    const http = new FakeFetch().on('GET', /\/429/, () => json({ message: 'slow down' }, { status: 429, headers: { 'retry-after': '1' } }));
    const err = (await new Transport({ baseURL: BASE, fetch: http.fetch, maxRetries: 0 }).json('/429').catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(1000);
    expect(err.headers?.get('retry-after')).toBe('1');
    expect(err.message).toMatch(/answered 429: slow down/);
  });
});
