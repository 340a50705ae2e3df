/**
 * The service makes a file wait (a 503 with `Retry-After`): the progress
 * notification says so, counting down, and the run still corrects every
 * file; the Output channel has a line for the wait. Through the fake VS Code
 * against the emulator, whose injected `Retry-After` holds (a request sent
 * before it has passed would be refused again, counted as `earlyRetry`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { LastRun } from '../src/last-run';
import { ProgressModel } from '../src/progress';
import { activateOnFake, emulatorForTests, photoFolder, SAMPLE_FILES } from './helpers';

const emu = emulatorForTests();
let folder: ReturnType<typeof photoFolder>;

afterEach(() => {
  folder?.cleanup();
  emu().setFaults({});
});

test('a 503 with Retry-After 2 s: the notification counts the wait down, then every file is corrected', async () => {
  folder = photoFolder();
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, concurrency: 1 } });
  fake.pick = () => 'Universal';
  emu().setFaults({ routes: { upload: { rate503: 1, count: 1, retryAfterSeconds: 2 } } });

  const last = (await fake.run('pfc.correctFolder', fake.uri(folder.photos))) as LastRun;

  expect(last.summary.corrected).toBe(SAMPLE_FILES.length);
  for (const rel of SAMPLE_FILES) expect(existsSync(join(folder.photos, 'corrected', rel)), rel).toBe(true);
  const waits = fake.progress.map((p) => p.message ?? '').filter((m) => m.includes('Service unavailable'));
  // "0/5 · objects/chelsea.png · Service unavailable — retrying in 2 s (attempt 2 of 5)", then 1 s (3 s first, with the client's spread).
  const seconds = waits.map((m) => /^0\/5 · objects\/chelsea\.png · Service unavailable — retrying in (\d) s \(attempt 2 of \d\)$/.exec(m)?.[1]);
  expect(seconds.length, waits.join('\n')).toBeGreaterThanOrEqual(2);
  expect(seconds).toEqual([...seconds].sort().reverse());
  expect(seconds.every((s) => s !== undefined && Number(s) <= 3)).toBe(true);
  // The wait is over before the file is: a later message no longer shows it.
  expect(fake.progress.at(-1)?.message ?? '').not.toMatch(/retrying/);
  expect(fake.output.some((l) => /^waiting .+: Service unavailable — retrying in \d s/.test(l)), fake.output.join('\n')).toBe(true);
  expect(emu().stats().faults).toMatchObject({ '503': 1, earlyRetry: 0 });
}, 60_000);

test("another file's wait is named in the notification; the file shown is not named twice", () => {
  const model = new ProgressModel(3);
  model.apply({ type: 'start', input: '/p/a.jpg', rel: 'a.jpg', output: '/o/a.jpg', bytes: 1, reason: 'new' });
  expect(model.message({ rel: 'a.jpg', text: 'Service busy (rate limited) — retrying in 9 s' })).toBe('0/3 · a.jpg · Service busy (rate limited) — retrying in 9 s');
  expect(model.message({ rel: 'b.jpg', text: 'Service unavailable — retrying in 2 s' })).toBe('0/3 · a.jpg · b.jpg: Service unavailable — retrying in 2 s');
  expect(model.message()).toBe('0/3 · a.jpg');
});
