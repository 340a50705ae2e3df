/**
 * The fuzzer's short run (the benchmark sends ≥ 10,000): about a thousand
 * malformed requests to the three emulated APIs plus every saved regression
 * case, against the built emulator in its own process (under strace when
 * installed). Also checks that the file-access checks themselves can fail.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '@pfc/emulator';
import { send } from '../../bench/fuzz/http.mjs';
import { deserializeCase, REGRESSIONS_FILE, runFuzz, type SerializedCase } from '../../bench/fuzz/run.mjs';
import { makeSandbox, straceViolations } from '../../bench/fuzz/sandbox.mjs';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'pfc-fuzz-test-'));
  dirs.push(d);
  return d;
};

describe('fuzzer (short run)', () => {
  it('1,000+ malformed requests: no crash, only documented answers, no file touched outside the emulator folders', async () => {
    const report = await runFuzz({ seed: 20261122, count: 340 });
    expect(report.crashes).toBe(0);
    expect(report.failures).toEqual([]);
    expect(report.sandbox).toEqual([]);
    expect(report.sent).toBeGreaterThanOrEqual(1020 + report.regressions);
    // Requests that went unanswered were only those meant to be cut off.
    expect(report.noAnswer.unexpected ?? 0).toBe(0);
    // The cases reach the handlers, not only the router: successes and rule violations on every API.
    for (const api of ['web', 'container', 'bgr']) {
      const statuses = report.byApi[api]!.statuses;
      expect(statuses['200'], api).toBeGreaterThan(0);
      expect(statuses['400'], api).toBeGreaterThan(0);
    }
    if (report.strace) expect(report.straceWritesInside).toBeGreaterThan(0);
  }, 180_000);
});

describe('the file-access checks can fail', () => {
  it('flags writes outside the data folder and reads outside the program and system folders', () => {
    const dir = tmp();
    const dataDir = join(dir, 'emulator');
    const log = join(dir, 'strace.log');
    writeFileSync(
      log,
      [
        `101 openat(AT_FDCWD, "${dataDir}/uploads/a", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 21`,
        `101 openat(AT_FDCWD, "${dir}/canary.txt", O_RDONLY|O_CLOEXEC) = 22`,
        // Relative to the emulator's working folder (<data>/cwd): two levels up is outside.
        `101 openat(AT_FDCWD, "../../outside.jpg", O_WRONLY|O_CREAT|O_CLOEXEC, 0666) = -1 EACCES (Permission denied)`,
        `101 rename("${dataDir}/tmp/x", "${dir}/escaped") = 0`,
        '101 openat(AT_FDCWD, "/usr/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY|O_CLOEXEC) = 3',
      ].join('\n'),
    );
    const { violations, writesInside } = straceViolations(log, { dataDir, cwd: join(dataDir, 'cwd') });
    // The upload and the rename's source.
    expect(writesInside).toBe(2);
    expect(violations).toEqual([`read openat ${dir}/canary.txt`, `write openat ${dir}/outside.jpg`, `write rename ${dir}/escaped`]);
  });

  it('notices a changed canary and a new file beside the data folder', () => {
    const dir = tmp();
    const box = makeSandbox(dir, 1);
    expect(box.check()).toEqual([]);
    writeFileSync(join(dir, 'canary.txt'), 'changed');
    writeFileSync(join(dir, 'dropped.txt'), 'x');
    expect(box.check()).toEqual([`canary changed: ${join(dir, 'canary.txt')}`, `new file outside the data folder: ${join(dir, 'dropped.txt')}`]);
  });
});

describe('saved regression cases', () => {
  const cases = (JSON.parse(readFileSync(REGRESSIONS_FILE, 'utf8')) as { cases: SerializedCase[] }).cases;
  const open = cases.filter((c) => c.open);
  const fixed = cases.filter((c) => !c.open);

  /** Replay one saved case on a fresh emulator (BGR activated); the answer must be a documented one. */
  const replay = async (c: SerializedCase): Promise<void> => {
    const emu = await startEmulator({ dataDir: join(tmp(), 'emulator'), bgr: { licenseKey: 'L' } });
    try {
      const base = c.api === 'web' ? new URL(emu.web).origin : (emu.urls as Record<string, string>)[c.api]!;
      if (c.api === 'bgr') await fetch(`${base}/Authorize/L`);
      const outcome = await send(base, deserializeCase(c));
      expect([200, 400, 404, 422]).toContain(outcome.status);
    } finally {
      await emu.close();
    }
  };

  it('at least one case is saved', () => expect(cases.length).toBeGreaterThan(0));
  if (fixed.length > 0) it.each(fixed.map((c) => [c.note ?? `${c.api} ${c.method} ${c.path}`, c] as const))('%s', (_name, c) => replay(c));
  // Reported to their owner and not fixed yet: these fail today (vitest `fails`)
  // and start passing once fixed — then drop the case's `open` mark in regressions.json.
  if (open.length > 0) it.fails.each(open.map((c) => [c.open!, c] as const))('%s', (_name, c) => replay(c));
});
