/**
 * A disk that refuses writes — full (ENOSPC) or read-only (EROFS) — through the
 * built `pfc` on real file systems: a small tmpfs that the photos or results
 * fill, and a read-only bind mount. Mounting needs root (Linux): without it the
 * tests are skipped. EDQUOT, which needs quotas, is judged like ENOSPC (see
 * batch's disk-refusal test).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filesBelow, runPfc, SAMPLES, snapshot } from '../../../test/cli/helpers';

const TEST_TIMEOUT_MS = 90_000;
const mounted: string[] = [];
const made: string[] = [];

function mount(args: string[]): boolean {
  try {
    execFileSync('mount', args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A tmpfs of `kb` KiB at `dir` (created); false when this process may not mount one. */
function tmpfs(dir: string, kb: number): boolean {
  mkdirSync(dir, { recursive: true });
  if (!mount(['-t', 'tmpfs', '-o', `size=${kb}k`, 'tmpfs', dir])) return false;
  mounted.push(dir);
  return true;
}

/** A fresh folder holding a copy of the samples as `photos/`, and `full/`, a tmpfs of `kb` KiB (the photos in it when `photosInside`). */
function setUp(kb: number, photosInside = false): { dir: string; full: string; photos: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-full-'));
  made.push(dir);
  const full = join(dir, 'full');
  if (!tmpfs(full, kb)) throw new Error(`could not mount a tmpfs at ${full}`);
  const photos = join(photosInside ? full : dir, 'photos');
  cpSync(SAMPLES, photos, { recursive: true });
  return { dir, full, photos };
}

/** Room again on a tmpfs, as a user who freed some space. */
function grow(full: string): void {
  execFileSync('mount', ['-o', 'remount,size=8m', full]);
}

const CAN_MOUNT = process.platform === 'linux' && process.getuid?.() === 0 && (() => {
  const probe = mkdtempSync(join(tmpdir(), 'pfc-mount-probe-'));
  const ok = tmpfs(probe, 64);
  if (ok) execFileSync('umount', [mounted.pop()!]);
  rmSync(probe, { recursive: true, force: true });
  return ok;
})();

afterAll(() => {
  for (const dir of mounted.reverse()) execFileSync('umount', [dir]);
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The counts of the summary's `Done in …` line. */
function counts(stdout: string): Record<string, number> {
  const line = /^Done in .*$/m.exec(stdout)?.[0] ?? '';
  return Object.fromEntries([...line.matchAll(/(\d+) (corrected|failed|cancelled)/g)].map((m) => [m[2]!, Number(m[1])]));
}

/** `text` matched literally in a RegExp. */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function expectNoRawError(run: { stdout: string; stderr: string }): void {
  expect(run.stdout + run.stderr).not.toMatch(/(ENOSPC|EROFS): (no space left on device|read-only file system)/);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

describe.skipIf(!CAN_MOUNT)('pfc correct on a disk that refuses writes', () => {
  it('says which disk is full, stops starting files, and a rerun once there is room finishes the rest (--out on a full disk)', { timeout: TEST_TIMEOUT_MS }, async () => {
    // 200 KiB: room for the small results, not for chelsea.png's (333 kB), the first file of the plan.
    const { dir, full, photos } = setUp(200);
    const inputs = snapshot(photos);
    const run = await runPfc(['correct', 'photos', '--out', 'full/out', '-j', '1'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^✗ objects/chelsea\\.png: no space left on the disk holding ${literal(full)}/out/objects \\(ENOSPC\\)$`, 'm'));
    expect(run.stdout).toMatch(/^Stopped early: no space left on the disk holding .*\/out\/objects \(ENOSPC\); no further file was started, as each would fail the same way$/m);
    expect(run.stdout).toMatch(/^Once that is fixed, run the same command again to continue where it stopped\.$/m);
    expectNoRawError(run);
    const c = counts(run.stdout);
    expect(c.failed).toBe(1);
    expect(c.cancelled).toBeGreaterThan(0);
    expect(c.corrected! + c.failed! + c.cancelled!).toBe(5);
    expect(filesBelow(full).filter((f) => f.endsWith('.pfc-partial'))).toEqual([]);
    expect(snapshot(photos)).toEqual(inputs);

    grow(full);
    const again = await runPfc(['correct', 'photos', '--out', 'full/out'], { cwd: dir });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(filesBelow(join(full, 'out')).filter((f) => !f.startsWith('.'))).toEqual(['objects/chelsea.png', 'objects/coffee.jpg', 'outdoors/rocket.jpg', 'portraits/astronaut.jpg', 'portraits/grace_hopper.jpg']);
  });

  it('in place, says the originals\' disk is full and loses no photo: each is unchanged or restorable', { timeout: TEST_TIMEOUT_MS }, async () => {
    // The photos (597 kB) fill most of 800 KiB: chelsea.png's original (333 kB) cannot be kept.
    const { full, photos } = setUp(800, true);
    const before = snapshot(photos);
    const run = await runPfc(['correct', 'photos', '--in-place', '-j', '1'], { cwd: full });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^✗ objects/chelsea\\.png: no space left on the disk holding ${literal(photos)}/\\.pfc-originals/objects \\(ENOSPC\\)$`, 'm'));
    expect(run.stdout).toMatch(/^Stopped early: no space left on the disk holding /m);
    expectNoRawError(run);
    expect(snapshot(photos).get('objects/chelsea.png')).toEqual(before.get('objects/chelsea.png'));

    grow(full);
    expect((await runPfc(['correct', 'photos', '--in-place'], { cwd: full })).code).toBe(0);
    const restore = await runPfc(['restore', 'photos'], { cwd: full });
    expect(restore.code, restore.stdout + restore.stderr).toBe(0);
    const after = snapshot(photos);
    for (const [path, bytes] of before) expect(after.get(path), path).toEqual(bytes);
  });

  it('restore on a disk too full for an original says which disk, keeps every photo whole, and a rerun with room finishes', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { full, photos } = setUp(8192, true);
    const before = snapshot(photos);
    expect((await runPfc(['correct', 'photos', '--in-place'], { cwd: full })).code).toBe(0);
    const corrected = snapshot(photos);
    // Room for the lock, not for a photo.
    const { bavail, bsize } = statfsSync(full);
    writeFileSync(join(full, 'filler'), Buffer.alloc(Math.max(0, bavail * bsize - 16 * 1024)));

    const restore = await runPfc(['restore', 'photos'], { cwd: full });
    expect(restore.code, restore.stdout + restore.stderr).not.toBe(0);
    expect(restore.stdout).toMatch(new RegExp(`^Stopped early: no space left on the disk holding ${literal(photos)}(/[a-z]+)? \\(ENOSPC\\); no further file was restored`, "m"));
    expectNoRawError(restore);
    const now = snapshot(photos);
    for (const [path, bytes] of before) expect([before.get(path), corrected.get(path)], path).toContainEqual(now.get(path) ?? bytes);
    expect(filesBelow(photos).filter((f) => f.endsWith('.pfc-partial'))).toEqual([]);

    rmSync(join(full, 'filler'));
    const again = await runPfc(['restore', 'photos'], { cwd: full });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const after = snapshot(photos);
    for (const [path, bytes] of before) expect(after.get(path), path).toEqual(bytes);
  });

  it('says which folder is on a read-only file system and stops starting files', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-ro-'));
    made.push(dir);
    cpSync(SAMPLES, join(dir, 'photos'), { recursive: true });
    expect((await runPfc(['correct', 'photos', '--out', 'out'], { cwd: dir })).code).toBe(0);
    // out/objects read-only from here (a disk remounted read-only after errors); the manifest's folder stays writable.
    const objects = join(dir, 'out/objects');
    expect(mount(['--bind', objects, objects])).toBe(true);
    mounted.push(objects);
    expect(mount(['-o', 'remount,bind,ro', objects])).toBe(true);
    const run = await runPfc(['correct', 'photos', '--out', 'out', '--force', '-j', '1'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^✗ objects/chelsea\\.png: the file system holding ${literal(objects)} is read-only \\(EROFS\\)$`, 'm'));
    expect(run.stdout).toMatch(/^Stopped early: the file system holding .* is read-only \(EROFS\); no further file was started/m);
    expect(counts(run.stdout).cancelled).toBeGreaterThan(0);
    expectNoRawError(run);
  });

  it('prints the summary and says the report\'s disk is full when --report cannot be written (exit 1)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { dir, full } = setUp(40);
    const run = await runPfc(['correct', 'photos', '--out', 'out', '--report', 'full/report.html'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^Done in .*: 5 corrected, /m);
    expect(run.stderr).toContain(`pfc: the report was not written: no space left on the disk holding ${full} (ENOSPC)`);
    expectNoRawError(run);
    expect(filesBelow(full)).toEqual([]);
  });

  it('refuses a disk already full before anything is sent, leaving no lock behind (exit 2)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { dir, full } = setUp(64);
    try {
      writeFileSync(join(full, 'filler'), Buffer.alloc(128 * 1024));
    } catch {
      // full
    }
    const run = await runPfc(['correct', 'photos', '--out', 'full/out'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain(`pfc: no space left on the disk holding ${full}/out (ENOSPC); nothing was done`);
    expectNoRawError(run);
    expect(filesBelow(full)).toEqual(['filler']);
  });
});
