/** The image pipeline through the API: resize rules, crop, output type and quality, metadata, background, counters. */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, CHELSEA, COFFEE, download, emulator, runJob } from './helpers';

let web: string;
beforeAll(async () => {
  // The pipeline without an engine (`engine: {}`): geometry and encoding only.
  // The default engine's look is covered by engine-default.test.ts and @pfc/engine's tests.
  web = (await emulator({ engine: {} })).web;
});
afterAll(closeAll);

async function outputOf(bytes: Buffer<ArrayBuffer>, query: Record<string, string | number | boolean>) {
  const r = await runJob(web, bytes, query);
  expect(r.status, r.statusText).toBe('COMPLETED');
  const { bytes: out, contentType } = await download(r);
  return { r, out, contentType, meta: await sharp(out).metadata() };
}

describe('resize (COFFEE is 600x400)', () => {
  it.each([
    [{ width: 300 }, [300, 200]],
    [{ height: 100 }, [150, 100]],
    [{ long: 120 }, [120, 80]],
    [{ short: 200 }, [300, 200]],
    [{ scale: 50 }, [300, 200]],
    [{ scale: 200 }, [1200, 800]],
    // Priority width > height > long > short > scale: only the first is used.
    [{ height: 100, width: 90 }, [90, 60]],
    [{ long: 120, height: 50 }, [75, 50]],
    [{ short: 100, long: 300 }, [300, 200]],
    [{ scale: 10, short: 100 }, [150, 100]],
  ])('%j → %j, aspect kept', async (query, [w, h]) => {
    const { r, meta } = await outputOf(COFFEE, query);
    expect([meta.width, meta.height]).toEqual([w, h]);
    expect(r.outputDimensions).toEqual({ width: w, height: h });
  });

  it('counts an enlargement as AI upscaling and a reduction as a classic resize', async () => {
    const up = await outputOf(COFFEE, { scale: 150 });
    expect([up.r.usage.imageResizeCount, up.r.usage.classicResizeCount, up.r.aiserver]).toEqual([1, 0, true]);
    const down = await outputOf(COFFEE, { width: 100, preset: 'none' });
    expect([down.r.usage.imageResizeCount, down.r.usage.classicResizeCount, down.r.aiserver]).toEqual([0, 1, false]);
    expect(down.r.usage.imageCorrectionCount).toBe(0);
  });

  it('rejects an AI upscale past the smallDetails output limit, naming it', async () => {
    const r = await runJob(web, COFFEE, { width: 9000, resize: 'smallDetails' });
    expect(r.status).toBe('REJECTED');
    expect(r.statusText).toMatch(/at most 8192 pixels with resize=smallDetails/);
  });
});

describe('output type and quality', () => {
  it('original keeps the source format: JPEG → JPEG, PNG → PNG', async () => {
    expect((await outputOf(COFFEE, {})).meta.format).toBe('jpeg');
    const png = await outputOf(CHELSEA, {});
    expect([png.meta.format, png.contentType]).toEqual(['png', 'image/png']);
    expect(png.r.correctedFile).toMatch(/\.png$/);
  });

  it('converts to the requested type', async () => {
    const toPng = await outputOf(COFFEE, { outputType: 'png' });
    expect([toPng.meta.format, toPng.contentType]).toEqual(['png', 'image/png']);
    const toJpg = await outputOf(CHELSEA, { outputType: 'jpg' });
    expect([toJpg.meta.format, toJpg.contentType]).toEqual(['jpeg', 'image/jpeg']);
  });

  it('outputQuality sets the JPEG quality (smaller file at 40 than at 100)', async () => {
    const q40 = await outputOf(COFFEE, { outputQuality: 40 });
    const q100 = await outputOf(COFFEE, { outputQuality: 100 });
    expect(q40.out.length).toBeLessThan(q100.out.length * 0.6);
  });
});

describe('preserveMetadata', () => {
  let tagged: Buffer<ArrayBuffer>;
  beforeAll(async () => {
    // 120x80 stored pixels, EXIF orientation 6 (shown 80x120), an EXIF copyright and an ICC profile.
    tagged = (await sharp(COFFEE)
      .resize(120, 80)
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'Emulator Test' } } })
      .withIccProfile('p3')
      .jpeg()
      .toBuffer()) as Buffer<ArrayBuffer>;
    const m = await sharp(tagged).metadata();
    expect([m.orientation, m.width, m.height, m.icc !== undefined]).toEqual([6, 120, 80, true]);
  });

  it('true (default) keeps EXIF and ICC, with pixels auto-oriented and orientation reset', async () => {
    const { r, meta, out } = await outputOf(tagged, {});
    expect(r.originalDimensions).toEqual({ width: 80, height: 120 });
    expect([meta.width, meta.height]).toEqual([80, 120]);
    expect(meta.orientation ?? 1).toBe(1);
    expect(meta.exif).toBeDefined();
    expect(meta.icc).toBeDefined();
    expect(out.includes(Buffer.from('Emulator Test'))).toBe(true);
  });

  it('false strips EXIF, ICC and XMP, still auto-oriented', async () => {
    const { meta, out } = await outputOf(tagged, { preserveMetadata: false });
    expect([meta.width, meta.height]).toEqual([80, 120]);
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(out.includes(Buffer.from('Emulator Test'))).toBe(false);
  });
});

describe('auto crop (no face detection without an engine: centred crop)', () => {
  it('crops to cropARW:cropARH, centred, and reports autoCrop and outputDimensions', async () => {
    const { r, meta } = await outputOf(COFFEE, { autocrop: true, cropARW: 1, cropARH: 1 });
    expect(r.autoCrop).toEqual({ x: 100, y: 0, width: 400, height: 400 });
    expect(r.outputDimensions).toEqual({ width: 400, height: 400 });
    expect([meta.width, meta.height]).toEqual([400, 400]);
    expect(r.usage.autoCropCount).toBe(1);
  });

  it('crops first, then resizes the crop', async () => {
    const { r, meta } = await outputOf(COFFEE, { autocrop: true, cropARW: 4, cropARH: 5, width: 160 });
    expect(r.autoCrop).toEqual({ x: 140, y: 0, width: 320, height: 400 });
    expect([meta.width, meta.height]).toEqual([160, 200]);
  });

  it('autocropDetectOnly returns the box without cropping', async () => {
    const { r, meta } = await outputOf(COFFEE, { autocrop: true, autocropDetectOnly: true, cropARW: 1, cropARH: 1 });
    expect(r.autoCrop).toEqual({ x: 100, y: 0, width: 400, height: 400 });
    expect([meta.width, meta.height]).toEqual([600, 400]);
  });
});

describe('background removal (opaque mask until an engine segments)', () => {
  it('gives PNG with an alpha channel when outputType is absent', async () => {
    const { r, meta, contentType } = await outputOf(COFFEE, { removeBackground: true });
    expect([meta.format, meta.hasAlpha, meta.channels, contentType]).toEqual(['png', true, 4, 'image/png']);
    expect(r.usage.removeBackgroundCount).toBe(1);
  });

  it('flattens to JPEG when outputType=jpg, and keeps the source format with outputType=original', async () => {
    const jpg = await outputOf(COFFEE, { removeBackground: true, bgColor: '#00ff00', outputType: 'jpg' });
    expect([jpg.meta.format, jpg.meta.hasAlpha]).toEqual(['jpeg', false]);
    const original = await outputOf(COFFEE, { removeBackground: true, outputType: 'original' });
    expect(original.meta.format).toBe('jpeg');
  });

  it('REJECTED with a clear text for generative backgrounds and AI Art (not available here)', async () => {
    const gen = await runJob(web, COFFEE, { removeBackground: true, bgGenerativePrompt: 'a beach' });
    expect([gen.status, gen.statusText]).toEqual(['REJECTED', expect.stringMatching(/generative backgrounds .* not available in the emulator/)]);
    const art = await runJob(web, COFFEE, { aiArt: 'oilPainting' });
    expect([art.status, art.statusText]).toEqual(['REJECTED', expect.stringMatching(/AI Art .* not available in the emulator/)]);
  });
});

describe('usage counters and detection data', () => {
  it('removeGlares counts the total and the detector run; the corrected count only when glare is found', async () => {
    const { r } = await outputOf(COFFEE, { removeGlares: true });
    expect(r.usage.removeGlaresTotalCount).toBe(1);
    expect(r.usage.glaresDetectorCount).toBe(1);
    expect(r.usage.removeGlaresCount).toBe(0);
    expect(r.usage.removeGlaresTotalCount).toBeGreaterThanOrEqual(r.usage.removeGlaresCount);
  });

  it('detectionData only with includeDetectionData=true', async () => {
    expect((await outputOf(COFFEE, {})).r).not.toHaveProperty('detectionData');
    const { r } = await outputOf(COFFEE, { includeDetectionData: true });
    expect(r.detectionData).toMatchObject({ facesCount: 0, faces: [], scene: 0, warnings: [], status: 'NOT_AVAILABLE' });
    for (const k of ['noise', 'redEye', 'message', 'status'] as const) expect(typeof r.detectionData![k]).toBe('string');
  });
});
