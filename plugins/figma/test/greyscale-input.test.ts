/**
 * Greyscale images on the canvas against the Web API, which takes RGB or
 * RGBA only: the UI's run loop, the backend Settings opens and the emulator,
 * checked in what the service received (the uploads, tied to its job record
 * by SHA-256) and in the images Figma ends up holding. Drawing is done by
 * the Node stand-in for the browser's canvas (`nodeRedraw`); the e2e test
 * checks the real one in Chromium.
 */
import { createHash } from 'node:crypto';
import { sniffMedia } from '@pfc/core/media';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend } from '../src/ui/backend';
import { DEFAULT_OPTIONS } from '../src/ui/options';
import { runCorrection, type ItemUpdate } from '../src/ui/runner';
import { greyProfile, jpegWithIcc, pngWithIcc, rgbProfile, SRGB_D50 } from '../../../test/support/icc';
import { greyJpeg, greyPng, meanDifference, shownPixels } from './grey-images';
import { freshSim, makeImage, nodeThumbnail, wired } from './helpers';
import { nodeRedraw } from './node-redraw';
import { imageFill } from './sim/figma';

let emu: EmulatorHandle;
beforeAll(async () => {
  // No engine: geometry and encoding only, which is all this needs to show.
  emu = await startEmulator({ webPort: 0, engine: {} });
});
afterAll(async () => {
  await emu?.close();
});

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('greyscale images go to the Web API as RGB; colour ones as they are', () => {
  it('sends a grey JPEG as the same JPEG data in colour, a grey PNG with alpha as the same samples in RGBA and a profiled one under the RGB profile showing its tones, redraws one with an RGB profile (upright) at full size, sends a colour JPEG byte for byte, and Figma holds each result', async () => {
    const originals = {
      jpeg: await greyJpeg(90, 60),
      rgbProfiled: new Uint8Array(jpegWithIcc(Buffer.from(await greyJpeg(100, 64)), rgbProfile('RGB gamma 2.2 (test)', SRGB_D50, 2.2))),
      png: await greyPng(80, 50, true),
      profiled: new Uint8Array(pngWithIcc(Buffer.from(await greyPng(60, 40, false)), greyProfile('Gray Gamma 2.2 (test)', 2.2))),
      colour: await makeImage(70, 40),
    };
    expect(sniffMedia(originals.jpeg)).toMatchObject({ grey: true, width: 90, height: 60 });
    expect(sniffMedia(originals.png)).toMatchObject({ grey: true });
    expect((await sharp(originals.jpeg).metadata()).autoOrient).toEqual({ width: 60, height: 90 });

    const sim = freshSim();
    const nodes = Object.fromEntries(Object.entries(originals).map(([name, bytes]) => [name, sim.rect(name, [imageFill(sim.addImage(bytes))])]));
    sim.place(...Object.values(nodes));
    sim.select(...Object.values(nodes));
    const hashOf = (name: string) => (nodes[name]!.fills as ImagePaint[])[0]!.imageHash!;
    const originalHash = Object.fromEntries(Object.keys(originals).map((name) => [name, hashOf(name)]));

    // Every upload's body as it left the plugin.
    const uploads: Uint8Array[] = [];
    const recording: typeof fetch = async (input, init) => {
      if (init?.method === 'PUT' && init.body) uploads.push(new Uint8Array(await new Response(init.body).arrayBuffer()));
      return fetch(input, init);
    };
    const backend = openBackend({ backend: 'emulator', emulatorURL: emu.web, containerURL: '', bgrURL: '', apiKey: null, bgrLicenceKey: null }, recording);
    const jobsBefore = emu.jobs().length;
    const notes = new Map<string, string[]>();
    const { summary } = await runCorrection(await wired(sim), backend, DEFAULT_OPTIONS, new AbortController().signal, {
      onPlan: () => undefined,
      onItem: (hash, u: ItemUpdate) => void (u.phase === 'done' && notes.set(hash, u.notes ?? [])),
    }, { thumbnail: nodeThumbnail, redraw: nodeRedraw });
    expect(summary).toMatchObject({ done: 5, failed: 0 });

    const jobs = emu.jobs().slice(jobsBefore);
    expect(jobs).toHaveLength(5);
    // Each upload is the input of one job (the service's SHA-256 of it); the images' long sides tell them apart.
    const longSide = { jpeg: 90, rgbProfiled: 100, png: 80, profiled: 60, colour: 70 };
    const received = (name: keyof typeof originals) => {
      const found = uploads.filter((u) => {
        const m = sniffMedia(u);
        return Math.max(m?.width ?? 0, m?.height ?? 0) === longSide[name];
      });
      expect(found, name).toHaveLength(1);
      const job = jobs.find((j) => j.inputSha256 === sha256(found[0]!));
      expect(job?.state, `the service's job for ${name}`).toBe('COMPLETED');
      return { bytes: found[0]!, job: job! };
    };

    // The colour image: exactly the bytes Figma holds.
    expect(Buffer.from(received('colour').bytes).equals(Buffer.from(originals.colour))).toBe(true);
    expect(notes.get(originalHash.colour!)?.join('\n')).not.toMatch(/greyscale/);

    // The grey JPEG: a colour JPEG of the same coded data, its orientation tag kept, showing exactly the same picture.
    const jpegIn = received('jpeg').bytes;
    expect(sniffMedia(jpegIn)).toMatchObject({ format: 'jpeg', components: 3, grey: false, width: 90, height: 60 });
    const jpegMeta = await sharp(jpegIn).metadata();
    expect([jpegMeta.channels, jpegMeta.orientation]).toEqual([3, 6]);
    expect(meanDifference(await shownPixels(jpegIn), await shownPixels(originals.jpeg))).toBe(0);

    // The one with an RGB profile (which cannot describe grey samples) is not transcoded: an RGB JPEG redrawn upright,
    // no orientation left to apply twice, the same picture.
    const redrawnIn = received('rgbProfiled').bytes;
    expect(sniffMedia(redrawnIn)).toMatchObject({ format: 'jpeg', components: 3, grey: false, width: 64, height: 100 });
    const redrawnMeta = await sharp(redrawnIn).metadata();
    expect([redrawnMeta.channels, redrawnMeta.orientation ?? 1]).toEqual([3, 1]);
    expect(meanDifference(await shownPixels(redrawnIn), await shownPixels(originals.rgbProfiled))).toBeLessThan(1);
    expect(notes.get(originalHash.rgbProfiled!)?.join('\n')).not.toMatch(/losslessly/);

    // The grey PNG with alpha: an RGBA PNG of the same samples, not drawn.
    const pngIn = received('png').bytes;
    expect(sniffMedia(pngIn)).toMatchObject({ format: 'png', grey: false, width: 80, height: 50 });
    expect((await sharp(pngIn).metadata()).channels).toBe(4);
    expect(Buffer.compare(await shownPixels(pngIn), await shownPixels(originals.png))).toBe(0);
    expect(notes.get(originalHash.png!)?.join('\n')).toMatch(/losslessly \(the same samples\)/);

    // The profiled PNG: its samples in colour under the RGB profile that shows its grey's tones, not drawn.
    const profiledIn = received('profiled').bytes;
    expect(sniffMedia(profiledIn)).toMatchObject({ format: 'png', grey: false, width: 60, height: 40 });
    expect((await sharp(profiledIn).metadata()).icc?.subarray(16, 20).toString('latin1')).toBe('RGB ');
    expect(meanDifference(await shownPixels(profiledIn), await shownPixels(originals.profiled))).toBeLessThan(0.5);
    expect(notes.get(originalHash.profiled!)?.join('\n')).toMatch(/losslessly \(the same samples\)/);

    // Each grey image was replaced by the service's result, of the original's (upright) size, and the user was told.
    for (const [name, size] of [['jpeg', [60, 90]], ['rgbProfiled', [64, 100]], ['png', [80, 50]], ['profiled', [60, 40]]] as const) {
      expect(hashOf(name), name).not.toBe(originalHash[name]);
      const inFigma = sim.imageBytes(hashOf(name))!;
      const fromService = new Uint8Array(await (await fetch(received(name).job.record.correctedFile!)).arrayBuffer());
      expect(Buffer.from(inFigma).equals(Buffer.from(fromService)), name).toBe(true);
      const meta = await sharp(inFigma).metadata();
      expect([meta.format, meta.width, meta.height], name).toEqual([name === 'png' || name === 'profiled' ? 'png' : 'jpeg', ...size]);
      expect(notes.get(originalHash[name]!)?.join('\n'), name).toMatch(/converted from greyscale to RGB/);
    }
  });
});

