/**
 * openBackend: the one place that turns a selection into a backend, for the
 * CLI and VS Code. Keys go only to the service they belong to; a running
 * emulator is reached by URL without starting the embedded one.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FetchLike } from '@pfc/core';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeFetch, EMULATOR_API_KEY, openBackend, planBatch, resolveBackendChoice, runBatch } from '../src/index';
import { tempDir } from './helpers';

const SAMPLE = join(import.meta.dirname, '../../../samples/portraits/astronaut.jpg');
const USER_KEY = 'user-key-3e9b-never-send-to-an-emulator';

/** The node fetch, recording the origin and X-API-KEY of every request. */
function recording(): { fetch: FetchLike; sent: { origin: string; key: string | null }[] } {
  const sent: { origin: string; key: string | null }[] = [];
  const base = createNodeFetch();
  const fetch: FetchLike = (input, init) => {
    sent.push({ origin: new URL(String(input instanceof Request ? input.url : input)).origin, key: new Headers(init?.headers).get('x-api-key') });
    return base(input, init);
  };
  return { fetch, sent };
}

let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await startEmulator({ host: '127.0.0.1', container: false, bgr: false });
});
afterAll(() => emu?.close());

describe('openBackend', () => {
  it('emulatorUrl: corrects on the running emulator with the placeholder key, never the user key; close() leaves it running', async () => {
    const { fetch, sent } = recording();
    const opened = await openBackend({ backend: 'emulator', emulatorUrl: emu.web, apiKey: USER_KEY, fetch });
    expect(opened).toMatchObject({ id: 'emulator', description: `emulator at ${emu.web}`, paid: false, defaultConcurrency: 2 });
    const root = tempDir();
    mkdirSync(join(root, 'in'));
    copyFileSync(SAMPLE, join(root, 'in/astronaut.jpg'));
    const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
    const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, params: {} });
    expect(summary.corrected).toBe(1);
    const [a, b] = await Promise.all([sharp(SAMPLE).metadata(), sharp(join(root, 'in/corrected/astronaut.jpg')).metadata()]);
    expect([b.format, b.width, b.height]).toEqual([a.format, a.width, a.height]);

    expect(sent.length).toBeGreaterThan(2);
    // The API and its storage origin (pre-signed uploads and results), nothing else.
    expect(new Set(sent.map((s) => s.origin))).toEqual(new Set([new URL(emu.web).origin, emu.storage]));
    expect(sent.filter((s) => s.origin === emu.storage).every((s) => s.key === null)).toBe(true);
    // Presigned upload and result URLs carry no key; every request to the API carries the placeholder.
    expect(sent.filter((s) => s.key !== null).every((s) => s.key === EMULATOR_API_KEY)).toBe(true);
    expect(JSON.stringify(sent)).not.toContain(USER_KEY);
    await opened.close();
    expect((await fetch(`${emu.web}/presets`, { headers: { 'X-API-KEY': 'k' } })).status).toBe(200);
  });

  it('auto with only an emulator URL picks it; a key selects the Web API and goes to baseURL only', async () => {
    expect(resolveBackendChoice({ emulatorUrl: emu.web })).toBe('emulator');
    expect(resolveBackendChoice({ emulatorUrl: emu.web, apiKey: USER_KEY })).toBe('web');
    const { fetch, sent } = recording();
    const web = await openBackend({ apiKey: USER_KEY, baseURL: emu.web, emulatorUrl: 'http://127.0.0.1:9/v2', fetch });
    expect(web).toMatchObject({ id: 'web', paid: true, description: `Web API at ${emu.web}` });
    for await (const p of web.web!.listPresets()) expect(p).toBeDefined();
    expect(sent).toEqual([{ origin: new URL(emu.web).origin, key: USER_KEY }]);
  });

  it('without any URL starts the embedded emulator, and close() stops it', async () => {
    const opened = await openBackend({});
    expect(opened.description).toMatch(/^embedded emulator on http:\/\/127\.0\.0\.1:\d+\/v2$/);
    const base = opened.web!.baseURL;
    expect((await fetch(`${base}/presets`, { headers: { 'X-API-KEY': 'k' } })).status).toBe(200);
    await opened.close();
    await expect(fetch(`${base}/presets`, { headers: { 'X-API-KEY': 'k' } })).rejects.toThrow();
  });
});
