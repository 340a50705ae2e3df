/**
 * The embedded emulator (no key, no container: a fresh install corrects
 * offline), driven through the typed fake of VS Code on real photos: where it
 * runs (a process of its own), how it says so, how it ends, and how a run
 * goes on when it dies.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import { processAlive } from '@pfc/node-io';
import sharp from 'sharp';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { EmbeddedEmulator } from '../src/embedded';
import { SECRET_KEYS } from '../src/keys';
import type { LastRun } from '../src/last-run';
import { type FakeVscode, PLUGIN_DIR } from './fake-vscode';
import { crashOnMarker, withCrashMarker } from '../../../test/support/crash-on-marker';
import { activateOnFake, photoFolder, SAMPLE_FILES } from './helpers';

let folder: ReturnType<typeof photoFolder>;

afterEach(() => {
  folder?.cleanup();
});

/** The embedded emulators the log says were started, in order: their address, process and data folder. */
function startedEmulators(fake: FakeVscode): { url: string; pid: number; dataDir: string }[] {
  return fake.output.flatMap((l) => {
    const m = /embedded emulator started on (\S+) \(process (\d+), data in (.+)\)$/.exec(l);
    return m ? [{ url: m[1]!, pid: Number(m[2]), dataDir: m[3]! }] : [];
  });
}

/** Puts an environment variable back as it was. */
function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** Makes emulator processes started from now on load `script` first (they inherit NODE_OPTIONS); returns the undo. */
function requireInEmulators(script: string): () => void {
  const before = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${before ?? ''} --require ${script}`.trim();
  return () => restore('NODE_OPTIONS', before);
}

/** `count` copies of a sample photo at `width` × `height` in the folder's `more/` (`more-0.jpg`…), each through `edit`. */
async function morePhotos(count: number, width: number, height: number, edit = (_name: string, jpeg: Buffer) => jpeg): Promise<string> {
  const photo = await sharp(join(folder.photos, 'objects', 'coffee.jpg')).resize(width, height).jpeg().toBuffer();
  const more = join(folder.photos, 'more');
  mkdirSync(more);
  for (let i = 0; i < count; i++) writeFileSync(join(more, `more-${i}.jpg`), edit(`more-${i}.jpg`, photo));
  return more;
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
      // The dead one's data folder (copies of the photos it was given) was removed when it ended; the new one has its own.
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

  test('an emulator that dies during a run is started again at its address, however long that takes: the files it held are sent again, and every file is corrected', async () => {
    folder = photoFolder();
    // The new one takes 15 s to start (a busy machine, a virus scanner reading sharp): longer than a file's two attempts with their
    // requests' retries (about 10 s), after which the run would stop as "could not reach the service".
    const slowStart = join(folder.root, 'slow-start.cjs');
    writeFileSync(slowStart, 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 15000);\n');
    // Forty photos of 3 MP, so most of the run comes after the crash.
    await morePhotos(40, 2000, 1500);
    const total = 45;
    let undo = (): void => undefined;
    const { fake, commands } = activateOnFake();
    try {
      fake.pick = () => 'Pro';
      const run = fake.run('pfc.correctFolder', fake.uri(folder.photos)) as Promise<LastRun>;
      // The first result written: then the emulator dies, with the next files in its hands.
      const written = (): number => (existsSync(join(folder.photos, 'corrected')) ? readdirSync(join(folder.photos, 'corrected'), { recursive: true }).filter((f) => /\.(jpg|png)$/.test(String(f))).length : 0);
      await vi.waitFor(() => expect(written()).toBeGreaterThan(0), { timeout: 60_000, interval: 5 });
      // The next emulator process only.
      undo = requireInEmulators(slowStart);
      const killedAt = Date.now();
      process.kill(startedEmulators(fake)[0]!.pid, 'SIGKILL');
      const before = written();
      const restartedAt = vi.waitFor(() => expect(startedEmulators(fake)).toHaveLength(2), { timeout: 60_000, interval: 20 }).then(() => Date.now());
      const last = await run;
      expect(before).toBeLessThan(total - 20);
      expect((await restartedAt) - killedAt).toBeGreaterThanOrEqual(14_000);
      const [first, second] = startedEmulators(fake);
      expect(second?.url).toBe(first!.url);
      expect(fake.output.some((l) => /the embedded emulator stopped on its own \(signal SIGKILL\); starting it again at the same address/.test(l))).toBe(true);
      // The files in flight at that moment (two jobs at once, two more in hand) were lost with it: each was tried again.
      expect(fake.output.some((l) => /^retry more\/.*\(attempt 2 in \d+ ms\): the local emulator stopped on its own \(signal SIGKILL\) while this file was being corrected, and was started again/.test(l))).toBe(true);
      expect(last.summary).toMatchObject({ corrected: total, failed: 0 });
    } finally {
      undo();
      await commands.dispose();
    }
  }, 120_000);

  test('photos that crash the emulator each time fail alone: it is started again after each crash, they are tried again alone, and every other photo is corrected', async () => {
    folder = photoFolder();
    const poisoned = ['more-10.jpg', 'more-20.jpg', 'more-30.jpg'];
    await morePhotos(40, 1200, 900, (name, jpeg) => (poisoned.includes(name) ? withCrashMarker(jpeg) : jpeg));
    const undo = requireInEmulators(crashOnMarker(folder.root));
    const { fake, commands } = activateOnFake();
    try {
      fake.pick = () => 'Pro';
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      const crashes = fake.output.filter((l) => /the embedded emulator stopped on its own \(signal SIGSEGV\); starting it again/.test(l));
      // Each poisoned photo crashed it on each of its 3 attempts, its 2nd and 3rd alone, and nothing else did.
      expect(crashes).toHaveLength(3 * poisoned.length);
      expect(last.summary.interrupted).toBe(false);
      expect(last.summary.stoppedBecause).toBeUndefined();
      // The files lost beside them were tried again, alone, and corrected.
      expect(fake.output.some((l) => /^retry more\/more-(?!10|20|30)\d+\.jpg \(attempt 2 in \d+ ms\)/.test(l))).toBe(true);
      expect(last.summary).toMatchObject({ corrected: 45 - poisoned.length, failed: poisoned.length });
      // Each poisoned photo says what happened to it: the engine crashed on it, not a service that forgot an upload.
      for (const name of poisoned) {
        expect(fake.output).toContain(`FAILED more/${name}: the local emulator stopped on its own (signal SIGSEGV) while this file was being corrected, and was started again: a file that does this on each attempt may crash the imaging engine`);
      }
      expect(readdirSync(join(folder.photos, 'corrected', 'more')).sort()).toEqual(readdirSync(join(folder.photos, 'more')).filter((f) => !poisoned.includes(f)).sort());
    } finally {
      undo();
      await commands.dispose();
    }
  }, 180_000);

  test('an emulator that crashes on every photo: it is started again each time, and the run stops after 10 files in a row lost, saying so', async () => {
    folder = photoFolder();
    await morePhotos(10, 320, 240);
    // Every JPEG starts so (SOI, then a marker).
    const undo = requireInEmulators(crashOnMarker(folder.root, Buffer.from([0xff, 0xd8, 0xff])));
    const { fake, commands } = activateOnFake();
    try {
      fake.pick = () => 'Pro';
      const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;
      expect(last.summary.corrected).toBe(0);
      expect(last.summary.failed).toBeGreaterThanOrEqual(10);
      expect(fake.shown.at(-1)!.text).toMatch(/stopped early: the service lost the jobs of 10 files in a row, on each of their attempts/);
      expect(fake.output.filter((l) => /the embedded emulator stopped on its own \(signal SIGSEGV\); starting it again/.test(l)).length).toBeGreaterThanOrEqual(10);
    } finally {
      undo();
      await commands.dispose();
    }
  }, 180_000);

  test('an emulator that keeps crashing with nothing to do is left stopped after crashLoop crashes in a row; requests are refused saying why, and the next run starts it again', async () => {
    folder = photoFolder();
    const crashSoon = join(folder.root, 'crash-soon.cjs');
    // 0.2 s after it says it listens.
    writeFileSync(crashSoon, `const send = process.send;
process.send = function (message, ...rest) {
  if (message && message.type === 'ready') setTimeout(() => process.kill(process.pid, 'SIGSEGV'), 200);
  return send.call(this, message, ...rest);
};
`);
    const lines: string[] = [];
    const embedded = new EmbeddedEmulator(PLUGIN_DIR, (l) => lines.push(l), 3);
    const undo = requireInEmulators(crashSoon);
    try {
      await embedded.url();
      await vi.waitFor(() => expect(lines.some((l) => /3 times in a row without finishing a job; it is left stopped/.test(l))).toBe(true), { timeout: 30_000, interval: 50 });
      expect(lines.filter((l) => /embedded emulator started on/.test(l))).toHaveLength(3);
      expect(await embedded.pid()).toBeUndefined();
      await expect(embedded.ready()).rejects.toThrow(/the local emulator stopped on its own 3 times in a row without finishing a job \(signal SIGSEGV\), so it was left stopped; the next run starts it again/);
      undo();
      // The next run: a new one, which stays.
      const url = await embedded.url();
      await embedded.ready();
      expect((await fetch(`${url}/presets`, { headers: { 'X-API-KEY': 'x' } })).status).toBe(200);
    } finally {
      undo();
      await embedded.dispose();
    }
  }, 60_000);

  test('an emulator installed beside it that is older than the extension (no supervisor): refused, saying so and what to do, nothing started', async () => {
    folder = photoFolder();
    const extensionDir = join(folder.root, 'extensions', 'pfc.pfc-vscode-0.1.0');
    const dist = join(extensionDir, 'node_modules', '@pfc', 'emulator', 'dist');
    mkdirSync(dist, { recursive: true });
    // An older @pfc/emulator/process: a launcher, and no SupervisedEmulator.
    writeFileSync(join(dist, 'process.js'), "export async function startEmulatorProcess() { throw new Error('an old launcher must not be used'); }\n");
    writeFileSync(join(extensionDir, 'node_modules', '@pfc', 'emulator', 'package.json'), JSON.stringify({ name: '@pfc/emulator', version: '0.0.1', type: 'module' }));
    const lines: string[] = [];
    const embedded = new EmbeddedEmulator(extensionDir, (l) => lines.push(l));
    await expect(embedded.url()).rejects.toThrow(/the local emulator at .*node_modules\/@pfc\/emulator is older than this extension: install the version that goes with it .*, or set pfc\.emulatorUrl/);
    expect(await embedded.pid()).toBeUndefined();
    await expect(embedded.ready()).resolves.toBeUndefined();
    expect(lines).toEqual([]);
    await embedded.dispose();
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
      restore('NODE_PATH', nodePath);
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
