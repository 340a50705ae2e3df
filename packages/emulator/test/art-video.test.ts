/**
 * AI Art and video through the HTTP API, with @pfc/engine's art and video
 * hooks passed to `startEmulator({ engine })` and a stand-in person mask.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createArtEngine, ffmpegPath, POP_ART_PALETTE } from '@pfc/engine';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImagingEngine, RawImage } from '../src/index';
import { ASTRONAUT, closeAll, download, emulator, H, startJob, upload, waitFor } from './helpers';

const ROCKET = await readFile(fileURLToPath(new URL('../../../samples/outdoors/rocket.jpg', import.meta.url)));
const LONG = 90_000;

/** An upright ellipse in the middle of the frame: a stand-in for the engine's person segmentation. */
async function ellipse(img: RawImage): Promise<RawImage> {
  const { width: w, height: h } = img;
  const data = Buffer.alloc(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const dx = (x - w * 0.5) / (w * 0.28);
      const dy = (y - h * 0.58) / (h * 0.42);
      data[y * w + x] = dx * dx + dy * dy <= 1 ? 255 : 0;
    }
  }
  return { data, width: w, height: h, channels: 1 };
}

const engine: ImagingEngine = { ...createArtEngine(), segment: ellipse };

let web: string;
let dir: string;

/** A 2 s clip with a warm cast, made with the packaged ffmpeg. */
function clip(out: string, format: 'mp4' | 'mov'): Promise<void> {
  const args = [
    '-hide_banner', '-loglevel', 'error', '-y', '-loop', '1', '-framerate', '24',
    '-i', fileURLToPath(new URL('../../../samples/portraits/grace_hopper.jpg', import.meta.url)),
    '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-t', '2',
    '-vf', 'scale=320:376,colorchannelmixer=rr=1:gg=0.82:bb=0.62',
    '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-f', format, out,
  ];
  return new Promise((resolve, reject) => {
    const p = spawn(ffmpegPath(), args, { stdio: 'ignore' });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
  });
}

/** Frame count and mean R, G, B of the middle frame of a video file. */
async function inspect(path: string): Promise<{ frames: number; mean: number[] }> {
  const run = (args: string[]): Promise<{ out: Buffer; err: string }> =>
    new Promise((resolve, reject) => {
      const p = spawn(ffmpegPath(), ['-hide_banner', ...args]);
      const out: Buffer[] = [];
      let err = '';
      p.stdout.on('data', (b: Buffer) => out.push(b));
      p.stderr.on('data', (b: Buffer) => (err += b.toString()));
      p.on('error', reject);
      p.on('close', () => resolve({ out: Buffer.concat(out), err }));
    });
  const decode = await run(['-i', path, '-map', '0:v:0', '-f', 'null', '-']);
  const frames = Number([...decode.err.matchAll(/frame=\s*(\d+)/g)].at(-1)?.[1] ?? 0);
  const { out } = await run(['-ss', '1', '-i', path, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  const s = [0, 0, 0];
  for (let i = 0; i < out.length; i += 3) for (let c = 0; c < 3; c++) s[c]! += out[i + c]!;
  return { frames, mean: s.map((v) => v / (out.length / 3)) };
}

beforeAll(async () => {
  web = (await emulator({ engine })).web;
  dir = await mkdtemp(join(tmpdir(), 'pfc-art-video-'));
});

afterAll(async () => {
  await closeAll();
  await rm(dir, { recursive: true, force: true });
});

async function art(query: Record<string, string>, input: Uint8Array<ArrayBuffer> = ASTRONAUT) {
  const fileKey = await upload(web, input);
  const r = await waitFor(await startJob(web, { fileKey, ...query }), undefined, LONG);
  expect([r.status, r.statusText]).toEqual(['COMPLETED', '']);
  const { bytes, contentType } = await download(r);
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return { r, bytes, contentType, data, info };
}

describe('AI Art through /pfc', { timeout: 120_000 }, () => {
  it('popArt with preset=none: a 2k JPEG in the screen-print palette', async () => {
    const { r, contentType, data, info } = await art({ aiArt: 'popArt', preset: 'none' });
    expect(contentType).toBe('image/jpeg');
    expect([info.width, info.height]).toEqual([2048, 2048]);
    expect(r.originalDimensions).toEqual({ width: 512, height: 512 });
    expect(r.outputDimensions).toEqual({ width: 2048, height: 2048 });
    expect(r.aiserver).toBe(true);
    expect(r.usage.imageCorrectionCount).toBe(0);
    // JPEG blurs the flat colours a little: nearly every pixel is still near a palette colour (or ink).
    const palette = [...POP_ART_PALETTE, [18, 16, 22]];
    let near = 0;
    for (let o = 0; o < data.length; o += 3) {
      if (palette.some((c) => Math.hypot(data[o]! - c[0]!, data[o + 1]! - c[1]!, data[o + 2]! - c[2]!) < 60)) near++;
    }
    expect(near / (data.length / 3)).toBeGreaterThan(0.9);
  });

  it('a character: the subject kept inside the engine mask, the background replaced; 4k budget honoured', async () => {
    const { r, data, info } = await art({ aiArt: 'singlePirate', preset: 'none', aiArtOutputSize: '4k' });
    expect([info.width, info.height]).toEqual([4096, 4096]);
    expect(r.outputDimensions).toEqual({ width: 4096, height: 4096 });
    const { data: base } = await sharp(ASTRONAUT).resize(4096, 4096, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
    const inside: number[] = [];
    const outside: number[] = [];
    for (let y = 0; y < 4096; y += 16) {
      for (let x = 0; x < 4096; x += 16) {
        const dx = (x - 2048) / (4096 * 0.28);
        const dy = (y - 4096 * 0.58) / (4096 * 0.42);
        const d = dx * dx + dy * dy;
        const o = (y * 4096 + x) * 3;
        const diff = (Math.abs(data[o]! - base[o]!) + Math.abs(data[o + 1]! - base[o + 1]!) + Math.abs(data[o + 2]! - base[o + 2]!)) / 3;
        if (d < 0.8) inside.push(diff);
        else if (d > 1.25) outside.push(diff);
      }
    }
    const mean = (a: number[]): number => a.reduce((s, v) => s + v, 0) / a.length;
    expect(mean(inside)).toBeLessThan(6);
    expect(mean(outside)).toBeGreaterThan(25);
  });

  it('aiArtReferenceFileKey moves the colours towards the reference; it must name an image', async () => {
    const plain = await art({ aiArt: 'oilPainting', preset: 'none' });
    const reference = await upload(web, ROCKET);
    const styled = await art({ aiArt: 'oilPainting', preset: 'none', aiArtReferenceFileKey: reference });
    const mean = async (b: Buffer): Promise<number[]> => (await sharp(b).stats()).channels.slice(0, 3).map((c) => c.mean);
    const target = await mean(ROCKET);
    const dist = (m: number[]): number => Math.hypot(...m.map((v, c) => v - target[c]!));
    expect(dist(await mean(styled.bytes))).toBeLessThan(0.6 * dist(await mean(plain.bytes)));

    const video = await upload(web, Buffer.from('not an image at all, just some text') as Buffer<ArrayBuffer>);
    const res = await fetch(`${web}/pfc?fileKey=${await upload(web, ASTRONAUT)}&aiArt=oilPainting&aiArtReferenceFileKey=${video}`, { headers: H });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/aiArtReferenceFileKey must name an uploaded JPEG or PNG image/);
  });
});

describe('video through /pfc', { timeout: 120_000 }, () => {
  it.each(['mp4', 'mov'] as const)('%s: COMPLETED with a corrected, decodable file of the same length and videoCorrectionCount 1', async (format) => {
    const input = join(dir, `cast.${format}`);
    await clip(input, format);
    const bytes = await readFile(input);
    const fileKey = await upload(web, bytes, 'video');
    const r = await waitFor(await startJob(web, { fileKey, fileType: 'video' }), undefined, LONG);
    expect([r.status, r.statusText]).toEqual(['COMPLETED', '']);
    expect(r.correctedFile).toMatch(new RegExp(`\\.${format}$`));
    expect(r.usage.videoCorrectionCount).toBe(1);
    expect(r.originalDimensions).toEqual({ width: 320, height: 376 });
    const { bytes: out, contentType } = await download(r);
    expect(contentType).toBe(format === 'mov' ? 'video/quicktime' : 'video/mp4');
    const outPath = join(dir, `out.${format}`);
    await writeFile(outPath, out);
    const before = await inspect(input);
    const after = await inspect(outPath);
    expect(after.frames).toBeGreaterThan(40);
    expect(Math.abs(after.frames - before.frames)).toBeLessThanOrEqual(1);
    // Warm cast reduced: blue rises relative to red.
    expect(after.mean[2]! / after.mean[0]!).toBeGreaterThan((before.mean[2]! / before.mean[0]!) * 1.04);
  });
});
