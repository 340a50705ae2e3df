/**
 * Promises of the extension found unwatched by a second round of hand
 * mutations of src/, each driven as a user meets it — through the commands,
 * the questions and pickers of the fake VS Code — and checked where the user
 * sees the outcome: files on disk, the service's own records of what it was
 * sent, the messages and buttons shown, the log, SecretStorage.
 * Here: which service corrects, the embedded emulator, a run's questions, the report, Restore, Compare, the scan, progress, presets.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import { afterEach, describe, expect, test } from 'vitest';
import { SECRET_KEYS } from '../src/keys';
import type { LastRun } from '../src/last-run';
import { peakConcurrency } from '../../../packages/batch/test/helpers';
import { FakeVscode, PLUGIN_DIR, type FakeOptions } from './fake-vscode';
import { activateOnFake, emulatorForTests, photoFolder, resultsIn, SAMPLE_FILES } from './helpers';
import { outputs, sent, sha } from './promised';

const emu = emulatorForTests();
let folder: ReturnType<typeof photoFolder> | undefined;
const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  folder?.cleanup();
  folder = undefined;
  emu().setFaults({});
});

/** An activation on a fake whose storage and state the test names (for the embedded emulator, which it disposes). */
function activated(options: FakeOptions): FakeVscode {
  const { fake, commands } = activateOnFake(options);
  closers.push(() => commands.dispose());
  return fake;
}

describe('which service corrects', () => {
  test('auto with pfc.containerUrl set: the container corrects (no key, no embedded emulator)', async () => {
    folder = photoFolder();
    const studio = await startEmulator({ host: '127.0.0.1', engine: {}, bgr: false, container: {} });
    closers.push(() => studio.close());
    const container = studio.selfHosted.containers[0]!;
    const fake = activated({ settings: { containerUrl: container.url } });
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary.corrected).toBe(5);
    expect(container.corrections.filter((c) => c.status === 'corrected')).toHaveLength(5);
    expect(fake.output.some((l) => /embedded emulator started/.test(l))).toBe(false);
    expect(fake.shown.filter((m) => /local emulator/.test(m.text))).toEqual([]);
  });

  test('pfc.concurrency sets how many files are corrected at once (the container\'s records)', async () => {
    const studio = await startEmulator({ host: '127.0.0.1', engine: {}, bgr: false, container: { processingMs: 150 } });
    closers.push(() => studio.close());
    const container = studio.selfHosted.containers[0]!;
    for (const concurrency of [1, 3]) {
      folder?.cleanup();
      folder = photoFolder();
      const from = container.corrections.length;
      const fake = activated({ settings: { backend: 'container', containerUrl: container.url, concurrency, confirmAboveFiles: 0 } });
      expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
      expect(peakConcurrency(container.corrections.slice(from)), `pfc.concurrency ${concurrency}`).toBe(concurrency);
    }
  });

  test('with an API key stored, no emulator notice: the results come from the service', async () => {
    folder = photoFolder();
    const key = 'sk-no-notice-223344';
    const hosted = await startEmulator({ host: '127.0.0.1', apiKeys: [key] });
    closers.push(() => hosted.close());
    const fake = activated({ settings: { backend: 'hosted', webApiUrl: hosted.web } });
    await fake.secrets.store(SECRET_KEYS.apiKey, key);
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    expect(fake.shown.filter((m) => /local emulator/.test(m.text))).toEqual([]);
  });

  test('hosted without a key, "Use Local Emulator": the backend is read for the whole window, without a resource-scope warning', async () => {
    folder = photoFolder();
    const fake = activated({ settings: { backend: 'hosted' } });
    fake.answers.push({ match: /needs an API key/, answer: 'Use Local Emulator' });
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    expect(fake.configWarnings).toEqual([]);
  });
});

describe('the embedded emulator', () => {
  const lan = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  test.skipIf(!lan)('listens on loopback only: another computer on the network cannot reach it', async () => {
    folder = photoFolder();
    const fake = activated({});
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    const url = fake.output.map((l) => /embedded emulator started on (\S+)/.exec(l)?.[1]).find(Boolean)!;
    const { port } = new URL(url);
    expect((await fetch(`http://127.0.0.1:${port}/v2/presets`, { headers: { 'X-API-KEY': 'x' } })).status).toBe(200);
    await expect(fetch(`http://${lan}:${port}/v2/presets`, { headers: { 'X-API-KEY': 'x' }, signal: AbortSignal.timeout(5000) })).rejects.toThrow();
  });

  test('installed after the window opened (the pfc tools on NODE_PATH): the next run finds it and corrects offline', async () => {
    folder = photoFolder();
    // The extension installed alone: nothing beside it, nothing on NODE_PATH.
    const extensionDir = mkdtempSync(join(tmpdir(), 'pfc-vscode-alone-'));
    closers.push(() => rmSync(extensionDir, { recursive: true, force: true }));
    const nodePath = process.env.NODE_PATH;
    closers.push(() => {
      if (nodePath === undefined) delete process.env.NODE_PATH;
      else process.env.NODE_PATH = nodePath;
    });
    process.env.NODE_PATH = '';
    const fake = activated({ extensionDir });
    fake.answers.push({ match: /no local emulator/, answer: undefined });
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.shown.at(-1)).toMatchObject({ modal: true, text: expect.stringMatching(/this installation has no local emulator/) });
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);

    // `npm install -g` of the pfc tools: the global folder is on NODE_PATH (here, the repository's node_modules).
    process.env.NODE_PATH = join(PLUGIN_DIR, '..', '..', 'node_modules');
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary.corrected).toBe(5);
    expect(outputs(join(folder.photos, 'corrected'))).toEqual([...SAMPLE_FILES].sort());
    expect(fake.output.some((l) => /embedded emulator started on http:\/\/127\.0\.0\.1:\d+\/v2/.test(l))).toBe(true);
  });
});

describe('the questions of a run', () => {
  test('Escape on the preset picker: nothing is sent or written, nothing more is asked', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    fake.pick = () => undefined;
    const before = sent(emu());
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.quickPicks).toHaveLength(1);
    expect(fake.shown).toEqual([]);
    expect(sent(emu())).toEqual(before);
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);
  });

  test('pfc.output.askEachRun, Escape on where the files go: nothing is sent or written', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.askEachRun': true } });
    fake.pick = (items) => (items.some((i) => i.label === 'Universal') ? 'Universal' : undefined);
    const originals = SAMPLE_FILES.map((r) => sha(join(folder!.photos, r)));
    const before = sent(emu());
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.quickPicks).toHaveLength(2);
    expect(sent(emu())).toEqual(before);
    expect(outputs(folder.photos)).toEqual([...SAMPLE_FILES].sort());
    expect(SAMPLE_FILES.map((r) => sha(join(folder!.photos, r)))).toEqual(originals);
  });

  test('the local emulator is free: no billing question, whatever pfc.confirmAboveFiles', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, confirmAboveFiles: 1 } });
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    expect(fake.shown.filter((m) => m.modal)).toEqual([]);
  });

  test('a paid backend asks only above pfc.confirmAboveFiles files to send: not at exactly that many, not for files already up to date', async () => {
    folder = photoFolder();
    const hosted = await startEmulator({ host: '127.0.0.1' });
    closers.push(() => hosted.close());
    const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: hosted.web, confirmAboveFiles: 5 } });
    await fake.secrets.store(SECRET_KEYS.apiKey, 'some-api-key-123');
    // Exactly five files: not above the threshold.
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    expect(fake.shown.filter((m) => m.modal)).toEqual([]);
    // Six files, five of them up to date: one to send, nothing to ask.
    cpSync(join(folder.photos, 'objects', 'coffee.jpg'), join(folder.photos, 'added.jpg'));
    const again = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(again.summary).toMatchObject({ corrected: 1, upToDate: 5 });
    expect(fake.shown.filter((m) => m.modal)).toEqual([]);
    expect(hosted.jobs()).toHaveLength(6);
  });

  test('Retry Failed uses the preset picked for the run, not the default', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, concurrency: 1 } });
    fake.pick = () => 'School and Sports';
    emu().setFaults({ jobs: { failRate: 1, count: 2 } });
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.failed).toBe(2);
    const jobsBefore = emu().jobs().length;
    const retry = (await fake.run('pfc.retryFailed')) as LastRun;
    expect(retry.summary.corrected).toBe(2);
    expect(retry.params.preset).toBe('School and Sports');
    expect(emu().jobs().slice(jobsBefore).map((j) => j.requested.preset)).toEqual(['School and Sports', 'School and Sports']);
  });
});

describe('a selection across workspace folders with a refused key', () => {
  test('the run stops at the first folder: the other folder is not sent, its files count as not finished', async () => {
    folder = photoFolder();
    const guarded = await startEmulator({ host: '127.0.0.1', apiKeys: ['the-right-key-222'] });
    closers.push(() => guarded.close());
    const albumA = folder.photos;
    const albumB = join(folder.root, 'album-b');
    cpSync(albumA, albumB, { recursive: true });
    const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: guarded.web } });
    fake.workspaceFolders = [albumA, albumB];
    await fake.secrets.store(SECRET_KEYS.apiKey, 'wrong-key-abcdef');
    const picked = [join(albumA, 'portraits', 'astronaut.jpg'), join(albumB, 'outdoors', 'rocket.jpg')];
    const last = (await fake.run('pfc.correctFiles', fake.uri(picked[0]!), picked.map((p) => fake.uri(p)))) as LastRun;
    expect(last.summary.stoppedBecause).toMatch(/refused the credentials/);
    expect(last.summary).toMatchObject({ corrected: 0, failed: 1, cancelled: 1 });
    expect(fake.shown.at(-1)!.text).toMatch(/1 not finished; stopped early: the service refused the credentials/);
  });
});

describe('the report panel', () => {
  test('a page that runs nothing: no script, only the run\'s images, only its two commands, and names shown as text', async () => {
    folder = photoFolder();
    // A photo whose name is markup, and one the service fails on: both shown as text, never as part of the page.
    const odd = '<img src=x onerror=alert(1)>.jpg';
    cpSync(join(folder.photos, 'objects', 'coffee.jpg'), join(folder.photos, 'objects', odd));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, concurrency: 1 } });
    emu().setFaults({ jobs: { failRate: 1, count: 1 } });
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary).toMatchObject({ corrected: 5, failed: 1 });
    await fake.run('pfc.showReport');
    const [panel] = fake.webviews;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(panel!.html)?.[1];
    expect(csp).toBe("default-src 'none'; img-src https://fake.vscode-cdn.net; style-src 'unsafe-inline';");
    expect(panel!.options.enableScripts).toBe(false);
    expect(panel!.options.enableCommandUris).toEqual(['pfc.compareWithOriginal', 'pfc.showReport']);
    // Images only from the run's folders: the photos and their outputs, nothing above them.
    const roots = (panel!.options.localResourceRoots ?? []).map((u) => u.fsPath);
    expect(roots.length).toBeGreaterThan(0);
    for (const root of roots) expect(root.startsWith(folder.photos), root).toBe(true);
    expect(panel!.html).not.toContain(odd);
    expect(panel!.html).toContain('objects/&lt;img src=x onerror=alert(1)&gt;.jpg');
    expect(panel!.html).not.toContain('<img src=x');
  });
});

describe('Restore Originals tells what it did not do', () => {
  test('a photo changed since it was corrected is left as it is, and the message says so with "Show Log"', async () => {
    folder = photoFolder();
    const originals = new Map(SAMPLE_FILES.map((r) => [r, sha(join(folder!.photos, r))]));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': 'in-place' } });
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    // The user edits one corrected photo afterwards.
    const edited = join(folder.photos, 'outdoors', 'rocket.jpg');
    writeFileSync(edited, Buffer.concat([readFileSync(edited), Buffer.from('edited')]));
    const mine = sha(edited);
    fake.answers.push({ match: /^Restore the originals/, answer: 'Restore' });
    await fake.run('pfc.restoreOriginals');
    expect(fake.shown.at(-1)).toMatchObject({ kind: 'warning', text: 'Perfectly Clear: restored 4 originals; 1 left as they are (see the log).', actions: ['Show Log'] });
    expect(sha(edited)).toBe(mine);
    for (const r of SAMPLE_FILES.filter((f) => f !== 'outdoors/rocket.jpg')) expect(sha(join(folder.photos, r)), r).toBe(originals.get(r));
    expect(fake.output.some((l) => l.startsWith(`not restored ${edited}: changed since pfc corrected it`))).toBe(true);
  });
});

describe('Compare with Original', () => {
  test('a suffix output in another window (no last run): compared with the photo beside it', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': 'suffix' } });
    await fake.run('pfc.correctFolder', fake.uri(folder.photos));
    const other = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': 'suffix' } }).fake;
    const corrected = join(folder.photos, 'portraits', 'astronaut_pfc.jpg');
    await other.run('pfc.compareWithOriginal', other.uri(corrected));
    const diff = other.executed.find((e) => e.command === 'vscode.diff');
    expect((diff?.args as { fsPath: string }[] | undefined)?.slice(0, 2).map((u) => u.fsPath)).toEqual([join(folder.photos, 'portraits', 'astronaut.jpg'), corrected]);
  });
});

describe('windows without a folder share the global storage', () => {
  test("one window's run does not remove the results of another's recent run: both reports open", async () => {
    folder = photoFolder();
    const global = mkdtempSync(join(tmpdir(), 'pfc-vscode-global-'));
    closers.push(() => rmSync(global, { recursive: true, force: true }));
    const storage = { workspace: undefined, global: join(global, 'pfc.pfc-vscode') };
    const one = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web }, storage }).fake;
    const two = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web }, storage }).fake;
    const first = (await one.run('pfc.correctFolder', one.uri(join(folder.photos, 'portraits')))) as LastRun;
    const second = (await two.run('pfc.correctFolder', two.uri(join(folder.photos, 'outdoors')))) as LastRun;
    expect(existsSync(first.resultsFile)).toBe(true);
    await one.run('pfc.showReport');
    expect(one.webviews[0]!.html).toContain('2 corrected');
    expect((await resultsIn(second)).map((r) => r.rel)).toEqual(['rocket.jpg']);
  });
});

describe('the first run without what it needs', () => {
  /** An installation without the embedded emulator: nothing beside the extension, nothing on NODE_PATH. */
  function alone(): string {
    const extensionDir = mkdtempSync(join(tmpdir(), 'pfc-vscode-alone-'));
    const nodePath = process.env.NODE_PATH;
    process.env.NODE_PATH = '';
    closers.push(() => {
      rmSync(extensionDir, { recursive: true, force: true });
      if (nodePath === undefined) delete process.env.NODE_PATH;
      else process.env.NODE_PATH = nodePath;
    });
    return extensionDir;
  }

  test('pfc.backend emulator without an emulator installed: only the address is offered (a key would not change the backend), and the button opens that setting', async () => {
    folder = photoFolder();
    const fake = activated({ settings: { backend: 'emulator' }, extensionDir: alone() });
    fake.answers.push({ match: /no local emulator/, answer: 'Set Emulator Address' });
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.shown).toEqual([expect.objectContaining({ kind: 'warning', modal: true, actions: ['Set Emulator Address'], text: expect.stringMatching(/^Perfectly Clear: this installation has no local emulator\. Set pfc\.emulatorUrl/) })]);
    await expect.poll(() => fake.executed.find((e) => e.command === 'workbench.action.openSettings')?.args).toEqual(['pfc.emulatorUrl']);
    expect(fake.inputBoxes).toEqual([]);
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);
  });

  test('hosted without a key, "Set API Key", then Escape in the key box: the run ends quietly, nothing sent, no error', async () => {
    folder = photoFolder();
    const hosted = await startEmulator({ host: '127.0.0.1' });
    closers.push(() => hosted.close());
    const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: hosted.web } });
    fake.answers.push({ match: /needs an API key/, answer: 'Set API Key' });
    fake.inputs.push(undefined);
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.inputBoxes).toHaveLength(1);
    expect(fake.shown.map((m) => m.kind)).toEqual(['warning']);
    expect(sent(hosted)).toEqual({});
    expect(fake.secrets.store_.size).toBe(0);
  });
});

describe('what the scan leaves out', () => {
  test('files.exclude entries that depend on a sibling ({ "when": … }) leave nothing out: the photos are corrected', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({
      settings: { backend: 'emulator', emulatorUrl: emu().web },
      otherSettings: { files: { exclude: { '**/*.jpg': { when: '$(basename).raw' } } } },
    });
    fake.workspaceFolders = [folder.root];
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary.corrected).toBe(5);
    expect(outputs(join(folder.photos, 'corrected'))).toEqual([...SAMPLE_FILES].sort());
  });

  test('a folder outside every workspace folder (from the Open dialog): files.exclude patterns apply from that folder', async () => {
    folder = photoFolder();
    mkdirSync(join(folder.photos, 'drafts'));
    cpSync(join(folder.photos, 'objects', 'coffee.jpg'), join(folder.photos, 'drafts', 'coffee.jpg'));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web }, otherSettings: { files: { exclude: { '**/drafts': true } } } });
    // No workspace folder holds it.
    fake.workspaceFolders = [];
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary.corrected).toBe(5);
    expect(outputs(join(folder.photos, 'corrected'))).toEqual([...SAMPLE_FILES].sort());
    expect(fake.output.find((l) => l.startsWith('left out'))).toContain('1 excluded by files.exclude');
  });

  test('Cancel during the scan: the run ends without a word (no "nothing to correct"), nothing sent or written', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    fake.onProgressStart = (cancel) => cancel();
    const before = sent(emu());
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.shown).toEqual([]);
    expect(sent(emu())).toEqual(before);
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);
  });
});

describe('progress', () => {
  test('the notification names a file being corrected, never one already done', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, concurrency: 1 } });
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    // The order the files were done in, from the log.
    const done = fake.output.flatMap((l) => /^corrected (\S+) → /.exec(l)?.[1] ?? []);
    expect(done).toHaveLength(5);
    const named = fake.progress.flatMap((p) => {
      const m = /^(\d+)\/5 · (.+)$/.exec(p.message ?? '');
      return m && m[2] !== 'starting' ? [{ count: Number(m[1]), rel: m[2]! }] : [];
    });
    expect(named.length).toBeGreaterThanOrEqual(5);
    // "k/5 · file": k files are done, and the file named is not one of them.
    for (const { count, rel } of named) expect(done.slice(0, count), `${count}/5 · ${rel}`).not.toContain(rel);
    expect(fake.progress.at(-1)!.message).toBe('5/5');
  });
});

describe('a hosted service that refuses work (429)', () => {
  test('fewer files at once while it refuses, said in the log; every file is corrected', async () => {
    folder = photoFolder();
    const key = 'sk-rate-limited-1234';
    // The account may hold one job at a time; the run starts with four.
    const hosted = await startEmulator({ host: '127.0.0.1', engine: {}, processingMs: 200, accountLimits: { jobsInProgress: 1 } });
    closers.push(() => hosted.close());
    const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: hosted.web, concurrency: 4, confirmAboveFiles: 0 } });
    await fake.secrets.store(SECRET_KEYS.apiKey, key);
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary).toMatchObject({ corrected: 5, failed: 0 });
    expect(fake.output.some((l) => /^\d job\(s\) at once \(the service refused work: fewer jobs\)$/.test(l))).toBe(true);
    expect(last.summary.jobsAtOnce?.lowest).toBeLessThan(4);
  });
});

describe('Upload as Custom Preset', () => {
  test('a file that is not a .preset (picked from the palette\'s dialog): refused, naming it, nothing uploaded', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    const before = sent(emu());
    const presetsBefore = emu().stats().requests;
    expect(await fake.run('pfc.uploadPreset', fake.uri(join(folder.photos, 'objects', 'coffee.jpg')))).toBeUndefined();
    expect(fake.shown).toEqual([expect.objectContaining({ kind: 'error', text: 'Perfectly Clear: coffee.jpg is not a .preset file.' })]);
    expect(fake.inputBoxes).toEqual([]);
    expect(sent(emu())).toEqual(before);
    expect(emu().stats().requests).toEqual(presetsBefore);
  });

  test('on a container (no account): refused, saying where presets live; nothing asked', async () => {
    folder = photoFolder();
    const studio = await startEmulator({ host: '127.0.0.1', engine: {}, bgr: false, container: {} });
    closers.push(() => studio.close());
    const presetFile = join(folder.root, 'Warm Skin.preset');
    writeFileSync(presetFile, '<?xml version="1.0"?><preset name="warm"><exposure>0.2</exposure></preset>');
    const { fake } = activateOnFake({ settings: { backend: 'container', containerUrl: studio.selfHosted.containers[0]!.url } });
    expect(await fake.run('pfc.uploadPreset', fake.uri(presetFile))).toBeUndefined();
    expect(fake.shown).toEqual([expect.objectContaining({ kind: 'error', text: expect.stringMatching(/^Perfectly Clear: custom presets live in a Web API account; the container at .* has none\./) })]);
    expect(fake.inputBoxes).toEqual([]);
  });

  test('the name typed with spaces around it is the preset\'s name without them, as the picker then lists it', async () => {
    folder = photoFolder();
    const presetFile = join(folder.root, 'warm.preset');
    writeFileSync(presetFile, '<?xml version="1.0"?><preset name="warm"><exposure>0.2</exposure></preset>');
    const hosted = await startEmulator({ host: '127.0.0.1' });
    closers.push(() => hosted.close());
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: hosted.web } });
    fake.inputs.push('  Trimmed Warm  ', '');
    expect(await fake.run('pfc.uploadPreset', fake.uri(presetFile))).toBe('Trimmed Warm');
    fake.pick = () => undefined;
    await fake.run('pfc.correctFolder', fake.uri(folder.photos));
    expect(fake.quickPicks.at(-1)!.filter((i) => i.description === 'custom preset').map((i) => i.label)).toEqual(['Trimmed Warm']);
  });
});
