import { afterEach, describe, expect, it } from 'vitest';
import {
  BgrClient,
  BgrError,
  BgrJobFailedError,
  BgrLicenceError,
  BgrNotReadyError,
  ParameterError,
  UserAbortError,
  clearBgrLicenceCache,
  createBgrBackend,
  readAll,
  type RetryInfo,
} from '@pfc/core';
import { BGR, FakeBgr, JPEG, LICENCE, PNG } from './container-fakes/fakes';
import { recordingSleep } from './helpers/fake-fetch';

function client(fake: FakeBgr, extra: Record<string, unknown> = {}) {
  return new BgrClient({ baseURL: BGR, fetch: fake.fetch, licenseKey: LICENCE, pollIntervalMs: 5, sleep: recordingSleep().sleep, ...extra });
}

afterEach(() => clearBgrLicenceCache());

describe('BGR licence', () => {
  it('activates once per container instance, shared by clients of the same base URL', async () => {
    const fake = new FakeBgr();
    await client(fake).submit(JPEG);
    await client(fake).submit(JPEG);
    expect(fake.http.callsTo('GET', /Authorize/)).toHaveLength(1);
    expect(fake.http.callsTo('POST', /SubmitImage/)).toHaveLength(2);
  });

  it('activates again once when the container reports Unlicensed (restart), then succeeds', async () => {
    const fake = new FakeBgr();
    const c = client(fake);
    await c.submit(JPEG);
    fake.licensed = false;
    await c.submit(JPEG);
    expect(fake.http.callsTo('GET', /Authorize/)).toHaveLength(2);
    expect(fake.http.callsTo('POST', /SubmitImage/)).toHaveLength(3);
  });

  it('fails with a clear licence error, never showing the key, when activation does not stick', async () => {
    const fake = new FakeBgr();
    fake.http.on('POST', /SubmitImage/, () => new Response('{"detail":"Unlicensed","status":"Unlicensed"}', { status: 403 }));
    const err = await client(fake).submit(JPEG).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BgrLicenceError);
    expect((err as Error).message).toMatch(/still reports Unlicensed after activating it again/);
    expect(fake.http.callsTo('GET', /Authorize/)).toHaveLength(2);
    expect(JSON.stringify(err) + String(err)).not.toContain(LICENCE);
  });

  it('refuses a rejected key with BgrLicenceError and no key in message or body', async () => {
    const fake = new FakeBgr();
    fake.http.on('GET', /Authorize/, () => new Response(JSON.stringify({ status: 'Unlicensed', message: `key ${LICENCE} is not valid`, 'licensed org': '', 'expiration date': '' })));
    const err = (await client(fake).authorize().catch((e: unknown) => e)) as BgrLicenceError;
    expect(err).toBeInstanceOf(BgrLicenceError);
    expect(err.message).toMatch(/refused the licence key \(status Unlicensed\): key \[redacted\] is not valid/);
    expect(JSON.stringify(err.licence)).not.toContain(LICENCE);
  });

  it('keeps the key out of retry notices and connection errors', async () => {
    const fake = new FakeBgr();
    const retries: RetryInfo[] = [];
    fake.http.fail('GET', /Authorize/, { status: 500, body: `boom ${LICENCE}` }, 'reset', 'reset', 'reset', 'reset');
    const err = await client(fake, { onRetry: (i: RetryInfo) => retries.push(i) }).authorize().catch((e: unknown) => e);
    expect(retries).toHaveLength(4);
    for (const r of retries) {
      expect(r.request).toBe('GET /Authorize/[redacted]');
      expect(String(r.error) + JSON.stringify((r.error as { body?: unknown }).body ?? '')).not.toContain(LICENCE);
    }
    expect(String(err)).toMatch(/could not reach GET \/Authorize\/\[redacted\]/);
  });

  it("tells a correction's own onRetry of the activation's waits, with and without a key", async () => {
    for (const licenseKey of [LICENCE, undefined]) {
      clearBgrLicenceCache();
      const fake = new FakeBgr();
      if (!licenseKey) fake.licensed = true; // someone else activated it
      fake.http.fail('GET', licenseKey ? /Authorize/ : /\/Status$/, { status: 503, headers: { 'retry-after': '0' } });
      const waits: RetryInfo[] = [];
      const backend = createBgrBackend({ bgr: client(fake, { licenseKey }) });
      await backend.correct(JPEG, { removeBackground: true }, { onRetry: (i) => waits.push(i) });
      expect(waits.map((w) => [w.request, w.attempt])).toEqual([[licenseKey ? 'GET /Authorize/[redacted]' : 'GET /Status', 1]]);
    }
  });

  it('without a key, accepts a container someone else activated and refuses an unlicensed one', async () => {
    const fake = new FakeBgr();
    await expect(client(fake, { licenseKey: undefined }).submit(JPEG)).rejects.toThrow(/Unlicensed and no licenseKey was given/);
    fake.licensed = true;
    clearBgrLicenceCache();
    await expect(client(fake, { licenseKey: undefined }).submit(JPEG)).resolves.toMatchObject({ status: 'processing' });
    expect(fake.http.callsTo('GET', /Authorize/)).toHaveLength(0);
  });

  it('answers 400 for a missing key as licenceKeyMissing', async () => {
    const fake = new FakeBgr();
    await expect(client(fake).authorize('')).rejects.toThrow(ParameterError);
  });
});

describe('BgrClient calls', () => {
  it('sends an image once per submit, again only when the container says it did nothing (503)', async () => {
    for (const [fault, posts] of [[{ status: 500 }, 1], ['reset', 1], [{ status: 503 }, 2]] as const) {
      clearBgrLicenceCache(); // each fake is a container of its own, activated anew
      const fake = new FakeBgr();
      fake.http.fail('POST', /SubmitImage/, fault);
      await client(fake).submit(JPEG).catch(() => undefined);
      expect(fake.http.callsTo('POST', /SubmitImage/), JSON.stringify(fault)).toHaveLength(posts);
    }
  });

  it('submits multipart file, mode and config, with pre/postprocessing in the query', async () => {
    const fake = new FakeBgr();
    const r = await client(fake).submit(JPEG, { mode: 'portrait', preprocessing: true, postprocessing: false, preprocessingConfig: { strength: 2 }, fileName: 'me.jpg' });
    expect(r).toMatchObject({ status: 'processing', mode: 'portrait', preprocessing_enabled: 'true' });
    const job = fake.jobs.get(r.process_id)!;
    expect(job.name).toBe('me.jpg');
    expect(job.form.get('preprocessing_config')).toBe('{"strength":2}');
    expect(Object.fromEntries(job.query)).toEqual({ preprocessing: 'true', postprocessing: 'false' });
    expect(((job.form.get('file') as File).type)).toBe('image/jpeg');
  });

  it('checks options and ids before sending', async () => {
    const fake = new FakeBgr();
    const c = client(fake);
    await expect(c.submit(JPEG, { mode: 'pets' as never })).rejects.toThrow(/mode must be one of portrait, general/);
    await expect(c.submit(JPEG, { preprocessingConfig: '{nope' })).rejects.toThrow(/preprocessing_config must be a JSON object/);
    await expect(c.check('../../etc')).rejects.toThrow(/process_id must be a UUID/);
    expect(fake.http.calls).toHaveLength(0);
  });

  it('maps every documented status to a typed code', async () => {
    const fake = new FakeBgr();
    const c = client(fake, { maxRetries: 0 });
    const id = (await c.submit(JPEG)).process_id;
    const cases: [string, RegExp, number, string, () => Promise<unknown>][] = [
      ['GET', /CheckImage/, 400, 'invalidProcessId', () => c.check(id)],
      ['GET', /CheckImage/, 404, 'notFound', () => c.check(id)],
      ['DELETE', /RemoveImage/, 404, 'notFound', () => c.remove(id)],
      ['DELETE', /RemoveImage/, 400, 'invalidProcessId', () => c.remove(id)],
      ['POST', /SubmitImage/, 404, 'invalidFile', () => c.submit(JPEG)],
      ['POST', /SubmitImage/, 422, 'missingFile', () => c.submit(JPEG)],
      ['GET', /DownloadImage/, 500, 'processingFailed', () => c.download(id, { verify: false })],
      ['GET', /DownloadImage/, 404, 'notFound', () => c.download(id, { verify: false })],
      ['GET', /CheckImage/, 500, 'internalError', () => c.check(id)],
    ];
    for (const [method, re, status, code, call] of cases) {
      fake.http.fail(method, re, { status, body: '{"detail":"x"}' });
      const e = await call().catch((x: unknown) => x);
      expect(e, `${method} ${re} ${status}`).toBeInstanceOf(BgrError);
      expect(e).toMatchObject({ status, code });
    }
  });

  it('takes per-call retries over the client\'s on every request', async () => {
    const fake = new FakeBgr();
    const c = client(fake, { maxRetries: 3 });
    const id = (await c.submit(JPEG)).process_id;
    const calls: [string, RegExp, () => Promise<unknown>][] = [
      ['GET', /CheckImage/, () => c.check(id, { maxRetries: 0 })],
      ['GET', /Status$/, () => c.status({ maxRetries: 0 })],
      ['DELETE', /RemoveImage/, () => c.remove(id, { maxRetries: 0 })],
      ['GET', /DownloadImage/, () => c.download(id, { verify: false, maxRetries: 0 })],
    ];
    for (const [method, re, call] of calls) {
      fake.http.fail(method, re, { status: 503, body: '{"detail":"busy"}' });
      await expect(call(), `${method} ${re}`).rejects.toMatchObject({ status: 503 });
      expect(fake.http.callsTo(method, re), `${method} ${re}`).toHaveLength(1);
      fake.http.calls.length = 0;
    }
    // A call that sets none keeps the client's retries.
    fake.http.fail('GET', /Status$/, { status: 503, body: '{"detail":"busy"}' });
    await expect(c.status()).resolves.toBeDefined();
    expect(fake.http.callsTo('GET', /Status$/)).toHaveLength(2);
  });

  it('never downloads before CheckImage says completed; a non-200 answer is not a result', async () => {
    const fake = new FakeBgr();
    const c = client(fake);
    const id = (await c.submit(JPEG)).process_id;
    await expect(c.download(id)).rejects.toThrow(BgrNotReadyError);
    expect(fake.http.callsTo('GET', /DownloadImage/)).toHaveLength(0);
    await expect(c.download(id, { verify: false })).rejects.toThrow(/not ready \(HTTP 202\)/);
    await c.waitFor(id);
    expect(await readAll((await c.download(id)).body)).toEqual(PNG);
  });
});

describe('removeBackground', () => {
  it('submits, polls, downloads and removes the job', async () => {
    const fake = new FakeBgr();
    const phases: string[] = [];
    const r = await client(fake).removeBackground(JPEG, { onProgress: (p) => phases.push(p.phase) });
    expect(r.bytes).toEqual(PNG);
    expect(r).toMatchObject({ contentType: 'image/png', removed: true, check: { status: 'completed', processing_time: 0.5 } });
    expect(phases).toEqual(['uploading', 'queued', 'processing', 'downloading', 'done']);
    expect(fake.jobs.size).toBe(0);
  });

  it('removes the job when it failed', async () => {
    const fake = new FakeBgr();
    fake.script = ['processing', 'failed'];
    const err = await client(fake).removeBackground(JPEG).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BgrJobFailedError);
    expect((err as BgrJobFailedError).reason).toBe('model exploded');
    expect(fake.http.callsTo('DELETE', /RemoveImage/)).toHaveLength(1);
    expect(fake.jobs.size).toBe(0);
  });

  it('removes the job when the caller aborts while it is processing', async () => {
    const fake = new FakeBgr();
    fake.script = ['processing'];
    const ctrl = new AbortController();
    const err = await client(fake, { sleep: undefined, pollIntervalMs: 5 })
      .removeBackground(JPEG, { signal: ctrl.signal, onProgress: (p) => p.phase === 'processing' && ctrl.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserAbortError);
    expect(fake.http.callsTo('DELETE', /RemoveImage/)).toHaveLength(1);
    expect(fake.jobs.size).toBe(0);
  });

  it('as a backend: the common result shape; colour-correction parameters are refused', async () => {
    const fake = new FakeBgr();
    const backend = createBgrBackend({ bgr: client(fake), submit: { mode: 'portrait' } });
    const r = await backend.correct(JPEG, { removeBackground: true });
    expect(r).toMatchObject({ backend: 'bgr', contentType: 'image/png', info: { mode: 'portrait', processingTime: 0.5, removed: true } });
    expect(r.warnings[0]).toMatch(/no colour correction/);
    expect(await readAll(r.body)).toEqual(PNG);
    const check = backend.validate({ removeBackground: true, width: 100, preset: 'Pro', bgColor: 'red', outputType: 'jpg' });
    expect(check.errors.map((e) => e.param).sort()).toEqual(['bgColor', 'outputType', 'preset', 'width']);
  });
});
