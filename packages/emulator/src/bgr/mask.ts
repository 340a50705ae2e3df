/**
 * The BGR container's image step: one function, `cutOut`, so the imaging
 * engine's person segmentation (`ImagingEngine.segment`) plugs in at one
 * place.
 *
 * With an engine (the default): `mode=portrait` is the engine's person mask
 * (a person-segmentation model, refined at full resolution). `mode=general`
 * has no model of its own — the engine's model is trained on people — so it
 * is the same person mask, plus the border-colour mask below where the
 * backdrop is plain (≥ {@link PLAIN_BORDER_SHARE} of the border within a
 * small colour distance of its median): there the union keeps the parts of
 * a product or object the person model misses. On a busy backdrop the
 * colour mask would cut the scene apart, so `general` is then exactly the
 * person mask. Objects on busy scenes are cut out only as far as the person
 * model happens to mark them (often partly).
 *
 * Without an engine (`engine: {}`) the mask is a documented heuristic, not a
 * model, for both modes:
 *
 * 1. The background colour is the per-channel median of the image's outer
 *    border (2 % of the shorter side, at least 2 pixels).
 * 2. Each pixel's distance from that colour (RGB, Euclidean) is thresholded
 *    with Otsu's method: far from the border colour = subject.
 * 3. The mask is softened (Gaussian blur, sigma 1.5) for anti-aliased edges.
 *
 * It separates a subject from a plain or studio backdrop well and a busy
 * scene poorly. `preprocessing=true` stretches contrast before that colour
 * measurement; `postprocessing=true` (spill reduction) pulls the soft edge
 * inwards, with or without an engine.
 */
import type { BgrMode } from '@pfc/core';
import sharp from 'sharp';
import type { ImagingEngine, RawImage } from '../engine';

export interface CutOutOptions {
  mode: BgrMode;
  preprocessing: boolean;
  postprocessing: boolean;
  engine?: ImagingEngine | undefined;
}

export interface CutOut {
  /** PNG with an alpha channel, the (auto-oriented) input's size. */
  png: Buffer;
  width: number;
  height: number;
}

/** Remove the background: the input's pixels with the subject mask as alpha, as PNG. Throws when the image cannot be decoded. */
export async function cutOut(input: Buffer, options: CutOutOptions): Promise<CutOut> {
  // failOn 'truncated': a cut-off file fails the job instead of giving a half-grey image.
  const { data, info } = await sharp(input, { failOn: 'truncated' }).autoOrient().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const rgb: RawImage = { data, width: info.width, height: info.height, channels: 3 };
  let mask: RawImage;
  if (options.engine?.segment) {
    mask = await fitMask(await options.engine.segment(rgb), rgb.width, rgb.height);
    if (options.mode === 'general' && plainBorderShare(rgb) >= PLAIN_BORDER_SHARE) mask = union(mask, await heuristicMask(rgb, options.preprocessing));
  } else {
    mask = await fitMask(await heuristicMask(rgb, options.preprocessing), rgb.width, rgb.height);
  }
  if (options.postprocessing) mask = await tighten(mask);
  const png = await sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } })
    .joinChannel(mask.data, { raw: { width: mask.width, height: mask.height, channels: 1 } })
    .png()
    .toBuffer();
  return { png, width: rgb.width, height: rgb.height };
}

/** Share of border samples (0–1) that must be near the border's median colour for `general` to add the colour mask. */
export const PLAIN_BORDER_SHARE = 0.9;
/** RGB distance (Euclidean, 0–441) within which a border sample counts as the backdrop colour. */
const PLAIN_DISTANCE = 40;

/** Share (0–1) of the image's border samples within {@link PLAIN_DISTANCE} of the border's median colour. */
export function plainBorderShare(img: RawImage): number {
  const { data, width, height } = img;
  const samples = borderSamples(data, width, height, borderOf(width, height));
  const bg = medianOf(samples);
  let near = 0;
  for (let i = 0; i < samples[0].length; i++) {
    const d = Math.hypot(samples[0][i]! - bg[0], samples[1][i]! - bg[1], samples[2][i]! - bg[2]);
    if (d <= PLAIN_DISTANCE) near++;
  }
  return samples[0].length === 0 ? 0 : near / samples[0].length;
}

function union(a: RawImage, b: RawImage): RawImage {
  const data = Buffer.alloc(a.data.length);
  for (let i = 0; i < data.length; i++) data[i] = Math.max(a.data[i]!, b.data[i]!);
  return { ...a, data };
}

const borderOf = (width: number, height: number): number => Math.max(2, Math.round(Math.min(width, height) * 0.02));

/** The border-colour distance mask described above (1 channel, 255 = subject). */
export async function heuristicMask(img: RawImage, preprocessing: boolean): Promise<RawImage> {
  const src = preprocessing ? await stretch(img) : img;
  const { data, width, height } = src;
  const bg = medianOf(borderSamples(data, width, height, borderOf(width, height)));
  const dist = new Uint8Array(width * height);
  const hist = new Array<number>(256).fill(0);
  for (let i = 0, p = 0; i < dist.length; i++, p += 3) {
    const dr = data[p]! - bg[0];
    const dg = data[p + 1]! - bg[1];
    const db = data[p + 2]! - bg[2];
    // Max distance is 255·√3; scale into a byte.
    const d = Math.min(255, Math.round(Math.sqrt(dr * dr + dg * dg + db * db) / 1.7320508));
    dist[i] = d;
    hist[d]!++;
  }
  const t = Math.max(8, otsu(hist, dist.length));
  const hard = Buffer.alloc(dist.length);
  for (let i = 0; i < dist.length; i++) hard[i] = dist[i]! > t ? 255 : 0;
  const soft = await sharp(hard, { raw: { width, height, channels: 1 } }).blur(1.5).extractChannel(0).raw().toBuffer();
  return { data: soft, width, height, channels: 1 };
}

/** RGB samples of the image's outer border (`border` pixels wide), one array per channel. */
function borderSamples(data: Buffer, width: number, height: number, border: number): [number[], number[], number[]] {
  const ch: [number[], number[], number[]] = [[], [], []];
  // Sample every few pixels: the median of a few thousand is plenty.
  const step = Math.max(1, Math.floor((width + height) / 1000));
  for (let y = 0; y < height; y += step) {
    for (let x = 0; x < width; x += step) {
      if (x < border || y < border || x >= width - border || y >= height - border) {
        const p = (y * width + x) * 3;
        for (let c = 0; c < 3; c++) ch[c]!.push(data[p + c]!);
      }
    }
  }
  return ch;
}

function medianOf(ch: readonly number[][]): [number, number, number] {
  return ch.map((v) => {
    const sorted = [...v].sort((a, b) => a - b);
    return sorted[sorted.length >> 1] ?? 0;
  }) as [number, number, number];
}

/** Otsu's threshold of a 256-bin histogram. */
export function otsu(hist: readonly number[], total: number): number {
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * hist[i]!;
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let threshold = 0;
  for (let i = 0; i < 256; i++) {
    wB += hist[i]!;
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += i * hist[i]!;
    const mB = sumB / wB;
    const mF = (sum - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > best) {
      best = between;
      threshold = i;
    }
  }
  return threshold;
}

async function stretch(img: RawImage): Promise<RawImage> {
  const data = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).normalise().raw().toBuffer();
  return { ...img, data };
}

/** An engine's mask at the image's size, one channel. */
async function fitMask(mask: RawImage, width: number, height: number): Promise<RawImage> {
  if (mask.width === width && mask.height === height && mask.channels === 1) return mask;
  const data = await sharp(mask.data, { raw: { width: mask.width, height: mask.height, channels: mask.channels } })
    .resize(width, height, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  return { data, width, height, channels: 1 };
}

/** Spill reduction: pull the soft edge inwards by remapping the ramp (alpha below 50 % goes, the rest is stretched). */
async function tighten(mask: RawImage): Promise<RawImage> {
  const data = Buffer.from(mask.data);
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, (data[i]! - 128) * 2));
  return { ...mask, data };
}
