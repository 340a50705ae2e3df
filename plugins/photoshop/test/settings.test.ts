/** Settings, secrets, backend choice, targets and the naming of results. */
import { describe, expect, it } from 'vitest';
import { createBackend, SettingsError } from '../src/backend/factory';
import { withBodyStreams } from '../src/backend/fetch';
import { describeCorrection, DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { NothingToCorrectError, resolveTargets } from '../src/correct/targets';
import { DEFAULT_SETTINGS, loadSecret, loadSettings, saveSecret, saveSettings, type KeyValueStore } from '../src/settings/store';
import { simHost } from './helpers';

function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

describe('settings', () => {
  it('round-trips the backend choice and addresses, and falls back to defaults on damaged data', () => {
    const store = memoryStore();
    expect(loadSettings(store)).toEqual(DEFAULT_SETTINGS);
    saveSettings(store, { ...DEFAULT_SETTINGS, backend: 'emulator', emulatorURL: 'http://127.0.0.1:9999/v2' });
    expect(loadSettings(store)).toMatchObject({ backend: 'emulator', emulatorURL: 'http://127.0.0.1:9999/v2' });
    store.data.set('pfc.settings', '{not json');
    expect(loadSettings(store)).toEqual(DEFAULT_SETTINGS);
  });

  it('refuses an address that is not http(s), naming the field', () => {
    const store = memoryStore();
    expect(() => saveSettings(store, { ...DEFAULT_SETTINGS, backend: 'emulator', emulatorURL: 'ftp://x' })).toThrow('Emulator address must be an http:// or https:// address');
    expect(() => saveSettings(store, { ...DEFAULT_SETTINGS, hostedURL: '' })).toThrow('Web API address is required');
    expect(store.data.size).toBe(0);
  });

  it('keeps keys in secure storage only, and never in the settings', async () => {
    const { host, sim } = simHost();
    const secure = host.uxp.storage.secureStorage;
    expect(await loadSecret(secure, 'apiKey')).toBeUndefined();
    await saveSecret(secure, 'apiKey', '  sk-live-123  ');
    expect(await loadSecret(secure, 'apiKey')).toBe('sk-live-123');
    expect(new TextDecoder().decode(sim.secureStorage.items.get('pfc.apiKey'))).toBe('sk-live-123');
    await saveSecret(secure, 'apiKey', '');
    expect(await loadSecret(secure, 'apiKey')).toBeUndefined();
    const store = memoryStore();
    saveSettings(store, DEFAULT_SETTINGS);
    expect([...store.data.values()].join()).not.toContain('sk-live');
  });
});

describe('createBackend', () => {
  const fetch = async () => new Response('{}');
  it('needs a key for the hosted API, and none for the emulator', () => {
    expect(() => createBackend(DEFAULT_SETTINGS, {}, fetch)).toThrow(SettingsError);
    expect(() => createBackend(DEFAULT_SETTINGS, {}, fetch)).toThrow('Enter your API key');
    const emu = createBackend({ ...DEFAULT_SETTINGS, backend: 'emulator' }, {}, fetch);
    expect(emu.kind).toBe('web');
    expect(JSON.stringify(createBackend(DEFAULT_SETTINGS, { apiKey: 'secret-key' }, fetch))).not.toContain('secret-key');
  });

  it('uses the colour container alone, or followed by the background-removal container', () => {
    const container = { ...DEFAULT_SETTINGS, backend: 'container' as const, containerURL: 'http://studio:8081' };
    expect(createBackend(container, {}, fetch).kind).toBe('container');
    expect(createBackend({ ...container, bgrURL: 'http://gpu:8000' }, { bgrLicenceKey: 'lic' }, fetch).kind).toBe('container+bgr');
    expect(() => createBackend({ ...container, containerURL: '' }, {}, fetch)).toThrow('container address');
  });
});

describe('withBodyStreams', () => {
  it('serves a body stream when the runtime answers without one', async () => {
    const bare = new Response(new Uint8Array([1, 2, 3]), { status: 200, headers: { 'content-type': 'image/png' } });
    const noStream = new Proxy(bare, { get: (t, p) => (p === 'body' ? null : typeof Reflect.get(t, p) === 'function' ? Reflect.get(t, p).bind(t) : Reflect.get(t, p)) });
    const res = await withBodyStreams(async () => noStream)('http://x/');
    const reader = res.body!.getReader();
    expect((await reader.read()).value).toEqual(new Uint8Array([1, 2, 3]));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
  });

  it('passes answers with a stream through untouched', async () => {
    const real = new Response('ok');
    expect(await withBodyStreams(async () => real)('http://x/')).toBe(real);
  });
});

describe('targets', () => {
  it('says plainly when there is nothing to correct', () => {
    const { host, sim } = simHost();
    expect(() => resolveTargets(host, 'document')).toThrow(NothingToCorrectError);
    expect(() => resolveTargets(host, 'all')).toThrow('No document is open.');
    const doc = sim.openDocument({ title: 'a.psd', width: 4, height: 4, pixels: new Uint8Array(48), channels: 3 });
    doc.layers.unshift({ id: 5, name: 'Curves 1', kind: 'curves', visible: true, isBackground: false, pixels: null, children: null });
    doc.activeLayerIds = [5];
    expect(() => resolveTargets(host, 'layer')).toThrow('"Curves 1" is a curves layer');
    doc.activeLayerIds = [];
    expect(() => resolveTargets(host, 'layer')).toThrow('Select a layer in "a.psd" first.');
    expect(resolveTargets(host, 'document')).toEqual([{ documentId: doc.id, title: 'a.psd' }]);
  });
});

describe('choices', () => {
  it('map to /pfc parameters and name the result layer after what was applied', () => {
    expect(toParams(DEFAULT_CHOICES)).toEqual({ preset: 'Universal' });
    const p = toParams({ ...DEFAULT_CHOICES, preset: 'Pro', background: 'colour', backgroundColour: '#112233', shadow: 'soft', aiArt: 'oilPainting' });
    expect(p).toEqual({ preset: 'Pro', removeBackground: true, bgColor: '#112233', bgShadow: 'soft', aiArt: 'oilPainting' });
    expect(describeCorrection(p)).toBe('Perfectly Clear: Pro, background #112233 with soft shadow, AI Art oilPainting');
    const t = toParams({ ...DEFAULT_CHOICES, preset: 'none', background: 'transparent', resize: 'scale', resizeValue: 150 });
    expect(t).toEqual({ preset: 'none', removeBackground: true, outputType: 'png', scale: 150 });
    expect(describeCorrection(t)).toBe('Perfectly Clear: no colour correction, background removed, 150 %');
  });
});
