import { EMULATOR_API_KEY } from '@pfc/batch';
import type { FetchLike } from '@pfc/core';
import { describe, expect, test } from 'vitest';
import { MissingKeyError, resolveBackend, selectionFrom } from '../src/backend';
import type { KeyName } from '../src/keys';
import { DEFAULT_SETTINGS, type ExtensionSettings } from '../src/settings';

const keys = (k: Partial<Record<KeyName, string>>) => ({ get: async (n: KeyName) => k[n] });
const settings = (s: Partial<ExtensionSettings>): ExtensionSettings => ({ ...DEFAULT_SETTINGS, ...s });
const ALL_KEYS = { apiKey: 'real-key-000000', bgrLicenceKey: 'lic-1234567' };

/** A fetch that answers every request with an empty preset list and records what was sent. */
function recordingFetch(): { fetch: FetchLike; sent: { url: string; apiKey: string | null }[] } {
  const sent: { url: string; apiKey: string | null }[] = [];
  const fetch: FetchLike = async (input, init) => {
    sent.push({ url: String(input), apiKey: new Headers(init?.headers).get('x-api-key') });
    return new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, sent };
}

describe('resolveBackend (through @pfc/batch openBackend)', () => {
  test('hosted: the stored key goes to the configured Web API; paid', async () => {
    const { fetch, sent } = recordingFetch();
    const r = await resolveBackend(settings({ backend: 'hosted', webApiUrl: 'https://api.example.test/v2' }), keys({ apiKey: 'k-123456' }), { fetch });
    expect({ id: r.id, planKind: r.planKind, paid: r.paid, label: r.label }).toEqual({ id: 'web', planKind: 'web', paid: true, label: 'the hosted Web API at https://api.example.test/v2' });
    for await (const p of r.web!.listPresets()) expect(p).toBeUndefined();
    expect(sent).toEqual([{ url: expect.stringMatching(/^https:\/\/api\.example\.test\/v2\/presets/), apiKey: 'k-123456' }]);
    await r.close();
  });

  test('hosted without a key: MissingKeyError naming the command', async () => {
    await expect(resolveBackend(settings({ backend: 'hosted' }), keys({}))).rejects.toThrow(MissingKeyError);
    await expect(resolveBackend(settings({ backend: 'hosted' }), keys({}))).rejects.toThrow(/Set API Key/);
  });

  test('emulator: reached by URL with a placeholder key, never the stored API key; free', async () => {
    const { fetch, sent } = recordingFetch();
    const r = await resolveBackend(settings({ backend: 'emulator', emulatorUrl: 'http://127.0.0.1:9/v2' }), keys(ALL_KEYS), { fetch });
    expect(r.web?.baseURL).toBe('http://127.0.0.1:9/v2');
    expect({ id: r.id, planKind: r.planKind, paid: r.paid, label: r.label }).toEqual({ id: 'emulator', planKind: 'emulator', paid: false, label: 'the local emulator at http://127.0.0.1:9/v2' });
    for await (const p of r.web!.listPresets()) expect(p).toBeUndefined();
    expect(sent).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/v2\/presets/), apiKey: EMULATOR_API_KEY }]);
    expect(JSON.stringify(r.web)).not.toContain('real-key');
  });

  test('container: the colour container at its URL, no key needed or passed on', async () => {
    const r = await resolveBackend(settings({ backend: 'container', containerUrl: 'http://studio:8081' }), keys({}));
    expect(r.backend.kind).toBe('container');
    expect({ id: r.id, paid: r.paid, web: r.web }).toEqual({ id: 'container', paid: true, web: undefined });
    expect(r.label).toBe('the container at http://studio:8081');
    expect(await selectionFrom(settings({ backend: 'container', containerUrl: 'http://studio:8081' }), keys(ALL_KEYS))).toEqual({ backend: 'container', containerUrl: 'http://studio:8081' });
  });

  test('pfc.instanceJobs goes to both self-hosted selections; a count that does not match the addresses is refused when the backend opens', async () => {
    const fleet = { containerUrl: 'http://gpu-1:8081,http://gpu-2:8081', instanceJobs: [4, 2] };
    expect(await selectionFrom(settings({ backend: 'container', ...fleet }), keys(ALL_KEYS))).toEqual({ backend: 'container', containerUrl: fleet.containerUrl, instanceJobs: [4, 2] });
    const both = await selectionFrom(settings({ backend: 'container+bgr', ...fleet, instanceJobs: [4, 2, 1] }), keys(ALL_KEYS));
    expect(both.instanceJobs).toEqual([4, 2, 1]);
    await expect(resolveBackend(settings({ backend: 'container', ...fleet, instanceJobs: [4, 2, 2] }), keys({}))).rejects.toThrow(/^pfc\.instanceJobs has 3 values for 2 instance\(s\) \(2 pfc\.containerUrl\)/);
  });

  test('container+bgr: needs the BGR licence key, which alone is passed on', async () => {
    await expect(resolveBackend(settings({ backend: 'container+bgr' }), keys({}))).rejects.toThrow(/Set BGR Licence Key/);
    const r = await resolveBackend(settings({ backend: 'container+bgr' }), keys({ bgrLicenceKey: 'lic-1234567' }));
    expect(r.backend.kind).toBe('container+bgr');
    expect(r.id).toBe('container+bgr');
    expect(r.paid).toBe(true);
    const sel = await selectionFrom(settings({ backend: 'container+bgr' }), keys(ALL_KEYS));
    expect(sel).toEqual({ backend: 'container', containerUrl: DEFAULT_SETTINGS.containerUrl, bgrUrl: DEFAULT_SETTINGS.bgrUrl, bgrLicenseKey: 'lic-1234567' });
  });
});
