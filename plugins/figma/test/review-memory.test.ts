/**
 * What the UI iframe holds while a large selection waits for review: the
 * UI's run loop on the plugin's main thread (simulated Figma) against the
 * emulator, as a user runs it — correct, untick some results, apply. The
 * iframe shares the Figma tab's memory, so results must not pile up there:
 * only small thumbnails stay, each result goes to Figma as it arrives, and
 * every accepted one still lands on the canvas.
 */
import { createHash } from 'node:crypto';
import { startEmulator, type EmulatorHandle, type EmulatorJobRecord } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend } from '../src/ui/backend';
import { DEFAULT_OPTIONS, type RunOptions } from '../src/ui/options';
import { applyAccepted, correctForPreview, type ItemUpdate } from '../src/ui/runner';
import { freshSim, nodeThumbnail, wired } from './helpers';
import { imageFill } from './sim/figma';
import type { SimShape } from './sim/nodes';

/** A page of product photos, scaled down so the test stays fast. */
const IMAGES = 30;
/** Each result is asked for at this long edge (the inputs are 240 px): results are large, inputs small. */
const RESULT_LONG_EDGE = 1600;
/** What the review may keep per image: a before and an after thumbnail, each far below a full-size result. */
const THUMBNAIL_BUDGET = 16_000;

let emu: EmulatorHandle;
beforeAll(async () => {
  // Geometry and encoding only (no imaging engine): this test is about bytes, not the look.
  emu = await startEmulator({ webPort: 0, control: true, engine: {}, container: false, bgr: false });
});
afterAll(() => emu?.close());

/** A distinct, photo-like image (smooth colour blobs), seeded by `i`. */
async function photo(i: number): Promise<Uint8Array> {
  let state = (i + 1) * 2654435761;
  const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const raw = Buffer.from(Array.from({ length: 24 * 16 * 3 }, () => Math.floor(next() * 256)));
  return new Uint8Array(await sharp(raw, { raw: { width: 24, height: 16, channels: 3 } }).resize(240, 160).jpeg({ quality: 90 }).toBuffer());
}

/**
 * Bytes reachable from `roots`: every distinct buffer behind a typed array
 * and every Blob (the UI turns each Blob into an object URL it keeps until
 * the next run). This is what the review keeps alive between the run and the
 * user's decision.
 */
function heldBytes(...roots: unknown[]): { total: number; largest: number } {
  const seen = new Set<unknown>();
  let total = 0;
  let largest = 0;
  const count = (n: number) => {
    total += n;
    largest = Math.max(largest, n);
  };
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      if (!seen.has(v.buffer)) count(v.buffer.byteLength);
      seen.add(v.buffer);
    } else if (v instanceof Blob) count(v.size);
    else {
      const parts = v instanceof Map ? [...v.keys(), ...v.values()] : v instanceof Set || Array.isArray(v) ? [...(v as Iterable<unknown>)] : Object.values(v);
      for (const x of parts) walk(x);
    }
  };
  for (const r of roots) walk(r);
  return { total, largest };
}

async function serviceJobs(): Promise<EmulatorJobRecord[]> {
  const res = await fetch(`${new URL(emu.web).origin}/_emulator/jobs`);
  return ((await res.json()) as { jobs: EmulatorJobRecord[] }).jobs;
}
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('reviewing a large selection', () => {
  it(`keeps thumbnails, not ${IMAGES} full-size results, in the UI while they wait for review; every accepted result lands`, async () => {
    const sim = freshSim();
    const originals = await Promise.all(Array.from({ length: IMAGES }, (_, i) => photo(i)));
    const layers = originals.map((bytes, i) => sim.rect(`Product ${i}`, [imageFill(sim.addImage(bytes))]));
    sim.place(...layers);
    sim.select(...layers);
    const hashOf = (layer: SimShape) => (layer.fills as ImagePaint[])[0]?.imageHash ?? '';
    const before = layers.map(hashOf);

    const backend = openBackend({ backend: 'emulator', emulatorURL: emu.web, apiKey: 'memory-test', containerURL: '', bgrURL: '', bgrLicenceKey: null }, fetch);
    const options: RunOptions = { ...DEFAULT_OPTIONS, resize: { kind: 'long', px: RESULT_LONG_EDGE }, outputType: 'jpg' };
    const bridge = await wired(sim);
    const updates: ItemUpdate[] = [];
    const run = await correctForPreview(bridge, backend, options, new AbortController().signal, { onPlan: () => undefined, onItem: (_, u) => updates.push(u) }, { thumbnail: nodeThumbnail });

    expect(run.summary).toMatchObject({ failed: 0, skipped: 0 });
    expect(run.previews.size).toBe(IMAGES);
    // Nothing on the canvas changed while the results wait.
    expect(layers.map(hashOf)).toEqual(before);
    expect(sim.pendingChanges).toEqual([]);

    // What the review holds: the run record and whatever the progress list was handed for its thumbnails.
    const held = heldBytes(run, updates);
    const jobs = await serviceJobs();
    const outputs = new Map<string, Uint8Array>();
    for (const job of jobs) outputs.set(job.inputSha256, new Uint8Array(await (await fetch(job.record.correctedFile!)).arrayBuffer()));
    const resultBytes = [...outputs.values()].reduce((sum, b) => sum + b.byteLength, 0);
    console.info(`[review memory] ${IMAGES} images: results ${resultBytes} bytes; held by the UI ${held.total} bytes, largest single buffer ${held.largest} bytes`);
    expect(held.largest, 'no full-size image is kept for display or for applying').toBeLessThanOrEqual(THUMBNAIL_BUDGET);
    expect(held.total, 'two thumbnails per image at most').toBeLessThanOrEqual(IMAGES * 2 * THUMBNAIL_BUDGET);
    expect(updates.filter((u) => u.thumbnail).length, 'a before and an after thumbnail per image').toBe(2 * IMAGES);

    // The user unticks every fourth result and applies the rest.
    const rejected = new Set(before.filter((_, i) => i % 4 === 0));
    const accepted = new Set([...run.previews.keys()].filter((h) => !rejected.has(h)));
    const { summary } = await applyAccepted(bridge, run, accepted, () => undefined);
    expect(summary).toMatchObject({ done: IMAGES - rejected.size, rejected: rejected.size, failed: 0 });
    expect(sim.undoSteps).toHaveLength(1);
    layers.forEach((layer, i) => {
      const now = hashOf(layer);
      if (rejected.has(before[i]!)) return expect(now, layer.name).toBe(before[i]);
      const output = outputs.get(sha256(originals[i]!));
      expect(output, `the service corrected ${layer.name}`).toBeDefined();
      expect(sha256(sim.imageBytes(now)!), `${layer.name} shows the service's output for its own image`).toBe(sha256(output!));
    });
  });
});
