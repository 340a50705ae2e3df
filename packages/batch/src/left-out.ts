/**
 * The paths planning leaves out, in bounded memory: every one is counted (by
 * code, raw photos, files that are no photo or video by kind, hidden paths by
 * reason) and handed on as it is found (a run's `skipped` events), but only the
 * first {@link LEFT_OUT_KEPT} are kept, the ones a user may want to act on
 * before the many of a kind: a folder of 100,000 photos beside as many
 * sidecars (.xmp, .AAE), Live Photo clips and dot-files keeps a thousand paths,
 * and a HEIC or raw photo found after them still among them.
 */
import { basename, extname } from 'node:path';
import { CAMERA_RAW, NOT_SUPPORTED } from './sniff';

export type SkipCode = 'hidden' | 'app-folder' | 'output-folder' | 'unsupported' | 'over-limit' | 'symlink' | 'format-change' | 'suffix-output' | 'duplicate' | 'unreadable' | 'live-photo';

/** A path left out of the plan, and why. */
export interface SkippedPath {
  path: string;
  code: SkipCode;
  reason: string;
}

/**
 * Counts by key, with at most {@link TALLY_KEYS} keys: when it is full, a new key takes the place of a
 * least-counted one, whose count goes to `others`. The sum is exact, the common keys stay named (a tree of
 * unique names never holds the sidecars' `.xmp` out), each counted since it last took a place.
 */
export interface Tally {
  /** A null-prototype object (a key may be any file name). */
  by: Record<string, number>;
  others: number;
}

/** Every path left out, counted exactly (whatever `LeftOutRecord.kept` holds). */
export interface LeftOutCounts {
  /** Every path, the unreadable ones included (they count as failed, not as `BatchSummary.excluded`). */
  total: number;
  /** By code; a code none had is absent. */
  byCode: Partial<Record<SkipCode, number>>;
  /** Of code `unsupported`: camera raw photos (reason starting with `CAMERA_RAW`). */
  raw: number;
  /** Of code `unsupported`: files that are no photo or video at all (reason `NOT_SUPPORTED`: sidecars, documents…). */
  notMedia: number;
  /** The `notMedia` files by kind: their extension as written (`.xmp`, `.AAE`), or their name when they have none. */
  notMediaKinds: Tally;
  /** Of code `hidden`, by reason: `hidden file`, `hidden folder`, or the host's (`PlanOptions.leaveOut`). */
  hiddenReasons: Tally;
}

/**
 * Left-out paths kept in memory (`LeftOutRecord.kept`, `BatchSummary.excludedPaths`). As many as the report's
 * "Left out" table shows; the CLI lists 20 and counts the rest, VS Code counts them all.
 */
export const LEFT_OUT_KEPT = 1000;
/** Keys a {@link Tally} names: many more than hosts show (the CLI's four kinds, VS Code's few exclusions), few enough for a tree of unique names. */
export const TALLY_KEYS = 100;

/** A run that reports each left-out path as it is found (see {@link LeftOutRecord.reportTo}). */
export type LeftOutReporter = (p: SkippedPath) => void;

/** One path kept, with its place in the plan's order. */
interface Kept {
  seq: number;
  path: SkippedPath;
}

/**
 * The plan's record of the paths it left out: one per plan, written by the names-only pass and the
 * planning of the files alike. See the module's comment.
 */
export class LeftOutRecord {
  readonly counts: LeftOutCounts = emptyCounts();
  /** The kept paths by tier (see {@link tierOf}), each in the order found. */
  private readonly tiers: Kept[][] = TIERS.map(() => []);
  private keptCount = 0;
  private seq = 0;
  private reporter: LeftOutReporter | undefined;
  /** Paths found while no run reported them: a whole plan's, until `runBatch` takes them (see `reportTo`). */
  private unreported: SkippedPath[] = [];

  constructor(private readonly cap = LEFT_OUT_KEPT) {}

  /** Count one path, keep it if it ranks among the kept, and hand it to the reporter (or hold it for one). */
  add(path: string, code: SkipCode, reason: string): void {
    const p: SkippedPath = { path, code, reason };
    this.count(p);
    this.keep(p);
    if (this.reporter) this.reporter(p);
    else this.unreported.push(p);
  }

  /** The kept paths, in the order planning found them: at most the cap, by tier (unreadable, then photos and folders, then dot-files and clips, then non-media). */
  get kept(): SkippedPath[] {
    return this.tiers.flat().sort((a, b) => a.seq - b.seq).map((k) => k.path);
  }

  /** Paths counted and not kept. */
  get more(): number {
    return this.counts.total - this.keptCount;
  }

  /**
   * Hand every path to `report` as it is found, starting with the ones found before (held until now):
   * a streamed plan holds only the names-only pass's until its run starts, a whole plan every path
   * (as it holds every file). A plan's paths are reported once. Returns the function that stops it
   * (paths found afterwards are held again).
   */
  reportTo(report: LeftOutReporter): () => void {
    const held = this.unreported;
    this.unreported = [];
    this.reporter = report;
    for (const p of held) report(p);
    return () => {
      if (this.reporter === report) this.reporter = undefined;
    };
  }

  private count(p: SkippedPath): void {
    const c = this.counts;
    c.total++;
    c.byCode[p.code] = (c.byCode[p.code] ?? 0) + 1;
    if (p.reason === NOT_SUPPORTED) {
      c.notMedia++;
      tallyAdd(c.notMediaKinds, fileKind(p.path));
    } else if (p.code === 'unsupported' && p.reason.startsWith(CAMERA_RAW)) {
      c.raw++;
    } else if (p.code === 'hidden') {
      tallyAdd(c.hiddenReasons, p.reason);
    }
  }

  /** Keep `p` while there is room; once full, in place of the last path found of a lower tier, if any. */
  private keep(p: SkippedPath): void {
    const tier = tierOf(p);
    if (this.keptCount >= this.cap) {
      const lower = this.tiers.findLastIndex((t, i) => i > tier && t.length > 0);
      if (lower < 0) return;
      this.tiers[lower]!.pop();
      this.keptCount--;
    }
    this.tiers[tier]!.push({ seq: this.seq++, path: p });
    this.keptCount++;
  }
}

/** Counts of no path. */
export function emptyCounts(): LeftOutCounts {
  return { total: 0, byCode: {}, raw: 0, notMedia: 0, notMediaKinds: emptyTally(), hiddenReasons: emptyTally() };
}

function emptyTally(): Tally {
  return { by: Object.create(null) as Record<string, number>, others: 0 };
}

function tallyAdd(t: Tally, key: string): void {
  const n = t.by[key];
  if (n !== undefined) {
    t.by[key] = n + 1;
    return;
  }
  const keys = Object.keys(t.by);
  if (keys.length >= TALLY_KEYS) {
    const least = keys.reduce((a, b) => (t.by[b]! < t.by[a]! ? b : a));
    t.others += t.by[least]!;
    delete t.by[least];
  }
  t.by[key] = 1;
}

/** A file's kind as people name it: its extension as written, or its name when it has none (`Thumbs.db` is a `.db`, `README` a `README`). */
export function fileKind(path: string): string {
  return extname(path) || basename(path);
}

/** Tiers of the kept paths, first kept first. */
const TIERS = ['unreadable', 'photos and folders', 'companions', 'not media'] as const;

/**
 * Which paths stay when there are too many: the unreadable (failures of the run, each listed), then
 * photos and videos the service cannot take (HEIC, raw, over a limit), folders, links and duplicates,
 * then the many-of-a-kind companions of photos (dot-files such as `._IMG_1234.JPG`, Live Photo clips),
 * then files that are no photo or video at all.
 */
function tierOf(p: SkippedPath): number {
  if (p.code === 'unreadable') return 0;
  if (p.reason === NOT_SUPPORTED) return 3;
  if (p.code === 'hidden' || p.code === 'live-photo') return 2;
  return 1;
}
