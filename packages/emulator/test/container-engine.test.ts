/**
 * The colour-correction container emulation with its default engine
 * (@pfc/engine's createImagingEngine, shared with the Web API), over HTTP as a
 * user's script drives it: PUT /pfc, GET /pfc/{key}, GET /output/{file}.
 * Started through `startEmulator` with no `engine` option, so the default
 * wiring is what is tested. Generous timeouts: the first request loads the
 * engine's models (as the container document says of the real one).
 */
import { createImagingEngine, meanDeltaE2000, SCENE } from '@pfc/engine';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContainerServer } from '../src/container/server';
import { ASTRONAUT, closeAll, COFFEE, emulator } from './helpers';

let container = '';
beforeAll(async () => {
  container = (await emulator({ bgr: false })).urls.container!;
}, 60_000);
afterAll(closeAll);

interface Rgb {
  data: Buffer;
  width: number;
  height: number;
  channels: 3;
}
async function rgb(bytes: Buffer): Promise<Rgb> {
  const { data, info } = await sharp(bytes).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

/**
 * Linear-light gains on R, G, B, as a wrong white balance and exposure give.
 * [0.6, 0.45, 0.3] (blue down most) is a warm cast on an under-exposed photo,
 * the degradation of @pfc/engine's own colour test.
 */
async function linearGains(bytes: Buffer, gains: readonly [number, number, number]): Promise<Buffer> {
  const img = await rgb(bytes);
  const lin = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const enc = (v: number) => (v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055);
  const out = Buffer.alloc(img.data.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(enc(Math.min(1, lin(img.data[i]! / 255) * gains[i % 3]!)) * 255);
  return sharp(out, { raw: img }).jpeg({ quality: 95 }).toBuffer();
}

/** Mean red over mean blue: above the original's when the image is too warm. */
function warmth(img: Rgb): number {
  let r = 0;
  let b = 0;
  for (let p = 0; p < img.data.length; p += 3) {
    r += img.data[p]!;
    b += img.data[p + 2]!;
  }
  return r / Math.max(1, b);
}

async function correct(base: string, bytes: Buffer, query = ''): Promise<{ scene: number; output: Buffer }> {
  const put = await fetch(`${base}/pfc`, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Uint8Array(bytes) });
  expect(put.status).toBe(200);
  const { imageKey } = (await put.json()) as { imageKey: string };
  const res = await fetch(`${base}/pfc/${imageKey}${query}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { corrected_url: string; scene: number };
  const out = await fetch(`${base}${new URL(body.corrected_url).pathname}`);
  expect(out.status).toBe(200);
  return { scene: body.scene, output: Buffer.from(await out.arrayBuffer()) };
}

describe('colour-correction container: the default engine', () => {
  it('brings a warm-cast, dark portrait much closer to the original; scene is the engine\'s (portrait)', async () => {
    const degraded = await linearGains(ASTRONAUT, [0.6, 0.45, 0.3]);
    const { scene, output } = await correct(container, degraded);
    const [orig, bad, fixed] = await Promise.all([rgb(ASTRONAUT), rgb(degraded), rgb(output)]);
    expect({ width: fixed.width, height: fixed.height }).toEqual({ width: orig.width, height: orig.height });
    // Much closer to the undegraded photo (CIEDE2000).
    const before = meanDeltaE2000(bad.data, orig.data, 3, 2);
    const after = meanDeltaE2000(fixed.data, orig.data, 3, 2);
    expect(after).toBeLessThan(before * 0.75);
    expect(warmth(bad)).toBeGreaterThan(warmth(orig) + 0.3);
    // The cast moves the right way (red pulled back relative to blue); how far is the engine's business.
    expect(warmth(fixed)).toBeLessThan(warmth(bad));
    expect(warmth(fixed)).toBeGreaterThan(warmth(orig) - 0.3);
    // The scene is what the engine detects on the same image: a portrait (one face).
    const own = await createImagingEngine().detect(bad);
    expect(scene).toBe(own.scene);
    expect(scene).toBe(SCENE.portrait);
  }, 120_000);

  it('a photo without people: a non-portrait scene from the engine, and the look changes the pixels', async () => {
    // Under-exposed by 1 EV, so the look has something to correct: the engine leaves a good photo
    // such as coffee itself as it is (crisp and colourful: no sharpening, no vibrance).
    const bad = await linearGains(COFFEE, [0.5, 0.5, 0.5]);
    const { scene, output } = await correct(container, bad, '?outputType=png');
    expect(scene).toBeGreaterThanOrEqual(0);
    expect(scene).not.toBe(SCENE.portrait);
    const [a, b] = await Promise.all([rgb(bad), rgb(output)]);
    // The look without the engine is below 0.01.
    expect(meanDeltaE2000(a.data, b.data, 3, 2)).toBeGreaterThan(0.3);
  }, 120_000);

  it('engine: {} runs it without the engine: scene -1 and the look unchanged', async () => {
    const s = await createContainerServer({ engine: {} });
    try {
      const { scene, output } = await correct(s.url, COFFEE, '?outputType=png');
      expect(scene).toBe(-1);
      const [a, b] = await Promise.all([rgb(COFFEE), rgb(output)]);
      // Only the JPEG decode → PNG path: pixel-identical to the decoded input.
      expect(meanDeltaE2000(a.data, b.data, 3, 2)).toBeLessThan(0.01);
    } finally {
      await s.close();
    }
  }, 60_000);
});
