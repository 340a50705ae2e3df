/**
 * Video white balance: a clip shot under the wrong white balance (a strong
 * blue or orange cast, made with the packaged ffmpeg from a sample photo)
 * comes back most of the way to the uncast clip's colour, while the uncast
 * clip itself is moved little. Chroma is the clip's mean CIELAB a*, b*.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { castCorrectionDeg } from '../src/colour/plan';
import { correctVideo } from '../src/video/correct';
import { probeVideo } from '../src/video/probe';
import { decodedFrames, makeClip, meanChroma } from './video-helpers';

let dir: string;
const clip = (name: string) => join(dir, `${name}.mp4`);

/** Casts as gains on the encoded channels (a von Kries cast in linear light: gain^2.2). */
const CASTS = {
  blue: 'colorchannelmixer=rr=0.75:gg=0.9:bb=1',
  orange: 'colorchannelmixer=rr=1:gg=0.88:bb=0.7',
} as const;
const PHOTOS = { portrait: 'portraits/grace_hopper.jpg', astronaut: 'portraits/astronaut.jpg' } as const;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pfc-video-cast-'));
  for (const [name, photo] of Object.entries(PHOTOS)) {
    await makeClip(clip(`${name}-good`), { photo });
    for (const [cast, filter] of Object.entries(CASTS)) await makeClip(clip(`${name}-${cast}`), { photo, filter });
  }
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('correctVideo white balance', { timeout: 180_000 }, () => {
  it.each([
    ['portrait', 'blue'],
    ['portrait', 'orange'],
    ['astronaut', 'blue'],
    ['astronaut', 'orange'],
  ] as const)('%s with a strong %s cast: at least 60 percent of the cast removed, the clip decodes with the same duration', async (photo, cast) => {
    const input = clip(`${photo}-${cast}`);
    const out = clip(`${photo}-${cast}-fixed`);
    const r = await correctVideo(input, out, {});
    expect(r.corrected).toBe(true);
    const [before, after] = [await probeVideo(input), await probeVideo(out)];
    expect(Math.abs(after.durationSec - before.durationSec)).toBeLessThanOrEqual(1 / 24 + 0.03);
    expect(Math.abs((await decodedFrames(out)) - (await decodedFrames(input)))).toBeLessThanOrEqual(1);

    const good = await meanChroma(clip(`${photo}-good`));
    const cs = await meanChroma(input);
    const fixed = await meanChroma(out);
    const castSize = Math.hypot(cs.a - good.a, cs.b - good.b);
    const left = Math.hypot(fixed.a - good.a, fixed.b - good.b);
    // The cast is strong (several ΔE of chroma), and at most 40 % of it is left.
    expect(castSize).toBeGreaterThan(5);
    expect(left).toBeLessThanOrEqual(0.4 * castSize);
    // Per axis too: b* (blue–yellow) carries most of these casts.
    expect(Math.abs(fixed.b - good.b)).toBeLessThanOrEqual(0.4 * Math.abs(cs.b - good.b) + 1);
    expect(Math.abs(fixed.a - good.a)).toBeLessThanOrEqual(0.4 * Math.abs(cs.a - good.a) + 1);
  });

  it.each(Object.keys(PHOTOS))('%s without a cast: the chroma moves little', async (photo) => {
    const input = clip(`${photo}-good`);
    const out = clip(`${photo}-good-fixed`);
    const r = await correctVideo(input, out, {});
    expect(r.corrected).toBe(true);
    const before = await meanChroma(input);
    const after = await meanChroma(out);
    expect(Math.hypot(after.a - before.a, after.b - before.b)).toBeLessThan(2);
  });
});

describe('castCorrectionDeg', () => {
  it('removes at most 3° of a still photo\'s cast, but the whole estimate (up to 20°) of a clip\'s', () => {
    expect(castCorrectionDeg(2, 'still')).toBe(0);
    expect(castCorrectionDeg(15, 'still')).toBeCloseTo(3, 6);
    expect(castCorrectionDeg(1, 'video')).toBe(0);
    expect(castCorrectionDeg(2.5, 'video')).toBeCloseTo(1.25, 6);
    expect(castCorrectionDeg(12, 'video')).toBe(12);
    expect(castCorrectionDeg(30, 'video')).toBe(20);
  });
});
