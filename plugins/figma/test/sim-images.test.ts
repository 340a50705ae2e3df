/**
 * The simulated Figma's images are at least as strict as Figma's:
 * `createImage` decodes the image to check it (test/sim/decode.ts), not by
 * the plugin's header reader, so a result the plugin would take on its
 * header alone is refused when it does not decode; and an image's reads can
 * fail, as a download can (`imageFaults`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { figmaAccepts, readImageHeader } from '../src/shared/image-header';
import { jpegCutAfterHeader, pngWithBrokenIdat } from './broken-images';
import { freshSim, makeImage } from './helpers';

let JPEG: Uint8Array, PNG: Uint8Array, GIF: Uint8Array;
beforeAll(async () => {
  [JPEG, PNG, GIF] = await Promise.all([makeImage(64, 48, 'jpeg'), makeImage(80, 60, 'png'), makeImage(40, 30, 'gif')]);
});

describe('createImage decodes what it is given', () => {
  it('takes PNG, JPEG and GIF, with the sizes of the decoded image', async () => {
    const sim = freshSim();
    for (const [bytes, size] of [[JPEG, { width: 64, height: 48 }], [PNG, { width: 80, height: 60 }], [GIF, { width: 40, height: 30 }]] as const) {
      expect(await sim.createImage(bytes).getSizeAsync()).toEqual(size);
    }
    expect(await sim.createImage(await makeImage(4096, 16, 'png')).getSizeAsync()).toEqual({ width: 4096, height: 16 });
  });

  it('refuses images whose header the plugin reads well but whose data does not decode', () => {
    const sim = freshSim();
    const cut = jpegCutAfterHeader(JPEG);
    const broken = pngWithBrokenIdat(PNG);
    // The plugin's own reader takes both: only decoding tells.
    expect([figmaAccepts(readImageHeader(cut)), figmaAccepts(readImageHeader(broken))]).toEqual([true, true]);
    expect(() => sim.createImage(cut)).toThrow(/Image is invalid \(jpeg/);
    expect(() => sim.createImage(broken)).toThrow(/Image is invalid \(png: CRC mismatch/);
    expect(() => sim.createImage(JPEG.slice(0, JPEG.length >> 1))).toThrow(/Image is invalid/);
    expect(() => sim.createImage(GIF.slice(0, 13))).toThrow(/Image is invalid \(gif: no image/);
    expect(sim.images.size).toBe(0);
  });

  it('refuses other formats and images over 4096 px a side, by their decoded size', async () => {
    const sim = freshSim();
    const [webp, wide, tall] = await Promise.all([makeImage(10, 10, 'webp'), makeImage(4097, 10, 'png'), makeImage(10, 4097, 'jpeg')]);
    expect(() => sim.createImage(new Uint8Array(0))).toThrow(/unsupported/);
    expect(() => sim.createImage(webp)).toThrow(/unsupported/);
    expect(() => sim.createImage(wide)).toThrow(/too large/);
    expect(() => sim.createImage(tall)).toThrow(/too large/);
  });
});

describe('image reads can fail', () => {
  it('rejects getBytesAsync and getSizeAsync of an image in imageFaults, for both users, until the fault goes', async () => {
    const sim = freshSim();
    const hash = sim.addImage(JPEG);
    const other = sim.otherUser();
    sim.imageFaults.set(hash, new Error('Image failed to load'));
    for (const image of [sim.getImageByHash(hash), other.getImageByHash(hash)]) {
      await expect(image!.getBytesAsync()).rejects.toThrow('Image failed to load');
      await expect(image!.getSizeAsync()).rejects.toThrow('Image failed to load');
    }
    sim.imageFaults.delete(hash);
    expect(await sim.getImageByHash(hash)!.getBytesAsync()).toEqual(JPEG);
  });
});
