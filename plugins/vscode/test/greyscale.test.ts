/**
 * Black-and-white photos (JPEG and PNG) in a folder corrected on the Web API (here the
 * emulator, which refuses greyscale as the Web API's limits allow): the
 * extension sends it in colour (the same JPEG data, R = G = B), the photo is
 * corrected like the others, and its result is written greyscale again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, expect, test } from 'vitest';
import type { LastRun } from '../src/last-run';
import { activateOnFake, emulatorForTests, photoFolder } from './helpers';

const emu = emulatorForTests();
let folder: ReturnType<typeof photoFolder> | undefined;
afterEach(() => folder?.cleanup());

test('a greyscale JPEG and PNG beside colour photos are sent as RGB and corrected, and written greyscale again; the service saw no grey upload', async () => {
  folder = photoFolder();
  const source = sharp(join(folder.photos, 'objects', 'coffee.jpg')).resize(240).toColourspace('b-w');
  const grey = await source.clone().jpeg().toBuffer();
  expect((await sharp(grey).metadata()).channels).toBe(1);
  writeFileSync(join(folder.photos, 'bw.jpg'), grey);
  // An 8-bit grey PNG: converted by core's PNG transcode on a worker thread (the extension host loads no image library).
  const greyPng = await source.clone().png().toBuffer();
  expect((await sharp(greyPng).metadata())).toMatchObject({ channels: 1, depth: 'uchar' });
  writeFileSync(join(folder.photos, 'bw.png'), greyPng);
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
  const jobsBefore = emu().jobs().length;

  const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;

  expect(last.summary).toMatchObject({ corrected: 7, failed: 0 });
  const meta = await sharp(join(folder.photos, 'corrected', 'bw.jpg')).metadata();
  expect([meta.width, meta.channels, meta.space]).toEqual([240, 1, 'b-w']);
  const png = await sharp(join(folder.photos, 'corrected', 'bw.png')).metadata();
  expect([png.format, png.width, png.channels]).toEqual(['png', 240, 1]);
  expect(emu().jobs().slice(jobsBefore).map((j) => j.state)).toEqual(Array(7).fill('COMPLETED'));
});
