/**
 * Greyscale files on the Web API, which takes RGB or RGBA only: a JPEG,
 * baseline or progressive, is sent as the same coded data in colour, on any
 * host, a grey profile as the RGB one showing the same tones; a PNG as the
 * same samples in RGB by core's transcode where the host has no RGB copy
 * (`rgbCopy`; the VS Code .vsix carries no native image library) or where it
 * is 16-bit, else by the host's copy; any other grey file (one with an RGB
 * profile) by the host's copy, or without one refused before anything is
 * sent, saying so. A JPEG's result without colour is written greyscale again.
 * The CLI's end-to-end run is test/cli/greyscale.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { planBatch, runBatch } from '../src/index';
import { rgbCopy } from '../src/rgb';
import { greyProfile, jpegWithIcc, pngWithIcc, rgbProfile, SRGB_D50 } from '../../../test/support/icc';
import { FakeBackend, jpegBytes, listAll, tempDir, writeTree } from './helpers';

/** Grey pixels with grain (a re-encode would change them). */
const grain = sharp(Buffer.from(Array.from({ length: 64 * 48 }, (_v, i) => (i * 7919) % 251)), { raw: { width: 64, height: 48, channels: 1 } }).toColourspace('b-w');

async function photos(): Promise<string> {
  const root = tempDir();
  writeTree(root, {
    'bw.jpg': await grain.clone().jpeg().toBuffer(),
    'progressive.jpg': await grain.clone().jpeg({ progressive: true }).toBuffer(),
    // An RGB profile cannot describe grey samples: core does not convert the file; a host copy can, ignoring it.
    'rgb-profiled.jpg': jpegWithIcc(await grain.clone().jpeg().toBuffer(), rgbProfile('RGB gamma 2.2 (test)', SRGB_D50, 2.2)),
    'profiled.jpg': jpegWithIcc(await grain.clone().jpeg({ quality: 95 }).toBuffer(), greyProfile('Gray Gamma 1.8 (test)', 1.8)),
    'bw16.png': await grain.clone().toColourspace('grey16').png().toBuffer(),
    'profiled.png': pngWithIcc(await grain.clone().png().toBuffer(), greyProfile('Gray Gamma 1.8 (test)', 1.8)),
    'profiled16.png': pngWithIcc(await grain.clone().toColourspace('grey16').png().toBuffer(), greyProfile('Gray Gamma 1.8 (test)', 1.8)),
    'colour.jpg': jpegBytes(64, 48),
  });
  return root;
}

/**
 * How a colour-managed viewer shows the profiled files (their Gray Gamma 1.8 tones in sRGB: the 8-bit PNG as
 * sharp shows it, which applies no profile to 16-bit grey), and their numbers read as sRGB, several levels apart.
 */
async function profiledTones(root: string): Promise<{ shown: Buffer; numbers: Buffer }> {
  const shown = await sharp(join(root, 'profiled.png')).toColourspace('srgb').raw().toBuffer();
  const numbers = await grain.clone().toColourspace('srgb').raw().toBuffer();
  expect(meanAbsolute(shown, numbers)).toBeGreaterThan(5);
  return { shown, numbers };
}

/** Mean absolute difference of two byte arrays of one length. */
function meanAbsolute(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** Each `bytes`-byte sample of `grey` three times: the same pixels in RGB. */
function threeTimes(grey: Buffer, bytes: number): Buffer {
  const rgb = Buffer.alloc(grey.length * 3);
  for (let i = 0; i < grey.length; i += bytes) for (let c = 0; c < 3; c++) grey.copy(rgb, i * 3 + c * bytes, i, i + bytes);
  return rgb;
}

/** 16-bit samples of the image as stored, in its own `space` (no conversion). */
const pixels16 = (image: Uint8Array, space: 'grey16' | 'rgb16') => sharp(image).toColourspace(space).raw({ depth: 'ushort' }).toBuffer();

/** The channels of `name`'s upload, and its pixels as sRGB (sharp shows a grey image as R = G = B too). */
async function sent(backend: FakeBackend, name: string): Promise<{ channels: number | undefined; pixels: Buffer }> {
  const input = backend.calls.find((c) => c.fileName === name)!.input;
  return { channels: (await sharp(input).metadata()).channels, pixels: await sharp(input).raw().toBuffer() };
}

describe('greyscale files on the Web API', () => {
  it('a result with no colour is written greyscale again, sample for sample (JPEG, 8- and 16-bit PNG); one with colour, or progressive, as it came', async () => {
    const root = tempDir();
    const baseline = await grain.clone().jpeg().toBuffer();
    const png16 = await grain.clone().toColourspace('grey16').png().toBuffer();
    const toned = { 'toned.jpg': await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 120, g: 100, b: 80 } } }).jpeg().toBuffer(), 'toned.png': await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 120, g: 100, b: 80 } } }).png().toBuffer() };
    writeTree(root, {
      'bw.jpg': baseline, 'progressive.jpg': await grain.clone().jpeg({ progressive: true }).toBuffer(), 'toned.jpg': baseline, 'colour.jpg': jpegBytes(64, 48),
      'bw.png': await grain.clone().png().toBuffer(), 'bw16.png': png16, 'toned.png': png16,
    });
    // A service that returns what it was sent (the colour copy: R = G = B), except a sepia toning for toned.*.
    const backend: FakeBackend = new FakeBackend({ body: (input: Uint8Array): Uint8Array => toned[backend.calls.at(-1)!.fileName as keyof typeof toned] ?? input });
    // One file at a time, so the last call is the one answered.
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1, concurrency: 1 });
    expect(summary.failures).toEqual([]);
    const out = (name: string) => readFileSync(join(root, 'corrected', name));
    const served = (name: string) => Buffer.from(backend.calls.find((c) => c.fileName === name)!.input);
    expect((await sharp(out('bw.jpg')).metadata()).channels).toBe(1);
    expect((await sharp(out('bw.jpg')).raw().toBuffer()).equals(await sharp(baseline).raw().toBuffer())).toBe(true);
    expect((await sharp(served('bw.jpg')).metadata()).channels).toBe(3);
    // Progressive results are not rewritten; colour is never dropped; a colour photo's result is untouched.
    expect(out('progressive.jpg').equals(served('progressive.jpg'))).toBe(true);
    expect(out('toned.jpg').equals(toned['toned.jpg'])).toBe(true);
    expect(out('colour.jpg').equals(served('colour.jpg'))).toBe(true);
    // PNGs: the grey samples exactly, 16 bits kept; the toned one as it came; no temporary file left.
    for (const [name, space] of [['bw.png', 'b-w'], ['bw16.png', 'grey16']] as const) {
      expect((await sharp(out(name)).metadata()).channels, name).toBe(1);
      expect((await sharp(served(name)).metadata()).channels, name).toBe(3);
      const samples = (png: Buffer) => sharp(png).toColourspace(space).raw(space === 'grey16' ? { depth: 'ushort' } : {}).toBuffer();
      expect((await samples(out(name))).equals(await samples(readFileSync(join(root, name)))), name).toBe(true);
    }
    expect(out('toned.png').equals(toned['toned.png'])).toBe(true);
    expect(listAll(join(root, 'corrected')).filter((f) => f.endsWith('.pfc-partial'))).toEqual([]);
  });

  it('without an RGB copy from the host: JPEGs and PNGs go losslessly (pixels identical, 16 bits kept, a grey profile as the RGB one showing its tones), one with an RGB profile fails before its upload saying why; the colour file goes on', async () => {
    const root = await photos();
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1 });
    expect(backend.calls.map((c) => c.fileName).sort()).toEqual(['bw.jpg', 'bw16.png', 'colour.jpg', 'profiled.jpg', 'profiled.png', 'profiled16.png', 'progressive.jpg']);
    for (const name of ['bw.jpg', 'progressive.jpg']) {
      const jpeg = await sent(backend, name);
      expect(jpeg.channels, name).toBe(3);
      expect(jpeg.pixels.equals(await sharp(join(root, name)).raw().toBuffer()), name).toBe(true);
    }
    const png = backend.calls.find((c) => c.fileName === 'bw16.png')!.input;
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', channels: 3, depth: 'ushort' });
    expect((await pixels16(png, 'rgb16')).equals(threeTimes(await pixels16(readFileSync(join(root, 'bw16.png')), 'grey16'), 2))).toBe(true);
    // The profiled ones: their samples in colour under the RGB profile that shows their grey's tones.
    const pngTones = await profiledTones(root);
    // The JPEG's own samples (quality 95), shown by its grey profile, and read as sRGB.
    const jpegTones = {
      shown: await sharp(join(root, 'profiled.jpg')).toColourspace('srgb').raw().toBuffer(),
      numbers: await sharp(join(root, 'bw.jpg')).toColourspace('srgb').raw().toBuffer(),
    };
    for (const name of ['profiled.jpg', 'profiled.png', 'profiled16.png']) {
      const { shown, numbers } = name.endsWith('.jpg') ? jpegTones : pngTones;
      const input = backend.calls.find((c) => c.fileName === name)!.input;
      const meta = await sharp(input).metadata();
      expect([meta.channels, meta.depth, meta.icc?.subarray(16, 20).toString('latin1')], name).toEqual([3, name === 'profiled16.png' ? 'ushort' : 'uchar', 'RGB ']);
      const tones = await sharp(input).toColourspace('srgb').raw().toBuffer();
      expect(meanAbsolute(tones, shown), name).toBeLessThan(name === 'profiled16.png' ? 1 : 0.5);
      expect(meanAbsolute(tones, numbers), `${name}: not its numbers unconverted`).toBeGreaterThan(5);
    }
    const refused = summary.results.find((r) => r.rel === 'rgb-profiled.jpg')!;
    expect(refused).toMatchObject({ status: 'failed', errorName: 'InputUnsupportedError' });
    expect(refused.error).toContain('greyscale, which the Web API does not take (RGB or RGBA only), and this installation cannot convert it');
    expect(listAll(join(root, 'corrected')).filter((f) => !f.startsWith('.pfc-manifest'))).toEqual(['bw.jpg', 'bw16.png', 'colour.jpg', 'profiled.jpg', 'profiled.png', 'profiled16.png', 'progressive.jpg']);
  });

  it('with the host\'s RGB copy: every file is corrected, an 8-bit profiled PNG copied by it with its tones converted, a 16-bit one by core keeping 16 bits; no copy is left behind', async () => {
    const root = await photos();
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1, rgbCopy });
    expect(summary).toMatchObject({ corrected: 8, failed: 0 });
    const { shown, numbers } = await profiledTones(root);
    const hosts = await sent(backend, 'profiled.png');
    expect([hosts.channels, (await sharp(backend.calls.find((c) => c.fileName === 'profiled.png')!.input).metadata()).icc?.includes(Buffer.from('sRGB', 'utf16le').swap16())]).toEqual([3, true]);
    expect(meanAbsolute(hosts.pixels, shown)).toBeLessThan(0.5);
    expect(meanAbsolute(hosts.pixels, numbers), 'not its numbers unconverted').toBeGreaterThan(5);
    const cores = backend.calls.find((c) => c.fileName === 'profiled16.png')!.input;
    expect((await sharp(cores).metadata()).depth).toBe('ushort');
    expect(meanAbsolute(await sharp(cores).toColourspace('srgb').raw().toBuffer(), shown)).toBeLessThan(1);
    expect(listAll(root).filter((f) => f.includes('.pfc-partial'))).toEqual([]);
  });

  it('the host\'s RGB copy keeps an untagged 16-bit image\'s samples exactly', async () => {
    const root = await photos();
    const copy = join(root, 'copy.png');
    await rgbCopy(join(root, 'bw16.png'), 'png', copy);
    expect((await sharp(copy).metadata()).icc).toBeUndefined();
    expect((await pixels16(readFileSync(copy), 'rgb16')).equals(threeTimes(await pixels16(readFileSync(join(root, 'bw16.png')), 'grey16'), 2))).toBe(true);
  });

  it('asked for a result without metadata (preserveMetadata=false), a profiled JPEG is not sent under a profile the result would lose: the host\'s sRGB copy, or without one refused', async () => {
    const root = await photos();
    const params = { preserveMetadata: false };
    const without = await runBatch(await planBatch({ inputs: [root], params }), { backend: new FakeBackend(), retryDelayMs: 1, params });
    // The refusal names the setting where it is the reason, and only there.
    for (const name of ['profiled.jpg', 'profiled.png', 'profiled16.png']) {
      const refused = without.results.find((r) => r.rel === name)!;
      expect(refused, name).toMatchObject({ status: 'failed', errorName: 'InputUnsupportedError' });
      expect(refused.error, name).toContain('greyscale with a colour profile, which the Web API does not take (RGB or RGBA only); with preserveMetadata=false the result would lose the profile');
    }
    expect(without.results.find((r) => r.rel === 'rgb-profiled.jpg')?.error).not.toContain('preserveMetadata');
    expect(without.results.find((r) => r.rel === 'bw16.png')).toMatchObject({ status: 'corrected' });
    const backend = new FakeBackend();
    const withCopy = await runBatch(await planBatch({ inputs: [join(root, 'profiled.jpg')], params }), { backend, retryDelayMs: 1, params, rgbCopy });
    expect(withCopy).toMatchObject({ corrected: 1, failed: 0 });
    // sRGB numbers under an sRGB profile: the tones hold whether the result keeps a profile or not.
    const sent = backend.calls[0]!.input;
    expect((await sharp(sent).metadata()).icc?.includes(Buffer.from('sRGB', 'utf16le').swap16())).toBe(true);
    const shownGrey = await sharp(join(root, 'profiled.jpg')).toColourspace('srgb').raw().toBuffer();
    expect(meanAbsolute(await sharp(sent).toColourspace('srgb').raw().toBuffer(), shownGrey)).toBeLessThan(1);
  });

  it('a grey PNG whose image data is corrupt fails before its upload, saying so; no copy is left behind', async () => {
    const root = tempDir();
    const png = Buffer.from(await grain.clone().png().toBuffer());
    const idat = png.indexOf('IDAT', 0, 'latin1');
    png[idat + 10] = png[idat + 10]! ^ 0xff; // inside the image data: its CRC no longer matches
    writeTree(root, { 'bw.png': png });
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1 });
    expect(backend.calls).toEqual([]);
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'InputUnsupportedError' });
    expect(summary.results[0]!.error).toMatch(/bw\.png: greyscale, and its PNG data could not be converted to RGB for the Web API \(it takes RGB or RGBA only\): corrupt PNG: CRC mismatch in the IDAT chunk/);
    expect(listAll(root).filter((f) => f.includes('.pfc-partial'))).toEqual([]);
  });
});
