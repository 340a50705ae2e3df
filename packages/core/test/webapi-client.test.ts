import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  createWebBackend,
  isRetryable,
  JobLostError,
  NotFoundError,
  DEFAULT_BASE_URL,
  JobFailedError,
  ParameterError,
  readAll,
  UserAbortError,
  WebApiClient,
  type CorrectionBackend,
  type CorrectionProgress,
  type LostJobRetryInfo,
} from '@pfc/core';
import { BASE, corrected, FakeApi, KEY } from './helpers/fake-api';
import { json, recordingSleep } from './helpers/fake-fetch';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 10, 20, 30, 40]);

function setup(api = new FakeApi()) {
  const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: recordingSleep().sleep });
  return { api, client };
}

describe('WebApiClient options and the API key', () => {
  it('defaults to the public base address and needs a key', () => {
    expect(new WebApiClient({ apiKey: 'k-123', fetch: new FakeApi().fetch }).baseURL).toBe(DEFAULT_BASE_URL);
    expect(() => new WebApiClient({ apiKey: '' })).toThrow(/needs options.apiKey/);
  });

  it('never shows the key in its printable forms', () => {
    const { client } = setup();
    expect(JSON.stringify(client)).toBe(`{"kind":"web","baseURL":"${BASE}"}`);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(KEY);
    expect(inspect(client.jobs, { depth: 10, showHidden: true })).not.toContain(KEY);
    expect(String(client)).not.toContain(KEY);
    expect(Object.values(client).map((v) => inspect(v, { depth: 10 })).join()).not.toContain(KEY);
  });

  it('keeps the key out of errors, even when the server echoes it', async () => {
    const api = new FakeApi();
    const wrong = 'sk-wrong-key-77777';
    const client = new WebApiClient({ apiKey: wrong, baseURL: BASE, fetch: api.fetch });
    const err = (await client.uploads.ticket().catch((e: unknown) => e)) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toBe('GET /v2/upload answered 401: invalid API key [redacted]');
    for (const text of [String(err), err.stack ?? '', JSON.stringify(err), inspect(err, { depth: 10, showHidden: true })]) {
      expect(text).not.toContain(wrong);
    }
    expect(api.http.calls[0]!.headers.get('x-api-key')).toBe(wrong);
  });
});

describe('correct()', () => {
  it('uploads, starts, polls and returns the corrected bytes with the final job', async () => {
    const { api, client } = setup();
    const phases: CorrectionProgress['phase'][] = [];
    const res = await client.correct(JPEG, { outputType: 'jpg', width: 640, scale: 50 }, { onProgress: (p) => phases.push(p.phase) });
    expect([...(await readAll(res.body))]).toEqual([...corrected(JPEG)]);
    expect(res.backend).toBe('web');
    expect(res.contentType).toBe('image/jpeg');
    expect(res.job?.status).toBe('COMPLETED');
    expect(res.warnings).toEqual(['several resize parameters were sent (width, scale); the service uses width and ignores scale']);
    expect(res.info).toMatchObject({ jobId: 'job2', statusEndpoint: `${BASE}/status/job2` });
    expect(phases).toEqual(['validating', 'uploading', 'queued', 'queued', 'processing', 'processing', 'downloading', 'done']);
    const pfc = api.http.callsTo('GET', /\/pfc/)[0]!.url.searchParams;
    expect(pfc.get('fileKey')).toBe(res.info.fileKey);
    expect(pfc.get('width')).toBe('640');
    expect(pfc.has('fileType')).toBe(false);
  });

  it('takes the job slot after the upload and gives it back once the job is final, before the download', async () => {
    const { api, client } = setup();
    const seen: string[] = [];
    const count = () => `put ${api.http.callsTo('PUT', /./).length} pfc ${api.http.callsTo('GET', /\/pfc/).length} result ${api.http.callsTo('GET', /files\.test/).length}`;
    const res = await client.correct(JPEG, {}, {
      jobSlot: async () => {
        seen.push(`take: ${count()}`);
        return () => seen.push(`give back: ${count()}`);
      },
    });
    expect([...(await readAll(res.body))]).toEqual([...corrected(JPEG)]);
    expect(seen).toEqual(['take: put 1 pfc 0 result 0', 'give back: put 1 pfc 1 result 0']);
    expect(client.usesJobSlot).toBe(true);

    // A refused slot ends the correction with its error, before the job starts.
    const refused = await client.correct(JPEG, {}, { jobSlot: () => Promise.reject(new UserAbortError()) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UserAbortError);
    expect(api.http.callsTo('GET', /\/pfc/)).toHaveLength(1);

    // A FAILED job gives its slot back too.
    api.script = ['PROCESSING', 'FAILED'];
    let given = 0;
    const failed = await client.correct(JPEG, {}, { jobSlot: async () => () => given++ }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(JobFailedError);
    expect(given).toBe(1);
  });

  it('correctBytes collects the result and keeps the job', async () => {
    const { client } = setup();
    const out = await client.correctBytes(new Blob([JPEG], { type: 'image/jpeg' }), {});
    expect([...out.bytes]).toEqual([...corrected(JPEG)]);
    expect(out.job?._id).toBe('job2');
  });

  it('rejects bad parameters and unsupported inputs before any upload', async () => {
    const { api, client } = setup();
    const err = (await client.correct(JPEG, { autocropDetectOnly: true, bgShadow: 'soft' }).catch((e: unknown) => e)) as ParameterError;
    expect(err).toBeInstanceOf(ParameterError);
    expect(err.message).toBe('autocropDetectOnly requires autocrop=true; bgShadow requires removeBackground=true');
    const gif = new Blob([new Uint8Array([0x47, 0x49, 0x46])], { type: 'image/gif' });
    await expect(client.correct(gif, {})).rejects.toThrow('a image input must be image/jpeg or image/png (got image/gif)');
    await expect(client.correct(JPEG, { removeBackground: true }, { size: 31 * 1024 ** 2 })).rejects.toThrow(/background removal needs an input below 30 MB/);
    await expect(client.correct(JPEG, { fileKey: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' })).rejects.toThrow(/fileKey is set by correct\(\)/);
    await expect(client.correct(JPEG, { fileType: 'image' }, { fileType: 'video' })).rejects.toThrow(/fileType is image in the parameters but video/);
    expect(api.http.calls).toHaveLength(0);
  });

  it('sends a video as fileType=video on both the ticket and the job', async () => {
    const { api, client } = setup();
    const mp4 = new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]);
    await client.correctBytes(mp4, {});
    expect(api.http.callsTo('GET', /\/upload/)[0]!.url.searchParams.get('fileType')).toBe('video');
    expect(api.http.callsTo('GET', /\/pfc/)[0]!.url.searchParams.get('fileType')).toBe('video');
  });

  it('aborts during polling and sends nothing afterwards', async () => {
    const api = new FakeApi();
    api.script = ['PROCESSING'];
    const { client } = setup(api);
    const ctrl = new AbortController();
    const err = await client
      .correct(JPEG, {}, { signal: ctrl.signal, onProgress: (p) => p.phase === 'processing' && ctrl.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserAbortError);
    const n = api.http.calls.length;
    await new Promise((r) => setTimeout(r, 20));
    expect(api.http.calls.length).toBe(n);
  });

  it('is a CorrectionBackend that hosts can use without knowing the client', async () => {
    const backend: CorrectionBackend = createWebBackend({ apiKey: KEY, baseURL: BASE, fetch: new FakeApi().fetch, sleep: recordingSleep().sleep });
    expect(backend.kind).toBe('web');
    expect(backend.validate({ width: 10 }).errors[0]?.param).toBe('width');
    const res = await backend.correct(JPEG, { preset: 'none' });
    expect((await readAll(res.body)).byteLength).toBe(JPEG.byteLength);
    const presets = [];
    for await (const p of backend.listPresets!()) presets.push(p);
    expect(presets).toEqual([]);
  });
});

describe('correct(): a service that forgets what it was given (it restarted)', () => {
  /** The correction's error, with whether a whole new attempt is worth making. */
  async function failure(api: FakeApi): Promise<{ err: Error; retryable: boolean }> {
    const { client } = setup(api);
    const err = (await client.correct(JPEG, {}).catch((e: unknown) => e)) as Error;
    return { err, retryable: isRetryable(err) };
  }

  it('an upload address, a job or a result the service no longer knows is a lost job: another attempt may succeed', async () => {
    const forgotUpload = new FakeApi();
    forgotUpload.http.on('PUT', /^https:\/\/storage\.test\/put\//, () => new Response('<Error><Code>NoSuchUpload</Code></Error>', { status: 404 }));
    const forgotJob = new FakeApi();
    forgotJob.http.on('GET', /^https:\/\/api\.test\/v2\/status\//, () => json({ error: 'no such job' }, { status: 404 }));
    const forgotResult = new FakeApi();
    forgotResult.http.on('GET', /^https:\/\/files\.test\/out\//, () => json({ error: 'gone' }, { status: 404 }));
    const forgotFileKey = new FakeApi();
    forgotFileKey.http.on('GET', /^https:\/\/api\.test\/v2\/pfc\?/, (_req, url) => json({ message: `fileKey ${url.searchParams.get('fileKey')} is unknown` }, { status: 400 }));
    for (const [api, request] of [[forgotUpload, 'PUT pre-signed upload on storage.test'], [forgotJob, 'GET /v2/status/'], [forgotResult, 'GET corrected file'], [forgotFileKey, 'GET /v2/pfc']] as const) {
      const { err, retryable } = await failure(api);
      expect(err, request).toBeInstanceOf(JobLostError);
      expect((err as JobLostError).request.startsWith(request), (err as JobLostError).request).toBe(true);
      expect(err.message).toMatch(/no longer knows what this correction sent or started/);
      expect(retryable, request).toBe(true);
    }
  });

  it('a 404 on the ticket (a wrong address) or a start refused for something else is not', async () => {
    const wrongAddress = new FakeApi();
    wrongAddress.http.on('GET', /^https:\/\/api\.test\/v2\/upload\?/, () => json({ error: 'not found' }, { status: 404 }));
    const noSuchPreset = new FakeApi();
    noSuchPreset.http.on('GET', /^https:\/\/api\.test\/v2\/pfc\?/, () => json({ message: 'no preset with id p-404' }, { status: 404 }));
    for (const api of [wrongAddress, noSuchPreset]) {
      const { err, retryable } = await failure(api);
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err).not.toBeInstanceOf(JobLostError);
      expect(retryable).toBe(false);
    }
  });
});

describe('correct() with lostJobAttempts: the whole correction again when the service lost its job', () => {
  const STATUS = /^https:\/\/api\.test\/v2\/status\//;
  const PUT = /^https:\/\/storage\.test\/put\//;
  const START = /^https:\/\/api\.test\/v2\/pfc\?/;
  const lost = { status: 404, body: JSON.stringify({ error: 'no such job' }) };

  function client(api: FakeApi) {
    const sleep = recordingSleep();
    return { client: new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: sleep.sleep }), delays: sleep.delays };
  }

  it('sends the file again from a new upload, after a wait it says, and returns that result', async () => {
    const api = new FakeApi();
    api.http.fail('GET', STATUS, lost);
    const { client: c, delays } = client(api);
    const told: LostJobRetryInfo[] = [];
    const res = await c.correct(JPEG, { preset: 'Universal' }, { lostJobAttempts: 3, onLostJob: (i) => told.push(i) });
    expect([...(await readAll(res.body))]).toEqual([...corrected(JPEG)]);
    expect(api.http.callsTo('PUT', PUT)).toHaveLength(2);
    const starts = api.http.callsTo('GET', START);
    expect(starts).toHaveLength(2);
    // The same parameters, each time with its own upload.
    expect(starts.map((c) => c.url.searchParams.get('preset'))).toEqual(['Universal', 'Universal']);
    expect(new Set(starts.map((c) => c.url.searchParams.get('fileKey'))).size).toBe(2);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ attempt: 2, attempts: 3 });
    expect(told[0]!.error).toBeInstanceOf(JobLostError);
    expect(told[0]!.delayMs).toBeGreaterThanOrEqual(500);
    expect(told[0]!.delayMs).toBeLessThanOrEqual(1500);
    expect(delays).toContain(told[0]!.delayMs);
  });

  it('gives up after its attempts with the lost job, waiting longer each time', async () => {
    const api = new FakeApi();
    api.http.fail('GET', STATUS, lost, lost, lost);
    const { client: c } = client(api);
    const told: LostJobRetryInfo[] = [];
    await expect(c.correct(JPEG, {}, { lostJobAttempts: 3, onLostJob: (i) => told.push(i) })).rejects.toBeInstanceOf(JobLostError);
    expect(api.http.callsTo('PUT', PUT)).toHaveLength(3);
    expect(told.map((t) => t.attempt)).toEqual([2, 3]);
    expect(told[1]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(told[1]!.delayMs).toBeLessThanOrEqual(3000);
  });

  it('by default, for another error, for a stream (read once) or once cancelled: no new attempt', async () => {
    const once = async (setupApi: (api: FakeApi) => void, input: Uint8Array | ReadableStream<Uint8Array>, options: Parameters<WebApiClient['correct']>[2]) => {
      const api = new FakeApi();
      setupApi(api);
      const err = await client(api).client.correct(input, {}, { size: JPEG.byteLength, contentType: 'image/jpeg', ...options }).catch((e: unknown) => e);
      return { err, uploads: api.http.callsTo('PUT', PUT).length };
    };
    const lostOnce = (api: FakeApi) => api.http.fail('GET', STATUS, lost);
    expect(await once(lostOnce, JPEG, {})).toMatchObject({ err: expect.any(JobLostError), uploads: 1 });
    expect(await once((api) => api.http.fail('GET', START, { status: 400, body: JSON.stringify({ message: 'bad preset' }) }), JPEG, { lostJobAttempts: 3 })).toMatchObject({ uploads: 1 });
    const stream = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(JPEG), c.close()) });
    expect(await once(lostOnce, stream, { lostJobAttempts: 3 })).toMatchObject({ err: expect.any(JobLostError), uploads: 1 });
    const stop = new AbortController();
    expect(await once(lostOnce, JPEG, { lostJobAttempts: 3, signal: stop.signal, onLostJob: () => stop.abort() })).toMatchObject({ err: expect.any(UserAbortError), uploads: 1 });
  });
});
