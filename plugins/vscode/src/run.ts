/**
 * One correction run, as the user sees it: settings and key checks, the preset
 * (and optional output-mode) pick, the plan, the cost guard, the cancellable
 * progress notification, and the summary with its buttons. The work itself is
 * @pfc/batch's `planBatch` and `runBatch`, exactly as the CLI runs it.
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pendingFiles, planBatch, runBatch, type BatchPlan, type BatchSummary } from '@pfc/batch';
import type { PfcParams } from '@pfc/core';
import { resolveBackend, type ResolvedBackend } from './backend';
import type { KeyStore } from './keys';
import type { Log } from './log';
import type { EmbeddedEmulator } from './embedded';
import { ensureBackend, noticeEmbeddedEmulator } from './onboarding';
import { listCustomPresets, presetItems } from './presets';
import { logLine, ProgressModel } from './progress';
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
  const labels: Record<OutputModeSetting, string> = {
    folder: 'Mirror into an output folder',
    suffix: 'Beside each file, with a suffix',
    'in-place': 'Replace originals (backups kept)',
  };
  const items = OUTPUT_MODES.map((m) => ({ label: labels[m], mode: m, description: m === current ? 'setting' : undefined }));
  items.sort((a, b) => Number(b.mode === current) - Number(a.mode === current));
  const picked = await api.window.showQuickPick(items, { title: 'Perfectly Clear: where should corrected files go?', ignoreFocusOut: true });
  return picked?.mode;
}

/** Ask for the preset: built-ins at once, the account's custom presets as they arrive. */
async function pickPreset(svc: RunServices, resolved: ResolvedBackend, settings: ExtensionSettings): Promise<string | undefined> {
  const items = listCustomPresets(resolved.backend).then(({ names, error }) => {
    if (error) svc.log.line(`custom presets could not be listed: ${error}`);
    return presetItems(names, settings.defaultPreset, svc.api.QuickPickItemKind.Separator);
  });
  const picked = await svc.api.window.showQuickPick(items, {
    title: 'Perfectly Clear: preset',
    placeHolder: 'Pick a preset for this run',
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  return picked?.preset;
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
    void api.window.showErrorMessage(`Perfectly Clear: invalid parameters — ${check.errors.map((e) => e.message).join('; ')}`);
    return undefined;
  }
  for (const w of check.warnings) log.line(`note: ${w}`);

  const bases = await Promise.all(req.inputs.map(async (p) => ((await stat(p)).isDirectory() ? p : dirname(p))));
  let plan = await planBatch({ inputs: req.inputs, output: outputModeOf(mode, effectiveSettings, bases), params, backend: backend.planKind });
  if (req.retry) plan = filterPlan(plan, new Set(req.retry.only));
  if (plan.files.length === 0) {
    const why = plan.skipped.slice(0, 3).map((s) => `${s.path}: ${s.reason}`).join('; ');
    void api.window.showInformationMessage(`Perfectly Clear: no image or video to correct${why ? ` (${why}${plan.skipped.length > 3 ? '; …' : ''})` : ''}.`);
    return undefined;
  }
  const guard = effectiveSettings.confirmAboveFiles;
  if (backend.paid && guard > 0 && plan.files.length > guard) {
    // Up-to-date files cost nothing: count only what would be sent.
    const force = !effectiveSettings.skipAlreadyCorrected;
    const pending = (await pendingFiles(plan, { backendId: backend.id, params, force })).length;
    if (pending > guard) {
      const go = await api.window.showWarningMessage(
        `Correct ${pending} files on ${backend.label}? Each correction may be billed.`,
        { modal: true },
        'Correct',
      );
      if (go !== 'Correct') return undefined;
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
  status.tooltip = 'Perfectly Clear is correcting files — click for the log';
  status.text = model.statusText();
  status.show();
  try {
    return await api.window.withProgress(
      { location: api.ProgressLocation.Notification, title: 'Perfectly Clear', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => {
          log.line('cancel requested: no new file starts; files in flight are aborted');
          controller.abort();
        });
        progress.report({ message: `0/${plan.files.length} · starting` });
        try {
          return await runBatch(plan, {
            backend: backend.backend,
            backendId: backend.id,
            params,
            concurrency: settings.concurrency,
            force: !settings.skipAlreadyCorrected,
            signal: controller.signal,
            onEvent: (e) => {
              const line = logLine(e);
              if (line) log.line(line);
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
