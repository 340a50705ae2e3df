/**
 * One correction run, as the user sees it: settings and key checks, the preset
 * (and optional output-mode) pick, the plan, the cost guard, the cancellable
 * progress notification, and the summary with its buttons. The work itself is
 * @pfc/batch's `planBatch` and `runBatch`, exactly as the CLI runs it.
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pendingFiles, planBatch, runBatch, type BatchPlan, type BatchSummary, type OutputMode, type SkippedPath } from '@pfc/batch';
import type { PfcParams } from '@pfc/core';
import { resolveBackend, type ResolvedBackend } from './backend';
import type { KeyStore } from './keys';
import type { Log } from './log';
import type { EmbeddedEmulator } from './embedded';
import { ensureBackend, noticeEmbeddedEmulator } from './onboarding';
import { listCustomPresets, presetItems } from './presets';
import { logLine, ProgressModel } from './progress';
import { isWithin, scanInputs, type ExcludeRules, type ScanReason } from './scan';
import { outputModeOf, settingsFrom, OUTPUT_MODES, type ExtensionSettings, type OutputModeSetting } from './settings';
import type { VscodeApi } from './vscode-api';
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
}

/** What is kept of the last run, for "Show Report" and "Retry Failed". */
export interface LastRun {
  inputs: string[];
  mode: OutputModeSetting;
  params: PfcParams;
  summary: BatchSummary;
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
  /** Count the files that would be sent (the cost guard of paid backends). */
  countPending: boolean;
}

/**
 * Scan, plan and count in one cancellable notification: "Scanning… N files",
 * then planning (reading each file's header) and, on a paid backend, counting
 * what would be sent. Files the workspace excludes are taken out of the plan.
 * Resolves undefined when cancelled.
 */
async function scanAndPlan(svc: RunServices, req: RunRequest, r: PlanRequest): Promise<{ plan: BatchPlan; pending?: number } | undefined> {
  const { api, log } = svc;
  const { t } = api.l10n;
  return api.window.withProgress({ location: api.ProgressLocation.Notification, title: t('Perfectly Clear'), cancellable: true }, async (progress, token) => {
    const cancelled = (): boolean => token.isCancellationRequested;
    const whenCancelled = new Promise<undefined>((resolve) => token.onCancellationRequested(() => resolve(undefined)));
    progress.report({ message: t('Scanning… {0} files', 0) });
    const scan = await scanInputs(req.inputs, svc.excludes(), (n) => progress.report({ message: t('Scanning… {0} files', n) }), cancelled);
    if (!scan) return undefined;
    progress.report({ message: t('Planning {0} files…', scan.files) });
    // planBatch cannot be interrupted; a cancel stops waiting for it and discards its plan.
    let plan = await Promise.race([planBatch({ inputs: req.inputs, output: r.output, params: r.params, backend: r.planKind, backendId: r.backendId }), whenCancelled]);
    if (!plan || cancelled()) return undefined;
    plan = withoutExcluded(plan, scan.excluded);
    if (req.retry) plan = filterPlan(plan, new Set(req.retry.only));
    if (plan.skipped.length > 0) {
      log.line(`left out ${leftOutSummary(plan.skipped)}`);
      for (const sk of plan.skipped) log.trace(`left out ${sk.path}: ${sk.reason}`);
    }
    if (!r.countPending || plan.files.length === 0) return { plan };
    progress.report({ message: t('Checking {0} files against earlier results…', plan.files.length) });
    const pending = await Promise.race([pendingFiles(plan, { backendId: r.backendId, params: r.params, force: r.force }), whenCancelled]);
    if (!pending || cancelled()) return undefined;
    return { plan, pending: pending.length };
  });
}

/** The plan without the files the workspace excludes: each excluded path becomes one left-out entry. */
export function withoutExcluded(plan: BatchPlan, excluded: ReadonlyMap<string, ScanReason>): BatchPlan {
  if (excluded.size === 0) return plan;
  const roots = [...excluded.keys()];
  const inside = (p: string): boolean => roots.some((root) => isWithin(p, root));
  const files = plan.files.filter((f) => !inside(f.input));
  const skipped: SkippedPath[] = [
    ...plan.skipped.filter((sk) => !inside(sk.path)),
    ...[...excluded].map(([path, why]) => ({ path, code: 'hidden' as const, reason: `${EXCLUDED_BY}${why}` })),
  ];
  return { ...plan, files, skipped, outputRoots: [...new Set(files.map((f) => f.outputRoot))], totalBytes: files.reduce((n, f) => n + f.size, 0) };
}

const EXCLUDED_BY = 'excluded by ';
const CODE_LABEL: Record<SkippedPath['code'], string> = {
  hidden: 'hidden',
  'output-folder': 'output or backup folders',
  unsupported: 'not JPEG, PNG, MP4 or MOV',
  'over-limit': 'over the service limits',
  symlink: 'links to folders',
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

function filterPlan(plan: BatchPlan, only: ReadonlySet<string>): BatchPlan {
  const files = plan.files.filter((f) => only.has(f.input));
  return { ...plan, files, skipped: [], outputRoots: [...new Set(files.map((f) => f.outputRoot))], totalBytes: files.reduce((n, f) => n + f.size, 0) };
}

/** Run one correction from start to summary. Resolves undefined when the user backed out. */
export async function correct(svc: RunServices, req: RunRequest): Promise<LastRun | undefined> {
  const { api, log } = svc;
  const settings = settingsFrom(api);
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
  const scanned = await scanAndPlan(svc, req, { output, params, planKind: backend.planKind, backendId: backend.id, force, countPending: backend.paid });
  if (!scanned) return undefined;
  const { plan, pending } = scanned;
  if (plan.files.length === 0) {
    void api.window.showInformationMessage(
      plan.skipped.length > 0
        ? api.l10n.t('Perfectly Clear: no image or video to correct ({0}).', leftOutSummary(plan.skipped))
        : api.l10n.t('Perfectly Clear: no image or video to correct.'),
    );
    return undefined;
  }
  const guard = effectiveSettings.confirmAboveFiles;
  // Up-to-date files cost nothing: only what would be sent is counted (during the scan).
  if (backend.paid && guard > 0 && pending !== undefined) {
    if (pending > guard) {
      const go = await api.window.showWarningMessage(
        api.l10n.t('Correct {0} files on {1}? Each correction may be billed.', pending, backend.label),
        { modal: true },
        api.l10n.t('Correct'),
      );
      if (go !== api.l10n.t('Correct')) return undefined;
    }
  }

  log.line(`run: ${req.inputs.join(', ')} with preset "${params.preset ?? 'Universal'}" on ${backend.label}, output mode ${mode}`);
  const summary = await runWithProgress(svc, plan, backend, params, effectiveSettings);
  return { inputs: req.inputs, mode, params, summary };
}

async function runWithProgress(svc: RunServices, plan: BatchPlan, backend: ResolvedBackend, params: PfcParams, settings: ExtensionSettings): Promise<BatchSummary> {
  const { api, log, status } = svc;
  const model = new ProgressModel(plan.files.length);
  status.command = 'pfc.showLog';
  status.tooltip = api.l10n.t('Perfectly Clear is correcting files — click for the log');
  status.text = model.statusText();
  status.show();
  try {
    return await api.window.withProgress(
      { location: api.ProgressLocation.Notification, title: api.l10n.t('Perfectly Clear'), cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => {
          log.line('cancel requested: no new file starts; files in flight are aborted');
          controller.abort();
        });
        progress.report({ message: api.l10n.t('{0}/{1} · starting', 0, plan.files.length) });
        try {
          return await runBatch(plan, {
            backend: backend.backend,
            backendId: backend.id,
            params,
            // 0: the backend's own width, as the CLI without -j (on a fleet, the instances' jobs together).
            concurrency: settings.concurrency > 0 ? settings.concurrency : backend.defaultConcurrency,
            force: !settings.skipAlreadyCorrected,
            signal: controller.signal,
            // Fewer jobs at once while the service answers 429, more again when it keeps up.
            ...(backend.rateLimited ? { rateLimited: backend.rateLimited } : {}),
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
