/**
 * The client under the emulator's fault injection: retries on 429/503/500 and
 * dropped connections (honouring Retry-After), what is not retried, per-attempt
 * and overall timeouts, abort mid-poll, FAILED and REJECTED jobs, bad keys.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  InternalServerError,
  JobFailedError,
  PermissionDeniedError,
  RateLimitError,
  TimeoutError,
  UserAbortError,
  type RetryInfo,
  type WebApiClient,
} from '@pfc/core';
import { clientFor, greyPng, recordingClient, sample, startWebEmulator, type Emulator } from './webapi-fixtures';

let emu: Emulator;
let client: WebApiClient;
const JPEG = sample('objects/coffee.jpg');

beforeAll(async () => {
  emu = await startWebEmulator();
  client = clientFor(emu);
});
afterEach(() => emu.setFaults({}));
afterAll(() => emu?.close());

const requests = (route: string) => emu.stats().requests[route] ?? 0;

describe('retries under injected faults', () => {
  it('429 with Retry-After on GET /upload: waits what the server says, then succeeds', async () => {
    emu.setFaults({ routes: { upload: { rate429: 1, count: 2, retryAfterSeconds: 2 } } });
    const { client: c, waits, retries } = recordingClient(emu);
    const { job } = await c.correctBytes(JPEG, { width: 64 });
    expect(job?.status).toBe('COMPLETED');
    expect(waits).toEqual([2000, 2000]);
    expect(retries.map((r) => r.error)).toEqual([expect.any(RateLimitError), expect.any(RateLimitError)]);
    expect(emu.stats().faults['429']).toBe(2);
  });

  it('503 on status polls and 500 on /pfc are retried', async () => {
    emu.setFaults({ routes: { status: { rate503: 1, count: 2, retryAfterSeconds: 1 }, pfc: { rate500: 1, count: 1 } } });
    const { client: c, waits, retries } = recordingClient(emu);
    const { job } = await c.correctBytes(JPEG, { width: 65 });
    expect(job?.status).toBe('COMPLETED');
    expect(retries.map((r) => r.request)).toEqual([expect.stringMatching(/^GET \/v2\/pfc$/), expect.stringMatching(/^GET \/v2\/status\//), expect.stringMatching(/^GET \/v2\/status\//)]);
    expect(waits.slice(1)).toEqual([1000, 1000]);
  });

  it('dropped connections on the pre-signed PUT and on /pfc are retried (bytes are re-sent)', async () => {
    emu.setFaults({ routes: { 'upload.put': { dropRate: 1, count: 1 }, pfc: { dropRate: 1, count: 1 } } });
    const { client: c, retries } = recordingClient(emu);
    const { job, bytes } = await c.correctBytes(JPEG, { width: 66 });
    expect(job?.status).toBe('COMPLETED');
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(retries.map((r) => r.error)).toEqual([expect.any(ConnectionError), expect.any(ConnectionError)]);
    expect(emu.stats().faults.drop).toBe(2);
  });

  it('gives up after maxRetries with the typed error', async () => {
    emu.setFaults({ routes: { upload: { rate429: 1, retryAfterSeconds: 0 } } });
    const before = requests('upload');
    const { client: c } = recordingClient(emu, { maxRetries: 2 });
    const err = (await c.uploadFile(JPEG).catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.status).toBe(429);
    expect(err.body).toEqual({ error: 'rate limit exceeded (injected fault)' });
    expect(requests('upload') - before).toBe(3);
  });

  it('does not repeat POST /presets/ after a 500 (a second preset could result)', async () => {
    emu.setFaults({ routes: { 'presets.create': { rate500: 1, count: 1 } } });
    const before = requests('presets.create');
    const { client: c } = recordingClient(emu);
    await expect(c.presets.create({ name: 'Once', file: new Uint8Array([1]) })).rejects.toBeInstanceOf(InternalServerError);
    expect(requests('presets.create') - before).toBe(1);
    expect(await c.presets.list().toArray()).toEqual([]);
  });

  it.each([429, 503] as const)('repeats POST /presets/ after a %i, which says nothing was created: one preset results', async (status) => {
    emu.setFaults({ routes: { 'presets.create': { [`rate${status}`]: 1, count: 1, retryAfterSeconds: 0 } } });
    const before = requests('presets.create');
    const { client: c } = recordingClient(emu);
    const made = await c.presets.create({ name: `After ${status}`, file: new Uint8Array([1]) });
    expect(requests('presets.create') - before).toBe(2);
    expect((await c.presets.list().toArray()).map((p) => p.name)).toEqual([`After ${status}`]);
    await c.presets.delete(made.presetId);
  });

  it('an abort while waiting to retry ends the wait at once, and nothing more is sent', async () => {
    emu.setFaults({ routes: { upload: { rate503: 1, retryAfterSeconds: 20 } } });
    const before = requests('upload');
    const ctrl = new AbortController();
    // Real waits: the user cancels 50 ms into the 20 s the service asked for.
    const c = clientFor(emu, { onRetry: () => setTimeout(() => ctrl.abort(), 50) });
    const started = Date.now();
    const err = await c.uploadFile(JPEG, { signal: ctrl.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserAbortError);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(requests('upload') - before).toBe(1);
  });

  it('a stalled attempt is retried', async () => {
    emu.setFaults({ routes: { upload: { latencyMs: 5000 } } });
    const before = requests('upload');
    const retries: RetryInfo[] = [];
    // The service answers the second attempt at once.
    // A second's bound: under load the retry, answered at once, still comes in well inside it.
    const c = clientFor(emu, { timeout: 1000, onRetry: (r) => (retries.push(r), emu.setFaults({})) });
    const ticket = await c.uploads.ticket();
    expect(ticket.fileKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(retries.map((r) => r.error)).toEqual([expect.any(TimeoutError)]);
    expect(requests('upload') - before).toBe(2);
  });

  it('a stalled answer fails the attempt with TimeoutError', async () => {
    emu.setFaults({ routes: { upload: { latencyMs: 5000 } } });
    const c = clientFor(emu, { timeout: 200, maxRetries: 0 });
    const err = (await c.uploads.ticket().catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe('GET /v2/upload timed out after 200 ms');
  });
});

describe('job outcomes', () => {
  it.each([
    ['FAILED', { failRate: 1, count: 1 }, 'processing failed (injected fault)'],
    ['REJECTED', { rejectRate: 1, count: 1 }, 'job rejected (injected fault)'],
  ] as const)('%s becomes JobFailedError with statusText', async (state, jobs, text) => {
    emu.setFaults({ jobs });
    const err = (await client.correct(JPEG, { width: 67, cache: false }).catch((e: unknown) => e)) as JobFailedError;
    expect(err).toBeInstanceOf(JobFailedError);
    expect(err.status).toBe(state);
    expect(err.statusText).toBe(text);
    expect((err.job as { status: string }).status).toBe(state);
  });

  it('an image under 32×32 pixels is REJECTED with a statusText naming the limit', async () => {
    const err = (await client.correct(greyPng(16, 16), {}).catch((e: unknown) => e)) as JobFailedError;
    expect(err).toBeInstanceOf(JobFailedError);
    expect(err.status).toBe('REJECTED');
    expect(err.statusText).toMatch(/image is 16x16 pixels; both sides must be larger than 32 pixels/);
  });

  it('a file that is not an image ends FAILED or REJECTED, saying why', async () => {
    const err = (await client.correct(new TextEncoder().encode('this is not a photo'), {}).catch((e: unknown) => e)) as JobFailedError;
    expect(err).toBeInstanceOf(JobFailedError);
    expect(['FAILED', 'REJECTED']).toContain(err.status);
    expect(err.statusText.length).toBeGreaterThan(0);
  });

  it('a job that never finishes ends the wait with TimeoutError at the overall limit', async () => {
    emu.setFaults({ jobs: { hangRate: 1, count: 1 } });
    const handle = await client.jobs.start({ fileKey: await client.uploadFile(JPEG), cache: false });
    const err = (await client.waitForJob(handle, { timeoutMs: 600 }).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe(`waiting for ${handle.statusEndpoint} timed out after 600 ms`);
  });

  it('abort mid-poll stops the job wait at once and sends no more status requests', async () => {
    emu.setFaults({ jobs: { hangRate: 1, count: 1 } });
    const ctrl = new AbortController();
    const err = await client
      .correct(JPEG, { cache: false }, { signal: ctrl.signal, onProgress: (p) => p.phase === 'processing' && ctrl.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserAbortError);
    const polls = requests('status');
    await new Promise((r) => setTimeout(r, 500)); // longer than the poll interval: nothing more may come
    expect(requests('status')).toBe(polls);
  });
});

describe('authentication', () => {
  it('a wrong key is an AuthenticationError that does not show the key', async () => {
    const wrong = 'definitely-wrong-key-123';
    const err = (await clientFor(emu, { apiKey: wrong }).uploads.ticket().catch((e: unknown) => e)) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.message).toBe('GET /v2/upload answered 401: invalid API key');
    expect(JSON.stringify(err) + String(err) + (err.stack ?? '')).not.toContain(wrong);
  });

  it('a refused key (401) and a refused upload address (403) are reported at once, never repeated', async () => {
    const tickets = requests('upload');
    const err = await clientFor(emu, { apiKey: 'definitely-wrong-key-123' }).uploads.ticket().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(requests('upload') - tickets).toBe(1);

    const { uploadUrl } = await client.uploads.ticket();
    const puts = emu.stats().storage.requests;
    const refused = await client.uploads.put(uploadUrl.replace(/signature=[^&]+/, 'signature=forged'), JPEG).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PermissionDeniedError);
    expect((refused as PermissionDeniedError).message).toMatch(/SignatureDoesNotMatch/);
    expect(emu.stats().storage.requests - puts).toBe(1);
  });

  it('no key is 401 with a JSON error body', async () => {
    const res = await fetch(`${emu.web}/upload`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.stringMatching(/API key/) });
  });
});
