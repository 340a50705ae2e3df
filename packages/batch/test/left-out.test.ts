/**
 * Left-out paths in bounded memory: a folder of photos beside thousands of sidecars keeps the first
 * `LEFT_OUT_KEPT` paths, the HEIC, raw and unreadable ones ahead of the sidecars wherever they are found,
 * counts every one exactly, and hands every one to the run's `skipped` events.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BatchEvent, LEFT_OUT_KEPT, LeftOutRecord, NOT_SUPPORTED, planBatch, planStream, runBatch, type SkippedPath } from '../src/index';
import { FakeBackend, jpegBytes, tempDir } from './helpers';

const SIDECARS = 5000;
const HEIC = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic', 'latin1'), Buffer.alloc(12)]);
const NEF = Buffer.from('MM\0*\0\0\0\x08 nikon raw', 'latin1');

/**
 * Two photos, {@link SIDECARS} sidecars named before everything else, and after them (in the order planning
 * finds them) a HEIC, a raw file and a broken link (unreadable: a failure of the run).
 */
function folderOfSidecars(): { root: string; late: string[] } {
  const root = tempDir();
  for (let n = 0; n < SIDECARS; n++) writeFileSync(join(root, `a${String(n).padStart(5, '0')}.xmp`), '<x:xmpmeta/>');
  writeFileSync(join(root, 'm1.jpg'), jpegBytes(96, 64, { filler: 'one' }));
  writeFileSync(join(root, 'm2.jpg'), jpegBytes(96, 64, { filler: 'two' }));
  writeFileSync(join(root, 'z1.HEIC'), HEIC);
  writeFileSync(join(root, 'z2.NEF'), NEF);
  symlinkSync(join(root, 'gone.jpg'), join(root, 'z3.jpg'));
  return { root, late: ['z1.HEIC', 'z2.NEF', 'z3.jpg'].map((name) => join(root, name)) };
}

describe('left-out paths of a folder with thousands of sidecars', () => {
  it('keeps at most LEFT_OUT_KEPT paths, the HEIC, raw and unreadable ones among them; counts and totals exact; every path a skipped event', async () => {
    const { root, late } = folderOfSidecars();
    const events: BatchEvent[] = [];
    const plan = await planStream({ inputs: [root], backend: 'web' });
    const summary = await runBatch(plan, { backend: new FakeBackend(), keepResults: false, onEvent: (e) => events.push(e) });

    const all = SIDECARS + late.length;
    // Every path, once, as a `skipped` event.
    const skipped = events.flatMap((e) => (e.type === 'skipped' && e.code !== 'up-to-date' ? [e.input] : []));
    expect(skipped).toHaveLength(all);
    expect(new Set(skipped).size).toBe(all);
    expect(skipped).toEqual(expect.arrayContaining([join(root, 'a00000.xmp'), join(root, 'a04999.xmp'), ...late]));

    // Bounded: the late photos and the broken link kept in place of the last sidecars, in the order found.
    const kept = plan.leftOut.kept;
    expect(kept).toHaveLength(LEFT_OUT_KEPT);
    expect(plan.leftOut.more).toBe(all - LEFT_OUT_KEPT);
    expect(kept.filter((p) => p.reason !== NOT_SUPPORTED).map((p) => p.path).sort()).toEqual(late);
    const sidecarsKept = kept.filter((p) => p.reason === NOT_SUPPORTED).map((p) => p.path);
    expect(sidecarsKept).toEqual(Array.from({ length: LEFT_OUT_KEPT - late.length }, (_, n) => join(root, `a${String(n).padStart(5, '0')}.xmp`)));
    expect(summary.excludedPaths).toEqual(kept);

    // Counted exactly.
    expect(summary.excludedCounts).toMatchObject({ total: all, byCode: { unsupported: SIDECARS + 2, unreadable: 1 }, raw: 1, notMedia: SIDECARS, notMediaKinds: { others: 0 } });
    expect({ ...summary.excludedCounts.notMediaKinds.by }).toEqual({ '.xmp': SIDECARS });
    expect(summary).toMatchObject({ corrected: 2, excluded: all - 1, skipped: all - 1, failed: 1 });
  }, 60_000);

  it('a whole plan holds its paths until its run reports them, each once', async () => {
    const { root, late } = folderOfSidecars();
    const plan = await planBatch({ inputs: [root], backend: 'web' });
    expect(plan.leftOut.kept).toHaveLength(LEFT_OUT_KEPT);
    const skipped: string[] = [];
    const onEvent = (e: BatchEvent): void => void (e.type === 'skipped' && e.code !== 'up-to-date' && skipped.push(e.input));
    await runBatch(plan, { backend: new FakeBackend(), keepResults: false, onEvent });
    expect(skipped).toHaveLength(SIDECARS + late.length);
    expect(new Set(skipped).size).toBe(SIDECARS + late.length);
    expect(skipped).toEqual(expect.arrayContaining(late));
  }, 60_000);
});

describe('LeftOutRecord', () => {
  const p = (path: string, code: SkippedPath['code'], reason: string): SkippedPath => ({ path, code, reason });
  const sidecar = (n: number): SkippedPath => p(`/in/${n}.xmp`, 'unsupported', NOT_SUPPORTED);

  it('once full, a path of a higher tier takes the place of the last one found of the lowest tier kept', () => {
    const record = new LeftOutRecord(4);
    const found = [
      sidecar(1), p('/in/.a', 'hidden', 'hidden file'), sidecar(2), sidecar(3),
      p('/in/x.heic', 'unsupported', 'HEIC/HEIF image'), p('/in/._x', 'hidden', 'hidden file'), sidecar(4), p('/in/y', 'unreadable', 'cannot be read'),
    ];
    for (const s of found) record.add(s.path, s.code, s.reason);
    // The HEIC took sidecar 3's place, the second dot-file sidecar 2's, the unreadable one sidecar 1's; sidecar 4 found no room.
    expect(record.kept.map((s) => s.path)).toEqual(['/in/.a', '/in/x.heic', '/in/._x', '/in/y']);
    expect(record.more).toBe(4);
    expect(record.counts).toMatchObject({ total: 8, byCode: { unsupported: 5, hidden: 2, unreadable: 1 }, notMedia: 4 });
    expect({ ...record.counts.hiddenReasons.by }).toEqual({ 'hidden file': 2 });
  });

  it('holds the paths found before a run reports them, then hands each on without holding it', () => {
    const record = new LeftOutRecord(2);
    record.add('/in/1.xmp', 'unsupported', NOT_SUPPORTED);
    const reported: string[] = [];
    const stop = record.reportTo((s) => reported.push(s.path));
    expect(reported).toEqual(['/in/1.xmp']);
    for (let n = 2; n <= 5; n++) record.add(`/in/${n}.xmp`, 'unsupported', NOT_SUPPORTED);
    expect(reported).toHaveLength(5);
    stop();
    record.add('/in/6.xmp', 'unsupported', NOT_SUPPORTED);
    expect(reported).toHaveLength(5);
    // Held again for the next run: reported once.
    const next: string[] = [];
    record.reportTo((s) => next.push(s.path));
    expect(next).toEqual(['/in/6.xmp']);
  });
});
