/**
 * Seeded property test: random messy folders (links to files and folders inside
 * and outside, existing outputs, suffix look-alikes, case-only name clashes,
 * renamed output types) and random runs of the built `pfc` (modes, reruns, two
 * at once, kills, files changed mid-run), checking after every step:
 * - no file the user had is changed or lost, unless in place, and then its
 *   bytes are kept under `.pfc-originals/`; links stay links;
 * - no output is written by two inputs in one run (or two runs at once);
 * - every file reported corrected is in its manifest with the output's hash;
 * - no temporary file or lock is left once a run ends normally.
 *
 * `npm test` runs the regression seeds and two more; PFC_PROPERTY_SEEDS=N runs N
 * more (a failing seed is printed; add it to REGRESSION_SEEDS).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulator, jsonLines, type PfcRun, SAMPLES, spawnPfc } from './helpers';

/** Seeds that once failed (kept as regression cases). */
const REGRESSION_SEEDS: number[] = [];
const EXTRA_SEEDS = Number(process.env.PFC_PROPERTY_SEEDS ?? 2);
const SOURCES = [join(SAMPLES, 'objects/coffee.jpg'), join(SAMPLES, 'outdoors/rocket.jpg'), join(SAMPLES, 'objects/chelsea.png')];
const NAMES = ['a', 'A', 'b', 'photo', 'x'];
const EXTS = ['.jpg', '.JPG', '.png', '.png.jpg', '_pfc.jpg', '.jpeg'];
const MODES: Record<string, string[]> = { out: ['-o', 'out'], default: [], suffix: ['--suffix', '_pfc'], 'in-place': ['--in-place'] };

/** mulberry32: small, seedable, good enough to pick cases. */
function random(seed: number): { next: () => number; pick: <T>(xs: readonly T[]) => T; chance: (p: number) => boolean } {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: (xs) => xs[Math.floor(next() * xs.length)]!, chance: (p) => next() < p };
}

/** The files the user wrote (path → bytes) and links (path → target), as the test last left them. */
interface World {
  dir: string;
  user: Map<string, Buffer>;
  links: Map<string, string>;
  inPlaceUsed: boolean;
}

function write(world: World, rel: string, source: string): void {
  const path = join(world.dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(source, path);
  world.user.set(path, readFileSync(path));
}

function link(world: World, rel: string, target: string): void {
  const path = join(world.dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path);
  world.links.set(path, target);
}

/** A random messy tree: `in/` to correct, `outside/` beside it, maybe an `out/` with the user's own files. */
function messyTree(seed: number): World {
  const r = random(seed);
  const world: World = { dir: mkdtempSync(join(tmpdir(), `pfc-messy-${seed}-`)), user: new Map(), links: new Map(), inPlaceUsed: false };
  const count = 4 + Math.floor(r.next() * 5);
  for (let i = 0; i < count; i++) {
    const rel = `in/${r.chance(0.3) ? 'sub/' : ''}${r.pick(NAMES)}${r.pick(EXTS)}`;
    // Content is picked apart from the name: a PNG named .jpg is a renamed output type.
    if (!existsSync(join(world.dir, rel))) write(world, rel, r.pick(SOURCES));
  }
  write(world, 'outside/e.jpg', r.pick(SOURCES));
  if (r.chance(0.5)) link(world, 'in/link.jpg', readdirSync(join(world.dir, 'in')).find((n) => n !== 'sub') ?? 'missing.jpg');
  if (r.chance(0.5)) link(world, 'in/ext.jpg', '../outside/e.jpg');
  if (r.chance(0.3)) link(world, 'in/outdir', '../outside');
  if (r.chance(0.3)) link(world, 'in/subdir', 'sub');
  // Files already where results would go.
  if (r.chance(0.6)) write(world, `out/${r.pick(NAMES)}.jpg`, r.pick(SOURCES));
  if (r.chance(0.4)) write(world, `in/corrected/${r.pick(NAMES)}${r.pick(['.jpg', '.png'])}`, r.pick(SOURCES));
  return world;
}

type Step = { kind: 'run' | 'twin' | 'kill' | 'midrun'; mode: string; params: string[] } | { kind: 'mutate' };

function randomSteps(seed: number): Step[] {
  const r = random(seed * 7919);
  const steps: Step[] = [];
  const n = 2 + Math.floor(r.next() * 3);
  for (let i = 0; i < n; i++) {
    const kind = r.pick(['run', 'run', 'twin', 'kill', 'midrun', 'mutate'] as const);
    if (kind === 'mutate') {
      steps.push({ kind });
      continue;
    }
    const step = { kind, mode: r.pick(Object.keys(MODES)), params: r.chance(0.5) ? ['-p', 'outputType=jpg'] : [] };
    steps.push(step);
    // A killed run is always followed by the same run, which must clean up after it.
    if (kind === 'kill') steps.push({ ...step, kind: 'run' });
  }
  const last = steps[steps.length - 1]!;
  if (last.kind === 'kill' || last.kind === 'mutate') steps.push({ kind: 'run', mode: 'out', params: [] });
  return steps;
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
}

/** Bytes kept by in-place runs anywhere in the tree. */
function keptOriginals(dir: string): Set<string> {
  return new Set(allFiles(dir).filter((f) => f.includes('/.pfc-originals/')).map((f) => sha(readFileSync(f))));
}

async function untilStarted(run: ReturnType<typeof spawnPfc>): Promise<void> {
  for (let waited = 0; !run.stdout().includes('"type":"start"'); waited += 20) {
    if (waited > 60_000 || run.child.exitCode !== null) return;
    await new Promise((res) => setTimeout(res, 20));
  }
}

describe('pfc correct on random messy folders (seeded)', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator({ processingMs: 150 });
  });
  afterAll(() => emu.close());

  const seeds = [...REGRESSION_SEEDS, ...Array.from({ length: EXTRA_SEEDS }, (_, i) => 1000 + i)];
  for (const seed of seeds) it(`seed ${seed}: no user file lost, one input per output, manifest complete, nothing left behind`, { timeout: 600_000 }, async () => {
    const world = messyTree(seed);
    const steps = randomSteps(seed);
    const r = random(seed * 31);
    const argsOf = (s: Extract<Step, { mode: string }>) => ['correct', 'in', ...MODES[s.mode]!, ...s.params, ...emu.webArgs, '--yes', '--json', '-j', '2', '-p', 'cache=false'];
    for (const [i, step] of steps.entries()) {
      const where = `seed ${seed}, step ${i} ${JSON.stringify(step)} in ${world.dir}`;
      if (step.kind === 'mutate') {
        const target = r.pick([...world.user.keys()].filter((p) => p.includes('/in/')));
        if (target) write(world, relative(world.dir, target), r.pick(SOURCES));
        continue;
      }
      if (step.mode === 'in-place') world.inPlaceUsed = true;
      const runs: PfcRun[] = [];
      let killed = false;
      if (step.kind === 'run') runs.push(await spawnPfc(argsOf(step), { cwd: world.dir }).done);
      else if (step.kind === 'twin') {
        const both = [spawnPfc(argsOf(step), { cwd: world.dir }), spawnPfc([...argsOf(step), ...(r.chance(0.5) ? ['--wait'] : [])], { cwd: world.dir })];
        runs.push(...(await Promise.all(both.map((b) => b.done))));
      } else if (step.kind === 'kill') {
        const run = spawnPfc(argsOf(step), { cwd: world.dir });
        await untilStarted(run);
        run.child.kill('SIGKILL');
        runs.push(await run.done);
        killed = true;
      } else {
        const run = spawnPfc(argsOf(step), { cwd: world.dir });
        await untilStarted(run);
        // The user changes a photo while the run is on.
        const target = r.pick([...world.user.keys()].filter((p) => p.includes('/in/')));
        if (target) write(world, relative(world.dir, target), r.pick(SOURCES));
        runs.push(await run.done);
      }
      for (const run of runs) expect([0, 1, 2], `${where}\n${run.stderr}`).toContain(run.code ?? (killed ? 0 : -1));
      checkUserFiles(world, where);
      checkOneInputPerOutput(runs, where);
      checkManifests(runs, where);
      if (!killed) checkNothingLeft(world.dir, where);
    }
  });
});

/** Every user file has its bytes, or (in place) they are kept under .pfc-originals; links are still links. */
function checkUserFiles(world: World, where: string): void {
  const kept = world.inPlaceUsed ? keptOriginals(world.dir) : new Set<string>();
  for (const [path, bytes] of world.user) {
    const now = existsSync(path) && lstatSync(path).isFile() ? readFileSync(path) : undefined;
    if (now?.equals(bytes)) continue;
    expect(world.inPlaceUsed && kept.has(sha(bytes)), `${where}: ${path} changed or lost`).toBe(true);
  }
  for (const [path, target] of world.links) {
    expect(lstatSync(path).isSymbolicLink() && readlinkSync(path) === target, `${where}: link ${path} replaced`).toBe(true);
  }
}

function corrected(run: PfcRun): Array<Record<string, unknown>> {
  return jsonLines(run.stdout.slice(0, run.stdout.lastIndexOf('\n') + 1)).filter((e) => e.type === 'corrected');
}

/** In one run, and in two runs at once, no output (compared case-insensitively) comes from two inputs. */
function checkOneInputPerOutput(runs: PfcRun[], where: string): void {
  const byOutput = new Map<string, string>();
  for (const e of runs.flatMap(corrected)) {
    const key = String(e.output).toLowerCase();
    const before = byOutput.get(key);
    expect(before === undefined || before === e.input, `${where}: ${e.output} written from ${before} and ${String(e.input)}`).toBe(true);
    byOutput.set(key, String(e.input));
  }
  const all = runs.flatMap(corrected).map((e) => String(e.input));
  // Two runs at once never correct one file twice.
  expect(new Set(all).size, `${where}: a file corrected twice`).toBe(all.length);
}

/** Every file reported corrected is in the manifest of its output root. */
function checkManifests(runs: PfcRun[], where: string): void {
  for (const run of runs) {
    const plan = jsonLines(run.stdout.split('\n')[0] ?? '{}').find((e) => e.type === 'plan');
    const roots = (plan?.outputRoots as string[] | undefined) ?? [];
    for (const e of corrected(run)) {
      const output = String(e.output);
      const root = roots.filter((r) => output.startsWith(`${r}/`)).sort((a, b) => b.length - a.length)[0];
      expect(root, `${where}: no output root for ${output}`).toBeDefined();
      const manifest = join(root!, '.pfc-manifest.jsonl');
      const entries = jsonLines(readFileSync(manifest, 'utf8')).filter((l) => l.t === 'd');
      expect(entries.some((l) => l.o === relative(root!, output)), `${where}: ${output} missing from ${manifest}`).toBe(true);
    }
  }
}

function checkNothingLeft(dir: string, where: string): void {
  const left = allFiles(dir).filter((f) => f.endsWith('.pfc-partial') || f.includes('.pfc-lock'));
  expect(left, `${where}: left behind`).toEqual([]);
}
