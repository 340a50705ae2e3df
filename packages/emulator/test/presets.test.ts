/** Presets: lifecycle, trailing-slash form, pagination, use by name in /pfc, per-key lists. */
import type { PresetRecord } from '@pfc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, emulator, H, json, startJob, upload, waitFor } from './helpers';

let web: string;
let storage: string;
beforeAll(async () => {
  const emu = await emulator({ apiKeys: ['test-key', 'other-key'] });
  web = emu.web;
  storage = emu.storage;
});
afterAll(closeAll);

const PRESET_FILE = Buffer.from('<?xml version="1.0"?><preset name="Warm"><exposure>0.3</exposure></preset>\n');

async function create(name: string, description = '', path = '/presets/'): Promise<{ presetId: string; uploadUrl: string }> {
  const res = await fetch(`${web}${path}`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify({ name, description }) });
  expect(res.status).toBe(200);
  return json(res);
}

describe('preset lifecycle', () => {
  it('create → PUT file → get (with uri) → download → use by name → delete', async () => {
    const c = await create('Warm look', 'for tests');
    expect(c.presetId).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.uploadUrl.startsWith(`${storage}/preset-uploads/`)).toBe(true);

    const before = await json<PresetRecord>(await fetch(`${web}/presets/${c.presetId}`, { headers: H }));
    expect(before).toMatchObject({ presetId: c.presetId, name: 'Warm look', description: 'for tests', uploaded: false });
    expect(before.uri).toBeUndefined();

    // Sent with the key, as some scripts do: harmless.
    const put = await fetch(c.uploadUrl, { method: 'PUT', body: PRESET_FILE, headers: H });
    expect(put.status).toBe(200);

    const rec = await json<PresetRecord>(await fetch(`${web}/presets/${c.presetId}`, { headers: H }));
    expect(rec).toMatchObject({ presetId: c.presetId, name: 'Warm look', description: 'for tests', uploaded: true, size: PRESET_FILE.length });
    expect(rec.uri).toBe(`${web}/presets/${c.presetId}/file`);
    expect((await fetch(rec.uri!)).status).toBe(401);
    const file = await fetch(rec.uri!, { headers: H });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="Warm_look.preset"');
    expect(Buffer.from(await file.arrayBuffer()).equals(PRESET_FILE)).toBe(true);

    // The preset parameter takes the NAME (observed behaviour #9), not the id.
    const r = await waitFor(await startJob(web, { fileKey: await upload(web, COFFEE), preset: 'Warm look' }));
    expect(r.status).toBe('COMPLETED');
    expect(r.usage.imageCorrectionCount).toBe(1);
    const byId = await fetch(`${web}/pfc?fileKey=${await upload(web, COFFEE)}&preset=${c.presetId}`, { headers: H });
    expect(byId.status).toBe(400);
    expect((await json(byId)).error).toMatch(new RegExp(`preset "${c.presetId}" is neither a built-in preset`));

    const del = await fetch(`${web}/presets/${c.presetId}`, { method: 'DELETE', headers: H });
    expect(del.status).toBe(200);
    expect(await json(del)).toEqual({ presetId: c.presetId, deleted: true });
    expect((await fetch(`${web}/presets/${c.presetId}`, { headers: H })).status).toBe(404);
    expect((await fetch(rec.uri!, { headers: H })).status).toBe(404);
    const gone = await fetch(`${web}/pfc?fileKey=${await upload(web, COFFEE)}&preset=Warm%20look`, { headers: H });
    expect(gone.status).toBe(400);
    // The signed address of a deleted preset no longer takes a file.
    expect((await fetch(c.uploadUrl, { method: 'PUT', body: PRESET_FILE })).status).toBe(404);
  });

  it('accepts POST /presets without the trailing slash too', async () => {
    const c = await create('No slash', '', '/presets');
    expect(c.presetId).toBeDefined();
  });

  it('400 for a preset that has no file yet, and for unknown preset names; built-ins and none work', async () => {
    await create('Empty');
    const fileKey = await upload(web, COFFEE);
    const empty = await fetch(`${web}/pfc?fileKey=${fileKey}&preset=Empty`, { headers: H });
    expect(empty.status).toBe(400);
    expect((await json(empty)).error).toMatch(/preset "Empty" has no file yet/);
    const unknown = await fetch(`${web}/pfc?fileKey=${fileKey}&preset=Nope`, { headers: H });
    expect((await json(unknown)).error).toMatch(/preset "Nope" is neither a built-in preset/);
    for (const preset of ['Universal', 'Pro', 'School and Sports', 'Attractions and Cruise Lines', 'none']) {
      const r = await waitFor(await startJob(web, { fileKey, preset }));
      expect(r.status, preset).toBe('COMPLETED');
      expect(r.usage.imageCorrectionCount).toBe(preset === 'none' ? 0 : 1);
    }
  });

  it('validates the create body: name required, reserved and duplicate names refused', async () => {
    const post = (body: string) => fetch(`${web}/presets/`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body });
    expect((await json(await post('{"description":"x"}'))).error).toMatch(/name must be a non-empty string/);
    expect((await post('not json')).status).toBe(400);
    expect((await json(await post('{"name":"Pro","description":""}'))).error).toMatch(/reserved for a built-in preset/);
    expect((await json(await post('{"name":"x","description":5}'))).error).toMatch(/description is required: a string/);
    await create('Twice');
    const dup = await post('{"name":"Twice","description":""}');
    expect(dup.status).toBe(409);
    expect((await json(dup)).error).toMatch(/already exists/);
    const big = await post(JSON.stringify({ name: 'big', description: 'x'.repeat(70_000) }));
    expect(big.status).toBe(413);
  });

  it('refuses a preset PUT over the size limit with 413', async () => {
    const small = await emulator({ limits: { maxPresetBytes: 10 } });
    const res = await fetch(`${small.web}/presets/`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: '{"name":"x","description":""}' });
    const { uploadUrl } = await json<{ uploadUrl: string }>(res);
    expect((await fetch(uploadUrl, { method: 'PUT', body: PRESET_FILE })).status).toBe(413);
  });
});

describe('listing', () => {
  it('pages with limit/offset in creation order, answers {presets: [...]}, and keeps lists per key', async () => {
    const fresh = await emulator({ apiKeys: ['a', 'b'] });
    const names = Array.from({ length: 25 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    for (const name of names) {
      const r = await fetch(`${fresh.web}/presets/`, { method: 'POST', headers: { 'X-API-KEY': 'a', 'Content-Type': 'application/json' }, body: JSON.stringify({ name, description: '' }) });
      expect(r.status).toBe(200);
    }
    const list = async (q: string, key = 'a') => fetch(`${fresh.web}/presets${q}`, { headers: { 'X-API-KEY': key } });
    const first = await json<{ presets: PresetRecord[] }>(await list(''));
    expect(first.presets.map((p) => p.name)).toEqual(names.slice(0, 20));
    const page = await json<{ presets: PresetRecord[] }>(await list('?limit=10&offset=20'));
    expect(page.presets.map((p) => p.name)).toEqual(names.slice(20));
    expect((await json<{ presets: unknown[] }>(await list('?offset=25'))).presets).toEqual([]);
    expect((await json<{ presets: unknown[] }>(await list('', 'b'))).presets).toEqual([]);
    for (const q of ['?limit=0', '?limit=101', '?limit=x', '?offset=-1']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect((await json(res)).error).toMatch(/(limit|offset) must be an integer from/);
    }
    // Another key cannot read or delete a's preset.
    const id = first.presets[0]!.presetId;
    expect((await fetch(`${fresh.web}/presets/${id}`, { headers: { 'X-API-KEY': 'b' } })).status).toBe(404);
    expect((await fetch(`${fresh.web}/presets/${id}`, { method: 'DELETE', headers: { 'X-API-KEY': 'b' } })).status).toBe(404);
  });
});
