/**
 * The options the user ticks in the form, through the UI's run loop and the
 * backend Settings opens, against the emulator: checked in the service's own
 * job record and in the image Figma ends up holding, not in the parameters
 * the plugin meant to send. (The e2e test covers preset, removeGlares and
 * resize in Chromium; this covers every retouching and output option, in the
 * unit project.)
 */
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend } from '../src/ui/backend';
import { DEFAULT_OPTIONS, type RunOptions } from '../src/ui/options';
import { runCorrection, type ItemUpdate } from '../src/ui/runner';
import { freshSim, nodeThumbnail, wired } from './helpers';
import { imageFill } from './sim/figma';

let emu: EmulatorHandle;
beforeAll(async () => {
  // No engine: geometry and encoding only, which is all these options need to show.
  emu = await startEmulator({ webPort: 0, engine: {} });
});
afterAll(async () => {
  await emu?.close();
});

/** A photo-like JPEG (noise), so the JPEG quality shows in the file's size. */
async function noisyJpeg(width: number, height: number): Promise<Uint8Array> {
  const raw = Buffer.alloc(width * height * 3);
  let seed = 7;
  for (let i = 0; i < raw.length; i++) raw[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 23;
  return new Uint8Array(await sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 95 }).toBuffer());
}

async function correctOneLayer(options: RunOptions) {
  const sim = freshSim();
  const node = sim.rect('Photo', [imageFill(sim.addImage(await noisyJpeg(240, 160)))]);
  sim.place(node);
  sim.select(node);
  const backend = openBackend({ backend: 'emulator', emulatorURL: emu.web, containerURL: '', bgrURL: '', apiKey: null, bgrLicenceKey: null });
  const before = emu.jobs().length;
  const updates: ItemUpdate[] = [];
  const { summary } = await runCorrection(await wired(sim), backend, options, new AbortController().signal, {
    onPlan: () => undefined,
    onItem: (_, u) => updates.push(u),
  }, { thumbnail: nodeThumbnail });
  expect(summary).toMatchObject({ done: 1, failed: 0 });
  const jobs = emu.jobs().slice(before);
  expect(jobs).toHaveLength(1);
  const job = jobs[0]!;
  const inFigma = sim.imageBytes((node.fills as ImagePaint[])[0]!.imageHash!)!;
  const fromService = new Uint8Array(await (await fetch(job.record.correctedFile!)).arrayBuffer());
  return { job, inFigma, fromService, notes: updates.find((u) => u.phase === 'done')?.notes ?? [] };
}

describe('the form\'s options reach the service and show in the image Figma holds', () => {
  it('glare and blemish removal and auto crop are asked of the service, which counts them', async () => {
    const { job, inFigma, fromService, notes } = await correctOneLayer({ ...DEFAULT_OPTIONS, removeGlares: true, removeBlemish: true, autocrop: true });
    expect(job.requested).toMatchObject({ removeGlares: true, removeBlemish: true, autocrop: true });
    expect(job.record.usage).toMatchObject({ removeGlaresTotalCount: 1, autoCropCount: 1 });
    expect(notes.join('\n')).toMatch(/Usage: .*autoCropCount 1.*removeGlaresTotalCount 1/);
    expect(Buffer.from(inFigma).equals(Buffer.from(fromService))).toBe(true);
  });

  it('JPEG output at quality 40: the service encodes at 40, and Figma holds that file, far smaller than at 100', async () => {
    const low = await correctOneLayer({ ...DEFAULT_OPTIONS, outputType: 'jpg', outputQuality: 40 });
    expect(low.job.requested).toMatchObject({ outputType: 'jpg', outputQuality: 40 });
    expect(Buffer.from(low.inFigma).equals(Buffer.from(low.fromService))).toBe(true);
    expect((await sharp(low.inFigma).metadata()).format).toBe('jpeg');

    const high = await correctOneLayer({ ...DEFAULT_OPTIONS, outputType: 'jpg', outputQuality: 100 });
    expect(high.job.requested).toMatchObject({ outputType: 'jpg', outputQuality: 100 });
    expect(low.inFigma.byteLength).toBeLessThan(high.inFigma.byteLength * 0.6);
  });

  it('PNG output: the service is asked for PNG and Figma holds a PNG', async () => {
    const { job, inFigma } = await correctOneLayer({ ...DEFAULT_OPTIONS, outputType: 'png' });
    expect(job.requested).toMatchObject({ outputType: 'png' });
    expect(job.requested.outputQuality).toBeUndefined();
    expect((await sharp(inFigma).metadata()).format).toBe('png');
  });
});
