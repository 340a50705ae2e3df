/**
 * The background-removal client against the emulator: licence flow, every
 * call and field, the documented codes as typed errors, "still processing"
 * never taken as a result, and removal of our jobs after success, failure and abort.
 */
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BgrClient,
  BgrError,
  BgrJobFailedError,
  BgrLicenceError,
  BgrNotReadyError,
  ParameterError,
  TimeoutError,
  UserAbortError,
  clearBgrLicenceCache,
  readAll,
  type BgrClientOptions,
} from '@pfc/core';
import { createBgrServer, type BgrServer } from '@pfc/emulator';
import { sample } from './webapi-fixtures';

const KEY = 'bgr-contract-licence-71c3';
const COFFEE = sample('objects/coffee.jpg');
let bgr: BgrServer;

beforeAll(async () => {
  bgr = await createBgrServer({ licenseKey: KEY, downloadHoldMs: 100, processingHeartbeatMs: 20 });
});
afterEach(async () => {
  bgr.release();
  await bgr.idle();
  clearBgrLicenceCache();
});
afterAll(() => bgr?.close());

const client = (extra: Partial<BgrClientOptions> = {}) => new BgrClient({ baseURL: bgr.url, licenseKey: KEY, pollIntervalMs: 20, retryBaseDelayMs: 1, ...extra });

describe('BGR client × emulator: licence', () => {
  it('activates once per container instance and again after a restart, transparently', async () => {
    bgr.deactivate();
    const before = bgr.requests['bgr.authorize'] ?? 0;
    const c = client();
    await c.remove((await c.submit(COFFEE)).process_id);
    await client().remove((await client().submit(COFFEE)).process_id);
    expect((bgr.requests['bgr.authorize'] ?? 0) - before).toBe(1);
    bgr.deactivate(); // the container restarted
    await c.remove((await c.submit(COFFEE)).process_id);
    expect((bgr.requests['bgr.authorize'] ?? 0) - before).toBe(2);
    expect(await c.status()).toMatchObject({ status: 'Licensed', 'licensed org': 'Emulated Studio', model_version: expect.any(String) });
  });

  it('a wrong key is a licence error that never shows the key; without a key an unlicensed container is refused', async () => {
    bgr.deactivate();
    const err = await client({ licenseKey: 'wrong-key-0000' }).submit(COFFEE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BgrLicenceError);
    expect(String(err)).not.toContain('wrong-key-0000');
    await expect(client({ licenseKey: undefined }).submit(COFFEE)).rejects.toThrow(/Unlicensed and no licenseKey was given/);
    const ok = await client().authorize();
    expect(ok).toMatchObject({ status: 'Licensed', 'expiration date': expect.stringMatching(/^\d{4}-\d\d$/) });
  });
});

describe('BGR client × emulator: calls and fields', () => {
  it('submit, check (queued, processing, completed), download and remove with every documented field', async () => {
    const c = client();
    bgr.hold();
    const sub = await c.submit(COFFEE, { mode: 'portrait', preprocessing: true, postprocessing: true, preprocessingConfig: { edge: 1 }, fileName: 'cup.jpg' });
    expect(sub).toMatchObject({ status: 'processing', mode: 'portrait', preprocessing_enabled: 'true', message: expect.any(String) });
    const second = await c.submit(COFFEE);
    expect(second.mode).toBe('general');
    expect((await c.check(second.process_id)).status).toBe('queued');
    expect(await c.check(sub.process_id)).toEqual({ status: 'processing', original_name: 'cup.jpg', mode: 'portrait' });
    await expect(c.download(sub.process_id)).rejects.toBeInstanceOf(BgrNotReadyError);
    // Asked anyway: the emulator holds it (interim 102s), then answers 202; not a result.
    await expect(c.download(sub.process_id, { verify: false })).rejects.toThrow(/not ready \(HTTP 202\)/);
    bgr.release();
    const done = await c.waitFor(sub.process_id);
    expect(done).toMatchObject({ status: 'completed', original_name: 'cup.jpg', mode: 'portrait', processing_time: expect.any(Number) });
    const png = Buffer.from(await readAll((await c.download(sub.process_id)).body));
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 600, height: 400, hasAlpha: true });
    expect(await c.remove(sub.process_id)).toEqual({ status: 'deleted', process_id: sub.process_id, files_deleted: 2, previous_status: 'completed' });
    expect(await c.remove(second.process_id)).toMatchObject({ status: 'deleted' });
    expect(await bgr.files()).toEqual([]);
  });

  it('documented codes as typed errors: 404 invalid file, 400/404 ids, 500 processing failed', async () => {
    const c = client({ maxRetries: 0 });
    await expect(c.submit(new TextEncoder().encode('not an image'), { contentType: 'image/jpeg' })).rejects.toMatchObject({ name: 'BgrError', status: 404, code: 'invalidFile' });
    const unknown = '0f0e0d0c-0b0a-4909-8807-060504030201';
    await expect(c.check(unknown)).rejects.toMatchObject({ status: 404, code: 'notFound' });
    await expect(c.remove(unknown)).rejects.toMatchObject({ status: 404, code: 'notFound' });
    await expect(c.download(unknown, { verify: false })).rejects.toMatchObject({ status: 404, code: 'notFound' });
    await expect(c.check('not-a-uuid')).rejects.toBeInstanceOf(ParameterError);
    const broken = (await c.submit(COFFEE.subarray(0, 3000))).process_id;
    const failed = await c.waitFor(broken).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(BgrJobFailedError);
    expect((failed as BgrJobFailedError).reason).toMatch(/processing failed/);
    const dl = await c.download(broken, { verify: false }).catch((e: unknown) => e);
    expect(dl).toBeInstanceOf(BgrError);
    expect(dl).toMatchObject({ status: 500, code: 'processingFailed' });
    await c.remove(broken);
  });
});

describe('BGR client × emulator: removeBackground always removes its job', () => {
  it('after success: a transparent PNG of the input size, and no files left', async () => {
    const r = await client().removeBackground(COFFEE, { mode: 'general' });
    expect(r.removed).toBe(true);
    const meta = await sharp(Buffer.from(r.bytes)).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 600, height: 400, channels: 4 });
    expect(await bgr.files()).toEqual([]);
  });

  it('after the job failed', async () => {
    await expect(client().removeBackground(COFFEE.subarray(0, 3000))).rejects.toBeInstanceOf(BgrJobFailedError);
    expect(await bgr.files()).toEqual([]);
  });

  it('after the caller aborted while it was processing', async () => {
    bgr.hold();
    const ctrl = new AbortController();
    const removed = bgr.requests['bgr.remove'] ?? 0;
    const err = await client()
      .removeBackground(COFFEE, { signal: ctrl.signal, onProgress: (p) => p.phase === 'processing' && ctrl.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserAbortError);
    expect((bgr.requests['bgr.remove'] ?? 0) - removed).toBe(1);
    bgr.release();
    await bgr.idle();
    expect(await bgr.files()).toEqual([]);
  });

  it('after its own time limit ran out', async () => {
    bgr.hold();
    await expect(client().removeBackground(COFFEE, { timeoutMs: 100 })).rejects.toBeInstanceOf(TimeoutError);
    bgr.release();
    await bgr.idle();
    expect(await bgr.files()).toEqual([]);
  });
});
