/**
 * The emulator's default engine (@pfc/engine's createImagingEngine) through
 * the HTTP API: the look really corrects, faces and scene fill detectionData,
 * a custom preset in the engine's format changes the look, and a preset file
 * in another format is accepted and reported in statusText.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { formatPresetFile, meanDeltaE2000, readExifThumbnail, SCENE, setExifThumbnail } from '@pfc/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASTRONAUT, closeAll, COFFEE, download, emulator, H, json, runJob } from './helpers';

let web: string;
beforeAll(async () => {
  web = (await emulator()).web;
});
afterAll(closeAll);

async function raw(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes).removeAlpha().raw().toBuffer();
}

/**
 * Two files of the same photo (another encoding, depth or profile) corrected by the default job, with and
 * without preserveMetadata, look alike as a colour-managed viewer shows them: mean ΔE2000 below `max`.
 */
async function expectCorrectedAlike(reference: Buffer, variant: Buffer, max: number): Promise<void> {
  const shown = async (bytes: Buffer) => sharp(bytes).toColourspace('srgb').removeAlpha().raw().toBuffer();
  const corrected = async (file: Buffer, preserveMetadata: boolean) => shown((await download(await runJob(web, new Uint8Array(file), { preserveMetadata }))).bytes);
  for (const preserveMetadata of [true, false]) {
    const [a, b] = [await corrected(reference, preserveMetadata), await corrected(variant, preserveMetadata)];
    expect(meanDeltaE2000(a, b, 3), `preserveMetadata=${preserveMetadata}`).toBeLessThan(max);
  }
}

async function uploadPreset(name: string, file: Buffer): Promise<void> {
  const res = await fetch(`${web}/presets/`, { method: 'POST', headers: { ...H, 'Content-Type': 'application/json' }, body: JSON.stringify({ name, description: '' }) });
  const { uploadUrl } = await json<{ uploadUrl: string }>(res);
  expect((await fetch(uploadUrl, { method: 'PUT', body: new Uint8Array(file) })).status).toBe(200);
}

describe('default engine', () => {
  it('corrects a dark, warm photo towards the original; preset=none leaves the pixels', async () => {
    const { data, info } = await sharp(ASTRONAUT).raw().toBuffer({ resolveWithObject: true });
    const dark = Buffer.from(data.map((v, i) => Math.round(v * [0.75, 0.62, 0.5][i % 3]!)));
    const input = await sharp(dark, { raw: info }).png().toBuffer();
    const r = await runJob(web, new Uint8Array(input));
    expect(r.status).toBe('COMPLETED');
    const corrected = await raw((await download(r)).bytes);
    expect(meanDeltaE2000(data, corrected, 3)).toBeLessThan(meanDeltaE2000(data, dark, 3) * 0.6);
    const none = await runJob(web, new Uint8Array(input), { preset: 'none' });
    expect((await raw((await download(none)).bytes)).equals(dark)).toBe(true);
  });

  it('fills detectionData with the face, its eyes and the portrait scene', async () => {
    const r = await runJob(web, ASTRONAUT, { includeDetectionData: true });
    expect(r.detectionData).toMatchObject({ facesCount: 1, scene: SCENE.portrait, status: 'OK' });
    const face = r.detectionData!.faces[0]!;
    expect(face.leftEye.x).toBeLessThan(face.rightEye.x);
    expect(face.leftEye.x).toBeGreaterThan(face.left);
    expect(face.rightEye.x).toBeLessThan(face.left + face.width);
  });

  it('applies a custom preset in the engine format and reports one in another format', async () => {
    await uploadPreset('Vivid', Buffer.from(formatPresetFile({ params: { vibrance: 0.9, saturation: 0.4 } })));
    await uploadPreset('Desktop', Buffer.from('<?xml version="1.0"?><preset><exposure>0.3</exposure></preset>\n'));
    const plain = await raw((await download(await runJob(web, COFFEE, { preset: 'none' }))).bytes);
    const vivid = await runJob(web, COFFEE, { preset: 'Vivid' });
    expect(vivid.statusText).toBe('');
    const vividPixels = await raw((await download(vivid)).bytes);
    const sat = (b: Buffer) => {
      let s = 0;
      for (let i = 0; i < b.length; i += 3) s += Math.max(b[i]!, b[i + 1]!, b[i + 2]!) - Math.min(b[i]!, b[i + 1]!, b[i + 2]!);
      return s / (b.length / 3);
    };
    expect(sat(vividPixels)).toBeGreaterThan(sat(plain) * 1.15);
    const foreign = await runJob(web, COFFEE, { preset: 'Desktop' });
    expect(foreign.status).toBe('COMPLETED');
    expect(foreign.statusText).toMatch(/^preset "Desktop" is in a format this engine does not read \(not JSON/);
  });

  it('replaces the background: generated from a prompt (the same each time), and colour with a shadow', async () => {
    const hopper = new Uint8Array(readFileSync(new URL('../../../samples/portraits/grace_hopper.jpg', import.meta.url)));
    const gen = await runJob(web, hopper, { removeBackground: true, bgGenerativePrompt: 'sunset at the beach', cache: false });
    expect(gen.status).toBe('COMPLETED');
    const again = await runJob(web, hopper, { removeBackground: true, bgGenerativePrompt: 'sunset at the beach', cache: false });
    const a = (await download(gen)).bytes;
    expect(a.equals((await download(again)).bytes)).toBe(true);
    const meta = await sharp(a).metadata();
    expect(meta.format).toBe('png');
    // The top corner is the generated dusk sky, not the photo's blue backdrop or flag.
    const cornerBlue = async (img: Uint8Array) => {
      const px = await sharp(img).extract({ left: meta.width! - 20, top: 0, width: 20, height: 20 }).removeAlpha().raw().toBuffer();
      let b = 0;
      for (let i = 2; i < px.length; i += 3) b += px[i]!;
      return b / (px.length / 3);
    };
    expect(await cornerBlue(hopper)).toBeGreaterThan(150);
    expect(await cornerBlue(a)).toBeLessThan(110);

    const plain = await raw((await download(await runJob(web, hopper, { removeBackground: true, bgColor: '#ffffff', outputType: 'png' }))).bytes);
    const shaded = await raw((await download(await runJob(web, hopper, { removeBackground: true, bgColor: '#ffffff', bgShadow: 'hard', outputType: 'png' }))).bytes);
    let darker = 0;
    for (let i = 0; i < plain.length; i += 3) if (shaded[i]! < plain[i]! - 20) darker++;
    expect(darker).toBeGreaterThan(500);
  });

  it('counts glare as documented: found on painted lens glare, not on a face without glasses', async () => {
    const { data, info } = await sharp(readFileSync(new URL('../../../samples/portraits/grace_hopper.jpg', import.meta.url))).raw().toBuffer({ resolveWithObject: true });
    // A soft white highlight on the left lens (the eyes of this photo are at about (215, 191) and (306, 187)).
    for (let y = -7; y <= 7; y++) {
      for (let x = -10; x <= 10; x++) {
        const q = (x / 10) ** 2 + (y / 7) ** 2;
        if (q > 1) continue;
        const i = ((179 + y) * info.width + 233 + x) * 3;
        for (let c = 0; c < 3; c++) data[i + c] = Math.round(data[i + c]! * q + 250 * (1 - q));
      }
    }
    const glare = await runJob(web, new Uint8Array(await sharp(data, { raw: info }).png().toBuffer()), { removeGlares: true, preset: 'none' });
    expect(glare.usage).toMatchObject({ glaresDetectorCount: 1, removeGlaresTotalCount: 1, removeGlaresCount: 1 });
    const none = await runJob(web, ASTRONAUT, { removeGlares: true });
    expect(none.usage).toMatchObject({ glaresDetectorCount: 1, removeGlaresTotalCount: 1, removeGlaresCount: 0 });
  });

  it('enlarges with the AI upscaler (not Lanczos) and counts imageResizeCount', async () => {
    const small = await sharp(COFFEE).resize(150, 100).png().toBuffer();
    const r = await runJob(web, new Uint8Array(small), { scale: 200, preset: 'none', outputType: 'png' });
    expect(r.status).toBe('COMPLETED');
    expect(r.outputDimensions).toEqual({ width: 300, height: 200 });
    expect(r.usage).toMatchObject({ imageResizeCount: 1, classicResizeCount: 0 });
    const out = await raw((await download(r)).bytes);
    const lanczos = await sharp(small).resize(300, 200, { fit: 'fill', kernel: 'lanczos3' }).removeAlpha().raw().toBuffer();
    expect(out.length).toBe(lanczos.length);
    expect(out.equals(lanczos)).toBe(false);
  });

  it('keeps the colours of a Display P3 photo (an iPhone\'s): its corrected pixels are tagged as what they are', async () => {
    // The look works on sRGB pixels; tagged with the source's P3 profile, they
    // would show oversaturated. The same photo as sRGB is the reference: both
    // outputs, as a colour-managed viewer shows them, must look the same.
    const srgb = await sharp(ASTRONAUT).jpeg({ quality: 95 }).toBuffer();
    const p3 = await sharp(ASTRONAUT).withIccProfile('p3').jpeg({ quality: 95 }).toBuffer();
    expect((await sharp(p3).metadata()).icc).toBeDefined();
    await expectCorrectedAlike(srgb, p3, 1);
  });

  it('reads a 16-bit PNG with a profile as the colours it shows (sharp decodes it to Display P3 numbers)', async () => {
    const eight = await sharp(ASTRONAUT).withIccProfile('srgb').png().toBuffer();
    const sixteen = await sharp(ASTRONAUT).withIccProfile('srgb').toColourspace('rgb16').png().toBuffer();
    expect((await sharp(sixteen).metadata()).depth).toBe('ushort');
    await expectCorrectedAlike(eight, sixteen, 0.5);
  });

  it('regenerates the EXIF thumbnail with updateThumbnail', async () => {
    const red = await sharp({ create: { width: 160, height: 160, channels: 3, background: '#ff0000' } }).jpeg().toBuffer();
    const tagged = setExifThumbnail(await sharp(COFFEE).withExif({ IFD0: { Copyright: 'CC0' } }).jpeg().toBuffer(), red);
    const stale = readExifThumbnail((await download(await runJob(web, new Uint8Array(tagged), {}))).bytes)!;
    expect((await sharp(stale).stats()).channels[1]!.mean).toBeLessThan(10);
    const fresh = readExifThumbnail((await download(await runJob(web, new Uint8Array(tagged), { updateThumbnail: true }))).bytes)!;
    expect((await sharp(fresh).stats()).channels[1]!.mean).toBeGreaterThan(40);
  });
});
