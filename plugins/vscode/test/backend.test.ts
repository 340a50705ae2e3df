import { describe, expect, test } from 'vitest';
import { EMULATOR_KEY, MissingKeyError, resolveBackend, type BackendFactories } from '../src/backend';
import type { KeyName } from '../src/keys';
import { DEFAULT_SETTINGS, type ExtensionSettings } from '../src/settings';

const keys = (k: Partial<Record<KeyName, string>>) => ({ get: async (n: KeyName) => k[n] });
const settings = (s: Partial<ExtensionSettings>): ExtensionSettings => ({ ...DEFAULT_SETTINGS, ...s });

describe('resolveBackend', () => {
  test('hosted: the stored key goes to the configured Web API; paid', async () => {
    const seen: unknown[] = [];
    const factories: BackendFactories = {
      web: (o) => {
        seen.push(o);
        return { kind: 'web' } as never;
      },
      container: () => {
        throw new Error('unused');
      },
    };
    const r = await resolveBackend(settings({ backend: 'hosted', webApiUrl: 'https://api.example.test/v2' }), keys({ apiKey: 'k-123456' }), { factories });
    expect(seen).toEqual([{ baseURL: 'https://api.example.test/v2', apiKey: 'k-123456' }]);
    expect({ id: r.id, planKind: r.planKind, paid: r.paid }).toEqual({ id: 'web', planKind: 'web', paid: true });
  });

  test('hosted without a key: MissingKeyError naming the command', async () => {
    await expect(resolveBackend(settings({ backend: 'hosted' }), keys({}))).rejects.toThrow(MissingKeyError);
    await expect(resolveBackend(settings({ backend: 'hosted' }), keys({}))).rejects.toThrow(/Set API Key/);
  });

  test('emulator: never sends the stored API key; free', async () => {
    const r = await resolveBackend(settings({ backend: 'emulator', emulatorUrl: 'http://127.0.0.1:9/v2' }), keys({ apiKey: 'real-key-000000' }));
    expect(r.web?.baseURL).toBe('http://127.0.0.1:9/v2');
    expect({ id: r.id, paid: r.paid }).toEqual({ id: 'emulator', paid: false });
    // The key in use is private to the client; its JSON form shows none.
    expect(JSON.stringify(r.web)).not.toContain('real-key');
    expect(EMULATOR_KEY).not.toBe('real-key-000000');
  });

  test('container: the colour container at its URL, no key needed', async () => {
    const r = await resolveBackend(settings({ backend: 'container', containerUrl: 'http://studio:8081' }), keys({}));
    expect(r.backend.kind).toBe('container');
    expect(r.id).toBe('container');
    expect(r.label).toBe('the container at http://studio:8081');
  });

  test('container+bgr: needs the BGR licence key', async () => {
    await expect(resolveBackend(settings({ backend: 'container+bgr' }), keys({}))).rejects.toThrow(/Set BGR Licence Key/);
    const r = await resolveBackend(settings({ backend: 'container+bgr' }), keys({ bgrLicenceKey: 'lic-1234567' }));
    expect(r.backend.kind).toBe('container+bgr');
    expect(r.paid).toBe(true);
  });
});
