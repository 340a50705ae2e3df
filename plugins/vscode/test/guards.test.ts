/**
 * Guards of the extension found unwatched by hand mutations, each checked where
 * the user meets it: the files corrected on disk and their pixels, the
 * service's own job records (what it was sent, and would bill), the questions
 * asked, and the log as the Output panel shows it.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import sharp from 'sharp';
import { afterEach, describe, expect, test } from 'vitest';
import { SECRET_KEYS } from '../src/keys';
import type { LastRun } from '../src/last-run';
import { activateOnFake, emulatorForTests, photoFolder, SAMPLE_FILES } from './helpers';

const emu = emulatorForTests();
let folder: ReturnType<typeof photoFolder> | undefined;
afterEach(() => {
  folder?.cleanup();
  folder = undefined;
});

/** Files below `dir` (relative, sorted), hidden ones left out. */
function outputs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

describe("the user's settings reach the run", () => {
  test('pfc.parameters: the service gets them with every job, and the pictures show them (long: 200)', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, parameters: { long: 200 } } });
    const jobsBefore = emu().jobs().length;
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary.corrected).toBe(5);
    const jobs = emu().jobs().slice(jobsBefore);
    expect(jobs).toHaveLength(5);
    for (const j of jobs) expect(j.requested).toMatchObject({ long: 200, preset: 'Universal' });
    for (const rel of SAMPLE_FILES) {
      const meta = await sharp(join(folder.photos, 'corrected', rel)).metadata();
      expect(Math.max(meta.width!, meta.height!), rel).toBe(200);
    }
  });

  test('pfc.skipAlreadyCorrected false: a rerun redoes every file, and on a paid backend asks first (declined: nothing sent)', async () => {
    folder = photoFolder();
    const guarded = await startEmulator({ host: '127.0.0.1' });
    try {
      const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: guarded.web, confirmAboveFiles: 3, skipAlreadyCorrected: false } });
      await fake.secrets.store(SECRET_KEYS.apiKey, 'some-api-key-123');
      fake.answers.push({ match: /^Correct 5 files/, answer: 'Correct' });
      expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
      expect(guarded.jobs()).toHaveLength(5);

      // The rerun would send every file again (each billed): the question comes first; declined, nothing is sent.
      fake.answers.length = 0;
      const asked = fake.shown.length;
      expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
      expect(fake.shown.slice(asked)).toContainEqual(expect.objectContaining({ kind: 'warning', modal: true, text: expect.stringMatching(/^Correct 5 files on the hosted Web API/) }));
      expect(guarded.jobs()).toHaveLength(5);

      fake.answers.push({ match: /^Correct 5 files/, answer: 'Correct' });
      const again = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(again.summary).toMatchObject({ corrected: 5, upToDate: 0 });
      expect(guarded.jobs()).toHaveLength(10);
    } finally {
      await guarded.close();
    }
  });

  test("multi-root: a workspace folder's own files.exclude leaves its files out, and only its own", async () => {
    folder = photoFolder();
    const albumA = folder.photos;
    const albumB = join(folder.root, 'album-b');
    cpSync(albumA, albumB, { recursive: true });
    for (const album of [albumA, albumB]) {
      mkdirSync(join(album, 'drafts'));
      cpSync(join(album, 'objects', 'coffee.jpg'), join(album, 'drafts', 'coffee.jpg'));
    }
    // Album B's .vscode/settings.json excludes its drafts; album A has no such setting.
    const { fake } = activateOnFake({
      settings: { backend: 'emulator', emulatorUrl: emu().web },
      folderOtherSettings: { [albumB]: { files: { exclude: { '**/drafts': true } } } },
    });
    fake.workspaceFolders = [albumA, albumB];

    const b = (await fake.run('pfc.correctFolder', fake.uri(albumB))) as LastRun;
    expect(b.summary.corrected).toBe(5);
    expect(outputs(join(albumB, 'corrected'))).toEqual([...SAMPLE_FILES].sort());
    expect(fake.output.find((l) => l.startsWith('left out'))).toContain('1 excluded by files.exclude');

    const a = (await fake.run('pfc.correctFolder', fake.uri(albumA))) as LastRun;
    expect(a.summary.corrected).toBe(6);
    expect(outputs(join(albumA, 'corrected'))).toEqual([...SAMPLE_FILES, 'drafts/coffee.jpg'].sort());
  });
});

describe('the key never shows in the log', () => {
  test('a left-out path that holds a stored key is masked at trace level too (the level the user may turn on)', async () => {
    folder = photoFolder();
    const key = 'pfc-key-9c41d7e2b5';
    // A note the user saved beside the photos, named after the key: not an image, so left out, one trace line.
    writeFileSync(join(folder.photos, `${key}.txt`), 'my key');
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    await fake.secrets.store(SECRET_KEYS.apiKey, key);
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary.corrected).toBe(5);
    const traced = fake.traces.filter((l) => l.includes(join(folder!.photos, '***.txt')));
    expect(traced).toHaveLength(1);
    expect([...fake.traces, ...fake.output].join('\n')).not.toContain(key);
  });
});
