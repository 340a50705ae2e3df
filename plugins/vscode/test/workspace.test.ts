/**
 * What a workspace adds to a run: the scan (excludes, node_modules, the
 * "Scanning…" notification, left-out summary), the last run kept in
 * workspaceState across a reload, Compare with Original and the report's
 * zoom and compare links. Real emulator, real files.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { LAST_RUN_KEY } from '../src/commands';
import type { LastRun } from '../src/last-run';
import { globToRegExp } from '../src/scan';
import { activateOnFake, emulatorForTests, photoFolder, resultsIn, SAMPLE_FILES } from './helpers';

const emu = emulatorForTests();
let folder: ReturnType<typeof photoFolder>;
afterEach(() => {
  folder?.cleanup();
  emu().setFaults({});
});

function outputs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

describe('the scan', () => {
  test('VS Code globs', () => {
    expect(globToRegExp('**/node_modules').test('a/b/node_modules')).toBe(true);
    expect(globToRegExp('**/node_modules').test('node_modules')).toBe(true);
    expect(globToRegExp('**/*.{png,jpg}').test('x/y.png')).toBe(true);
    expect(globToRegExp('drafts').test('x/drafts')).toBe(false);
    expect(globToRegExp('drafts/**').test('drafts/a/b.jpg')).toBe(true);
    expect(globToRegExp('**/img?.jpg').test('img1.jpg')).toBe(true);
  });

  test('node_modules, files.exclude and search.exclude are left out, summarised per reason; "Scanning… N files" shown first', async () => {
    folder = photoFolder();
    const p = folder.photos;
    for (const [dir, file] of [['node_modules/pkg', 'objects/chelsea.png'], ['drafts', 'objects/coffee.jpg'], ['outdoors/raw', 'outdoors/rocket.jpg']] as const) {
      mkdirSync(join(p, dir), { recursive: true });
      cpSync(join(p, file), join(p, dir, file.split('/').pop()!));
    }
    const { fake } = activateOnFake({
      settings: { backend: 'emulator', emulatorUrl: emu().web },
      otherSettings: { files: { exclude: { '**/drafts': true, '**/.git': true } }, search: { exclude: { '**/raw': true, '**/ignored': false } } },
    });
    fake.workspaceFolders = [folder.root];
    const last = (await fake.run('pfc.correctFolder', fake.uri(p))) as LastRun;
    expect(last.summary.corrected).toBe(5);
    expect(outputs(join(p, 'corrected'))).toEqual([...SAMPLE_FILES].sort());
    // The scan's notification came before any correction.
    const first = fake.progress.findIndex((m) => /^Scanning… \d+ files$/.test(m.message ?? ''));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(fake.progress.find((m) => /^Scanning…/.test(m.message ?? '') && m.message !== 'Scanning… 0 files')?.message).toBe('Scanning… 5 files');
    expect(first).toBeLessThan(fake.progress.findIndex((m) => /^\d+\/5/.test(m.message ?? '')));
    // One summary line, the paths at trace level only.
    const leftOut = fake.output.filter((l) => l.startsWith('left out'));
    expect(leftOut).toHaveLength(1);
    expect(leftOut[0]).toMatch(/^left out 3 paths: /);
    for (const why of ['1 excluded by node_modules', '1 excluded by files.exclude', '1 excluded by search.exclude']) expect(leftOut[0]).toContain(why);
    expect(fake.output.filter((l) => l.includes('node_modules/pkg'))).toEqual([]);
    expect(fake.traces.some((l) => l.includes(join(p, 'node_modules')))).toBe(true);
  });

  test('cancelling the scan writes nothing and sends nothing', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    fake.onProgressStart = (cancel) => cancel();
    const before = JSON.stringify(emu().stats().requests);
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);
    expect(Object.keys(emu().stats().requests).filter((r) => !/preset/i.test(r))).toEqual(Object.keys(JSON.parse(before) as object).filter((r) => !/preset/i.test(r)));
  });
});

describe('a multi-root workspace', () => {
  test("each folder's own settings (resource scope) apply to its run: output mode and suffix", async () => {
    folder = photoFolder();
    // Two workspace folders with the same photos; the second one's .vscode/settings.json asks for suffix outputs.
    const albumA = folder.photos;
    const albumB = join(folder.root, 'album-b');
    cpSync(albumA, albumB, { recursive: true });
    const { fake } = activateOnFake({
      settings: { backend: 'emulator', emulatorUrl: emu().web },
      folderSettings: { [albumB]: { 'output.mode': 'suffix', 'output.suffix': '-fixed' } },
    });
    fake.workspaceFolders = [albumA, albumB];

    const b = (await fake.run('pfc.correctFolder', fake.uri(albumB))) as LastRun;
    expect(b.mode).toBe('suffix');
    expect(existsSync(join(albumB, 'portraits', 'astronaut-fixed.jpg'))).toBe(true);
    expect(existsSync(join(albumB, 'corrected'))).toBe(false);

    const a = (await fake.run('pfc.correctFolder', fake.uri(albumA))) as LastRun;
    expect(a.mode).toBe('folder');
    expect(outputs(join(albumA, 'corrected'))).toEqual([...SAMPLE_FILES].sort());
    // No resource-scoped setting was read without saying for which folder (VS Code logs a warning for each).
    expect(fake.configWarnings).toEqual([]);
  });
});

describe('a selection across the folders of a multi-root workspace', () => {
  /** Two workspace folders with the same photos; the second one's .vscode/settings.json asks for suffix outputs. */
  function twoFolders(settings: Record<string, unknown> = {}): { albumA: string; albumB: string; fake: ReturnType<typeof activateOnFake>['fake'] } {
    folder = photoFolder();
    const albumA = folder.photos;
    const albumB = join(folder.root, 'album-b');
    cpSync(albumA, albumB, { recursive: true });
    const { fake } = activateOnFake({
      settings: { backend: 'emulator', emulatorUrl: emu().web, ...settings },
      folderSettings: { [albumB]: { 'output.mode': 'suffix', 'output.suffix': '-fixed' } },
    });
    fake.workspaceFolders = [albumA, albumB];
    return { albumA, albumB, fake };
  }

  test("each folder's files run with that folder's settings, under one progress notification and one summary", async () => {
    const { albumA, albumB, fake } = twoFolders();
    let notifications = 0;
    fake.onProgressStart = () => void notifications++;
    const last = (await fake.run('pfc.correctFiles', fake.uri(join(albumA, 'portraits', 'astronaut.jpg')), [
      fake.uri(join(albumA, 'portraits', 'astronaut.jpg')), fake.uri(join(albumB, 'outdoors', 'rocket.jpg')),
    ])) as LastRun;

    // Album A: its (default) output folder; album B: its own suffix, and no output folder.
    expect(outputs(join(albumA, 'portraits', 'corrected'))).toEqual(['astronaut.jpg']);
    expect(existsSync(join(albumB, 'outdoors', 'rocket-fixed.jpg'))).toBe(true);
    expect(existsSync(join(albumB, 'outdoors', 'corrected'))).toBe(false);
    expect(last.choices?.map((c) => c.mode)).toEqual(['folder', 'suffix']);
    // One preset pick, one scan and one run notification counting both files, one summary.
    expect(fake.quickPicks).toHaveLength(1);
    expect(notifications).toBe(2);
    expect(fake.progress.filter((p) => /^\d+\/\d+/.test(p.message ?? '')).every((p) => /^\d+\/2\b/.test(p.message!))).toBe(true);
    const summaries = fake.shown.filter((m) => /^Perfectly Clear: (Corrected|Cancelled)/.test(m.text));
    expect(summaries.map((m) => m.text)).toEqual([expect.stringMatching(/^Perfectly Clear: Corrected 2 files in [\d.]+ s\.$/)]);
    expect(last.summary.outputRoots).toEqual([join(albumA, 'portraits', 'corrected'), join(albumB, 'outdoors')]);
    expect((await resultsIn(last)).map((r) => r.input)).toEqual([join(albumA, 'portraits', 'astronaut.jpg'), join(albumB, 'outdoors', 'rocket.jpg')]);
    expect(fake.configWarnings).toEqual([]);
  });

  test("Retry Failed redoes each folder's failed files with that folder's mode", async () => {
    const { albumA, albumB, fake } = twoFolders({ concurrency: 1 });
    const picked = [join(albumA, 'portraits', 'astronaut.jpg'), join(albumB, 'outdoors', 'rocket.jpg')];
    // The folders run one after the other: the first job is album A's, the second album B's.
    emu().setFaults({ jobs: { failRate: 1, count: 2 } });
    const first = (await fake.run('pfc.correctFiles', fake.uri(picked[0]!), picked.map((p) => fake.uri(p)))) as LastRun;
    expect(first.summary.failed).toBe(2);
    expect(fake.shown.at(-1)!.actions).toContain('Retry Failed');

    const retry = (await fake.run('pfc.retryFailed')) as LastRun;
    expect(retry.summary.corrected).toBe(2);
    expect((await resultsIn(retry)).map((r) => r.input)).toEqual(picked);
    expect(outputs(join(albumA, 'portraits', 'corrected'))).toEqual(['astronaut.jpg']);
    expect(existsSync(join(albumB, 'outdoors', 'rocket-fixed.jpg'))).toBe(true);
    expect(existsSync(join(albumB, 'outdoors', 'corrected'))).toBe(false);
  });
});

describe('the last run survives a reload', () => {
  test('Show Report and Retry Failed work in a new window of the same workspace, on exactly the failed files', async () => {
    folder = photoFolder();
    const one = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, concurrency: 1 } });
    emu().setFaults({ jobs: { failRate: 1, count: 2 } });
    const first = (await one.fake.run('pfc.correctFolder', one.fake.uri(folder.photos))) as LastRun;
    expect(first.summary.failed).toBe(2);
    const failed = (await resultsIn(first)).filter((r) => r.status === 'failed').map((r) => r.input).sort();
    expect(one.fake.workspaceState.get<LastRun>(LAST_RUN_KEY)?.summary.failed).toBe(2);

    // "Reload": a new extension instance with the same workspaceState.
    const two = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, concurrency: 1 }, workspaceState: one.fake.workspaceState, storage: one.fake.storage });
    await two.fake.run('pfc.showReport');
    expect(two.fake.webviews[0]!.html).toContain('3 corrected, 0 up to date, 2 failed');
    const retry = (await two.fake.run('pfc.retryFailed')) as LastRun;
    expect(retry.summary.corrected).toBe(2);
    expect((await resultsIn(retry)).map((r) => r.input).sort()).toEqual(failed);
    expect(two.fake.quickPicks).toHaveLength(0);
    expect(outputs(join(folder.photos, 'corrected'))).toEqual([...SAMPLE_FILES].sort());
  });
});

describe('Restore Originals', () => {
  const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
  test('after an in-place run: the whole last run from the palette, or a selected file from the Explorer, byte for byte', async () => {
    folder = photoFolder();
    const originals = new Map(SAMPLE_FILES.map((r) => [r, sha(join(folder.photos, r))]));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': 'in-place' } });
    fake.answers.push({ match: /^Restore the originals/, answer: 'Restore' });
    const run = async (): Promise<void> => {
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary.corrected).toBe(5);
      for (const r of SAMPLE_FILES) expect(sha(join(folder.photos, r)), r).not.toBe(originals.get(r));
    };
    await run();
    await fake.run('pfc.restoreOriginals');
    for (const r of SAMPLE_FILES) expect(sha(join(folder.photos, r)), r).toBe(originals.get(r));
    expect(fake.shown.at(-1)!.text).toBe('Perfectly Clear: restored 5 originals.');

    await run();
    fake.workspaceFolders = [folder.root];
    const one = join(folder.photos, 'portraits', 'astronaut.jpg');
    await fake.run('pfc.restoreOriginals', fake.uri(one), [fake.uri(one)]);
    expect(sha(one)).toBe(originals.get('portraits/astronaut.jpg'));
    expect(sha(join(folder.photos, 'objects', 'coffee.jpg'))).not.toBe(originals.get('objects/coffee.jpg'));
    // Declining restores nothing.
    fake.answers.unshift({ match: /^Restore the originals/, answer: undefined });
    await fake.run('pfc.restoreOriginals', fake.uri(folder.photos));
    expect(sha(join(folder.photos, 'objects', 'coffee.jpg'))).not.toBe(originals.get('objects/coffee.jpg'));
  });
});

describe('walkthrough commands', () => {
  test('"Use the Local Emulator" sets pfc.backend to emulator in the user settings', async () => {
    const { fake } = activateOnFake();
    await fake.run('pfc.useEmulator');
    expect(fake.settingUpdates).toEqual([{ key: 'backend', value: 'emulator', target: 1 }]);
  });
});

describe('Compare with Original and the report', () => {
  test('the diff editor opens between the original and the corrected file, from the output or the input', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    await fake.run('pfc.correctFolder', fake.uri(folder.photos));
    const input = join(folder.photos, 'portraits', 'astronaut.jpg');
    const output = join(folder.photos, 'corrected', 'portraits', 'astronaut.jpg');
    for (const target of [output, input]) {
      fake.executed.length = 0;
      await fake.run('pfc.compareWithOriginal', fake.uri(target));
      const diff = fake.executed.find((e) => e.command === 'vscode.diff')!;
      expect(diff, target).toBeDefined();
      expect((diff.args as { fsPath: string }[]).slice(0, 2).map((u) => u.fsPath)).toEqual([input, output]);
    }
    // Without the last run (another window), the mirror layout still pairs them.
    const other = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    await other.fake.run('pfc.compareWithOriginal', other.fake.uri(output));
    expect((other.fake.executed.find((e) => e.command === 'vscode.diff')!.args as { fsPath: string }[]).slice(0, 2).map((u) => u.fsPath)).toEqual([input, output]);
    // From the Command Palette: the image open in the active editor (VS Code's image preview, a custom editor).
    other.fake.executed.length = 0;
    other.fake.activeTabInput = { uri: other.fake.uri(output), viewType: 'imagePreview.previewEditor' };
    await other.fake.run('pfc.compareWithOriginal');
    expect((other.fake.executed.find((e) => e.command === 'vscode.diff')?.args as { fsPath: string }[] | undefined)?.slice(0, 2).map((u) => u.fsPath)).toEqual([input, output]);
    other.fake.activeTabInput = undefined;
    // An unrelated file: a message, no diff.
    await other.fake.run('pfc.compareWithOriginal', other.fake.uri(join(folder.root, 'nothing.jpg')));
    expect(other.fake.executed.filter((e) => e.command === 'vscode.diff')).toHaveLength(1);
  });

  test('report images open at full size on click; each row links to Compare with Original', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    await fake.run('pfc.correctFolder', fake.uri(folder.photos));
    await fake.run('pfc.showReport');
    const html = fake.webviews[0]!.html;
    expect(html.match(/<details><summary title="Click for full size"><img /g)).toHaveLength(10);
    expect(html).toContain('details[open] img{max-width:none;max-height:none');
    const links = [...html.matchAll(/href="command:pfc\.compareWithOriginal\?([^"]+)"/g)].map((m) => JSON.parse(decodeURIComponent(m[1]!)) as string[]);
    expect(links.map((l) => l[0]).sort()).toEqual(SAMPLE_FILES.map((r) => join(folder.photos, 'corrected', r)).sort());
    expect(html).not.toMatch(/<script/i);
  });
});
