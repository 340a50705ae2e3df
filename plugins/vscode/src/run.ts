/**
 * One correction run, as the user sees it: settings and key checks, the preset
 * (and optional output-mode) pick, the plan, the cost guard, the cancellable
 * progress notification, and the summary with its buttons. The work itself is
 * @pfc/batch's `planStream` and `runBatch`, exactly as the CLI runs it.
 *
 * A selection across the folders of a multi-root workspace runs each folder's
 * files with that folder's own settings of `resource` scope (output mode and
 * folder, parameters, concurrency…), one folder after the other, under one
 * scan, one cost question, one progress notification and one summary; the
 * preset (and output mode, when asked each run) is picked once for the run.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  type BatchEvent, checkOutputWritable, collectPlan, EXTENDED_ATTRIBUTES_NOT_KEPT, type LeftOutCounts, LeftOutRecord, pendingFiles, planStream, runBatch, type BatchPlan, type OutputMode, type PlannedFile, type SkipCode, type StreamedPlan,
} from '@pfc/batch';
import { resolveBackend, type ResolvedBackend } from './backend';
import type { KeyName, KeyStore } from './keys';
import { addCounts, countsOf, LAST_RUN_VERSION, newResultsFile, type LastRun, type RunChoice, type RunCounts } from './last-run';
import type { Log } from './log';
import type { EmbeddedEmulator } from './embedded';
import { ensureBackend, noticeEmbeddedEmulator } from './onboarding';
import { listCustomPresets, presetItems } from './presets';
import { logLine, ProgressModel, ServiceWaits } from './progress';
import { scanInputs, type ExcludeRules } from './scan';
import { VSCODE_TERMS } from './terms';
import { outputModeOf, settingsFrom, OUTPUT_MODES, type ExtensionSettings, type OutputModeSetting } from './settings';
import type { ExtensionHost, VscodeApi } from './vscode-api';
import type * as vscode from 'vscode';

/** What a run needs from the extension. */
export interface RunServices {
  api: VscodeApi;
  keys: KeyStore;
  log: Log;
  status: Pick<vscode.StatusBarItem, 'text' | 'tooltip' | 'command' | 'show' | 'hide'>;
  /** The window's embedded emulator (backend `auto` without key or container, or `emulator` without an address). */
  embedded: Pick<EmbeddedEmulator, 'url' | 'ready' | 'crashes'>;
  globalState: Pick<vscode.Memento, 'get' | 'update'>;
  /** The workspace's exclusions (`files.exclude`, `search.exclude`, `node_modules`) for the folder `scope` is in, read at each run. */
  excludes: (scope: string) => ExcludeRules & { withBase(base: string): ExcludeRules };
  /** Where the run's results file goes (the extension's storage folder). */
  storage: Pick<ExtensionHost, 'storageUri' | 'globalStorageUri'>;
}

/** How a run was asked for. */
export interface RunRequest {
  inputs: string[];
  /** Retry: only these inputs of the plan, each workspace folder's with the preset and mode it had in the earlier run. */
  retry?: { only: string[]; choices: RunChoice[] };
}

/** A finished run, and the key the service refused if that is what stopped it (the summary then offers to set it). */
export interface RunOutcome {
  last: LastRun;
  refusedKey?: KeyName;
}

/** One workspace folder's share of a run: its inputs, with that folder's settings and what they make of the picks. */
interface FolderRun extends RunChoice {
  settings: ExtensionSettings;
  output: OutputMode;
  force: boolean;
  /** The cost guard of a paid backend: the folder's `pfc.confirmAboveFiles`; 0: never. */
  confirmAbove: number;
}

/**
 * The inputs by workspace folder, in the order picked (`getWorkspaceFolder`
 * "returns the workspace folder that contains a given uri", undefined when it
 * matches none, @types/vscode 1.100): in a multi-root workspace each folder
 * applies its own settings of `resource` scope. Inputs outside every folder
 * are one group (only user and workspace settings apply there).
 */
export function byWorkspaceFolder(api: Pick<VscodeApi, 'workspace' | 'Uri'>, inputs: readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const input of inputs) {
    const folder = api.workspace.getWorkspaceFolder(api.Uri.file(input))?.uri.fsPath ?? '';
    const group = groups.get(folder);
    if (group) group.push(input);
    else groups.set(folder, [input]);
  }
  return [...groups.values()];
}

async function pickOutputMode(api: VscodeApi, current: OutputModeSetting): Promise<OutputModeSetting | undefined> {
  const { t } = api.l10n;
  const labels: Record<OutputModeSetting, string> = {
    folder: t('Mirror into an output folder'),
    suffix: t('Beside each file, with a suffix'),
    'in-place': t('Replace originals (backups kept)'),
  };
  const items = OUTPUT_MODES.map((m) => ({ label: labels[m], mode: m, description: m === current ? t('setting') : undefined }));
  items.sort((a, b) => Number(b.mode === current) - Number(a.mode === current));
  const picked = await api.window.showQuickPick(items, { title: t('Perfectly Clear: where should corrected files go?'), ignoreFocusOut: true });
  return picked?.mode;
}

/** Ask for the preset: built-ins at once, the account's custom presets as they arrive. */
async function pickPreset(svc: RunServices, resolved: ResolvedBackend, settings: ExtensionSettings): Promise<string | undefined> {
  const items = listCustomPresets(resolved.backend).then(({ names, error }) => {
    if (error) svc.log.line(`custom presets could not be listed: ${error}`);
    return presetItems(names, settings.defaultPreset, svc.api.QuickPickItemKind.Separator, svc.api.l10n);
  });
  const picked = await svc.api.window.showQuickPick(items, {
    title: svc.api.l10n.t('Perfectly Clear: preset'),
    placeHolder: svc.api.l10n.t('Pick a preset for this run'),
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  return picked?.preset;
}

/** A folder's plan ready to run: streamed (files planned as the run takes them), or whole when the cost guard had to count them. */
interface PlannedRun {
  folder: FolderRun;
  plan: BatchPlan | StreamedPlan;
  /** Files the run will judge: the progress total ("N of M"), known before any file is read. */
  total: number;
  /** Files that would be sent, when the cost guard counted them. */
  pending?: number;
}

/**
 * Scan, plan and count in one cancellable notification: "Scanning… N files",
 * then the names-only pass of planning; the files themselves are planned while
 * the run corrects the first ones (no array of every file), as the CLI does.
 * Only the cost guard of a paid backend, when a folder's count by name is over
 * its threshold, plans every file first to count what would be sent (every
 * folder's, so the one question names the whole run). Files the workspace
 * excludes are left out by planning itself. Resolves undefined when cancelled.
 * `cancel` is the whole run's: the plan, streamed or whole, is made with its
 * signal, so Cancel here or in the run's notification stops the planning itself.
 */
async function scanAndPlan(svc: RunServices, req: RunRequest, folders: readonly FolderRun[], backend: ResolvedBackend, cancel: AbortController): Promise<PlannedRun[] | undefined> {
  const { api } = svc;
  const { t } = api.l10n;
  return api.window.withProgress({ location: api.ProgressLocation.Notification, title: t('Perfectly Clear'), cancellable: true }, async (progress, token) => {
    const cancelled = (): boolean => token.isCancellationRequested;
    // Cancel stops the work behind the notification (a walk of 100,000 folders, the reading of as many files), not only the wait for it.
    const sub = token.onCancellationRequested(() => cancel.abort());
    const { signal } = cancel;
    try {
      progress.report({ message: t('Scanning… {0} files', 0) });
      const planned: (PlannedRun & { plan: StreamedPlan })[] = [];
      let scannedBefore = 0;
      for (const folder of folders) {
        const scan = await scanInputs(folder.inputs, svc.excludes(folder.inputs[0]!), (n) => progress.report({ message: t('Scanning… {0} files', scannedBefore + n) }), cancelled);
        if (!scan) return undefined;
        scannedBefore += scan.files;
        progress.report({ message: t('Planning {0} files…', scan.files) });
        const leaveOut = (path: string): string | undefined => {
          const why = scan.excluded.get(path);
          return why ? `${EXCLUDED_BY}${why}` : undefined;
        };
        const stream = await planStream({ inputs: folder.inputs, output: folder.output, params: folder.params, backend: backend.planKind, backendId: backend.id, leaveOut, signal, terms: VSCODE_TERMS });
        if (cancelled()) return undefined;
        const plan = req.retry ? onlyFiles(stream, new Set(req.retry.only)) : stream;
        planned.push({ folder, plan, total: plan.expectedFiles });
      }
      if (!planned.some((p) => p.folder.confirmAbove > 0 && p.total > p.folder.confirmAbove)) return planned;
      progress.report({ message: t('Checking {0} files against earlier results…', sum(planned.map((p) => p.total))) });
      const counted: PlannedRun[] = [];
      for (const { folder, plan } of planned) {
        const whole = await collectPlan(plan, { signal });
        const pending = await pendingFiles(whole, { backendId: backend.id, params: folder.params, force: folder.force, signal });
        // `pendingFiles` stops with an error only while it hashes a file: a Cancel during the rest of the count ends here.
        if (cancelled()) return undefined;
        counted.push({ folder, plan: whole, total: whole.files.length, pending: pending.length });
      }
      return counted;
    } catch (err) {
      // The work that Cancel stopped ends with its abort error: the user asked for it.
      if (cancelled()) return undefined;
      throw err;
    } finally {
      sub.dispose();
    }
  });
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/**
 * Retry: the plan's files that are among `only` (the earlier run's failures),
 * still streamed. At most `only.size` files are planned; the rest of the tree
 * is walked and passed over, and nothing of it is listed as left out.
 */
export function onlyFiles(plan: StreamedPlan, only: ReadonlySet<string>): StreamedPlan {
  async function* chosen(): AsyncGenerator<PlannedFile> {
    for await (const f of plan.files) if (only.has(f.input)) yield f;
  }
  // The whole plan's left-out paths are dropped as found: no run reports them, so none is held for one.
  plan.leftOut.reportTo(() => undefined);
  return { ...plan, expectedFiles: Math.min(plan.expectedFiles, only.size), leftOut: new LeftOutRecord(), progress: { leftOut: 0 }, files: chosen() };
}

const EXCLUDED_BY = 'excluded by ';
const CODE_LABEL: Record<SkipCode, string> = {
  hidden: 'hidden',
  'app-folder': "other applications' folders",
  'output-folder': 'output or backup folders',
  unsupported: 'not JPEG, PNG, MP4 or MOV',
  'over-limit': 'over the service limits',
  symlink: 'links to folders',
  'format-change': 'a format in place cannot keep',
  // pfc's own results are not listed (plan.ts `suffixNamed`): these are the user's files so named, or results changed or without their photo since.
  'suffix-output': 'named with the output suffix',
  duplicate: 'duplicates',
  unreadable: 'unreadable',
  'live-photo': "Live Photos' motion clips",
};

/** Raw files are photos to a photographer: said with what to do. */
const RAW_LABEL = 'camera raw photos (export them as JPEG or PNG to correct them)';

/**
 * "7 paths: 4 not JPEG, PNG, MP4 or MOV, 2 hidden, 1 excluded by node_modules" — one phrase per reason, biggest
 * first, from the plans' counts of every path left out (the plans keep the first paths only).
 */
export function leftOutSummary(plans: readonly LeftOutCounts[]): string {
  const counts = new Map<string, number>();
  for (const [phrase, n] of plans.flatMap(phrasesOf)) if (n > 0) counts.set(phrase, (counts.get(phrase) ?? 0) + n);
  const total = sum(plans.map((c) => c.total));
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`);
  return `${total} path${total === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** One plan's counts by phrase: by code, with raw photos (said with what to do) and the workspace's exclusions (by setting) told apart. */
function phrasesOf(c: LeftOutCounts): [string, number][] {
  const byHost = Object.entries(c.hiddenReasons.by).filter(([reason]) => reason.startsWith(EXCLUDED_BY));
  const apart: Partial<Record<SkipCode, number>> = { unsupported: c.raw, hidden: sum(byHost.map(([, n]) => n)) };
  const byCode = (Object.entries(c.byCode) as [SkipCode, number][]).map(([code, n]): [string, number] => [CODE_LABEL[code], n - (apart[code] ?? 0)]);
  return [...byCode, [RAW_LABEL, c.raw], ...byHost];
}

function nothingToCorrect(api: VscodeApi, leftOut: readonly LeftOutCounts[]): undefined {
  void api.window.showInformationMessage(
    sum(leftOut.map((c) => c.total)) > 0
      ? api.l10n.t('Perfectly Clear: no image or video to correct ({0}).', leftOutSummary(leftOut))
      : api.l10n.t('Perfectly Clear: no image or video to correct.'),
  );
  return undefined;
}

/** Run one correction from start to summary. Resolves undefined when the user backed out. */
export async function correct(svc: RunServices, req: RunRequest): Promise<RunOutcome | undefined> {
  const { api } = svc;
  // Each workspace folder's settings for its own files (resource scope); the backend's are the window's, the same for all.
  const folders = byWorkspaceFolder(api, req.inputs).map((inputs) => ({ inputs, settings: settingsFrom(api, api.Uri.file(inputs[0]!)) }));
  const resolved = await ensureBackend(svc, folders[0]!.settings, (s) =>
    resolveBackend(s, svc.keys, {
      l10n: svc.api.l10n,
      embedded: svc.embedded,
    }),
  );
  if (!resolved) return undefined;
  if (resolved.backend.embedded) void noticeEmbeddedEmulator({ api, keys: svc.keys, globalState: svc.globalState });
  try {
    return await correctOn(svc, req, resolved.backend, folders);
  } finally {
    await resolved.backend.close();
  }
}

/**
 * The picks, once for the run: the preset (offered with the first folder's
 * default) and, when a folder asks each run, the output mode for the folders
 * that ask. Then each folder's parameters, output and guard from its own
 * settings; a retry keeps each folder's earlier preset and mode.
 */
async function chooseFolders(svc: RunServices, req: RunRequest, backend: ResolvedBackend, folders: readonly { inputs: string[]; settings: ExtensionSettings }[]): Promise<FolderRun[] | undefined> {
  const { api, log } = svc;
  let preset: string | undefined;
  let asked: OutputModeSetting | undefined;
  if (!req.retry) {
    preset = await pickPreset(svc, backend, folders[0]!.settings);
    if (preset === undefined) return undefined;
    const asking = folders.find((f) => f.settings.askOutputEachRun);
    if (asking) {
      asked = await pickOutputMode(api, asking.settings.outputMode);
      if (asked === undefined) return undefined;
    }
  }
  const runs: FolderRun[] = [];
  for (const { inputs, settings } of folders) {
    const earlier = req.retry && (req.retry.choices.find((c) => c.inputs.includes(inputs[0]!)) ?? req.retry.choices[0]);
    const mode = earlier ? earlier.mode : settings.askOutputEachRun && asked ? asked : settings.outputMode;
    const params = earlier ? earlier.params : { ...settings.parameters, preset };
    const check = backend.backend.validate(params);
    if (check.errors.length > 0) {
      void api.window.showErrorMessage(api.l10n.t('Perfectly Clear: invalid parameters — {0}', check.errors.map((e) => e.message).join('; ')));
      return undefined;
    }
    for (const w of check.warnings) log.line(`note: ${w}`);
    const bases = await Promise.all(inputs.map(async (p) => ((await stat(p)).isDirectory() ? p : dirname(p))));
    runs.push({
      inputs, mode, params, settings,
      output: outputModeOf(mode, settings, bases),
      force: !settings.skipAlreadyCorrected,
      confirmAbove: backend.paid ? settings.confirmAboveFiles : 0,
    });
  }
  return runs;
}

async function correctOn(svc: RunServices, req: RunRequest, backend: ResolvedBackend, chosen: readonly { inputs: string[]; settings: ExtensionSettings }[]): Promise<RunOutcome | undefined> {
  const { api, log } = svc;
  const folders = await chooseFolders(svc, req, backend, chosen);
  if (!folders) return undefined;
  // One cancel for the whole run: a streamed plan is still planned while the run corrects its first files.
  const cancel = new AbortController();
  const planned = await scanAndPlan(svc, req, folders, backend, cancel);
  if (!planned) return undefined;
  const leftOut = (): LeftOutCounts[] => planned.map((p) => p.plan.leftOut.counts);
  if (sum(planned.map((p) => p.total)) === 0) return nothingToCorrect(api, leftOut());
  // Up-to-date files cost nothing: only what would be sent is counted (during the scan), and asked about once for every folder.
  if (planned.some((p) => p.pending !== undefined && p.pending > p.folder.confirmAbove && p.folder.confirmAbove > 0)) {
    const go = await api.window.showWarningMessage(
      api.l10n.t('Correct {0} files on {1}? Each correction may be billed.', sum(planned.map((p) => p.pending ?? p.total)), backend.label),
      { modal: true },
      api.l10n.t('Correct'),
    );
    if (go !== api.l10n.t('Correct')) return undefined;
  }

  // A folder the results cannot go to is said before anything is sent (a file named like the output folder, no permission).
  for (const { plan } of planned) await checkOutputWritable(plan);
  for (const { folder } of planned) log.line(`run: ${folder.inputs.join(', ')} with preset "${folder.params.preset ?? 'Universal'}" on ${backend.label}, output mode ${folder.mode}`);
  // Every result goes to a file, not into memory or workspaceState (see last-run.ts).
  const resultsFile = await newResultsFile(svc.storage);
  let ran: { counts: RunCounts; refused: boolean };
  try {
    ran = await runWithProgress(svc, planned, backend, resultsFile, cancel);
  } catch (err) {
    await rm(resultsFile, { force: true });
    throw err;
  }
  const { counts } = ran;
  // A streamed plan's count of left-out paths is complete once its files are planned; each path was a trace line.
  const skipped = leftOut();
  if (sum(skipped.map((c) => c.total)) > 0) log.line(`left out ${leftOutSummary(skipped)}`);
  // Every file counted by name turned out not to be one to correct (not an image, over a limit…).
  if (counts.corrected + counts.upToDate + counts.failed + counts.cancelled === 0 && !counts.interrupted) {
    await rm(resultsFile, { force: true });
    return nothingToCorrect(api, skipped);
  }
  const [first] = folders;
  const last: LastRun = {
    version: LAST_RUN_VERSION, inputs: req.inputs, mode: first!.mode, params: first!.params,
    ...(folders.length > 1 ? { choices: folders.map(({ inputs, mode, params }) => ({ inputs, mode, params })) } : {}),
    summary: counts, resultsFile,
  };
  return { last, ...(ran.refused && backend.key ? { refusedKey: backend.key } : {}) };
}

/** A folder the run did not start (it was cancelled or stopped before): its files count as not finished, as a run counts the files it did not reach. */
function notStarted(files: number): RunCounts {
  return { corrected: 0, skipped: 0, upToDate: 0, excluded: 0, failed: 0, cancelled: files, bytesIn: 0, bytesOut: 0, durationMs: 0, interrupted: false, outputRoots: [] };
}

/**
 * The folders' plans one after the other under one notification; the progress
 * counts every folder's files. `cancel`: the run's (see `correctOn`), aborted
 * by the notification's Cancel. Each folder's results are appended to
 * `resultsFile`. `refused`: the service refused the key (the run stopped on it).
 */
async function runWithProgress(
  svc: RunServices, planned: readonly PlannedRun[], backend: ResolvedBackend, resultsFile: string, cancel: AbortController,
): Promise<{ counts: RunCounts; refused: boolean }> {
  const { api, log, status } = svc;
  // Each folder's total, until its plan is complete (a streamed plan's `planned` event gives the final count).
  const totals = planned.map((p) => p.total);
  const model = new ProgressModel(sum(totals));
  status.command = 'pfc.showLog';
  status.tooltip = api.l10n.t('Perfectly Clear is correcting files — click for the log');
  status.text = model.statusText();
  status.show();
  try {
    return await api.window.withProgress(
      { location: api.ProgressLocation.Notification, title: api.l10n.t('Perfectly Clear'), cancellable: true },
      async (progress, token) => {
        const sub = token.onCancellationRequested(() => {
          log.line('cancel requested: no new file starts; files in flight are aborted');
          cancel.abort();
        });
        progress.report({ message: api.l10n.t('{0}/{1} · starting', 0, model.total) });
        const waits = new ServiceWaits(() => progress.report({ message: model.message(waits.shown) }));
        let counts: RunCounts | undefined;
        let refused = false;
        // Said in the summary, once a run (batch's notice before anything is replaced is in the log).
        let attributesNotKept = false;
        try {
          for (const [k, { folder, plan, total }] of planned.entries()) {
            // The run stopped itself (a refused key, an unreachable service) or was cancelled: the next folders would meet the same.
            if (cancel.signal.aborted || counts?.stoppedBecause) {
              counts = addCounts(counts, notStarted(total));
              continue;
            }
            // The first folder's results are the run's file; the others' are appended to it.
            const file = k === 0 ? resultsFile : await newResultsFile(svc.storage);
            const summary = await runBatch(plan, {
              backend: backend.backend,
              backendId: backend.id,
              params: folder.params,
              // 0: the backend's own width, as the CLI without -j (on a fleet, the instances' jobs together).
              concurrency: folder.settings.concurrency > 0 ? folder.settings.concurrency : backend.defaultConcurrency,
              force: folder.force,
              signal: cancel.signal,
              // Fewer jobs at once while the service answers 429, more again when it keeps up.
              ...(backend.rateLimited ? { rateLimited: backend.rateLimited } : {}),
              // Counts and the first failures in memory; every result a line of the results file.
              keepResults: false,
              resultsFile: file,
              terms: VSCODE_TERMS,
              onEvent: (e) => {
                attributesNotKept ||= isAttributesNotice(e);
                const line = logLine(e);
                // Left-out paths were summarised after planning; each one is a trace line.
                if (line && e.type === 'skipped') log.trace(line);
                else if (line) log.line(line);
                // A folder's streamed plan is complete: the run's total is every folder's.
                if (e.type === 'planned') totals[k] = e.files;
                const increment = model.apply(e.type === 'planned' ? { ...e, files: sum(totals) } : e);
                waits.apply(e);
                if (e.type === 'start' || increment > 0) {
                  progress.report({ message: model.message(waits.shown), increment });
                  status.text = model.statusText();
                }
              },
            });
            if (file !== resultsFile) await appendResults(resultsFile, file);
            refused ||= summary.failures.some((f) => f.fatal);
            counts = addCounts(counts, countsOf(summary));
          }
        } finally {
          sub.dispose();
          waits.stop();
        }
        return { counts: attributesNotKept ? { ...counts!, attributesNotKept: true } : counts!, refused };
      },
    );
  } finally {
    status.hide();
  }
}

function isAttributesNotice(e: BatchEvent): boolean {
  return e.type === 'notice' && e.message === EXTENDED_ATTRIBUTES_NOT_KEPT;
}

/** Append a folder's results file to the run's, streamed (a results file can hold 100,000 lines), and remove it. */
async function appendResults(to: string, from: string): Promise<void> {
  try {
    await pipeline(createReadStream(from), createWriteStream(to, { flags: 'a', mode: 0o600 }));
  } finally {
    await rm(from, { force: true });
  }
}
