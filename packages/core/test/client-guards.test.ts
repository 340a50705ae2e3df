/**
 * Guards found by hand mutations of the clients (Web API, containers, BGR):
 * each test fails when one careless change is made to what reaches the
 * service, to what the caller is told, or to where the API key goes.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APIError,
  BgrClient,
  clearBgrLicenceCache,
  ConnectionError,
  ContainerClient,
  isRetryable,
  ProtocolError,
  readAll,
  TimeoutError,
  WebApiClient,
  type FetchLike,
} from '@pfc/core';
import { BASE, FakeApi, KEY } from './helpers/fake-api';
import { CONTAINER, FakeBgr, FakeContainer, BGR } from './container-fakes/fakes';
import { json, recordingSleep } from './helpers/fake-fetch';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 10, 20, 30, 40]);
const PRESET_FILE = new TextEncoder().encode('<preset name="Warm"/>');

function setup(api = new FakeApi(), extra: Partial<ConstructorParameters<typeof WebApiClient>[0]> = {}) {
  const sleep = recordingSleep();
  const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: sleep.sleep, ...extra });
  return { api, client, delays: sleep.delays };
}

describe('presets', () => {
  it('downloads a preset file with the key on the API origin only, never to another host', async () => {
    const { api, client } = setup();
    api.http.on('GET', /^https:\/\/files\.test\/presets\//, () => new Response(PRESET_FILE));
    const foreign = await client.presets.download({ presetId: 'p-ext', name: 'Ext', description: '', uri: 'https://files.test/presets/p-ext.preset' });
    expect([...foreign]).toEqual([...PRESET_FILE]);
    expect(api.http.callsTo('GET', /files\.test\/presets/)[0]!.headers.has('x-api-key')).toBe(false);

    const { presetId } = await client.presets.create({ name: 'Own', file: PRESET_FILE });
    expect([...(await client.presets.download(presetId))]).toEqual([...PRESET_FILE]);
    expect(api.http.callsTo('GET', /\/presets\/p\d+\/file$/)[0]!.headers.get('x-api-key')).toBe(KEY);
  });

  it('uploads the preset file itself to the address the POST gave', async () => {
    const { api, client } = setup();
    const { presetId } = await client.presets.create({ name: 'Bytes', description: 'd', file: PRESET_FILE });
    expect([...(api.files.get(presetId) ?? [])]).toEqual([...PRESET_FILE]);
    expect(api.presets[0]).toMatchObject({ name: 'Bytes', description: 'd' });
  });
});

describe('jobs: where the status and the result are asked for', () => {
  it('polls a status address on another host without the key, and the own origin with it', async () => {
    const api = new FakeApi();
    // The service hands out a status address on another host (a CDN or a regional endpoint).
    api.http.on('GET', /^https:\/\/api\.test\/v2\/pfc\?/, () => json({ statusEndpoint: 'https://status.test/v2/status/ext1' }));
    api.http.on('GET', /^https:\/\/status\.test\/v2\/status\/ext1/, () => json({ _id: 'ext1', status: 'COMPLETED', statusText: '', correctedFile: 'https://files.test/out/none' }));
    const { client } = setup(api);
    const handle = await client.jobs.start({ fileKey: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' });
    expect(handle).toMatchObject({ jobId: 'ext1', statusEndpoint: 'https://status.test/v2/status/ext1' });
    const job = await client.jobs.wait(handle);
    expect(job.status).toBe('COMPLETED');
    const polls = api.http.callsTo('GET', /status\.test/);
    expect(polls.length).toBeGreaterThan(0);
    for (const p of polls) expect(p.headers.has('x-api-key')).toBe(false);

    const own = await client.jobs.status(`${BASE}/status/job9`).catch(() => undefined);
    expect(own).toBeUndefined(); // no such job; what matters is the header sent
    expect(api.http.callsTo('GET', /api\.test\/v2\/status\/job9/)[0]!.headers.get('x-api-key')).toBe(KEY);
  });

  it('encodes a job id given by the caller into one path segment', async () => {
    const { api, client } = setup();
    await client.jobs.status('a/b?c').catch(() => undefined);
    expect(api.http.calls[0]!.url.pathname).toBe('/v2/status/a%2Fb%3Fc');
    expect(api.http.calls[0]!.url.searchParams.get('noRedirect')).toBe('true');
  });

  it('takes the job id from the status address, decoded, and reports it', async () => {
    const api = new FakeApi();
    api.http.on('GET', /^https:\/\/api\.test\/v2\/pfc\?/, () => json({ statusEndpoint: `${BASE}/status/batch%201%2F7` }));
    const { client } = setup(api);
    const handle = await client.jobs.start({ fileKey: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' });
    expect(handle.jobId).toBe('batch 1/7');
    expect(handle.statusEndpoint).toBe(`${BASE}/status/batch%201%2F7`);
  });

  it('starts the job with the values as validated, not as the caller spelt them', async () => {
    const { api, client } = setup();
    // A CLI or a host passing text: "0800" is the integer 800 to the validator, and 800 is what is sent.
    await client.jobs.start({ fileKey: FILE_KEY, width: '0800', autocrop: 'true' } as never);
    const q = api.http.callsTo('GET', /\/pfc\?/)[0]!.url.searchParams;
    expect(q.get('width')).toBe('800');
    expect(q.get('autocrop')).toBe('true');
  });

  it('downloads the corrected file without the key', async () => {
    const { api, client } = setup();
    await client.correctBytes(JPEG, {});
    const gets = api.http.callsTo('GET', /^https:\/\/files\.test\//);
    expect(gets).toHaveLength(1);
    expect(gets[0]!.headers.has('x-api-key')).toBe(false);
    expect(api.http.callsTo('PUT', /storage\.test/)[0]!.headers.has('x-api-key')).toBe(false);
  });
});

describe('what the caller is told when a job does not complete', () => {
  it('a COMPLETED record without correctedFile is a ProtocolError, not a download of nothing', async () => {
    const api = new FakeApi();
    api.http.on('GET', /^https:\/\/api\.test\/v2\/status\//, () => json({ _id: 'job2', status: 'COMPLETED', statusText: '' }));
    const { client } = setup(api);
    await expect(client.correct(JPEG, {})).rejects.toThrow(ProtocolError);
    await expect(client.correct(JPEG, {})).rejects.toThrow(/COMPLETED without correctedFile/);
  });

  it('returns the bytes of the result of its own job', async () => {
    const { client } = setup();
    const res = await client.correct(JPEG, {});
    expect((await readAll(res.body)).byteLength).toBe(JPEG.byteLength);
  });
});

/** A sleep that really waits (1 ms at most), so a deadline's timer can fire between polls. */
const shortSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, Math.min(ms, 1));
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** A job that never ends. */
function endlessApi(): FakeApi {
  const api = new FakeApi();
  api.script = ['PROCESSING'];
  return api;
}

const FILE_KEY = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';

describe('time limits the caller sets', () => {
  it('jobs.wait honours its own timeoutMs', { timeout: 5_000 }, async () => {
    const { client } = setup(endlessApi(), { sleep: shortSleep });
    const handle = await client.jobs.start({ fileKey: FILE_KEY });
    const err = (await client.jobs.wait(handle, { timeoutMs: 80 }).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.timeoutMs).toBe(80);
  });

  it("the client's jobTimeoutMs bounds jobs.wait and correct()", { timeout: 5_000 }, async () => {
    const { client } = setup(endlessApi(), { sleep: shortSleep, jobTimeoutMs: 80 });
    const handle = await client.jobs.start({ fileKey: FILE_KEY });
    await expect(client.jobs.wait(handle)).rejects.toMatchObject({ name: 'TimeoutError', timeoutMs: 80 });
    await expect(client.correct(JPEG, {})).rejects.toMatchObject({ name: 'TimeoutError', timeoutMs: 80 });
  });

  it('correct() honours options.timeoutMs, reported as the whole limit', { timeout: 5_000 }, async () => {
    const { client } = setup(endlessApi(), { sleep: shortSleep });
    const err = (await client.correct(JPEG, {}, { timeoutMs: 80 }).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe('correction (upload to result) timed out after 80 ms');
  });

  it("leaves no listener on the caller's long-lived signal once a wait or a correction ends", async () => {
    const { client } = setup();
    const ctrl = new AbortController();
    await client.correctBytes(JPEG, {}, { signal: ctrl.signal });
    const handle = await client.jobs.start({ fileKey: FILE_KEY });
    await client.jobs.wait(handle, { signal: ctrl.signal });
    expect(getEventListeners(ctrl.signal, 'abort')).toHaveLength(0);
  });
});

describe('a status request refused for the request rate (429)', () => {
  const STATUS = /^https:\/\/api\.test\/v2\/status\//;

  it("is asked again after the service's Retry-After, capped by retryAfterMaxMs", async () => {
    const api = new FakeApi();
    api.http.fail('GET', STATUS, { status: 429, headers: { 'retry-after': '7' } });
    const { client, delays } = setup(api);
    expect((await client.correctBytes(JPEG, {})).job?.status).toBe('COMPLETED');
    expect(delays.filter((d) => d >= 7000 && d <= 8400)).toHaveLength(1);

    const capped = new FakeApi();
    capped.http.fail('GET', STATUS, { status: 429, headers: { 'retry-after': '3600' } });
    const c2 = setup(capped, { retryAfterMaxMs: 5000 });
    await c2.client.correctBytes(JPEG, {});
    expect(Math.max(...c2.delays)).toBeLessThanOrEqual(6000);
    expect(c2.delays.filter((d) => d >= 5000)).toHaveLength(1);
  });
});

describe('errors: messages, redaction, retryability', () => {
  it('reads statusText from an error body (observed: error, message or statusText)', async () => {
    const api = new FakeApi();
    api.http.on('GET', /^https:\/\/api\.test\/v2\/upload\?/, () => json({ statusText: 'account suspended' }, { status: 402 }));
    const { client } = setup(api);
    const err = (await client.correct(JPEG, {}).catch((e: unknown) => e)) as APIError;
    expect(err).toBeInstanceOf(APIError);
    expect(err.message).toBe('GET /v2/upload answered 402: account suspended');
  });

  it('scrubs the key from the cause of a connection failure', async () => {
    const client = new WebApiClient({
      apiKey: KEY,
      baseURL: BASE,
      maxRetries: 0,
      sleep: recordingSleep().sleep,
      fetch: () => Promise.reject(new TypeError(`proxy refused header X-API-KEY: ${KEY}`)),
    });
    const err = (await client.uploads.ticket().catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).not.toContain(KEY);
    expect((err as { cause?: Error }).cause?.message).toBe('proxy refused header X-API-KEY: [redacted]');
  });

  it('treats 408 as worth another attempt, like 429 and 5xx, and other 4xx as not', () => {
    const at = (status: number) => APIError.fromResponse(status, undefined, undefined, 'GET /x');
    expect([408, 429, 500, 503].map((s) => isRetryable(at(s)))).toEqual([true, true, true, true]);
    expect([400, 401, 403, 404, 409].map((s) => isRetryable(at(s)))).toEqual([false, false, false, false, false]);
  });
});

describe('correct(): the caller\'s limit and signal reach every step', () => {
  it('one limit for upload and job together: time spent uploading is not given again to the job', { timeout: 10_000 }, async () => {
    const api = new FakeApi();
    api.script = ['PENDING', 'PROCESSING', 'PROCESSING', 'COMPLETED'];
    const slow = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Every upload takes 200 ms, every status request 50 ms.
    const fetch: FetchLike = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      await slow(url.includes('storage.test') ? 200 : url.includes('/status/') ? 50 : 0);
      return api.fetch(input, init);
    };
    const { client } = setup(api, { sleep: shortSleep, fetch });
    // Upload ≈ 200 ms, job ≈ 4 polls × 50 ms: each fits in 300 ms, both together do not.
    const err = await client.correct(JPEG, {}, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it('a signal aborted once the job is done stops the download of the result', async () => {
    const { api, client } = setup();
    const ctrl = new AbortController();
    const err = await client
      .correct(JPEG, {}, { signal: ctrl.signal, onProgress: (p) => p.phase === 'downloading' && ctrl.abort() })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'UserAbortError' });
    expect(api.http.callsTo('GET', /files\.test/).length).toBeLessThanOrEqual(1);
  });
});

describe('the client-wide poll policy', () => {
  it('spaces status requests as the client was told', async () => {
    const { delays, client } = setup(new FakeApi(), { poll: { initialDelayMs: 555, factor: 2, maxDelayMs: 5000, adaptive: false } });
    await client.correctBytes(JPEG, {});
    expect(delays.slice(0, 3)).toEqual([555, 1110, 2220]);
  });
});

describe('self-hosted containers', () => {
  afterEach(() => clearBgrLicenceCache());

  it('the colour container: credentials for a proxy go to its own origin only, never to another download address', async () => {
    const fake = new FakeContainer();
    fake.http.on('GET', /^http:\/\/cdn\.test\//, () => new Response(new Uint8Array([1, 2, 3])));
    const c = new ContainerClient({ baseURL: CONTAINER, fetch: fake.fetch, authHeaders: () => ({ authorization: 'Bearer proxy-secret-1234' }), sleep: recordingSleep().sleep });
    await c.download('http://cdn.test/out/a.jpg');
    expect(fake.http.callsTo('GET', /cdn\.test/)[0]!.headers.has('authorization')).toBe(false);
    await c.download(`${CONTAINER}/corrected/none.jpg`).catch(() => undefined);
    expect(fake.http.callsTo('GET', /box\.test:8081\/corrected/)[0]!.headers.get('authorization')).toBe('Bearer proxy-secret-1234');
  });

  it('the colour container: a correction is bounded by processingTimeout', { timeout: 5_000 }, async () => {
    const fake = new FakeContainer();
    const slowFetch: FetchLike = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (/\/pfc\/[^/?]+/.test(url)) {
        await new Promise((resolve, reject) => {
          const t = setTimeout(resolve, 400);
          init?.signal?.addEventListener('abort', () => (clearTimeout(t), reject(init.signal!.reason)), { once: true });
        });
      }
      return fake.fetch(input, init);
    };
    const c = new ContainerClient({ baseURL: CONTAINER, fetch: slowFetch, processingTimeout: 60, timeout: 2_000, maxRetries: 0, sleep: recordingSleep().sleep });
    const { imageKey } = await c.upload(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]));
    await expect(c.correct(imageKey, {})).rejects.toBeInstanceOf(TimeoutError);
  });

  it('background removal: the licence key is scrubbed from errors in its URL-encoded form too', async () => {
    const key = 'LIC 7f3a/9c1e+2b';
    const fake = new FakeBgr();
    const fetch: FetchLike = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/Authorize/')) return Promise.reject(new TypeError(`fetch failed: ${url}`));
      return fake.fetch(input, init);
    };
    const c = new BgrClient({ baseURL: BGR, fetch, licenseKey: key, maxRetries: 0, sleep: recordingSleep().sleep });
    const err = (await c.authorize().catch((e: unknown) => e)) as ConnectionError;
    expect(err).toBeInstanceOf(ConnectionError);
    const shown = `${String(err)} ${(err as { cause?: Error }).cause?.message ?? ''}`;
    expect(shown).not.toContain(encodeURIComponent(key));
    expect(shown).not.toContain(key);
  });

  it('background removal: waitFor gives up at its deadline rather than polling on', async () => {
    const fake = new FakeBgr();
    fake.script = ['processing'];
    const c = new BgrClient({ baseURL: BGR, fetch: fake.fetch, licenseKey: 'LIC-7f3a9c1e2b', sleep: recordingSleep().sleep });
    const { process_id } = await c.submit(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]));
    const err = await c.waitFor(process_id, { timeoutMs: 100, pollIntervalMs: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(fake.http.callsTo('GET', /CheckImage/)).toHaveLength(1);
  });
});
