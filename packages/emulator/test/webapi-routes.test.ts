/** Route behaviour of the Web API: fields and types, 302 vs noRedirect, CORS, 401, 400, 404/405, signed PUTs. */
import { JOB_STATES, type JobRecord } from '@pfc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../src/index';
import { closeAll, COFFEE, emulator, H, json, runJob, startJob, upload, waitFor } from './helpers';

let emu: EmulatorHandle;
let web: string;
beforeAll(async () => {
  emu = await emulator();
  web = emu.web;
});
afterAll(closeAll);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('job record', () => {
  it('has every documented field with the documented type', async () => {
    const r = await runJob(web, COFFEE, { width: 300 });
    expect(r.status).toBe('COMPLETED');
    expect(r._id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.statusText).toBe('');
    expect(r.code).toBe(0);
    expect(r.correctedFile).toMatch(new RegExp(`^${emu.storage}/results/[0-9a-f-]{36}\\.jpg$`));
    expect(r.createdAt).toMatch(ISO_MS);
    expect(r.updatedAt).toMatch(ISO_MS);
    expect(Date.parse(r.updatedAt)).toBeGreaterThanOrEqual(Date.parse(r.createdAt));
    expect(typeof r.aiserver).toBe('boolean');
    expect(typeof r.timeTaken).toBe('number');
    expect(r.timeTaken).toBeGreaterThanOrEqual(0);
    expect(r.originalDimensions).toEqual({ width: 600, height: 400 });
    expect(r.outputDimensions).toEqual({ width: 300, height: 200 });
    expect(r).not.toHaveProperty('detectionData');
    expect(r).not.toHaveProperty('autoCrop');
    expect(Object.keys(r.usage).sort()).toEqual(
      ['autoCropCount', 'classicResizeCount', 'glaresDetectorCount', 'imageCorrectionCount', 'imageResizeCount', 'removeBackgroundCount', 'removeGlaresCount', 'removeGlaresTotalCount', 'size', 'videoCorrectionCount'].sort(),
    );
    expect(r.usage.size).toBe('MEDIUM');
    for (const [k, v] of Object.entries(r.usage)) if (k !== 'size') expect(Number.isInteger(v), k).toBe(true);
    expect(r.usage.imageCorrectionCount).toBe(1);
    expect(r.usage.classicResizeCount).toBe(1);
  });

  it('passes through PENDING/PROCESSING with the same shape before COMPLETED', async () => {
    const slow = await emulator({ processingMs: 300 });
    const ep = await startJob(slow.web, { fileKey: await upload(slow.web, COFFEE) });
    const seen = new Set<string>();
    const r = await waitFor(ep, (x) => {
      seen.add(x.status);
      expect(JOB_STATES).toContain(x.status);
      expect(x.createdAt).toMatch(ISO_MS);
      return x.status === 'COMPLETED';
    });
    expect(seen.has('PROCESSING')).toBe(true);
    expect(r.correctedFile).toBeDefined();
  });
});

describe('GET /status/{id}', () => {
  it('answers 302 with Location when complete, JSON with noRedirect=true, with or without the key', async () => {
    const ep = await startJob(web, { fileKey: await upload(web, COFFEE) });
    const done = await waitFor(ep);
    const redirect = await fetch(ep, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(done.correctedFile);
    const withKey = await fetch(ep, { redirect: 'manual', headers: H });
    expect(withKey.status).toBe(302);
    const noRedirect = await fetch(`${ep}?noRedirect=true`);
    expect(noRedirect.status).toBe(200);
    expect(((await noRedirect.json()) as JobRecord).status).toBe('COMPLETED');
    const followed = await fetch(ep);
    expect(followed.status).toBe(200);
    expect(followed.headers.get('content-type')).toBe('image/jpeg');
  });

  it('answers 200 while the job is not complete', async () => {
    const slow = await emulator({ processingMs: 60_000 });
    const ep = await startJob(slow.web, { fileKey: await upload(slow.web, COFFEE) });
    const res = await fetch(ep, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(['PENDING', 'PROCESSING']).toContain(((await res.json()) as JobRecord).status);
  });

  it('answers 404 {error} for an unknown job and 400 for a bad noRedirect', async () => {
    const res = await fetch(`${web}/status/00000000-0000-4000-8000-000000000000`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: expect.stringMatching(/no job/) });
    const bad = await fetch(`${web}/status/00000000-0000-4000-8000-000000000000?noRedirect=yes`);
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toMatch(/noRedirect must be true or false/);
  });
});

describe('authentication', () => {
  it.each([
    ['GET', '/upload'],
    ['GET', '/pfc?fileKey=00000000-0000-4000-8000-000000000000'],
    ['GET', '/presets'],
    ['POST', '/presets/'],
    ['GET', '/presets/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/presets/00000000-0000-4000-8000-000000000000'],
  ])('%s %s answers 401 {error} without a key and with a wrong key', async (method, path) => {
    const none = await fetch(`${web}${path}`, { method });
    expect(none.status).toBe(401);
    expect((await json(none)).error).toMatch(/missing API key/);
    const wrong = await fetch(`${web}${path}`, { method, headers: { 'X-API-KEY': 'not-the-key' } });
    expect(wrong.status).toBe(401);
    const body = await wrong.text();
    expect(JSON.parse(body)).toEqual({ error: 'invalid API key' });
    expect(body).not.toContain('not-the-key');
  });

  it('accepts any non-empty key when no keys are configured, still refusing a missing one', async () => {
    const open = await emulator({ apiKeys: [] });
    expect((await fetch(`${open.web}/upload`, { headers: { 'X-API-KEY': 'anything' } })).status).toBe(200);
    expect((await fetch(`${open.web}/upload`)).status).toBe(401);
    expect((await fetch(`${open.web}/upload`, { headers: { 'X-API-KEY': '  ' } })).status).toBe(401);
  });
});

describe('CORS', () => {
  it('answers a preflight from Origin: null allowing X-API-KEY on every API route', async () => {
    for (const path of ['/upload', '/pfc', '/status/x', '/presets/', '/nowhere']) {
      const res = await fetch(`${web}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: 'null', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
      expect(res.headers.get('access-control-allow-methods')).toContain('PUT');
    }
  });

  it('puts Access-Control-Allow-Origin on answers, errors included, and exposes Location', async () => {
    for (const res of [await fetch(`${web}/upload`, { headers: H }), await fetch(`${web}/upload`), await fetch(`${web}/nope`)]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toContain('Location');
    }
  });
});

describe('GET /pfc parameter errors', () => {
  let fileKey: string;
  beforeAll(async () => {
    fileKey = await upload(web, COFFEE);
  });

  it.each([
    [{}, /fileKey is required/],
    [{ fileKey: 'not-a-uuid' }, /fileKey must be a fileKey \(UUID\)/],
    [{ width: '31' }, /width must be an integer from 32 to 10000/],
    [{ height: '10001' }, /height must be an integer from 32 to 10000/],
    [{ long: 'abc' }, /long must be an integer from 32 to 10000/],
    [{ short: '12.5' }, /short must be an integer from 32 to 10000/],
    [{ outputQuality: '39' }, /outputQuality must be an integer from 40 to 100/],
    [{ outputType: 'gif' }, /outputType must be one of jpg, png, original/],
    [{ resize: 'big' }, /resize must be one of auto, general, smallDetails/],
    [{ skip: 'all' }, /skip must be one of clipart, legacy, none/],
    [{ autocropType: '5', autocrop: 'true' }, /autocropType must be one of 0, 1, 2, 3, 4/],
    [{ autocropDetectOnly: 'true' }, /autocropDetectOnly requires autocrop=true/],
    [{ cropARW: '4' }, /cropARW requires autocrop=true/],
    [{ bgColor: '#ffffff' }, /bgColor requires removeBackground=true/],
    [{ removeBackground: 'true', bgColor: '#12345' }, /bgColor must be a 6-digit hex colour/],
    [{ removeBackground: 'true', bgShadow: 'long' }, /bgShadow must be one of soft, hard, floating/],
    [{ aiArt: 'picasso' }, /aiArt must be one of pencilBw/],
    [{ aiArtOutputSize: '4k' }, /aiArtOutputSize requires aiArt/],
    [{ cache: 'maybe' }, /cache must be true or false/],
    [{ fileType: 'audio' }, /fileType must be one of image, video/],
  ])('%j → 400 naming the parameter', async (query, message) => {
    const q = new URLSearchParams({ fileKey, ...query } as Record<string, string>);
    if ((query as Record<string, string>).fileKey === undefined && Object.keys(query).length === 0) q.delete('fileKey');
    const res = await fetch(`${web}/pfc?${q}`, { headers: H });
    expect(res.status).toBe(400);
    const body = await json<{ error: string }>(res);
    expect(body.error).toMatch(message);
  });

  it('400 for a fileKey never issued, and for a ticket whose file was never sent', async () => {
    const unknown = await fetch(`${web}/pfc?fileKey=00000000-0000-4000-8000-000000000000`, { headers: H });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).error).toMatch(/fileKey .* is unknown/);
    const t = await json<{ fileKey: string }>(await fetch(`${web}/upload`, { headers: H }));
    const empty = await fetch(`${web}/pfc?fileKey=${t.fileKey}`, { headers: H });
    expect(empty.status).toBe(400);
    expect((await json(empty)).error).toMatch(/has no file yet/);
  });

  it('400 naming a parameter sent twice', async () => {
    const res = await fetch(`${web}/pfc?fileKey=${fileKey}&width=100&width=200`, { headers: H });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe('parameter width was sent more than once');
  });

  it('400 for a bad fileType on GET /upload', async () => {
    const res = await fetch(`${web}/upload?fileType=pdf`, { headers: H });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatch(/fileType must be one of image, video/);
  });
});

describe('unknown routes and methods', () => {
  it('404 and 405 with {error}', async () => {
    const nf = await fetch(`${web}/nothing-here`);
    expect(nf.status).toBe(404);
    expect((await json(nf)).error).toMatch(/no route for GET/);
    const na = await fetch(`${web}/pfc`, { method: 'DELETE', headers: H });
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toContain('GET');
  });
});
