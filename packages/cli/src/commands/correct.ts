/** `pfc correct <paths...>`: plan, guard the cost, run with progress, report, and exit with a code that says how it went. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  BACKEND_CHOICES, BACKUP_DIR, checkOutputWritable, impliedParams, type BackendChoice, type BackendSelection, type BatchPlan, type BatchSummary, BatchUsageError, checkReportPath, formatBytes,
  collectPlan, type OpenedBackend, openBackend, type OutputMode, pendingFiles, planStream, resolveBackendChoice, runBatch, type StreamedPlan, type SupervisedEmulatorEvent,
} from '@pfc/batch';
import { type FleetEvent, ParameterError, type PfcParams, UserAbortError } from '@pfc/core';
import { intFlag, parse, secondsFlag } from '../args';
import { keepHeapNearLive } from '../heap';
import { CORRECT_HELP } from '../help';
import { type CliIo, EXIT, UsageError } from '../io';
import { paramsFromArgs } from '../params';
import { checkPresetExists } from '../preflight';
import { humanRenderer, jsonRenderer, printSummary, type Renderer, shown } from '../render';
import { API_KEY_FLAGS, readApiKey } from '../secrets';

const DEFAULT_CONFIRM_ABOVE = 20;
/** Upper bound of `--job-timeout`: one day, in seconds. */
const MAX_JOB_TIMEOUT_S = 86_400;

const CORRECT_OPTIONS = {
  out: { type: 'string', short: 'o' },
  suffix: { type: 'string' },
  'in-place': { type: 'boolean' },
  overwrite: { type: 'boolean' },
  wait: { type: 'boolean' },
  backend: { type: 'string' },
  ...API_KEY_FLAGS,
  'base-url': { type: 'string' },
  'container-url': { type: 'string', multiple: true },
  'container-input-dir': { type: 'string' },
  'container-output-dir': { type: 'string' },
  'bgr-url': { type: 'string', multiple: true },
  'instance-jobs': { type: 'string' },
  'bgr-license-key': { type: 'string' },
  preset: { type: 'string' },
  param: { type: 'string', short: 'p', multiple: true },
  concurrency: { type: 'string', short: 'j' },
  'job-timeout': { type: 'string' },
  force: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  'confirm-above': { type: 'string' },
  json: { type: 'boolean' },
  report: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type CorrectValues = ReturnType<typeof parse<typeof CORRECT_OPTIONS>>['values'];

/** Everything a run needs, read from the command line and the environment. */
interface CorrectRequest {
  v: CorrectValues;
  positionals: string[];
  output: OutputMode;
  params: PfcParams;
  warnings: string[];
  concurrency: number | undefined;
  jobTimeoutS: number | undefined;
  confirmAbove: number;
  selection: BackendSelection;
  resolved: ReturnType<typeof resolveBackendChoice>;
  /** Real path of `--report`, checked before anything is sent. */
  report: string | undefined;
}

export async function correctCommand(argv: string[], io: CliIo): Promise<number> {
  const { values: v, positionals } = parse(argv, CORRECT_OPTIONS, 'correct');
  if (v.help) {
    io.stdout.write(CORRECT_HELP);
    return EXIT.ok;
  }
  const render = v.json ? jsonRenderer(io) : humanRenderer(io);
  const request = await readRequest(v, positionals, io, render.notice);
  keepHeapNearLive();
  for (const w of request.warnings) render.notice(`Note: ${w}`);

  // Ctrl-C during the run (see runWithInterrupts); before it, Ctrl-C ends the process at once (nothing is written yet).
  const stopping = new AbortController();
  // The names-only pass before starting anything, so a missing path or an unsafe --out costs nothing;
  // the files are planned while the first ones are corrected (memory does not grow with the tree),
  // and Ctrl-C stops that planning too, not only the jobs.
  const plan = await planStream({ inputs: positionals, output: request.output, params: request.params, backend: request.resolved, cwd: io.cwd, signal: stopping.signal }).catch(usage);
  await checkOutputWritable(plan, (path) => shown(io.cwd, path)).catch(usage);
  let opened: OpenedBackend | undefined;
  let scratch: string | undefined;
  let finishing: FinishingInterrupts | undefined;
  try {
    opened = await openBackend(request.selection).catch(usage);
    render.notice(request.resolved === 'emulator'
      ? `Using the ${opened.description} (no API key or container URL configured).`
      : `Using the ${opened.description}.`);
    const check = opened.backend.validate(request.params);
    if (check.errors.length > 0) throw new UsageError(`invalid parameters for the ${opened.id} backend:\n  ${check.errors.map((e) => e.message).join('\n  ')}`);
    await checkPresetExists(request.params.preset, opened);
    const approved = await costApproved(request, plan, opened, io);
    if (!approved) {
      render.notice('Nothing sent.');
      return EXIT.usage;
    }
    // Results go to a file for the report, not into memory (a run of 100,000 files keeps counts and failures).
    scratch = request.report ? await mkdtemp(join(tmpdir(), 'pfc-results-')) : undefined;
    const summary = await runWithInterrupts(request, approved, opened, render, io, scratch ? join(scratch, 'results.jsonl') : undefined, stopping);
    finishing = interruptsWhileFinishing(io, render);
    const code = await finish(request, summary, opened, render, io);
    finishing.decided(code);
    return code;
  } finally {
    await opened?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
    finishing?.off();
  }
}

interface FinishingInterrupts {
  /** The run's exit code is known (its summary is out). */
  decided(code: number): void;
  off(): void;
}

/**
 * Ctrl-C once the run is over, while its report is written and the backend
 * (the embedded emulator) closes: the results are all on disk, so the first
 * one only says what is left and the run still ends with its own exit code;
 * a second quits at once, with that code once it is known.
 */
function interruptsWhileFinishing(io: CliIo, render: Renderer): FinishingInterrupts {
  let code: number | undefined;
  let interrupts = 0;
  const off = io.onInterrupt(() => {
    if (++interrupts === 1) render.notice(`The run is over; ${code === undefined ? 'writing its summary' : 'closing the backend'}. Press Ctrl-C again to quit at once.`);
    else process.exit(code ?? EXIT.interrupted);
  });
  return { decided: (c) => (code = c), off };
}

/** Read and check the flags: every usage error is raised here, before planning. */
/** `notice`: a line on stderr, clear of the progress bar (told of the service's events during the run). */
async function readRequest(v: CorrectValues, positionals: string[], io: CliIo, notice: (line: string) => void): Promise<CorrectRequest> {
  if (positionals.length === 0) throw new UsageError('no input paths: pfc correct <files or folders...> (see: pfc correct --help)');
  const output = outputMode(v.out, v.suffix, v['in-place'] ?? false);
  if (v.overwrite && output.kind === 'in-place') throw new UsageError('--overwrite does not go with --in-place: in-place runs always keep the originals under .pfc-originals/');
  const { params: given, warnings } = paramsFromArgs(v.preset, v.param ?? []);
  const concurrency = intFlag('concurrency', v.concurrency, 1, 64);
  const jobTimeoutS = secondsFlag('job-timeout', v['job-timeout'], MAX_JOB_TIMEOUT_S);
  const confirmAbove = intFlag('confirm-above', v['confirm-above'], 0, Number.MAX_SAFE_INTEGER) ?? DEFAULT_CONFIRM_ABOVE;
  const choice = (v.backend ?? 'auto') as BackendChoice;
  if (!BACKEND_CHOICES.includes(choice)) throw new UsageError(`--backend must be one of ${BACKEND_CHOICES.join(', ')} (got ${JSON.stringify(v.backend)})`);
  const selection: BackendSelection = {
    backend: choice,
    apiKey: await readApiKey(v, io),
    baseURL: v['base-url'] ?? io.env.PFC_BASE_URL,
    // Repeated flags, or commas in the flag or the variable, give several instances (a fleet).
    containerUrl: v['container-url'] ?? io.env.PFC_CONTAINER_URL,
    bgrUrl: v['bgr-url'] ?? io.env.PFC_BGR_URL,
    // One number for every instance, or one per instance in the order of the URLs (checked by openBackend, before anything is sent).
    instanceJobs: v['instance-jobs'] ?? io.env.PFC_INSTANCE_JOBS,
    onFleetEvent: (e) => fleetNotice(e, notice),
    onEmbeddedEvent: (e) => embeddedNotice(e, notice),
    bgrLicenseKey: v['bgr-license-key'] ?? io.env.PFC_BGR_LICENSE_KEY,
    ...containerDirect(v['container-input-dir'], v['container-output-dir'], io.cwd),
  };
  const resolved = resolveOrUsage(selection);
  // A flag the chosen backend would not use is refused rather than ignored.
  if (v['instance-jobs'] !== undefined && (resolved === 'web' || resolved === 'emulator')) {
    throw new UsageError(`--instance-jobs sets the files at once of each self-hosted container (--container-url, --bgr-url); the ${resolved} backend has none: use -j`);
  }
  // With --backend emulator, --base-url is a running emulator's address (pfc emulator), not ignored for the embedded one.
  if (resolved === 'emulator' && v['base-url'] !== undefined) selection.emulatorUrl = v['base-url'];
  const params = impliedParams(resolved, given);
  // The report path is judged before anything is sent: it is written only as a new file or over an earlier report.
  const report = v.report !== undefined ? await checkReportPath(resolve(io.cwd, v.report)).catch(usage) : undefined;
  return { v, positionals, output, params, warnings, concurrency, jobTimeoutS, confirmAbove, selection, resolved, report };
}

/**
 * The cost guard: on a paid backend, ask before sending more than `--confirm-above` files. The plan to run,
 * or undefined when refused. Only a question that the count by name cannot settle plans every file first
 * (to count what is not up to date); otherwise the plan stays streamed.
 */
async function costApproved(request: CorrectRequest, plan: StreamedPlan, opened: OpenedBackend, io: CliIo): Promise<BatchPlan | StreamedPlan | undefined> {
  const { v, confirmAbove } = request;
  if (!opened.paid || v.yes || plan.expectedFiles <= confirmAbove) return plan;
  const whole = await collectPlan(plan).catch(usage);
  const pending = await pendingFiles(whole, { backendId: opened.id, params: request.params, force: v.force ?? false, overwrite: v.overwrite ?? false });
  if (pending.length <= confirmAbove) return whole;
  return (await confirm(io, pending.length, pending.reduce((n, f) => n + f.size, 0), opened.description, Boolean(v.json))) ? whole : undefined;
}

/** Run the plan; the first Ctrl-C cancels cleanly (aborting `ctrl`, which a streamed plan was given too), the second quits at once. */
async function runWithInterrupts(request: CorrectRequest, plan: BatchPlan | StreamedPlan, opened: OpenedBackend, render: Renderer, io: CliIo, resultsFile: string | undefined, ctrl: AbortController): Promise<BatchSummary> {
  const { v } = request;
  let interrupts = 0;
  const offInterrupt = io.onInterrupt(() => {
    interrupts++;
    if (interrupts === 1) {
      render.notice('Stopping: no new files; files in flight are cancelled. Press Ctrl-C again to quit at once.');
      ctrl.abort();
    } else {
      process.exit(EXIT.interrupted);
    }
  });
  try {
    return await runBatch(plan, {
      backend: opened.backend,
      backendId: opened.id,
      params: request.params,
      concurrency: request.concurrency ?? opened.defaultConcurrency,
      force: v.force ?? false,
      overwrite: v.overwrite ?? false,
      waitForLock: v.wait ?? false,
      onLockWait: (lock, holder) => render.notice(`Waiting for the run holding ${shown(io.cwd, lock)}${holder ? ` (process ${holder.pid} on ${holder.host}, started ${holder.startedAt})` : ''} to finish…`),
      ...(request.jobTimeoutS !== undefined ? { jobTimeoutMs: Math.round(request.jobTimeoutS * 1000) } : {}),
      signal: ctrl.signal,
      onEvent: (e) => render.event(e),
      ...(opened.rateLimited ? { rateLimited: opened.rateLimited } : {}),
      keepResults: false,
      ...(resultsFile ? { resultsFile } : {}),
      // Loaded (with sharp) only when a greyscale file goes to the Web API: sharp adds ~0.2 s to a start.
      rgbCopy: async (...copy) => (await import('@pfc/batch/rgb')).rgbCopy(...copy),
    }).catch((err: unknown) => {
      if (err instanceof ParameterError) throw new UsageError(`invalid parameters:\n  ${err.issues.map((i) => i.message).join('\n  ')}`);
      if (err instanceof UserAbortError) process.exit(EXIT.interrupted);
      return usage(err);
    });
  } finally {
    offInterrupt();
    render.stop();
  }
}

/** Write the report, print the summary, and choose the exit code. */
async function finish(request: CorrectRequest, summary: BatchSummary, opened: OpenedBackend, render: Renderer, io: CliIo): Promise<number> {
  const { v, output } = request;
  const report = request.report ? await writeReportOf(request.report, summary, opened, request.params) : {};
  const code = summary.interrupted ? EXIT.interrupted : summary.failed > 0 || summary.stoppedBecause || report.notWritten ? EXIT.failed : EXIT.ok;
  if (v.json) {
    // The summary line says it too (stoppedBecause); people reading the run see it on stderr.
    if (summary.stoppedBecause) render.notice(`Stopped early: ${summary.stoppedBecause}`);
    io.stdout.write(`${JSON.stringify(jsonSummary(summary, report.path, code))}\n`);
  } else {
    const backupRoots = output.kind === 'in-place' && summary.corrected + summary.upToDate > 0 ? summary.outputRoots.map((r) => join(r, BACKUP_DIR)) : [];
    printSummary(io, summary, { ...(report.path ? { report: report.path } : {}), backupRoots });
    printInstances(opened, io);
  }
  if (report.notWritten) render.notice(`pfc: the report was not written: ${report.notWritten}`);
  return code;
}

/**
 * Write the report: its path, or why a full or read-only disk refused it (the
 * run's results stand and its summary is printed all the same). Loaded only for
 * --report: it brings sharp, whose loading would add ~0.2 s to every start.
 */
async function writeReportOf(path: string, summary: BatchSummary, opened: OpenedBackend, params: PfcParams): Promise<{ path?: string; notWritten?: string }> {
  const { DiskRefusedError, writeReport } = await import('@pfc/batch/report');
  return writeReport(path, summary, { backend: opened.description, params }).then(
    (written) => ({ path: written }),
    (err: unknown) => {
      if (err instanceof DiskRefusedError) return { notWritten: err.message };
      return usage(err);
    },
  );
}

/** A fleet's events as they happen, on stderr (stdout may carry --json). */
function fleetNotice(e: FleetEvent, notice: (line: string) => void): void {
  const line = e.type === 'down' ? `Instance ${e.instance} is down (${e.reason}); its work goes to the others.`
    : e.type === 'up' ? `Instance ${e.instance} is back; it takes work again.`
    : undefined;
  if (line) notice(line);
}

/** The embedded emulator ended on its own and is started again, was left stopped, or could not start again (its start is said once, by `Using the…`). */
function embeddedNotice(e: SupervisedEmulatorEvent, notice: (line: string) => void): void {
  if (e.type !== 'started') notice(`${e.message.charAt(0).toUpperCase()}${e.message.slice(1)}.`);
}

/**
 * One line per instance of a fleet: the files it did, the files at once it
 * ended with (chosen from its measured speed unless --instance-jobs fixed
 * it), and whether and why it failed.
 */
function printInstances(opened: OpenedBackend, io: CliIo): void {
  const instances = opened.instances?.();
  if (!instances) return;
  io.stdout.write('Instances:\n');
  for (const i of instances) {
    const state = i.failed > 0 || i.healthy === false ? `FAILED ${i.failed} file(s) moved${i.lastError ? ` — ${i.lastError}` : ''}${i.healthy ? '; healthy again at the end' : ''}` : 'ok';
    const width = i.automatic ? `${i.concurrency} at once (automatic, up to ${i.maxConcurrency})` : `${i.concurrency} at once`;
    io.stdout.write(`  ${i.name}: ${i.completed} file(s), ${width}, ${state}\n`);
  }
}

function outputMode(out: string | undefined, suffix: string | undefined, inPlace: boolean): OutputMode {
  const given = [out !== undefined && '--out', suffix !== undefined && '--suffix', inPlace && '--in-place'].filter(Boolean);
  if (given.length > 1) throw new UsageError(`${given.join(' and ')} cannot be combined: choose one place for the results`);
  if (suffix !== undefined) {
    if (!/^[^/\\\0]+$/.test(suffix)) throw new UsageError(`--suffix must be a non-empty file-name part without slashes (got ${JSON.stringify(suffix)})`);
    return { kind: 'suffix', suffix };
  }
  if (inPlace) return { kind: 'in-place' };
  return out !== undefined ? { kind: 'mirror', dir: out } : { kind: 'mirror' };
}

/** `--container-input-dir` and `--container-output-dir`: both or neither (openBackend checks the backend and the folders). */
function containerDirect(input: string | undefined, output: string | undefined, cwd: string): { containerDirect?: { inputDir: string; outputDir: string } } {
  if (input === undefined && output === undefined) return {};
  if (input?.trim() === '' || output?.trim() === '') throw new UsageError('--container-input-dir and --container-output-dir need a folder (got an empty value)');
  if (input === undefined || output === undefined) {
    throw new UsageError(`--container-input-dir and --container-output-dir go together: give both (the local folders mounted as the container's /input and /output), got only ${input === undefined ? '--container-output-dir' : '--container-input-dir'}`);
  }
  return { containerDirect: { inputDir: resolve(cwd, input), outputDir: resolve(cwd, output) } };
}

/** The backend `auto` picks; a bad or repeated container URL is a usage error. */
function resolveOrUsage(selection: BackendSelection): ReturnType<typeof resolveBackendChoice> {
  try {
    return resolveBackendChoice(selection);
  } catch (err) {
    return usage(err);
  }
}

function usage(err: unknown): never {
  if (err instanceof BatchUsageError) throw new UsageError(err.message);
  throw err;
}

/** The cost guard's question; without a terminal to ask on, the answer is no. */
async function confirm(io: CliIo, files: number, bytes: number, backend: string, json: boolean): Promise<boolean> {
  const what = `${files} files (${formatBytes(bytes)}) to the ${backend}, which bills per file`;
  if (json || !io.stdin.isTTY || !io.stderr.isTTY) {
    io.stderr.write(`pfc: refusing to send ${what} without confirmation: pass --yes (or raise --confirm-above)\n`);
    return false;
  }
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    const answer = await rl.question(`Send ${what}? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function jsonSummary(s: BatchSummary, report: string | undefined, exitCode: number) {
  return {
    type: 'summary',
    corrected: s.corrected,
    skipped: s.skipped,
    failed: s.failed,
    refused: s.refused,
    upToDate: s.upToDate,
    excluded: s.excluded,
    cancelled: s.cancelled,
    bytesIn: s.bytesIn,
    bytesOut: s.bytesOut,
    durationMs: s.durationMs,
    interrupted: s.interrupted,
    ...(s.stoppedBecause ? { stoppedBecause: s.stoppedBecause } : {}),
    outputRoots: s.outputRoots,
    report: report ?? null,
    ...(s.jobsAtOnce ? { jobsAtOnce: s.jobsAtOnce } : {}),
    exitCode,
    failures: [
      ...s.failures.map((r) => ({ input: r.input, error: r.error, errorName: r.errorName })),
      // The unreadable paths the summary kept (the first 1,000); each one was a `skipped` line.
      ...s.excludedPaths.filter((p) => p.code === 'unreadable').map((p) => ({ input: p.path, error: p.reason, errorName: 'InputUnreadableError' })),
    ],
  };
}
