/**
 * One correction run, as the user sees it: settings and key checks, the preset
 * (and optional output-mode) pick, the plan, the cost guard, the cancellable
 * progress notification, and the summary with its buttons. The work itself is
 * @pfc/batch's `planStream` and `runBatch`, exactly as the CLI runs it.
 */
import { rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { checkOutputWritable, collectPlan, pendingFiles, planStream, runBatch, type BatchPlan, type BatchSummary, type OutputMode, type PlannedFile, type SkippedPath, type StreamedPlan } from '@pfc/batch';
import type { PfcParams } from '@pfc/core';
import { resolveBackend, type ResolvedBackend } from './backend';
import type { KeyStore } from './keys';
import { countsOf, LAST_RUN_VERSION, newResultsFile, type LastRun } from './last-run';
import type { Log } from './log';
import type { EmbeddedEmulator } from './embedded';
import { ensureBackend, noticeEmbeddedEmulator } from './onboarding';
import { listCustomPresets, presetItems } from './presets';
import { logLine, ProgressModel } from './progress';
import { scanInputs, type ExcludeRules } from './scan';
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
  embedded: Pick<EmbeddedEmulator, 'url'>;
  globalState: Pick<vscode.Memento, 'get' | 'update'>;
  /** The workspace's exclusions (`files.exclude`, `search.exclude`, `node_modules`), read at each run. */
  excludes: () => ExcludeRules & { withBase(base: string): ExcludeRules };
  /** Where the run's results file goes (the extension's storage folder). */
  storage: Pick<ExtensionHost, 'storageUri' | 'globalStorageUri'>;
}

/** How a run was asked for. */
export interface RunRequest {
  inputs: string[];
  /** Retry: only these inputs of the plan, with the preset and mode of the earlier run. */
  retry?: { only: string[]; mode: OutputModeSetting; params: PfcParams };
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

/** What the scan-and-plan step needs to know about the run. */
interface PlanRequest {
  output: OutputMode;
  params: PfcParams;
  planKind: ResolvedBackend['planKind'];
  backendId: ResolvedBackend['id'];
  force: boolean;
  /** The cost guard of a paid backend: more files than this are counted (what would be sent) and asked about; 0: never. */
  confirmAbove: number;
}

/** A plan ready to run: streamed (files planned as the run takes them), or whole when the cost guard had to count them. */
interface PlannedRun {
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
 * Only the cost guard of a paid backend, when the count by name is over it,
 * plans every file first to count what would be sent. Files the workspace
 * excludes are left out by planning itself. Resolves undefined when cancelled.
 * `cancel` is the whole run's: the plan, streamed or whole, is made with its
 * signal, so Cancel here or in the run's notification stops the planning itself.
 */
async function scanAndPlan(svc: RunServices, req: RunRequest, r: PlanRequest, cancel: AbortController): Promise<PlannedRun | undefined> {
  const { api } = svc;
  const { t } = api.l10n;
  return api.window.withProgress({ location: api.ProgressLocation.Notification, title: t('Perfectly Clear'), cancellable: true }, async (progress, token) => {
    const cancelled = (): boolean => token.isCancellationRequested;
    // Cancel stops the work behind the notification (a walk of 100,000 folders, the reading of as many files), not only the wait for it.
    const sub = token.onCancellationRequested(() => cancel.abort());
    const { signal } = cancel;
    try {
      progress.report({ message: t('Scanning… {0} files', 0) });
      const scan = await scanInputs(req.inputs, svc.excludes(), (n) => progress.report({ message: t('Scanning… {0} files', n) }), cancelled);
      if (!scan) return undefined;
      progress.report({ message: t('Planning {0} files…', scan.files) });
      const leaveOut = (path: string): string | undefined => {
        const why = scan.excluded.get(path);
        return why ? `${EXCLUDED_BY}${why}` : undefined;
      };
      const stream = await planStream({ inputs: req.inputs, output: r.output, params: r.params, backend: r.planKind, backendId: r.backendId, leaveOut, signal });
      if (cancelled()) return undefined;
      const plan = req.retry ? onlyFiles(stream, new Set(req.retry.only)) : stream;
      if (r.confirmAbove <= 0 || plan.expectedFiles <= r.confirmAbove) return { plan, total: plan.expectedFiles };
      progress.report({ message: t('Checking {0} files against earlier results…', plan.expectedFiles) });
      const whole = await collectPlan(plan, { signal });
      const pending = await pendingFiles(whole, { backendId: r.backendId, params: r.params, force: r.force, signal });
      // `pendingFiles` stops with an error only while it hashes a file: a Cancel during the rest of the count ends here.
      if (cancelled()) return undefined;
      return { plan: whole, total: whole.files.length, pending: pending.length };
    } catch (err) {
      // The work that Cancel stopped ends with its abort error: the user asked for it.
      if (cancelled()) return undefined;
      throw err;
    } finally {
      sub.dispose();
    }
  });
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
  return { ...plan, expectedFiles: Math.min(plan.expectedFiles, only.size), skipped: [], progress: { leftOut: 0 }, files: chosen() };
}

const EXCLUDED_BY = 'excluded by ';
const CODE_LABEL: Record<SkippedPath['code'], string> = {
  hidden: 'hidden',
  'output-folder': 'output or backup folders',
  unsupported: 'not JPEG, PNG, MP4 or MOV',
  'over-limit': 'over the service limits',
  symlink: 'links to folders',
  'format-change': 'a format in place cannot keep',
  'suffix-output': 'earlier suffix outputs',
  duplicate: 'duplicates',
  unreadable: 'unreadable',
};

/** "7 paths: 4 not JPEG, PNG, MP4 or MOV, 2 hidden, 1 excluded by node_modules" — one phrase per reason, biggest first. */
export function leftOutSummary(skipped: readonly SkippedPath[]): string {
  const counts = new Map<string, number>();
  for (const sk of skipped) {
    const key = sk.reason.startsWith(EXCLUDED_BY) ? sk.reason : CODE_LABEL[sk.code];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`);
  return `${skipped.length} path${skipped.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

function nothingToCorrect(api: VscodeApi, skipped: readonly SkippedPath[]): undefined {
  void api.window.showInformationMessage(
    skipped.length > 0
      ? api.l10n.t('Perfectly Clear: no image or video to correct ({0}).', leftOutSummary(skipped))
      : api.l10n.t('Perfectly Clear: no image or video to correct.'),
  );
  return undefined;
}

/** Run one correction from start to summary. Resolves undefined when the user backed out. */
export async function correct(svc: RunServices, req: RunRequest): Promise<LastRun | undefined> {
  const { api, log } = svc;
  // The settings of the folder being corrected (the first one picked, in a multi-root workspace).
  const settings = settingsFrom(api, api.Uri.file(req.inputs[0]!));
  const resolved = await ensureBackend(svc, settings, (s) =>
    resolveBackend(s, svc.keys, {
      l10n: svc.api.l10n,
      onRetry: (r) => log.line(`retrying ${r.request} in ${Math.round(r.delayMs)} ms (attempt ${r.attempt})`),
      embedded: () => svc.embedded.url(),
    }),
  );
  if (!resolved) return undefined;
  if (resolved.backend.embedded) void noticeEmbeddedEmulator({ api, keys: svc.keys, globalState: svc.globalState });
  try {
    return await correctOn(svc, req, resolved.backend, resolved.settings);
  } finally {
    await resolved.backend.close();
  }
}

async function correctOn(svc: RunServices, req: RunRequest, backend: ResolvedBackend, effectiveSettings: ExtensionSettings): Promise<LastRun | undefined> {
  const { api, log } = svc;
  let params: PfcParams;
  let mode: OutputModeSetting;
  if (req.retry) {
    ({ params, mode } = req.retry);
  } else {
    const preset = await pickPreset(svc, backend, effectiveSettings);
    if (preset === undefined) return undefined;
    const picked = effectiveSettings.askOutputEachRun ? await pickOutputMode(api, effectiveSettings.outputMode) : effectiveSettings.outputMode;
    if (picked === undefined) return undefined;
    mode = picked;
    params = { ...effectiveSettings.parameters, preset };
  }
  const check = backend.backend.validate(params);
  if (check.errors.length > 0) {
    void api.window.showErrorMessage(api.l10n.t('Perfectly Clear: invalid parameters — {0}', check.errors.map((e) => e.message).join('; ')));
    return undefined;
  }
  for (const w of check.warnings) log.line(`note: ${w}`);

  const bases = await Promise.all(req.inputs.map(async (p) => ((await stat(p)).isDirectory() ? p : dirname(p))));
  const output = outputModeOf(mode, effectiveSettings, bases);
  const force = !effectiveSettings.skipAlreadyCorrected;
  const guard = backend.paid ? effectiveSettings.confirmAboveFiles : 0;
  // One cancel for the whole run: a streamed plan is still planned while the run corrects its first files.
  const cancel = new AbortController();
  const scanned = await scanAndPlan(svc, req, { output, params, planKind: backend.planKind, backendId: backend.id, force, confirmAbove: guard }, cancel);
  if (!scanned) return undefined;
  const { plan, total, pending } = scanned;
  if (total === 0) return nothingToCorrect(api, plan.skipped);
  // Up-to-date files cost nothing: only what would be sent is counted (during the scan).
  if (pending !== undefined && pending > guard) {
    const go = await api.window.showWarningMessage(
      api.l10n.t('Correct {0} files on {1}? Each correction may be billed.', pending, backend.label),
      { modal: true },
      api.l10n.t('Correct'),
    );
    if (go !== api.l10n.t('Correct')) return undefined;
  }

  // A folder the results cannot go to is said before anything is sent (a file named like the output folder, no permission).
  await checkOutputWritable(plan);
  log.line(`run: ${req.inputs.join(', ')} with preset "${params.preset ?? 'Universal'}" on ${backend.label}, output mode ${mode}`);
  // Every result goes to a file, not into memory or workspaceState (see last-run.ts).
  const resultsFile = await newResultsFile(svc.storage);
  let summary: BatchSummary;
  try {
    summary = await runWithProgress(svc, plan, total, backend, params, effectiveSettings, resultsFile, cancel);
  } catch (err) {
    await rm(resultsFile, { force: true });
    throw err;
  }
  // A streamed plan's list of left-out paths is complete once its files are planned; each path was a trace line.
  if (plan.skipped.length > 0) log.line(`left out ${leftOutSummary(plan.skipped)}`);
  // Every file counted by name turned out not to be one to correct (not an image, over a limit…).
  if (summary.corrected + summary.upToDate + summary.failed + summary.cancelled === 0 && !summary.interrupted) {
    await rm(resultsFile, { force: true });
    return nothingToCorrect(api, plan.skipped);
  }
  return { version: LAST_RUN_VERSION, inputs: req.inputs, mode, params, summary: countsOf(summary), resultsFile };
}

/** `cancel`: the run's (see `correctOn`), aborted by the notification's Cancel. */
async function runWithProgress(
  svc: RunServices, plan: BatchPlan | StreamedPlan, total: number, backend: ResolvedBackend, params: PfcParams, settings: ExtensionSettings, resultsFile: string, cancel: AbortController,
): Promise<BatchSummary> {
  const { api, log, status } = svc;
  const model = new ProgressModel(total);
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
        progress.report({ message: api.l10n.t('{0}/{1} · starting', 0, total) });
        try {
          return await runBatch(plan, {
            backend: backend.backend,
            backendId: backend.id,
            params,
            // 0: the backend's own width, as the CLI without -j (on a fleet, the instances' jobs together).
            concurrency: settings.concurrency > 0 ? settings.concurrency : backend.defaultConcurrency,
            force: !settings.skipAlreadyCorrected,
            signal: cancel.signal,
            // Fewer jobs at once while the service answers 429, more again when it keeps up.
            ...(backend.rateLimited ? { rateLimited: backend.rateLimited } : {}),
            // Counts and the first failures in memory; every result a line of the results file.
            keepResults: false,
            resultsFile,
            onEvent: (e) => {
              const line = logLine(e);
              // Left-out paths were summarised after planning; each one is a trace line.
              if (line && e.type === 'skipped') log.trace(line);
              else if (line) log.line(line);
              const increment = model.apply(e);
              if (e.type === 'start' || increment > 0) {
                progress.report({ message: model.message(), increment });
                status.text = model.statusText();
              }
            },
          });
        } finally {
          sub.dispose();
        }
      },
    );
  } finally {
    status.hide();
  }
}
