/**
 * A folder with nothing the service takes: the message says what it held, camera raw files named as the photos
 * they are, with what to do. Through the Explorer command on the fake VS Code, planned by the real batch engine.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEFT_OUT_KEPT } from '@pfc/batch';
import { afterEach, expect, test } from 'vitest';
import type { LastRun } from '../src/last-run';
import { activateOnFake, emulatorForTests, photoFolder } from './helpers';
import { SAMPLES } from './samples';

const emu = emulatorForTests();
let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

/**
 * Correct the sample photos twice with `settings` (folder and suffix modes): the rerun's message and report count
 * none of the run's own files (its output folder, its results beside the photos) as left out, nor name them.
 */
async function rerunOfPhotos(settings: Record<string, unknown>, notInReport: string): Promise<{ fake: ReturnType<typeof activateOnFake>['fake']; photos: string }> {
  const photos = photoFolder();
  folder = photos.root;
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, ...settings } });
  expect(((await fake.run('pfc.correctFolder', fake.uri(photos.photos))) as LastRun).summary.corrected).toBe(5);

  fake.answers.push({ match: /up to date/, answer: 'Show Report' });
  const again = (await fake.run('pfc.correctFolder', fake.uri(photos.photos))) as LastRun;

  expect(again.summary).toMatchObject({ corrected: 0, upToDate: 5, excluded: 0 });
  expect(fake.shown.at(-1)!.text).toBe('Perfectly Clear: All 5 files are already up to date; nothing was sent.');
  await expect.poll(() => fake.webviews.length).toBe(1);
  expect(fake.webviews[0]!.html).toMatch(/<p id="summary">0 corrected, 5 up to date, 0 failed, 0 not finished, 0 left out — /);
  expect(fake.webviews[0]!.html).not.toContain(notInReport);
  return { fake, photos: photos.photos };
}

test('a rerun of a folder: its own output folder is not counted as left out, in the message nor in the report', async () => {
  await rerunOfPhotos({}, 'output folder of this run');
});

test('a rerun in suffix mode: its earlier results are its own, not "paths left out"; a user\'s photo named like one is, and is kept', async () => {
  const { fake, photos } = await rerunOfPhotos({ 'output.mode': 'suffix' }, 'output suffix');

  // The user's own photo named as a result would be: left out (never corrected), said, and its bytes kept.
  const mine = join(photos, 'mine_pfc.jpg');
  copyFileSync(join(photos, 'outdoors/rocket.jpg'), mine);
  const bytes = readFileSync(mine);
  const third = (await fake.run('pfc.correctFolder', fake.uri(photos))) as LastRun;
  expect(third.summary).toMatchObject({ corrected: 0, upToDate: 5, excluded: 1 });
  expect(fake.shown.at(-1)!.text).toBe('Perfectly Clear: All 5 files are already up to date; nothing was sent; 1 path left out.');
  expect(readFileSync(mine).equals(bytes)).toBe(true);
});

test('suffix mode: a user\'s photo named like a result is logged as named so, not as an earlier result of pfc', async () => {
  folder = mkdtempSync(join(tmpdir(), 'pfc-vscode-suffix-'));
  copyFileSync(join(SAMPLES, 'outdoors/rocket.jpg'), join(folder, 'rocket.jpg'));
  copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), join(folder, 'mine_pfc.jpg'));
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': 'suffix' } });

  expect(((await fake.run('pfc.correctFolder', fake.uri(folder))) as LastRun).summary).toMatchObject({ corrected: 1, excluded: 1 });

  expect(fake.output.find((l) => l.startsWith('left out'))).toBe('left out 1 path: 1 named with the output suffix');
});

test('a folder of raw files and a note: "no image or video to correct", the raw photos named, with what to do', async () => {
  folder = mkdtempSync(join(tmpdir(), 'pfc-vscode-raw-'));
  for (const name of ['DSC_0001.NEF', 'DSC_0002.NEF']) writeFileSync(join(folder, name), Buffer.from('MM\0*\0\0\0\x08 nikon raw', 'latin1'));
  writeFileSync(join(folder, 'notes.txt'), 'not an image');
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });

  expect(await fake.run('pfc.correctFolder', fake.uri(folder))).toBeUndefined();

  expect(fake.shown.at(-1)!.text).toBe('Perfectly Clear: no image or video to correct (3 paths: 2 camera raw photos (export them as JPEG or PNG to correct them), 1 not JPEG, PNG, MP4 or MOV).');
});

test('more paths left out than the plan keeps: the message counts every one, the raw photos found after the sidecars among them', async () => {
  folder = mkdtempSync(join(tmpdir(), 'pfc-vscode-raw-'));
  const sidecars = LEFT_OUT_KEPT + 200;
  for (let n = 0; n < sidecars; n++) writeFileSync(join(folder, `A_${String(n).padStart(5, '0')}.xmp`), '<x:xmpmeta/>');
  for (const name of ['Z_0001.NEF', 'Z_0002.NEF']) writeFileSync(join(folder, name), Buffer.from('MM\0*\0\0\0\x08 nikon raw', 'latin1'));
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });

  expect(await fake.run('pfc.correctFolder', fake.uri(folder))).toBeUndefined();

  expect(fake.shown.at(-1)!.text).toBe(`Perfectly Clear: no image or video to correct (${sidecars + 2} paths: ${sidecars} not JPEG, PNG, MP4 or MOV, 2 camera raw photos (export them as JPEG or PNG to correct them)).`);
}, 60_000);
