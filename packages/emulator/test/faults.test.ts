/** Fault injection from options and from the control route; stats. */
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, emulator, H, json, runJob, startJob, status, upload, waitFor } from './helpers';

afterEach(closeAll);

const control = (web: string): string => web.replace(/\/v2$/, '/_emulator');
const setFaults = async (web: string, body: unknown): Promise<Response> =>
  fetch(`${control(web)}/faults`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('route faults', () => {
  it('429 with Retry-After for `count` requests, then normal answers', async () => {
    // Each request waits the Retry-After it was given (the clock is moved; an early retry is held: spec-guards-retry-after).
    let t = Date.now();
    const emu = await emulator({ control: true, now: () => t });
    const set = await setFaults(emu.web, { routes: { upload: { rate429: 1, retryAfterSeconds: 7, count: 2 } } });
    expect(set.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${emu.web}/upload`, { headers: H });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect((await json(res)).error).toMatch(/rate limit/);
      t += 7000;
    }
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(200);
    expect(emu.stats().faults['429']).toBe(2);
    expect(emu.stats().requests.upload).toBe(3);
  });

  it('500 and 503 (with Retry-After) by path patterns', async () => {
    const emu = await emulator({ control: true, faults: { routes: { '/status/*': { rate503: 1, count: 1 }, 'GET /v2/pfc': { rate500: 1, count: 1 } } } });
    const fileKey = await upload(emu.web, COFFEE);
    const pfc = await fetch(`${emu.web}/pfc?fileKey=${fileKey}`, { headers: H });
    expect(pfc.status).toBe(500);
    const ep = await startJob(emu.web, { fileKey });
    const st = await fetch(ep);
    expect(st.status).toBe(503);
    expect(st.headers.get('retry-after')).toBe('1');
    expect((await waitFor(ep)).status).toBe('COMPLETED');
  });

  it('drops connections without an answer', async () => {
    const emu = await emulator({ control: true });
    emu.setFaults({ routes: { upload: { dropRate: 1, count: 1 } } });
    await expect(fetch(`${emu.web}/upload`, { headers: H })).rejects.toThrow();
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(200);
    expect(emu.stats().faults.drop).toBe(1);
  });

  it('adds latency', async () => {
    const emu = await emulator({ control: true, faults: { routes: { upload: { latencyMs: 150 } } } });
    const t = Date.now();
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
    expect(emu.stats().faults.latency).toBe(1);
  });

  it('is repeatable with a seed', async () => {
    let t = Date.now();
    const emu = await emulator({ control: true, now: () => t });
    const run = async (): Promise<number[]> => {
      await setFaults(emu.web, { seed: 42, routes: { '*': { rate429: 0.5 } } });
      const out: number[] = [];
      // One request a Retry-After (1 s) apart, so every one is a fresh draw.
      for (let i = 0; i < 20; i++, t += 1000) out.push((await fetch(`${emu.web}/upload`, { headers: H })).status);
      return out;
    };
    const a = await run();
    expect(await run()).toEqual(a);
    expect(a).toContain(429);
    expect(a).toContain(200);
  });

  it('never touches the control routes, and a DELETE clears the faults', async () => {
    const emu = await emulator({ control: true, faults: { routes: { '*': { rate500: 1 } } } });
    expect((await fetch(`${control(emu.web)}/stats`, { headers: H })).status).toBe(200);
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(500);
    expect(await json(await fetch(`${control(emu.web)}/faults`, { method: 'DELETE', headers: H }))).toEqual({});
    expect((await fetch(`${emu.web}/upload`, { headers: H })).status).toBe(200);
  });

  it('answers 400 naming the field for an invalid configuration', async () => {
    const emu = await emulator({ control: true });
    for (const [body, message] of [
      [{ routes: { upload: { rate429: 2 } } }, /rate429 must be a share from 0 to 1/],
      [{ routes: { upload: { rate429: 0.6, rate500: 0.6 } } }, /add up to more than 1/],
      [{ routes: { upload: { nonsense: 1 } } }, /unknown field "nonsense"/],
      [{ jobs: { failRate: -1 } }, /failRate must be a number >= 0/],
      [{ seed: 1.5 }, /seed must be an integer/],
      [[1, 2], /must be a JSON object/],
    ] as const) {
      const res = await setFaults(emu.web, body);
      expect(res.status).toBe(400);
      expect((await json(res)).error).toMatch(message);
    }
    expect(() => emu.setFaults({ routes: { x: { latencyMs: 1e9 } } })).toThrow(/latencyMs must be at most 600000/);
  });
});

describe('job faults', () => {
  it('FAILED and REJECTED jobs with an injected-fault status text, then normal jobs', async () => {
    const emu = await emulator({ control: true });
    await setFaults(emu.web, { jobs: { failRate: 1, count: 1 } });
    const failed = await runJob(emu.web, COFFEE);
    expect([failed.status, failed.statusText]).toEqual(['FAILED', 'processing failed (injected fault)']);
    expect(failed.code).toBe(500);
    await setFaults(emu.web, { jobs: { rejectRate: 1, count: 1 } });
    const rejected = await runJob(emu.web, COFFEE);
    expect([rejected.status, rejected.statusText]).toEqual(['REJECTED', 'job rejected (injected fault)']);
    expect((await runJob(emu.web, COFFEE)).status).toBe('COMPLETED');
    expect(emu.stats().faults).toMatchObject({ jobFail: 1, jobReject: 1 });
    expect(emu.stats().jobs.byState).toMatchObject({ FAILED: 1, REJECTED: 1, COMPLETED: 1 });
  });

  it('a hanging job stays PROCESSING while later jobs complete, and close() still returns', async () => {
    const emu = await emulator({ control: true, workers: 2, faults: { jobs: { hangRate: 1, count: 1 } } });
    const hung = await startJob(emu.web, { fileKey: await upload(emu.web, COFFEE) });
    expect((await runJob(emu.web, COFFEE)).status).toBe('COMPLETED');
    expect((await runJob(emu.web, COFFEE)).status).toBe('COMPLETED');
    expect((await status(hung)).status).toBe('PROCESSING');
    expect(emu.stats().faults.jobHang).toBe(1);
    await emu.close();
  });
});

describe('stats', () => {
  it('counts requests per route and answers per status, and resets', async () => {
    const emu = await emulator({ control: true });
    await runJob(emu.web, COFFEE);
    await fetch(`${emu.web}/nowhere`);
    const s = await json<{ requests: Record<string, number>; responses: Record<string, number>; jobs: { total: number } }>(await fetch(`${control(emu.web)}/stats`, { headers: H }));
    expect(s.requests).toMatchObject({ upload: 1, 'upload.put': 1, pfc: 1, unrouted: 1 });
    expect(s.requests.status).toBeGreaterThanOrEqual(1);
    expect(s.responses['404']).toBe(1);
    expect(s.jobs.total).toBe(1);
    const reset = await json<{ requests: Record<string, number> }>(await fetch(`${control(emu.web)}/stats`, { method: 'DELETE', headers: H }));
    expect(reset.requests).toEqual({});
  });
});

describe('job time limit', () => {
  it('ends a job stuck in PROCESSING FAILED at --job-timeout-ms and frees its worker for the next job', async () => {
    // Engine-less (geometry and encoding only): the next job must finish within the limit on a loaded machine too.
    const emu = await emulator({ control: true, workers: 1, jobTimeoutMs: 1500, engine: {}, faults: { jobs: { hangRate: 1, count: 1 } } });
    const hung = await startJob(emu.web, { fileKey: await upload(emu.web, COFFEE) });
    // One worker: the next job can only run once the stuck one has let go of it.
    const next = await startJob(emu.web, { fileKey: await upload(emu.web, COFFEE) });
    expect((await status(next)).status).toBe('PENDING');
    const ended = await waitFor(hung);
    expect(ended).toMatchObject({ status: 'FAILED', code: 504 });
    expect(ended.statusText).toMatch(/timed out.*1\.5 s/);
    // Not before the limit; the timer runs on the monotonic clock and timeTaken on Date.now, which may differ by a millisecond.
    expect(ended.timeTaken).toBeGreaterThanOrEqual(1.49);
    expect((await waitFor(next)).status).toBe('COMPLETED');
    expect(emu.stats().jobs.byState).toMatchObject({ FAILED: 1, COMPLETED: 1 });
  });

  it('leaves jobs within the limit alone, and 0 turns it off', async () => {
    const emu = await emulator({ control: true, workers: 1, jobTimeoutMs: 5_000, processingMs: 50 });
    expect((await runJob(emu.web, COFFEE)).status).toBe('COMPLETED');
    const off = await emulator({ control: true, workers: 1, jobTimeoutMs: 0, faults: { jobs: { hangRate: 1, count: 1 } } });
    const hung = await startJob(off.web, { fileKey: await upload(off.web, COFFEE) });
    await new Promise((r) => setTimeout(r, 200));
    expect((await status(hung)).status).toBe('PROCESSING');
  });
});
