import { describe, expect, it } from 'vitest';
import { NotFoundError, ParameterError, ProtocolError, WebApiClient } from '@pfc/core';
import { BASE, FakeApi, KEY } from './helpers/fake-api';
import { FakeFetch, json, recordingSleep } from './helpers/fake-fetch';

function setup(api = new FakeApi()) {
  const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: recordingSleep().sleep });
  return { api, client };
}

describe('presets.list', () => {
  it('pages with limit/offset until a short page', async () => {
    const { api, client } = setup();
    api.addPresets(45);
    const names: string[] = [];
    for await (const p of client.presets.list()) names.push(p.name);
    expect(names).toHaveLength(45);
    expect(names[44]).toBe('Preset 44');
    const pages = api.http.callsTo('GET', /\/presets\?/).map((c) => [c.url.searchParams.get('limit'), c.url.searchParams.get('offset')]);
    expect(pages).toEqual([['20', '0'], ['20', '20'], ['20', '40']]);
  });

  it('asks once more after an exactly full last page, and yields pages on request', async () => {
    const { api, client } = setup();
    api.addPresets(10);
    const sizes: number[] = [];
    for await (const page of client.presets.list({ limit: 5 }).pages()) sizes.push(page.length);
    expect(sizes).toEqual([5, 5, 0]);
    expect((await client.presets.list({ limit: 3, offset: 8 }).toArray()).map((p) => p.presetId)).toEqual(['seed8', 'seed9']);
  });

  it('accepts a bare array and refuses a body without a list', async () => {
    const http = new FakeFetch().on('GET', /\/presets\?/, (_r, url) => json(url.searchParams.get('offset') === '0' ? [{ presetId: 'a', name: 'A', description: '' }] : {}));
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: http.fetch });
    expect(await client.presets.list().toArray()).toHaveLength(1);
    await expect(client.presets.list({ limit: 1 }).toArray()).rejects.toBeInstanceOf(ProtocolError);
  });

  it('stops a server that ignores offset instead of paging forever', async () => {
    const http = new FakeFetch().on('GET', /\/presets\?/, () => json({ presets: [{ presetId: 'a', name: 'A', description: '' }, { presetId: 'b', name: 'B', description: '' }] }));
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: http.fetch });
    await expect(client.presets.list({ limit: 2 }).toArray()).rejects.toThrow(/ignores offset/);
    expect(http.calls).toHaveLength(2);
  });

  it('refuses a bad limit before sending', () => {
    const { api, client } = setup();
    expect(() => client.presets.list({ limit: 0 })).toThrow(ParameterError);
    expect(api.http.calls).toHaveLength(0);
  });
});

describe('preset lifecycle', () => {
  it('creates (POST /presets/ then PUT without key), gets, downloads via uri, deletes', async () => {
    const { api, client } = setup();
    const file = new TextEncoder().encode('<preset name="Warm"/>');
    const created = await client.presets.create({ name: 'Warm', description: 'warm look', file });
    expect(created).toEqual({ presetId: expect.any(String), name: 'Warm', description: 'warm look' });
    const post = api.http.callsTo('POST', /\/presets\/$/)[0]!;
    expect(post.headers.get('content-type')).toBe('application/json');
    expect(api.http.callsTo('PUT', /storage/)[0]!.headers.has('x-api-key')).toBe(false);

    const rec = await client.presets.get(created.presetId);
    expect(rec).toMatchObject({ name: 'Warm', description: 'warm look' });
    expect(new TextDecoder().decode(await client.presets.download(rec))).toBe('<preset name="Warm"/>');
    expect(new TextDecoder().decode(await client.presets.download(created.presetId))).toBe('<preset name="Warm"/>');
    expect(api.http.callsTo('GET', /\/file$/).every((c) => c.headers.get('x-api-key') === KEY)).toBe(true);

    await client.presets.delete(created.presetId);
    await expect(client.presets.get(created.presetId)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deletes the half-made preset when the file upload fails', async () => {
    const api = new FakeApi();
    api.http.fail('PUT', /storage/, { status: 403, body: '<Error>SignatureDoesNotMatch</Error>' });
    const { client } = setup(api);
    await expect(client.presets.create({ name: 'Cold', file: new Uint8Array([1]) })).rejects.toThrow(/answered 403/);
    expect(api.presets).toHaveLength(0);
    expect(api.http.callsTo('DELETE', /\/presets\//)).toHaveLength(1);
  });

  it('does not retry the POST on a 500 (it could create a second preset)', async () => {
    const api = new FakeApi();
    api.http.fail('POST', /\/presets\//, { status: 500 });
    const { client } = setup(api);
    await expect(client.presets.create({ name: 'X', file: new Uint8Array([1]) })).rejects.toThrow(/answered 500/);
    expect(api.http.callsTo('POST', /\/presets\//)).toHaveLength(1);
  });
});

describe('preset ids in the path', () => {
  it('sends an id with / ? # as one segment, and refuses an empty, . or .. id before sending', async () => {
    const { api, client } = setup();
    await client.presets.get('a/b?c#d').catch(() => undefined);
    expect(api.http.callsTo('GET', /\/presets\//).map((c) => c.url.pathname)).toEqual(['/v2/presets/a%2Fb%3Fc%23d']);
    for (const id of ['', '.', '..']) {
      await expect(client.presets.delete(id)).rejects.toBeInstanceOf(ParameterError);
      await expect(client.presets.get(id)).rejects.toBeInstanceOf(ParameterError);
    }
    expect(api.http.callsTo('DELETE', /presets/)).toHaveLength(0);
    expect(api.http.callsTo('GET', /\/presets\//)).toHaveLength(1);
  });
});

describe('per-call options', () => {
  it('each resource method takes its own maxRetries over the client\'s', async () => {
    const api = new FakeApi();
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: recordingSleep().sleep, maxRetries: 4 });
    api.addPresets(2);
    const busy = { status: 503, body: '{"message":"busy"}' };
    const fileKey = await client.uploads.upload(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]));
    const cases: [string, RegExp, () => Promise<unknown>][] = [
      ['GET', /\/presets\?/, () => client.presets.list({ maxRetries: 0 }).toArray()],
      ['GET', /\/presets\/seed0$/, () => client.presets.get('seed0', { maxRetries: 0 })],
      ['DELETE', /\/presets\/seed1$/, () => client.presets.delete('seed1', { maxRetries: 0 })],
      ['POST', /\/presets\/$/, () => client.presets.create({ name: 'N', file: new Uint8Array([1]), maxRetries: 0 })],
      ['GET', /\/upload\?/, () => client.uploads.upload(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), { maxRetries: 0 })],
      ['PUT', /storage\.test/, () => client.uploads.upload(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), { maxRetries: 0 })],
      ['GET', /\/pfc\?/, () => client.jobs.start({ fileKey }, { maxRetries: 0 })],
      ['GET', /\/status\//, () => client.jobs.status('job-1', { maxRetries: 0 })],
    ];
    for (const [method, re, call] of cases) {
      api.http.fail(method, re, busy);
      await expect(call(), `${method} ${re}`).rejects.toMatchObject({ status: 503 });
      expect(api.http.callsTo(method, re), `${method} ${re}`).toHaveLength(1);
      api.http.calls.length = 0;
    }
    // Without the override the client's retries get past the same fault.
    api.http.fail('GET', /\/presets\/seed0$/, busy);
    expect((await client.presets.get('seed0')).presetId).toBe('seed0');
    expect(api.http.callsTo('GET', /\/presets\/seed0$/)).toHaveLength(2);
  });
});
