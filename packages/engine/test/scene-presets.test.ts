/**
 * Scene detection and preset resolution: categories on real photos and a
 * drawn graphic, per-scene variants of the groups, the custom preset file
 * format and how an unreadable file is reported.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { correctImage } from '../src/correct';
import { decodeRaster, type Raster, thumbnailRaster } from '../src/image/raster';
import { groupParams, PRESET_GROUPS } from '../src/presets/builtin';
import { formatPresetFile, parsePresetFile, PRESET_FORMAT } from '../src/presets/custom';
import { resolvePreset } from '../src/presets/resolve';
import { SCENE, sceneName } from '../src/scene/categories';
import { detectScene } from '../src/scene/detect';
import { meanSaturation, rgb, sample } from './colour-helpers';

async function sceneOf(input: Buffer, faces: { width: number; height: number }[] = []) {
  return detectScene(await thumbnailRaster(await decodeRaster(input), 400), faces).scene;
}

const CLIPART = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#ffffff"/>
   <circle cx="120" cy="150" r="80" fill="#e63946"/><rect x="220" y="60" width="140" height="180" fill="#1d3557"/>
   <text x="40" y="280" font-size="28" fill="#2a9d8f">SALE</text></svg>`,
);

describe('detectScene', () => {
  it('tells a portrait (with its face) from a night launch photo and from graphics', async () => {
    const portrait = await sceneOf(sample('portraits/astronaut.jpg'), [{ width: 0.2, height: 0.25 }]);
    const launch = await sceneOf(sample('outdoors/rocket.jpg'));
    const graphic = await sceneOf(await sharp(CLIPART).png().toBuffer());
    expect(sceneName(portrait)).toBe('portrait');
    expect(sceneName(launch)).toBe('night');
    expect(sceneName(graphic)).toBe('clipart');
    expect(new Set([portrait, launch, graphic]).size).toBe(3);
  });

  it('calls two or more faces a group and a photo without faces not a portrait', async () => {
    const astronaut = sample('portraits/astronaut.jpg');
    expect(await sceneOf(astronaut, [{ width: 0.1, height: 0.1 }, { width: 0.1, height: 0.1 }])).toBe(SCENE.group);
    expect(await sceneOf(astronaut)).not.toBe(SCENE.portrait);
    expect(await sceneOf(sample('objects/coffee.jpg'))).toBe(SCENE.general);
  });

  it('reports the scene in the result, and leaves clipart alone under AI selection', async () => {
    const graphic = await sharp(CLIPART).png().toBuffer();
    const r = await correctImage(graphic, {});
    expect(r.scene).toBe(SCENE.clipart);
    const before = await rgb(graphic);
    const after = await rgb(r.output);
    expect(Buffer.from(after.data).equals(Buffer.from(before.data))).toBe(true);
  });
});

describe('detectScene: sky under a colour cast', () => {
  const W = 120;
  const H = 90;
  const enc = (l: number) => Math.round((l <= 0.0031308 ? l * 12.92 : 1.055 * Math.min(1, l) ** (1 / 2.4) - 0.055) * 255);
  /** Top third `top` (linear RGB), the rest a textured neutral ground, under camera gains `cast`. */
  function frame(top: [number, number, number], cast: [number, number, number]): Raster {
    const data = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const l = 0.06 + 0.3 * (((x * 7 + y * 13) % 23) / 23);
        const c = y < H / 3 ? top : ([l, l, l] as [number, number, number]);
        for (let k = 0; k < 3; k++) data[(y * W + x) * 3 + k] = enc(c[k]! * cast[k]!);
      }
    }
    return { data, width: W, height: H, channels: 3 };
  }
  const NONE: [number, number, number] = [1, 1, 1];
  const COOL: [number, number, number] = [0.75, 0.95, 1.3];

  it('does not call grey walls turned blue by a cool cast a sky', () => {
    const wall: [number, number, number] = [0.3, 0.3, 0.3];
    expect(detectScene(frame(wall, NONE)).scene).toBe(SCENE.general);
    // The cast makes the wall blue-dominant, but no bluer than the ground below it.
    expect(detectScene(frame(wall, COOL)).scene).toBe(SCENE.general);
  });

  it('still finds a blue sky, with or without a cool cast', () => {
    const sky: [number, number, number] = [0.2, 0.35, 0.7];
    expect(detectScene(frame(sky, NONE)).scene).toBe(SCENE.landscape);
    expect(detectScene(frame(sky, COOL)).scene).toBe(SCENE.landscape);
  });
});

describe('presets', () => {
  it('gives each group a variant per scene where documented', () => {
    expect(groupParams('Universal', SCENE.landscape).vibrance).toBeGreaterThan(groupParams('Universal', SCENE.portrait).vibrance);
    expect(groupParams('Universal', SCENE.night).exposure).toBeLessThan(groupParams('Universal', SCENE.general).exposure);
    for (const name of Object.keys(PRESET_GROUPS) as (keyof typeof PRESET_GROUPS)[]) {
      expect(groupParams(name, SCENE.clipart)).toMatchObject({ exposure: 0, whiteBalance: 0, contrast: 0, vibrance: 0, sharpen: 0 });
    }
  });

  it('reads the engine format and rejects out-of-range values with the reason', () => {
    const file = formatPresetFile({ base: 'Pro', params: { vibrance: 0.6 }, scenes: { portrait: { vibrance: 0.1 } } });
    const parsed = parsePresetFile(new TextEncoder().encode(file));
    expect(parsed).toEqual({ ok: true, preset: { base: 'Pro', params: { vibrance: 0.6 }, scenes: { portrait: { vibrance: 0.1 } } } });
    const bad = (o: unknown) => parsePresetFile(new TextEncoder().encode(JSON.stringify({ format: PRESET_FORMAT, ...(o as object) })));
    expect(bad({ params: { vibrance: 3 } })).toEqual({ ok: false, reason: '"params.vibrance" must be a number from -1 to 1' });
    expect(bad({ params: { glow: 1 } })).toMatchObject({ ok: false, reason: expect.stringContaining('unknown parameter "params.glow"') });
    expect(bad({ scenes: { beach: {} } })).toMatchObject({ ok: false, reason: expect.stringContaining('unknown scene "beach"') });
    expect(parsePresetFile(new Uint8Array([0x3c, 0x3f, 0x78, 0x6d, 0x6c]))).toMatchObject({ ok: false, reason: expect.stringContaining('not JSON') });
  });

  it('resolves per scene: base group, then params, then the scene override', () => {
    const file = new TextEncoder().encode(formatPresetFile({ base: 'Pro', params: { vibrance: 0.6 }, scenes: { portrait: { vibrance: 0.1 } } }));
    expect(resolvePreset('Mine', SCENE.general, file).params).toMatchObject({ ...PRESET_GROUPS.Pro.base, vibrance: 0.6 });
    expect(resolvePreset('Mine', SCENE.portrait, file)).toMatchObject({ name: 'Mine', aiSelection: true, params: { vibrance: 0.1 } });
    expect(resolvePreset(undefined, SCENE.general)).toMatchObject({ name: 'Universal', aiSelection: true });
    expect(() => resolvePreset('Mine', SCENE.general)).toThrow(/no preset file/);
  });

  it('changes the look with a custom preset file, and reports an unreadable one', async () => {
    const coffee = sample('objects/coffee.jpg');
    const vivid = new TextEncoder().encode(formatPresetFile({ params: { vibrance: 0.8, saturation: 0.3 } }));
    const plain = await correctImage(coffee, { preset: 'none' });
    const custom = await correctImage(coffee, { preset: 'Vivid' }, { presetFile: vivid });
    expect(custom.applied).toMatchObject({ preset: 'Vivid', aiSelection: false });
    expect(meanSaturation(await rgb(custom.output))).toBeGreaterThan(meanSaturation(await rgb(plain.output)) + 0.05);
    expect(custom.notes).toEqual([]);

    const foreign = await correctImage(coffee, { preset: 'Desktop look' }, { presetFile: new TextEncoder().encode('<preset><exposure>1</exposure></preset>') });
    expect(foreign.notes).toEqual([expect.stringMatching(/^preset "Desktop look" is in a format this engine does not read \(not JSON.*\); applied Universal instead$/)]);
    expect(foreign.applied.preset).toBe('Desktop look');
  });

  it('skips clipart with a non-AI custom preset under skip=clipart, and not under skip=none', async () => {
    const graphic = await sharp(CLIPART).png().toBuffer();
    const warm = new TextEncoder().encode(formatPresetFile({ params: { warmth: 1 } }));
    const skipped = await correctImage(graphic, { preset: 'Warm' }, { presetFile: warm });
    expect(skipped.applied.skipped).toMatch(/clipart/);
    expect(skipped.notes.join(' ')).toMatch(/skipped/);
    const forced = await correctImage(graphic, { preset: 'Warm', skip: 'none' }, { presetFile: warm });
    expect(forced.applied.skipped).toBeUndefined();
    expect(Buffer.from((await rgb(forced.output)).data).equals(Buffer.from((await rgb(graphic)).data))).toBe(false);
  });
});
