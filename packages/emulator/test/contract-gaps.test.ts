/**
 * Promises of the emulator that no other test held it to (found by hand
 * mutation: each test here failed with the emulator broken in the way its
 * name says). Plain fetch over HTTP, as a user's script would call it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBgrServer } from '../src/bgr/server';
import { createContainerServer } from '../src/container/server';
import type { EmulatorHandle } from '../src/index';
import { closeAll, COFFEE, emulator, H, json, runJob, startJob, status, upload, waitFor } from './helpers';

let emu: EmulatorHandle;
let web: string;
beforeAll(async () => {
  emu = await emulator();
  web = emu.web;
});
afterAll(closeAll);

/** Bytes that are no image or video (a text file sent by mistake). */
const TEXT = Buffer.from('this is a text file, not an image\n'.repeat(8));

async function pfc(query: Record<string, string>): Promise<{ status: number; body: { error?: string; statusEndpoint?: string } }> {
  const res = await fetch(`${web}/pfc?${new URLSearchParams(query)}`, { headers: H });
  return { status: res.status, body: await json(res) };
}

describe('GET /upload (observed behaviour #1)', () => {
  it('answers the address under both spellings, upload_url and uploadUrl, with the same value', async () => {
    const res = await fetch(`${web}/upload`, { headers: H });
    expect(res.status).toBe(200);
    const t = await json<{ fileKey: string; uploadUrl: string; upload_url: string }>(res);
    expect(t.upload_url).toBe(t.uploadUrl);
    expect(t.upload_url).toMatch(new RegExp(`^${emu.storage}/uploads/${t.fileKey}\\?`));
  });
});

describe('correctedFile', () => {
  it('is served only under its own extension: the same id with another extension is 404', async () => {
    const r = await runJob(web, COFFEE);
    expect(r.correctedFile).toMatch(/\.jpg$/);
    expect((await fetch(r.correctedFile!)).status).toBe(200);
    expect((await fetch(r.correctedFile!.replace(/\.jpg$/, '.png'))).status).toBe(404);
  });
});

describe('job record timing and early fields', () => {
  it('updatedAt moves when the job ends: COMPLETED updatedAt is createdAt plus at least the processing time', async () => {
    const slow = await emulator({ processingMs: 400 });
    const r = await waitFor(await startJob(slow.web, { fileKey: await upload(slow.web, COFFEE) }));
    expect(r.status).toBe('COMPLETED');
    expect(Date.parse(r.updatedAt) - Date.parse(r.createdAt)).toBeGreaterThanOrEqual(350);
    expect(r.timeTaken).toBeGreaterThanOrEqual(0.35);
  });

  it('a PENDING record already has originalDimensions and usage.size read from the upload (LARGE above 12 MP)', async () => {
    const busy = await emulator({ workers: 1, processingMs: 60_000 });
    await startJob(busy.web, { fileKey: await upload(busy.web, COFFEE) });
    const large = (await sharp({ create: { width: 4000, height: 3001, channels: 3, background: '#808080' } }).png().toBuffer()) as Buffer<ArrayBuffer>;
    const ep = await startJob(busy.web, { fileKey: await upload(busy.web, large) });
    const r = await status(ep);
    expect(r.status).toBe('PENDING');
    expect(r.originalDimensions).toEqual({ width: 4000, height: 3001 });
    expect(r.usage.size).toBe('LARGE');
  });
});

describe('cache (identical settings only)', () => {
  it('a preset whose file was replaced is not served from the cache of the old file', async () => {
    const e = await emulator();
    const created = await fetch(`${e.web}/presets/`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Swap', description: '' }) });
    const { uploadUrl } = await json<{ uploadUrl: string }>(created);
    expect((await fetch(uploadUrl, { method: 'PUT', body: Buffer.from('<preset name="Swap"><exposure>0.3</exposure></preset>') })).status).toBe(200);
    const fileKey = await upload(e.web, COFFEE);
    expect((await waitFor(await startJob(e.web, { fileKey, preset: 'Swap' }))).status).toBe('COMPLETED');
    expect(e.stats().jobs).toMatchObject({ pipelineRuns: 1, cacheHits: 0 });
    // Same file, same name, same image and parameters: a cache hit.
    expect((await waitFor(await startJob(e.web, { fileKey, preset: 'Swap' }))).status).toBe('COMPLETED');
    expect(e.stats().jobs).toMatchObject({ pipelineRuns: 1, cacheHits: 1 });
    // Another file under the same name: the settings differ, so the pipeline runs again.
    expect((await fetch(uploadUrl, { method: 'PUT', body: Buffer.from('<preset name="Swap"><exposure>-0.5</exposure></preset>') })).status).toBe(200);
    expect((await waitFor(await startJob(e.web, { fileKey, preset: 'Swap' }))).status).toBe('COMPLETED');
    expect(e.stats().jobs).toMatchObject({ pipelineRuns: 2, cacheHits: 1 });
  });
});

describe('DELETE /presets/{presetId}', () => {
  it('deletes the preset file too: nothing of it is left in the data folder', async () => {
    const e = await emulator();
    const created = await fetch(`${e.web}/presets/`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Gone', description: '' }) });
    const { presetId, uploadUrl } = await json<{ presetId: string; uploadUrl: string }>(created);
    expect((await fetch(uploadUrl, { method: 'PUT', body: Buffer.from('<preset/>') })).status).toBe(200);
    expect(readdirSync(join(e.dataDir, 'presets'))).toEqual([`${presetId}.preset`]);
    expect((await fetch(`${e.web}/presets/${presetId}`, { method: 'DELETE', headers: H })).status).toBe(200);
    expect(readdirSync(join(e.dataDir, 'presets'))).toEqual([]);
  });
});

describe('fileKey-like parameters must name an uploaded JPEG or PNG', () => {
  it('bgFileKey naming a file that is no image → 400 naming bgFileKey; no job', async () => {
    const fileKey = await upload(web, COFFEE);
    const bgFileKey = await upload(web, TEXT);
    const r = await pfc({ fileKey, removeBackground: 'true', bgFileKey });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/bgFileKey/);
    expect(r.body.statusEndpoint).toBeUndefined();
  });

  it('aiArtReferenceFileKey naming a file that is no image → 400 naming it; no job', async () => {
    const fileKey = await upload(web, COFFEE);
    const ref = await upload(web, TEXT);
    const r = await pfc({ fileKey, aiArt: 'oilPainting', aiArtReferenceFileKey: ref });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/aiArtReferenceFileKey/);
    expect(r.body.statusEndpoint).toBeUndefined();
  });
});

const solid = async (w: number, h: number): Promise<Buffer<ArrayBuffer>> =>
  (await sharp({ create: { width: w, height: h, channels: 3, background: '#808080' } }).png().toBuffer()) as Buffer<ArrayBuffer>;

describe('documented limits at their edges', () => {
  it('the planned output is held to the pixel limit too: an enlargement past it is REJECTED before any work', async () => {
    const e = await emulator({ limits: { maxImagePixels: 1_000_000 } });
    const r = await runJob(e.web, COFFEE, { width: 2000 });
    expect(r.status).toBe('REJECTED');
    expect(r.statusText).toMatch(/the output would be 2000x1333/);
    expect(r.correctedFile).toBeUndefined();
  });

  it('background removal: a larger output is resized to the longest side allowed', async () => {
    const e = await emulator({ limits: { maxBackgroundOutputSide: 300 } });
    const r = await runJob(e.web, COFFEE, { removeBackground: true });
    expect(r.status).toBe('COMPLETED');
    expect(r.outputDimensions).toEqual({ width: 300, height: 200 });
  });

  it('"aspect ratio below 21:1": exactly 21:1 is REJECTED, just under it runs', async () => {
    const at = await runJob(web, await solid(2100, 100));
    expect(at.status).toBe('REJECTED');
    expect(at.statusText).toMatch(/aspect ratio must be below 21:1/);
    expect(at.correctedFile).toBeUndefined();
    expect((await runJob(web, await solid(2099, 100))).status).toBe('COMPLETED');
  });

  it('AI upscaling needs "at least 64 pixels on the shorter side": 63 is REJECTED naming it, 64 is enlarged', async () => {
    const small = await runJob(web, await solid(63, 80), { width: 126 });
    expect(small.status).toBe('REJECTED');
    expect(small.statusText).toMatch(/AI upscaling needs at least 64 pixels on the shorter side/);
    const edge = await runJob(web, await solid(64, 80), { width: 128 });
    expect(edge.status).toBe('COMPLETED');
    expect(edge.outputDimensions).toEqual({ width: 128, height: 160 });
    expect(edge.usage.imageResizeCount).toBe(1);
  });
});

describe('BGR CheckImage: processing_time only when completed, error only when failed', () => {
  it('queued and processing records carry neither; a completed one has processing_time, a failed one error', async () => {
    const LICENCE = 'BGR-LIC-gaps';
    const s = await createBgrServer({ licenseKey: LICENCE });
    try {
      await fetch(`${s.url}/Authorize/${LICENCE}`);
      const submit = async (): Promise<string> => {
        const form = new FormData();
        form.append('file', new Blob([COFFEE], { type: 'image/jpeg' }), 'coffee.jpg');
        const res = await fetch(`${s.url}/SubmitImage`, { method: 'POST', body: form });
        expect(res.status).toBe(200);
        return (await json<{ process_id: string }>(res)).process_id;
      };
      const check = async (id: string): Promise<Record<string, unknown>> => json(await fetch(`${s.url}/CheckImage/${id}`));
      const done = await submit();
      await s.idle();
      const completed = await check(done);
      expect(completed).toMatchObject({ status: 'completed', processing_time: expect.any(Number) });
      expect(completed).not.toHaveProperty('error');

      s.hold();
      const a = await submit();
      const b = await submit();
      await expect.poll(async () => (await check(a)).status).toBe('processing');
      const processing = await check(a);
      const queued = await check(b);
      expect(queued.status).toBe('queued');
      for (const r of [processing, queued]) {
        expect(r).not.toHaveProperty('processing_time');
        expect(r).not.toHaveProperty('error');
      }
      s.deactivate();
      s.release();
      await s.idle();
      const failed = await check(b);
      expect(failed).toMatchObject({ status: 'failed', error: expect.any(String) });
      expect(failed).not.toHaveProperty('processing_time');
    } finally {
      await s.close();
    }
  });
});

describe('BGR DownloadImage of a job removed while the download is held', () => {
  it('answers 404 (processed image not found), not 202 "still processing"', async () => {
    const LICENCE = 'BGR-LIC-gaps2';
    const s = await createBgrServer({ licenseKey: LICENCE, downloadHoldMs: 5_000, processingHeartbeatMs: 50 });
    try {
      await fetch(`${s.url}/Authorize/${LICENCE}`);
      s.hold();
      const form = new FormData();
      form.append('file', new Blob([COFFEE], { type: 'image/jpeg' }), 'coffee.jpg');
      const id = (await json<{ process_id: string }>(await fetch(`${s.url}/SubmitImage`, { method: 'POST', body: form }))).process_id;
      const download = fetch(`${s.url}/DownloadImage/${id}`);
      await new Promise((r) => setTimeout(r, 100));
      expect((await fetch(`${s.url}/RemoveImage/${id}`, { method: 'DELETE' })).status).toBe(200);
      const res = await download;
      expect(res.status).toBe(404);
      s.release();
    } finally {
      await s.close();
    }
  });
});

describe('colour container: corrected_url and the output name', () => {
  it('corrected_url is built from the site base address (PFC_SITE_URL) plus /output/<file>', async () => {
    const s = await createContainerServer({ engine: {}, siteUrl: 'http://photos.example:8080' });
    try {
      const put = await fetch(`${s.url}/pfc`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: COFFEE });
      const { imageKey } = await json<{ imageKey: string }>(put);
      const r = await fetch(`${s.url}/pfc/${imageKey}`);
      expect(r.status).toBe(200);
      const body = await json<{ corrected_url: string }>(r);
      expect(body.corrected_url).toMatch(/^http:\/\/photos\.example:8080\/output\/[0-9a-f-]{36}\.jpg$/);
    } finally {
      await s.close();
    }
  });

  it('the preserveInputFileName query parameter reuses the image key as the output name; without it a new name', async () => {
    const s = await createContainerServer({ engine: {} });
    try {
      const put = await fetch(`${s.url}/pfc`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: COFFEE });
      const { imageKey } = await json<{ imageKey: string }>(put);
      const kept = await json<{ corrected_url: string }>(await fetch(`${s.url}/pfc/${imageKey}?preserveInputFileName=true`));
      expect(kept.corrected_url).toBe(`http://localhost/output/${imageKey}`);
      expect((await fetch(`${s.url}/output/${imageKey}`)).status).toBe(200);
      const fresh = await json<{ corrected_url: string }>(await fetch(`${s.url}/pfc/${imageKey}?preserveInputFileName=false`));
      expect(fresh.corrected_url).toMatch(/^http:\/\/localhost\/output\/[0-9a-f-]{36}\.jpg$/);
      expect(fresh.corrected_url).not.toBe(kept.corrected_url);
    } finally {
      await s.close();
    }
  });
});
