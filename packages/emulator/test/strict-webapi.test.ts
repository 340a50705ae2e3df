/**
 * Where the Web API emulation refuses what a lax host would let through: each
 * request here is one a client bug would send, and each answer is checked with
 * the job records (no job may start from a refused request).
 */
import type { PresetRecord } from '@pfc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../src/index';
import { closeAll, COFFEE, emulator, fakeMp4, H, json, KEY, runJob, startJob, upload, waitFor } from './helpers';

const OTHER = { 'X-API-KEY': 'other-key' };
const MP4 = fakeMp4();

let emu: EmulatorHandle;
let web: string;
beforeAll(async () => {
  emu = await emulator({ apiKeys: [KEY, 'other-key'], engine: {} });
  web = emu.web;
});
afterAll(closeAll);

/** `GET /pfc` with a query; the answer's status, body, and how many jobs it started. */
async function pfc(query: Record<string, string>, headers: Record<string, string> = H): Promise<{ status: number; error: string; errors?: { param: string }[]; jobsStarted: number }> {
  const before = emu.jobs().length;
  const res = await fetch(`${web}/pfc?${new URLSearchParams(query)}`, { headers });
  const body = await json<{ error: string; errors?: { param: string }[] }>(res);
  return { status: res.status, ...body, jobsStarted: emu.jobs().length - before };
}

describe('query parameters the document does not name are refused, not dropped', () => {
  let fileKey: string;
  beforeAll(async () => {
    fileKey = await upload(web, COFFEE);
  });

  it.each([
    ['autoCrop', 'true'], // wrong case of autocrop: would run uncropped
    ['outputquality', '50'], // wrong case of outputQuality: would run at 90
    ['removebackground', 'true'],
    ['webhookUrl', 'https://example.com/hook'], // the seed documents show no webhooks
  ])('GET /pfc with %s → 400 naming it; no job', async (name, value) => {
    const r = await pfc({ fileKey, [name]: value });
    expect(r.status).toBe(400);
    expect(r.error).toMatch(new RegExp(`unknown parameter "${name}"; known parameters: fileKey, fileType, preset`));
    expect(r.errors).toEqual([expect.objectContaining({ param: name })]);
    expect(r.jobsStarted).toBe(0);
  });

  it('GET /upload?filetype=video (wrong case) → 400 instead of an image ticket', async () => {
    const res = await fetch(`${web}/upload?filetype=video`, { headers: H });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe('unknown parameter "filetype"; known parameters: fileType');
  });

  it('GET /status?noredirect=true (wrong case) → 400 instead of a redirect', async () => {
    const ep = await startJob(web, { fileKey });
    await waitFor(ep);
    const res = await fetch(`${ep}?noredirect=true`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe('unknown parameter "noredirect"; known parameters: noRedirect');
  });

  it('GET /presets?page=2 → 400 (the list pages with limit and offset only)', async () => {
    const res = await fetch(`${web}/presets?page=2`, { headers: H });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe('unknown parameter "page"; known parameters: limit, offset');
  });
});

describe('number text is read as the documents write it', () => {
  let fileKey: string;
  beforeAll(async () => {
    fileKey = await upload(web, COFFEE);
  });

  it.each([
    ['width', ' 800'], // %20800: padding the documents never show
    ['width', '+800'],
    ['width', '8e2'],
    ['outputQuality', '90 '],
    ['autocropSize', ' 1.2'],
  ])('GET /pfc with %s=%j → 400 naming it; no job', async (name, value) => {
    const r = await pfc({ fileKey, autocrop: 'true', [name]: value });
    expect(r.status).toBe(400);
    expect(r.error).toMatch(new RegExp(`${name} must be `));
    expect(r.errors).toEqual([expect.objectContaining({ param: name })]);
    expect(r.jobsStarted).toBe(0);
  });

  it('plain digits still run', async () => {
    const r = await pfc({ fileKey, width: '800', autocrop: 'true', autocropSize: '1.2' });
    expect(r.status).toBe(200);
    expect(r.jobsStarted).toBe(1);
  });
});

describe('fileType must match the uploaded file type', () => {
  it('a video sent on an image ticket is refused even when /pfc says fileType=video', async () => {
    const fileKey = await upload(web, MP4, 'image');
    const r = await pfc({ fileKey, fileType: 'video' });
    expect(r.status).toBe(400);
    expect(r.error).toMatch(/was issued by GET \/upload\?fileType=image, but the job needs fileType=video/);
    expect(r.jobsStarted).toBe(0);
  });

  it('a video ticket started without fileType (image by default) is refused', async () => {
    const fileKey = await upload(web, MP4, 'video');
    const r = await pfc({ fileKey });
    expect(r.status).toBe(400);
    expect(r.error).toMatch(/was issued by GET \/upload\?fileType=video, but the job needs fileType=image/);
    expect(r.jobsStarted).toBe(0);
  });

  it('a background image on a video ticket is refused; matching tickets run', async () => {
    const fileKey = await upload(web, COFFEE);
    const bgFileKey = await upload(web, COFFEE, 'video');
    const r = await pfc({ fileKey, removeBackground: 'true', bgFileKey });
    expect(r.status).toBe(400);
    expect(r.error).toMatch(/^bgFileKey .* was issued by GET \/upload\?fileType=video, but the job needs fileType=image/);
    expect(r.jobsStarted).toBe(0);
    expect((await runJob(web, COFFEE, { fileType: 'image' })).status).toBe('COMPLETED');
  });
});

describe('a fileKey belongs to the API key that asked for its ticket', () => {
  it('another key gets 400 unknown for fileKey and bgFileKey; no job', async () => {
    const mine = await upload(web, COFFEE);
    const r = await pfc({ fileKey: mine }, OTHER);
    expect(r.status).toBe(400);
    expect(r.error).toMatch(/^fileKey .* is unknown to this API key/);
    expect(r.jobsStarted).toBe(0);

    const t = await json<{ fileKey: string; uploadUrl: string }>(await fetch(`${web}/upload`, { headers: OTHER }));
    expect((await fetch(t.uploadUrl, { method: 'PUT', body: COFFEE })).status).toBe(200);
    const bg = await pfc({ fileKey: t.fileKey, removeBackground: 'true', bgFileKey: mine }, OTHER);
    expect(bg.status).toBe(400);
    expect(bg.error).toMatch(/^bgFileKey .* is unknown to this API key/);
    expect(bg.jobsStarted).toBe(0);
  });
});

describe('POST /presets/ takes a JSON body with name and description', () => {
  const presets = async (): Promise<string[]> => (await json<{ presets: PresetRecord[] }>(await fetch(`${web}/presets?limit=100`, { headers: H }))).presets.map((p) => p.name);

  it.each([
    ['a string body without Content-Type (fetch sends text/plain)', {}, JSON.stringify({ name: 'Plain', description: '' }), /got "text\/plain"/],
    ['a form', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'name=Form&description=', /got "application\/x-www-form-urlencoded"/],
  ])('%s → 400; nothing created', async (_case, headers, body, got) => {
    const res = await fetch(`${web}/presets/`, { method: 'POST', headers: { ...H, ...headers }, body });
    expect(res.status).toBe(400);
    const { error } = await json<{ error: string }>(res);
    expect(error).toMatch(/takes a JSON body: send Content-Type: application\/json/);
    expect(error).toMatch(got);
    expect(await presets()).not.toContain('Plain');
    expect(await presets()).not.toContain('Form');
  });

  it('no description → 400; nothing created; an empty one is accepted', async () => {
    const post = (body: unknown) => fetch(`${web}/presets/`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const res = await post({ name: 'Undescribed' });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatch(/description is required/);
    expect(await presets()).not.toContain('Undescribed');
    expect((await post({ name: 'Described', description: '' })).status).toBe(200);
  });
});

describe('AI upscaling with resize=auto keeps within the small-details model limit', () => {
  it('auto (default) → REJECTED past the smaller limit; general takes it', async () => {
    // Small limits stand in for 8,192 and 20,000 px, so the test enlarges a 600x400 photo only a little.
    const small = await emulator({ engine: {}, limits: { maxUpscaleSideSmallDetails: 700, maxUpscaleSideGeneral: 2000 } });
    const auto = await runJob(small.web, COFFEE, { width: 800 });
    expect([auto.status, auto.code]).toEqual(['REJECTED', 413]);
    expect(auto.statusText).toMatch(/at most 700 pixels with resize=auto \(auto may choose the small-details model; resize=general allows 2000\)/);
    expect(auto.correctedFile).toBeUndefined();
    const general = await runJob(small.web, COFFEE, { width: 800, resize: 'general' });
    expect(general.status).toBe('COMPLETED');
    expect(general.outputDimensions).toEqual({ width: 800, height: 533 });
  });
});
