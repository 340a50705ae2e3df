/** Expiry of result URLs and of upload addresses, with an injected clock (no waiting). */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, emulator, H, handClock, json, runJob, startJob, upload, waitFor, xmlError } from './helpers';

afterEach(closeAll);

const MIN = 60_000;

const clock = () => handClock();

describe('result retention', () => {
  it('a result is public until the retention passes, then 410 (storage XML), and its file is deleted by the sweep', async () => {
    const c = clock();
    const emu = await emulator({ now: c.now });
    const r = await runJob(emu.web, COFFEE);
    const name = r.correctedFile!.split('/').pop()!;
    const onDisk = join(emu.dataDir, 'outputs', name);
    const ok = await fetch(r.correctedFile!);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toMatch(/max-age=86\d\d\d/);
    const head = await fetch(r.correctedFile!, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, ok.headers.get('content-length')]);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect(existsSync(onDisk)).toBe(true);

    c.advance(24 * 60 * MIN - 1000);
    expect((await fetch(r.correctedFile!)).status).toBe(200);
    c.advance(2000);
    const gone = await fetch(r.correctedFile!);
    expect(gone.status).toBe(410);
    expect((await xmlError(gone)).message).toMatch(/expired .* 1440 minutes/);
    await emu.sweep();
    expect(existsSync(onDisk)).toBe(false);
    // The job record still points at it; following the 302 meets the 410.
    expect((await fetch(r.correctedFile!.replace(/results\/.*/, 'results/x.jpg'))).status).toBe(404);
  });

  it('honours --retention-minutes, and the cache never serves an expired output', async () => {
    const c = clock();
    const emu = await emulator({ now: c.now, retentionMinutes: 1 });
    const a = await runJob(emu.web, COFFEE);
    c.advance(61_000);
    expect((await fetch(a.correctedFile!)).status).toBe(410);
    const b = await runJob(emu.web, COFFEE);
    expect((await fetch(b.correctedFile!)).status).toBe(200);
    expect(emu.stats().jobs).toMatchObject({ pipelineRuns: 2, cacheHits: 0 });
  });

  it('uploaded files are kept 7 days (reusable as bgFileKey), then forgotten', async () => {
    const c = clock();
    const emu = await emulator({ now: c.now });
    const fileKey = await upload(emu.web, COFFEE);
    c.advance(7 * 24 * 60 * MIN - MIN);
    expect((await waitFor(await startJob(emu.web, { fileKey }))).status).toBe('COMPLETED');
    c.advance(2 * MIN);
    await emu.sweep();
    expect(readdirSync(join(emu.dataDir, 'uploads'))).not.toContain(fileKey);
    const res = await fetch(`${emu.web}/pfc?fileKey=${fileKey}`, { headers: H });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatch(/unknown to this API key \(or past its retention\)/);
  });
});

describe('upload address expiry', () => {
  it('a pre-signed PUT works within its lifetime and answers 403 after', async () => {
    const c = clock();
    const emu = await emulator({ now: c.now, uploadUrlTtlSeconds: 600 });
    const t = await json<{ uploadUrl: string }>(await fetch(`${emu.web}/upload`, { headers: H }));
    c.advance(599_000);
    expect((await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE })).status).toBe(200);
    c.advance(2_000);
    const late = await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE });
    expect(late.status).toBe(403);
    expect(await xmlError(late)).toMatchObject({ code: 'AccessDenied', message: 'Request has expired' });
  });
});
