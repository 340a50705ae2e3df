/** Presets against the emulator: the whole lifecycle, use by name in /pfc, and limit/offset paging. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, NotFoundError, type WebApiClient } from '@pfc/core';
import { API_KEY, clientFor, sample, startWebEmulator, UUID_RE, type Emulator } from './webapi-fixtures';

let emu: Emulator;
let client: WebApiClient;
const OTHER_KEY = 'other-account-key-4d2a';
const PAGING_KEY = 'paging-account-key-77c1';

beforeAll(async () => {
  emu = await startWebEmulator({ apiKeys: [API_KEY, OTHER_KEY, PAGING_KEY] });
  client = clientFor(emu);
});
afterAll(() => emu?.close());

const PRESET_FILE = new TextEncoder().encode('<?xml version="1.0"?><preset name="Warm Skin" exposure="0.3"/>');

describe('preset lifecycle', () => {
  it('create (POST /presets/ + PUT) → get with uri → download the file → use by name → delete', async () => {
    const created = await client.presets.create({ name: 'Warm Skin', description: 'for portraits', file: PRESET_FILE });
    expect(created.presetId).toMatch(UUID_RE);

    const rec = await client.presets.get(created.presetId);
    expect(rec).toMatchObject({ presetId: created.presetId, name: 'Warm Skin', description: 'for portraits' });
    expect(rec.uri).toEqual(expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//));
    expect(await client.presets.download(rec)).toEqual(PRESET_FILE);

    // /pfc takes the preset's name (observed behaviour #9), not its id.
    const { job } = await client.correctBytes(sample('objects/coffee.jpg'), { preset: 'Warm Skin', width: 120 });
    expect(job?.status).toBe('COMPLETED');
    await expect(client.correct(sample('objects/coffee.jpg'), { preset: created.presetId })).rejects.toBeInstanceOf(BadRequestError);

    await client.presets.delete(created.presetId);
    await expect(client.presets.get(created.presetId)).rejects.toBeInstanceOf(NotFoundError);
    const err = (await client.correct(sample('objects/coffee.jpg'), { preset: 'Warm Skin' }).catch((e: unknown) => e)) as BadRequestError;
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toMatch(/preset "Warm Skin" is neither a built-in preset .* nor a custom preset name/);
  });

  it('the POST is accepted without the trailing slash too', async () => {
    const res = await fetch(`${emu.web}/presets`, {
      method: 'POST',
      headers: { 'X-API-KEY': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'No Slash', description: '' }),
    });
    expect(res.status).toBe(200);
    const { presetId } = (await res.json()) as { presetId: string };
    await client.presets.delete(presetId);
  });

  it('presets belong to their key', async () => {
    const { presetId } = await client.presets.create({ name: 'Mine', file: PRESET_FILE });
    const other = clientFor(emu, { apiKey: OTHER_KEY });
    await expect(other.presets.get(presetId)).rejects.toBeInstanceOf(NotFoundError);
    await client.presets.delete(presetId);
  });
});

describe('preset paging', () => {
  it('lists 23 presets in pages of 10 with limit/offset, stopping at the short page', async () => {
    const c = clientFor(emu, { apiKey: PAGING_KEY });
    const names = Array.from({ length: 23 }, (_, i) => `Look ${String(i).padStart(2, '0')}`);
    for (const name of names) await c.presets.create({ name, file: PRESET_FILE });
    const before = emu.stats().requests['presets.list'] ?? 0;

    const pages: string[][] = [];
    for await (const page of c.presets.list({ limit: 10 }).pages()) pages.push(page.map((p) => p.name));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    expect(pages.flat()).toEqual(names);
    expect((emu.stats().requests['presets.list'] ?? 0) - before).toBe(3);

    const all = [];
    for await (const p of c.presets.list()) all.push(p.presetId); // default limit 20
    expect(all).toHaveLength(23);
    expect(new Set(all).size).toBe(23);
    expect((await c.presets.list({ limit: 5, offset: 20 }).toArray()).map((p) => p.name)).toEqual(names.slice(20));
  });
});
