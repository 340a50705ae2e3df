/**
 * The last run of a workspace, kept small. VS Code's `workspaceState` holds a
 * record of counts and where the results are (`LastRun`), whose size does not
 * depend on the number of files: that state is written into VS Code's state
 * database and held by the extension host. Every file's result is a JSON line
 * of a results file in the extension's storage folder, written by @pfc/batch's
 * `runBatch` (`resultsFile`, as the CLI's `--report` does) and read back a
 * chunk at a time with `readResults` by Show Report, Retry Failed, Compare
 * with Original and Restore Originals.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRefusal, readResults, type BatchSummary, type FileResult } from '@pfc/batch';
import type { PfcParams } from '@pfc/core';
import type { OutputModeSetting } from './settings';
import type { ExtensionHost } from './vscode-api';

/** workspaceState entry of the last run. */
export const LAST_RUN_KEY = 'pfc.lastRun';

/** The record's format; values without it are the previous version's whole runs (see `loadLastRun`). */
export const LAST_RUN_VERSION = 2;

/** What a run adds up to: `BatchSummary` without anything per file. */
export type RunCounts = Pick<BatchSummary,
  'corrected' | 'skipped' | 'upToDate' | 'excluded' | 'failed' | 'cancelled' | 'bytesIn' | 'bytesOut' | 'durationMs' | 'interrupted' | 'stoppedBecause' | 'outputRoots' | 'jobsAtOnce'> & {
  /** In place, this installation could not keep the photos' extended attributes (Finder tags, ratings, comments). */
  attributesNotKept?: true;
  /** Of `failed`, the files left as is on purpose (`BatchSummary.refused`); absent in records of earlier versions. */
  refused?: number;
};

/** What one workspace folder's inputs ran with (its own settings and the run's picks). */
export interface RunChoice {
  inputs: string[];
  mode: OutputModeSetting;
  params: PfcParams;
}

/** The last run as kept in workspaceState: no per-file data (those are lines of `resultsFile`). */
export interface LastRun {
  version: typeof LAST_RUN_VERSION;
  /** The paths the user chose (folders or files), for Retry Failed. */
  inputs: string[];
  /** The first (or only) workspace folder's mode and parameters. */
  mode: OutputModeSetting;
  params: PfcParams;
  /** A selection across workspace folders: each folder's inputs with its own mode and parameters, for Retry Failed. */
  choices?: RunChoice[];
  summary: RunCounts;
  /** Every file's result, one JSON line each (`readResults`), in the extension's storage folder. */
  resultsFile: string;
}

/** The counts of a summary, field by field (a per-file field added to `BatchSummary` later never reaches workspaceState). */
export function countsOf(s: BatchSummary): RunCounts {
  return {
    corrected: s.corrected, skipped: s.skipped, upToDate: s.upToDate, excluded: s.excluded, failed: s.failed, refused: s.refused, cancelled: s.cancelled,
    bytesIn: s.bytesIn, bytesOut: s.bytesOut, durationMs: s.durationMs, interrupted: s.interrupted, outputRoots: s.outputRoots,
    ...(s.stoppedBecause !== undefined ? { stoppedBecause: s.stoppedBecause } : {}),
    ...(s.jobsAtOnce ? { jobsAtOnce: s.jobsAtOnce } : {}),
  };
}

/**
 * One run's counts from its parts (the workspace folders of a selection, run
 * one after the other): the numbers added, the output folders of both, the
 * first reason the run stopped itself, the first folder's jobs at once.
 */
export function addCounts(a: RunCounts | undefined, b: RunCounts): RunCounts {
  if (!a) return b;
  const stoppedBecause = a.stoppedBecause ?? b.stoppedBecause;
  const jobsAtOnce = a.jobsAtOnce ?? b.jobsAtOnce;
  return {
    corrected: a.corrected + b.corrected, skipped: a.skipped + b.skipped, upToDate: a.upToDate + b.upToDate, excluded: a.excluded + b.excluded,
    failed: a.failed + b.failed, refused: (a.refused ?? 0) + (b.refused ?? 0), cancelled: a.cancelled + b.cancelled, bytesIn: a.bytesIn + b.bytesIn, bytesOut: a.bytesOut + b.bytesOut,
    durationMs: a.durationMs + b.durationMs, interrupted: a.interrupted || b.interrupted, outputRoots: [...a.outputRoots, ...b.outputRoots],
    ...(stoppedBecause !== undefined ? { stoppedBecause } : {}),
    ...(jobsAtOnce ? { jobsAtOnce } : {}),
    ...(a.attributesNotKept || b.attributesNotKept ? { attributesNotKept: true as const } : {}),
  };
}

/** Results files pfc made in the runs folder (others are never removed). */
const RESULTS_FILE = /^run-[0-9a-z]+-[0-9a-f]+\.jsonl$/;

/** Without a workspace, the runs folder is in global storage, shared by such windows: only results older than this are removed there. */
const SHARED_RESULTS_KEPT_MS = 7 * 24 * 3600 * 1000;

/**
 * The runs folder: in `ExtensionContext.storageUri` (per workspace), or in
 * `globalStorageUri` when no folder is open (`storageUri` is then undefined).
 * VS Code guarantees only their parent exists ("creation is up to the
 * extension", @types/vscode 1.100 `ExtensionContext.storageUri`), so it is made here.
 */
export async function runsFolder(host: Pick<ExtensionHost, 'storageUri' | 'globalStorageUri'>): Promise<string> {
  const dir = join((host.storageUri ?? host.globalStorageUri).fsPath, 'runs');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A new results file's path in the runs folder (the file is created by the run). */
export async function newResultsFile(host: Pick<ExtensionHost, 'storageUri' | 'globalStorageUri'>): Promise<string> {
  return join(await runsFolder(host), `run-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}.jsonl`);
}

/** Remove the runs folder's other results files (the last run's is kept); in shared global storage, only old ones. */
export async function removeOldResults(host: Pick<ExtensionHost, 'storageUri' | 'globalStorageUri'>, keep: string): Promise<void> {
  const dir = await runsFolder(host);
  const shared = host.storageUri === undefined;
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (path === keep || !RESULTS_FILE.test(name)) continue;
    if (shared && Date.now() - (await stat(path)).mtimeMs < SHARED_RESULTS_KEPT_MS) continue;
    await rm(path, { force: true });
  }
}

/** Whether the run's results are still on disk (the user may have cleared the extension's storage). */
export function hasResults(last: LastRun | undefined): last is LastRun {
  return last !== undefined && existsSync(last.resultsFile);
}

/** Results between two pauses that let the extension host answer other work while a large results file is read. */
const RESULTS_PER_TURN = 1000;

/** The run's results in file order, read a chunk at a time; the event loop gets a turn every `RESULTS_PER_TURN`. */
export async function* resultsOf(last: Pick<LastRun, 'resultsFile'>): AsyncGenerator<FileResult> {
  let n = 0;
  for (const r of readResults(last.resultsFile)) {
    yield r;
    if (++n % RESULTS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Every failed file's input that a retry may correct (all of them, not only the first `MAX_FAILURES_KEPT` a
 * summary holds): not those left as is on purpose (`isRefusal`), which a retry would refuse again.
 */
export async function failedInputs(last: LastRun): Promise<string[]> {
  const failed: string[] = [];
  for await (const r of resultsOf(last)) if (r.status === 'failed' && !isRefusal(r.errorName)) failed.push(r.input);
  return failed;
}

/** One page of results: the failures first, then the others in file order. */
export interface ResultsPage {
  rows: FileResult[];
  /** Results in the file. */
  total: number;
  /** Failed results in the file. */
  failed: number;
}

/**
 * Results `from` to `from + size` in the report's order (failures first, then
 * the others). Holds one page: the first pass takes the page's failures and
 * counts; a second pass, only when the page reaches past the failures, takes its other results.
 */
export async function resultsPage(last: LastRun, from: number, size: number): Promise<ResultsPage> {
  const rows: FileResult[] = [];
  let total = 0;
  let failed = 0;
  for await (const r of resultsOf(last)) {
    total++;
    if (r.status !== 'failed') continue;
    if (failed >= from && failed < from + size) rows.push(r);
    failed++;
  }
  if (rows.length < size && from + size > failed) {
    // Others before this page: the page's start minus every failure (which all come first).
    const start = Math.max(0, from - failed);
    let other = 0;
    for await (const r of resultsOf(last)) {
      if (r.status === 'failed' || other++ < start) continue;
      rows.push(r);
      if (rows.length >= size) break;
    }
  }
  return { rows, total, failed };
}

/** A previous version's value: the whole run, every result inline. */
interface WholeRun {
  inputs: string[];
  mode: OutputModeSetting;
  params: PfcParams;
  summary: BatchSummary;
}

function isWholeRun(v: unknown): v is WholeRun {
  const w = v as Partial<WholeRun> | undefined;
  return typeof w === 'object' && w !== null && Array.isArray(w.inputs) && typeof w.mode === 'string' && typeof w.params === 'object'
    && typeof w.summary === 'object' && w.summary !== null && Array.isArray(w.summary.results);
}

/**
 * The workspace's last run. A previous version's value (the whole run in
 * workspaceState) is moved into a results file and replaced by the small
 * record; anything else unreadable is dropped. Never throws.
 */
export async function loadLastRun(host: Pick<ExtensionHost, 'workspaceState' | 'storageUri' | 'globalStorageUri'>, note: (line: string) => void): Promise<LastRun | undefined> {
  const stored = host.workspaceState.get<unknown>(LAST_RUN_KEY);
  if (stored === undefined) return undefined;
  const v = stored as Partial<LastRun>;
  if (v.version === LAST_RUN_VERSION && typeof v.resultsFile === 'string' && v.summary && Array.isArray(v.inputs)) return v as LastRun;
  try {
    if (!isWholeRun(stored)) throw new Error('not a run this version knows');
    const resultsFile = await newResultsFile(host);
    await writeFile(resultsFile, stored.summary.results.map((r) => `${JSON.stringify(r)}\n`).join(''), { mode: 0o600 });
    const last: LastRun = { version: LAST_RUN_VERSION, inputs: stored.inputs, mode: stored.mode, params: stored.params, summary: countsOf(stored.summary), resultsFile };
    await host.workspaceState.update(LAST_RUN_KEY, last);
    note(`the last run's ${stored.summary.results.length} result(s) moved from workspace state to ${resultsFile}`);
    return last;
  } catch (err) {
    await Promise.resolve(host.workspaceState.update(LAST_RUN_KEY, undefined)).catch(() => undefined);
    note(`the stored last run was dropped (${err instanceof Error ? err.message : String(err)})`);
    return undefined;
  }
}
