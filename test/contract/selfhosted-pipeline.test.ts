/**
 * The self-hosted pipeline (`createSelfHostedBackend`): colour correction on the
 * container, then background removal on the BGR container, as one call on the
 * emulator's two container servers — the self-hosted `removeBackground=true`.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearBgrLicenceCache,
  createBgrBackend,
  createContainerBackend,
  createSelfHostedBackend,
  createWebBackend,
  ParameterError,
  readAll,
  type CorrectionResult,
} from '@pfc/core';
import { startEmulator } from '@pfc/emulator';
import { API_KEY, sample, type Emulator } from './webapi-fixtures';

const LICENCE = 'pipeline-licence-5d8e';
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ apiKeys: [API_KEY], bgr: { licenseKey: LICENCE } });
});
afterAll(async () => {
  clearBgrLicenceCache();
  await emu?.close();
});

const selfHosted = () =>
  createSelfHostedBackend({
    container: { baseURL: emu.urls.container!, retryBaseDelayMs: 1 },
    bgr: { baseURL: emu.urls.bgr!, licenseKey: LICENCE, pollIntervalMs: 20 },
    bgrSubmit: { mode: 'portrait' },
  });

async function alphaStats(bytes: Uint8Array) {
  const img = sharp(Buffer.from(bytes));
  const meta = await img.metadata();
  const alpha = (await img.stats()).channels[3];
  return { meta, alpha };
}

describe('self-hosted pipeline', () => {
  it('JPEG in, transparent PNG out at the input size; every step cleaned up on the BGR side', async () => {
    const phases: string[] = [];
    const r = await selfHosted().correct(sample('portraits/astronaut.jpg'), { removeBackground: true }, { fileName: 'astronaut.jpg', onProgress: (p) => phases.push(p.phase) });
    expect(r.backend).toBe('container+bgr');
    expect(r.contentType).toBe('image/png');
    const { meta, alpha } = await alphaStats(await readAll(r.body));
    expect(meta).toMatchObject({ format: 'png', width: 512, height: 512, channels: 4, hasAlpha: true });
    expect(alpha!.min).toBe(0); // some background made transparent
    expect(alpha!.max).toBe(255); // some subject kept
    // scene 1 (portrait): the containers run the default imaging engine.
    expect(r.info).toMatchObject({ scene: 1, originRewritten: true, processId: expect.any(String), mode: 'portrait', removed: true, originalName: 'astronaut.png' });
    expect(r.warnings.join('\n')).toMatch(/PFC_SITE_URL/);
    expect(phases).toEqual(expect.arrayContaining(['validating', 'uploading', 'processing', 'downloading']));
    expect(await emu.selfHosted.bgr!.files()).toEqual([]);
  });

  it('resizes on the container first (width), then cuts out at that size', async () => {
    const r = await selfHosted().correct(sample('outdoors/rocket.jpg'), { removeBackground: true, width: 300, bgColor: 'transparent' });
    const { meta } = await alphaStats(await readAll(r.body));
    expect(meta).toMatchObject({ format: 'png', width: 300, hasAlpha: true });
  });

  it('without removeBackground it is the container alone', async () => {
    const r = await selfHosted().correct(sample('objects/coffee.jpg'), { outputType: 'jpg' });
    expect(r.backend).toBe('container');
    expect((await sharp(Buffer.from(await readAll(r.body))).metadata()).format).toBe('jpeg');
  });

  it('refuses what only the Web API can do, before any upload', async () => {
    const before = { ...emu.selfHosted.container!.requests };
    for (const params of [{ removeBackground: true, bgColor: '#ff0000' }, { removeBackground: true, outputType: 'jpg' as const }, { removeBackground: true, bgGenerativePrompt: 'a beach' }, { aiArt: 'cartoon' as const }]) {
      await expect(selfHosted().correct(sample('objects/coffee.jpg'), params)).rejects.toBeInstanceOf(ParameterError);
    }
    expect(emu.selfHosted.container!.requests).toEqual(before);
  });

  it('gives the same result shape as the Web API path and the other backends', async () => {
    const results: CorrectionResult[] = [
      await createWebBackend({ apiKey: API_KEY, baseURL: emu.web }).correct(sample('objects/coffee.jpg'), { removeBackground: true }),
      await selfHosted().correct(sample('objects/coffee.jpg'), { removeBackground: true }),
      await createContainerBackend({ container: { baseURL: emu.urls.container! } }).correct(sample('objects/coffee.jpg'), {}),
      await createBgrBackend({ bgr: { baseURL: emu.urls.bgr!, licenseKey: LICENCE, pollIntervalMs: 20 } }).correct(sample('objects/coffee.jpg'), {}),
    ];
    const shape = (r: CorrectionResult) => ({
      body: r.body instanceof ReadableStream,
      contentType: typeof r.contentType,
      backend: typeof r.backend,
      warnings: Array.isArray(r.warnings),
      info: typeof r.info,
    });
    for (const r of results) {
      expect(shape(r)).toEqual(shape(results[0]!));
      const bytes = await readAll(r.body);
      expect(bytes.length).toBeGreaterThan(1000);
    }
    expect(results.map((r) => r.backend)).toEqual(['web', 'container+bgr', 'container', 'bgr']);
    expect(results.slice(0, 2).map((r) => r.contentType)).toEqual(['image/png', 'image/png']);
  });
});
