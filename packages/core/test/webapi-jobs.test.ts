import { describe, expect, it } from 'vitest';
import { JobFailedError, ParameterError, pollDelays, ProtocolError, RateLimitError, type RetryInfo, TimeoutError, UserAbortError, WebApiClient } from '@pfc/core';
import { BASE, FakeApi, KEY } from './helpers/fake-api';
import { json, recordingSleep } from './helpers/fake-fetch';

const FILE_KEY = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';

function setup(api = new FakeApi()) {
  const s = recordingSleep();
  const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: s.sleep });
  return { api, client, delays: s.delays };
}

describe('jobs.start', () => {
  it('validates before sending anything and names each bad parameter with its range', async () => {
    const { api, client } = setup();
    const err = (await client.jobs.start({ fileKey: FILE_KEY, width: 20, outputQuality: 101 }).catch((e: unknown) => e)) as ParameterError;
    expect(err).toBeInstanceOf(ParameterError);
    expect(err.params).toEqual(['width', 'outputQuality']);
    expect(err.message).toBe('width must be an integer from 32 to 10000 (got "20"); outputQuality must be an integer from 40 to 100 (got "101")');
    await expect(client.jobs.start({ width: 800 })).rejects.toThrow(/fileKey is required/);
    expect(api.http.calls).toHaveLength(0);
  });

  it('sends the typed parameters as a query and returns the handle with the priority warnings', async () => {
    const { api, client } = setup();
    const h = await client.jobs.start({ fileKey: FILE_KEY, width: 800, long: 600, preset: 'School and Sports', removeBackground: true, bgColor: '#00ff00' });
    expect(h.jobId).toBe('job1');
    expect(h.statusEndpoint).toBe(`${BASE}/status/job1`);
    expect(h.warnings).toEqual(['several resize parameters were sent (width, long); the service uses width and ignores long']);
    const call = api.http.callsTo('GET', /\/pfc/)[0]!;
    expect(call.url.search).toContain('preset=School%20and%20Sports');
    expect(call.url.search).toContain('bgColor=%2300ff00');
    expect(call.url.searchParams.get('removeBackground')).toBe('true');
    expect(call.headers.get('x-api-key')).toBe(KEY);
  });

  it('tells a retried 429 of a job start as the jobs limit, and a 429 of an upload ticket as a request rate', async () => {
    const api = new FakeApi();
    api.http.fail('GET', /\/pfc/, { status: 429, headers: { 'retry-after': '0' } });
    api.http.fail('GET', /\/upload/, { status: 429, headers: { 'retry-after': '0' } });
    const retries: RetryInfo[] = [];
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, sleep: recordingSleep().sleep, onRetry: (r) => retries.push(r) });
    await client.jobs.start({ fileKey: FILE_KEY });
    await client.uploads.ticket();
    expect(retries.map((r) => [r.error instanceof RateLimitError, r.rateLimit])).toEqual([[true, 'jobs'], [true, 'requests']]);
  });

  it('turns a /pfc answer without statusEndpoint into a ProtocolError carrying the body', async () => {
    const api = new FakeApi();
    api.http.fail('GET', /\/pfc/, { status: 200, body: '{"message":"Insufficient credits"}' });
    const { client } = setup(api);
    const err = (await client.jobs.start({ fileKey: FILE_KEY }).catch((e: unknown) => e)) as ProtocolError;
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.message).toBe('GET /pfc answered without statusEndpoint: Insufficient credits');
    expect(err.body).toEqual({ message: 'Insufficient credits' });
    api.http.fail('GET', /\/pfc/, { status: 200, body: 'Service busy' });
    await expect(client.jobs.start({ fileKey: FILE_KEY })).rejects.toThrow('GET /pfc answered without statusEndpoint: Service busy');
  });
});

describe('jobs.status', () => {
  it('adds noRedirect=true with the URL API, keeping an existing query', async () => {
    const api = new FakeApi();
    api.http.on('GET', /^https:\/\/api\.test\/v2\/state\/7/, () => json({ _id: '7', status: 'PROCESSING' }));
    const { client } = setup(api);
    await client.jobs.status('https://api.test/v2/state/7?region=eu&sig=a%2Fb');
    expect(api.http.calls[0]!.url.href).toBe('https://api.test/v2/state/7?region=eu&sig=a%2Fb&noRedirect=true');
    // Unknown to the fake (404); only the address matters here.
    await client.jobs.status('job-id with space').catch(() => undefined);
    expect(api.http.calls[1]!.url.href).toBe('https://api.test/v2/status/job-id%20with%20space?noRedirect=true');
  });

  it('sends the key to the API origin only', async () => {
    const api = new FakeApi();
    api.http.on('GET', /^https:\/\/elsewhere\.test\//, () => json({ _id: '9', status: 'PENDING' }));
    const { client } = setup(api);
    await client.jobs.status('https://elsewhere.test/v2/status/9');
    expect(api.http.calls[0]!.headers.has('x-api-key')).toBe(false);
  });

  it('rejects an answer that is not a job record', async () => {
    const api = new FakeApi();
    api.http.on('GET', /\/status\/odd/, () => new Response('<html>maintenance</html>'));
    await expect(setup(api).client.jobs.status('odd')).rejects.toThrow(/answered something other than a job record: <html>maintenance/);
  });
});

describe('waitForJob', () => {
  it('polls with a growing, capped delay and reports each record', async () => {
    const api = new FakeApi();
    api.script = [...Array<'PENDING'>(3).fill('PENDING'), ...Array<'PROCESSING'>(8).fill('PROCESSING'), 'COMPLETED'];
    const { client, delays } = setup(api);
    const h = await client.jobs.start({ fileKey: FILE_KEY });
    const seen: string[] = [];
    const job = await client.waitForJob(h, { onStatus: (j) => seen.push(j.status) });
    expect(job.status).toBe('COMPLETED');
    expect(job.correctedFile).toBe('https://files.test/out/job1');
    expect(seen).toEqual(api.script);
    expect(delays).toEqual(pollDelays({}, 12));
    expect(delays.slice(0, 4)).toEqual([150, 225, 338, 506]);
    expect(Math.max(...delays)).toBe(2000);
    expect(api.http.callsTo('GET', /\/status\//).every((c) => c.url.searchParams.get('noRedirect') === 'true')).toBe(true);
  });

  it.each(['FAILED', 'REJECTED'] as const)('turns %s into JobFailedError carrying statusText', async (state) => {
    const api = new FakeApi();
    api.script = ['PENDING', 'PROCESSING', state];
    api.statusText = 'Image is smaller than 32x32 pixels';
    const { client } = setup(api);
    const h = await client.jobs.start({ fileKey: FILE_KEY });
    const err = (await client.waitForJob(h).catch((e: unknown) => e)) as JobFailedError;
    expect(err).toBeInstanceOf(JobFailedError);
    expect(err.status).toBe(state);
    expect(err.statusText).toBe('Image is smaller than 32x32 pixels');
    expect(err.message).toBe(`job job1 ${state}: Image is smaller than 32x32 pixels`);
    expect((err.job as { _id: string })._id).toBe('job1');
  });

  it('stops when aborted mid-poll, with no further requests', async () => {
    const api = new FakeApi();
    api.script = ['PROCESSING'];
    const { client } = setup(api);
    const h = await client.jobs.start({ fileKey: FILE_KEY });
    const ctrl = new AbortController();
    let polls = 0;
    const err = await client
      .waitForJob(h, { signal: ctrl.signal, onStatus: () => ++polls === 3 && ctrl.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserAbortError);
    expect(api.http.callsTo('GET', /\/status\//)).toHaveLength(3);
  });

  it('aborts a status request that is in flight', async () => {
    const api = new FakeApi();
    api.http.on('GET', /\/status\/hang/, () => new Promise<Response>(() => undefined));
    const { client } = setup(api);
    const ctrl = new AbortController();
    const waiting = client.waitForJob('hang', { signal: ctrl.signal });
    await expect.poll(() => api.http.calls.length).toBe(1);
    ctrl.abort();
    await expect(waiting).rejects.toBeInstanceOf(UserAbortError);
  });

  it('ends with TimeoutError after the overall limit', async () => {
    const api = new FakeApi();
    api.script = ['PROCESSING'];
    // Real timers: polls every 5 ms, gives up after 60 ms.
    const client = new WebApiClient({ apiKey: KEY, baseURL: BASE, fetch: api.fetch, poll: { initialDelayMs: 5, maxDelayMs: 5 } });
    const h = await client.jobs.start({ fileKey: FILE_KEY });
    const err = (await client.waitForJob(h, { timeoutMs: 60 }).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe(`waiting for ${BASE}/status/job1 timed out after 60 ms`);
  });
});

describe('jobs.download', () => {
  it('fetches correctedFile without the key, as a stream or as bytes', async () => {
    const api = new FakeApi();
    const { client } = setup(api);
    const key = await client.uploadFile(new Uint8Array([1, 2, 3]));
    const job = await client.waitForJob(await client.jobs.start({ fileKey: key }));
    const file = await client.jobs.download(job);
    expect(file.contentType).toBe('image/jpeg');
    expect(file.size).toBe(3);
    expect([...new Uint8Array(await new Response(file.body).arrayBuffer())]).toEqual([254, 253, 252]);
    expect([...(await client.jobs.downloadBytes(job))]).toEqual([254, 253, 252]);
    expect(api.http.callsTo('GET', /files\.test/).every((c) => !c.headers.has('x-api-key'))).toBe(true);
  });

  it('refuses a record without correctedFile', async () => {
    const { client } = setup();
    await expect(client.jobs.download({ _id: 'x', status: 'PROCESSING' } as never)).rejects.toThrow('job x has no correctedFile (status PROCESSING)');
  });
});
