/**
 * Auto crop through the Web API emulation with its default engine: a real
 * portrait uploaded, `/pfc` with autocrop and the crop parameters
 * (`autocropType`, `autocropSize`, `cropARW`/`cropARH`,
 * `autocropDetectOnly`), the job record's `autoCrop`, `outputDimensions` and
 * detected face checked against the downloaded file. The box itself is
 * @pfc/engine's `autoCropBox`.
 */
import type { CropBox, FaceRecord, JobRecord } from '@pfc/core';
import { AUTOCROP_TYPES } from '@pfc/engine';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASTRONAUT, closeAll, download, emulator, runJob, upload, startJob, waitFor } from './helpers';

let web = '';
let fileKey = '';
beforeAll(async () => {
  web = (await emulator({ container: false, bgr: false })).web;
  fileKey = await upload(web, new Uint8Array(ASTRONAUT));
}, 60_000);
afterAll(closeAll);

async function crop(query: Record<string, string | number | boolean>): Promise<{ record: JobRecord; box: CropBox; face: FaceRecord; size: { width: number; height: number } }> {
  const record = await waitFor(await startJob(web, { fileKey, autocrop: true, includeDetectionData: true, preset: 'none', ...query }), undefined, 90_000);
  expect(record.status).toBe('COMPLETED');
  const box = record.autoCrop!;
  expect(box).toBeDefined();
  const faces = record.detectionData?.faces ?? [];
  expect(faces).toHaveLength(1);
  const meta = await sharp((await download(record)).bytes).metadata();
  expect(record.outputDimensions).toEqual({ width: meta.width, height: meta.height });
  return { record, box, face: faces[0]!, size: { width: meta.width, height: meta.height } };
}

function expectContains(box: CropBox, face: FaceRecord): void {
  expect(box.x).toBeLessThanOrEqual(face.left);
  expect(box.y).toBeLessThanOrEqual(face.top);
  expect(box.x + box.width).toBeGreaterThanOrEqual(face.left + face.width);
  expect(box.y + box.height).toBeGreaterThanOrEqual(face.top + face.height);
  // Inside the 512×512 photo.
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(512);
  expect(box.y + box.height).toBeLessThanOrEqual(512);
}

describe('Web API auto crop with the default engine', () => {
  it('type 0, 1:1: a square around the detected face, its height autocropSize of the box; the file is the box', async () => {
    const { box, face, size } = await crop({ cropARW: 1, cropARH: 1, autocropSize: 0.35 });
    expectContains(box, face);
    expect(box.width).toBe(box.height);
    expect(box.height).toBeCloseTo(face.height / 0.35, -1);
    expect(size).toEqual({ width: box.width, height: box.height });
    // Head-centred: the face centre (or its eyes') near the box's vertical middle line.
    expect(Math.abs(box.x + box.width / 2 - (face.left + face.width / 2))).toBeLessThan(face.width * 0.25);
  }, 120_000);

  it('a larger autocropSize frames tighter: the box shrinks by the ratio of the sizes', async () => {
    const loose = (await crop({ cropARW: 1, cropARH: 1, autocropSize: 0.35 })).box;
    const { box: tight, face } = await crop({ cropARW: 1, cropARH: 1, autocropSize: 0.6 });
    expectContains(tight, face);
    expect(tight.height / loose.height).toBeCloseTo(0.35 / 0.6, 1);
  }, 120_000);

  it('autocropType=2 (ID photo): the 35:45 aspect without cropARW/cropARH, room above the crown', async () => {
    const { box, face, size } = await crop({ autocropType: 2 });
    expectContains(box, face);
    expect(size.width / size.height).toBeCloseTo(AUTOCROP_TYPES[2]!.aspect!, 1);
    expect(box.height).toBeCloseTo(face.height / AUTOCROP_TYPES[2]!.size, -1);
    // The head gap is measured from the crown (above the face box, which starts at the brows).
    expect(box.y).toBeLessThan(face.top - 0.05 * box.height);
  }, 120_000);

  it('autocropType=4: no face framing, the largest centred box of the aspect', async () => {
    const { box } = await crop({ autocropType: 4, cropARW: 1, cropARH: 2 });
    expect(box).toEqual({ x: 128, y: 0, width: 256, height: 512 });
  }, 120_000);

  it('autocrop with a resize: the crop, then the resize (long=200) on its aspect', async () => {
    const { box, size } = await crop({ cropARW: 3, cropARH: 4, long: 200 });
    expect(size.height).toBe(200);
    expect(size.width).toBe(Math.round((200 * box.width) / box.height));
  }, 120_000);

  it('autocropDetectOnly: the coordinates in the record, the image not cropped', async () => {
    const cropped = (await crop({ cropARW: 1, cropARH: 1, autocropSize: 0.35 })).box;
    const { record, box, face, size } = await crop({ cropARW: 1, cropARH: 1, autocropSize: 0.35, autocropDetectOnly: true });
    expect(box).toEqual(cropped);
    expectContains(box, face);
    expect(size).toEqual({ width: 512, height: 512 });
    expect(record.outputDimensions).toEqual({ width: 512, height: 512 });
  }, 120_000);

  it('the autocrop parameters are checked before a job starts (autocropType outside 0–4 is a 400 naming it)', async () => {
    const res = await fetch(`${web}/pfc?${new URLSearchParams({ fileKey, autocrop: 'true', autocropType: '7' })}`, { headers: { 'X-API-KEY': 'test-key' } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('autocropType');
    // runJob is the user's whole flow; a plain job without autocrop keeps the photo's size.
    const plain = await runJob(web, new Uint8Array(ASTRONAUT), { preset: 'none' });
    expect(plain.autoCrop).toBeUndefined();
  }, 120_000);
});
