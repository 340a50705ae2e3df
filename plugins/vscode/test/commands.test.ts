/**
 * The commands driven through a typed fake of VS Code, against the real
 * emulator on a loopback port, on real photos: files on disk are checked.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import { processAlive } from '@pfc/node-io';
import sharp from 'sharp';
import { afterEach, describe, expect, test, vi } from 'vitest';
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
    expect(fake.executed).toContainEqual({ command: 'setContext', args: ['pfc.hasReport', true] });

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

/** The embedded emulators the log says were started, in order: their address, process and data folder. */
function startedEmulators(fake: FakeVscode): { url: string; pid: number; dataDir: string }[] {
  return fake.output.flatMap((l) => {
    const m = /embedded emulator started on (\S+) \(process (\d+), data in (.+)\)$/.exec(l);
    return m ? [{ url: m[1]!, pid: Number(m[2]), dataDir: m[3]! }] : [];
  });
}

describe('offline by default: the embedded emulator', () => {
  test('a fresh install (no settings, no key) corrects on the embedded emulator, says so once with "Set API Key", and stops it on dispose', async () => {
    folder = photoFolder();
    const { fake, commands } = activateOnFake();
    try {
      fake.pick = () => 'Pro';
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary.corrected).toBe(5);
      for (const rel of SAMPLE_FILES) expect(existsSync(join(folder.photos, 'corrected', rel)), rel).toBe(true);
      // No modal asked for a key; one notice says where the results come from.
      expect(fake.shown.filter((m) => m.modal)).toEqual([]);
      const notices = fake.shown.filter((m) => /results come from the local emulator/.test(m.text));
      expect(notices).toHaveLength(1);
      expect(notices[0]!.actions).toEqual(['Set API Key']);
      const started = fake.output.map((l) => /embedded emulator started on (\S+)/.exec(l)?.[1]).find(Boolean)!;
      expect(started).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
      expect(fake.output.some((l) => l.includes(`on the embedded local emulator (${started})`))).toBe(true);

      // A second run reuses the same emulator and says nothing more.
      await fake.run('pfc.correctFolder', fake.uri(folder.photos));
      expect(fake.shown.filter((m) => /results come from the local emulator/.test(m.text))).toHaveLength(1);
      expect(fake.output.filter((l) => /embedded emulator started/.test(l))).toHaveLength(1);
      const health = await fetch(started.replace(/\/v2$/, '/v2/presets'), { headers: { 'X-API-KEY': 'x' } });
      expect(health.status).toBe(200);

      await commands.dispose();
      await expect(fetch(started.replace(/\/v2$/, '/v2/presets'), { headers: { 'X-API-KEY': 'x' } })).rejects.toThrow();
    } finally {
      await commands.dispose();
    }
  });

  test('the embedded emulator works in a process of its own, which ends with the window; if it dies, it starts again at the same address', async () => {
    folder = photoFolder();
    const { fake, commands } = activateOnFake();
    try {
      fake.pick = () => 'Pro';
      expect(((await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun).summary.corrected).toBe(5);
      const [first] = startedEmulators(fake);
      // Not the extension host's own process: the engine's work never holds the host's event loop.
      expect(first).toBeDefined();
      expect(first!.pid).not.toBe(process.pid);
      expect(processAlive(first!.pid)).toBe(true);
      expect(await commands.embedded.pid()).toBe(first!.pid);
      expect(existsSync(first!.dataDir)).toBe(true);

      process.kill(first!.pid, 'SIGKILL');
      await vi.waitFor(() => expect(fake.output.some((l) => /the embedded emulator stopped on its own \(signal SIGKILL\); starting it again at the same address/.test(l))).toBe(true));
      await vi.waitFor(() => expect(startedEmulators(fake)).toHaveLength(2), { timeout: 20_000 });
      const second = startedEmulators(fake)[1]!;
      expect(second.url).toBe(first!.url);
      // The dead one's data folder (copies of the photos it was given) is removed by the new one's start; it has its own.
      expect(existsSync(first!.dataDir)).toBe(false);
      expect(existsSync(second.dataDir)).toBe(true);
      // A photo added since: the new emulator corrects it.
      cpSync(join(folder.photos, 'objects', 'coffee.jpg'), join(folder.photos, 'added.jpg'));
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary).toMatchObject({ corrected: 1, upToDate: 5, failed: 0 });
      expect(existsSync(join(folder.photos, 'corrected', 'added.jpg'))).toBe(true);
      expect(startedEmulators(fake)).toHaveLength(2);
      expect(processAlive(second.pid)).toBe(true);

      await commands.dispose();
      expect(processAlive(second.pid)).toBe(false);
    } finally {
      await commands.dispose();
    }
  });

  test('an emulator that dies during a run is started again at its address: the files it held fail, the run goes on with the rest', async () => {
    folder = photoFolder();
    // Forty photos of 3 MP, so most of the run comes after the crash.
    const photo = await sharp(join(folder.photos, 'objects', 'coffee.jpg')).resize(2000, 1500).jpeg().toBuffer();
    const more = join(folder.photos, 'more');
    mkdirSync(more);
    for (let i = 0; i < 40; i++) writeFileSync(join(more, `more-${i}.jpg`), photo);
    const total = 45;
    const { fake, commands } = activateOnFake();
    try {
      fake.pick = () => 'Pro';
      const run = fake.run('pfc.correctFolder', fake.uri(folder.photos)) as Promise<LastRun>;
      // The first result written: then the emulator dies, with the next files in its hands.
      const written = (): number => (existsSync(join(folder.photos, 'corrected')) ? readdirSync(join(folder.photos, 'corrected'), { recursive: true }).filter((f) => /\.(jpg|png)$/.test(String(f))).length : 0);
      await vi.waitFor(() => expect(written()).toBeGreaterThan(0), { timeout: 60_000, interval: 5 });
      process.kill(startedEmulators(fake)[0]!.pid, 'SIGKILL');
      const before = written();
      const last = await run;
      expect(before).toBeLessThan(total - 20);
      const [first, second] = startedEmulators(fake);
      expect(second?.url).toBe(first!.url);
      expect(fake.output.some((l) => /the embedded emulator stopped on its own \(signal SIGKILL\); starting it again at the same address/.test(l))).toBe(true);
      expect(last.summary.corrected + last.summary.failed).toBe(total);
      // At most the files in flight at that moment (two jobs at once, two more in hand) fail.
      expect(last.summary.failed).toBeLessThanOrEqual(4);
    } finally {
      await commands.dispose();
    }
  });

  test('an installation without the emulator: the first run offers "Set API Key", and with the key the folder is corrected on the hosted service', async () => {
    folder = photoFolder();
    const key = 'first-run-key-7890';
    const hosted = await startEmulator({ host: '127.0.0.1', apiKeys: [key] });
    // Installed alone (the universal package): no @pfc/emulator beside the extension, nothing on NODE_PATH.
    const extensionDir = join(folder.root, 'extensions', 'pfc.pfc-vscode-0.1.0');
    const nodePath = process.env.NODE_PATH;
    process.env.NODE_PATH = '';
    try {
      const { fake } = activateOnFake({ settings: { webApiUrl: hosted.web }, extensionDir });
      fake.answers.push({ match: /no local emulator/, answer: 'Set API Key' });
      fake.inputs.push(key);
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;

      const offer = fake.shown.find((m) => /no local emulator/.test(m.text))!;
      expect(offer).toMatchObject({ modal: true, actions: ['Set API Key', 'Set Emulator Address'] });
      // The notification says what to do; the folders searched are for the log.
      expect(offer.text).not.toContain('node_modules');
      expect(fake.output.some((l) => l.includes(join(extensionDir, 'node_modules', '@pfc', 'emulator')))).toBe(true);
      expect(last.summary.corrected).toBe(5);
      for (const rel of SAMPLE_FILES) expect(existsSync(join(folder.photos, 'corrected', rel)), rel).toBe(true);
      expect(fake.secrets.store_.get(SECRET_KEYS.apiKey)).toBe(key);
      expect(fake.shown.filter((m) => m.kind === 'error')).toEqual([]);
    } finally {
      process.env.NODE_PATH = nodePath;
      if (nodePath === undefined) delete process.env.NODE_PATH;
      await hosted.close();
    }
  });

  test('auto picks the hosted Web API once an API key is stored (no emulator started)', async () => {
    folder = photoFolder();
    const guarded = await startEmulator({ host: '127.0.0.1', apiKeys: ['auto-key-123456'] });
    try {
      const { fake, commands } = activateOnFake({ settings: { webApiUrl: guarded.web } });
      await fake.secrets.store(SECRET_KEYS.apiKey, 'auto-key-123456');
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary.corrected).toBe(5);
      expect(fake.output.some((l) => /embedded emulator started/.test(l))).toBe(false);
      expect(fake.output.some((l) => l.includes(`on the hosted Web API at ${guarded.web}`))).toBe(true);
      await commands.dispose();
    } finally {
      await guarded.close();
    }
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
