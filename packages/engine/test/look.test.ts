/**
 * The emulator's `look` hook: raw pixels in, corrected pixels of the same
 * shape out, alpha untouched, the scene and notes reported.
 */
import { describe, expect, it } from 'vitest';
import { meanDeltaE2000 } from '../src/colour/deltaE';
import { createLookEngine } from '../src/look';
import { SCENE } from '../src/scene/categories';
import { linearGains, rgb, sample } from './colour-helpers';

describe('createLookEngine().look', () => {
  const { look } = createLookEngine();

  it('corrects raw RGB pixels and keeps the shape', async () => {
    const orig = await rgb(sample('portraits/grace_hopper.jpg'));
    const dark = linearGains(orig, [0.35, 0.35, 0.35]);
    const out = await look({ ...dark, channels: 3 }, { params: {} });
    expect([out.width, out.height, out.channels, out.data.length]).toEqual([dark.width, dark.height, 3, dark.data.length]);
    expect(meanDeltaE2000(orig.data, out.data, 3)).toBeLessThan(meanDeltaE2000(orig.data, dark.data, 3) / 3);
    expect(out.notes).toEqual([]);
  });

  it('leaves alpha exactly as it was', async () => {
    const orig = await rgb(sample('objects/coffee.jpg'));
    const rgba = new Uint8Array((orig.data.length / 3) * 4);
    for (let i = 0, j = 0; i < orig.data.length; i += 3, j += 4) {
      rgba.set(orig.data.subarray(i, i + 3), j);
      rgba[j + 3] = (j / 4) % 7 === 0 ? 0 : 200;
    }
    const out = await look({ data: rgba, width: orig.width, height: orig.height, channels: 4 }, { params: { preset: 'Attractions and Cruise Lines' } });
    expect(out.channels).toBe(4);
    for (let j = 3; j < rgba.length; j += 4) if (out.data[j] !== rgba[j]) throw new Error(`alpha changed at pixel ${(j - 3) / 4}`);
  });

  it('uses the scene of the job detection and reports it', async () => {
    const orig = await rgb(sample('objects/coffee.jpg'));
    const out = await look({ ...orig, channels: 3 }, { params: {}, detection: { faces: [], scene: SCENE.night } });
    expect(out.scene).toBe(SCENE.night);
    const own = await look({ ...orig, channels: 3 }, { params: {} });
    expect(own.scene).toBe(SCENE.general);
  });

  it('tells portraits by faces from the detector it was given', async () => {
    const orig = await rgb(sample('portraits/astronaut.jpg'));
    const face = (img: { width: number; height: number }) => ({
      confidence: 90, angle: 0, blink: 0, smile: 0, yawAngle: 0, left: img.width * 0.4, top: img.height * 0.1, width: img.width / 5, height: img.height / 4,
      leftEye: { x: 0, y: 0 }, rightEye: { x: 0, y: 0 },
    });
    const withFaces = createLookEngine({ findFaces: async (img) => [face(img)] });
    expect((await withFaces.look({ ...orig, channels: 3 }, { params: {} })).scene).toBe(SCENE.portrait);
  });

  it('without beautify finds nothing on faces: no face search, no retouching, the portrait read as a scene without faces', async () => {
    const orig = await rgb(sample('portraits/astronaut.jpg'));
    const searches: string[] = [];
    const engine = createLookEngine({
      findFaces: async (img) => {
        searches.push(`${img.width}x${img.height}`);
        return [{ confidence: 90, angle: 0, blink: 0, smile: 0, yawAngle: 0, left: img.width * 0.4, top: img.height * 0.1, width: img.width / 5, height: img.height / 4, leftEye: { x: 0, y: 0 }, rightEye: { x: 0, y: 0 } }];
      },
    });
    const params = { removeBlemish: true };
    const plain = await engine.look({ ...orig, channels: 3 }, { params, beautify: false });
    expect(searches).toEqual([]);
    expect(plain.scene).not.toBe(SCENE.portrait);
    const beautified = await engine.look({ ...orig, channels: 3 }, { params });
    expect(searches.length).toBeGreaterThan(0);
    expect(beautified.scene).toBe(SCENE.portrait);
  });

  it('reports a preset file it cannot read, and refuses one-channel images', async () => {
    const orig = await rgb(sample('objects/coffee.jpg'));
    const out = await look({ ...orig, channels: 3 }, { params: { preset: 'Old look' }, presetFile: new TextEncoder().encode('{"exposure": 1}') });
    expect(out.notes[0]).toMatch(/^preset "Old look" is in a format this engine does not read \(JSON without "format": "pfc-engine-preset"\)/);
    await expect(look({ data: new Uint8Array(100), width: 10, height: 10, channels: 1 }, { params: {} })).rejects.toThrow(/one channel/);
  });
});
