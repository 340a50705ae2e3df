/**
 * pfc correct with direct file access to the colour-correction container
 * (--container-input-dir / --container-output-dir), against the emulator's
 * container started as a user would (`pfc emulator --input-dir --output-dir`):
 * the container's request log shows no image bytes over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, copySamples, PFC_BIN, runPfc, SAMPLE_PHOTOS, snapshot, summaryOf } from './helpers';

interface LogLine { service?: string; message?: string; route?: string; status?: number }

let child: ChildProcess;
let container: string;
let root: string;
let mounts: { in: string; out: string };
const log: LogLine[] = [];

/** Container requests per route, from the emulator's debug log. */
const routes = () => log.filter((l) => l.service === 'container' && l.message === 'request').reduce<Record<string, number>>((n, l) => ({ ...n, [l.route!]: (n[l.route!] ?? 0) + 1 }), {});

/** Wait (bounded) until the log has caught up: it comes through a pipe, after the answers. */
async function logged(expected: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Object.values(routes()).reduce((a, b) => a + b, 0) < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

beforeAll(async () => {
  root = copySamples();
  mounts = { in: join(root, 'mnt/input'), out: join(root, 'mnt/output') };
  mkdirSync(mounts.in, { recursive: true });
  mkdirSync(mounts.out, { recursive: true });
  child = spawn(process.execPath, [PFC_BIN, 'emulator', '--web-port', '0', '--bgr-port', 'off', '--input-dir', mounts.in, '--output-dir', mounts.out, '--verbose'], {
    env: cleanEnv({ PFC_LOG_LEVEL: 'debug' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    const lines = err.split('\n');
    err = lines.pop()!;
    for (const l of lines) if (l.startsWith('{')) log.push(JSON.parse(l) as LogLine);
  });
  const ready = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`pfc emulator exited ${code}`)));
  });
  container = (JSON.parse(ready) as { container: string }).container;
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(root, { recursive: true, force: true });
});

describe('pfc correct --container-input-dir --container-output-dir', () => {
  it('corrects through the mounted folders: one GET /pfc/<name> per file, no PUT /pfc, no download, folders left empty', async () => {
    const originals = snapshot(join(root, 'photos'));
    const r = await runPfc(['correct', 'photos', '--container-url', container, '--container-input-dir', 'mnt/input', '--container-output-dir', mounts.out, '--json'], { cwd: root });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain(`Using the colour-correction container at ${container} with direct file access (input ${mounts.in}, output ${mounts.out}).`);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 5, failed: 0 });
    for (const rel of SAMPLE_PHOTOS) {
      const [a, b] = await Promise.all([sharp(join(root, 'photos', rel)).metadata(), sharp(join(root, 'photos/corrected', rel)).metadata()]);
      expect([b.format, b.width, b.height], rel).toEqual([a.format, a.width, a.height]);
    }
    for (const [rel, bytes] of originals) expect(snapshot(join(root, 'photos')).get(rel), rel).toEqual(bytes);

    await logged(5);
    expect(routes()).toEqual({ 'container.correct': 5 });
    expect(log.filter((l) => l.service === 'container' && l.message === 'image corrected')).toHaveLength(5);
    expect([...readdirSync(mounts.in), ...readdirSync(mounts.out)]).toEqual([]);

    // Same results as over HTTP: the manifest calls both "container", so a rerun without the folders has nothing to do.
    const again = await runPfc(['correct', 'photos', '--container-url', container, '--json'], { cwd: root });
    expect(summaryOf(again.stdout)).toMatchObject({ corrected: 0, upToDate: 5 });
    // Control: the same log does show an upload and a download when a file goes over HTTP.
    const http = await runPfc(['correct', 'photos/objects/coffee.jpg', '--container-url', container, '--json'], { cwd: root });
    expect(summaryOf(http.stdout)).toMatchObject({ corrected: 1 });
    await logged(8);
    expect(routes()).toEqual({ 'container.correct': 6, 'container.upload': 1, 'container.output': 1 });
  });

  it('refuses misuse with exit 2 before anything is sent', async () => {
    await logged(0);
    const before = routes();
    const cases: [string[], RegExp][] = [
      [['--container-url', container, '--container-input-dir', mounts.in], /--container-input-dir and --container-output-dir go together: give both .* got only --container-input-dir/],
      [['--container-input-dir', mounts.in, '--container-output-dir', mounts.out], /direct file access .* works only with the colour-correction container alone .* not with the emulator backend/],
      [['--container-url', container, '--bgr-url', 'http://127.0.0.1:9', '--container-input-dir', mounts.in, '--container-output-dir', mounts.out], /not with the container\+bgr backend/],
      [['--container-url', container, '--container-input-dir', join(root, 'nope'), '--container-output-dir', mounts.out], /--container-input-dir .*nope is not a folder/],
      [['--container-url', container, '--container-input-dir', mounts.in, '--container-output-dir', mounts.in], /must be two folders/],
    ];
    for (const [flags, message] of cases) {
      const r = await runPfc(['correct', 'photos', ...flags, '--json'], { cwd: root });
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(routes()).toEqual(before);
  });

  it('is in pfc correct --help', async () => {
    const help = await runPfc(['correct', '--help']);
    expect(help.stdout).toMatch(/--container-input-dir DIR, --container-output-dir DIR\n\s+direct file access/);
  });
});
