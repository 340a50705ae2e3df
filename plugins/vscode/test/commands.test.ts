/**
 * The commands driven through a typed fake of VS Code, against the real
 * emulator on a loopback port, on real photos: files on disk are checked.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import sharp from 'sharp';
import { afterEach, describe, expect, test } from 'vitest';
import type { Uri } from 'vscode';
import { SECRET_KEYS } from '../src/keys';
import type { LastRun } from '../src/last-run';
import type { FakeVscode } from './fake-vscode';
import { activateOnFake, emulatorForTests, photoFolder, resultsIn, SAMPLE_FILES } from './helpers';

const emu = emulatorForTests();
/** One job at a time, each 1.5 s: a run still going when the test acts. */
const slow = emulatorForTests({ processingMs: 1500, workers: 1 });
let folder: ReturnType<typeof photoFolder>;

afterEach(() => {
  folder?.cleanup();
  emu().setFaults({});
});

const WRONG_KEY = 'wrong-key-abcdef';

/** A photo folder, a stand-in for the hosted service that accepts only `right`, and the extension (backend hosted) with a wrong key stored. */
async function withRefusedKey(right: string, body: (fake: FakeVscode, right: string) => Promise<void>): Promise<void> {
  folder = photoFolder();
  const guarded = await startEmulator({ host: '127.0.0.1', apiKeys: [right] });
  try {
    const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: guarded.web } });
    await fake.secrets.store(SECRET_KEYS.apiKey, WRONG_KEY);
    await body(fake, right);
  } finally {
    await guarded.close();
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('Correct Images in Folder…', () => {
  test('mirrors the nested folder with decodable images, reports progress, shows the status bar and a summary', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    fake.pick = () => 'Pro';
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;

    expect(last.summary.corrected).toBe(5);
    expect(last.params.preset).toBe('Pro');
    for (const rel of SAMPLE_FILES) {
      const [a, b] = await Promise.all([sharp(join(folder.photos, rel)).metadata(), sharp(join(folder.photos, 'corrected', rel)).metadata()]);
      expect({ w: b.width, h: b.height, f: b.format }, rel).toEqual({ w: a.width, h: a.height, f: a.format });
    }
    // The picker offered the built-in groups first.
    expect(fake.quickPicks[0]!.filter((i) => i.kind === undefined).slice(0, 4).map((i) => i.label)).toEqual(['Universal', 'Pro', 'School and Sports', 'Attractions and Cruise Lines']);
    // Progress: done/total with the current file, increments adding up to 100 %.
    expect(fake.progress.some((p) => /^\d\/5 · (objects|outdoors|portraits)\//.test(p.message ?? ''))).toBe(true);
    expect(fake.progress.reduce((n, p) => n + (p.increment ?? 0), 0)).toBeCloseTo(100, 5);
    expect(fake.statusTexts).toContain('$(sync~spin) PFC 5/5');
    expect(fake.statusVisible).toBe(false);
    const summary = fake.shown.at(-1)!;
    expect(summary.text).toMatch(/^Perfectly Clear: Corrected 5 files in [\d.]+ s\.$/);
    expect(summary.actions).toEqual(['Open Output Folder', 'Show Report']);
    expect(fake.output.some((l) => /corrected portraits\/astronaut\.jpg → /.test(l))).toBe(true);

    // A second run skips everything (the engine's manifest).
    const again = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(again.summary.upToDate).toBe(5);
    expect(again.summary.corrected).toBe(0);
  });

  test('Show Report renders every file with before/after images through webview URIs', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    await fake.run('pfc.correctFolder', fake.uri(folder.photos));
    await fake.run('pfc.showReport');
    const html = fake.webviews[0]!.html;
    expect(html).toContain(`src="file:///webview${join(folder.photos, 'corrected', 'portraits', 'astronaut.jpg')}"`);
    expect(html.match(/<img /g)).toHaveLength(10);
    expect(html).toContain("img-src https://fake.vscode-cdn.net");
    expect(html).not.toMatch(/<script/i);
  });

  test('cancelling mid-batch leaves no partial file, and a rerun completes the rest', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: slow().web, concurrency: 1 } });
    fake.onProgressStart = (cancel) => {
      // The run's notification (the scan has its own, before the "run:" line).
      if (!fake.output.some((l) => l.startsWith('run: '))) return;
      const timer = setInterval(() => {
        if (fake.output.some((l) => /^corrected /.test(l))) {
          clearInterval(timer);
          cancel();
        }
      }, 20);
    };
    const first = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(first.summary.interrupted).toBe(true);
    expect(first.summary.corrected).toBeGreaterThanOrEqual(1);
    expect(first.summary.corrected).toBeLessThan(5);
    expect(walk(folder.photos).filter((f) => f.includes('.pfc-partial'))).toEqual([]);
    expect(fake.shown.at(-1)!.text).toMatch(/^Perfectly Clear: Cancelled after correcting \d files?/);

    fake.onProgressStart = undefined;
    const second = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(second.summary.upToDate).toBe(first.summary.corrected);
    expect(second.summary.corrected).toBe(5 - first.summary.corrected);
    for (const rel of SAMPLE_FILES) expect(existsSync(join(folder.photos, 'corrected', rel)), rel).toBe(true);
  }, 60_000);

  test('Retry Failed redoes only the failed files', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, concurrency: 1 } });
    emu().setFaults({ jobs: { failRate: 1, count: 2 } });
    const first = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(first.summary.failed).toBe(2);
    expect(fake.shown.at(-1)!.actions).toContain('Retry Failed');
    const failed = (await resultsIn(first)).filter((r) => r.status === 'failed').map((r) => r.rel);

    const retry = (await fake.run('pfc.retryFailed')) as LastRun;
    expect(retry.summary.corrected).toBe(2);
    expect((await resultsIn(retry)).map((r) => r.rel).sort()).toEqual(failed.sort());
    // Only the quick pick of the first run: a retry keeps its preset.
    expect(fake.quickPicks).toHaveLength(1);
  });

  test('the output folder of an earlier run: its photos are left as is, nothing is sent, and no Retry Failed is offered', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
    const outputs = join(folder.photos, 'corrected');
    const before = walk(outputs).map((f) => readFileSync(f));
    const uploads = emu().stats().requests.upload ?? 0;

    // The user right-clicks the output folder and corrects it.
    const again = (await fake.run('pfc.correctFolder', fake.uri(outputs))) as LastRun;
    expect(again.summary).toMatchObject({ corrected: 0, failed: 5, refused: 5 });
    expect((await resultsIn(again)).map((r) => r.errorName)).toEqual(Array(5).fill('AlreadyCorrectedError'));
    expect(emu().stats().requests.upload ?? 0).toBe(uploads);
    // Nothing written: no output folder inside it, and its photos as they were.
    expect(existsSync(join(outputs, 'corrected'))).toBe(false);
    expect(walk(outputs).map((f) => readFileSync(f))).toEqual(before);
    const summary = fake.shown.at(-1)!;
    expect(summary.text).toContain('5 files left as is (see the report for why)');
    expect(summary.text).not.toContain('failed');
    expect(summary.actions).not.toContain('Retry Failed');
    await fake.run('pfc.retryFailed');
    expect(fake.shown.at(-1)!.text).toBe('Perfectly Clear: the last run has no failed files to retry; the files it left as is on purpose stay so until you act on them (see the report for why).');
  });

  test('invalid parameters are refused, naming the parameter, before anything is uploaded', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, parameters: { outputQuality: 7 } } });
    const before = emu().stats().requests;
    await fake.run('pfc.correctFolder', fake.uri(folder.photos));
    expect(fake.shown.at(-1)).toMatchObject({ kind: 'error', text: expect.stringMatching(/pfc\.parameters: outputQuality must be an integer from 40 to 100/) });
    expect(emu().stats().requests).toEqual(before);
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);
  });
});

describe('an output folder that cannot be written', () => {
  test('a file named like the output folder: the run is refused, naming it, before anything is uploaded, and the file is kept', async () => {
    folder = photoFolder();
    const blocker = join(folder.photos, 'corrected');
    writeFileSync(blocker, 'notes, not a folder');
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    // The preset picker lists the account's presets; nothing else may reach the service.
    const sent = () => Object.entries(emu().stats().requests).filter(([r]) => !/preset/i.test(r));
    const before = sent();
    await fake.run('pfc.correctFolder', fake.uri(folder.photos));
    expect(fake.shown.at(-1)).toMatchObject({ kind: 'error', text: `Perfectly Clear: cannot write results to ${blocker}: ${blocker} is a file, not a folder` });
    expect(sent()).toEqual(before);
    expect(readFileSync(blocker, 'utf8')).toBe('notes, not a folder');
  });
});

describe('Correct Selected Images', () => {
  test('corrects exactly the selected files', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    const a = join(folder.photos, 'portraits', 'astronaut.jpg');
    const b = join(folder.photos, 'portraits', 'grace_hopper.jpg');
    const last = (await fake.run('pfc.correctFiles', fake.uri(b), [fake.uri(a), fake.uri(b)])) as LastRun;
    expect(last.summary.corrected).toBe(2);
    expect(readdirSync(join(folder.photos, 'portraits', 'corrected')).filter((n) => !n.startsWith('.')).sort()).toEqual(['astronaut.jpg', 'grace_hopper.jpg']);
    expect(existsSync(join(folder.photos, 'objects', 'corrected'))).toBe(false);
  });
});

describe('folders that are not on disk', () => {
  test('a folder of another file system (GitHub Repositories, SSH FS) is refused with a message that says why, before anything runs', async () => {
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    // What VS Code passes for a folder of a `vscode-vfs` workspace folder: its fsPath names nothing on this disk.
    const virtual = { scheme: 'vscode-vfs', authority: 'github', path: '/owner/repo/photos', fsPath: '/owner/repo/photos', toString: () => 'vscode-vfs://github/owner/repo/photos' } as unknown as Uri;
    const before = JSON.stringify(emu().stats().requests);
    for (const command of ['pfc.correctFolder', 'pfc.correctFiles', 'pfc.restoreOriginals', 'pfc.compareWithOriginal', 'pfc.uploadPreset']) {
      fake.shown.length = 0;
      expect(await fake.run(command, virtual), command).toBeUndefined();
      expect(fake.shown, command).toEqual([{
        kind: 'info', modal: false, actions: [],
        text: "Perfectly Clear: photos is not on this computer's disk (it is a vscode-vfs: resource), so it cannot be corrected. Open a folder from disk to correct its photos.",
      }]);
    }
    expect(fake.quickPicks).toEqual([]);
    expect(JSON.stringify(emu().stats().requests)).toBe(before);
  });
});

describe('keys and the first run', () => {
  test('hosted without a key: offers to set one; the key goes to SecretStorage only and is used', async () => {
    folder = photoFolder();
    const key = 'sk-unit-test-1234567890';
    const guarded = await startEmulator({ host: '127.0.0.1', apiKeys: [key] });
    try {
      const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: guarded.web } });
      fake.answers.push({ match: /needs an API key/, answer: 'Set API Key' });
      fake.inputs.push(key);
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary.corrected).toBe(5);
      expect(fake.secrets.store_.get(SECRET_KEYS.apiKey)).toBe(key);
      expect(fake.settingUpdates).toEqual([]);
      expect(JSON.stringify(fake.settings)).not.toContain(key);
      expect(fake.output.join('\n')).not.toContain(key);
      expect(fake.shown.map((s) => s.text).join('\n')).not.toContain(key);
    } finally {
      await guarded.close();
    }
  });

  test('hosted without a key: "Use Local Emulator" switches the user settings to auto (the embedded emulator until a key is set)', async () => {
    folder = photoFolder();
    const { fake, commands } = activateOnFake({ settings: { backend: 'hosted' } });
    try {
      fake.answers.push({ match: /needs an API key/, answer: 'Use Local Emulator' });
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary.corrected).toBe(5);
      expect(fake.settingUpdates).toEqual([{ key: 'backend', value: 'auto', target: 1 }]);
      expect(fake.output.some((l) => /embedded emulator started on http:\/\/127\.0\.0\.1:\d+\/v2/.test(l))).toBe(true);
    } finally {
      await commands.dispose();
    }
  });

  test('a refused key: the summary itself says the service refused it, and no message holds the key', () =>
    withRefusedKey('the-right-key-000', async (fake) => {
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary.stoppedBecause).toBeTruthy();
      // What the user reads in the notification, without opening the log.
      const summary = fake.shown.at(-1)!;
      expect(summary.kind).toBe('warning');
      expect(summary.text).toMatch(/^Perfectly Clear: Corrected 0 files in [\d.]+ s; .*stopped early: the service refused the credentials: .*(401|key)/i);
      const everything = [...fake.output, ...fake.shown.map((s) => s.text)].join('\n');
      expect(everything).not.toContain(WRONG_KEY);
    }));

  test('a refused key: the summary offers "Set API Key" first; it asks for the key as the command does, and the next run corrects with it', () =>
    withRefusedKey('the-right-key-000', async (fake, right) => {
      fake.answers.push({ match: /stopped early: the service refused the credentials/, answer: 'Set API Key' });
      fake.inputs.push(right);
      const first = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(first.summary.stoppedBecause).toMatch(/refused the credentials/);
      const summary = fake.shown.find((m) => /stopped early/.test(m.text))!;
      expect(summary.actions[0]).toBe('Set API Key');
      // The button runs what "Perfectly Clear: Set API Key" runs: the password box, then SecretStorage.
      await expect.poll(() => fake.secrets.store_.get(SECRET_KEYS.apiKey)).toBe(right);
      // Confirmed in the status bar, not by a toast that could push the summary out of VS Code's 3 visible toasts.
      expect(fake.statusMessages.map((m) => m.text)).toEqual(['Perfectly Clear: API key saved in secret storage.']);
      expect(fake.shown.filter((m) => /saved in secret storage/.test(m.text))).toEqual([]);

      const again = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(again.summary.corrected).toBe(5);
      expect(fake.shown.at(-1)!.actions).not.toContain('Set API Key');
    }));

  test('Upload as Custom Preset with a refused key: the error offers "Set API Key" first, which stores the key', () =>
    withRefusedKey('the-right-key-111', async (fake, right) => {
      const presetFile = join(folder.root, 'Warm Skin.preset');
      writeFileSync(presetFile, '<?xml version="1.0"?><preset name="warm"><exposure>0.2</exposure></preset>');
      // The preset's name and description, then the key.
      fake.inputs.push('Warm Skin', '', right);
      fake.answers.push({ match: /./, answer: 'Set API Key' });
      expect(await fake.run('pfc.uploadPreset', fake.uri(presetFile))).toBeUndefined();
      const error = fake.shown.find((m) => m.kind === 'error')!;
      expect(error.actions).toEqual(['Set API Key', 'Show Log']);
      expect(error.text).not.toContain(WRONG_KEY);
      expect(fake.secrets.store_.get(SECRET_KEYS.apiKey)).toBe(right);
    }));

  test('a key set while a run is active is masked in the log from that moment, not from the next run', async () => {
    folder = photoFolder();
    const key = 'mid-run-key-5f3a9c';
    // A photo named with the key stands for any line that could quote it (a service error echoing a request);
    // its folder sorts last, so it is corrected after the key is set.
    mkdirSync(join(folder.photos, 'zz-last'));
    cpSync(join(folder.photos, 'objects', 'coffee.jpg'), join(folder.photos, 'zz-last', `${key}.jpg`));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: slow().web, concurrency: 1 } });
    fake.inputs.push(key);
    let setting: Promise<unknown> | undefined;
    let linesBefore = 0;
    fake.onProgressStart = () => {
      // The run's notification (the scan has its own, before the "run:" line).
      if (!fake.output.some((l) => l.startsWith('run: '))) return;
      const timer = setInterval(() => {
        if (!fake.output.some((l) => /^corrected /.test(l))) return;
        clearInterval(timer);
        linesBefore = fake.output.length;
        setting = fake.run('pfc.setApiKey');
      }, 20);
    };
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    await setting;
    expect(last.summary.corrected).toBe(6);
    // The key was set during the run, before its photo started.
    expect(fake.secrets.store_.get(SECRET_KEYS.apiKey)).toBe(key);
    expect(fake.output.slice(0, linesBefore).some((l) => l.includes('zz-last/'))).toBe(false);
    expect([...fake.output, ...fake.traces].join('\n')).not.toContain(key);
    expect(fake.output.some((l) => l.startsWith('corrected zz-last/***.jpg'))).toBe(true);
  }, 60_000);

  test('Set API Key, Set BGR Licence Key and Clear Keys', async () => {
    const { fake } = activateOnFake();
    fake.inputs.push('api-key-xyz-123', 'bgr-key-xyz-456');
    await fake.run('pfc.setApiKey');
    await fake.run('pfc.setBgrLicenceKey');
    expect(Object.fromEntries(fake.secrets.store_)).toEqual({ [SECRET_KEYS.apiKey]: 'api-key-xyz-123', [SECRET_KEYS.bgrLicenceKey]: 'bgr-key-xyz-456' });
    fake.answers.push({ match: /Remove the Perfectly Clear/, answer: 'Clear Keys' });
    await fake.run('pfc.clearKeys');
    expect(fake.secrets.store_.size).toBe(0);
    expect(fake.settingUpdates).toEqual([]);
    // Each is confirmed in the status bar for a while; the only notification is the modal question.
    expect(fake.statusMessages.map((m) => m.text)).toEqual([
      'Perfectly Clear: API key saved in secret storage.', 'Perfectly Clear: BGR licence key saved in secret storage.', 'Perfectly Clear: keys cleared.',
    ]);
    expect(fake.statusMessages.every((m) => m.hideAfterMs >= 5_000 && !m.disposed)).toBe(true);
    expect(fake.shown.map((m) => m.modal)).toEqual([true]);
  });

  test('an empty key is refused by the input box', async () => {
    const { fake } = activateOnFake();
    fake.inputs.push('   ');
    await fake.run('pfc.setApiKey');
    expect(fake.shown.at(-1)).toMatchObject({ kind: 'error', text: expect.stringMatching(/cannot be empty/) });
    expect(fake.secrets.store_.size).toBe(0);
  });
});

describe('cost guard, output mode, presets, output folder', () => {
  test('a paid backend asks before more than pfc.confirmAboveFiles files; declining sends nothing', async () => {
    folder = photoFolder();
    const guarded = await startEmulator({ host: '127.0.0.1' });
    try {
      const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: guarded.web, confirmAboveFiles: 3 } });
      await fake.secrets.store(SECRET_KEYS.apiKey, 'some-api-key-123');
      const before = guarded.stats().requests;
      expect(await fake.run('pfc.correctFolder', fake.uri(folder.photos))).toBeUndefined();
      expect(fake.shown.at(-1)).toMatchObject({ kind: 'warning', modal: true, text: expect.stringMatching(/^Correct 5 files on the hosted Web API/) });
      // Only the preset list was asked for.
      expect(Object.keys(guarded.stats().requests).filter((r) => !/preset/i.test(r))).toEqual(Object.keys(before).filter((r) => !/preset/i.test(r)));
      expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);

      fake.answers.push({ match: /^Correct 5 files/, answer: 'Correct' });
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary.corrected).toBe(5);
    } finally {
      await guarded.close();
    }
  });

  test('pfc.output.askEachRun: the picked mode is used (suffix: beside each file)', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.askEachRun': true } });
    fake.pick = (items) => (items.some((i) => i.label === 'Universal') ? 'Universal' : 'Beside each file, with a suffix');
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    expect(last.mode).toBe('suffix');
    expect(existsSync(join(folder.photos, 'objects', 'coffee_pfc.jpg'))).toBe(true);
    expect(existsSync(join(folder.photos, 'corrected'))).toBe(false);
  });

  test('custom presets uploaded from a .preset file are offered in the picker and used', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    const { writeFileSync } = await import('node:fs');
    const presetFile = join(folder.root, 'Warm Skin.preset');
    writeFileSync(presetFile, '<?xml version="1.0"?><preset name="warm"><exposure>0.2</exposure></preset>');
    fake.inputs.push('Warm Skin', 'warmer skin tones');
    expect(await fake.run('pfc.uploadPreset', fake.uri(presetFile))).toBe('Warm Skin');

    fake.pick = () => 'Warm Skin';
    const jobsBefore = emu().jobs().length;
    const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
    const items = fake.quickPicks.at(-1)!;
    expect(items.map((i) => i.label)).toContain('Your custom presets');
    expect(items.find((i) => i.label === 'Warm Skin')?.description).toBe('custom preset');
    expect(last.params.preset).toBe('Warm Skin');
    expect(last.summary.corrected).toBe(5);
    // The service ran every job with the preset picked, not the default.
    expect(emu().jobs().slice(jobsBefore).map((j) => j.requested.preset)).toEqual(Array(5).fill('Warm Skin'));
  });

  test('"Open Output Folder" reveals the output folder in the Explorer', async () => {
    folder = photoFolder();
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web } });
    fake.answers.push({ match: /^Perfectly Clear: Corrected/, answer: 'Open Output Folder' });
    await fake.run('pfc.correctFolder', fake.uri(folder.photos));
    await expect.poll(() => fake.executed.find((e) => e.command === 'revealInExplorer')).toBeTruthy();
    const reveal = fake.executed.find((e) => e.command === 'revealInExplorer')!;
    expect((reveal.args[0] as { fsPath: string }).fsPath).toBe(join(folder.photos, 'corrected'));
  });
});
