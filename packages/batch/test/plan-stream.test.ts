/**
 * A streamed plan: the run starts correcting while the tree is still being
 * planned, the planner runs at most a bounded number of files ahead of the
 * workers, and the total is known (by name) before any file is read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { CorrectionResult, CorrectOptions, FileInput, PfcParams } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import { planStream, runBatch, type BatchEvent, type PlannedFile, type StreamedPlan } from '../src/index';
import { PLAN_AHEAD } from '../src/plan-feed';
import { FakeBackend, jpegBytes, tempDir } from './helpers';

/** A tree of `folders` folders of `each` small JPEGs, plus one text file per folder (left out by content). */
function tree(folders: number, each: number): string {
  const root = tempDir();
  const jpeg = jpegBytes(64, 48);
  for (let d = 0; d < folders; d++) {
    const dir = join(root, `f${String(d).padStart(3, '0')}`);
    mkdirSync(dir);
    for (let i = 0; i < each; i++) writeFileSync(join(dir, `p${String(i).padStart(3, '0')}.jpg`), jpeg);
    writeFileSync(join(dir, 'notes.txt'), 'not an image');
  }
  return root;
}

/** The plan with its files counted as the planner hands them on, and whether planning has ended. */
function watched(plan: StreamedPlan): { plan: StreamedPlan; progress: { planned: number; ended: boolean } } {
  const progress = { planned: 0, ended: false };
  const inner = plan.files;
  async function* counted(): AsyncGenerator<PlannedFile> {
    for await (const f of inner) {
      progress.planned++;
      yield f;
    }
    progress.ended = true;
  }
  return { plan: { ...plan, files: counted() }, progress };
}

/** A backend whose calls wait for `open()`; `first` records the planner's progress at its first call. */
class GatedBackend extends FakeBackend {
  first: { planned: number; ended: boolean } | undefined;
  private gate: Promise<void>;
  open!: () => void;
  constructor(private readonly progress: { planned: number; ended: boolean }, gated: boolean) {
    super();
    this.gate = gated ? new Promise((r) => (this.open = r)) : Promise.resolve();
  }

  override async correct(input: FileInput, params: PfcParams, options?: CorrectOptions): Promise<CorrectionResult> {
    this.first ??= { ...this.progress };
    await this.gate;
    return super.correct(input, params, options);
  }
}

describe('a streamed plan', () => {
  it('starts the first job before the planning of a large tree ends, with the true total known from the start', async () => {
    const root = tree(20, 20);
    const { plan, progress } = watched(await planStream({ inputs: [root], backend: 'web' }));
    // Counted by name: the 400 photos and the 20 text files the planner will judge (and leave out).
    expect(plan.expectedFiles).toBe(420);
    const backend = new GatedBackend(progress, false);
    const events: BatchEvent[] = [];
    const summary = await runBatch(plan, { backend, concurrency: 2, keepResults: false, onEvent: (e) => events.push(e) });
    expect(backend.first).toBeDefined();
    expect(backend.first!.ended).toBe(false);
    expect(backend.first!.planned).toBeLessThan(400);
    expect(summary.corrected).toBe(400);
    expect(events[0]).toMatchObject({ type: 'plan', files: 420 });
    expect(events.find((e) => e.type === 'planned')).toEqual({ type: 'planned', files: 400, bytes: 400 * jpegBytes(64, 48).length });
    // Paths left out are still all reported, as planning finds them.
    expect(summary.excluded).toBe(20);
    expect(events.filter((e) => e.type === 'skipped' && e.code === 'unsupported')).toHaveLength(20);
  });

  it('plans at most its bound ahead of the files in hand', async () => {
    const root = tree(3, 150);
    const { plan, progress } = watched(await planStream({ inputs: [root], backend: 'web' }));
    const backend = new GatedBackend(progress, true);
    const run = runBatch(plan, { backend, concurrency: 2, keepResults: false });
    while (!backend.first) await new Promise<void>((r) => setImmediate(r));
    // Wait (by turns of the event loop, not by time) until the planner stops moving while the jobs are held.
    let last = -1;
    for (let still = 0; still < 50; ) {
      await new Promise<void>((r) => setImmediate(r));
      still = progress.planned === last ? still + 1 : 0;
      last = progress.planned;
    }
    // Two files in hand, at most the bound waiting; 450 in the tree.
    expect(progress.planned).toBeLessThanOrEqual(2 + PLAN_AHEAD);
    expect(progress.planned).toBeGreaterThanOrEqual(PLAN_AHEAD);
    expect(progress.ended).toBe(false);
    backend.open();
    const summary = await run;
    expect(summary.corrected).toBe(450);
  });

  it('cancelled mid-plan: counts the files not planned as cancelled and stops planning', async () => {
    const root = tree(6, 100);
    const { plan, progress } = watched(await planStream({ inputs: [root], backend: 'web' }));
    const backend = new GatedBackend(progress, true);
    const ctrl = new AbortController();
    const run = runBatch(plan, { backend, concurrency: 2, keepResults: false, signal: ctrl.signal });
    while (!backend.first) await new Promise<void>((r) => setImmediate(r));
    ctrl.abort();
    backend.open();
    const summary = await run;
    expect(progress.ended).toBe(false);
    // The files never planned are counted by name (a text file not reached counts as cancelled, one reached as left out).
    expect(summary.corrected + summary.cancelled + summary.excluded).toBe(606);
    expect(summary.cancelled).toBeGreaterThan(300);
  });
});

describe('a streamed plan with files left out', () => {
  it('ends when planning leaves out most files counted by name: fewer files than workers waiting for a turn', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'x.jpg'), jpegBytes(64, 48));
    for (let i = 0; i < 5; i++) writeFileSync(join(root, `notes${i}.txt`), 'not an image');
    const plan = await planStream({ inputs: [root], backend: 'web' });
    expect(plan.expectedFiles).toBe(6);
    // Job slots: the workers beyond the first four wait for a turn that no planned file takes.
    const summary = await runBatch(plan, { backend: new FakeBackend({ jobSlots: true }), concurrency: 4, keepResults: false });
    expect(summary.corrected).toBe(1);
    expect(summary.excluded).toBe(5);
  });

  it("leaves out the host's exclusions by name: not counted, never read, listed with the host's reason", async () => {
    const root = tree(3, 2);
    // Not an image: had it been read, it would be left out as unsupported.
    writeFileSync(join(root, 'f000', 'draft.jpg'), 'not an image');
    const leaveOut = (path: string, isFolder: boolean): string | undefined =>
      isFolder && path === join(root, 'f001') ? 'excluded by files.exclude' : !isFolder && path.endsWith('draft.jpg') ? 'excluded by search.exclude' : undefined;
    const plan = await planStream({ inputs: [root], backend: 'web', leaveOut });
    // f000 and f002: two photos and a text file each.
    expect(plan.expectedFiles).toBe(6);
    const summary = await runBatch(plan, { backend: new FakeBackend(), concurrency: 2, keepResults: false });
    expect(summary.corrected).toBe(4);
    expect(plan.leftOut.kept).toContainEqual({ path: join(root, 'f001'), code: 'hidden', reason: 'excluded by files.exclude' });
    expect(plan.leftOut.kept.filter((s) => s.path.endsWith('draft.jpg'))).toEqual([{ path: join(root, 'f000', 'draft.jpg'), code: 'hidden', reason: 'excluded by search.exclude' }]);
    expect(plan.leftOut.kept.some((s) => s.path.startsWith(`${join(root, 'f001')}${sep}`))).toBe(false);
  });
});

describe('units of a streamed plan', () => {
  it('settles folders whose outputs meet case-folded together, even when planned apart', async () => {
    const root = tempDir();
    const jpeg = jpegBytes(64, 48);
    for (const dir of ['A', 'a', 'b']) {
      mkdirSync(join(root, dir));
      writeFileSync(join(root, dir, 'x.jpg'), jpeg);
    }
    // One --out for both inputs: out/A/x.jpg and out/a/x.jpg are one file where names are compared without case.
    const plan = await planStream({ inputs: [join(root, 'A'), join(root, 'b'), join(root, 'a')], output: { kind: 'mirror', dir: join(root, 'out') } });
    const files: PlannedFile[] = [];
    for await (const f of plan.files) files.push(f);
    // The later one shows its origin (as `B.jpg` and `b.jpg` in one folder do).
    expect(files.map((f) => [f.rel, f.output.slice(root.length + 5)])).toEqual([['b/x.jpg', 'b/x.jpg'], ['A/x.jpg', 'A/x.jpg'], ['a/x.jpg', 'a/x.jpg.jpg']]);
  });
});
