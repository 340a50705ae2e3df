/**
 * Black-and-white photos through the built `pfc` on the Web API, which takes
 * RGB or RGBA only (the emulator refuses a greyscale upload): each is sent as
 * an RGB copy, corrected, and known by its own bytes afterwards (a rerun finds
 * it up to date; in place, restore gives the grey original back). The
 * result, R = G = B, is written greyscale again: the service's pixels
 * exactly, in the user's colour mode.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { greyProfile, jpegWithIcc, rgbProfile, SRGB_D50 } from '../support/icc';
import { withoutIcc } from '../../packages/core/test/helpers/icc-profiles';
import { emulator, filesBelow, jsonLines, runPfc, SAMPLES, summaryOf } from './helpers';

const SLOW = 120_000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * A grey JPEG with EXIF and a Gray Gamma 1.8 profile (its tones are not sRGB's: a mid grey of 128 shows as 146),
 * and a 16-bit grey PNG; beside them, for reference, the RGB images a viewer shows for them.
 */
async function greyPhotos(): Promise<{ dir: string; grey: Record<string, Buffer> }> {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-grey-'));
  const photo = sharp(join(SAMPLES, 'objects/coffee.jpg')).resize(240, 160);
  const jpeg = jpegWithIcc(await photo.clone().toColourspace('b-w').withExif({ IFD0: { Copyright: 'Grey Test' } }).jpeg({ quality: 95 }).toBuffer(), greyProfile('Gray Gamma 1.8 (test)', 1.8));
  const png = await photo.clone().toColourspace('grey16').png().toBuffer();
  expect([jpeg.length > 0, png[24], png[25]]).toEqual([true, 16, 0]);
  const grey = { 'bw.jpg': jpeg, 'bw16.png': png };
  mkdirSync(join(dir, 'photos/grey'), { recursive: true });
  mkdirSync(join(dir, 'photos/rgb'));
  for (const [name, bytes] of Object.entries(grey)) writeFileSync(join(dir, 'photos/grey', name), bytes);
  writeFileSync(join(dir, 'photos/rgb/bw.jpg'), await sharp(jpeg).toColourspace('srgb').jpeg({ quality: 100, chromaSubsampling: '4:4:4' }).toBuffer());
  writeFileSync(join(dir, 'photos/rgb/bw16.png'), await sharp(png).toColourspace('rgb16').png().toBuffer());
  return { dir, grey };
}

/**
 * The greyscale file written is one of the results the service served (its
 * outputs folder), sample for sample: the grey samples are its R = G = B,
 * the text it carries (`kept`) is there, and under their profiles both show
 * the same tones.
 */
async function expectServedAsGrey(written: string, outputs: string, kept?: string): Promise<void> {
  const jpeg = written.endsWith('.jpg');
  const asStored = (bytes: Buffer) => (jpeg ? withoutIcc(bytes) : bytes);
  const samples = (bytes: Buffer) => sharp(asStored(bytes), { failOn: 'warning' }).toColourspace('b-w').raw().toBuffer();
  const grey = readFileSync(written);
  const own = await samples(grey);
  const served = readdirSync(outputs).filter((f) => f.endsWith(jpeg ? '.jpg' : '.png')).map((f) => readFileSync(join(outputs, f)));
  const matches = [];
  for (const result of served) {
    const rgb = await sharp(asStored(result)).raw().toBuffer({ resolveWithObject: true });
    if (rgb.info.channels === 3 && rgb.data.length === own.length * 3 && own.every((v, i) => rgb.data[3 * i] === v && rgb.data[3 * i + 1] === v && rgb.data[3 * i + 2] === v)) matches.push(result);
  }
  // One, or two where the RGB reference photo (photos/rgb) came back with the very same pixels.
  expect(matches.length).toBeGreaterThanOrEqual(1);
  if (kept) expect(grey.includes(kept)).toBe(true);
  const [shownGrey, shownRgb] = await Promise.all([grey, matches[0]!].map((j) => sharp(j).toColourspace('srgb').raw().toBuffer()));
  expect(shownGrey!.every((v, i) => Math.abs(v - shownRgb![i]!) <= 1)).toBe(true);
}

/** Mean absolute difference of two images' 8-bit sRGB pixels, both of the same size. */
async function meanDiff(a: string, b: string): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((p) => sharp(p).toColourspace('srgb').removeAlpha().raw().toBuffer()));
  expect(x!.length).toBe(y!.length);
  let sum = 0;
  for (let i = 0; i < x!.length; i++) sum += Math.abs(x![i]! - y![i]!);
  return sum / x!.length;
}

describe('greyscale JPEG and PNG on the Web API', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pfc-grey-emu-'));
    emu = await emulator({ dataDir });
  });
  afterAll(() => emu.close());

  it('are sent as RGB and corrected, and come back greyscale (the service\'s pixels exactly); a rerun finds them up to date, touched or not', { timeout: SLOW }, async () => {
    const { dir, grey } = await greyPhotos();
    const args = ['correct', 'photos', ...emu.webArgs, '--json'];
    const r = await runPfc(args, { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(jsonLines(r.stdout).filter((l) => l.type === 'corrected').map((l) => l.rel).sort()).toEqual(['grey/bw.jpg', 'grey/bw16.png', 'rgb/bw.jpg', 'rgb/bw16.png']);

    const out = join(dir, 'photos/corrected');
    expect(filesBelow(out).filter((f) => !f.startsWith('.pfc-'))).toEqual(['grey/bw.jpg', 'grey/bw16.png', 'rgb/bw.jpg', 'rgb/bw16.png']);
    for (const name of Object.keys(grey)) {
      const meta = await sharp(join(out, 'grey', name)).metadata();
      expect([meta.format, meta.width, meta.height, meta.channels, meta.space], name).toEqual([name.endsWith('.png') ? 'png' : 'jpeg', 240, 160, 1, 'b-w']);
      // Corrected as the same photo in RGB is: the grey profile's tones were converted, not dropped.
      expect(await meanDiff(join(out, 'grey', name), join(out, 'rgb', name)), name).toBeLessThan(1.5);
    }

    // The service got RGB: a JPEG keeping its EXIF, under an sRGB profile; a PNG keeping its 16 bits.
    const jobs = emu.jobs();
    expect(jobs.map((j) => j.state)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED']);
    const originals = Object.values(grey).map(sha256);
    expect(jobs.filter((j) => originals.includes(j.inputSha256))).toEqual([]);
    const sent = jobs.map((j) => readFileSync(join(dataDir, 'uploads', String(j.requested.fileKey))));
    for (const upload of sent) {
      const meta = await sharp(upload).metadata();
      expect([meta.channels, meta.space]).toEqual(meta.format === 'png' ? [3, 'rgb16'] : [3, 'srgb']);
    }
    const sentJpeg = await sharp(sent.find((b) => b.includes('Grey Test'))).metadata();
    expect([sentJpeg.format, sentJpeg.exif !== undefined, sentJpeg.icc?.subarray(16, 20).toString('latin1')]).toEqual(['jpeg', true, 'RGB ']);
    await expectServedAsGrey(join(out, 'grey/bw.jpg'), join(dataDir, 'outputs'), 'Grey Test');
    await expectServedAsGrey(join(out, 'grey/bw16.png'), join(dataDir, 'outputs'));

    const again = await runPfc(args, { cwd: dir });
    expect(summaryOf(again.stdout)).toMatchObject({ corrected: 0, upToDate: 4, failed: 0 });
    expect(emu.jobs()).toHaveLength(4);
    // Forced, the files are planned from the manifest (headers unread): sniffed before sending, they still go as RGB.
    const forced = await runPfc([...args, '--force'], { cwd: dir });
    expect(summaryOf(forced.stdout), forced.stdout).toMatchObject({ corrected: 4, failed: 0 });
    // Touched (a backup tool, a copy): the bytes are read again, and the hash recorded is the user's file's, not the copy sent.
    const later = new Date(Date.now() + 60_000);
    for (const name of Object.keys(grey)) utimesSync(join(dir, 'photos/grey', name), later, later);
    const touched = await runPfc(args, { cwd: dir });
    expect(summaryOf(touched.stdout)).toMatchObject({ corrected: 0, upToDate: 4, failed: 0 });
    expect(emu.jobs()).toHaveLength(8);
    // No RGB copy left behind, and the user's files are as they were.
    expect(filesBelow(join(dir, 'photos')).filter((f) => f.endsWith('.pfc-partial'))).toEqual([]);
    for (const [name, bytes] of Object.entries(grey)) expect(readFileSync(join(dir, 'photos/grey', name)).equals(bytes), name).toBe(true);
  });

  it('a limit that depends on the upload\'s size holds for the RGB copy: over it, the file fails saying so, nothing sent or left behind', { timeout: SLOW }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-grey-'));
    mkdirSync(join(dir, 'photos'));
    // 40 megapixels of noise at quality 20: about 10 MB, which background removal takes; as RGB at quality 100, over its
    // 30 MB. Under an RGB profile, which cannot describe grey samples, so a re-encode (a grey JPEG's coded data
    // would otherwise be sent as they are, in colour).
    const [width, height] = [8000, 5000];
    const plain = await sharp(randomBytes(width * height), { raw: { width, height, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 20 }).toBuffer();
    const noise = jpegWithIcc(plain, rgbProfile('RGB gamma 2.2 (test)', SRGB_D50, 2.2));
    expect([noise.length < 30e6, (await sharp(noise).metadata()).channels]).toEqual([true, 1]);
    writeFileSync(join(dir, 'photos/noise.jpg'), noise);
    const uploads = emu.uploads();
    const r = await runPfc(['correct', 'photos', ...emu.webArgs, '--json', '-p', 'removeBackground=true'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const lines = jsonLines(r.stdout);
    expect(lines.filter((l) => l.type === 'retry')).toEqual([]);
    const failed = lines.filter((l) => l.type === 'failed');
    expect(failed.map((l) => l.errorName)).toEqual(['InputUnsupportedError']);
    expect(failed[0]!.error).toMatch(/greyscale, sent to the Web API as RGB \(it takes RGB or RGBA only\), where image is [\d.]+ MB; background removal takes inputs below 30 MB/);
    expect(emu.uploads()).toBe(uploads);
    expect(filesBelow(join(dir, 'photos'))).toEqual(['noise.jpg']);
  });

  it('the colour container takes them as they are: its document names JPEG and PNG only, greyscale included', { timeout: SLOW }, async () => {
    const { dir, grey } = await greyPhotos();
    const container = emu.selfHosted.container!;
    const r = await runPfc(['correct', 'photos/grey', '--container-url', container.url, '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 2, failed: 0 });
    const received = readdirSync(container.folders.input).map((f) => sha256(readFileSync(join(container.folders.input, f))));
    expect(received.sort()).toEqual(Object.values(grey).map(sha256).sort());
  });

  it('in place: the original kept is the grey file itself, and restore gives its exact bytes back', { timeout: SLOW }, async () => {
    const { dir, grey } = await greyPhotos();
    const photos = join(dir, 'photos/grey');
    const r = await runPfc(['correct', 'photos/grey', '--in-place', ...emu.webArgs, '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 2, failed: 0 });
    for (const [name, bytes] of Object.entries(grey)) {
      expect((await sharp(join(photos, name)).metadata()).channels, name).toBe(1);
      expect(readFileSync(join(photos, '.pfc-originals', name)).equals(bytes), name).toBe(true);
    }
    expect(filesBelow(photos).filter((f) => f.endsWith('.pfc-partial'))).toEqual([]);
    const again = await runPfc(['correct', 'photos/grey', '--in-place', ...emu.webArgs, '--json'], { cwd: dir });
    expect(summaryOf(again.stdout)).toMatchObject({ corrected: 0, upToDate: 2, failed: 0 });

    const restore = await runPfc(['restore', 'photos/grey'], { cwd: dir });
    expect(restore.code, restore.stdout + restore.stderr).toBe(0);
    for (const [name, bytes] of Object.entries(grey)) expect(readFileSync(join(photos, name)).equals(bytes), name).toBe(true);
  });
});
