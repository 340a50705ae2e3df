/**
 * A user's first minutes, as an audit met them: the walkthrough's "Use the
 * Local Emulator" then "Set API Key", Restore Originals on a folder never
 * corrected in place, Retry Failed before any run, and the tags warning of
 * an in-place run. Driven through the commands of the fake VS Code; checked
 * where the user sees it (messages, buttons, settings) and where the files
 * went (which service was sent them, the files on disk).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { SECRET_KEYS } from '../src/keys';
import type { LastRun, RunCounts } from '../src/last-run';
import { summaryMessage } from '../src/summary';
import { ENGLISH_L10N } from './fake-vscode';
import { activateOnFake, emulatorForTests, photoFolder, tinyPhotoTree } from './helpers';
import { sent, sha } from './promised';

const emu = emulatorForTests({ engine: {}, processingMs: 0 });
/** What a test opened (services, the extension, folders), closed after it, last first. */
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A fresh `photos/` folder of the samples, removed after the test. */
function photos(): string {
  const folder = photoFolder();
  closers.push(folder.cleanup);
  return folder.photos;
}

const OFFER = /^Perfectly Clear: API key saved, but corrections still run on the local emulator/;
const KEY = 'sk-first-minutes-998877';

describe('"Use the Local Emulator", then "Set API Key"', () => {
  test('the key offers the hosted service; accepting it, the next run is corrected by the hosted service', async () => {
    const dir = photos();
    const hosted = await startEmulator({ host: '127.0.0.1', engine: {}, processingMs: 0, apiKeys: [KEY] });
    closers.push(() => hosted.close());
    // The local emulator at an address (not the embedded one), so the test sees which of the two was sent the photos.
    const { fake, commands } = activateOnFake({ settings: { webApiUrl: hosted.web, emulatorUrl: emu().web, confirmAboveFiles: 0 } });
    closers.push(() => commands.dispose());
    await fake.run('pfc.useEmulator');
    expect(fake.settings.backend).toBe('emulator');
    fake.inputs.push(KEY);
    fake.answers.push({ match: OFFER, answer: 'Use the hosted service' });
    await fake.run('pfc.setApiKey');
    const offers = fake.shown.filter((m) => OFFER.test(m.text));
    expect(offers).toEqual([{ kind: 'info', text: expect.stringMatching(/your settings set pfc\.backend to emulator/), actions: ['Use the hosted service'], modal: false }]);
    expect(fake.settingUpdates.at(-1)).toEqual({ key: 'backend', value: 'auto', target: 1 });
    const local = JSON.stringify(sent(emu()));
    const last = (await fake.run('pfc.correctFolder', fake.uri(dir))) as LastRun;
    expect(last.summary.corrected).toBe(5);
    expect(fake.output.some((l) => l.startsWith(`run: ${dir} `) && l.includes(`on the hosted Web API at ${hosted.web}`))).toBe(true);
    expect(Object.keys(sent(hosted)).length).toBeGreaterThan(0);
    expect(JSON.stringify(sent(emu()))).toBe(local);
  });

  test('set in the workspace: the offer says so, and accepting sets the workspace\'s value back to auto', async () => {
    const { fake } = activateOnFake({ workspaceSettings: { backend: 'emulator' } });
    fake.inputs.push(KEY);
    fake.answers.push({ match: OFFER, answer: 'Use the hosted service' });
    await fake.run('pfc.setApiKey');
    expect(fake.shown.filter((m) => OFFER.test(m.text)).map((m) => m.text)).toEqual([expect.stringMatching(/this workspace's settings set pfc\.backend to emulator/)]);
    expect(fake.settingUpdates).toEqual([{ key: 'backend', value: 'auto', target: 2 }]);
    expect(fake.workspaceSettings.backend).toBe('auto');
    expect('backend' in fake.settings).toBe(false);
  });

  test('with backend auto, a key asks nothing more: auto already picks the hosted service', async () => {
    const { fake } = activateOnFake();
    fake.inputs.push(KEY);
    await fake.run('pfc.setApiKey');
    expect(fake.shown).toEqual([]);
  });

  test('a workspace value of pfc.backend wins: the confirmation says so instead of claiming the emulator runs', async () => {
    const { fake } = activateOnFake({ workspaceSettings: { backend: 'hosted' } });
    await fake.run('pfc.useEmulator');
    expect(fake.settings.backend).toBe('emulator');
    expect(fake.shown).toEqual([{
      kind: 'info', modal: false, actions: [],
      text: expect.stringMatching(/saved in your user settings, but this workspace's settings set pfc\.backend to hosted, which wins here/),
    }]);
    expect(fake.shown[0]!.text).not.toMatch(/now run on the local emulator/);
  });

  test('the emulator notice with a key stored: it says the key is not used (not that none is set), and its button goes back to auto', async () => {
    const root = await tinyPhotoTree(2, 'pfc-vscode-notice-');
    closers.push(() => rmSync(root, { recursive: true, force: true }));
    // The embedded emulator (no pfc.emulatorUrl): the notice is about it.
    const { fake, commands } = activateOnFake({ settings: { backend: 'emulator' } });
    closers.push(() => commands.dispose());
    await fake.secrets.store(SECRET_KEYS.apiKey, KEY);
    fake.answers.push({ match: /results come from the local emulator/, answer: 'Use the hosted service' });
    const last = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
    expect(last.summary.corrected).toBe(2);
    const notice = fake.shown.filter((m) => /results come from the local emulator/.test(m.text));
    expect(notice).toHaveLength(1);
    expect(notice[0]!.text).not.toMatch(/no API key/);
    expect(notice[0]).toMatchObject({ kind: 'info', text: expect.stringMatching(/pfc\.backend is set to emulator, so your API key is not used/), actions: ['Use the hosted service'] });
    // The notice is not awaited by the run: its button's effect may come just after the summary.
    await vi.waitFor(() => expect(fake.settings.backend).toBe('auto'));
  }, 60_000);
});

describe('Restore Originals', () => {
  test('a folder never corrected in place: no question, one message that there is nothing to restore', async () => {
    const dir = photos();
    const before = sha(join(dir, 'portraits', 'astronaut.jpg'));
    const { fake } = activateOnFake();
    expect(await fake.run('pfc.restoreOriginals', fake.uri(dir))).toBeUndefined();
    expect(fake.shown).toEqual([{ kind: 'info', modal: false, actions: [], text: 'Perfectly Clear: nothing to restore: photos was never corrected in place (only in-place runs keep originals).' }]);
    expect(sha(join(dir, 'portraits', 'astronaut.jpg'))).toBe(before);
  });

  test('a folder corrected in place, and a folder below it: the question as before, and the originals come back', async () => {
    const dir = photos();
    const original = sha(join(dir, 'portraits', 'astronaut.jpg'));
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': 'in-place' } });
    expect(((await fake.run('pfc.correctFolder', fake.uri(dir))) as LastRun).summary.corrected).toBe(5);
    expect(sha(join(dir, 'portraits', 'astronaut.jpg'))).not.toBe(original);
    // A folder below: its originals are kept in the corrected folder's .pfc-originals, above it.
    fake.answers.push({ match: /^Restore the originals/, answer: 'Restore' });
    const from = fake.shown.length;
    await fake.run('pfc.restoreOriginals', fake.uri(join(dir, 'portraits')));
    expect(fake.shown.slice(from)).toEqual([
      { kind: 'warning', modal: true, actions: ['Restore'], text: expect.stringMatching(/^Restore the originals of every file in .*portraits\? The corrected versions are replaced/) },
      { kind: 'info', modal: false, actions: [], text: 'Perfectly Clear: restored 2 originals.' },
    ]);
    expect(sha(join(dir, 'portraits', 'astronaut.jpg'))).toBe(original);
  });
});

test('Retry Failed before any run: says there is no run yet', async () => {
  const { fake } = activateOnFake();
  await fake.run('pfc.retryFailed');
  expect(fake.shown).toEqual([{ kind: 'info', modal: false, actions: [], text: 'Perfectly Clear: no run yet in this workspace, so there are no failed files to retry.' }]);
});

describe('the tags warning of an in-place run, per platform', () => {
  const counts: RunCounts = {
    corrected: 3, skipped: 0, upToDate: 0, excluded: 0, failed: 0, cancelled: 0, bytesIn: 0, bytesOut: 0, durationMs: 1200, interrupted: false, outputRoots: [], attributesNotKept: true,
  };
  const real = { platform: process.platform, arch: process.arch };
  afterEach(() => {
    Object.defineProperty(process, 'platform', { value: real.platform });
    Object.defineProperty(process, 'arch', { value: real.arch });
  });
  const on = (platform: string, arch: string): string => {
    Object.defineProperty(process, 'platform', { value: platform });
    Object.defineProperty(process, 'arch', { value: arch });
    return summaryMessage(counts, ENGLISH_L10N).text;
  };

  test('the Linux x64 package is advised on Linux x64 only, where it exists; elsewhere the pfc command-line tools', () => {
    expect(on('linux', 'x64')).toMatch(/install the Linux x64 package of the extension or the pfc command-line tools\)/);
    for (const [platform, arch] of [['darwin', 'arm64'], ['darwin', 'x64'], ['win32', 'x64'], ['linux', 'arm64']] as const) {
      const text = on(platform, arch);
      expect(text, `${platform}-${arch}`).toMatch(/install the pfc command-line tools\)/);
      expect(text, `${platform}-${arch}`).not.toMatch(/Linux/);
    }
  });

  test('it never claims tags were lost (the run cannot read them): the installation cannot keep them', () => {
    for (const [platform, arch] of [['linux', 'x64'], ['darwin', 'arm64']] as const) {
      const text = on(platform, arch);
      expect(text).toMatch(/this installation cannot keep the Finder tags, ratings and comments of the photos it replaces/);
      expect(text).not.toMatch(/were not kept/);
    }
  });
});

describe('an installation without the local emulator (every platform but Linux x64 gets the universal package)', () => {
  /** The extension installed alone: no @pfc/emulator beside it, nothing on NODE_PATH. */
  function alone(settings: Record<string, unknown>) {
    const folder = photoFolder();
    closers.push(folder.cleanup);
    const nodePath = process.env.NODE_PATH;
    process.env.NODE_PATH = '';
    closers.push(() => (nodePath === undefined ? delete process.env.NODE_PATH : (process.env.NODE_PATH = nodePath)));
    const { fake, commands } = activateOnFake({ settings, extensionDir: join(folder.root, 'extensions', 'pfc.pfc-vscode-0.1.0') });
    closers.push(() => commands.dispose());
    return { fake, photos: folder.photos };
  }

  test('"Use the Local Emulator" says there is none and leaves pfc.backend as it was', async () => {
    const { fake } = alone({});
    await fake.run('pfc.useEmulator');
    expect(fake.settings.backend).toBeUndefined();
    expect(fake.settingUpdates).toEqual([]);
    expect(fake.shown).toEqual([expect.objectContaining({ kind: 'warning', text: expect.stringMatching(/^Perfectly Clear: this installation has no local emulator, .*pfc\.backend is left as it was/) })]);
  });

  test('the missing-key question\'s "Use Local Emulator" is answered as any run without the emulator, with no search paths in a message', async () => {
    const { fake, photos: dir } = alone({ backend: 'hosted' });
    fake.answers.push({ match: /needs an API key/, answer: 'Use Local Emulator' });
    await fake.run('pfc.correctFolder', fake.uri(dir));
    const offer = fake.shown.find((m) => /no local emulator/.test(m.text));
    expect(offer).toMatchObject({ modal: true });
    expect(fake.shown.filter((m) => /node_modules/.test(m.text))).toEqual([]);
    expect(fake.shown.filter((m) => m.kind === 'error')).toEqual([]);
  });
});
