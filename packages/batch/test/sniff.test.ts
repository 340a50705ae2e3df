import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { limitViolation, planBatch, sniffBytes, sniffFile } from '../src/index';
import { sniffFileSync } from '../src/sniff';
import { jpegBytes, pngBytes, tempDir } from './helpers';

const SAMPLES = join(import.meta.dirname, '../../../samples');

describe('sniffFile', () => {
  const dir = tempDir();
  const put = (name: string, bytes: Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, bytes);
    return p;
  };

  it('reads a JPEG frame size behind a large APP1 (EXIF) segment', async () => {
    const info = await sniffFile(put('big-exif.jpg', jpegBytes(4000, 3000, { app1Bytes: 60_000 })));
    expect(info).toEqual({ format: 'jpeg', fileType: 'image', contentType: 'image/jpeg', width: 4000, height: 3000, components: 3 });
  });

  it('reads a frame header that straddles the first read (16 KiB)', async () => {
    // The frame header (10 bytes) starts at 6 + app1Bytes: just before, across and after 16,384.
    for (const app1Bytes of [16_360, 16_370, 16_374, 16_378, 16_390]) {
      const info = await sniffFile(put(`edge-${app1Bytes}.jpg`, jpegBytes(1234, 567, { app1Bytes, filler: 'x'.repeat(100) })));
      expect(info, `APP1 of ${app1Bytes} bytes`).toMatchObject({ format: 'jpeg', width: 1234, height: 567, components: 3 });
    }
  });

  it('leaves out a PNG or JPEG that holds no image (ends before its header), before any upload, saying why', async () => {
    const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const jfifOnly = jpegBytes(640, 480).subarray(0, 2 + 20); // SOI and APP1, cut before the frame header
    const cutInExif = jpegBytes(640, 480, { app1Bytes: 40_000 }).subarray(0, 30_000);
    writeFileSync(join(dir, 'whole.jpg'), jpegBytes(640, 480));
    for (const [name, bytes, kind] of [['sig.png', sig, 'PNG'], ['soi.jpg', jfifOnly, 'JPEG'], ['cut-in-exif.jpg', cutInExif, 'JPEG']] as const) {
      const why: string[] = [];
      expect(sniffFileSync(put(name, bytes), (r) => why.push(r))).toBeUndefined();
      expect(why).toEqual([expect.stringMatching(new RegExp(`^${kind} .*the file holds no image`))]);
    }
    const plan = await planBatch({ inputs: [dir], params: {}, output: { kind: 'mirror', dir: tempDir() } });
    expect(plan.files.map((f) => f.rel)).toContain('whole.jpg');
    const kept = plan.leftOut.kept.map((s) => [s.path.split('/').pop(), s.code]);
    expect(kept).toEqual(expect.arrayContaining([['sig.png', 'unsupported'], ['soi.jpg', 'unsupported'], ['cut-in-exif.jpg', 'unsupported']]));
  });

  it('judges by content, not by name', async () => {
    expect((await sniffFile(put('really-a-png.jpg', pngBytes(640, 480))))?.format).toBe('png');
    expect((await sniffFile(put('no-extension', jpegBytes(100, 80))))?.format).toBe('jpeg');
    expect(await sniffFile(put('fake.jpg', Buffer.from('not an image at all, just text')))).toBeUndefined();
  });

  it('tells MP4 and MOV apart and refuses HEIC (an image in an ISO-BMFF box)', () => {
    const box = (type: string, brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from(type + brand + '\0\0\0\0isommp42', 'latin1')]);
    expect(sniffBytes(box('ftyp', 'isom'))).toBe('mp4');
    expect(sniffBytes(box('ftyp', 'qt  '))).toBe('mov');
    expect(sniffBytes(box('moov', '    '))).toBe('mov');
    expect(sniffBytes(box('ftyp', 'heic'))).toBeUndefined();
  });

  it('reads the committed samples', async () => {
    const astronaut = await sniffFile(join(SAMPLES, 'portraits/astronaut.jpg'));
    expect(astronaut?.format).toBe('jpeg');
    expect(astronaut?.width).toBeGreaterThan(32);
    const chelsea = await sniffFile(join(SAMPLES, 'objects/chelsea.png'));
    expect(chelsea?.format).toBe('png');
    expect(chelsea?.height).toBeGreaterThan(32);
  });
});

describe('limitViolation', () => {
  const img = (width: number, height: number) => ({ format: 'jpeg' as const, fileType: 'image' as const, contentType: 'image/jpeg', width, height });
  it.each([
    [img(20, 400), /the Web API needs more than 32 px on each side/],
    [img(32, 400), /the Web API needs more than 32 px on each side/],
    [img(2100, 100), /aspect ratio must be below 21:1/],
    [img(100_001, 9000), /longer side must be at most 100,000 px/],
    [img(20_000, 10_000), /below 200 MP/],
  ])('refuses %o', (media, message) => {
    expect(limitViolation(media, 1000, {})).toMatch(message);
  });

  it('holds 32 px to each backend\'s rule: "larger than 32x32" on the Web API, "a short side under 32" refused by the container', () => {
    expect(limitViolation(img(33, 400), 1000, {}, 'web')).toBeUndefined();
    expect(limitViolation(img(32, 400), 1000, {}, 'emulator')).toMatch(/more than 32 px/);
    expect(limitViolation(img(32, 400), 1000, {}, 'container')).toBeUndefined();
    expect(limitViolation(img(31, 400), 1000, {}, 'container')).toMatch(/shorter side must be at least 32 px/);
  });

  it('sends the colour container an image past 21:1 (it only turns beautify off there); the other backends refuse it', () => {
    expect(limitViolation(img(2200, 100), 1000, {}, 'container')).toBeUndefined();
    for (const backend of ['web', 'emulator', 'bgr', 'container+bgr'] as const) {
      expect(limitViolation(img(2200, 100), 1000, {}, backend), backend).toMatch(/aspect ratio must be below 21:1/);
    }
    expect(limitViolation(img(100_001, 1000), 1000, {}, 'container')).toMatch(/at most 100,000 px/);
  });

  it('applies parameter-dependent limits (background removal below 30 MB)', () => {
    expect(limitViolation(img(4000, 3000), 31 * 1024 ** 2, {})).toBeUndefined();
    expect(limitViolation(img(4000, 3000), 31 * 1024 ** 2, { removeBackground: true })).toMatch(/below 30 MB/);
  });

  it('sends videos to the Web API only', () => {
    const video = { format: 'mp4' as const, fileType: 'video' as const, contentType: 'video/mp4' };
    expect(limitViolation(video, 1000, {}, 'web')).toBeUndefined();
    expect(limitViolation(video, 1000, {}, 'container')).toMatch(/Web API only/);
    expect(limitViolation(video, 6 * 1024 ** 3, {}, 'web')).toMatch(/5 GB/);
  });
});
