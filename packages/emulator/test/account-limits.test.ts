/** Account limits: per key, jobs in progress and requests per second, answered 429 + Retry-After; the core client adapts. */
import { WebApiClient } from '@pfc/core';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, emulator, H, json, upload, waitFor } from './helpers';

afterAll(closeAll);

describe('account limits', () => {
  it('a key over its jobs in progress gets 429 + Retry-After; other keys do not; a finished job frees the slot', async () => {
    const emu = await emulator({ apiKeys: ['test-key', 'other-key'], accountLimits: { jobsInProgress: 2 }, processingMs: 400, workers: 1 });
    const fileKey = await upload(emu.web, COFFEE);
    // A fileKey belongs to the key that asked for its ticket: the other key uploads its own.
    const ticket = await json<{ fileKey: string; uploadUrl: string }>(await fetch(`${emu.web}/upload`, { headers: { 'X-API-KEY': 'other-key' } }));
    await fetch(ticket.uploadUrl, { method: 'PUT', body: COFFEE });
    const keys: Record<string, string> = { 'test-key': fileKey, 'other-key': ticket.fileKey };
    const start = (key = 'test-key') => fetch(`${emu.web}/pfc?fileKey=${keys[key]}&cache=false`, { headers: { 'X-API-KEY': key } });
    const first = await json<{ statusEndpoint: string }>(await start());
    expect((await start()).status).toBe(200);
    const third = await start();
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect((await json(third)).error).toMatch(/2 jobs in progress/);
    expect((await start('other-key')).status).toBe(200);
    await waitFor(first.statusEndpoint);
    expect((await start()).status).toBe(200);
    expect(emu.stats().accountLimits.jobs).toBe(1);
  });

  it('a key over its requests per second gets 429 + Retry-After until its bucket refills', async () => {
    let t = Date.now();
    const emu = await emulator({ accountLimits: { requestsPerSecond: 3 }, now: () => t });
    const ticket = () => fetch(`${emu.web}/upload`, { headers: H });
    for (let i = 0; i < 3; i++) expect((await ticket()).status).toBe(200);
    const over = await ticket();
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('1');
    expect((await json(over)).error).toMatch(/3 requests per second/);
    // Keyless routes (status) are not counted against the key.
    t += 400; // 1.2 tokens back
    expect((await ticket()).status).toBe(200);
    expect((await ticket()).status).toBe(429);
    t += 1000;
    expect((await ticket()).status).toBe(200);
    expect(emu.stats().accountLimits.requests).toBe(2);
  });

  it('the core client corrects a batch wider than the limit: it waits out the 429s', async () => {
    const emu = await emulator({ accountLimits: { jobsInProgress: 1, requestsPerSecond: 20 }, processingMs: 100 });
    const client = new WebApiClient({ apiKey: 'test-key', baseURL: emu.web, poll: { initialDelayMs: 20, factor: 1.5, maxDelayMs: 200 } });
    const results = await Promise.all([0, 1, 2].map((i) => client.correctBytes(COFFEE, { width: 64 + i, cache: false })));
    for (const r of results) expect(r.job?.status).toBe('COMPLETED');
    expect(emu.stats().responses['429']).toBeGreaterThan(0);
  });
});
