/** Jobs: workers and PENDING, the cache, file checks by content, limits, video. */
import { crc32, deflateSync } from 'node:zlib';
import type { JobRecord } from '@pfc/core';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, COFFEE, download, emulator, fakeMp4, runJob, startJob, status, upload, waitFor } from './helpers';

afterEach(closeAll);

/** A PNG whose header claims width x height with one row of data: tests header limits without the memory. */
function pngHeader(width: number, height: number): Buffer<ArrayBuffer> {
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(1 + width * 3))), chunk('IEND', Buffer.alloc(0))]) as Buffer<ArrayBuffer>;
}

const solid = async (w: number, h: number): Promise<Buffer<ArrayBuffer>> =>
  (await sharp({ create: { width: w, height: h, channels: 3, background: '#808080' } }).png().toBuffer()) as Buffer<ArrayBuffer>;

describe('workers and PENDING', () => {
  it('runs `workers` jobs at once; the rest wait PENDING in order', async () => {
    const emu = await emulator({ workers: 1, processingMs: 60_000 });
    const eps: string[] = [];
    for (let i = 0; i < 3; i++) eps.push(await startJob(emu.web, { fileKey: await upload(emu.web, COFFEE) }));
    await waitFor(eps[0]!, (r) => r.status === 'PROCESSING');
    expect((await status(eps[1]!)).status).toBe('PENDING');
    expect((await status(eps[2]!)).status).toBe('PENDING');
    expect(emu.stats().jobs.byState).toMatchObject({ PROCESSING: 1, PENDING: 2 });
  });

  it('never has more than `workers` PROCESSING, and finishes them all', async () => {
    const emu = await emulator({ workers: 2, processingMs: 150 });
    const eps = await Promise.all([0, 1, 2, 3, 4].map(async () => startJob(emu.web, { fileKey: await upload(emu.web, COFFEE) })));
    let maxProcessing = 0;
    const deadline = Date.now() + 25_000;
    while (emu.stats().jobs.byState.COMPLETED < 5 && Date.now() < deadline) {
      maxProcessing = Math.max(maxProcessing, emu.stats().jobs.byState.PROCESSING);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(emu.stats().jobs.byState.COMPLETED).toBe(5);
    expect(maxProcessing).toBeLessThanOrEqual(2);
    expect(maxProcessing).toBeGreaterThanOrEqual(1);
    for (const ep of eps) expect((await status(ep)).timeTaken).toBeGreaterThanOrEqual(0.14); // includes processingMs (timers may fire a hair early)
  });
});

describe('cache', () => {
  it('cache=true (default) reuses the output of the same content and effective parameters; cache=false recomputes', async () => {
    const emu = await emulator();
    const first = await runJob(emu.web, COFFEE, { width: 200 });
    // Another upload of the same bytes, parameters equal once defaults are applied.
    const second = await runJob(emu.web, COFFEE, { width: 200, outputQuality: 90, cache: true });
    expect(emu.stats().jobs).toMatchObject({ pipelineRuns: 1, cacheHits: 1 });
    expect(second.correctedFile).not.toBe(first.correctedFile);
    expect((await download(second)).bytes.equals((await download(first)).bytes)).toBe(true);
    expect(second.outputDimensions).toEqual(first.outputDimensions);

    await runJob(emu.web, COFFEE, { width: 200, cache: false });
    expect(emu.stats().jobs).toMatchObject({ pipelineRuns: 2, cacheHits: 1 });
    await runJob(emu.web, COFFEE, { width: 201 });
    expect(emu.stats().jobs).toMatchObject({ pipelineRuns: 3, cacheHits: 1 });
    const other = await sharp(COFFEE).flip().jpeg().toBuffer();
    await runJob(emu.web, other as Buffer<ArrayBuffer>, { width: 200 });
    expect(emu.stats().jobs).toMatchObject({ pipelineRuns: 4, cacheHits: 1 });
  });
});

describe('file checks by content, and limits', () => {
  const cases: [string, () => Promise<Buffer<ArrayBuffer>> | Buffer<ArrayBuffer>, Record<string, string>, JobRecord['status'], RegExp][] = [
    ['text garbage', () => Buffer.from('hello, this is not an image at all'.repeat(10)) as Buffer<ArrayBuffer>, {}, 'REJECTED', /not an image or video this service reads/],
    ['a JPEG marker then garbage', () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 7)]) as Buffer<ArrayBuffer>, {}, 'FAILED', /could not be read/],
    ['a GIF', async () => (await sharp(COFFEE).gif().toBuffer()) as Buffer<ArrayBuffer>, {}, 'REJECTED', /GIF image files are not supported; send JPEG or PNG/],
    ['an image sent as fileType=video', () => COFFEE, { fileType: 'video' }, 'REJECTED', /fileType=video but the uploaded file is a JPEG image/],
    ['a video sent as fileType=image', () => fakeMp4(), {}, 'REJECTED', /fileType=image but the uploaded file is a MP4 video/],
    ['a greyscale JPEG', async () => (await sharp(COFFEE).toColourspace('b-w').jpeg().toBuffer()) as Buffer<ArrayBuffer>, {}, 'REJECTED', /greyscale images are not supported; send RGB or RGBA JPEG or PNG/],
    ['a greyscale PNG with alpha', async () => (await sharp(COFFEE).ensureAlpha(0.5).toColourspace('b-w').png().toBuffer()) as Buffer<ArrayBuffer>, {}, 'REJECTED', /greyscale images are not supported/],
    ['a 20x20 image', () => solid(20, 20), {}, 'REJECTED', /both sides must be larger than 32 pixels/],
    ['a 32x400 image ("larger than 32x32")', () => solid(32, 400), {}, 'REJECTED', /image is 32x400 pixels; both sides must be larger than 32 pixels/],
    ['a 22:1 image', () => solid(1100, 50), {}, 'REJECTED', /aspect ratio must be below 21:1/],
    ['a 200-megapixel PNG (header)', () => pngHeader(20_000, 10_000), {}, 'REJECTED', /images must be below 200 megapixels/],
    ['a PNG over 100,000 pixels long', () => pngHeader(100_001, 5_000), {}, 'REJECTED', /longer side must be at most 100000 pixels/],
  ];
  it.each(cases)('%s → %s with a status text saying why', async (_name, make, query, expected, text) => {
    const emu = await emulator();
    const bytes = await make();
    const fileKey = await upload(emu.web, bytes, query.fileType === 'video' ? 'video' : 'image');
    const r = await waitFor(await startJob(emu.web, { fileKey, ...query }));
    expect(r.status).toBe(expected);
    expect(r.statusText).toMatch(text);
    expect(r.code).not.toBe(0);
    expect(r.correctedFile).toBeUndefined();
    // The server is still fine.
    expect((await runJob(emu.web, COFFEE)).status).toBe('COMPLETED');
  });

  it('a palette PNG of grey entries is colour (indexed RGB): COMPLETED', async () => {
    const palette = await sharp(COFFEE).toColourspace('b-w').png({ palette: true }).toBuffer();
    expect(palette[25]).toBe(3); // IHDR colour type 3: indexed
    expect((await runJob((await emulator()).web, palette as Buffer<ArrayBuffer>)).status).toBe('COMPLETED');
  });
});

describe('video', () => {
  it('uploads and starts like an image, then ends REJECTED saying video correction is not available — never COMPLETED', async () => {
    // Without an engine (`engine: {}`); the default engine corrects video (art-video.test.ts).
    const emu = await emulator({ processingMs: 50, engine: {} });
    const fileKey = await upload(emu.web, fakeMp4(), 'video');
    const seen: string[] = [];
    const r = await waitFor(await startJob(emu.web, { fileKey, fileType: 'video' }), (x) => {
      seen.push(x.status);
      return x.status !== 'PENDING' && x.status !== 'PROCESSING';
    });
    expect(seen).not.toContain('COMPLETED');
    expect(r.status).toBe('REJECTED');
    expect(r.statusText).toMatch(/video correction is not available in the emulator/);
    expect(r.code).toBe(501);
  });

  it('names the size limit for a video over it', async () => {
    const emu = await emulator({ limits: { maxVideoBytes: 1000 } });
    const fileKey = await upload(emu.web, fakeMp4(4096), 'video');
    const r = await waitFor(await startJob(emu.web, { fileKey, fileType: 'video' }));
    expect([r.status, r.code]).toEqual(['REJECTED', 413]);
    expect(r.statusText).toMatch(/the video has 4096 bytes; videos must be at most 1000 bytes/);
  });

  it('detects MOV by content', async () => {
    const emu = await emulator();
    const mov = fakeMp4();
    mov.write('ftypqt  ', 4, 'latin1');
    // On an image ticket, started as an image: the job judges the content and names it.
    const r = await waitFor(await startJob(emu.web, { fileKey: await upload(emu.web, mov) }));
    expect(r.statusText).toMatch(/MOV video/);
  });
});
