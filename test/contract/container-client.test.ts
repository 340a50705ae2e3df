/**
 * The colour-correction container client against the emulator: every
 * documented query parameter, the answer's fields, the error ids (typed), the
 * 503 retries, the origin rewrite, GET /version and the retention rule.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, ContainerClient, ContainerError, ParameterError, readAll, type ContainerParams, type RetryInfo } from '@pfc/core';
import { createContainerServer, startEmulator, type ContainerServer } from '@pfc/emulator';
import { sample, type Emulator } from './webapi-fixtures';

const COFFEE = sample('objects/coffee.jpg'); // 600x400 JPEG
const CHELSEA = sample('objects/chelsea.png'); // 451x300 PNG
let emu: Emulator;
let container: ContainerServer;
let client: ContainerClient;
const logs: string[] = [];

beforeAll(async () => {
  emu = await startEmulator({ bgr: false, container: { logLevel: 'debug', log: (l) => logs.push(l) } });
  container = emu.selfHosted.container!;
  mkdirSync(container.folders.presets, { recursive: true });
  writeFileSync(join(container.folders.presets, 'Studio.preset'), 'preset file');
  // A real ICC profile for outputColorSpace: sharp's own sRGB profile, copied under another name.
  const icc = (await sharp(await sharp(COFFEE).withIccProfile('srgb').toBuffer()).metadata()).icc!;
  writeFileSync(join(container.folders.presets, 'house-srgb.icc'), icc);
  client = new ContainerClient({ baseURL: emu.urls.container!, retryBaseDelayMs: 1 });
});
afterAll(() => emu?.close());

async function run(params: ContainerParams, input: Uint8Array = COFFEE) {
  const { imageKey } = await client.upload(input);
  const correction = await client.correct(imageKey, params);
  const file = await client.download(correction);
  const bytes = Buffer.from(await readAll(file.body));
  return { correction, file, bytes, meta: await sharp(bytes).metadata() };
}

describe('container client × emulator: parameters', () => {
  it.each<[string, ContainerParams, { format: string; width: number; height: number }]>([
    ['no parameters: the input format and size', {}, { format: 'jpeg', width: 600, height: 400 }],
    ['outputType PNG', { outputType: 'PNG' }, { format: 'png', width: 600, height: 400 }],
    ['outputType jpg', { outputType: 'jpg' }, { format: 'jpeg', width: 600, height: 400 }],
    ['width: height follows', { width: 300 }, { format: 'jpeg', width: 300, height: 200 }],
    ['height: width follows', { height: 100 }, { format: 'jpeg', width: 150, height: 100 }],
    ['long edge', { long: 240 }, { format: 'jpeg', width: 240, height: 160 }],
    ['short edge', { short: 100 }, { format: 'jpeg', width: 150, height: 100 }],
    ['scale percent', { scale: 50 }, { format: 'jpeg', width: 300, height: 200 }],
    ['priority width > height > long > short > scale', { scale: 10, short: 50, long: 100, height: 80, width: 120 }, { format: 'jpeg', width: 120, height: 80 }],
    ['priority long > short > scale', { scale: 10, short: 50, long: 90 }, { format: 'jpeg', width: 90, height: 60 }],
    ['autocrop with a crop aspect ratio', { autocrop: true, cropARW: '1', cropARH: '1' }, { format: 'jpeg', width: 400, height: 400 }],
  ])('%s', async (_name, params, expected) => {
    const { meta, correction } = await run(params);
    expect(meta).toMatchObject(expected);
    // The default engine's scene detector: 0 (general) for the coffee cup, not -1 (not detected).
    expect(correction.scene).toBe(0);
  });

  it('PNG input keeps PNG by default; outputQuality changes JPEG size (40 < 100)', async () => {
    expect((await run({}, CHELSEA)).meta).toMatchObject({ format: 'png', width: 451, height: 300 });
    const low = await run({ outputQuality: 40 });
    const high = await run({ outputQuality: 100 });
    expect(low.bytes.length).toBeLessThan(high.bytes.length / 2);
  });

  it('preset and outputColorSpace (srgb, an ICC file from /presets) are applied; a missing preset is unknownPresetMessage', async () => {
    const srgb = await run({ preset: 'Studio', outputColorSpace: 'srgb' });
    expect(srgb.meta).toMatchObject({ space: 'srgb', hasProfile: true });
    const icc = await run({ outputColorSpace: 'house-srgb.icc', outputType: 'PNG' });
    expect(icc.meta).toMatchObject({ format: 'png', hasProfile: true });
    const { imageKey } = await client.upload(COFFEE);
    const err = await client.correct(imageKey, { preset: 'Missing' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContainerError);
    expect(err).toMatchObject({ status: 400, code: 'unknownPresetMessage' });
    await expect(client.correct(imageKey, { outputColorSpace: 'nope.icc' })).rejects.toMatchObject({ code: 'unknownPresetMessage' });
  });

  it('skip and skip-exif-software: the container skips the correction (logged) for an image edited by a named program', async () => {
    const edited = await sharp(COFFEE).withExif({ IFD0: { Software: 'GIMP 2.10.34' } }).jpeg().toBuffer();
    const before = logs.length;
    await run({ preset: 'Studio', skipExifSoftware: ['Photoshop', 'gimp'], skip: 'none', enableComposite: false }, edited);
    const line = logs.slice(before).map((l) => JSON.parse(l) as { message: string; skipped?: string }).find((l) => l.message === 'image corrected');
    expect(line?.skipped).toMatch(/edited with GIMP 2\.10\.34 \(skip-exif-software: gimp\)/);
    const flat = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const before2 = logs.length;
    await run({ preset: 'Studio', skip: 'clipart' }, flat);
    const line2 = logs.slice(before2).map((l) => JSON.parse(l) as { message: string; skipped?: string }).find((l) => l.message === 'image corrected');
    expect(line2?.skipped).toMatch(/looks like clipart/);
  });

  it('preserveInputFileName names the output after the input', async () => {
    const { correction } = await run({ preserveInputFileName: true });
    expect(correction.correctedUrl).toBe(`http://localhost/output/${correction.imageKey}`);
  });

  it('refuses bad values, unsafe keys and other content types before sending anything', async () => {
    const before = { ...container.requests };
    await expect(client.correct('x', { outputQuality: 39 })).rejects.toThrow(/outputQuality must be an integer from 40 to 100/);
    await expect(client.correct('../../etc/passwd')).rejects.toThrow(ParameterError);
    await expect(client.correct('a\u0000b')).rejects.toThrow(/control characters/);
    await expect(client.upload(await sharp(COFFEE).webp().toBuffer())).rejects.toThrow(/accepts image\/jpeg or image\/png \(got image\/webp\)/);
    expect(container.requests).toEqual(before);
  });
});

describe('container client × emulator: errors', () => {
  it('unknownImageIdMessage for a key that does not exist', async () => {
    await expect(client.correct('no-such-image.jpg')).rejects.toMatchObject({ name: 'ContainerError', status: 400, code: 'unknownImageIdMessage' });
  });

  it('processingPFCErrorMessage (503) is retried with backoff, then thrown typed', async () => {
    const retries: RetryInfo[] = [];
    const c = new ContainerClient({ baseURL: emu.urls.container!, retryBaseDelayMs: 1, maxRetries: 2, onRetry: (i) => retries.push(i) });
    const { imageKey } = await c.upload(COFFEE.subarray(0, 2000));
    await expect(c.correct(imageKey)).rejects.toMatchObject({ status: 503, code: 'processingPFCErrorMessage' });
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('a 503 that clears is retried to success (injected disk-full on the output file)', async () => {
    const { imageKey } = await client.upload(COFFEE);
    container.injectFault('temporaryOutputFileMessage');
    expect((await client.correct(imageKey)).correctedUrl).toMatch(/\/output\//);
    container.injectFault('temporaryFileCreationMessage');
    expect((await client.upload(COFFEE)).imageKey).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('container client × emulator: corrected_url origin', () => {
  it('rewrites the documented default http://localhost to where the container was reached, and says so', async () => {
    const { correction, bytes } = await run({});
    expect(correction.correctedUrl).toMatch(/^http:\/\/localhost\/output\//);
    expect(correction.originRewritten).toBe(true);
    expect(correction.downloadUrl.startsWith(emu.urls.container!)).toBe(true);
    expect(correction.warnings.join()).toMatch(/PFC_SITE_URL/);
    expect(bytes.length).toBeGreaterThan(1000);
  });

  it('keeps a correct PFC_SITE_URL as it is', async () => {
    // The site URL must name the port, so take a free one first.
    const probe = await createContainerServer();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const s = await createContainerServer({ port, siteUrl: `http://127.0.0.1:${port}` });
    try {
      const c = new ContainerClient({ baseURL: s.url });
      const r = await c.correct((await c.upload(COFFEE)).imageKey);
      expect(r).toMatchObject({ originRewritten: false, downloadUrl: r.correctedUrl });
      expect(r.warnings).toEqual([]);
      expect((await sharp(Buffer.from(await readAll((await c.download(r)).body))).metadata()).width).toBe(600);
    } finally {
      await s.close();
    }
  });

  it('rewriteOrigin: false downloads exactly what the container said (here: nothing listens there)', async () => {
    const s = await createContainerServer({ siteUrl: 'http://127.0.0.1:9' });
    try {
      const literal = new ContainerClient({ baseURL: s.url, rewriteOrigin: false, maxRetries: 0 });
      const r = await literal.correct((await literal.upload(COFFEE)).imageKey);
      expect(r).toMatchObject({ originRewritten: false, downloadUrl: r.correctedUrl });
      expect(r.correctedUrl).toMatch(/^http:\/\/127\.0\.0\.1:9\/output\//);
      await expect(literal.download(r)).rejects.toBeInstanceOf(ConnectionError);
    } finally {
      await s.close();
    }
  });
});

describe('container client × emulator: version and retention', () => {
  it('GET /version answers the SDK version and features; health is true, and false when nothing listens', async () => {
    const v = await client.version();
    expect(v.sdkVersion).toMatch(/emulator/);
    expect(v.features).toContain('direct-file-access');
    expect(await client.health()).toBe(true);
    expect(await new ContainerClient({ baseURL: 'http://127.0.0.1:9' }).health({ timeout: 5000 })).toBe(false);
  });

  it('uploads and outputs older than PFC_IMG_CACHE_TTL are gone after the sweep', async () => {
    let now = Date.now();
    const s = await createContainerServer({ cacheTtlMinutes: 2, now: () => now });
    try {
      const c = new ContainerClient({ baseURL: s.url, retryBaseDelayMs: 1 });
      const { imageKey } = await c.upload(COFFEE);
      const r = await c.correct(imageKey);
      now += 3 * 60_000;
      expect(await s.sweep()).toBe(2);
      await expect(c.download(r)).rejects.toMatchObject({ status: 404 });
      await expect(c.correct(imageKey)).rejects.toMatchObject({ code: 'unknownImageIdMessage' });
    } finally {
      await s.close();
    }
  });
});
