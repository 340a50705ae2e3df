/**
 * What a host is told of one correction's waits before trying again (`CorrectOptions.onRetry`): every
 * wait of that correction, the Web API's refused job starts and status polls among them, in the words
 * `retryWaitText` gives and counting down with `RetryCountdown`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIError, ConnectionError, ContainerClient, createContainerBackend, RateLimitError, readAll, retryWaitText, RetryCountdown, serviceWait, UserAbortError, WebApiClient, type RetryInfo,
} from '@pfc/core';
import { CONTAINER, FakeContainer } from './container-fakes/fakes';
import { BASE, corrected, FakeApi, KEY } from './helpers/fake-api';
import { recordingSleep } from './helpers/fake-fetch';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 10, 20, 30, 40]);
const answered = (status: number) => APIError.fromResponse(status, undefined, undefined, 'GET /thing', new Headers());
const info = (error: unknown, extra: Partial<RetryInfo> = {}): RetryInfo => ({ request: 'GET /thing', attempt: 1, delayMs: 42_000, error, rateLimit: 'requests', ...extra });

describe('retryWaitText', () => {
  it('says why the service made the correction wait, how long is left and, for a counted retry, which attempt comes', () => {
    expect(retryWaitText(info(answered(429)), 42_000)).toBe('Service busy (rate limited) — retrying in 42 s');
    expect(retryWaitText(info(answered(429), { rateLimit: 'jobs' }), 4_100)).toBe('Service busy (too many jobs at once) — retrying in 5 s');
    expect(retryWaitText(info(answered(503), { maxRetries: 2 }), 8_000)).toBe('Service unavailable — retrying in 8 s (attempt 2 of 3)');
    expect(retryWaitText(info(answered(502), { attempt: 2, maxRetries: 4 }), 600)).toBe('Service error (HTTP 502) — retrying in 1 s (attempt 3 of 5)');
    expect(retryWaitText(info(new ConnectionError('GET /thing'), { maxRetries: 2 }), 250)).toBe('Service not reachable — retrying in 1 s (attempt 2 of 3)');
    expect(retryWaitText(info(answered(429)), 185_000)).toBe('Service busy (rate limited) — retrying in 3:05');
  });
});

describe('serviceWait', () => {
  it('is plain data (a batch event carries it): a 429 says which limit, other waits none', () => {
    expect(serviceWait(info(answered(429), { rateLimit: 'jobs', attempt: 2 }))).toEqual({ reason: 'Service busy (too many jobs at once)', delayMs: 42_000, attempt: 2, rateLimited: 'jobs' });
    expect(serviceWait(info(answered(503), { rateLimit: 'jobs', maxRetries: 4 }))).toEqual({ reason: 'Service unavailable', delayMs: 42_000, attempt: 1, maxRetries: 4 });
    expect(JSON.parse(JSON.stringify(serviceWait(info(answered(429)))))).toEqual(serviceWait(info(answered(429))));
  });
});

describe('RetryCountdown', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts the wait down once a second, then gives the host its phase back; stop leaves the last word', () => {
    vi.useFakeTimers();
    const shown: (string | undefined)[] = [];
    const countdown = new RetryCountdown((text) => shown.push(text));
    countdown.onRetry(info(answered(429), { delayMs: 2_500 }));
    vi.advanceTimersByTime(3_000);
    expect(shown).toEqual([
      'Service busy (rate limited) — retrying in 3 s',
      'Service busy (rate limited) — retrying in 2 s',
      'Service busy (rate limited) — retrying in 1 s',
      undefined,
    ]);
    countdown.onRetry(info(answered(429), { delayMs: 5_000 }));
    countdown.stop();
    vi.advanceTimersByTime(10_000);
    expect(shown).toHaveLength(5);
  });

  it('says each second once when a timer fires a millisecond before the clock says that second is over', () => {
    vi.useFakeTimers();
    let lag = 0;
    const shown: (string | undefined)[] = [];
    const countdown = new RetryCountdown((text) => shown.push(text), () => Date.now() - lag);
    countdown.onRetry(info(answered(503), { delayMs: 2_000 }));
    lag = 1;
    vi.advanceTimersByTime(3_000);
    expect(shown).toEqual(['Service unavailable — retrying in 2 s', 'Service unavailable — retrying in 1 s', undefined]);
  });
});

describe('CorrectOptions.onRetry on the Web API', () => {
  function client(api: FakeApi) {
    const s = recordingSleep();
    return { client: new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: s.sleep, maxRetries: 2 }), delays: s.delays };
  }

  it('is told each wait of its correction: a retried upload ticket, a refused job start, a refused status poll', async () => {
    const api = new FakeApi();
    api.http.fail('GET', /\/upload/, { status: 503, headers: { 'retry-after': '3' } });
    api.http.fail('GET', /\/pfc/, { status: 429, headers: { 'retry-after': '7' } });
    api.http.fail('GET', /\/status\//, { status: 429, headers: { 'retry-after': '2' } });
    const told: RetryInfo[] = [];
    const res = await client(api).client.correct(JPEG, {}, { onRetry: (i) => told.push(i) });
    expect([...(await readAll(res.body))]).toEqual([...corrected(JPEG)]);
    expect(told.map((i) => [i.error instanceof APIError ? i.error.status : i.error, i.rateLimit, i.maxRetries])).toEqual([
      [503, 'requests', 2],
      [429, 'jobs', undefined],
      [429, 'requests', undefined],
    ]);
    // The waits told are the waits made (a refusal's plus up to 20 % spread).
    expect(told[0]!.delayMs).toBe(3_000);
    expect(told[1]!.delayMs).toBeGreaterThanOrEqual(7_000);
    expect(told[1]!.error).toBeInstanceOf(RateLimitError);
  });

  it('a cancel during a wait ends the correction at once', { timeout: 5_000 }, async () => {
    const api = new FakeApi();
    api.http.fail('GET', /\/pfc/, { status: 429, headers: { 'retry-after': '300' } });
    // The real timer: the wait is the client's own.
    const web = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch });
    const abort = new AbortController();
    const began = Date.now();
    const err = await web.correct(JPEG, {}, { signal: abort.signal, onRetry: () => setTimeout(() => abort.abort(), 20) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserAbortError);
    expect(Date.now() - began).toBeLessThan(2_000);
  });
});

describe('CorrectOptions.onRetry on the container', () => {
  it('is told each retry of its upload, its correction and its download', async () => {
    const fake = new FakeContainer();
    fake.http.fail('PUT', /\/pfc$/, { status: 503, headers: { 'retry-after': '1' } });
    fake.http.fail('GET', /\/pfc\//, 'reset');
    fake.http.fail('GET', /\/output\//, { status: 502 });
    const backend = createContainerBackend({ container: new ContainerClient({ baseURL: CONTAINER, fetch: fake.fetch, sleep: recordingSleep().sleep }) });
    const told: RetryInfo[] = [];
    const r = await backend.correct(JPEG, {}, { onRetry: (i) => told.push(i) });
    await readAll(r.body);
    expect(told.map((i) => retryWaitText(i, i.delayMs).replace(/\d+ s/, 'N s'))).toEqual([
      'Service unavailable — retrying in N s (attempt 2 of 5)',
      'Service not reachable — retrying in N s (attempt 2 of 5)',
      'Service error (HTTP 502) — retrying in N s (attempt 2 of 5)',
    ]);
  });
});
