/**
 * The core client against the emulator's account limits: a job start refused
 * with 429 (too many jobs in progress) is waited out and made again with the
 * same fileKey — no second upload, no file failed however often it is
 * refused — and a cancel during that wait ends it at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UserAbortError, type JobRecord } from '@pfc/core';
import { clientFor, sample, startWebEmulator, type Emulator } from './webapi-fixtures';

const JPEG = sample('objects/coffee.jpg');
let emu: Emulator | undefined;
afterEach(() => emu?.close());

const requests = (e: Emulator, route: string) => e.stats().requests[route] ?? 0;

/** Real waits, but none longer than 30 ms: a Retry-After of 1 s costs the test nothing. */
const shortSleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  const onAbort = () => (clearTimeout(t), reject(new UserAbortError()));
  const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), Math.min(ms, 30));
  signal?.addEventListener('abort', onAbort, { once: true });
});

describe('a job start refused for the account limit', () => {
  it('is started again with the same upload, more often than maxRetries, and the file is corrected', async () => {
    emu = await startWebEmulator({ accountLimits: { jobsInProgress: 1 }, processingMs: 400, workers: 4 });
    const client = clientFor(emu, { maxRetries: 1, sleep: shortSleep });
    const results = await Promise.all([
      client.correctBytes(JPEG, { width: 64, cache: false }),
      client.correctBytes(JPEG, { width: 48, cache: false }),
      client.correctBytes(JPEG, { width: 32, cache: false }),
    ]);
    expect(results.map((r) => (r.job as JobRecord).status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    const refused = emu.stats().accountLimits.jobs;
    // Two files wait behind a 400 ms job in 30 ms steps: far more refusals than the one retry allowed.
    expect(refused).toBeGreaterThan(2);
    // Each file uploaded once; every start after a refusal named an upload already made.
    expect(requests(emu, 'upload')).toBe(3);
    expect(requests(emu, 'upload.put')).toBe(3);
    expect(requests(emu, 'pfc')).toBe(3 + refused);
  });

  it('gives its job slot back while it waits, marked refused, and asks for one again', async () => {
    emu = await startWebEmulator({ accountLimits: { jobsInProgress: 1 }, processingMs: 300, workers: 4 });
    const client = clientFor(emu, { sleep: shortSleep });
    const first = await client.correctBytes(JPEG, { width: 64, cache: false }, {});
    expect(first.job?.status).toBe('COMPLETED');
    // Hold the account's one job, then correct another file through a slot.
    const blocker = await client.jobs.start({ fileKey: String(first.info.fileKey), width: 32, cache: false });
    const outcomes: (string | undefined)[] = [];
    const done = client.correctBytes(JPEG, { width: 48, cache: false }, {
      jobSlot: async () => (outcome) => outcomes.push(outcome),
    });
    const result = await done;
    expect(result.job?.status).toBe('COMPLETED');
    await client.jobs.wait(blocker);
    expect(outcomes.length).toBeGreaterThan(1);
    expect(outcomes.slice(0, -1).every((o) => o === 'refused')).toBe(true);
    expect(outcomes.at(-1)).toBeUndefined();
    expect(requests(emu, 'upload.put')).toBe(2);
  });

  it('a status poll refused with 429 more often than maxRetries is polled again, and the job completes', async () => {
    emu = await startWebEmulator({ processingMs: 200 });
    emu.setFaults({ routes: { status: { rate429: 1, count: 5, retryAfterSeconds: 1 } } });
    const client = clientFor(emu, { maxRetries: 1, sleep: shortSleep });
    const { job } = await client.correctBytes(JPEG, { width: 40, cache: false });
    expect(job?.status).toBe('COMPLETED');
    expect(emu.stats().faults['429']).toBe(5);
    expect(requests(emu, 'upload.put')).toBe(1);
  });

  it('ends at once with UserAbortError when cancelled during the wait', async () => {
    emu = await startWebEmulator({ accountLimits: { jobsInProgress: 1 }, processingMs: 60_000, workers: 2 });
    const refusedWaits: number[] = [];
    // The wait after a refusal ends only by its signal: a cancel that does not reach it hangs the test.
    const client = clientFor(emu, {
      sleep: (ms, signal) => new Promise<void>((_resolve, reject) => {
        refusedWaits.push(ms);
        signal?.addEventListener('abort', () => reject(new UserAbortError()), { once: true });
      }),
    });
    const key = await client.uploads.upload(JPEG, { contentType: 'image/jpeg', size: JPEG.byteLength });
    await client.jobs.start({ fileKey: key, cache: false });
    const ctrl = new AbortController();
    const pending = client.correctBytes(JPEG, { width: 48, cache: false }, { signal: ctrl.signal });
    // Cancelled once the client is in its wait (the emulator counts the refusal before the client has read it).
    while (refusedWaits.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(emu.stats().accountLimits.jobs).toBe(1);
    ctrl.abort();
    await expect(pending).rejects.toBeInstanceOf(UserAbortError);
    expect(refusedWaits.length).toBe(1);
    expect(refusedWaits[0]).toBeGreaterThanOrEqual(1000); // the service's Retry-After: 1
  });
});
