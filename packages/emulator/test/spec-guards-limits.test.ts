/**
 * Spec guards: documented input limits at their exact edges, and the colour
 * model the Web API takes. Each test here failed with the emulator loosened
 * the way its name says (hand mutation). Plain fetch over HTTP.
 */
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, emulator, runJob } from './helpers';

afterEach(closeAll);

describe('"below" a byte limit refuses a file of exactly that size (web-api-v2.md, Limits)', () => {
  it('AI upscaling: "input below 50 MB" — an input exactly at the limit is REJECTED, one byte under runs', async () => {
    const at = await emulator({ engine: {}, limits: { maxUpscaleInputBytes: COFFEE.length } });
    const r = await runJob(at.web, COFFEE, { width: 1200 });
    expect(r.status).toBe('REJECTED');
    expect(r.statusText).toMatch(/AI upscaling needs an input below/);
    const above = await emulator({ engine: {}, limits: { maxUpscaleInputBytes: COFFEE.length + 1 } });
    expect((await runJob(above.web, COFFEE, { width: 1200 })).status).toBe('COMPLETED');
  });

  it('background removal: "input below 30 MB" — an input exactly at the limit is REJECTED, one byte under runs', async () => {
    const at = await emulator({ engine: {}, limits: { maxBackgroundInputBytes: COFFEE.length } });
    const r = await runJob(at.web, COFFEE, { removeBackground: true });
    expect(r.status).toBe('REJECTED');
    expect(r.statusText).toMatch(/background removal needs an input below/);
    const above = await emulator({ engine: {}, limits: { maxBackgroundInputBytes: COFFEE.length + 1 } });
    expect((await runJob(above.web, COFFEE, { removeBackground: true })).status).toBe('COMPLETED');
  });
});

describe('"JPEG and PNG in RGB or RGBA" (web-api-v2.md, Limits)', () => {
  it('a CMYK JPEG is REJECTED (415), not converted', async () => {
    const emu = await emulator({ engine: {} });
    const cmyk = await sharp(COFFEE).toColourspace('cmyk').jpeg().toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    const r = await runJob(emu.web, new Uint8Array(cmyk));
    expect(r.status).toBe('REJECTED');
    expect(r.code).toBe(415);
    expect(r.statusText).toMatch(/CMYK images are not supported/);
  });
});
