/**
 * A black-and-white photo in a folder corrected on the Web API (here the
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

test('a greyscale JPEG beside colour photos is sent as RGB and corrected, and written greyscale again; the service saw no grey upload', async () => {
  folder = photoFolder();
  const grey = await sharp(join(folder.photos, 'objects', 'coffee.jpg')).resize(240).toColourspace('b-w').jpeg().toBuffer();
  expect((await sharp(grey).metadata()).channels).toBe(1);
  writeFileSync(join(folder.photos, 'bw.jpg'), grey);
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
  const jobsBefore = emu().jobs().length;

  const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;

  expect(last.summary).toMatchObject({ corrected: 6, failed: 0 });
  const meta = await sharp(join(folder.photos, 'corrected', 'bw.jpg')).metadata();
  expect([meta.width, meta.channels, meta.space]).toEqual([240, 1, 'b-w']);
  expect(emu().jobs().slice(jobsBefore).map((j) => j.state)).toEqual(Array(6).fill('COMPLETED'));
});
