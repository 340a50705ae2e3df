/**
 * AI Art on real photos: each style changes the image the way its name
 * promises (measured), characters keep the subject and replace the
 * background, the output size follows the budget, and a reference moves the
 * palette.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  applyAiArt,
  ART_PIXEL_BUDGET,
  artDimensions,
  comicsDotPitch,
  labStats,
  POP_ART_PALETTE,
  renderArtSheet,
  type ArtMask,
} from '../src/art/index';
import { EngineError } from '../src/errors';
import type { Raster } from '../src/image/raster';
import {
  coherence,
  detailKept,
  distinctColours,
  gradient,
  load,
  localVariance,
  lumaOf,
  mean,
  meanSaturation,
  periodicity,
  resized,
  sample,
  sd,
  strongest,
} from './art-metrics';

let photo: Raster; // astronaut, 512 × 512
let photoLuma: Float64Array;
let base: Raster; // the photo at the 2k output size (characters)
let edges: number[]; // strongest 5 % of the photo's gradients
let edgeZone: Set<number>; // pixels within a few pixels of a strong edge
const W = 2048;
const P = 512;

beforeAll(async () => {
  photo = await load('portraits/astronaut.jpg');
  photoLuma = lumaOf(photo);
  base = await resized(photo, W, W);
  const g = gradient(photoLuma, P, P);
  edges = strongest(g, 0.05);
  const zone = strongest(boxMax(g, P, P, 2), 0.25);
  edgeZone = new Set(zone);
});

const awayFromEdges = (i: number): boolean => !edgeZone.has(i);

/** The largest value in each (2r+1)² window. */
function boxMax(a: Float64Array, w: number, h: number, r: number): Float64Array {
  const out = new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let m = 0;
      for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) m = Math.max(m, a[Math.min(h - 1, Math.max(0, y + dy)) * w + Math.min(w - 1, Math.max(0, x + dx))]!);
      out[y * w + x] = m;
    }
  }
  return out;
}

/** Mean gradient of the styled image at the photo's strongest edges, relative to the photo's (both at the photo's size). */
function edgeKept(l: Float64Array): number {
  const go = gradient(l, P, P);
  const gi = gradient(photoLuma, P, P);
  return mean(edges.map((i) => go[i]!)) / mean(edges.map((i) => gi[i]!));
}

/**
 * Renders a style at 2k and returns it with its luma at the photo's own size
 * (512 px): detail, edges and texture are compared at the resolution the
 * photo really has, not against an upscaled, artificially smooth copy.
 */
async function style(token: string): Promise<{ out: Raster; l: Float64Array; small: Raster }> {
  const out = await applyAiArt(photo, { token });
  expect([out.width, out.height, out.channels]).toEqual([W, W, 3]);
  const small = await resized(out, P, P);
  return { out, l: lumaOf(small), small };
}

describe('styles', { timeout: 120_000 }, () => {
  it('pencilBw: grey pencil lines on mostly white paper', async () => {
    const { out, l } = await style('pencilBw');
    expect(meanSaturation(photo)).toBeGreaterThan(0.15);
    expect(meanSaturation(out)).toBeLessThan(0.005);
    expect(l.filter((v) => v > 190).length / l.length).toBeGreaterThan(0.55);
    // Lines: most of the darker pixels lie near the photo's edges (a quarter of the image).
    // Lines: near the photo's edges the darkest stroke (in an 8 × 8 block at full size) is far darker than away from them.
    const full = lumaOf(out);
    const darkest = (i: number): number => {
      const x0 = (i % P) * 4 - 2;
      const y0 = Math.floor(i / P) * 4 - 2;
      let m = 255;
      for (let y = Math.max(0, y0); y < Math.min(W, y0 + 8); y++) for (let x = Math.max(0, x0); x < Math.min(W, x0 + 8); x++) m = Math.min(m, full[y * W + x]!);
      return m;
    };
    const flat = Array.from(l.keys()).filter((i) => !edgeZone.has(i) && i % 7 === 0);
    expect(mean(edges.map(darkest))).toBeLessThan(mean(flat.map(darkest)) - 40);
  });

  it("oilPainting: the photo's fine detail repainted as patches and strokes, edges kept", async () => {
    const { l } = await style('oilPainting');
    expect(detailKept(photoLuma, l, P, P, awayFromEdges)).toBeLessThan(0.25);
    expect(edgeKept(l)).toBeGreaterThan(0.6);
  });

  it('cartoon: a dozen flat colours with dark outlines', async () => {
    const { out } = await style('cartoon');
    expect(distinctColours(photo)).toBeGreaterThan(20_000);
    expect(distinctColours(out)).toBeLessThanOrEqual(17);
    const full = lumaOf(out);
    const ink = full.filter((v) => v < 30).length / full.length;
    expect(ink).toBeGreaterThan(0.02);
  });

  it('watercolor: lighter washes replace the fine detail, edges kept', async () => {
    const { l } = await style('watercolor');
    expect(detailKept(photoLuma, l, P, P, awayFromEdges)).toBeLessThan(0.25);
    expect(mean(l)).toBeGreaterThan(mean(photoLuma) + 15);
    expect(edgeKept(l)).toBeGreaterThan(0.3);
  });

  it('softPastel: high key, low contrast, with chalk texture', async () => {
    const { out, l } = await style('softPastel');
    expect(mean(l)).toBeGreaterThan(mean(photoLuma) + 40);
    expect(sd(l)).toBeLessThan(0.65 * sd(photoLuma));
    // Chalk: fine texture at full size even though the colour is smoothed and flattened.
    expect(localVariance(lumaOf(out), W, W, 1)).toBeGreaterThan(localVariance(lumaOf(base), W, W, 1) + 5);
  });

  it('comics: heavy inks on the edges and a halftone dot screen', async () => {
    const { out, l } = await style('comics');
    expect(distinctColours(out)).toBeLessThan(40);
    expect(edges.filter((i) => l[i]! < 60).length / edges.length).toBeGreaterThan(0.3);
    // A 45° screen of pitch p repeats every p·√2 pixels along a row.
    const period = comicsDotPitch(W, W) * Math.SQRT2;
    const full = lumaOf(out);
    expect(periodicity(full, W, W, period)).toBeGreaterThan(4);
    expect(periodicity(lumaOf(base), W, W, period)).toBeLessThan(2);
  });

  it('popArt: only the five screen-print colours and ink', async () => {
    const { out } = await style('popArt');
    const colours = new Set<string>();
    for (let o = 0; o < out.data.length; o += 3) colours.add(`${out.data[o]},${out.data[o + 1]},${out.data[o + 2]}`);
    expect(colours.size).toBeLessThanOrEqual(6);
    for (const c of POP_ART_PALETTE) expect(colours.has(c.join(','))).toBe(true);
  });

  it('vanGogh: strongly oriented brush strokes, more vivid colour', async () => {
    const { out, l } = await style('vanGogh');
    const before = coherence(photoLuma, P, P);
    const after = coherence(l, P, P);
    expect(after).toBeGreaterThan(before + 0.1);
    expect(meanSaturation(out)).toBeGreaterThan(meanSaturation(photo));
  });

  it('is deterministic, keeps alpha, and does not modify its input', async () => {
    const small = await load('objects/chelsea.png');
    const copy = Buffer.from(small.data);
    const a = await applyAiArt(small, { token: 'watercolor' });
    const b = await applyAiArt(small, { token: 'watercolor' });
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
    expect(Buffer.from(small.data).equals(copy)).toBe(true);
    const rgba = await sharp(small.data, { raw: { width: small.width, height: small.height, channels: 3 } }).ensureAlpha(0.5).raw().toBuffer();
    const withAlpha = await applyAiArt({ data: rgba, width: small.width, height: small.height, channels: 4 }, { token: 'popArt' });
    expect(withAlpha.channels).toBe(4);
    expect(withAlpha.data[3]).toBeGreaterThan(120);
    expect(withAlpha.data[3]).toBeLessThan(136);
  });
});

describe('output size and reference', { timeout: 120_000 }, () => {
  it('sizes the output to the 2k / 4k pixel budget at the input aspect ratio', async () => {
    expect(artDimensions(640, 427, '2k')).toEqual({ width: 2507, height: 1673 });
    expect(artDimensions(512, 512, '4k')).toEqual({ width: 4096, height: 4096 });
    const tall = artDimensions(1000, 3000, '4k');
    expect(tall.width * tall.height).toBeLessThanOrEqual(ART_PIXEL_BUDGET['4k']);
    expect(tall.width * tall.height).toBeGreaterThan(0.998 * ART_PIXEL_BUDGET['4k']);
    expect(tall.height / tall.width).toBeCloseTo(3, 2);
    expect(() => artDimensions(10, 10, '8k' as never)).toThrow(/aiArtOutputSize must be 2k or 4k/);

    const rocket = await load('outdoors/rocket.jpg');
    const big = await applyAiArt(rocket, { token: 'popArt', outputSize: '4k' });
    expect([big.width, big.height]).toEqual([artDimensions(640, 427, '4k').width, artDimensions(640, 427, '4k').height]);
    expect(big.width * big.height).toBeLessThanOrEqual(ART_PIXEL_BUDGET['4k']);
  });

  it('moves the colours towards a reference image (Lab mean)', async () => {
    const reference = await readFile(sample('outdoors/rocket.jpg'));
    const ref = labStats(await load('outdoors/rocket.jpg'));
    const plain = labStats(await applyAiArt(photo, { token: 'oilPainting' }));
    const moved = labStats(await applyAiArt(photo, { token: 'oilPainting', reference }));
    const dist = (s: typeof ref): number => Math.hypot(s.mean[1] - ref.mean[1], s.mean[2] - ref.mean[2]);
    expect(dist(moved)).toBeLessThan(0.35 * dist(plain));
    await expect(applyAiArt(photo, { token: 'oilPainting', reference: Buffer.from('not an image') })).rejects.toThrow(/aiArtReferenceFileKey is not a readable/);
  });

  it('rejects an unknown token naming the allowed ones', async () => {
    await expect(applyAiArt(photo, { token: 'picasso' })).rejects.toThrow(EngineError);
    await expect(applyAiArt(photo, { token: 'picasso' })).rejects.toThrow(/aiArt must be one of pencilBw, .*groupPirate/);
  });
});

/** An upright ellipse covering the centre of the frame: a stand-in person mask. */
function ellipseMask(w: number, h: number): ArtMask {
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const dx = (x - w * 0.5) / (w * 0.28);
      const dy = (y - h * 0.58) / (h * 0.42);
      data[y * w + x] = dx * dx + dy * dy <= 1 ? 255 : 0;
    }
  }
  return { data, width: w, height: h, channels: 1 };
}

describe('characters', { timeout: 120_000 }, () => {
  const mask = (): ArtMask => ellipseMask(512, 512);

  /** Mean absolute difference to the base inside (m = 255, away from the edge) and outside (m = 0) the mask. */
  async function diffInOut(out: Raster): Promise<{ inside: number; outside: number }> {
    const m = ellipseMask(W, W);
    const eroded = await sharp(m.data, { raw: { width: W, height: W, channels: 1 } }).erode(6).extractChannel(0).raw().toBuffer();
    const dilated = await sharp(m.data, { raw: { width: W, height: W, channels: 1 } }).dilate(6).extractChannel(0).raw().toBuffer();
    const inside: number[] = [];
    const outside: number[] = [];
    for (let i = 0; i < W * W; i += 5) {
      const d = (Math.abs(out.data[i * 3]! - base.data[i * 3]!) + Math.abs(out.data[i * 3 + 1]! - base.data[i * 3 + 1]!) + Math.abs(out.data[i * 3 + 2]! - base.data[i * 3 + 2]!)) / 3;
      if (eroded[i] === 255) inside.push(d);
      else if (dilated[i] === 0) outside.push(d);
    }
    return { inside: mean(inside), outside: mean(outside) };
  }

  const tokens = ['christmasnye', 'stValentines', 'business', 'ffAdult', 'spring', 'ffKid', 'singlePirate', 'groupPirate'] as const;

  it.each(tokens)('%s: the subject is kept inside the mask, the background replaced by the scene', async (token) => {
    const out = await applyAiArt(photo, { token, mask: mask() });
    expect([out.width, out.height, out.channels]).toEqual([W, W, 3]);
    const { inside, outside } = await diffInOut(out);
    expect(inside).toBeLessThan(2);
    expect(outside).toBeGreaterThan(25);
  });

  it('gives every character its own scene, the same each time', async () => {
    const means = await Promise.all(
      tokens.map(async (token) => {
        const out = await applyAiArt(photo, { token, mask: { data: new Uint8Array(512 * 512), width: 512, height: 512 } });
        const s = await sharp(out.data, { raw: { width: out.width, height: out.height, channels: 3 } }).stats();
        return s.channels.map((c) => c.mean);
      }),
    );
    for (let a = 0; a < means.length; a++) {
      for (let b = a + 1; b < means.length; b++) expect(Math.hypot(...means[a]!.map((v, c) => v - means[b]![c]!))).toBeGreaterThan(8);
    }
    const again = await applyAiArt(photo, { token: 'business', mask: mask() });
    const first = await applyAiArt(photo, { token: 'business', mask: mask() });
    expect(Buffer.from(again.data).equals(Buffer.from(first.data))).toBe(true);
  });

  it('takes the mask from an injected segmenter, and says so when there is none', async () => {
    let calls = 0;
    const segment = async (img: Raster): Promise<ArtMask> => {
      calls++;
      expect(img.channels).toBe(3);
      return ellipseMask(img.width, img.height);
    };
    const out = await applyAiArt(photo, { token: 'spring', segment });
    expect(calls).toBe(1);
    expect((await diffInOut(out)).inside).toBeLessThan(2);
    await expect(applyAiArt(photo, { token: 'spring' })).rejects.toThrow(/spring needs a person mask/);
  });
});

describe('renderArtSheet', { timeout: 120_000 }, () => {
  it('puts the original and the eight styles on one labelled PNG', async () => {
    const png = await renderArtSheet(await load('objects/chelsea.png'), { tile: 160 });
    const meta = await sharp(png).metadata();
    expect(meta.format).toBe('png');
    expect(meta.width).toBe(3 * 160);
    expect(meta.height).toBeGreaterThan(3 * 160);
  });
});
