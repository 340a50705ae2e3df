/**
 * Spec guards: an injected `Retry-After` holds. observed-behaviour.md tells
 * clients to treat 429 and 5xx as retryable and to honour `Retry-After`; a
 * simulated host that answers an immediate retry normally lets a client that
 * ignores the header pass every test. Here a retry before the time has passed
 * gets the same answer again (counted as `earlyRetry`). Clocks are injected:
 * no assertion depends on how long anything takes.
 */
import { WebApiClient } from '@pfc/core';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, emulator, H, handClock, json, KEY, startJob, upload, waitFor } from './helpers';

afterEach(closeAll);

const clock = () => handClock(Date.parse('2026-01-01T00:00:00.000Z'));

describe('a retry before the Retry-After of an injected 429 has passed', () => {
  it('is answered 429 again with the time left, even after the rule’s count is used up; on time it succeeds', async () => {
    const c = clock();
    const emu = await emulator({ control: true, now: c.now, faults: { routes: { upload: { rate429: 1, count: 1, retryAfterSeconds: 30 } } } });
    const first = await fetch(`${emu.web}/upload`, { headers: H });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('30');

    c.advance(10_000);
    const early = await fetch(`${emu.web}/upload`, { headers: H });
    expect(early.status).toBe(429);
    expect(early.headers.get('retry-after')).toBe('20');
    expect(early.headers.get('access-control-allow-origin')).toBe('*');
    expect((await json(early)).error).toMatch(/rate limit exceeded: retried before the Retry-After/);

    c.advance(20_000);
    const onTime = await fetch(`${emu.web}/upload`, { headers: H });
    expect(onTime.status).toBe(200);
    expect(emu.stats().faults).toMatchObject({ '429': 1, earlyRetry: 1 });
  });

  it('holds per API key: another key is not held back', async () => {
    const c = clock();
    const emu = await emulator({ apiKeys: [KEY, 'second-key'], control: true, now: c.now, faults: { routes: { upload: { rate429: 1, count: 1, retryAfterSeconds: 5 } } } });
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(429);
    expect((await fetch(`${emu.web}/upload`, { headers: { 'X-API-KEY': 'second-key' } })).status).toBe(200);
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(429);
  });

  it('retryAfterSeconds 0 holds nothing', async () => {
    const emu = await emulator({ control: true, faults: { routes: { upload: { rate429: 1, count: 1, retryAfterSeconds: 0 } } } });
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(429);
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(200);
    expect(emu.stats().faults.earlyRetry).toBe(0);
  });

  it('setting new faults clears the holds', async () => {
    const c = clock();
    const emu = await emulator({ control: true, now: c.now, faults: { routes: { upload: { rate429: 1, count: 1, retryAfterSeconds: 60 } } } });
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(429);
    emu.setFaults({});
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(200);
  });
});

describe('a 503 with Retry-After on the keyless status poll (observed behaviour #4)', () => {
  it('holds the status route until the time passes; then the job is there', async () => {
    const c = clock();
    const emu = await emulator({ control: true, now: c.now });
    const ep = await startJob(emu.web, { fileKey: await upload(emu.web, COFFEE) });
    emu.setFaults({ routes: { status: { rate503: 1, count: 1, retryAfterSeconds: 4 } } });
    const polled = new URL(ep);
    polled.searchParams.set('noRedirect', 'true');
    expect((await fetch(polled)).status).toBe(503);
    const early = await fetch(polled);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('4');
    c.advance(4_000);
    expect((await waitFor(ep)).status).toBe('COMPLETED');
    expect(emu.stats().faults).toMatchObject({ '503': 1, earlyRetry: 1 });
  });
});

describe('the product client against the hold', () => {
  it('@pfc/core WebApiClient waits the Retry-After it is given: no early retry, the job completes', async () => {
    const emu = await emulator({ control: true, faults: { routes: { upload: { rate429: 1, count: 1, retryAfterSeconds: 1 }, status: { rate503: 1, count: 1, retryAfterSeconds: 1 } } } });
    const client = new WebApiClient({ apiKey: KEY, baseURL: emu.web, poll: { initialDelayMs: 20, factor: 1.5, maxDelayMs: 250 } });
    const { job } = await client.correctBytes(new Uint8Array(COFFEE), { width: 64 });
    expect(job?.status).toBe('COMPLETED');
    expect(emu.stats().faults).toMatchObject({ '429': 1, '503': 1, earlyRetry: 0 });
  });
});
