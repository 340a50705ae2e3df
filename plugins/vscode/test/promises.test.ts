/**
 * Promises of the extension found unwatched by a second round of hand
 * mutations of src/, each driven as a user meets it — through the commands,
 * the questions and pickers of the fake VS Code — and checked where the user
 * sees the outcome: files on disk, the service's own records of what it was
 * sent, the messages and buttons shown, the log, SecretStorage.
 * Here: settings, the Explorer selection, one run at a time, keys.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import { afterEach, describe, expect, test } from 'vitest';
import type { Uri } from 'vscode';
import { Commands } from '../src/commands';
import { SECRET_KEYS } from '../src/keys';
import type { LastRun } from '../src/last-run';
import { Log } from '../src/log';
import { FakeVscode } from './fake-vscode';
import { activateOnFake, emulatorForTests, photoFolder, SAMPLE_FILES } from './helpers';
import { onFirstCorrected, outputs, sent, sha } from './promised';

const emu = emulatorForTests();
/** One job at a time, each 1.5 s: a run still going when the test acts. */
const slow = emulatorForTests({ processingMs: 1500, workers: 1 });
let folder: ReturnType<typeof photoFolder> | undefined;
const closers: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  folder?.cleanup();
  folder = undefined;
  emu().setFaults({});
});

describe('settings the user got wrong', () => {
  test('a bad setting: the error names it with its range, offers "Open Settings" (which opens the pfc settings), is logged, and nothing is sent', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, concurrency: 99 } });
    fake.answers.push({ match: /^Invalid Perfectly Clear settings/, answer: 'Open Settings' });
    const before = sent(emu());
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.shown).toEqual([{ kind: 'error', modal: false, actions: ['Open Settings'], text: 'Invalid Perfectly Clear settings: pfc.concurrency must be an integer from 0 to 16 (got 99)' }]);
    await expect.poll(() => fake.executed.find((e) => e.command === 'workbench.action.openSettings')?.args).toEqual(['pfc.']);
    // The Output channel keeps what the notification said.
    expect(fake.output).toContain('error: Invalid Perfectly Clear settings: pfc.concurrency must be an integer from 0 to 16 (got 99)');
    expect(sent(emu())).toEqual(before);
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);
  });

  test('pfc.output.folderName ".." is refused, naming the setting: nothing is written beside the photos\' folder', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.folderName': '..' } });
    const before = readdirSync(folder.root).sort();
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.shown.at(-1)).toMatchObject({ kind: 'error', text: 'Invalid Perfectly Clear settings: pfc.output.folderName must be a folder name without slashes (got "..")' });
    expect(readdirSync(folder.root).sort()).toEqual(before);
    expect(outputs(folder.photos)).toEqual([...SAMPLE_FILES].sort());
  });

  test('an empty pfc.output.suffix is refused, naming the setting: the photos are not replaced', async () => {
    folder = photoFolder();
    const originals = SAMPLE_FILES.map((r) => sha(join(folder!.photos, r)));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': 'suffix', 'output.suffix': '' } });
    const before = sent(emu());
    expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
    expect(fake.shown.at(-1)).toMatchObject({ kind: 'error', text: 'Invalid Perfectly Clear settings: pfc.output.suffix must be non-empty text without slashes (got "")' });
    expect(SAMPLE_FILES.map((r) => sha(join(folder!.photos, r)))).toEqual(originals);
    expect(sent(emu())).toEqual(before);
  });

  test('pfc.parameters cannot name the file: every photo is corrected from its own upload', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, parameters: { fileKey: 'someone-elses-upload', fileType: 'video' } } });
    const jobsBefore = emu().jobs().length;
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.summary).toMatchObject({ corrected: 5, failed: 0 });
    const jobs = emu().jobs().slice(jobsBefore);
    // Five uploads, five distinct inputs: the photos' own bytes.
    expect(new Set(jobs.map((j) => j.requested.fileKey)).size).toBe(5);
    expect(jobs.map((j) => j.inputSha256).sort()).toEqual(SAMPLE_FILES.map((r) => sha(join(folder!.photos, r))).sort());
    expect(last.params).not.toHaveProperty('fileKey');
  });
});

describe('the Explorer selection', () => {
  test('several folders selected: each is corrected into its own output folder, under one run', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    const portraits = join(folder.photos, 'portraits');
    const outdoors = join(folder.photos, 'outdoors');
    const last = (await fake.run('pfc.correctFolder', fake.uri(outdoors), [fake.uri(portraits), fake.uri(outdoors)])) as LastRun;
    expect(last.summary.corrected).toBe(3);
    expect(outputs(join(portraits, 'corrected'))).toEqual(['astronaut.jpg', 'grace_hopper.jpg']);
    expect(outputs(join(outdoors, 'corrected'))).toEqual(['rocket.jpg']);
    expect(existsSync(join(folder.photos, 'objects', 'corrected'))).toBe(false);
  });

  test('a selection that holds a folder of another file system: refused as a whole, naming that folder; nothing is sent or written', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    const virtual = { scheme: 'vscode-vfs', authority: 'github', path: '/owner/repo/holiday', fsPath: '/owner/repo/holiday', toString: () => 'vscode-vfs://github/owner/repo/holiday' } as unknown as Uri;
    const onDisk = fake.uri(folder.photos);
    const before = sent(emu());
    for (const command of ['pfc.correctFolder', 'pfc.restoreOriginals']) {
      fake.shown.length = 0;
      expect(await fake.run(command, onDisk, [onDisk, virtual]), command).toBeUndefined();
      expect(fake.shown, command).toEqual([expect.objectContaining({ kind: 'info', text: expect.stringMatching(/^Perfectly Clear: holiday is not on this computer's disk \(it is a vscode-vfs: resource\)/) })]);
    }
    expect(fake.quickPicks).toEqual([]);
    expect(sent(emu())).toEqual(before);
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);
  });
});

describe('one run at a time', () => {
  test('a second run asked for while one is running is refused with a message: its folder is not touched, nothing of it is sent', async () => {
    folder = photoFolder();
    const other = join(folder.root, 'other');
    cpSync(join(folder.photos, 'objects'), other, { recursive: true });
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: slow().web, concurrency: 1 } });
    let second: Promise<unknown> | undefined;
    onFirstCorrected(fake, () => {
      second = fake.run('pfc.correctFolder', fake.uri(other));
    });
    const jobsBefore = slow().jobs().length;
    const first = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(await second).toBeUndefined();
    expect(fake.shown).toContainEqual(expect.objectContaining({ kind: 'info', text: 'Perfectly Clear: a run is already in progress; cancel it from its notification first.' }));
    expect(first.summary.corrected).toBe(5);
    expect(slow().jobs().length - jobsBefore).toBe(5);
    expect(existsSync(join(other, 'corrected'))).toBe(false);
    // One preset question: the refused run asked nothing.
    expect(fake.quickPicks).toHaveLength(1);
  }, 60_000);

  test('Restore Originals while a run corrects in place is refused with a message: no question, and the run\'s files stay corrected', async () => {
    folder = photoFolder();
    const originals = new Map(SAMPLE_FILES.map((r) => [r, sha(join(folder!.photos, r))]));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: slow().web, concurrency: 1, 'output.mode': 'in-place' } });
    fake.answers.push({ match: /^Restore the originals/, answer: 'Restore' });
    let restoring: Promise<unknown> | undefined;
    onFirstCorrected(fake, () => {
      restoring = fake.run('pfc.restoreOriginals', fake.uri(folder!.photos));
    });
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(await restoring).toBeUndefined();
    expect(last.summary.corrected).toBe(5);
    expect(fake.shown).toContainEqual(expect.objectContaining({ kind: 'info', text: 'Perfectly Clear: a run is in progress; restore when it has finished.' }));
    expect(fake.shown.filter((m) => /^Restore the originals/.test(m.text))).toEqual([]);
    for (const r of SAMPLE_FILES) expect(sha(join(folder.photos, r)), r).not.toBe(originals.get(r));
  }, 60_000);
});

describe('keys', () => {
  test('the key boxes are password boxes: Set API Key, Set BGR Licence Key, and the one a run without a key opens', async () => {
    folder = photoFolder();
    const key = 'sk-password-box-123456';
    const guarded = await startEmulator({ host: '127.0.0.1', apiKeys: [key] });
    closers.push(() => guarded.close());
    const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: guarded.web } });
    fake.answers.push({ match: /needs an API key/, answer: 'Set API Key' });
    fake.inputs.push(key, 'api-key-xyz-123', 'bgr-key-xyz-456');
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    await fake.run('pfc.setApiKey');
    await fake.run('pfc.setBgrLicenceKey');
    expect(fake.inputBoxes.map((b) => [b.title, b.password])).toEqual([
      ['Perfectly Clear: API key', true], ['Perfectly Clear: API key', true], ['Perfectly Clear: BGR licence key', true],
    ]);
  });

  test('a key pasted with spaces or a line break around it is stored without them, and the service accepts it', async () => {
    folder = photoFolder();
    const key = 'sk-pasted-key-7788990';
    const guarded = await startEmulator({ host: '127.0.0.1', apiKeys: [key] });
    closers.push(() => guarded.close());
    const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: guarded.web } });
    fake.inputs.push(`  ${key}\n`);
    await fake.run('pfc.setApiKey');
    expect(fake.secrets.store_.get(SECRET_KEYS.apiKey)).toBe(key);
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
  });

  test('a key with a space inside is refused by the input box, and nothing is stored', async () => {
    const { fake } = activateOnFake();
    fake.inputs.push('sk-abc 123456');
    await fake.run('pfc.setApiKey');
    expect(fake.shown.at(-1)).toMatchObject({ kind: 'error', text: expect.stringMatching(/The API key cannot contain spaces\./) });
    expect(fake.secrets.store_.size).toBe(0);
  });

  test('Clear Keys declined: both keys stay', async () => {
    const { fake } = activateOnFake();
    fake.inputs.push('api-key-xyz-123', 'bgr-key-xyz-456');
    await fake.run('pfc.setApiKey');
    await fake.run('pfc.setBgrLicenceKey');
    fake.answers.push({ match: /Remove the Perfectly Clear/, answer: undefined });
    await fake.run('pfc.clearKeys');
    expect(fake.shown.at(-1)).toMatchObject({ modal: true, actions: ['Clear Keys'] });
    expect(Object.fromEntries(fake.secrets.store_)).toEqual({ [SECRET_KEYS.apiKey]: 'api-key-xyz-123', [SECRET_KEYS.bgrLicenceKey]: 'bgr-key-xyz-456' });
    expect(fake.statusMessages).toHaveLength(2);
  });

  test('a key stored by another window during a run is masked in the log from then on', async () => {
    folder = photoFolder();
    const key = 'other-window-key-4d2e';
    // A photo named with the key stands for any line that could quote it; its folder sorts last.
    mkdirSync(join(folder.photos, 'zz-last'));
    cpSync(join(folder.photos, 'objects', 'coffee.jpg'), join(folder.photos, 'zz-last', `${key}.jpg`));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: slow().web, concurrency: 1 } });
    let stored: Promise<void> | undefined;
    // Not through this window's command: SecretStorage itself changes (VS Code's onDidChange).
    onFirstCorrected(fake, () => {
      stored = fake.secrets.store(SECRET_KEYS.apiKey, key);
    });
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    await stored;
    expect(last.summary.corrected).toBe(6);
    expect([...fake.output, ...fake.traces].join('\n')).not.toContain(key);
    expect(fake.output.some((l) => l.startsWith('corrected zz-last/***.jpg'))).toBe(true);
  }, 60_000);

  test('a key stored in an earlier session and pasted into a setting by mistake: the error neither logs nor shows it', async () => {
    folder = photoFolder();
    const key = 'sk-earlier-session-5566';
    // VS Code starts with the key already in SecretStorage; the extension activates on the command.
    const fake = new FakeVscode({ settings: { backend: 'hosted', webApiUrl: key } });
    await fake.secrets.store(SECRET_KEYS.apiKey, key);
    new Commands(fake.api, fake.host, new Log(fake.api.window.createOutputChannel('Perfectly Clear', { log: true })), fake.api.window.createStatusBarItem()).register();
    const presetFile = join(folder.root, 'Warm Skin.preset');
    writeFileSync(presetFile, '<?xml version="1.0"?><preset name="warm"><exposure>0.2</exposure></preset>');
    expect(await fake.run('pfc.uploadPreset', fake.uri(presetFile))).toBeUndefined();
    const error = fake.shown.at(-1)!;
    expect(error).toMatchObject({ kind: 'error', actions: ['Open Settings'] });
    expect(error.text).toMatch(/^Invalid Perfectly Clear settings: pfc\.webApiUrl must be an http\(s\) address/);
    expect(fake.output.some((l) => /^error: Invalid Perfectly Clear settings: pfc\.webApiUrl/.test(l))).toBe(true);
    expect([...fake.output, ...fake.traces, error.text].join('\n')).not.toContain(key);
  });
});
